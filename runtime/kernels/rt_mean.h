/* rt_mean.h - MEAN kernels. */
#ifndef MPCC_RT_MEAN_H
#define MPCC_RT_MEAN_H

#include "rt_conv_common.h"

/* A quantized MEAN's output from its wrapped int32 sum (TFLite's QuantizedMeanOrSum: the sum minus
 * n * in_zp, rescaled, plus out_zp, clamped to [lo, hi]); shared with rt_opt_mean_i8. */
static inline int32_t rt_mean_q(const rt_reduce_params *p, int32_t sum, int32_t lo, int32_t hi) {
    int32_t shifted = (int32_t)((uint32_t)sum - (uint32_t)p->in_zp * (uint32_t)p->reduce_count);
    return rt_clamp_i32(rt_wrap_add_i32(rt_mul_by_quantized_multiplier(shifted, p->mult, p->shift), p->out_zp), lo, hi);
}

void rt_mean_f32(const rt_reduce_params *p, const float *in, float *out);
/* scratch: out_count int32 partial sums. */
void rt_mean_i8(const rt_reduce_params *p, const int8_t *in, int8_t *out, void *scratch);
void rt_mean_i16(const rt_reduce_params *p, const int16_t *in, int16_t *out, void *scratch);

#endif
