/* rt_sum.h - SUM kernels. */
#ifndef MPCC_RT_SUM_H
#define MPCC_RT_SUM_H

#include "rt_conv_common.h"

void rt_sum_f32(const rt_reduce_params *p, const float *in, float *out);
void rt_sum_i32(const rt_reduce_params *p, const int32_t *in, int32_t *out);
void rt_sum_i64(const rt_reduce_params *p, const int64_t *in, int64_t *out);
/* int8: a float rescale of the wrapping int32 sum, clamped (TFLite's
 * QuantizedMeanOrSum with compute_sum), whether or not the scales differ.
 * int16: the sum wraps in int16, as TFLite's generic reducer does.
 * scratch: out_count int32. */
void rt_sum_i8(const rt_reduce_params *p, const int8_t *in, int8_t *out, void *scratch);
void rt_sum_i16(const rt_reduce_params *p, const int16_t *in, int16_t *out);

#endif
