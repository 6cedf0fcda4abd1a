/* rt_activation_common.h - fixed-point helpers shared by the activation
 * kernels (softmax, log_softmax, logistic, tanh, hard_swish, ...).
 *
 * These reproduce gemmlowp's FixedPoint<int32_t, N> arithmetic as TFLite's
 * reference kernels use it, bit for bit. A fixed-point value is just its raw
 * int32; the number of integer bits is passed explicitly where it matters
 * (Q<ibits>.<31-ibits>). Included from mpcc_rt.h (after the basic helpers
 * rt_sat_rounding_doubling_high_mul / rt_rounding_divide_by_pot).
 * C99, static inline, no state.
 */
#ifndef MPCC_RT_ACTIVATION_COMMON_H
#define MPCC_RT_ACTIVATION_COMMON_H

/* Parameters of the elementwise activation kernels (RELU family,
 * LEAKY_RELU, LOGISTIC, TANH, HARD_SWISH, GELU); each kernel documents the
 * fields it reads, the others are zero. */
typedef struct rt_act_params {
    int64_t n;                  /* element count */
    float alpha;                /* LEAKY_RELU slope */
    float f_min, f_max;         /* float clamp (RELU family) */
    int32_t in_zp, out_zp;      /* zero points */
    int32_t mult_a, shift_a;    /* first requantization multiplier (identity / output) */
    int32_t mult_b, shift_b;    /* second one (alpha / reluish) */
    int32_t neg_b;              /* 1: negate after applying mult_b (negative alpha) */
    int32_t q_min, q_max;       /* integer clamp */
    int32_t approximate;        /* GELU: tanh approximation */
    const int8_t *lut_i8;       /* 256-entry table indexed by (uint8_t)input */
    const int16_t *lut_i16;     /* 513-entry interpolated table */
    const int32_t *sigmoid_q16; /* int16 LOGISTIC/TANH: 256 samples sigmoid(i/24) in Q0.16 */
} rt_act_params;

/* Wrapping int32 add/sub (gemmlowp's plain Add/Sub; never overflows for the
 * values these kernels produce, but stays defined if it did). */
static inline int32_t rt_fp_add(int32_t a, int32_t b) { return (int32_t)((uint32_t)a + (uint32_t)b); }
static inline int32_t rt_fp_sub(int32_t a, int32_t b) { return (int32_t)((uint32_t)a - (uint32_t)b); }

/* Fixed-point product: the integer bits of the operands add up. */
static inline int32_t rt_fp_mul(int32_t a, int32_t b) { return rt_sat_rounding_doubling_high_mul(a, b); }

/* x * 2^exponent: saturating left shift for exponent > 0, rounding right
 * shift for exponent < 0 (gemmlowp SaturatingRoundingMultiplyByPOT). */
static inline int32_t rt_fp_mul_pot(int32_t x, int exponent) {
    if (exponent > 0) {
        int32_t threshold = (int32_t)(((int64_t)1 << (31 - exponent)) - 1);
        if (x > threshold) return INT32_MAX;
        if (x < -threshold) return INT32_MIN;
        return (int32_t)((uint32_t)x << exponent);
    }
    if (exponent < 0) return rt_rounding_divide_by_pot(x, -exponent);
    return x;
}

/* Change the number of integer bits from src_bits to dst_bits. */
static inline int32_t rt_fp_rescale(int32_t x, int src_bits, int dst_bits) {
    return rt_fp_mul_pot(x, src_bits - dst_bits);
}

/* Round-to-nearest (a + b) / 2 computed without overflow. */
static inline int32_t rt_fp_rounding_half_sum(int32_t a, int32_t b) {
    int64_t sum = (int64_t)a + (int64_t)b;
    int64_t sign = sum >= 0 ? 1 : -1;
    return (int32_t)((sum + sign) / 2);
}

/* Leading zero bits of a 32-bit value (32 for 0). */
static inline int rt_clz32(uint32_t x) {
    int n = 0;
    if (x == 0) return 32;
    while (!(x & 0x80000000u)) {
        x <<= 1;
        n++;
    }
    return n;
}

/* MultiplyByQuantizedMultiplierGreaterThanOne (double rounding). */
static inline int32_t rt_mul_by_qm_gt_one(int32_t x, int32_t multiplier, int left_shift) {
    return rt_sat_rounding_doubling_high_mul((int32_t)((uint32_t)x << left_shift), multiplier);
}

/* exp(a) for a in [-1/4, 0), a and result in Q0.31. */
static inline int32_t rt_fp_exp_neg_quarter_to_0(int32_t a) {
    const int32_t constant_term = 1895147668; /* exp(-1/8) */
    const int32_t one_third = 715827883;
    int32_t x = rt_fp_add(a, (int32_t)1 << 28); /* Taylor expansion around -1/8 */
    int32_t x2 = rt_fp_mul(x, x);
    int32_t x3 = rt_fp_mul(x2, x);
    int32_t x4 = rt_fp_mul(x2, x2);
    int32_t x4_over_4 = rt_fp_mul_pot(x4, -2);
    int32_t poly = rt_fp_mul_pot(rt_fp_add(rt_fp_mul(rt_fp_add(x4_over_4, x3), one_third), x2), -1);
    return rt_fp_add(constant_term, rt_fp_mul(constant_term, rt_fp_add(x, poly)));
}

/* exp(a) for a <= 0; a in Q<ibits>.<31-ibits>, result in Q0.31. */
static inline int32_t rt_fp_exp_on_negative_values(int32_t a, int ibits) {
    /* exp(-2^k) for k = -2..4, Q0.31 */
    static const int32_t barrel[7] = {1672461947, 1302514674, 790015084, 290630308, 39332535, 720401, 242};
    int fbits = 31 - ibits, k;
    int32_t one_quarter = (int32_t)1 << (fbits - 2);
    int32_t mask = one_quarter - 1;
    int32_t a_mod_quarter_minus_quarter = rt_fp_sub(a & mask, one_quarter);
    int32_t result = rt_fp_exp_neg_quarter_to_0(rt_fp_rescale(a_mod_quarter_minus_quarter, ibits, 0));
    int32_t remainder = rt_fp_sub(a_mod_quarter_minus_quarter, a);
    for (k = -2; k <= 4; k++) {
        if (ibits > k) {
            int shift = fbits + k;
            if (remainder & ((int32_t)1 << shift)) result = rt_fp_mul(result, barrel[k + 2]);
        }
    }
    if (ibits > 5) {
        int32_t clamp = -((int32_t)1 << (36 - ibits)); /* -32.0 */
        if (a < clamp) result = 0;
    }
    if (a == 0) result = INT32_MAX; /* One() in Q0.31 */
    return result;
}

/* 1 / (1 + a) for a in [0, 1), Q0.31 in and out (Newton-Raphson). */
static inline int32_t rt_fp_one_over_one_plus_x(int32_t a) {
    const int32_t c48_over_17 = 1515870810;      /* Q2.29 */
    const int32_t cneg32_over_17 = -1010580540; /* Q2.29 */
    const int32_t one_q2 = (int32_t)1 << 29;
    int32_t half_denominator = rt_fp_rounding_half_sum(a, INT32_MAX);
    int32_t x = rt_fp_add(c48_over_17, rt_fp_mul(half_denominator, cneg32_over_17));
    int i;
    for (i = 0; i < 3; i++) {
        int32_t half_denominator_times_x = rt_fp_mul(half_denominator, x);
        int32_t one_minus = rt_fp_sub(one_q2, half_denominator_times_x);
        x = rt_fp_add(x, rt_fp_rescale(rt_fp_mul(x, one_minus), 4, 2));
    }
    /* x / 2 taken as Q1.30, then rescaled to Q0.31 */
    return rt_fp_rescale(x, 1, 0);
}

/* TFLite GetReciprocal: 1/x for x in Q<x_ibits>, returned in Q0.31 scaled
 * by 2^-num_bits_over_unit. */
static inline int32_t rt_fp_reciprocal(int32_t x, int x_ibits, int *num_bits_over_unit) {
    int headroom_plus_one = rt_clz32((uint32_t)x);
    int32_t shifted_minus_one;
    *num_bits_over_unit = x_ibits - headroom_plus_one;
    /* x == 0 (a wrapped sum) has 32 leading zeros: shifting it by any amount gives 0. */
    shifted_minus_one =
        (int32_t)((headroom_plus_one < 32 ? (uint32_t)x << headroom_plus_one : 0u) - ((uint32_t)1 << 31));
    return rt_fp_one_over_one_plus_x(shifted_minus_one);
}

/* int8 -> int8 lookup table indexed by the input byte reinterpreted as
 * uint8 (TFLite's LUTPopulate<int8_t> ordering). */
static inline void rt_act_lut_i8(const int8_t *lut, int64_t n, const int8_t *in, int8_t *out) {
    int64_t i;
    for (i = 0; i < n; i++) out[i] = lut[(uint8_t)in[i]];
}

/* int16 -> int16 lookup with linear interpolation over a 513-entry table
 * (TFLite LUTLookup for int16): the top 9 bits of the input pick the entry,
 * the low 7 interpolate towards the next one. The slope is an int16_t in
 * TFLite and wraps when neighbouring entries differ by more than 32767 (a
 * table saturating from one end of the range to the other, e.g. EXP or LOG
 * of wide input ranges), and so does the sum; both wrap here the same way
 * (rt_wrap_i16). */
static inline int16_t rt_act_lut_lookup_i16(int16_t value, const int16_t *lut) {
    int32_t u = (int32_t)value + 32768;
    int32_t index = u >> 7, offset = u & 0x7f;
    int32_t base = lut[index];
    int32_t t = rt_wrap_i16(lut[index + 1] - base) * offset + 64;
    int32_t delta = t >= 0 ? t >> 7 : -((-t + 127) >> 7); /* floor(t / 128) */
    return rt_wrap_i16(base + delta);
}

/* n elements through rt_act_lut_lookup_i16 (int16 EXP, LOG, RSQRT). */
static inline void rt_act_lut_i16(const int16_t *lut, int64_t n, const int16_t *in, int16_t *out) {
    int64_t i;
    for (i = 0; i < n; i++) out[i] = rt_act_lut_lookup_i16(in[i], lut);
}

/* Float clamp to [f_min, f_max] (RELU family). */
static inline void rt_act_clamp_f32(const rt_act_params *p, const float *in, float *out) {
    int64_t i;
    for (i = 0; i < p->n; i++) {
        float v = in[i];
        out[i] = v < p->f_min ? p->f_min : (v > p->f_max ? p->f_max : v);
    }
}

/* TFLite ReluX: requantize with (mult_a, shift_a), then clamp to [q_min, q_max]. */
static inline int32_t rt_act_relux_q(const rt_act_params *p, int32_t x) {
    int32_t v = p->out_zp + rt_mul_by_quantized_multiplier(x - p->in_zp, p->mult_a, p->shift_a);
    return rt_clamp_i32(v, p->q_min, p->q_max);
}

#endif
