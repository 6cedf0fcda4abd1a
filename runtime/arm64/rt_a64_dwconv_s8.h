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

/* Requantizes the two sums (acc0, acc1) and stores the 8 bytes at dst (the offset and clamp
 * applied in int16 / int8: rt_a64_store8). */
#define RT_A64_DW_STORE(dst)                                                                                           \
    do {                                                                                                               \
        rt_a64_store8(rt_a64_rq_double(acc0, m0, s0), rt_a64_rq_double(acc1, m1, s1), oo, lo, hi, dst);                \
    } while (0)

/* A 3x3 filter's block of 16 channels (or 8: the last of a multiple of 8) for rt_a64_dw3_rows: its
 * int8 weights, the sums' start (bias + offset * the taps' weight sum), the requantization's
 * multipliers, left shifts (max(s, 0)) and right shifts (min(s, 0)), the output offset and the clamp
 * (8 channels: the low halves and the first two of each four). */
typedef struct rt_a64_dw3 {
    int8x16_t w[9], lo, hi;
    int32x4_t i[4], m[4], l[4], r[4];
    int16x8_t oo;
    int right; /* every shift below 0: rt_a64_rq_right */
} rt_a64_dw3;

/* Where a block's outputs come from and go: in (the first image's first row, at the block's input
 * channel), out (at the block's first channel), the pad (16 bytes of the input's zero point), the
 * channel strides, the shape, the output rows [r0, r1) of all images, and the outputs [ox_in0,
 * ox_in1) of a row whose three columns of taps lie inside the image. */
typedef struct rt_a64_dw3_geo {
    const int8_t *in, *pad;
    int8_t *out;
    int64_t cin, c;
    int32_t in_h, in_w, out_h, out_w, sh, sw, ph, pw, r0, r1, ox_in0, ox_in1;
} rt_a64_dw3_geo;

/* A block's inputs at ptr: 16 or 8 bytes (H 2 or 1), or (BCAST: one input channel) one byte repeated. */
#define RT_A64_DW3_LD16(ptr) (BCAST ? vld1q_dup_s8(ptr) : vld1q_s8(ptr))
#define RT_A64_DW3_LD8(ptr) (BCAST ? vld1_dup_s8(ptr) : vld1_s8(ptr))
/* The int16 products (low and high eight channels) added to the int32 sums a0..a3. */
#define RT_A64_DW3_ADD(pl, ph)                                                                                         \
    do {                                                                                                               \
        a0 = vaddw_s16(a0, vget_low_s16(pl));                                                                          \
        a1 = vaddw_high_s16(a1, pl);                                                                                   \
        if (H == 2) a2 = vaddw_s16(a2, vget_low_s16(ph)), a3 = vaddw_high_s16(a3, ph);                                 \
    } while (0)
/* The int16 products of 16 channels, x * w (low and high eight), and with a second tap's added: SMULL,
 * SMULL2 (and SMLAL, SMLAL2) on the weights' whole registers (written with intrinsics, GCC copied the
 * weights' low halves into registers of their own and spilled). */
#define RT_A64_DW3_MUL(pl, ph, x, w)                                                                                   \
    __asm__("smull %0.8h, %2.8b, %3.8b\n\tsmull2 %1.8h, %2.16b, %3.16b" : "=&w"(pl), "=w"(ph) : "w"(x), "w"(w))
#define RT_A64_DW3_MUL2(pl, ph, x, wx, y, wy)                                                                          \
    __asm__("smull %0.8h, %2.8b, %3.8b\n\tsmull2 %1.8h, %2.16b, %3.16b\n\tsmlal %0.8h, %4.8b, %5.8b\n\t"          \
            "smlal2 %1.8h, %4.16b, %5.16b"                                                                             \
            : "=&w"(pl), "=&w"(ph)                                                                                     \
            : "w"(x), "w"(wx), "w"(y), "w"(wy))
/* One tap without the offset (folded into the start): in * w, exact in int16. */
#define RT_A64_DW3_ONE(pa, wa)                                                                                         \
    do {                                                                                                               \
        int16x8_t pl_, ph_ = vdupq_n_s16(0);                                                                           \
        if (H == 2) {                                                                                                  \
            const int8x16_t x_ = RT_A64_DW3_LD16(pa);                                                                  \
            RT_A64_DW3_MUL(pl_, ph_, x_, wa);                                                                          \
        } else {                                                                                                       \
            pl_ = vmull_s8(RT_A64_DW3_LD8(pa), vget_low_s8(wa));                                                       \
        }                                                                                                              \
        RT_A64_DW3_ADD(pl_, ph_);                                                                                      \
    } while (0)
/* Two taps: their products added in int16 first (no weight -128: |sum| <= 2 * 128 * 127). */
#define RT_A64_DW3_PAIR(pa, wa, pb, wb)                                                                                \
    do {                                                                                                               \
        int16x8_t pl_, ph_ = vdupq_n_s16(0);                                                                           \
        if (H == 2) {                                                                                                  \
            const int8x16_t x_ = RT_A64_DW3_LD16(pa), y_ = RT_A64_DW3_LD16(pb);                                        \
            RT_A64_DW3_MUL2(pl_, ph_, x_, wa, y_, wb);                                                                 \
        } else {                                                                                                       \
            pl_ = vmlal_s8(vmull_s8(RT_A64_DW3_LD8(pa), vget_low_s8(wa)), RT_A64_DW3_LD8(pb), vget_low_s8(wb));        \
        }                                                                                                              \
        RT_A64_DW3_ADD(pl_, ph_);                                                                                      \
    } while (0)
/* One output pixel from its nine tap addresses, requantized and stored at dst. */
#define RT_A64_DW3_PX(t0, t1, t2, t3, t4, t5, t6, t7, t8, dst)                                                         \
    do {                                                                                                               \
        int32x4_t a0 = i0, a1 = i1, a2 = i2, a3 = i3;                                                                  \
        if (PAIRS) {                                                                                                   \
            RT_A64_DW3_PAIR(t0, w0, t1, w1);                                                                           \
            RT_A64_DW3_PAIR(t2, w2, t3, w3);                                                                           \
            RT_A64_DW3_PAIR(t4, w4, t5, w5);                                                                           \
            RT_A64_DW3_PAIR(t6, w6, t7, w7);                                                                           \
        } else {                                                                                                       \
            RT_A64_DW3_ONE(t0, w0);                                                                                    \
            RT_A64_DW3_ONE(t1, w1);                                                                                    \
            RT_A64_DW3_ONE(t2, w2);                                                                                    \
            RT_A64_DW3_ONE(t3, w3);                                                                                    \
            RT_A64_DW3_ONE(t4, w4);                                                                                    \
            RT_A64_DW3_ONE(t5, w5);                                                                                    \
            RT_A64_DW3_ONE(t6, w6);                                                                                    \
            RT_A64_DW3_ONE(t7, w7);                                                                                    \
        }                                                                                                              \
        RT_A64_DW3_ONE(t8, w8);                                                                                        \
        if (RIGHT) { /* every shift below 0 */                                                                         \
            a0 = rt_a64_rq_right(a0, m0, r0);                                                                          \
            a1 = rt_a64_rq_right(a1, m1, r1);                                                                          \
            if (H == 2) a2 = rt_a64_rq_right(a2, m2, r2), a3 = rt_a64_rq_right(a3, m3, r3);                            \
        } else { /* rt_a64_rq_double with its shifts split once per block */                                           \
            a0 = rt_a64_dw3_rq(a0, k->m[0], k->l[0], k->r[0]);                                                         \
            a1 = rt_a64_dw3_rq(a1, k->m[1], k->l[1], k->r[1]);                                                         \
            if (H == 2) a2 = rt_a64_dw3_rq(a2, k->m[2], k->l[2], k->r[2]), a3 = rt_a64_dw3_rq(a3, k->m[3], k->l[3], k->r[3]); \
        }                                                                                                              \
        if (H == 2) {                                                                                                  \
            const int16x8_t h0_ = vqaddq_s16(vqmovn_high_s32(vqmovn_s32(a0), a1), oo);                                 \
            const int16x8_t h1_ = vqaddq_s16(vqmovn_high_s32(vqmovn_s32(a2), a3), oo);                                 \
            vst1q_s8(dst, vminq_s8(vmaxq_s8(vqmovn_high_s16(vqmovn_s16(h0_), h1_), lo), hi));                          \
        } else {                                                                                                       \
            rt_a64_store8(a0, a1, oo, vget_low_s8(lo), vget_low_s8(hi), dst);                                          \
        }                                                                                                              \
    } while (0)

/* rt_a64_rq_double with its left (l = max(s, 0)) and right (r = min(s, 0)) shifts given. */
static inline int32x4_t rt_a64_dw3_rq(int32x4_t x, int32x4_t m, int32x4_t l, int32x4_t r) {
    x = vqrdmulhq_s32(vqshlq_s32(x, l), m);
    return vrshlq_s32(vqaddq_s32(x, vshrq_n_s32(vandq_s32(x, r), 31)), r);
}

/* A block's output rows: H 2 (16 channels) or 1 (8); BCAST: one input channel (its byte repeated);
 * PAIRS: no weight -128 (two taps' products added in int16); RIGHT: every shift below 0. Everything
 * stays in registers across the rows (a function of its own). A row's three input rows are the image's
 * or the pad (the input's zero point: in + offset = 0, no term, as the reference skips the tap; its
 * column offsets and step 0); the interior outputs run one loop with the pointers stepped, an edge
 * output points its taps outside the image at the pad too. */
static inline __attribute__((always_inline)) void rt_a64_dw3_rows_k(const int H, const int BCAST, const int PAIRS,
                                                                    const int RIGHT, const rt_a64_dw3 *k,
                                                                    const rt_a64_dw3_geo *g) {
    const int8x16_t w0 = k->w[0], w1 = k->w[1], w2 = k->w[2], w3 = k->w[3], w4 = k->w[4], w5 = k->w[5];
    const int8x16_t w6 = k->w[6], w7 = k->w[7], w8 = k->w[8], lo = k->lo, hi = k->hi;
    const int32x4_t i0 = k->i[0], i1 = k->i[1], i2 = k->i[2], i3 = k->i[3];
    const int32x4_t m0 = k->m[0], m1 = k->m[1], m2 = k->m[2], m3 = k->m[3];
    const int32x4_t r0 = k->r[0], r1 = k->r[1], r2 = k->r[2], r3 = k->r[3];
    const int16x8_t oo = k->oo;
    const int8_t *const in = g->in, *const pad = g->pad;
    int8_t *const out = g->out;
    const int64_t cin = g->cin, c = g->c, step = (int64_t)g->sw * cin;
    const int32_t in_h = g->in_h, in_w = g->in_w, out_h = g->out_h, out_w = g->out_w, sh = g->sh, sw = g->sw;
    const int32_t ph = g->ph, pw = g->pw, ox_in0 = g->ox_in0, ox_in1 = g->ox_in1;
    int32_t r;
    for (r = g->r0; r < g->r1; r++) {
        const int32_t b = r / out_h, oy = r % out_h, y0 = oy * sh - ph;
        int8_t *o = out + ((int64_t)b * out_h + oy) * out_w * c;
        const int8_t *rb[3]; /* the rows at column 0, or the pad */
        int64_t rs[3];       /* 1, or 0 for the pad (an edge output's column offsets times it) */
        int ok[3], fy;
        int32_t ox;
        for (fy = 0; fy < 3; fy++) {
            ok[fy] = y0 + fy >= 0 && y0 + fy < in_h;
            rb[fy] = ok[fy] ? in + ((int64_t)b * in_h + y0 + fy) * in_w * cin : pad;
            rs[fy] = ok[fy];
        }
        for (ox = 0; ox < out_w;) {
            const int32_t x0 = ox * sw - pw;
            if (ox >= ox_in0 && ox < ox_in1) { /* the interior run */
                const int8_t *q0 = ok[0] ? rb[0] + x0 * cin : pad, *q1 = ok[1] ? rb[1] + x0 * cin : pad;
                const int8_t *q2 = ok[2] ? rb[2] + x0 * cin : pad;
                const int64_t d0 = ok[0] ? cin : 0, d1 = ok[1] ? cin : 0, d2 = ok[2] ? cin : 0;
                const int64_t st0 = ok[0] ? step : 0, st1 = ok[1] ? step : 0, st2 = ok[2] ? step : 0;
                int8_t *const o_end = o + (int64_t)(ox_in1 - ox) * c;
                for (; o != o_end; q0 += st0, q1 += st1, q2 += st2, o += c)
                    RT_A64_DW3_PX(q0, q0 + d0, q0 + 2 * d0, q1, q1 + d1, q1 + 2 * d1, q2, q2 + d2, q2 + 2 * d2, o);
                ox = ox_in1;
            } else { /* an edge output: its taps outside the image read the pad */
                /* column x0 + fx's offset in a row (0 in the pad's rows), or -1 outside the image */
                const int64_t e0 = x0 >= 0 && x0 < in_w ? x0 * cin : -1;
                const int64_t e1 = x0 + 1 >= 0 && x0 + 1 < in_w ? (x0 + 1) * cin : -1;
                const int64_t e2 = x0 + 2 >= 0 && x0 + 2 < in_w ? (x0 + 2) * cin : -1;
#define RT_A64_DW3_T(fy, e) ((e) >= 0 ? rb[fy] + (e) * rs[fy] : pad)
                RT_A64_DW3_PX(RT_A64_DW3_T(0, e0), RT_A64_DW3_T(0, e1), RT_A64_DW3_T(0, e2), RT_A64_DW3_T(1, e0),
                              RT_A64_DW3_T(1, e1), RT_A64_DW3_T(1, e2), RT_A64_DW3_T(2, e0), RT_A64_DW3_T(2, e1),
                              RT_A64_DW3_T(2, e2), o);
#undef RT_A64_DW3_T
                ox++, o += c;
            }
        }
    }
}

static __attribute__((noinline)) void rt_a64_dw3_rows(int h, int bcast, int pairs, const rt_a64_dw3 *k,
                                                      const rt_a64_dw3_geo *g) {
#define RT_A64_DW3_R(H, B, P)                                                                                          \
    do {                                                                                                               \
        if (k->right) rt_a64_dw3_rows_k(H, B, P, 1, k, g);                                                             \
        else rt_a64_dw3_rows_k(H, B, P, 0, k, g);                                                                      \
    } while (0)
#define RT_A64_DW3_P(H, B)                                                                                             \
    do {                                                                                                               \
        if (pairs) RT_A64_DW3_R(H, B, 1);                                                                              \
        else RT_A64_DW3_R(H, B, 0);                                                                                    \
    } while (0)
    if (h == 2) {
        if (bcast) RT_A64_DW3_P(2, 1);
        else RT_A64_DW3_P(2, 0);
    } else {
        if (bcast) RT_A64_DW3_P(1, 1);
        else RT_A64_DW3_P(1, 0);
    }
#undef RT_A64_DW3_P
#undef RT_A64_DW3_R
}

/* A 3x3 filter (unit dilation): blocks of 16 channels, the last of a multiple of 8 with 8, each
 * block's rows in one rt_a64_dw3_rows call. */
static void rt_a64_dw3_s8(const struct rt_dwconv_params *p, const int8_t *in, const int8_t *filter,
                          const int32_t *bias, int8_t *out, int32_t r0, int32_t r1, const int bcast) {
    const int32_t Cin = p->in_c, C = Cin * p->depth_mult, pw = p->pad_w, sw = p->stride_w, in_w = p->in_w;
    const int32_t ox_end = in_w - 3 + pw >= 0 ? (in_w - 3 + pw) / sw + 1 : 0;
    int8_t pad[16]; /* the input's zero point: in + offset = 0 */
    rt_a64_dw3_geo g;
    rt_a64_dw3 k;
    int32_t c0, t;
    memset(pad, (int8_t)-p->in_offset, sizeof pad);
    g.pad = pad, g.cin = Cin, g.c = C, g.in_h = p->in_h, g.in_w = in_w, g.out_h = p->out_h, g.out_w = p->out_w;
    g.sh = p->stride_h, g.sw = sw, g.ph = p->pad_h, g.pw = pw, g.r0 = r0, g.r1 = r1;
    g.ox_in0 = (pw + sw - 1) / sw, g.ox_in1 = ox_end < p->out_w ? ox_end : p->out_w;
    k.oo = vdupq_n_s16((int16_t)p->out_offset);
    k.lo = vdupq_n_s8((int8_t)p->act_qmin), k.hi = vdupq_n_s8((int8_t)p->act_qmax);
    for (c0 = 0; c0 < C; c0 += 16) {
        const int h = C - c0 >= 16 ? 2 : 1, n = 2 * h; /* 16 or 8 channels: 4 or 2 vectors of four */
        const int32x4_t zero = vdupq_n_s32(0), off = vdupq_n_s32(p->in_offset);
        int16x8_t sl = vdupq_n_s16(0), sh = vdupq_n_s16(0); /* the taps' weight sums, |sum| <= 9 * 128 */
        int8x16_t low = vdupq_n_s8(0);
        int32x4_t smax = vdupq_n_s32(INT32_MIN);
        int j;
        for (t = 0; t < 9; t++) {
            const int8_t *wp = filter + (int64_t)t * C + c0;
            k.w[t] = h == 2 ? vld1q_s8(wp) : vcombine_s8(vld1_s8(wp), vdup_n_s8(0));
            sl = vaddq_s16(sl, vmovl_s8(vget_low_s8(k.w[t]))), sh = vaddq_s16(sh, vmovl_high_s8(k.w[t]));
            low = vminq_s8(low, k.w[t]);
        }
        for (j = 0; j < n; j++) {
            const int16x8_t s = j < 2 ? sl : sh;
            const int32x4_t b = bias ? vld1q_s32(bias + c0 + 4 * j) : zero, sv = vld1q_s32(p->shift + c0 + 4 * j);
            k.i[j] = vmlaq_s32(b, j % 2 ? vmovl_high_s16(s) : vmovl_s16(vget_low_s16(s)), off);
            k.m[j] = vld1q_s32(p->mult + c0 + 4 * j);
            k.l[j] = vmaxq_s32(sv, zero), k.r[j] = vminq_s32(sv, zero);
            smax = vmaxq_s32(smax, sv);
        }
        for (; j < 4; j++) k.i[j] = k.m[j] = k.l[j] = k.r[j] = zero;
        k.right = vmaxvq_s32(smax) < 0;
        g.in = in + (bcast ? 0 : c0), g.out = out + c0;
        rt_a64_dw3_rows(h, bcast, vminvq_s8(low) > -128, &k, &g);
    }
}

/* Output rows [r0, r1) (of all images) of the depthwise convolution, tap by tap (the filters other
 * than 3x3 with unit dilation): 8 channels at a time. */
static inline __attribute__((always_inline)) void rt_a64_dw_s8_body(const struct rt_dwconv_params *p,
                                                                    const int8_t *in, const int8_t *filter,
                                                                    const int32_t *bias, int8_t *out, int32_t r0,
                                                                    int32_t r1, const int bcast) {
    /* Cin: the input's channels (1 with bcast), C: the output's */
    const int32_t Cin = p->in_c, C = Cin * p->depth_mult, taps = p->filter_h * p->filter_w;
    const int16x8_t off = vdupq_n_s16((int16_t)p->in_offset);
    const int16x8_t oo = vdupq_n_s16((int16_t)p->out_offset);
    const int8x8_t lo = vdup_n_s8((int8_t)p->act_qmin), hi = vdup_n_s8((int8_t)p->act_qmax);
    /* p's fields in locals: the int8 stores may alias them, which would reload them after each pixel */
    const int32_t in_h = p->in_h, in_w = p->in_w, out_h = p->out_h, out_w = p->out_w;
    const int32_t sh = p->stride_h, sw = p->stride_w, pw = p->pad_w;
    int16x8_t w[25];
    int32_t c0, r, ox, fy, fx, t;
    for (c0 = 0; c0 < C; c0 += 8) {
        const int32x4_t b0 = bias ? vld1q_s32(bias + c0) : vdupq_n_s32(0);
        const int32x4_t b1 = bias ? vld1q_s32(bias + c0 + 4) : vdupq_n_s32(0);
        const int32x4_t m0 = vld1q_s32(p->mult + c0), m1 = vld1q_s32(p->mult + c0 + 4);
        const int32x4_t s0 = vld1q_s32(p->shift + c0), s1 = vld1q_s32(p->shift + c0 + 4);
        const int32_t ci = bcast ? 0 : c0; /* the input channel of the block's first */
        for (t = 0; t < taps; t++) w[t] = vmovl_s8(vld1_s8(filter + (int64_t)t * C + c0));
        for (r = r0; r < r1; r++) {
            const int32_t b = r / out_h, oy = r % out_h, y0 = oy * sh - p->pad_h;
            int8_t *orow = out + ((int64_t)b * out_h + oy) * out_w * C + c0;
            int32_t ylo, yhi;
            taps_range(y0, p->dil_h, p->filter_h, in_h, &ylo, &yhi);
            for (ox = 0; ox < out_w; ox++) {
                const int32_t x0 = ox * sw - pw;
                int32x4_t acc0 = b0, acc1 = b1;
                int32_t xlo, xhi;
                taps_range(x0, p->dil_w, p->filter_w, in_w, &xlo, &xhi);
                for (fy = ylo; fy < yhi; fy++) {
                    const int8_t *row = in + (((int64_t)b * in_h + y0 + fy * p->dil_h) * in_w) * Cin + ci;
                    for (fx = xlo; fx < xhi; fx++)
                        RT_A64_DW_TAP(row + (int64_t)(x0 + fx * p->dil_w) * Cin, w[fy * p->filter_w + fx]);
                }
                RT_A64_DW_STORE(orow + (int64_t)ox * C);
            }
        }
    }
}
/* Output rows [r0, r1) (of all images) of the depthwise convolution. */
static void rt_a64_dw_s8(const struct rt_dwconv_params *p, const int8_t *in, const int8_t *filter,
                         const int32_t *bias, int8_t *out, int32_t r0, int32_t r1) {
    const int bcast = p->depth_mult != 1;
    if (p->filter_h == 3 && p->filter_w == 3 && p->dil_h == 1 && p->dil_w == 1)
        rt_a64_dw3_s8(p, in, filter, bias, out, r0, r1, bcast);
    else if (bcast) rt_a64_dw_s8_body(p, in, filter, bias, out, r0, r1, 1);
    else rt_a64_dw_s8_body(p, in, filter, bias, out, r0, r1, 0);
}
#undef RT_A64_DW_TAP
#undef RT_A64_DW3_LD16
#undef RT_A64_DW3_LD8
#undef RT_A64_DW3_ADD
#undef RT_A64_DW3_ONE
#undef RT_A64_DW3_PAIR
#undef RT_A64_DW3_PX
#undef RT_A64_DW3_MUL
#undef RT_A64_DW3_MUL2
#undef RT_A64_DW_STORE
#undef RT_A64_DW_LD
#endif

#endif
