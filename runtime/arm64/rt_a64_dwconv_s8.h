/* rt_a64_dwconv_s8.h - the AArch64 int8 depthwise kernel for rt_opt_dwconv.c (runtime/arm64,
 * docs/arm64.md; not API, included by that file only, after its taps_range).
 *
 * Depth multiplier 1, channels a multiple of 8, at most 25 taps, every shift in [-31, 31], the
 * input offset a zero point (-127..128): 8 channels at a time across the whole image, the taps'
 * weights widened to int16 once; per tap and pixel one load, SXTL, the offset added in int16
 * ((in + offset) stays within +-255) and SMLAL/SMLAL2 of the int16 products into two int32x4
 * sums (wrapping like TFLite's); then TFLite's requantization on the lanes (rt_a64_rq_double).
 * Taps outside the image are skipped, as in the reference kernel; a 3x3 filter (unit dilation)
 * wholly inside the image takes an unrolled path with its nine int8 weight vectors in registers
 * and the offset folded into the sums' start (bias + offset * the taps' weight sum, wrapping):
 * per tap SMULL of the raw int8 input by the weights (exact in int16) and SADDW/SADDW2 into the
 * sums, or, when no weight of the 8 channels is -128, two taps' products added in int16 first
 * (SMULL + SMLAL: |sum| <= 2 * 128 * 127) and widened once. */
#ifndef MPCC_RT_A64_DWCONV_S8_H
#define MPCC_RT_A64_DWCONV_S8_H

#include "rt_a64.h"

#if defined(RT_A64)
static int rt_a64_dw_s8_applies(const struct rt_dwconv_params *p) {
    return p->depth_mult == 1 && p->in_c % 8 == 0 && p->filter_h * p->filter_w <= 25 && p->in_offset >= -127 &&
           p->in_offset <= 128 && rt_a64_shifts_double(p->shift, p->in_c);
}

/* One tap of 8 channels: (in + offset) * w added to the two int32x4 sums. */
#define RT_A64_DW_TAP(ptr, wt)                                                                                         \
    do {                                                                                                               \
        const int16x8_t x_ = vaddq_s16(vmovl_s8(vld1_s8(ptr)), off);                                                 \
        acc0 = vmlal_s16(acc0, vget_low_s16(x_), vget_low_s16(wt));                                                    \
        acc1 = vmlal_high_s16(acc1, x_, wt);                                                                           \
    } while (0)

/* One tap of 8 channels without the offset (folded into the start): in * w (int16, exact) added to
 * the sums. */
#define RT_A64_DW_ONE(ptr, wt)                                                                                         \
    do {                                                                                                               \
        const int16x8_t p_ = vmull_s8(vld1_s8(ptr), wt);                                                             \
        acc0 = vaddw_s16(acc0, vget_low_s16(p_));                                                                      \
        acc1 = vaddw_high_s16(acc1, p_);                                                                               \
    } while (0)
/* Two taps: their products added in int16 first (no weight -128: |sum| <= 32512). */
#define RT_A64_DW_PAIR(pa, wa, pb, wb)                                                                                 \
    do {                                                                                                               \
        const int16x8_t p_ = vmlal_s8(vmull_s8(vld1_s8(pa), wa), vld1_s8(pb), wb);                                    \
        acc0 = vaddw_s16(acc0, vget_low_s16(p_));                                                                      \
        acc1 = vaddw_high_s16(acc1, p_);                                                                               \
    } while (0)

/* Output rows [r0, r1) (of all images) of the depthwise convolution. */
static void rt_a64_dw_s8(const struct rt_dwconv_params *p, const int8_t *in, const int8_t *filter,
                         const int32_t *bias, int8_t *out, int32_t r0, int32_t r1) {
    const int32_t C = p->in_c, taps = p->filter_h * p->filter_w;
    const int16x8_t off = vdupq_n_s16((int16_t)p->in_offset);
    const int32x4_t oo = vdupq_n_s32(p->out_offset), lo = vdupq_n_s32(p->act_qmin), hi = vdupq_n_s32(p->act_qmax);
    const int full3 = p->filter_h == 3 && p->filter_w == 3 && p->dil_h == 1 && p->dil_w == 1;
    const int64_t row_bytes = (int64_t)p->in_w * C;
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
        for (r = r0; r < r1; r++) {
            const int32_t b = r / p->out_h, oy = r % p->out_h, y0 = oy * p->stride_h - p->pad_h;
            int32_t ylo, yhi;
            taps_range(y0, p->dil_h, p->filter_h, p->in_h, &ylo, &yhi);
            for (ox = 0; ox < p->out_w; ox++) {
                const int32_t x0 = ox * p->stride_w - p->pad_w;
                int32x4_t acc0 = b0, acc1 = b1;
                int32_t xlo, xhi;
                if (full3 && ylo == 0 && yhi == 3 && x0 >= 0 && x0 + 3 <= p->in_w) { /* all nine taps inside */
                    const int8_t *q = in + (((int64_t)b * p->in_h + y0) * p->in_w + x0) * C + c0;
                    const int8_t *q1 = q + row_bytes, *q2 = q1 + row_bytes;
                    acc0 = i0, acc1 = i1;
                    if (pairs) {
                        RT_A64_DW_PAIR(q, w0, q + C, w1);
                        RT_A64_DW_PAIR(q + 2 * C, w2, q1, w3);
                        RT_A64_DW_PAIR(q1 + C, w4, q1 + 2 * C, w5);
                        RT_A64_DW_PAIR(q2, w6, q2 + C, w7);
                    } else {
                        RT_A64_DW_ONE(q, w0);
                        RT_A64_DW_ONE(q + C, w1);
                        RT_A64_DW_ONE(q + 2 * C, w2);
                        RT_A64_DW_ONE(q1, w3);
                        RT_A64_DW_ONE(q1 + C, w4);
                        RT_A64_DW_ONE(q1 + 2 * C, w5);
                        RT_A64_DW_ONE(q2, w6);
                        RT_A64_DW_ONE(q2 + C, w7);
                    }
                    RT_A64_DW_ONE(q2 + 2 * C, w8);
                } else {
                    taps_range(x0, p->dil_w, p->filter_w, p->in_w, &xlo, &xhi);
                    for (fy = ylo; fy < yhi; fy++) {
                        const int8_t *row = in + (((int64_t)b * p->in_h + y0 + fy * p->dil_h) * p->in_w) * C + c0;
                        for (fx = xlo; fx < xhi; fx++)
                            RT_A64_DW_TAP(row + (int64_t)(x0 + fx * p->dil_w) * C, w[fy * p->filter_w + fx]);
                    }
                }
                acc0 = vminq_s32(vmaxq_s32(vaddq_s32(rt_a64_rq_double(acc0, m0, s0), oo), lo), hi);
                acc1 = vminq_s32(vmaxq_s32(vaddq_s32(rt_a64_rq_double(acc1, m1, s1), oo), lo), hi);
                vst1_s8(out + (((int64_t)b * p->out_h + oy) * p->out_w + ox) * C + c0,
                        vqmovn_s16(vcombine_s16(vqmovn_s32(acc0), vqmovn_s32(acc1))));
            }
        }
    }
}
#undef RT_A64_DW_TAP
#undef RT_A64_DW_ONE
#undef RT_A64_DW_PAIR
#endif

#endif
