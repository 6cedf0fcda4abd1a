/* rt_conv_2d.c - CONV_2D reference kernels (TFLite reference_ops::Conv and
 * reference_integer_ops::ConvPerChannel semantics). */
#include "mpcc_rt.h"

/* Index of in[b][y][x][c] and filter[oc][fy][fx][ic]. */
#define IN_AT(p, b, y, x, c) ((((int64_t)(b) * (p)->in_h + (y)) * (p)->in_w + (x)) * (p)->in_c + (c))
#define W_AT(p, oc, fy, fx, ic) ((((int64_t)(oc) * (p)->filter_h + (fy)) * (p)->filter_w + (fx)) * (p)->filter_c + (ic))
#define OUT_AT(p, b, y, x, c) ((((int64_t)(b) * (p)->out_h + (y)) * (p)->out_w + (x)) * (p)->out_c + (c))

/* Float convolution with a float filter (wh NULL) or a 16-bit one (wf NULL: each input rounded to its type). */
static void conv_float(const rt_conv_params *p, const float *in, const float *wf, const uint16_t *wh, const float *bias,
                       float *out) {
    int32_t b, oy, ox, oc, fy, fx, ic;
    int32_t per_group = p->out_c / (p->in_c / p->filter_c);
    for (b = 0; b < p->batches; b++)
        for (oy = 0; oy < p->out_h; oy++)
            for (ox = 0; ox < p->out_w; ox++)
                for (oc = 0; oc < p->out_c; oc++) {
                    int32_t y0 = oy * p->stride_h - p->pad_h, x0 = ox * p->stride_w - p->pad_w;
                    int32_t c0 = (oc / per_group) * p->filter_c;
                    float acc = 0.0f;
                    for (fy = 0; fy < p->filter_h; fy++) {
                        int32_t y = y0 + p->dil_h * fy;
                        if (y < 0 || y >= p->in_h) continue;
                        for (fx = 0; fx < p->filter_w; fx++) {
                            int32_t x = x0 + p->dil_w * fx;
                            if (x < 0 || x >= p->in_w) continue;
                            for (ic = 0; ic < p->filter_c; ic++) {
                                float v = in[IN_AT(p, b, y, x, c0 + ic)];
                                int64_t at = W_AT(p, oc, fy, fx, ic);
                                if (wh)
                                    acc += rt_round_half(v, p->half_type) *
                                           (p->half_type == RT_BF16 ? rt_bf16_to_f32(wh[at]) : rt_f16_to_f32(wh[at]));
                                else
                                    acc += v * wf[at];
                            }
                        }
                    }
                    if (bias) acc += bias[oc];
                    out[OUT_AT(p, b, oy, ox, oc)] = rt_clamp_f32(acc, p->act_min, p->act_max);
                }
}

void rt_conv_2d_f32(const rt_conv_params *p, const float *in, const float *filter, const float *bias, float *out) {
    conv_float(p, in, filter, NULL, bias, out);
}

void rt_conv_2d_half(const rt_conv_params *p, const float *in, const uint16_t *filter, const float *bias, float *out) {
    conv_float(p, in, NULL, filter, bias, out);
}

void rt_conv_2d_i8(const rt_conv_params *p, const int8_t *in, const int8_t *filter, const int32_t *bias,
                   int8_t *out) {
    int32_t b, oy, ox, oc, fy, fx, ic;
    int32_t per_group = p->out_c / (p->in_c / p->filter_c);
    for (b = 0; b < p->batches; b++)
        for (oy = 0; oy < p->out_h; oy++)
            for (ox = 0; ox < p->out_w; ox++)
                for (oc = 0; oc < p->out_c; oc++) {
                    int32_t y0 = oy * p->stride_h - p->pad_h, x0 = ox * p->stride_w - p->pad_w;
                    int32_t c0 = (oc / per_group) * p->filter_c;
                    int32_t acc = 0;
                    for (fy = 0; fy < p->filter_h; fy++) {
                        int32_t y = y0 + p->dil_h * fy;
                        if (y < 0 || y >= p->in_h) continue;
                        for (fx = 0; fx < p->filter_w; fx++) {
                            int32_t x = x0 + p->dil_w * fx;
                            if (x < 0 || x >= p->in_w) continue;
                            for (ic = 0; ic < p->filter_c; ic++)
                                acc = rt_wrap_add_i32(acc, (int32_t)filter[W_AT(p, oc, fy, fx, ic)] *
                                       ((int32_t)in[IN_AT(p, b, y, x, c0 + ic)] + p->in_offset));
                        }
                    }
                    if (bias) acc = rt_wrap_add_i32(acc, bias[oc]);
                    if (p->fscale)
                        acc = rt_requant_float(acc, p->fscale[oc], p->out_offset, p->act_qmin, p->act_qmax);
                    else
                        acc = rt_mul_by_quantized_multiplier(acc, p->mult[oc], p->shift[oc]) + p->out_offset;
                    out[OUT_AT(p, b, oy, ox, oc)] = (int8_t)rt_clamp_i32(acc, p->act_qmin, p->act_qmax);
                }
}

void rt_conv_2d_i16(const rt_conv_params *p, const int16_t *in, const int8_t *filter, const int64_t *bias,
                    int16_t *out) {
    int32_t b, oy, ox, oc, fy, fx, ic;
    int32_t per_group = p->out_c / (p->in_c / p->filter_c);
    for (b = 0; b < p->batches; b++)
        for (oy = 0; oy < p->out_h; oy++)
            for (ox = 0; ox < p->out_w; ox++)
                for (oc = 0; oc < p->out_c; oc++) {
                    int32_t y0 = oy * p->stride_h - p->pad_h, x0 = ox * p->stride_w - p->pad_w;
                    int32_t c0 = (oc / per_group) * p->filter_c, r;
                    int64_t acc = 0;
                    for (fy = 0; fy < p->filter_h; fy++) {
                        int32_t y = y0 + p->dil_h * fy;
                        if (y < 0 || y >= p->in_h) continue;
                        for (fx = 0; fx < p->filter_w; fx++) {
                            int32_t x = x0 + p->dil_w * fx;
                            if (x < 0 || x >= p->in_w) continue;
                            for (ic = 0; ic < p->filter_c; ic++)
                                acc += (int64_t)filter[W_AT(p, oc, fy, fx, ic)] * in[IN_AT(p, b, y, x, c0 + ic)];
                        }
                    }
                    if (bias) acc += bias[oc];
                    r = rt_mul_by_quantized_multiplier_64(acc, p->mult[oc], p->shift[oc]) + p->out_offset;
                    out[OUT_AT(p, b, oy, ox, oc)] = (int16_t)rt_clamp_i32(r, p->act_qmin, p->act_qmax);
                }
}

void rt_conv_2d_hybrid(const rt_conv_params *p, const float *in, const int8_t *filter, const float *bias, float *out,
                       int8_t *scratch) {
    int32_t b, oy, ox, oc, fy, fx, ic;
    int32_t per_group = p->out_c / (p->in_c / p->filter_c), n = p->in_h * p->in_w * p->in_c;
    for (b = 0; b < p->batches; b++) {
        float in_scale, scale;
        int32_t zp;
        rt_hybrid_quantize_row(in + (int64_t)b * n, n, p->w_scales != NULL, scratch, &in_scale, &zp);
        scale = in_scale * p->w_scale;
        for (oy = 0; oy < p->out_h; oy++)
            for (ox = 0; ox < p->out_w; ox++)
                for (oc = 0; oc < p->out_c; oc++) {
                    int32_t y0 = oy * p->stride_h - p->pad_h, x0 = ox * p->stride_w - p->pad_w;
                    int32_t c0 = (oc / per_group) * p->filter_c;
                    int32_t acc = 0;
                    volatile float v;
                    for (fy = 0; fy < p->filter_h; fy++) {
                        int32_t y = y0 + p->dil_h * fy;
                        if (y < 0 || y >= p->in_h) continue;
                        for (fx = 0; fx < p->filter_w; fx++) {
                            int32_t x = x0 + p->dil_w * fx;
                            if (x < 0 || x >= p->in_w) continue;
                            for (ic = 0; ic < p->filter_c; ic++)
                                acc = rt_wrap_add_i32(acc, (int32_t)filter[W_AT(p, oc, fy, fx, ic)] *
                                       ((int32_t)scratch[IN_AT(p, 0, y, x, c0 + ic)] - zp));
                        }
                    }
                    /* Each product rounded to float on its own (volatile: no fused multiply-add with the bias). */
                    if (p->w_scales) {
                        v = (float)acc * p->w_scales[oc];
                        v = v * in_scale;
                    } else {
                        v = (float)acc * scale;
                    }
                    out[OUT_AT(p, b, oy, ox, oc)] = rt_clamp_f32(bias ? v + bias[oc] : v, p->act_min, p->act_max);
                }
    }
}
