/* rt_fill.h - FILL kernel: the scalar `in` copied to every element, a strided
 * byte copy with all input strides 0 (see rt_shape_common.h). */
#ifndef MPCC_RT_FILL_H
#define MPCC_RT_FILL_H

#include "rt_shape_common.h"

/* Any dtype (a byte copy). */
void rt_fill(const rt_copy_params *p, const void *in, void *out);

#endif
