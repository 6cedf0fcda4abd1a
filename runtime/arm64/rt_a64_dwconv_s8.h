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
 * (SMULL + SMLAL: |sum| <= 2 * 128 * 127) and widened once; the row's interior outputs run in one
 * loop, the pointers stepped. */
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
    const int64_t row_bytes = (int64_t)in_w * Cin, step = (int64_t)sw * Cin;
    /* the outputs whose three columns of taps lie inside the image: x0 = ox sw - pw in [0, in_w - 3] */
    const int32_t ox_in0 = (pw + sw - 1) / sw, ox_end = in_w - 3 + pw >= 0 ? (in_w - 3 + pw) / sw + 1 : 0;
    const int32_t ox_in1 = ox_end < out_w ? ox_end : out_w;
    int16x8_t w[25];
    int32_t c0, r, ox, fy, fx, t;
    for (c0 = 0; c0 < C; c0 += 8) {
        const int32x4_t b0 = bias ? vld1q_s32(bias + c0) : vdupq_n_s32(0);
        const int32x4_t b1 = bias ? vld1q_s32(bias + c0 + 4) : vdupq_n_s32(0);
        const int32x4_t m0 = vld1q_s32(p->mult + c0), m1 = vld1q_s32(p->mult + c0 + 4);
        const int32x4_t s0 = vld1q_s32(p->shift + c0), s1 = vld1q_s32(p->shift + c0 + 4);
        int8x8_t w0, w1, w2, w3, w4, w5, w6, w7, w8; /* a 3x3 filter's, named: kept in registers */
        int16x8_t wsum = vdupq_n_s16(0);
        int32x4_t i0 = b0, i1 = b1; /* the interior's start: bias + offset * (sum of the nine taps) */
        int pairs;                  /* no weight is -128: two products add up in int16 (|sum| <= 2 * 128 * 127) */
        for (t = 0; t < taps; t++) w[t] = vmovl_s8(vld1_s8(filter + (int64_t)t * C + c0));
        for (t = taps; t < 9; t++) w[t] = w[0];
        for (t = 0; t < 9; t++) wsum = vaddq_s16(wsum, w[t]); /* |sum| <= 9 * 128 */
        i0 = vmlaq_s32(i0, vmovl_s16(vget_low_s16(wsum)), vdupq_n_s32(p->in_offset));
        i1 = vmlaq_s32(i1, vmovl_high_s16(wsum), vdupq_n_s32(p->in_offset));
        w0 = vmovn_s16(w[0]), w1 = vmovn_s16(w[1]), w2 = vmovn_s16(w[2]), w3 = vmovn_s16(w[3]), w4 = vmovn_s16(w[4]);
        w5 = vmovn_s16(w[5]), w6 = vmovn_s16(w[6]), w7 = vmovn_s16(w[7]), w8 = vmovn_s16(w[8]);
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
                if (full3 && ylo == 0 && yhi == 3 && ox >= ox_in0 && ox < ox_in1) { /* the row's interior run */
                    const int8_t *q = in + (((int64_t)b * in_h + y0) * in_w + x0) * Cin + ci;
                    for (; ox < ox_in1; ox++, q += step) {
                        const int8_t *q1 = q + row_bytes, *q2 = q1 + row_bytes;
                        acc0 = i0, acc1 = i1;
                        if (pairs) {
                            RT_A64_DW_PAIR(q, w0, q + Cin, w1);
                            RT_A64_DW_PAIR(q + 2 * Cin, w2, q1, w3);
                            RT_A64_DW_PAIR(q1 + Cin, w4, q1 + 2 * Cin, w5);
                            RT_A64_DW_PAIR(q2, w6, q2 + Cin, w7);
                        } else {
                            RT_A64_DW_ONE(q, w0);
                            RT_A64_DW_ONE(q + Cin, w1);
                            RT_A64_DW_ONE(q + 2 * Cin, w2);
                            RT_A64_DW_ONE(q1, w3);
                            RT_A64_DW_ONE(q1 + Cin, w4);
                            RT_A64_DW_ONE(q1 + 2 * Cin, w5);
                            RT_A64_DW_ONE(q2, w6);
                            RT_A64_DW_ONE(q2 + Cin, w7);
                        }
                        RT_A64_DW_ONE(q2 + 2 * Cin, w8);
                        RT_A64_DW_STORE(orow + (int64_t)ox * C);
                    }
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
