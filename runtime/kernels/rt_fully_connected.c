/* rt_fully_connected.c - FULLY_CONNECTED reference kernels (TFLite semantics). */
#include "mpcc_rt.h"

void rt_fully_connected_f32(const rt_fc_params *p, const float *in, const float *w, const float *bias, float *out) {
    int32_t b, n, k;
    for (b = 0; b < p->batches; b++) {
        for (n = 0; n < p->out_depth; n++) {
            float acc = 0.0f;
            for (k = 0; k < p->in_depth; k++) acc += in[b * p->in_depth + k] * w[n * p->in_depth + k];
            if (bias) acc += bias[n];
            out[b * p->out_depth + n] = rt_clamp_f32(acc, p->act_min, p->act_max);
        }
    }
}

void rt_fully_connected_half(const rt_fc_params *p, const float *in, const uint16_t *w, const float *bias,
                             float *out) {
    int32_t b, n, k;
    for (b = 0; b < p->batches; b++) {
        for (n = 0; n < p->out_depth; n++) {
            float acc = 0.0f;
            for (k = 0; k < p->in_depth; k++) {
                uint16_t wk = w[n * p->in_depth + k];
                float wf = p->half_type == RT_BF16 ? rt_bf16_to_f32(wk) : rt_f16_to_f32(wk);
                acc += rt_round_half(in[b * p->in_depth + k], p->half_type) * wf;
            }
            if (bias) acc += bias[n];
            out[b * p->out_depth + n] = rt_clamp_f32(acc, p->act_min, p->act_max);
        }
    }
}

/* Output n of batch row b of an int8 FC: the int32 sum of (in + in_offset)(w + w_offset), plus bias,
 * wrapping like TFLite's. */
static int32_t sum_i8(const rt_fc_params *p, const int8_t *in, const int8_t *w, const int32_t *bias, int32_t b,
                      int32_t n) {
    int32_t acc = 0, k;
    for (k = 0; k < p->in_depth; k++)
        acc = rt_wrap_add_i32(acc, (in[b * p->in_depth + k] + p->in_offset) * (w[n * p->in_depth + k] + p->w_offset));
    return bias ? rt_wrap_add_i32(acc, bias[n]) : acc;
}

void rt_fully_connected_i8(const rt_fc_params *p, const int8_t *in, const int8_t *w, const int32_t *bias,
                           int8_t *out) {
    int32_t b, n;
    for (b = 0; b < p->batches; b++) {
        for (n = 0; n < p->out_depth; n++) {
            int32_t acc = sum_i8(p, in, w, bias, b, n), c = p->per_channel ? n : 0;
            if (p->fscale)
                acc = rt_requant_float(acc, p->fscale[c], p->out_offset, p->act_qmin, p->act_qmax);
            else
                acc = rt_mul_by_quantized_multiplier_single(acc, p->mult[c], p->shift[c]) + p->out_offset;
            out[b * p->out_depth + n] = (int8_t)rt_clamp_i32(acc, p->act_qmin, p->act_qmax);
        }
    }
}

void rt_fully_connected_i8_f32(const rt_fc_params *p, const int8_t *in, const int8_t *w, const int32_t *bias,
                               float *out) {
    int32_t b, n;
    for (b = 0; b < p->batches; b++)
        for (n = 0; n < p->out_depth; n++)
            out[b * p->out_depth + n] = rt_clamp_f32((float)sum_i8(p, in, w, bias, b, n) * p->fscale[p->per_channel ? n : 0],
                                                     p->act_min, p->act_max);
}

void rt_fully_connected_i16(const rt_fc_params *p, const int16_t *in, const int8_t *w, const int64_t *bias,
                            int16_t *out) {
    int32_t b, n, k;
    for (b = 0; b < p->batches; b++) {
        for (n = 0; n < p->out_depth; n++) {
            int64_t acc = 0;
            int32_t r, c = p->per_channel ? n : 0;
            for (k = 0; k < p->in_depth; k++)
                acc += (int64_t)(in[b * p->in_depth + k] + p->in_offset) * (w[n * p->in_depth + k] + p->w_offset);
            if (bias) acc += bias[n];
            /* One rounding of the 64-bit product with the full multiplier, like the int8 kernel
             * (not the 16-bit-reduced multiplier of the int16 convolutions): measured bit-exact
             * against the interpreter (zoo act16_gate_int16). */
            r = rt_mul_by_quantized_multiplier_single_64(acc, p->mult[c], p->shift[c]) + p->out_offset;
            out[b * p->out_depth + n] = (int16_t)rt_clamp_i32(r, p->act_qmin, p->act_qmax);
        }
    }
}

void rt_fully_connected_hybrid_blockwise(const rt_fc_params *p, const float *in, const int8_t *w, const float *bias,
                                         float *out, int8_t *scratch) {
    const int32_t nb = p->in_depth / p->block;
    int32_t b, n, j, k;
    for (b = 0; b < p->batches; b++) {
        float row_scale;
        int32_t zp;
        rt_hybrid_quantize_row(in + (int64_t)b * p->in_depth, p->in_depth, 1, scratch, &row_scale, &zp);
        for (n = 0; n < p->out_depth; n++) {
            const int8_t *wn = w + (int64_t)n * p->in_depth;
            float acc = 0.0f, wacc = 0.0f;
            for (j = 0; j < nb; j++) {
                const float scale = p->w_scales ? p->w_scales[(int64_t)n * nb + j] : p->w_scale;
                int32_t dot = 0, sum = 0;
                for (k = j * p->block; k < (j + 1) * p->block; k++) {
                    dot += wn[k] * scratch[k]; /* |dot| <= block * 128 * 128: exact for blocks up to 2^17 */
                    sum += wn[k];
                }
                {
                    volatile float prod = (float)dot * scale, wprod = (float)sum * scale;
                    acc += prod;
                    wacc += wprod;
                }
            }
            {
                volatile float zw = (float)zp * wacc, t, prod;
                t = acc - zw;
                prod = t * row_scale;
                out[(int64_t)b * p->out_depth + n] = rt_clamp_f32((bias ? bias[n] : 0.0f) + prod, p->act_min, p->act_max);
            }
        }
    }
}

void rt_fully_connected_hybrid(const rt_fc_params *p, const float *in, const int8_t *w, const float *bias, float *out,
                               int8_t *scratch) {
    int32_t b, n, k;
    if (p->block) {
        rt_fully_connected_hybrid_blockwise(p, in, w, bias, out, scratch);
        return;
    }
    for (b = 0; b < p->batches; b++) {
        float row_scale;
        int32_t zp;
        rt_hybrid_quantize_row(in + (int64_t)b * p->in_depth, p->in_depth, p->asymmetric, scratch, &row_scale, &zp);
        for (n = 0; n < p->out_depth; n++) {
            const int8_t *wn = w + (int64_t)n * p->in_depth;
            int32_t dot = 0, row_sum = 0;
            float scale = row_scale * (p->w_scales ? p->w_scales[n] : p->w_scale);
            for (k = 0; k < p->in_depth; k++) {
                dot = rt_wrap_add_i32(dot, wn[k] * scratch[k]);
                row_sum += wn[k];
            }
            dot = rt_wrap_add_i32(dot, (int32_t)((uint32_t)row_sum * (uint32_t)-zp));
            {
                /* Rounded to float before the bias is added, as the interpreter does (no fused multiply-add). */
                volatile float prod = (float)dot * scale;
                out[(int64_t)b * p->out_depth + n] = rt_clamp_f32((bias ? bias[n] : 0.0f) + prod, p->act_min, p->act_max);
            }
        }
    }
}
