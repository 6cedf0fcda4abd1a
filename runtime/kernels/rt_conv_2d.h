/* rt_conv_2d.h - CONV_2D kernels (NHWC input, OHWI filter). */
#ifndef MPCC_RT_CONV_2D_H
#define MPCC_RT_CONV_2D_H

/* out[b][y][x][oc] = act(bias[oc] + sum over fy, fx, ic of
 *   in[b][y*stride_h - pad_h + fy*dil_h][x*stride_w - pad_w + fx*dil_w][g*filter_c + ic]
 *   * filter[oc][fy][fx][ic]), g = oc / (out_c / groups); out-of-image taps
 * contribute nothing. bias may be NULL. */
typedef struct rt_conv_params {
    int32_t batches, in_h, in_w, in_c;
    int32_t out_h, out_w, out_c;
    int32_t filter_h, filter_w, filter_c;       /* filter_c = in_c / groups */
    int32_t stride_h, stride_w, dil_h, dil_w, pad_h, pad_w;
    float act_min, act_max;                     /* float kernel */
    int32_t in_offset, out_offset;              /* -in_zp, +out_zp */
    const int32_t *mult;                        /* per output channel, Q31 */
    const int32_t *shift;
    int32_t act_qmin, act_qmax;                 /* quantized output clamp */
    const float *fscale;                        /* int8, or NULL: float requantization (rt_requant_float) with
                                                 * these factors per output channel instead of mult/shift */
    /* Hybrid (float in/out, int8 filter, float bias): */
    float w_scale;                              /* per-tensor filter scale */
    const float *w_scales;                      /* distinct per-channel scales (out_c), or NULL */
    /* 16-bit float filter (mpcc --precision bf16/fp16): */
    int32_t half_type;                          /* RT_BF16 or RT_F16 */
} rt_conv_params;

void rt_conv_2d_f32(const rt_conv_params *p, const float *in, const float *filter, const float *bias, float *out);
void rt_conv_2d_i8(const rt_conv_params *p, const int8_t *in, const int8_t *filter, const int32_t *bias,
                   int8_t *out);
/* 16-bit float filter (--precision bf16 / fp16), the arithmetic of
 * rt_fully_connected_half: each input value rounded to the filter's type
 * (p->half_type), exact products summed in float, then the bias and the clamp. */
void rt_conv_2d_half(const rt_conv_params *p, const float *in, const uint16_t *filter, const float *bias, float *out);
/* 16x8: int16 activations (zero points 0), int8 filter, int64 bias. */
void rt_conv_2d_i16(const rt_conv_params *p, const int16_t *in, const int8_t *filter, const int64_t *bias,
                    int16_t *out);
/* Hybrid, TFLite's conv EvalHybrid / EvalHybridPerChannel (reference kernel):
 * each batch's whole input [in_h, in_w, in_c] is quantized to int8 at run time
 * into scratch (in_h * in_w * in_c bytes) by rt_hybrid_quantize_row,
 * symmetric with per-tensor scales (w_scales NULL), asymmetric with
 * per-channel ones; acc = sum of filter * (q - zero point) over in-image taps,
 * then out = act((float)acc * (input scale * w_scale) + bias) per tensor, or
 * act((float)acc * w_scales[oc] * input scale + bias) per channel, in that
 * order. */
void rt_conv_2d_hybrid(const rt_conv_params *p, const float *in, const int8_t *filter, const float *bias, float *out,
                       int8_t *scratch);

#endif
