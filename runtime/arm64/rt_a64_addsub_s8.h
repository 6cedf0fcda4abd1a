/* rt_a64_addsub_s8.h - the AArch64 int8 ADD / SUB / SQUARED_DIFFERENCE lanes for
 * rt_opt_elementwise.c (runtime/arm64, docs/arm64.md; not API). Included by that file after
 * rt_binary_params is known. Each operand plus its offset, shifted left by left_shift, rescaled to
 * the common scale; the sum, difference or squared difference rescaled to the output, offset and
 * clamped: rt_addsub_q's and sqdiff_i8's integers, 8 lanes at a time, with rt_a64_rq_double as
 * TFLite's MultiplyByQuantizedMultiplierSmallerThanOne. */
#ifndef MPCC_RT_A64_ADDSUB_S8_H
#define MPCC_RT_A64_ADDSUB_S8_H

#include "rt_a64.h"

#if defined(RT_A64)
/* 1 when the output offset and the clamp are int8 (rt_a64_store8's narrowing applies). */
static inline int rt_a64_out_i8(const rt_binary_params *p) {
    return p->out_offset >= -128 && p->out_offset <= 127 && p->act_qmin >= -128 && p->act_qmax <= 127 &&
           p->act_qmin <= p->act_qmax;
}

/* 1 when rt_a64_rescaled_s8 applies: strides 0 or 1, every shift in [-31, 0] (a rescaling smaller
 * than one), the output int8, left_shift in [0, 23] (an int8 plus its offset shifted by it fits
 * int32), and for SQUARED_DIFFERENCE (op 0) at most 7 (the rescaled difference is below 2^15 in
 * magnitude: its square fits int32). */
static int rt_a64_rescaled_s8_ok(const rt_binary_params *p, int64_t sa, int64_t sb, int op) {
    const int32_t s[3] = {p->in1_shift, p->in2_shift, p->out_shift};
    int i, ok = (sa == 0 || sa == 1) && (sb == 0 || sb == 1) && p->left_shift >= 0 &&
                p->left_shift <= (op ? 23 : 7) && rt_a64_out_i8(p);
    for (i = 0; i < 3; i++) ok &= s[i] <= 0 && s[i] >= -31;
    return ok;
}

static inline int32x4_t rt_a64_rescale(int16x4_t w, int32x4_t off, int32x4_t left, int32x4_t m, int32x4_t s) {
    return rt_a64_rq_double(vshlq_s32(vaddq_s32(vmovl_s16(w), off), left), m, s);
}

/* x rescaled by m and a shift s in [-31, 0] (rt_a64_rq_double without its left shift): NEG set, every
 * lane's shift below 0 (rt_a64_rq_right), else every shift 0 (the rounding divide by 1: SQRDMULH alone). */
static inline __attribute__((always_inline)) int32x4_t rt_a64_rq_le0(int32x4_t x, int32x4_t m, int32x4_t s,
                                                                    const int NEG) {
    return NEG ? rt_a64_rq_right(x, m, s) : vqrdmulhq_s32(x, m);
}

/* rt_a64_rescaled_s8 for both operands contiguous (strides 1) and the output's shift below 0, with OP and
 * the inputs' shift kinds (N1, N2: below 0, or 0) constants: the two halves unrolled, no branch in the
 * loop, the cheaper rescaling where a shift is 0 or a right shift (41 instructions for 8 lanes instead
 * of about 85). */
static inline __attribute__((always_inline)) int64_t rt_a64_addsub_contig(const rt_binary_params *p, const int8_t *a,
                                                                          const int8_t *b, int8_t *o, int64_t n,
                                                                          const int OP, const int N1, const int N2) {
    const int32x4_t o1 = vdupq_n_s32(p->in1_offset), o2 = vdupq_n_s32(p->in2_offset);
    const int32x4_t m1 = vdupq_n_s32(p->in1_mult), e1 = vdupq_n_s32(p->in1_shift);
    const int32x4_t m2 = vdupq_n_s32(p->in2_mult), e2 = vdupq_n_s32(p->in2_shift);
    const int32x4_t mo = vdupq_n_s32(p->out_mult), eo = vdupq_n_s32(p->out_shift);
    const int32x4_t left = vdupq_n_s32(p->left_shift);
    const int16x8_t oo = vdupq_n_s16((int16_t)p->out_offset);
    const int8x8_t lo = vdup_n_s8((int8_t)p->act_qmin), hi = vdup_n_s8((int8_t)p->act_qmax);
    int64_t i;
    for (i = 0; i + 8 <= n; i += 8) {
        const int16x8_t x = vmovl_s8(vld1_s8(a + i)), y = vmovl_s8(vld1_s8(b + i));
        int32x4_t r[2];
        int h;
        RT_A64_UNROLL for (h = 0; h < 2; h++) {
            const int32x4_t ra =
                rt_a64_rq_le0(vshlq_s32(vaddw_s16(o1, h ? vget_high_s16(x) : vget_low_s16(x)), left), m1, e1, N1);
            const int32x4_t rb =
                rt_a64_rq_le0(vshlq_s32(vaddw_s16(o2, h ? vget_high_s16(y) : vget_low_s16(y)), left), m2, e2, N2);
            int32x4_t v = OP > 0 ? vaddq_s32(ra, rb) : vsubq_s32(ra, rb);
            if (OP == 0) v = vmulq_s32(v, v);
            r[h] = rt_a64_rq_right(v, mo, eo);
        }
        rt_a64_store8(r[0], r[1], oo, lo, hi, o + i);
    }
    return i;
}

/* rt_a64_addsub_contig's instances for op (1, -1, 0) and the inputs' shifts. */
static int64_t rt_a64_addsub_fast(const rt_binary_params *p, const int8_t *a, const int8_t *b, int8_t *o, int64_t n,
                                  int op) {
    const int k = (p->in1_shift < 0) * 2 + (p->in2_shift < 0);
#define RT_A64_ADDSUB_OP(OP)                                                                                        \
    switch (k) {                                                                                                      \
    case 0: return rt_a64_addsub_contig(p, a, b, o, n, OP, 0, 0);                                                     \
    case 1: return rt_a64_addsub_contig(p, a, b, o, n, OP, 0, 1);                                                     \
    case 2: return rt_a64_addsub_contig(p, a, b, o, n, OP, 1, 0);                                                     \
    default: return rt_a64_addsub_contig(p, a, b, o, n, OP, 1, 1);                                                   \
    }
    if (op > 0) RT_A64_ADDSUB_OP(1)
    if (op < 0) RT_A64_ADDSUB_OP(-1)
    RT_A64_ADDSUB_OP(0)
#undef RT_A64_ADDSUB_OP
}

/* o[i] = a[i sa] + b[i sb] (op 1), a - b (op -1) or (a - b)^2 (op 0), each operand rescaled, for i
 * below n rounded down to 8 lanes; returns that count. */
static inline int64_t rt_a64_rescaled_s8(const rt_binary_params *p, const int8_t *a, int64_t sa, const int8_t *b,
                                         int64_t sb, int8_t *o, int64_t n, int op) {
    const int32x4_t o1 = vdupq_n_s32(p->in1_offset), o2 = vdupq_n_s32(p->in2_offset);
    const int32x4_t m1 = vdupq_n_s32(p->in1_mult), e1 = vdupq_n_s32(p->in1_shift);
    const int32x4_t m2 = vdupq_n_s32(p->in2_mult), e2 = vdupq_n_s32(p->in2_shift);
    const int32x4_t mo = vdupq_n_s32(p->out_mult), eo = vdupq_n_s32(p->out_shift);
    const int32x4_t left = vdupq_n_s32(p->left_shift);
    const int16x8_t oo = vdupq_n_s16((int16_t)p->out_offset);
    const int8x8_t lo = vdup_n_s8((int8_t)p->act_qmin), hi = vdup_n_s8((int8_t)p->act_qmax);
    const int16x8_t xa = vdupq_n_s16(a[0]), xb = vdupq_n_s16(b[0]);
    int64_t i;
    if (sa == 1 && sb == 1 && p->out_shift < 0) return rt_a64_addsub_fast(p, a, b, o, n, op);
    for (i = 0; i + 8 <= n; i += 8) {
        const int16x8_t x = sa ? vmovl_s8(vld1_s8(a + i)) : xa, y = sb ? vmovl_s8(vld1_s8(b + i)) : xb;
        int32x4_t r[2];
        int h;
        for (h = 0; h < 2; h++) {
            const int32x4_t ra = rt_a64_rescale(h ? vget_high_s16(x) : vget_low_s16(x), o1, left, m1, e1);
            const int32x4_t rb = rt_a64_rescale(h ? vget_high_s16(y) : vget_low_s16(y), o2, left, m2, e2);
            int32x4_t v = op > 0 ? vaddq_s32(ra, rb) : vsubq_s32(ra, rb);
            if (op == 0) v = vmulq_s32(v, v);
            r[h] = rt_a64_rq_double(v, mo, eo);
        }
        rt_a64_store8(r[0], r[1], oo, lo, hi, o + i);
    }
    return i;
}
#endif

#endif
