/* rt_depthwise_conv_2d.h - DEPTHWISE_CONV_2D kernels (NHWC input, filter
 * [1, fh, fw, in_c * depth_mult]). */
#ifndef MPCC_RT_DEPTHWISE_CONV_2D_H
#define MPCC_RT_DEPTHWISE_CONV_2D_H

/* out[b][y][x][ic*mult + m] = act(bias[oc] + sum over fy, fx of
 *   in[b][y*stride_h - pad_h + fy*dil_h][x*stride_w - pad_w + fx*dil_w][ic]
 *   * filter[fy][fx][oc]); out-of-image taps contribute nothing. */
typedef struct rt_dwconv_params {
    int32_t batches, in_h, in_w, in_c;
    int32_t out_h, out_w, depth_mult;           /* out_c = in_c * depth_mult */
    int32_t filter_h, filter_w;
    int32_t stride_h, stride_w, dil_h, dil_w, pad_h, pad_w;
    float act_min, act_max;                     /* float kernel */
    int32_t in_offset, out_offset;              /* -in_zp, +out_zp */
    const int32_t *mult;                        /* per output channel, Q31 */
    const int32_t *shift;
    int32_t act_qmin, act_qmax;                 /* quantized output clamp */
    const float *w_scales;                      /* hybrid: per-channel filter scales (out_c) */
} rt_dwconv_params;

void rt_depthwise_conv_2d_f32(const rt_dwconv_params *p, const float *in, const float *filter, const float *bias,
                              float *out);
void rt_depthwise_conv_2d_i8(const rt_dwconv_params *p, const int8_t *in, const int8_t *filter,
                             const int32_t *bias, int8_t *out);
/* 16x8: int16 activations (zero points 0), int8 filter, int64 bias. */
void rt_depthwise_conv_2d_i16(const rt_dwconv_params *p, const int16_t *in, const int8_t *filter,
                              const int64_t *bias, int16_t *out);
/* Hybrid, TFLite's depthwise EvalHybridPerChannel (reference kernel): each
 * batch's whole input is quantized asymmetrically to int8 at run time into
 * scratch (in_h * in_w * in_c bytes) by rt_hybrid_quantize_row; acc = sum of
 * filter * (q - zero point) over in-image taps, then
 * out = act((float)acc * (w_scales[oc] * input scale) + bias). */
void rt_depthwise_conv_2d_hybrid(const rt_dwconv_params *p, const float *in, const int8_t *filter, const float *bias,
                                 float *out, int8_t *scratch);

#endif
