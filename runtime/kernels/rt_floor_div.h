/* rt_floor_div.h - FLOOR_DIV kernels: out = floor(a / b), numpy broadcasting
 * (TFLite floor_div.cc). TFLite fails the call on any zero divisor (float
 * too); here a zero divisor gives 0 for int32 and the IEEE result
 * (floor(+-inf) or NaN) for float, and INT32_MIN / -1 wraps to INT32_MIN. */
#ifndef MPCC_RT_FLOOR_DIV_H
#define MPCC_RT_FLOOR_DIV_H

#include "rt_elementwise_common.h"

/* floor((double)a / (double)b) rounded to float, as TFLite computes it. */
void rt_floor_div_f32(const rt_binary_params *p, const float *a, const float *b, float *out);
void rt_floor_div_i32(const rt_binary_params *p, const int32_t *a, const int32_t *b, int32_t *out);

#endif
