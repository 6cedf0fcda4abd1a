/* rt_div.c - DIV reference kernels (TFLite semantics). */
#include "mpcc_rt.h"

void rt_div_f32(const rt_binary_params *p, const float *a, const float *b, float *out) {
    int64_t i, n = rt_bcast_numel(&p->bc);
    rt_bcast_iter it;
    rt_bcast_begin(&it);
    for (i = 0; i < n; i++, rt_bcast_next(&p->bc, &it))
        out[i] = rt_clamp_f32(a[it.off1] / b[it.off2], p->act_min, p->act_max);
}

void rt_div_i32(const rt_binary_params *p, const int32_t *a, const int32_t *b, int32_t *out) {
    int64_t i, n = rt_bcast_numel(&p->bc);
    rt_bcast_iter it;
    rt_bcast_begin(&it);
    for (i = 0; i < n; i++, rt_bcast_next(&p->bc, &it))
        out[i] = rt_clamp_i32(rt_div_trunc_i32(a[it.off1], b[it.off2]), p->act_qmin, p->act_qmax);
}

/* Leading zeros of a 32-bit value (32 for 0). */
static int clz32(uint32_t x) {
    int n = 0;
    if (x == 0) return 32;
    while (!(x & 0x80000000u)) {
        x <<= 1;
        n++;
    }
    return n;
}

/* Redundant sign bits (TFLite CountLeadingSignBits; 31 for 0). */
static int clrsb32(int32_t x) { return clz32(x < 0 ? ~(uint32_t)x : (uint32_t)x) - 1; }

/* gemmlowp SaturatingRoundingMultiplyByPOT for a positive exponent. */
static int32_t sat_shl(int32_t x, int e) {
    int32_t threshold = (int32_t)(((int64_t)1 << (31 - e)) - 1);
    if (x > threshold) return INT32_MAX;
    if (x < -threshold) return INT32_MIN;
    return (int32_t)((uint32_t)x << e);
}

/* gemmlowp one_over_one_plus_x_for_x_in_0_1: a is Q0.31, result Q0.31. */
static int32_t one_over_one_plus_x(int32_t a) {
    /* F0 half_denominator = RoundingHalfSum(a, One) */
    int64_t sum = (int64_t)a + INT32_MAX;
    int32_t half_den = (int32_t)((sum + (sum >= 0 ? 1 : -1)) / 2);
    /* Newton-Raphson in Q2.29, starting from 48/17 - 32/17 * d. */
    const int32_t c48_17 = 1515870810, cneg32_17 = -1010580540, one_q2 = (int32_t)1 << 29;
    int32_t x = c48_17 + rt_sat_rounding_doubling_high_mul(half_den, cneg32_17);
    int i;
    for (i = 0; i < 3; i++) {
        int32_t hdx = rt_sat_rounding_doubling_high_mul(half_den, x);     /* Q2.29 */
        int32_t one_minus = one_q2 - hdx;                                  /* Q2.29 */
        int32_t prod = rt_sat_rounding_doubling_high_mul(x, one_minus);    /* Q4.27 */
        x = x + sat_shl(prod, 2);                                          /* back to Q2.29 */
    }
    /* ExactMulByPot<-1> then Rescale<0>: Q1.30 raw -> Q0.31 */
    return sat_shl(x, 1);
}

/* TFLite GetReciprocal(x, 31, &shift) for x > 0. */
static int32_t reciprocal(int32_t x, int *num_bits_over_unit) {
    int headroom_plus_one = clz32((uint32_t)x);
    *num_bits_over_unit = 31 - headroom_plus_one;
    return one_over_one_plus_x((int32_t)(((uint32_t)x << headroom_plus_one) - ((uint32_t)1 << 31)));
}

static int32_t div_q(const rt_binary_params *p, int32_t a, int32_t b) {
    int32_t x = p->in1_offset + a, y = p->in2_offset + b, inv, unscaled, r;
    int recip_shift, headroom, total_shift;
    if (y == 0) return x > 0 ? p->act_qmax : (x < 0 ? p->act_qmin : rt_clamp_i32(p->out_offset, p->act_qmin, p->act_qmax));
    if (y < 0) {
        x = -x;
        y = -y;
    }
    inv = reciprocal(y, &recip_shift);
    headroom = clrsb32(x);
    unscaled = rt_mul_by_quantized_multiplier(x, inv, headroom);
    total_shift = p->out_shift - recip_shift - headroom;
    r = p->out_offset + rt_mul_q_smaller_than_one(unscaled, p->out_mult, total_shift);
    return rt_clamp_i32(r, p->act_qmin, p->act_qmax);
}

void rt_div_i8(const rt_binary_params *p, const int8_t *a, const int8_t *b, int8_t *out) {
    int64_t i, n = rt_bcast_numel(&p->bc);
    rt_bcast_iter it;
    rt_bcast_begin(&it);
    for (i = 0; i < n; i++, rt_bcast_next(&p->bc, &it)) out[i] = (int8_t)div_q(p, a[it.off1], b[it.off2]);
}

void rt_div_u8(const rt_binary_params *p, const uint8_t *a, const uint8_t *b, uint8_t *out) {
    int64_t i, n = rt_bcast_numel(&p->bc);
    rt_bcast_iter it;
    rt_bcast_begin(&it);
    for (i = 0; i < n; i++, rt_bcast_next(&p->bc, &it)) out[i] = (uint8_t)div_q(p, a[it.off1], b[it.off2]);
}

void rt_div_i16(const rt_binary_params *p, const int16_t *a, const int16_t *b, int16_t *out) {
    int64_t i, n = rt_bcast_numel(&p->bc);
    rt_bcast_iter it;
    rt_bcast_begin(&it);
    for (i = 0; i < n; i++, rt_bcast_next(&p->bc, &it)) out[i] = (int16_t)div_q(p, a[it.off1], b[it.off2]);
}
