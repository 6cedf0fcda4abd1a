/* rt_cm_dwconv_s8.c - int8 depthwise convolution on the Armv7E-M/Armv8-M DSP extension.
 *
 * Channels in lanes (NHWC keeps them contiguous, and the filter [1][fh][fw][C] too): for four
 * channels of one output pixel and one tap, SXTB16 and SXTB16 ROR 8 widen the input word to
 * channels (0,2) and (1,3) as 16-bit lanes, SADD16 adds the input offset to both lanes, the
 * filter word is widened the same way, and SMLABB / SMLATT multiply-accumulate each channel into
 * its own 32-bit sum. dw_group_dsp widens a group's filter once and folds the input offset into
 * the sums at interior pixels (8 instructions per 4 MACs there); dwconv_dsp (more than 128 taps)
 * widens per tap. Taps outside the image are skipped, as in the reference kernel; the
 * requantization is TFLite's, bit-exact (rt_cm.h). */
#include <string.h>

#include "rt_cm.h"
#include "rt_opt_internal.h"

#if defined(__ARM_FEATURE_DSP)
#include <arm_acle.h>

static inline uint32_t load4(const int8_t *p) {
    uint32_t w;
    memcpy(&w, p, 4);
    return w;
}

static inline int16x2_t sxtb16_ror8(uint32_t x) {
    int16x2_t r;
    __asm__("sxtb16 %0, %1, ror #8" : "=r"(r) : "r"(x));
    return r;
}

static inline int8_t requant1(const rt_dwconv_params *p, const int32_t *bias, int32_t ch, int32_t acc) {
    return rt_cm_requant(bias ? rt_wrap_add_i32(acc, bias[ch]) : acc, p->mult[ch], p->shift[ch], RT_OPT_ROUND_DOUBLE,
                         p->out_offset, p->act_qmin, p->act_qmax);
}

static inline void store4(const rt_dwconv_params *p, const int32_t *bias, int32_t ch, int32_t s0, int32_t s1,
                          int32_t s2, int32_t s3, int8_t *o) {
    o[0] = requant1(p, bias, ch, s0), o[1] = requant1(p, bias, ch + 1, s1);
    o[2] = requant1(p, bias, ch + 2, s2), o[3] = requant1(p, bias, ch + 3, s3);
}

/* Taps of a filter whose widened weights fit on the stack (2 x 4 B each). */
#define CM_DW_TAPS 128

/* Four output channels' input word at x: the four channels (depth multiplier 1) or, where the
 * multiplier is a multiple of 4, the one input channel they share in all four bytes. */
static inline uint32_t load_in(const int8_t *x, int32_t bcast) {
    return bcast ? (uint32_t)(uint8_t)x[0] * 0x01010101u : load4(x);
}

/* One interior tap of four channels: s[0..3] += x * w, the input offset already in s. */
static inline void tap(uint32_t xv, int16x2_t we, int16x2_t wo, int32_t *s) {
    int16x2_t xe = __sxtb16((int8x4_t)xv), xo = sxtb16_ror8(xv);
    s[0] = __smlabb(xe, we, s[0]), s[2] = __smlatt(xe, we, s[2]);
    s[1] = __smlabb(xo, wo, s[1]), s[3] = __smlatt(xo, wo, s[3]);
}

/* Depth multiplier 1 or a multiple of 4, at most CM_DW_TAPS taps: four output channels at a time
 * over the whole image, their taps' weights widened once (lanes (c0,c2) and (c1,c3), on the
 * stack). At an interior pixel the input offset is folded into the starting sums (bias +
 * in_offset * sum of the taps' weights: the same wrapping sums), so a tap is one load, two SXTB16
 * and four 16x16 multiply-accumulates (a 3x3 filter unrolled); a pixel at the edge adds the
 * offset per tap and skips the taps outside the image, as the reference. */
static void dw_group_dsp(const rt_dwconv_params *p, const int8_t *in, const int8_t *filter, const int32_t *bias,
                         int8_t *out) {
    const int32_t cin = p->in_c, mult = p->depth_mult, cout = cin * mult, c4 = cout / 4 * 4;
    const int32_t fh = p->filter_h, fw = p->filter_w, taps = fh * fw, bcast = mult > 1;
    const int32_t cs = p->dil_w * cin, rs = p->dil_h * p->in_w * cin;
    const int fast = rt_cm_requant_fast_ok(p->mult, p->shift, cout, RT_OPT_ROUND_DOUBLE);
    const int hi = rt_cm_requant_hi_ok(p->mult, p->shift, cout, RT_OPT_ROUND_DOUBLE);
    const int narrow = p->act_qmin > -128 || p->act_qmax < 127;
    const int32_t zo = p->out_offset, qmin = p->act_qmin, qmax = p->act_qmax;
    const int16x2_t off = (int16x2_t)(((uint32_t)(uint16_t)p->in_offset << 16) | (uint16_t)p->in_offset);
    for (int32_t ch = 0; ch < c4; ch += 4) {
        const int32_t ic = ch / mult;
        int16x2_t wv[2 * CM_DW_TAPS]; /* tap t: lanes (c0,c2) at 2t, (c1,c3) at 2t + 1 */
        int32_t adj[4], b4[4], mul[4], right[4], mask[4];
        rt_cm_rq rq[4];
        for (int32_t i = 0; i < 4; i++) {
            if (hi) rq[i] = rt_cm_requant_hi_channel(p->mult[ch + i], p->shift[ch + i]);
            b4[i] = bias ? bias[ch + i] : 0;
            mul[i] = p->mult[ch + i], right[i] = fast ? -p->shift[ch + i] : 0;
            mask[i] = (int32_t)((1u << right[i]) - 1u);
        }
        for (int32_t i = 0; i < 4; i++) adj[i] = b4[i];
        for (int32_t t = 0; t < taps; t++) {
            uint32_t wt = load4(filter + t * cout + ch);
            wv[2 * t] = __sxtb16((int8x4_t)wt), wv[2 * t + 1] = sxtb16_ror8(wt);
            for (int32_t i = 0; i < 4; i++)
                adj[i] = rt_wrap_add_i32(adj[i], p->in_offset * filter[t * cout + ch + i]);
        }
        for (int32_t b = 0; b < p->batches; b++)
            for (int32_t oy = 0; oy < p->out_h; oy++) {
                const int32_t y0 = oy * p->stride_h - p->pad_h;
                const int yin = y0 >= 0 && y0 + (fh - 1) * p->dil_h < p->in_h;
                const int8_t *xrow = yin ? in + (b * p->in_h + y0) * p->in_w * cin + ic : in;
                int8_t *o = out + ((b * p->out_h + oy) * p->out_w) * cout + ch;
                for (int32_t ox = 0; ox < p->out_w; ox++, o += cout) {
                    const int32_t x0 = ox * p->stride_w - p->pad_w;
                    int32_t s[4];
                    if (yin && x0 >= 0 && x0 + (fw - 1) * p->dil_w < p->in_w) {
                        const int8_t *x = xrow + x0 * cin;
                        s[0] = adj[0], s[1] = adj[1], s[2] = adj[2], s[3] = adj[3];
                        if (fh == 3 && fw == 3) {
                            tap(load_in(x, bcast), wv[0], wv[1], s), tap(load_in(x + cs, bcast), wv[2], wv[3], s);
                            tap(load_in(x + 2 * cs, bcast), wv[4], wv[5], s);
                            x += rs;
                            tap(load_in(x, bcast), wv[6], wv[7], s), tap(load_in(x + cs, bcast), wv[8], wv[9], s);
                            tap(load_in(x + 2 * cs, bcast), wv[10], wv[11], s);
                            x += rs;
                            tap(load_in(x, bcast), wv[12], wv[13], s), tap(load_in(x + cs, bcast), wv[14], wv[15], s);
                            tap(load_in(x + 2 * cs, bcast), wv[16], wv[17], s);
                        } else {
                            for (int32_t fy = 0, t = 0; fy < fh; fy++, x += rs)
                                for (int32_t fx = 0; fx < fw; fx++, t++) tap(load_in(x + fx * cs, bcast), wv[2 * t], wv[2 * t + 1], s);
                        }
                    } else {
                        int32_t fy0 = 0, fy1 = fh, fx0 = 0, fx1 = fw;
                        s[0] = b4[0], s[1] = b4[1], s[2] = b4[2], s[3] = b4[3];
                        while (fy0 < fy1 && y0 + p->dil_h * fy0 < 0) fy0++;
                        while (fy1 > fy0 && y0 + p->dil_h * (fy1 - 1) >= p->in_h) fy1--;
                        while (fx0 < fx1 && x0 + p->dil_w * fx0 < 0) fx0++;
                        while (fx1 > fx0 && x0 + p->dil_w * (fx1 - 1) >= p->in_w) fx1--;
                        for (int32_t fy = fy0; fy < fy1; fy++) {
                            const int8_t *x = in + ((b * p->in_h + y0 + p->dil_h * fy) * p->in_w + x0 + p->dil_w * fx0) * cin + ic;
                            for (int32_t fx = fx0, t = fy * fw + fx0; fx < fx1; fx++, t++, x += cs) {
                                uint32_t xv = load_in(x, bcast);
                                int16x2_t xe = __sadd16(__sxtb16((int8x4_t)xv), off);
                                int16x2_t xo = __sadd16(sxtb16_ror8(xv), off);
                                s[0] = __smlabb(xe, wv[2 * t], s[0]), s[2] = __smlatt(xe, wv[2 * t], s[2]);
                                s[1] = __smlabb(xo, wv[2 * t + 1], s[1]), s[3] = __smlatt(xo, wv[2 * t + 1], s[3]);
                            }
                        }
                    }
                    if (hi && !narrow) {
                        o[0] = rt_cm_requant_hi(s[0], rq[0], zo, qmin, qmax, 0);
                        o[1] = rt_cm_requant_hi(s[1], rq[1], zo, qmin, qmax, 0);
                        o[2] = rt_cm_requant_hi(s[2], rq[2], zo, qmin, qmax, 0);
                        o[3] = rt_cm_requant_hi(s[3], rq[3], zo, qmin, qmax, 0);
                    } else if (hi) {
                        o[0] = rt_cm_requant_hi(s[0], rq[0], zo, qmin, qmax, 1);
                        o[1] = rt_cm_requant_hi(s[1], rq[1], zo, qmin, qmax, 1);
                        o[2] = rt_cm_requant_hi(s[2], rq[2], zo, qmin, qmax, 1);
                        o[3] = rt_cm_requant_hi(s[3], rq[3], zo, qmin, qmax, 1);
                    } else if (fast) {
                        o[0] = rt_cm_requant_fast(s[0], mul[0], right[0], mask[0], zo, qmin, qmax);
                        o[1] = rt_cm_requant_fast(s[1], mul[1], right[1], mask[1], zo, qmin, qmax);
                        o[2] = rt_cm_requant_fast(s[2], mul[2], right[2], mask[2], zo, qmin, qmax);
                        o[3] = rt_cm_requant_fast(s[3], mul[3], right[3], mask[3], zo, qmin, qmax);
                    } else {
                        o[0] = requant1(p, NULL, ch, s[0]), o[1] = requant1(p, NULL, ch + 1, s[1]);
                        o[2] = requant1(p, NULL, ch + 2, s[2]), o[3] = requant1(p, NULL, ch + 3, s[3]);
                    }
                }
            }
    }
    for (int32_t ch = c4; ch < cout; ch++) /* the last cout % 4 channels (multiplier 1), one at a time */
        for (int32_t b = 0; b < p->batches; b++)
            for (int32_t oy = 0; oy < p->out_h; oy++)
                for (int32_t ox = 0; ox < p->out_w; ox++) {
                    int32_t s0 = 0;
                    for (int32_t fy = 0; fy < fh; fy++)
                        for (int32_t fx = 0; fx < fw; fx++) {
                            const int32_t iy = oy * p->stride_h - p->pad_h + p->dil_h * fy;
                            const int32_t ix = ox * p->stride_w - p->pad_w + p->dil_w * fx;
                            if (iy < 0 || iy >= p->in_h || ix < 0 || ix >= p->in_w) continue;
                            s0 = rt_wrap_add_i32(s0, (int32_t)filter[(fy * fw + fx) * cout + ch] *
                                                         ((int32_t)in[((b * p->in_h + iy) * p->in_w + ix) * cin + ch] +
                                                          p->in_offset));
                        }
                    out[((b * p->out_h + oy) * p->out_w + ox) * cout + ch] = requant1(p, bias, ch, s0);
                }
}

#if defined(__thumb2__)
/* One row of three taps in assembly: x the first tap's input word (cs bytes to the next), the
 * widened weights at wp + OFF (lanes (c0,c2), (c1,c3) of each tap, 8 bytes a tap). A tap is a
 * word load, an LDRD of its weights, two SXTB16 and four SMLABB/SMLATT; BC (a depth
 * multiplier of 4 or more: one input byte for all four channels): LDRSB and PKHBT make the
 * byte both lanes. */
#define CM_DW_TAP(LOAD, XO, OFF)                                                                 \
    LOAD "ldrd %[we], %[wo], [%[wp], #" OFF "]\n\t"                                               \
         "smlabb %[s0], %[xe], %[we], %[s0]\n\t"                                                  \
         "smlatt %[s2], %[xe], %[we], %[s2]\n\t"                                                  \
         "smlabb %[s1], " XO ", %[wo], %[s1]\n\t"                                                 \
         "smlatt %[s3], " XO ", %[wo], %[s3]\n\t"
#define CM_DW_LD(ADDR) "ldr %[xo], " ADDR "\n\tsxtb16 %[xe], %[xo]\n\tsxtb16 %[xo], %[xo], ror #8\n\t"
#define CM_DW_LB(ADDR) "ldrsb %[xe], " ADDR "\n\tpkhbt %[xe], %[xe], %[xe], lsl #16\n\t"
#define CM_DW_ROW(L, XO, O0, O1, O2)                                                             \
    CM_DW_TAP(L("[%[x]]"), XO, O0) CM_DW_TAP(L("[%[x], %[cs]]"), XO, O1)                          \
    CM_DW_TAP(L("[%[x], %[cs], lsl #1]"), XO, O2)
#define CM_DW_OPS                                                                                \
    : [s0] "+r"(s0), [s1] "+r"(s1), [s2] "+r"(s2), [s3] "+r"(s3), [x] "+r"(x), [xe] "=&r"(xe), [xo] "=&r"(xo), \
      [we] "=&r"(we), [wo] "=&r"(wo)                                                              \
    : [cs] "r"(cs), [rs] "r"(rs), [wp] "r"(wp)                                                    \
    : "memory"

/* The nine taps of four channels onto s[0..3]; bcast: the byte-broadcast loads. */
static inline __attribute__((always_inline)) void taps3x3(const int8_t *x, int32_t cs, int32_t rs, const uint32_t *wp, int bcast, int32_t *s) {
    int32_t s0 = s[0], s1 = s[1], s2 = s[2], s3 = s[3];
    uint32_t xe, xo, we, wo;
    if (bcast)
        __asm__(CM_DW_ROW(CM_DW_LB, "%[xe]", "0", "8", "16") "add %[x], %[x], %[rs]\n\t"
                    CM_DW_ROW(CM_DW_LB, "%[xe]", "24", "32", "40") "add %[x], %[x], %[rs]\n\t"
                        CM_DW_ROW(CM_DW_LB, "%[xe]", "48", "56", "64") CM_DW_OPS);
    else
        __asm__(CM_DW_ROW(CM_DW_LD, "%[xo]", "0", "8", "16") "add %[x], %[x], %[rs]\n\t"
                    CM_DW_ROW(CM_DW_LD, "%[xo]", "24", "32", "40") "add %[x], %[x], %[rs]\n\t"
                        CM_DW_ROW(CM_DW_LD, "%[xo]", "48", "56", "64") CM_DW_OPS);
    s[0] = s0, s[1] = s1, s[2] = s2, s[3] = s3;
}

/* A 3x3 depthwise convolution (multiplier 1 or a multiple of 4) whose requantization
 * rt_cm_requant_hi2 takes and whose input zero point is an int8: dw_group_dsp's scheme with
 * the taps in assembly and one path for every pixel. At an edge the pixel's nine input words are
 * gathered first, the input zero point in every byte outside the image: such a tap adds
 * w * (zp + in_offset) = 0 to the folded sums, so the sums are the reference's (which skips it). */
static void dw3x3_hi2(const rt_dwconv_params *p, const int8_t *in, const int8_t *filter, const int32_t *bias,
                      int8_t *out) {
    const int32_t cin = p->in_c, mult = p->depth_mult, cout = cin * mult, bcast = mult > 1;
    const int32_t cs = p->dil_w * cin, rs = p->dil_h * p->in_w * cin;
    const int narrow = p->act_qmin > -128 || p->act_qmax < 127;
    const uint32_t lo4 = (uint32_t)(uint8_t)p->act_qmin * 0x01010101u, hi4 = (uint32_t)(uint8_t)p->act_qmax * 0x01010101u;
    const uint32_t pad = (uint32_t)(uint8_t)(-p->in_offset) * 0x01010101u;
    const int r1 = rt_cm_requant_hi2_ok(p->mult, p->shift, cout, RT_OPT_ROUND_DOUBLE) == 2;
    const int32_t in_row = p->in_w * cin;
    for (int32_t ch = 0; ch + 4 <= cout; ch += 4) {
        const int32_t ic = ch / mult;
        uint32_t wv[18], patch[9];
        int32_t adj[4], m[4], h[4], e[4];
        uint32_t l[4];
        for (int32_t i = 0; i < 4; i++) {
            const rt_cm_rq2 c = rt_cm_requant_hi2_channel(p->mult[ch + i], p->shift[ch + i], p->out_offset);
            m[i] = c.mult, h[i] = c.hadd, e[i] = c.sh1, l[i] = rt_cm_requant_hi2_rlo(p->shift[ch + i]);
            adj[i] = bias ? bias[ch + i] : 0;
        }
        for (int32_t t = 0; t < 9; t++) {
            uint32_t wt = load4(filter + t * cout + ch);
            wv[2 * t] = (uint32_t)__sxtb16((int8x4_t)wt), wv[2 * t + 1] = (uint32_t)sxtb16_ror8(wt);
            for (int32_t i = 0; i < 4; i++)
                adj[i] = rt_wrap_add_i32(adj[i], p->in_offset * filter[t * cout + ch + i]);
        }
        for (int32_t b = 0; b < p->batches; b++)
            for (int32_t oy = 0; oy < p->out_h; oy++) {
                const int32_t y0 = oy * p->stride_h - p->pad_h;
                const int yin = y0 >= 0 && y0 + 2 * p->dil_h < p->in_h;
                int8_t *o = out + ((b * p->out_h + oy) * p->out_w) * cout + ch;
                for (int32_t ox = 0; ox < p->out_w; ox++, o += cout) {
                    const int32_t x0 = ox * p->stride_w - p->pad_w;
                    int32_t s[4] = {adj[0], adj[1], adj[2], adj[3]};
                    if (yin && x0 >= 0 && x0 + 2 * p->dil_w < p->in_w) {
                        const int8_t *x = in + ((b * p->in_h + y0) * p->in_w + x0) * cin + ic;
                        if (bcast)
                            taps3x3(x, cs, rs, wv, 1, s);
                        else
                            taps3x3(x, cs, rs, wv, 0, s);
                    } else { /* the nine words, row by row, the padding outside the image */
                        const int8_t *img = in + b * p->in_h * in_row + ic;
                        const int32_t x1 = x0 + p->dil_w, x2 = x1 + p->dil_w;
                        const int c0 = x0 >= 0 && x0 < p->in_w, c1 = x1 >= 0 && x1 < p->in_w, c2 = x2 >= 0 && x2 < p->in_w;
                        for (int32_t fy = 0, iy = y0; fy < 3; fy++, iy += p->dil_h) {
                            uint32_t *d = patch + 3 * fy;
                            if (iy < 0 || iy >= p->in_h) {
                                d[0] = d[1] = d[2] = pad;
                                continue;
                            }
                            const int8_t *r = img + iy * in_row;
                            d[0] = c0 ? load_in(r + x0 * cin, bcast) : pad;
                            d[1] = c1 ? load_in(r + x1 * cin, bcast) : pad;
                            d[2] = c2 ? load_in(r + x2 * cin, bcast) : pad;
                        }
                        taps3x3((const int8_t *)patch, 4, 12, wv, 0, s);
                    }
                    uint32_t v;
                    if (r1)
                        v = rt_cm_pack4(rt_cm_requant_hi2g(s[0], m[0], h[0], e[0], l[0]),
                                        rt_cm_requant_hi2g(s[1], m[1], h[1], e[1], l[1]),
                                        rt_cm_requant_hi2g(s[2], m[2], h[2], e[2], l[2]),
                                        rt_cm_requant_hi2g(s[3], m[3], h[3], e[3], l[3]), lo4, hi4, narrow);
                    else
                        v = rt_cm_pack4(rt_cm_requant_hi2(s[0], m[0], h[0], e[0]), rt_cm_requant_hi2(s[1], m[1], h[1], e[1]),
                                        rt_cm_requant_hi2(s[2], m[2], h[2], e[2]), rt_cm_requant_hi2(s[3], m[3], h[3], e[3]),
                                        lo4, hi4, narrow);
                    memcpy(o, &v, 4); /* one STR: unaligned stores are allowed */
                }
            }
    }
}
#endif

static void dwconv_dsp(const rt_dwconv_params *p, const int8_t *in, const int8_t *filter, const int32_t *bias,
                       int8_t *out) {
    const int32_t c = p->in_c, c4 = c / 4 * 4;
    const int16x2_t off = (int16x2_t)(((uint32_t)(uint16_t)p->in_offset << 16) | (uint16_t)p->in_offset);
    for (int32_t b = 0; b < p->batches; b++)
        for (int32_t oy = 0; oy < p->out_h; oy++)
            for (int32_t ox = 0; ox < p->out_w; ox++) {
                const int32_t y0 = oy * p->stride_h - p->pad_h, x0 = ox * p->stride_w - p->pad_w;
                /* 32-bit index arithmetic: 64-bit multiplies are library calls' worth of work here */
                int8_t *o = out + ((b * p->out_h + oy) * p->out_w + ox) * c;
                int32_t fy0 = 0, fy1 = p->filter_h, fx0 = 0, fx1 = p->filter_w;
                while (fy0 < fy1 && y0 + p->dil_h * fy0 < 0) fy0++;
                while (fy1 > fy0 && y0 + p->dil_h * (fy1 - 1) >= p->in_h) fy1--;
                while (fx0 < fx1 && x0 + p->dil_w * fx0 < 0) fx0++;
                while (fx1 > fx0 && x0 + p->dil_w * (fx1 - 1) >= p->in_w) fx1--;
                const int32_t xstep = p->dil_w * c;
                for (int32_t ch = 0; ch < c4; ch += 4) { /* four channels, the sums in registers */
                    int32_t s0 = 0, s1 = 0, s2 = 0, s3 = 0;
                    for (int32_t fy = fy0; fy < fy1; fy++) {
                        const int8_t *x = in + ((b * p->in_h + y0 + p->dil_h * fy) * p->in_w + x0 + p->dil_w * fx0) * c + ch;
                        const int8_t *w = filter + (fy * p->filter_w + fx0) * c + ch;
                        for (int32_t fx = fx0; fx < fx1; fx++, x += xstep, w += c) {
                            uint32_t xv = load4(x), wv = load4(w);
                            int16x2_t xe = __sadd16(__sxtb16((int8x4_t)xv), off);
                            int16x2_t xo = __sadd16(sxtb16_ror8(xv), off);
                            int16x2_t we = __sxtb16((int8x4_t)wv), wo = sxtb16_ror8(wv);
                            s0 = __smlabb(xe, we, s0), s2 = __smlatt(xe, we, s2);
                            s1 = __smlabb(xo, wo, s1), s3 = __smlatt(xo, wo, s3);
                        }
                    }
                    store4(p, bias, ch, s0, s1, s2, s3, o + ch);
                }
                for (int32_t ch = c4; ch < c; ch++) { /* the last c % 4 channels, one at a time */
                    int32_t s0 = 0;
                    for (int32_t fy = fy0; fy < fy1; fy++)
                        for (int32_t fx = fx0; fx < fx1; fx++)
                            s0 = rt_wrap_add_i32(s0, (int32_t)filter[(fy * p->filter_w + fx) * c + ch] *
                                                         ((int32_t)in[((b * p->in_h + y0 + p->dil_h * fy) * p->in_w + x0 +
                                                                       p->dil_w * fx) * c + ch] + p->in_offset));
                    o[ch] = requant1(p, bias, ch, s0);
                }
            }
}
#endif

void rt_cm_dwconv_s8(const rt_dwconv_params *p, const int8_t *in, const int8_t *filter, const int32_t *bias,
                     int8_t *out, void *scratch, const mpcc_parallel *par) {
#if defined(__ARM_FEATURE_DSP)
#if defined(__thumb2__)
    if (rt_cm_dw3x3_ok(p)) {
        dw3x3_hi2(p, in, filter, bias, out);
        return;
    }
#endif
    if ((p->depth_mult == 1 || p->depth_mult % 4 == 0) && p->filter_h * p->filter_w <= CM_DW_TAPS) {
        dw_group_dsp(p, in, filter, bias, out);
        return;
    }
    if (p->depth_mult == 1) {
        dwconv_dsp(p, in, filter, bias, out);
        return;
    }
#endif
    rt_opt_dwconv_s8(p, in, filter, bias, out, scratch, par);
}

void rt_cm_dwconv_s8_3x3(const rt_dwconv_params *p, const int8_t *in, const int8_t *filter, const int32_t *bias,
                         int8_t *out) {
#if defined(__ARM_FEATURE_DSP) && defined(__thumb2__)
    dw3x3_hi2(p, in, filter, bias, out);
#else
    rt_cm_dwconv_s8(p, in, filter, bias, out, NULL, NULL);
#endif
}
