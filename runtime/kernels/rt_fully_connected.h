/* rt_fully_connected.h - FULLY_CONNECTED kernels. */
#ifndef MPCC_RT_FULLY_CONNECTED_H
#define MPCC_RT_FULLY_CONNECTED_H

/* out[b][n] = act(sum_k in[b][k] * w[n][k] + bias[n]); bias may be NULL. */
typedef struct rt_fc_params {
    int32_t batches, in_depth, out_depth;
    float act_min, act_max;                 /* float kernels */
    int32_t in_offset, w_offset, out_offset; /* -in_zp, -w_zp, +out_zp */
    int32_t per_channel;                    /* 1: mult/shift have out_depth entries */
    const int32_t *mult;                    /* requantization multipliers (Q31) */
    const int32_t *shift;                   /* and exponents */
    int32_t act_qmin, act_qmax;             /* quantized output clamp */
    const float *fscale;                    /* int8, or NULL: float requantization (rt_requant_float) with these
                                             * factors (per channel as mult) instead of mult/shift */
    /* Hybrid (float in/out, int8 weights, float bias): */
    int32_t asymmetric;                     /* asymmetric_quantize_inputs */
    float w_scale;                          /* per-tensor weight scale */
    const float *w_scales;                  /* per-channel weight scales (out_depth), or NULL */
    /* 16-bit float weights (mpcc --precision bf16/fp16): */
    int32_t half_type;                      /* RT_BF16 or RT_F16 */
    /* Hybrid with block-wise weight scales (TFLite BlockwiseQuantization): w_scales (or w_scale when there is
     * one block in all) holds out_depth x (in_depth / block) scales, row by row; 0: per channel / tensor. */
    int32_t block;
} rt_fc_params;

void rt_fully_connected_f32(const rt_fc_params *p, const float *in, const float *w, const float *bias, float *out);
void rt_fully_connected_i8(const rt_fc_params *p, const int8_t *in, const int8_t *w, const int32_t *bias,
                           int8_t *out);
/* int8 input and weights, float output (an int8 FULLY_CONNECTED that mpcc --precision int8 lets write
 * floats, its DEQUANTIZE folded in): out = clamp((float)acc * fscale[c], act_min, act_max). */
void rt_fully_connected_i8_f32(const rt_fc_params *p, const int8_t *in, const int8_t *w, const int32_t *bias,
                               float *out);
void rt_fully_connected_i16(const rt_fc_params *p, const int16_t *in, const int8_t *w, const int64_t *bias,
                            int16_t *out);
/* Hybrid, TFLite's EvalHybridDense: each input row is quantized to int8 at run time
 * (rt_hybrid_quantize_row, into scratch: in_depth bytes), then out = act(bias +
 * (float)(sum q*w - zp * sum w) * (row scale * weight scale)). The weights' zero
 * point is ignored, as TFLite does. */
void rt_fully_connected_hybrid(const rt_fc_params *p, const float *in, const int8_t *w, const float *bias, float *out,
                               int8_t *scratch);
/* With p->block (called by rt_fully_connected_hybrid): TFLite's block-wise hybrid FC (its builtin kernel's
 * arithmetic, bit for bit on the cases measured). Each input row is quantized asymmetrically (q, zp, row
 * scale s); per block j the int32 sums d_j = sum w * q and c_j = sum w are exact; in float, each product
 * rounded (no fused multiply-add): acc = sum_j d_j * scale[n][j], wacc = sum_j c_j * scale[n][j] (block
 * order), out = act(bias + (acc - zp * wacc) * s). */
void rt_fully_connected_hybrid_blockwise(const rt_fc_params *p, const float *in, const int8_t *w, const float *bias,
                                         float *out, int8_t *scratch);
/* 16-bit float weights (--precision bf16 / fp16): each input value is rounded to
 * the weights' type (p->half_type), the products summed in float (exact
 * products: two 8-bit (bf16) or 11-bit (f16) significands fit a float's),
 * then the bias and the clamp. */
void rt_fully_connected_half(const rt_fc_params *p, const float *in, const uint16_t *w, const float *bias,
                             float *out);

#endif
