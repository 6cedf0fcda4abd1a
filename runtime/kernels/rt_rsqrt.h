/* rt_rsqrt.h - RSQRT kernels. */
#ifndef MPCC_RT_RSQRT_H
#define MPCC_RT_RSQRT_H

#include "rt_elementwise_common.h"

void rt_rsqrt_f32(const rt_unary_params *p, const float *in, float *out);
/* int8: TFLite's fixed-point inverse square root (Newton-Raphson) of
 * q - zp, requantized. q == zp gives 127; TFLite fails at run time on
 * q < zp, here it also gives 127. */
void rt_rsqrt_i8(const rt_unary_params *p, const int8_t *in, int8_t *out);
/* int16 (zero points 0) through the 513-entry interpolated table p->lut16
 * (TFLite's LUTPopulate<int16_t> of 1/sqrt, x <= 0 mapped to the largest
 * output). TFLite fails at run time on a negative input; here it reads the
 * table (32767 for a table built as TFLite builds it). */
void rt_rsqrt_i16(const rt_unary_params *p, const int16_t *in, int16_t *out);

#endif
