/* rt_l2_normalization.c - L2_NORMALIZATION reference kernels (TFLite
 * reference_ops::L2Normalization, reference_integer_ops::L2Normalization). */
#include "mpcc_rt.h"

void rt_l2_normalization_f32(const rt_l2norm_params *p, const float *in, float *out) {
    int32_t i, c;
    for (i = 0; i < p->outer; i++) {
        const float *x = in + (int64_t)i * p->depth;
        float sq = 0.0f, norm;
        for (c = 0; c < p->depth; c++) sq += x[c] * x[c];
        norm = sqrtf(sq);
        if (norm < 1e-6f) norm = 1e-6f;
        for (c = 0; c < p->depth; c++) out[(int64_t)i * p->depth + c] = x[c] / norm;
    }
}

/* gemmlowp SaturatingRoundingMultiplyByPOT for a positive exponent. */
static int32_t sat_shift_left(int32_t x, int e) {
    int32_t threshold = (int32_t)(((int64_t)1 << (31 - e)) - 1);
    if (x > threshold) return INT32_MAX;
    if (x < -threshold) return INT32_MIN;
    return (int32_t)((uint32_t)x << e);
}

/* TFLite GetInvSqrtQuantizedMultiplierExp(input, reverse_shift = -1):
 * 1/sqrt(input) as a Q31 multiplier and a left shift, by five Newton-Raphson
 * steps in gemmlowp Q3.28 fixed point. */
static void inv_sqrt_multiplier(int32_t input, int32_t *mult, int *shift) {
    int32_t half_input, x, k;
    int out_shift = 11, lz = 0;
    uint32_t u;
    if (input <= 1) {
        *mult = INT32_MAX;
        *shift = 0;
        return;
    }
    while (input >= (1 << 29)) {
        input /= 4;
        out_shift++;
    }
    for (u = (uint32_t)input; !(u & 0x80000000u); u <<= 1) lz++;
    {
        int pairs = (lz - 1) / 2 - 1;
        out_shift -= pairs;
        input <<= 2 * pairs;
    }
    half_input = rt_rounding_divide_by_pot(input >> 1, 1);
    x = 1 << 28; /* 1.0 in Q3.28 */
    for (k = 0; k < 5; k++) {
        int32_t x3 = sat_shift_left(rt_sat_rounding_doubling_high_mul(rt_sat_rounding_doubling_high_mul(x, x), x), 6);
        int32_t a = rt_sat_rounding_doubling_high_mul((1 << 28) + (1 << 27), x); /* 1.5 * x, Q6 */
        int32_t b = rt_sat_rounding_doubling_high_mul(half_input, x3);          /* input/2 * x^3, Q6 */
        x = sat_shift_left((int32_t)((uint32_t)a - (uint32_t)b), 3);
    }
    x = rt_sat_rounding_doubling_high_mul(x, 1518500250); /* * sqrt(2)/2 */
    if (out_shift < 0) {
        x = (int32_t)((uint32_t)x << -out_shift);
        out_shift = 0;
    }
    *mult = x;
    *shift = -out_shift;
}

void rt_l2_normalization_i8(const rt_l2norm_params *p, const int8_t *in, int8_t *out) {
    int32_t i, c;
    for (i = 0; i < p->outer; i++) {
        const int8_t *x = in + (int64_t)i * p->depth;
        int32_t acc = 0, mult;
        int shift;
        for (c = 0; c < p->depth; c++) {
            int32_t v = x[c] - p->in_zp;
            /* Wraps past 2^31 (about 33,000 elements) like TFLite's int32 accumulator. */
            acc = rt_wrap_add_i32(acc, v * v);
        }
        inv_sqrt_multiplier(acc, &mult, &shift);
        for (c = 0; c < p->depth; c++) {
            /* Output scale 1/128: 7 more bits of left shift. */
            int32_t v = rt_mul_by_quantized_multiplier(x[c] - p->in_zp, mult, shift + 7);
            out[(int64_t)i * p->depth + c] = (int8_t)rt_clamp_i32(v, -128, 127);
        }
    }
}
