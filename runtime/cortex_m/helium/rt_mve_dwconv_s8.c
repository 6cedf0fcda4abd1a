/* rt_mve_dwconv_s8.c - int8 depthwise convolution (depth multiplier 1) on Helium (rt_mve.h). */
#include "rt_mve.h"

#if defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 1)
#include <arm_mve.h>

void rt_mve_dwconv_s8(const rt_dwconv_params *p, const int8_t *in, const int8_t *filter, const int32_t *bias,
                      int8_t *out) {
    const int32_t c = p->in_c, fw = p->filter_w, off = p->in_offset;
    const int32_t cs = p->dil_w * c, rs = p->dil_h * p->in_w * c, wrs = fw * c; /* tap steps: x, y, filter row */
    const int32x4_t zo = vdupq_n_s32(p->out_offset), lo = vdupq_n_s32(p->act_qmin), hi = vdupq_n_s32(p->act_qmax);
    int8_t *o = out;
    for (int32_t b = 0; b < p->batches; b++)
        for (int32_t oy = 0; oy < p->out_h; oy++) {
            const int32_t y0 = oy * p->stride_h - p->pad_h;
            /* the filter rows inside the image: y0 + dil_h * fy in [0, in_h) */
            int32_t fy0 = 0, fy1 = p->filter_h;
            while (fy0 < fy1 && y0 + p->dil_h * fy0 < 0) fy0++;
            while (fy1 > fy0 && y0 + p->dil_h * (fy1 - 1) >= p->in_h) fy1--;
            const int8_t *row = in + ((b * p->in_h + y0 + p->dil_h * fy0) * p->in_w) * c;
            for (int32_t ox = 0; ox < p->out_w; ox++, o += c) {
                const int32_t x0 = ox * p->stride_w - p->pad_w;
                int32_t fx0 = 0, fx1 = fw;
                while (fx0 < fx1 && x0 + p->dil_w * fx0 < 0) fx0++;
                while (fx1 > fx0 && x0 + p->dil_w * (fx1 - 1) >= p->in_w) fx1--;
                /* the first in-image tap of the pixel, of its filter; rows and columns of taps */
                const int8_t *x00 = row + (x0 + p->dil_w * fx0) * c, *w00 = filter + (fy0 * fw + fx0) * c;
                const int32_t ny = fy1 - fy0, nx = fx1 - fx0;
                for (int32_t ch = 0; ch < c; ch += 4) {
                    const mve_pred16_t pr = vctp32q((uint32_t)(c - ch));
                    int32x4_t acc = bias ? vldrwq_z_s32(bias + ch, pr) : vdupq_n_s32(0);
                    const int8_t *xr = x00 + ch, *wr = w00 + ch;
                    for (int32_t ty = 0; ty < ny; ty++, xr += rs, wr += wrs) {
                        const int8_t *xp = xr, *wp = wr;
                        for (int32_t tx = 0; tx < nx; tx++, xp += cs, wp += c) {
                            const int32x4_t x = vaddq_n_s32(vldrbq_z_s32(xp, pr), off);
                            acc = vaddq_s32(acc, vmulq_s32(x, vldrbq_z_s32(wp, pr)));
                        }
                    }
                    /* TFLite's requantization (rt_mve_conv_s8's): VQRDMULH, minus 1 where negative, VRSHL */
                    int32x4_t y = vqrdmulhq_s32(acc, vldrwq_z_s32(p->mult + ch, pr));
                    y = vrshlq_s32(vqaddq_s32(y, vshrq_n_s32(y, 31)), vldrwq_z_s32(p->shift + ch, pr));
                    y = vminq_s32(vmaxq_s32(vaddq_s32(y, zo), lo), hi);
                    vstrbq_p_s32(o + ch, y, pr);
                }
            }
        }
}
#else
/* Without Helium (a build for another core): the DSP or portable kernel. */
void rt_mve_dwconv_s8(const rt_dwconv_params *p, const int8_t *in, const int8_t *filter, const int32_t *bias,
                      int8_t *out) {
    rt_cm_dwconv_s8(p, in, filter, bias, out, NULL, NULL);
}
#endif
