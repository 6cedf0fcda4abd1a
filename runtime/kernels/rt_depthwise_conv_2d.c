/* rt_depthwise_conv_2d.c - DEPTHWISE_CONV_2D reference kernels (TFLite
 * reference_ops::DepthwiseConv and reference_integer_ops::DepthwiseConvPerChannel). */
#include "mpcc_rt.h"

#define IN_AT(p, b, y, x, c) ((((int64_t)(b) * (p)->in_h + (y)) * (p)->in_w + (x)) * (p)->in_c + (c))
#define W_AT(p, fy, fx, oc, out_c) ((((int64_t)(fy)) * (p)->filter_w + (fx)) * (out_c) + (oc))
#define OUT_AT(p, b, y, x, c, out_c) ((((int64_t)(b) * (p)->out_h + (y)) * (p)->out_w + (x)) * (out_c) + (c))

void rt_depthwise_conv_2d_f32(const rt_dwconv_params *p, const float *in, const float *filter, const float *bias,
                              float *out) {
    int32_t b, oy, ox, ic, m, fy, fx, out_c = p->in_c * p->depth_mult;
    for (b = 0; b < p->batches; b++)
        for (oy = 0; oy < p->out_h; oy++)
            for (ox = 0; ox < p->out_w; ox++)
                for (ic = 0; ic < p->in_c; ic++)
                    for (m = 0; m < p->depth_mult; m++) {
                        int32_t oc = m + ic * p->depth_mult;
                        int32_t y0 = oy * p->stride_h - p->pad_h, x0 = ox * p->stride_w - p->pad_w;
                        float acc = 0.0f;
                        for (fy = 0; fy < p->filter_h; fy++) {
                            int32_t y = y0 + p->dil_h * fy;
                            if (y < 0 || y >= p->in_h) continue;
                            for (fx = 0; fx < p->filter_w; fx++) {
                                int32_t x = x0 + p->dil_w * fx;
                                if (x < 0 || x >= p->in_w) continue;
                                acc += in[IN_AT(p, b, y, x, ic)] * filter[W_AT(p, fy, fx, oc, out_c)];
                            }
                        }
                        if (bias) acc += bias[oc];
                        out[OUT_AT(p, b, oy, ox, oc, out_c)] = rt_clamp_f32(acc, p->act_min, p->act_max);
                    }
}

void rt_depthwise_conv_2d_i8(const rt_dwconv_params *p, const int8_t *in, const int8_t *filter,
                             const int32_t *bias, int8_t *out) {
    int32_t b, oy, ox, ic, m, fy, fx, out_c = p->in_c * p->depth_mult;
    for (b = 0; b < p->batches; b++)
        for (oy = 0; oy < p->out_h; oy++)
            for (ox = 0; ox < p->out_w; ox++)
                for (ic = 0; ic < p->in_c; ic++)
                    for (m = 0; m < p->depth_mult; m++) {
                        int32_t oc = m + ic * p->depth_mult;
                        int32_t y0 = oy * p->stride_h - p->pad_h, x0 = ox * p->stride_w - p->pad_w;
                        int32_t acc = 0;
                        for (fy = 0; fy < p->filter_h; fy++) {
                            int32_t y = y0 + p->dil_h * fy;
                            if (y < 0 || y >= p->in_h) continue;
                            for (fx = 0; fx < p->filter_w; fx++) {
                                int32_t x = x0 + p->dil_w * fx;
                                if (x < 0 || x >= p->in_w) continue;
                                acc = rt_wrap_add_i32(acc, (int32_t)filter[W_AT(p, fy, fx, oc, out_c)] *
                                       ((int32_t)in[IN_AT(p, b, y, x, ic)] + p->in_offset));
                            }
                        }
                        if (bias) acc = rt_wrap_add_i32(acc, bias[oc]);
                        acc = rt_mul_by_quantized_multiplier(acc, p->mult[oc], p->shift[oc]) + p->out_offset;
                        out[OUT_AT(p, b, oy, ox, oc, out_c)] = (int8_t)rt_clamp_i32(acc, p->act_qmin, p->act_qmax);
                    }
}

void rt_depthwise_conv_2d_i16(const rt_dwconv_params *p, const int16_t *in, const int8_t *filter,
                              const int64_t *bias, int16_t *out) {
    int32_t b, oy, ox, ic, m, fy, fx, out_c = p->in_c * p->depth_mult;
    for (b = 0; b < p->batches; b++)
        for (oy = 0; oy < p->out_h; oy++)
            for (ox = 0; ox < p->out_w; ox++)
                for (ic = 0; ic < p->in_c; ic++)
                    for (m = 0; m < p->depth_mult; m++) {
                        int32_t oc = m + ic * p->depth_mult, r;
                        int32_t y0 = oy * p->stride_h - p->pad_h, x0 = ox * p->stride_w - p->pad_w;
                        int64_t acc = 0;
                        for (fy = 0; fy < p->filter_h; fy++) {
                            int32_t y = y0 + p->dil_h * fy;
                            if (y < 0 || y >= p->in_h) continue;
                            for (fx = 0; fx < p->filter_w; fx++) {
                                int32_t x = x0 + p->dil_w * fx;
                                if (x < 0 || x >= p->in_w) continue;
                                acc += (int64_t)filter[W_AT(p, fy, fx, oc, out_c)] * in[IN_AT(p, b, y, x, ic)];
                            }
                        }
                        if (bias) acc += bias[oc];
                        r = rt_mul_by_quantized_multiplier_64(acc, p->mult[oc], p->shift[oc]) + p->out_offset;
                        out[OUT_AT(p, b, oy, ox, oc, out_c)] = (int16_t)rt_clamp_i32(r, p->act_qmin, p->act_qmax);
                    }
}

void rt_depthwise_conv_2d_hybrid(const rt_dwconv_params *p, const float *in, const int8_t *filter, const float *bias,
                                 float *out, int8_t *scratch) {
    int32_t b, oy, ox, ic, m, fy, fx, out_c = p->in_c * p->depth_mult, n = p->in_h * p->in_w * p->in_c;
    for (b = 0; b < p->batches; b++) {
        float in_scale;
        int32_t zp;
        rt_hybrid_quantize_row(in + (int64_t)b * n, n, 1, scratch, &in_scale, &zp);
        for (oy = 0; oy < p->out_h; oy++)
            for (ox = 0; ox < p->out_w; ox++)
                for (ic = 0; ic < p->in_c; ic++)
                    for (m = 0; m < p->depth_mult; m++) {
                        int32_t oc = m + ic * p->depth_mult;
                        int32_t y0 = oy * p->stride_h - p->pad_h, x0 = ox * p->stride_w - p->pad_w;
                        int32_t acc = 0;
                        volatile float v;
                        for (fy = 0; fy < p->filter_h; fy++) {
                            int32_t y = y0 + p->dil_h * fy;
                            if (y < 0 || y >= p->in_h) continue;
                            for (fx = 0; fx < p->filter_w; fx++) {
                                int32_t x = x0 + p->dil_w * fx;
                                if (x < 0 || x >= p->in_w) continue;
                                acc = rt_wrap_add_i32(acc, (int32_t)filter[W_AT(p, fy, fx, oc, out_c)] *
                                                               ((int32_t)scratch[IN_AT(p, 0, y, x, ic)] - zp));
                            }
                        }
                        /* The channel scale times the input scale first; the product rounded to
                         * float on its own (volatile: no fused multiply-add with the bias). */
                        v = (float)acc * (p->w_scales[oc] * in_scale);
                        out[OUT_AT(p, b, oy, ox, oc, out_c)] =
                            rt_clamp_f32(bias ? v + bias[oc] : v, p->act_min, p->act_max);
                    }
    }
}
