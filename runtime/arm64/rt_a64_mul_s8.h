/* rt_a64_mul_s8.h - the AArch64 int8 MUL lanes for rt_opt_elementwise.c (runtime/arm64,
 * docs/arm64.md; not API). Included by that file after rt_a64_addsub_s8.h: the product of the
 * offset inputs requantized to the output (mul_i8's integers), 8 lanes at a time, bit-exact with
 * TFLite through rt_a64_rq_double. */
#ifndef MPCC_RT_A64_MUL_S8_H
#define MPCC_RT_A64_MUL_S8_H

#include "rt_a64_addsub_s8.h"

#if defined(RT_A64)
/* 1 when rt_a64_mul_s8 applies: strides 0 or 1, the output shift in [-31, 31], the output int8,
 * both input offsets in [-256, 256] (an int8 plus its offset fits int16, two such products int32). */
static int rt_a64_mul_s8_ok(const rt_binary_params *p, int64_t sa, int64_t sb) {
    return (sa == 0 || sa == 1) && (sb == 0 || sb == 1) && p->out_shift >= -31 && p->out_shift <= 31 &&
           p->in1_offset >= -256 && p->in1_offset <= 256 && p->in2_offset >= -256 && p->in2_offset <= 256 &&
           rt_a64_out_i8(p);
}

/* o[i] = requantized (a[i sa] + in1_offset) (b[i sb] + in2_offset) for i below n rounded down to 8;
 * returns that count. The offset inputs are exact in int16, their product (SMULL) in int32. */
static int64_t rt_a64_mul_s8(const rt_binary_params *p, const int8_t *a, int64_t sa, const int8_t *b, int64_t sb,
                             int8_t *o, int64_t n) {
    const int16x8_t o1 = vdupq_n_s16((int16_t)p->in1_offset), o2 = vdupq_n_s16((int16_t)p->in2_offset);
    const int32x4_t m = vdupq_n_s32(p->out_mult), s = vdupq_n_s32(p->out_shift);
    const int16x8_t oo = vdupq_n_s16((int16_t)p->out_offset);
    const int8x8_t lo = vdup_n_s8((int8_t)p->act_qmin), hi = vdup_n_s8((int8_t)p->act_qmax);
    const int16x8_t xa = vaddq_s16(vdupq_n_s16(a[0]), o1), xb = vaddq_s16(vdupq_n_s16(b[0]), o2);
    int64_t i;
    for (i = 0; i + 8 <= n; i += 8) {
        const int16x8_t x = sa ? vaddq_s16(vmovl_s8(vld1_s8(a + i)), o1) : xa;
        const int16x8_t y = sb ? vaddq_s16(vmovl_s8(vld1_s8(b + i)), o2) : xb;
        const int32x4_t r0 = rt_a64_rq_double(vmull_s16(vget_low_s16(x), vget_low_s16(y)), m, s);
        const int32x4_t r1 = rt_a64_rq_double(vmull_high_s16(x, y), m, s);
        rt_a64_store8(r0, r1, oo, lo, hi, o + i);
    }
    return i;
}
#endif

#endif
