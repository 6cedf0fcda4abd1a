/* rt_reverse_v2.h - REVERSE_V2 kernel: a strided byte copy reading the
 * reversed dimensions with negative strides (see rt_shape_common.h). */
#ifndef MPCC_RT_REVERSE_V2_H
#define MPCC_RT_REVERSE_V2_H

#include "rt_shape_common.h"

/* Any dtype (a byte copy). */
void rt_reverse_v2(const rt_copy_params *p, const void *in, void *out);

#endif
