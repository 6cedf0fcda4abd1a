/* sched_gather.h - GATHER as row copies (prefix sched_), chosen by pass schedule
 * where the indices are known at compile time and pick affine rows. */
#ifndef MPCC_SCHED_GATHER_H
#define MPCC_SCHED_GATHER_H

#include "diag.h"
#include "ir.h"

/* Schedules GATHER op i as SCHED_GATHER_ROWS (an rt_copy_params in op->sched.kparams) when its
 * indices, per batch, are rows of consecutive positions whose starts step evenly (a signal cut
 * into STFT frames: idx[f][j] = start + f * step + j), all in range. Indices that a live op
 * computes from constants alone, read by this GATHER only, are evaluated here and that op is
 * folded. Anything else keeps the reference kernel. Returns a status. */
int sched_gather_rows(Graph *g, int i, Diag *d);

#endif
