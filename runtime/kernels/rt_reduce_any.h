/* rt_reduce_any.h - REDUCE_ANY kernel (bool as uint8 0/1). */
#ifndef MPCC_RT_REDUCE_ANY_H
#define MPCC_RT_REDUCE_ANY_H

#include "rt_conv_common.h"

/* The logical OR over the reduced axes (an empty reduction gives 0). */
void rt_reduce_any_bool(const rt_reduce_params *p, const uint8_t *in, uint8_t *out);

#endif
