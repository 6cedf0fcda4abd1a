/* rt_rsqrt.c - RSQRT reference kernels (TFLite semantics). */
#include "mpcc_rt.h"

void rt_rsqrt_f32(const rt_unary_params *p, const float *in, float *out) {
    int64_t i;
    for (i = 0; i < p->n; i++) out[i] = 1.0f / sqrtf(in[i]);
}

static int clz32(uint32_t x) {
    int n = 0;
    if (x == 0) return 32;
    while (!(x & 0x80000000u)) {
        x <<= 1;
        n++;
    }
    return n;
}

/* gemmlowp SaturatingRoundingMultiplyByPOT for a positive exponent. */
static int32_t sat_shl(int32_t x, int e) {
    int32_t threshold = (int32_t)(((int64_t)1 << (31 - e)) - 1);
    if (x > threshold) return INT32_MAX;
    if (x < -threshold) return INT32_MIN;
    return (int32_t)((uint32_t)x << e);
}

/* TFLite GetInvSqrtQuantizedMultiplierExp(input, kReverseShift = -1, ...). */
static void inv_sqrt_multiplier(int32_t input, int32_t *mult, int *shift) {
    int32_t x, half_input, x3, a, b;
    int sh = 11, i;
    unsigned pairs;
    if (input <= 1) {
        *mult = INT32_MAX;
        *shift = 0;
        return;
    }
    while (input >= (1 << 29)) {
        input /= 4;
        ++sh;
    }
    pairs = (unsigned)(clz32((uint32_t)input) - 1) / 2 - 1;
    sh -= (int)pairs;
    input <<= 2 * pairs;
    /* Newton-Raphson on 1/sqrt in Q3.28, starting from 1. */
    half_input = rt_rounding_divide_by_pot(input >> 1, 1);
    x = (int32_t)1 << 28;
    for (i = 0; i < 5; i++) {
        x3 = sat_shl(rt_sat_rounding_doubling_high_mul(rt_sat_rounding_doubling_high_mul(x, x), x), 6);
        a = rt_sat_rounding_doubling_high_mul((1 << 28) + (1 << 27), x);  /* 1.5 * x, Q6.25 */
        b = rt_sat_rounding_doubling_high_mul(half_input, x3);           /* Q6.25 */
        x = sat_shl(a - b, 3);
    }
    x = rt_sat_rounding_doubling_high_mul(x, 1518500250); /* * sqrt(2)/2 */
    if (sh < 0) {
        x = (int32_t)((uint32_t)x << -sh);
        sh = 0;
    }
    *mult = x;
    *shift = -sh;
}

void rt_rsqrt_i8(const rt_unary_params *p, const int8_t *in, int8_t *out) {
    int64_t i;
    for (i = 0; i < p->n; i++) {
        int32_t v = in[i] + p->in_offset, inv, data, r;
        int inv_shift;
        if (v <= 0) {
            out[i] = 127;
            continue;
        }
        inv_sqrt_multiplier(v, &inv, &inv_shift);
        data = rt_mul_by_quantized_multiplier(1, inv, inv_shift + 20);
        r = rt_mul_by_quantized_multiplier(data, p->mult, p->shift - 20) + p->out_offset;
        out[i] = (int8_t)rt_clamp_i32(r, p->act_qmin, p->act_qmax);
    }
}

void rt_rsqrt_i16(const rt_unary_params *p, const int16_t *in, int16_t *out) {
    rt_act_lut_i16(p->lut16, p->n, in, out);
}
