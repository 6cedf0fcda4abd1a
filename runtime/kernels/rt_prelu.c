/* rt_prelu.c - PRELU reference kernels (TFLite semantics). */
#include "mpcc_rt.h"

/* Offset into alpha of output element i (row-major). */
static int64_t alpha_index(const rt_prelu_params *p, int64_t i) {
    int64_t off = 0;
    int32_t d;
    for (d = p->shape.rank - 1; d >= 0; d--) {
        int32_t n = p->shape.dims[d];
        off += (i % n) * p->alpha_stride[d];
        i /= n;
    }
    return off;
}

void rt_prelu_f32(const rt_prelu_params *p, const float *in, const float *alpha, float *out) {
    int64_t i, n = rt_numel(&p->shape);
    for (i = 0; i < n; i++) {
        float x = in[i];
        out[i] = x >= 0.0f ? x : x * alpha[alpha_index(p, i)];
    }
}

/* The quantized kernels' value before the output clamp: x >= 0 rescaled by the first multiplier,
 * x * alpha by the second (TFLite's two requantizations). */
static int32_t prelu_q(const rt_prelu_params *p, int32_t in, int32_t alpha) {
    int32_t x = p->in_offset + in;
    if (x >= 0) return rt_mul_by_quantized_multiplier(x, p->mult_1, p->shift_1) + p->out_offset;
    return rt_mul_by_quantized_multiplier(x * (p->alpha_offset + alpha), p->mult_2, p->shift_2) + p->out_offset;
}

void rt_prelu_i8(const rt_prelu_params *p, const int8_t *in, const int8_t *alpha, int8_t *out) {
    int64_t i, n = rt_numel(&p->shape);
    for (i = 0; i < n; i++) out[i] = (int8_t)rt_clamp_i32(prelu_q(p, in[i], alpha[alpha_index(p, i)]), -128, 127);
}

/* int16 input and output, int8 alpha (TFLite's 16x8 PRELU): the int8 kernel's arithmetic with
 * the int16 clamp; x * a fits int32 (|x| <= 65535, |a| <= 255). */
void rt_prelu_i16(const rt_prelu_params *p, const int16_t *in, const int8_t *alpha, int16_t *out) {
    int64_t i, n = rt_numel(&p->shape);
    for (i = 0; i < n; i++)
        out[i] = (int16_t)rt_clamp_i32(prelu_q(p, in[i], alpha[alpha_index(p, i)]), -32768, 32767);
}
