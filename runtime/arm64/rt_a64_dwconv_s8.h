/* rt_a64_dwconv_s8.h - the AArch64 int8 depthwise kernel for rt_opt_dwconv.c (runtime/arm64,
 * docs/arm64.md; not API, included by that file only, after its taps_range).
 *
 * Depth multiplier 1 and channels a multiple of 8, or one input channel and a depth multiplier
 * that is a multiple of 8 (a grayscale image's first layer: its byte loaded 8 times), at most 25
 * taps, every shift in [-31, 31], the input offset a zero point (-127..128), the output offset
 * and clamp int8: 8 channels at a time across the whole image, the taps' weights widened to int16
 * once; per tap and pixel one load, SXTL, the offset added in int16 ((in + offset) stays within
 * +-255) and SMLAL/SMLAL2 of the int16 products into two int32x4 sums (wrapping like TFLite's);
 * then TFLite's requantization on the lanes (rt_a64_rq_double) and rt_a64_store8.
 * Taps outside the image are skipped, as in the reference kernel; a 3x3 filter (unit dilation)
 * wholly inside the image takes an unrolled path with its nine int8 weight vectors in registers
 * and the offset folded into the sums' start (bias + offset * the taps' weight sum, wrapping):
 * per tap SMULL of the raw int8 input by the weights (exact in int16) and SADDW/SADDW2 into the
 * sums, or, when no weight of the 8 channels is -128, two taps' products added in int16 first
 * (SMULL + SMLAL: |sum| <= 2 * 128 * 127) and widened once; the row's interior outputs (the three
 * columns of taps inside the image) run in one loop of their own (rt_a64_dw3_run: everything in
 * registers), the pointers stepped. A row of taps above or below the image reads an 8-byte pad
 * holding the input's zero point (in + offset = 0: no term, as the reference's skipped tap), its
 * step and column offsets 0, so the first and last output rows run that loop too. Where every
 * shift of the 8 channels is a right shift the requantization is rt_a64_rq_right (3 instructions
 * a vector instead of 6). */
#ifndef MPCC_RT_A64_DWCONV_S8_H
#define MPCC_RT_A64_DWCONV_S8_H

#include "rt_a64.h"

#if defined(RT_A64)
static int rt_a64_dw_s8_applies(const struct rt_dwconv_params *p) {
    return ((p->depth_mult == 1 && p->in_c % 8 == 0) || (p->in_c == 1 && p->depth_mult % 8 == 0)) &&
           p->filter_h * p->filter_w <= 25 && p->in_offset >= -127 && p->in_offset <= 128 &&
           rt_a64_shifts_double(p->shift, p->in_c * p->depth_mult) && p->out_offset >= -128 && p->out_offset <= 127 &&
           p->act_qmin >= -128 && p->act_qmax <= 127 && p->act_qmin <= p->act_qmax;
}

/* 8 channels' inputs at ptr: 8 bytes, or (bcast: one input channel, a depth multiplier) one byte 8 times. */
#define RT_A64_DW_LD(ptr) (bcast ? vld1_dup_s8(ptr) : vld1_s8(ptr))
/* One tap of 8 channels: (in + offset) * w added to the two int32x4 sums. */
#define RT_A64_DW_TAP(ptr, wt)                                                                                         \
    do {                                                                                                               \
        const int16x8_t x_ = vaddq_s16(vmovl_s8(RT_A64_DW_LD(ptr)), off);                                              \
        acc0 = vmlal_s16(acc0, vget_low_s16(x_), vget_low_s16(wt));                                                    \
        acc1 = vmlal_high_s16(acc1, x_, wt);                                                                           \
    } while (0)

/* One tap of 8 channels without the offset (folded into the start): in * w (int16, exact) added to
 * the sums. */
#define RT_A64_DW_ONE(ptr, wt)                                                                                         \
    do {                                                                                                               \
        const int16x8_t p_ = vmull_s8(RT_A64_DW_LD(ptr), wt);                                                          \
        acc0 = vaddw_s16(acc0, vget_low_s16(p_));                                                                      \
        acc1 = vaddw_high_s16(acc1, p_);                                                                               \
    } while (0)
/* Two taps: their products added in int16 first (no weight -128: |sum| <= 32512). */
#define RT_A64_DW_PAIR(pa, wa, pb, wb)                                                                                 \
    do {                                                                                                               \
        const int16x8_t p_ = vmlal_s8(vmull_s8(RT_A64_DW_LD(pa), wa), RT_A64_DW_LD(pb), wb);                           \
        acc0 = vaddw_s16(acc0, vget_low_s16(p_));                                                                      \
        acc1 = vaddw_high_s16(acc1, p_);                                                                               \
    } while (0)

/* Requantizes the two sums (acc0, acc1) and stores the 8 bytes at dst (the offset and clamp
 * applied in int16 / int8: rt_a64_store8). */
#define RT_A64_DW_STORE(dst)                                                                                           \
    do {                                                                                                               \
        rt_a64_store8(rt_a64_rq_double(acc0, m0, s0), rt_a64_rq_double(acc1, m1, s1), oo, lo, hi, dst);                \
    } while (0)

/* One block of 8 channels of a 3x3 filter for rt_a64_dw3_run: its int8 weights, the sums' start
 * (bias + offset * the taps' weight sum), the requantization's multipliers, left shifts (max(s, 0))
 * and right shifts (min(s, 0)), the output offset and the clamp. */
typedef struct rt_a64_dw3 {
    int8x8_t w[9], lo, hi;
    int32x4_t i0, i1, m0, m1, l0, l1, r0, r1;
    int16x8_t oo;
    int right; /* every shift below 0: rt_a64_rq_right */
} rt_a64_dw3;

/* n outputs of a row's 3x3 run (o, ostep bytes apart) from the input rows q[0..2], whose taps lie at
 * +0, +d[y][0] and +d[y][1] and which step by st[y] an output (a row outside the image: the pad, 0
 * and 0). PAIRS: two taps' products added in int16 first (no weight -128); BCAST: one input
 * channel (its byte loaded 8 times). Everything in registers (a function of its own: inside the
 * body GCC kept the offsets and weights on the stack). */
static inline __attribute__((always_inline)) void rt_a64_dw3_run_k(const int PAIRS, const int BCAST,
                                                                   const int RIGHT, const rt_a64_dw3 *k,
                                                                   const int8_t *const q[3], const int64_t d[3][2],
                                                                   const int64_t st[3], int32_t n, int8_t *o,
                                                                   int64_t ostep) {
    const int8x8_t w0 = k->w[0], w1 = k->w[1], w2 = k->w[2], w3 = k->w[3], w4 = k->w[4], w5 = k->w[5];
    const int8x8_t w6 = k->w[6], w7 = k->w[7], w8 = k->w[8], lo = k->lo, hi = k->hi;
    const int32x4_t i0 = k->i0, i1 = k->i1, m0 = k->m0, m1 = k->m1, l0 = k->l0, l1 = k->l1, r0 = k->r0, r1 = k->r1;
    const int16x8_t oo = k->oo;
    const int8_t *q0 = q[0], *q1 = q[1], *q2 = q[2];
    const int64_t d01 = d[0][0], d02 = d[0][1], d11 = d[1][0], d12 = d[1][1], d21 = d[2][0], d22 = d[2][1];
    const int64_t st0 = st[0], st1 = st[1], st2 = st[2];
    const int bcast = BCAST;
    int32_t i;
    for (i = 0; i < n; i++, q0 += st0, q1 += st1, q2 += st2, o += ostep) {
        int32x4_t acc0 = i0, acc1 = i1;
        if (PAIRS) {
            RT_A64_DW_PAIR(q0, w0, q0 + d01, w1);
            RT_A64_DW_PAIR(q0 + d02, w2, q1, w3);
            RT_A64_DW_PAIR(q1 + d11, w4, q1 + d12, w5);
            RT_A64_DW_PAIR(q2, w6, q2 + d21, w7);
        } else {
            RT_A64_DW_ONE(q0, w0);
            RT_A64_DW_ONE(q0 + d01, w1);
            RT_A64_DW_ONE(q0 + d02, w2);
            RT_A64_DW_ONE(q1, w3);
            RT_A64_DW_ONE(q1 + d11, w4);
            RT_A64_DW_ONE(q1 + d12, w5);
            RT_A64_DW_ONE(q2, w6);
            RT_A64_DW_ONE(q2 + d21, w7);
        }
        RT_A64_DW_ONE(q2 + d22, w8);
        if (RIGHT) { /* every shift below 0 */
            acc0 = rt_a64_rq_right(acc0, m0, r0);
            acc1 = rt_a64_rq_right(acc1, m1, r1);
        } else { /* rt_a64_rq_double with its shifts split once per block */
            acc0 = vqrdmulhq_s32(vqshlq_s32(acc0, l0), m0);
            acc1 = vqrdmulhq_s32(vqshlq_s32(acc1, l1), m1);
            acc0 = vrshlq_s32(vqaddq_s32(acc0, vshrq_n_s32(vandq_s32(acc0, r0), 31)), r0);
            acc1 = vrshlq_s32(vqaddq_s32(acc1, vshrq_n_s32(vandq_s32(acc1, r1), 31)), r1);
        }
        rt_a64_store8(acc0, acc1, oo, lo, hi, o);
    }
}

static __attribute__((noinline)) void rt_a64_dw3_run(int pairs, int bcast, const rt_a64_dw3 *k,
                                                     const int8_t *const q[3], const int64_t d[3][2],
                                                     const int64_t st[3], int32_t n, int8_t *o, int64_t ostep) {
#define RT_A64_DW3_RIGHT(P, B)                                                                                         \
    do {                                                                                                               \
        if (k->right) rt_a64_dw3_run_k(P, B, 1, k, q, d, st, n, o, ostep);                                             \
        else rt_a64_dw3_run_k(P, B, 0, k, q, d, st, n, o, ostep);                                                      \
    } while (0)
    if (bcast) {
        if (pairs) RT_A64_DW3_RIGHT(1, 1);
        else RT_A64_DW3_RIGHT(0, 1);
    } else {
        if (pairs) RT_A64_DW3_RIGHT(1, 0);
        else RT_A64_DW3_RIGHT(0, 0);
    }
#undef RT_A64_DW3_RIGHT
}

/* Output rows [r0, r1) (of all images) of the depthwise convolution. */
static inline __attribute__((always_inline)) void rt_a64_dw_s8_body(const struct rt_dwconv_params *p,
                                                                    const int8_t *in, const int8_t *filter,
                                                                    const int32_t *bias, int8_t *out, int32_t r0,
                                                                    int32_t r1, const int bcast) {
    /* Cin: the input's channels (1 with bcast), C: the output's */
    const int32_t Cin = p->in_c, C = Cin * p->depth_mult, taps = p->filter_h * p->filter_w;
    const int16x8_t off = vdupq_n_s16((int16_t)p->in_offset);
    const int16x8_t oo = vdupq_n_s16((int16_t)p->out_offset);
    const int8x8_t lo = vdup_n_s8((int8_t)p->act_qmin), hi = vdup_n_s8((int8_t)p->act_qmax);
    const int full3 = p->filter_h == 3 && p->filter_w == 3 && p->dil_h == 1 && p->dil_w == 1;
    /* p's fields in locals: the int8 stores may alias them, which would reload them after each pixel */
    const int32_t in_h = p->in_h, in_w = p->in_w, out_h = p->out_h, out_w = p->out_w;
    const int32_t sh = p->stride_h, sw = p->stride_w, pw = p->pad_w;
    const int64_t step = (int64_t)sw * Cin;
    /* the outputs whose three columns of taps lie inside the image: x0 = ox sw - pw in [0, in_w - 3] */
    const int32_t ox_in0 = (pw + sw - 1) / sw, ox_end = in_w - 3 + pw >= 0 ? (in_w - 3 + pw) / sw + 1 : 0;
    const int32_t ox_in1 = ox_end < out_w ? ox_end : out_w;
    int16x8_t w[25];
    int8_t pad[8]; /* a tap outside the image in the 3x3 run: the input's zero point, in + offset = 0 */
    int32_t c0, r, ox, fy, fx, t;
    memset(pad, (int8_t)-p->in_offset, sizeof pad);
    for (c0 = 0; c0 < C; c0 += 8) {
        const int32x4_t b0 = bias ? vld1q_s32(bias + c0) : vdupq_n_s32(0);
        const int32x4_t b1 = bias ? vld1q_s32(bias + c0 + 4) : vdupq_n_s32(0);
        const int32x4_t m0 = vld1q_s32(p->mult + c0), m1 = vld1q_s32(p->mult + c0 + 4);
        const int32x4_t s0 = vld1q_s32(p->shift + c0), s1 = vld1q_s32(p->shift + c0 + 4);
        rt_a64_dw3 k3; /* a 3x3 filter's run (rt_a64_dw3_run) */
        int16x8_t wsum = vdupq_n_s16(0);
        int32x4_t i0 = b0, i1 = b1; /* the interior's start: bias + offset * (sum of the nine taps) */
        int pairs;                  /* no weight is -128: two products add up in int16 (|sum| <= 2 * 128 * 127) */
        for (t = 0; t < taps; t++) w[t] = vmovl_s8(vld1_s8(filter + (int64_t)t * C + c0));
        for (t = taps; t < 9; t++) w[t] = w[0];
        for (t = 0; t < 9; t++) wsum = vaddq_s16(wsum, w[t]); /* |sum| <= 9 * 128 */
        i0 = vmlaq_s32(i0, vmovl_s16(vget_low_s16(wsum)), vdupq_n_s32(p->in_offset));
        i1 = vmlaq_s32(i1, vmovl_high_s16(wsum), vdupq_n_s32(p->in_offset));
        for (t = 0; t < 9; t++) k3.w[t] = vmovn_s16(w[t]);
        k3.i0 = i0, k3.i1 = i1, k3.m0 = m0, k3.m1 = m1, k3.oo = oo, k3.lo = lo, k3.hi = hi;
        k3.l0 = vmaxq_s32(s0, vdupq_n_s32(0)), k3.l1 = vmaxq_s32(s1, vdupq_n_s32(0));
        k3.r0 = vminq_s32(s0, vdupq_n_s32(0)), k3.r1 = vminq_s32(s1, vdupq_n_s32(0));
        k3.right = vmaxvq_s32(vmaxq_s32(s0, s1)) < 0;
        {
            int16x8_t lowest = w[0];
            for (t = 1; t < 9; t++) lowest = vminq_s16(lowest, w[t]);
            pairs = vminvq_s16(lowest) > -128;
        }
        const int32_t ci = bcast ? 0 : c0; /* the input channel of the block's first */
        for (r = r0; r < r1; r++) {
            const int32_t b = r / out_h, oy = r % out_h, y0 = oy * sh - p->pad_h;
            int8_t *orow = out + ((int64_t)b * out_h + oy) * out_w * C + c0;
            int32_t ylo, yhi;
            taps_range(y0, p->dil_h, p->filter_h, in_h, &ylo, &yhi);
            for (ox = 0; ox < out_w;) {
                const int32_t x0 = ox * sw - pw;
                int32x4_t acc0 = b0, acc1 = b1;
                int32_t xlo, xhi;
                if (full3 && ox >= ox_in0 && ox < ox_in1) { /* the row's interior run */
                    /* the three input rows at column x0; a row outside the image is the pad (the
                     * input's zero point: in + offset = 0), its column offsets and step 0 */
                    const int8_t *q[3];
                    int64_t d[3][2], st[3];
                    for (fy = 0; fy < 3; fy++) {
                        const int in_img = y0 + fy >= 0 && y0 + fy < in_h;
                        q[fy] = in_img ? in + (((int64_t)b * in_h + y0 + fy) * in_w + x0) * Cin + ci : pad;
                        d[fy][0] = in_img ? Cin : 0, d[fy][1] = in_img ? 2 * Cin : 0, st[fy] = in_img ? step : 0;
                    }
                    rt_a64_dw3_run(pairs, bcast, &k3, q, (const int64_t(*)[2])d, st, ox_in1 - ox, orow + (int64_t)ox * C,
                                   C);
                    ox = ox_in1;
                    continue;
                }
                taps_range(x0, p->dil_w, p->filter_w, in_w, &xlo, &xhi);
                for (fy = ylo; fy < yhi; fy++) {
                    const int8_t *row = in + (((int64_t)b * in_h + y0 + fy * p->dil_h) * in_w) * Cin + ci;
                    for (fx = xlo; fx < xhi; fx++)
                        RT_A64_DW_TAP(row + (int64_t)(x0 + fx * p->dil_w) * Cin, w[fy * p->filter_w + fx]);
                }
                RT_A64_DW_STORE(orow + (int64_t)ox * C);
                ox++;
            }
        }
    }
}
/* Output rows [r0, r1) (of all images) of the depthwise convolution. */
static void rt_a64_dw_s8(const struct rt_dwconv_params *p, const int8_t *in, const int8_t *filter,
                         const int32_t *bias, int8_t *out, int32_t r0, int32_t r1) {
    if (p->depth_mult == 1) rt_a64_dw_s8_body(p, in, filter, bias, out, r0, r1, 0);
    else rt_a64_dw_s8_body(p, in, filter, bias, out, r0, r1, 1);
}
#undef RT_A64_DW_TAP
#undef RT_A64_DW_ONE
#undef RT_A64_DW_PAIR
#undef RT_A64_DW_STORE
#undef RT_A64_DW_LD
#endif

#endif
