/* rt_mve_dwconv_s8.c - int8 depthwise convolution (depth multiplier 1) on Helium (rt_mve.h). */
#include "rt_mve.h"

#if defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 1)
#include <arm_mve.h>

#define RT_MVE_INLINE static inline __attribute__((always_inline))
#define RT_MVE_DW_CHUNK 256 /* channels whose starting sums one pass keeps on the stack (1 KiB) */

/* np (1 or 4) output pixels of one row at o, o + c, ... (channel ch of each; their first in-image
 * taps at x, x + sx, ...; the same taps inside the image for each: ny rows of nx from filter tap w),
 * channels ch..ch + 3 (pr: those below c; tail: not all are). Each tap's weights load once for the
 * np pixels. full: every tap is inside the image, and the sums start at s0 = the bias plus
 * in_offset x the sum of all the taps' weights, so the offset costs nothing per tap; otherwise they
 * start at the bias and in_offset x the sum of the inside taps' weights joins them at the end (the
 * reference skips the taps outside). Then TFLite's requantization: VQRDMULH is its doubling high
 * multiply (round half up, saturating); its rounding divide rounds ties away from zero, so a
 * negative value first loses 1 (saturating), then VRSHL rounds half up; the output offset, the
 * clamp. */
RT_MVE_INLINE void dw_pixels(const rt_dwconv_params *p, const int8_t *x, int32_t sx, const int8_t *w, int32_t ny,
                             int32_t nx, int32x4_t s0, int8_t *o, int32_t ch, mve_pred16_t pr, int np, int tail,
                             int full) {
    const int32_t c = p->in_c, cs = p->dil_w * c, rs = p->dil_h * p->in_w * c, wrs = p->filter_w * c;
    int32x4_t a0 = s0, a1 = s0, a2 = s0, a3 = s0, ks = vdupq_n_s32(0);
    for (int32_t ty = 0; ty < ny; ty++, x += rs, w += wrs) {
        const int8_t *xp = x, *wp = w;
        for (int32_t tx = 0; tx < nx; tx++, xp += cs, wp += c) {
            const int32x4_t v = tail ? vldrbq_z_s32(wp, pr) : vldrbq_s32(wp);
            if (!full) ks = vaddq_s32(ks, v);
            a0 = vaddq_s32(a0, vmulq_s32(vldrbq_s32(xp), v));
            if (np == 4) {
                a1 = vaddq_s32(a1, vmulq_s32(vldrbq_s32(xp + sx), v));
                a2 = vaddq_s32(a2, vmulq_s32(vldrbq_s32(xp + 2 * sx), v));
                a3 = vaddq_s32(a3, vmulq_s32(vldrbq_s32(xp + 3 * sx), v));
            }
        }
    }
    if (!full) ks = vmulq_n_s32(ks, p->in_offset);
    const int32x4_t m = tail ? vldrwq_z_s32(p->mult + ch, pr) : vldrwq_s32(p->mult + ch);
    const int32x4_t sh = tail ? vldrwq_z_s32(p->shift + ch, pr) : vldrwq_s32(p->shift + ch);
    const int32x4_t lo = vdupq_n_s32(p->act_qmin), hi = vdupq_n_s32(p->act_qmax);
    /* the np pixels' requantization (TFLite's) and stores */
#define RT_MVE_DW_OUT(a, i)                                                                                    \
    do {                                                                                                       \
        int32x4_t y = full ? (a) : vaddq_s32(a, ks);                                                           \
        y = vqrdmulhq_s32(y, m);                                                                               \
        y = vrshlq_s32(vqaddq_s32(y, vshrq_n_s32(y, 31)), sh);                                                 \
        y = vminq_s32(vmaxq_s32(vaddq_n_s32(y, p->out_offset), lo), hi);                                       \
        if (tail) vstrbq_p_s32(o + (i) * c, y, pr);                                                            \
        else vstrbq_s32(o + (i) * c, y);                                                                       \
    } while (0)
    RT_MVE_DW_OUT(a0, 0);
    if (np == 4) {
        RT_MVE_DW_OUT(a1, 1);
        RT_MVE_DW_OUT(a2, 2);
        RT_MVE_DW_OUT(a3, 3);
    }
#undef RT_MVE_DW_OUT
}

/* Channels c0..c1 (c1 - c0 <= RT_MVE_DW_CHUNK) of every output pixel. */
static void dw_channels(const rt_dwconv_params *p, const int8_t *in, const int8_t *filter, const int32_t *bias,
                        int8_t *out, int32_t c0, int32_t c1) {
    const int32_t c = p->in_c, fw = p->filter_w, taps = p->filter_h * fw;
    const int32_t c4 = c0 + ((c1 - c0) & ~3);
    /* the sums of a pixel whose taps are all inside the image start at bias + in_offset x sum(w) */
    int32_t s0[RT_MVE_DW_CHUNK] __attribute__((aligned(8)));
    for (int32_t ch = c0; ch < c1; ch += 4) {
        const mve_pred16_t pr = vctp32q((uint32_t)(c1 - ch));
        int32x4_t ks = vdupq_n_s32(0);
        for (int32_t t = 0; t < taps; t++) ks = vaddq_s32(ks, vldrbq_z_s32(filter + t * c + ch, pr));
        const int32x4_t b = bias ? vldrwq_z_s32(bias + ch, pr) : vdupq_n_s32(0);
        vstrwq_p_s32(s0 + (ch - c0), vmlaq_n_s32(b, ks, p->in_offset), pr);
    }
    /* the output columns whose taps all lie inside the image: x0 = ox stride_w - pad_w >= 0 and
     * x0 + dil_w (fw - 1) < in_w */
    const int32_t xlo = (p->pad_w + p->stride_w - 1) / p->stride_w;
    const int32_t xspan = p->in_w - 1 - p->dil_w * (fw - 1) + p->pad_w;
    const int32_t xhi = xspan < 0 ? 0 : xspan / p->stride_w + 1 < p->out_w ? xspan / p->stride_w + 1 : p->out_w;
    const int32_t sx = p->stride_w * c;
    const mve_pred16_t pt = vctp32q((uint32_t)(c1 - c4));
    int8_t *o = out;
    for (int32_t b = 0; b < p->batches; b++)
        for (int32_t oy = 0; oy < p->out_h; oy++) {
            const int32_t y0 = oy * p->stride_h - p->pad_h;
            /* the filter rows inside the image: y0 + dil_h * fy in [0, in_h) */
            int32_t fy0 = 0, fy1 = p->filter_h;
            while (fy0 < fy1 && y0 + p->dil_h * fy0 < 0) fy0++;
            while (fy1 > fy0 && y0 + p->dil_h * (fy1 - 1) >= p->in_h) fy1--;
            const int8_t *row = in + ((b * p->in_h + y0 + p->dil_h * fy0) * p->in_w) * c;
            const int8_t *wrow = filter + fy0 * fw * c;
            const int32_t ny = fy1 - fy0;
            for (int32_t ox = 0; ox < p->out_w;) {
                const int32_t x0 = ox * p->stride_w - p->pad_w;
                if (ox >= xlo && ox + 4 <= xhi) { /* four pixels, every filter column inside the image */
                    const int8_t *x = row + x0 * c;
                    if (ny == p->filter_h) {
                        int32_t ch = c0;
                        for (; ch < c4; ch += 4)
                            dw_pixels(p, x + ch, sx, wrow + ch, ny, fw, vldrwq_s32(s0 + (ch - c0)), o + ch, ch, 0xFFFF,
                                      4, 0, 1);
                        if (ch < c1)
                            dw_pixels(p, x + ch, sx, wrow + ch, ny, fw, vldrwq_z_s32(s0 + (ch - c0), pt), o + ch, ch,
                                      pt, 4, 1, 1);
                    } else {
                        int32_t ch = c0;
                        for (; ch < c4; ch += 4)
                            dw_pixels(p, x + ch, sx, wrow + ch, ny, fw, bias ? vldrwq_s32(bias + ch) : vdupq_n_s32(0),
                                      o + ch, ch, 0xFFFF, 4, 0, 0);
                        if (ch < c1)
                            dw_pixels(p, x + ch, sx, wrow + ch, ny, fw,
                                      bias ? vldrwq_z_s32(bias + ch, pt) : vdupq_n_s32(0), o + ch, ch, pt, 4, 1, 0);
                    }
                    ox += 4, o += 4 * c;
                    continue;
                }
                int32_t fx0 = 0, fx1 = fw;
                while (fx0 < fx1 && x0 + p->dil_w * fx0 < 0) fx0++;
                while (fx1 > fx0 && x0 + p->dil_w * (fx1 - 1) >= p->in_w) fx1--;
                /* the first in-image tap of the pixel, of its filter */
                const int8_t *x = row + (x0 + p->dil_w * fx0) * c, *wx = wrow + fx0 * c;
                const int32_t nx = fx1 - fx0;
                int32_t ch = c0;
                for (; ch < c4; ch += 4)
                    dw_pixels(p, x + ch, sx, wx + ch, ny, nx, bias ? vldrwq_s32(bias + ch) : vdupq_n_s32(0), o + ch,
                              ch, 0xFFFF, 1, 0, 0);
                if (ch < c1)
                    dw_pixels(p, x + ch, sx, wx + ch, ny, nx, bias ? vldrwq_z_s32(bias + ch, pt) : vdupq_n_s32(0),
                              o + ch, ch, pt, 1, 1, 0);
                ox++, o += c;
            }
        }
}

void rt_mve_dwconv_s8(const rt_dwconv_params *p, const int8_t *in, const int8_t *filter, const int32_t *bias,
                      int8_t *out) {
    for (int32_t c0 = 0; c0 < p->in_c; c0 += RT_MVE_DW_CHUNK)
        dw_channels(p, in, filter, bias, out, c0, p->in_c - c0 < RT_MVE_DW_CHUNK ? p->in_c : c0 + RT_MVE_DW_CHUNK);
}
#else
/* Without Helium (a build for another core): the DSP or portable kernel. */
void rt_mve_dwconv_s8(const rt_dwconv_params *p, const int8_t *in, const int8_t *filter, const int32_t *bias,
                      int8_t *out) {
    rt_cm_dwconv_s8(p, in, filter, bias, out, NULL, NULL);
}
#endif
