/* rt_reduce_all.h - REDUCE_ALL kernel (bool as uint8 0/1). */
#ifndef MPCC_RT_REDUCE_ALL_H
#define MPCC_RT_REDUCE_ALL_H

#include "rt_conv_common.h"

/* The logical AND over the reduced axes (an empty reduction gives 1). */
void rt_reduce_all_bool(const rt_reduce_params *p, const uint8_t *in, uint8_t *out);

#endif
