/* rt_floor_mod.h - FLOOR_MOD kernels: out = a - floor(a / b) * b, the sign of
 * the divisor (Python's %), numpy broadcasting (TFLite floor_mod.cc: the
 * truncated remainder, plus b where its sign differs from b's). TFLite fails
 * the call on an integer zero divisor; here x mod 0 gives 0. Float uses
 * fmodf, so x mod 0.0 is NaN, as in TFLite. */
#ifndef MPCC_RT_FLOOR_MOD_H
#define MPCC_RT_FLOOR_MOD_H

#include "rt_elementwise_common.h"

void rt_floor_mod_f32(const rt_binary_params *p, const float *a, const float *b, float *out);
void rt_floor_mod_i32(const rt_binary_params *p, const int32_t *a, const int32_t *b, int32_t *out);
void rt_floor_mod_i64(const rt_binary_params *p, const int64_t *a, const int64_t *b, int64_t *out);

#endif
