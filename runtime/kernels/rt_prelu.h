/* rt_prelu.h - PRELU kernels: x >= 0 ? x : alpha * x, alpha broadcast
 * (numpy rules) onto the input's shape. */
#ifndef MPCC_RT_PRELU_H
#define MPCC_RT_PRELU_H

#include "rt_activation_common.h"

typedef struct rt_prelu_params {
    rt_shape shape;                     /* input = output shape */
    int32_t alpha_stride[RT_MAX_RANK];  /* alpha element stride per output dim (0: broadcast) */
    int32_t in_offset, alpha_offset;    /* -input zp, -alpha zp */
    int32_t out_offset;                 /* +output zp */
    int32_t mult_1, shift_1;            /* x >= 0: in_scale / out_scale */
    int32_t mult_2, shift_2;            /* x < 0: in_scale * alpha_scale / out_scale */
    /* int8 with a constant per-channel (or single) alpha: the reference's 256 results per channel,
     * lut[c * 256 + (uint8_t)x], lut_c channels (rt_opt_prelu_lut_i8 reads it; the reference does not). */
    const int8_t *lut;
    int32_t lut_c;
} rt_prelu_params;

void rt_prelu_f32(const rt_prelu_params *p, const float *in, const float *alpha, float *out);
void rt_prelu_i8(const rt_prelu_params *p, const int8_t *in, const int8_t *alpha, int8_t *out);
/* int16 input/output, int8 alpha (TFLite's 16x8 kernel). */
void rt_prelu_i16(const rt_prelu_params *p, const int16_t *in, const int8_t *alpha, int16_t *out);

#endif
