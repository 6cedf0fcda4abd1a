/* rt_mve_conv_s8.c - the int8 1x1 convolution (a GEMM) on Helium (rt_mve.h). */
#include "rt_mve.h"

#include "../../rt_opt_internal.h"

#if defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 1)
#include <arm_mve.h>

/* s[0..3] += rows a0, a1 (k bytes) . channel rows w0, w1: (a0 w0, a0 w1, a1 w0, a1 w1). Whole
 * 16-byte steps unpredicated, the last k % 16 bytes with zeroing predicated loads (lanes past
 * K read as 0 and touch no memory). */
static inline void dot_2x2(const int8_t *a0, const int8_t *a1, const int8_t *w0, const int8_t *w1, int32_t k,
                           int32_t *s) {
    int32_t s0 = s[0], s1 = s[1], s2 = s[2], s3 = s[3], i = 0;
    for (; i + 16 <= k; i += 16) {
        const int8x16_t x0 = vldrbq_s8(a0 + i), x1 = vldrbq_s8(a1 + i);
        const int8x16_t v0 = vldrbq_s8(w0 + i), v1 = vldrbq_s8(w1 + i);
        s0 = vmladavaq_s8(s0, x0, v0), s1 = vmladavaq_s8(s1, x0, v1);
        s2 = vmladavaq_s8(s2, x1, v0), s3 = vmladavaq_s8(s3, x1, v1);
    }
    if (i < k) {
        const mve_pred16_t pr = vctp8q((uint32_t)(k - i));
        const int8x16_t x0 = vldrbq_z_s8(a0 + i, pr), x1 = vldrbq_z_s8(a1 + i, pr);
        const int8x16_t v0 = vldrbq_z_s8(w0 + i, pr), v1 = vldrbq_z_s8(w1 + i, pr);
        s0 = vmladavaq_s8(s0, x0, v0), s1 = vmladavaq_s8(s1, x0, v1);
        s2 = vmladavaq_s8(s2, x1, v0), s3 = vmladavaq_s8(s3, x1, v1);
    }
    s[0] = s0, s[1] = s1, s[2] = s2, s[3] = s3;
}

static void gemm(const rt_opt_conv_params *p, const int8_t *in, const int8_t *w, const int32_t *bias, int8_t *out) {
    const rt_opt_gemm_params *g = &p->gemm;
    const int32_t m = p->batches * g->m, n = g->n, k = g->k, lda = g->lda, ldc = g->ldc;
    const int32x4_t zo = vdupq_n_s32(g->out_offset), lo = vdupq_n_s32(g->act_qmin), hi = vdupq_n_s32(g->act_qmax);
    /* lanes (row 0, ch), (row 0, ch + 1), (row 1, ch), (row 1, ch + 1) of a tile */
    const uint32x4_t at = vsetq_lane_u32((uint32_t)ldc + 1u,
                                         vsetq_lane_u32((uint32_t)ldc, vsetq_lane_u32(1u, vdupq_n_u32(0u), 1), 2), 3);
    for (int32_t ch = 0; ch < n; ch += 2) {
        const int32_t c1 = ch + 1 < n ? ch + 1 : ch;
        const int8_t *w0 = w + (int64_t)ch * k, *w1 = w + (int64_t)c1 * k;
        /* TFLite's requantization, the shifts all right shifts (rt_mve_conv_ok): VQRDMULH is its
         * doubling high multiply (round half up, saturating); its rounding divide rounds ties away
         * from zero, so a negative value first loses 1 (saturating), then VRSHL rounds half up. */
        int32x4_t mv = vdupq_n_s32(g->mult[ch]), sv = vdupq_n_s32(g->shift[ch]);
        mv = vsetq_lane_s32(g->mult[c1], vsetq_lane_s32(g->mult[c1], mv, 1), 3);
        sv = vsetq_lane_s32(g->shift[c1], vsetq_lane_s32(g->shift[c1], sv, 1), 3);
        const mve_pred16_t chp = ch + 1 < n ? 0xFFFF : 0x0F0F;
        for (int32_t r = 0; r < m; r += 2) {
            const int8_t *a0 = in + (int64_t)r * lda, *a1 = r + 1 < m ? a0 + lda : a0;
            int32_t s[4] = {bias[ch], bias[c1], bias[ch], bias[c1]};
            dot_2x2(a0, a1, w0, w1, k, s);
            int32x4_t y = vqrdmulhq_s32(vld1q_s32(s), mv);
            y = vrshlq_s32(vqaddq_s32(y, vshrq_n_s32(y, 31)), sv);
            y = vminq_s32(vmaxq_s32(vaddq_s32(y, zo), lo), hi);
            vstrbq_scatter_offset_p_s32(out + (int64_t)r * ldc + ch, at, y,
                                        (mve_pred16_t)(chp & (r + 1 < m ? 0xFFFF : 0x00FF)));
        }
    }
}
#else
/* Without Helium (a build for another core): the same sums and requantization in plain C. */
static void gemm(const rt_opt_conv_params *p, const int8_t *in, const int8_t *w, const int32_t *bias, int8_t *out) {
    const rt_opt_gemm_params *g = &p->gemm;
    for (int32_t r = 0; r < p->batches * g->m; r++)
        for (int32_t ch = 0; ch < g->n; ch++) {
            int32_t s = bias[ch];
            for (int32_t i = 0; i < g->k; i++)
                s = rt_wrap_add_i32(s, (int32_t)in[(int64_t)r * g->lda + i] * w[(int64_t)ch * g->k + i]);
            out[(int64_t)r * g->ldc + ch] = rt_cm_requant(s, g->mult[ch], g->shift[ch], RT_OPT_ROUND_DOUBLE,
                                                          g->out_offset, g->act_qmin, g->act_qmax);
        }
}
#endif

void rt_mve_conv_s8(const rt_opt_conv_params *p, const int8_t *in, const int8_t *w, const int32_t *bias,
                    int8_t *out, const rt_opt_post_add *post, const int8_t *other) {
    gemm(p, in, w, bias, out);
    if (post) { /* dense output: ldc == n */
        const int64_t n = (int64_t)p->batches * p->gemm.m * p->gemm.n;
        rt_opt_add_run_i8(post->add, post->conv_is_lhs ? out : other, 1, post->conv_is_lhs ? other : out, 1, out, n);
    }
}
