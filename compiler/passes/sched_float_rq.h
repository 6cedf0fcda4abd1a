/* sched_float_rq.h - the float requantization of int8 ADD/SUB (prefix sched_),
 * chosen by pass schedule where it reproduces TFLite's integer arithmetic. */
#ifndef MPCC_SCHED_FLOAT_RQ_H
#define MPCC_SCHED_FLOAT_RQ_H

#include "mpcc_rt.h"

/* Sets p->fq_a/fq_b/fq_c/fq_mode for an int8 ADD (sign 1) or SUB (sign -1) whose integer params are
 * prepared: tries the float form on all 256 x 256 input pairs against rt_addsub_q and keeps it
 * where it gives the same int8 for every pair (mode 2), or for every pair but the near-ties the
 * kernel sends to the integer path (mode 1, if at most 1 % of pairs are near-ties); else mode 0.
 * Returns the mode; *near_ties gets the count of near-tie pairs. */
int sched_float_rq(rt_binary_params *p, int sign, int *near_ties);

#endif
