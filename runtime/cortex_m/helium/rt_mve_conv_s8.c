/* rt_mve_conv_s8.c - the int8 1x1 convolution (a GEMM) on Helium (rt_mve.h). */
#include "rt_mve.h"

#include "../../rt_opt_internal.h"

#if defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 1)
#include <arm_mve.h>

#define RT_MVE_INLINE static inline __attribute__((always_inline))

/* The sums (b0 + a0 . w0, b1 + a0 . w1, b0 + a1 . w0, b1 + a1 . w1) of rows a0, a1 (k bytes) and channel
 * rows w0, w1 as one vector: n16 whole 16-byte steps (a low-overhead loop, VMLADAVA 16 products an
 * instruction), then the last k - 16 n16 bytes (1..16) with zeroing predicated loads (pt: their
 * lanes; the lanes past them read as 0 and touch no memory). In assembly: GCC's version spilled the
 * pointers inside the loop. VMLADAVA's accumulator must be an even register. */
RT_MVE_INLINE int32x4_t dot_2x2(const int8_t *a0, const int8_t *a1, const int8_t *w0, const int8_t *w1, int32_t b0,
                                int32_t b1, uint32_t n16, uint32_t pt) {
    register int32_t s0 __asm__("r6") = b0, s1 __asm__("r8") = b1, s2 __asm__("r10") = b0, s3 __asm__("r12") = b1;
    int32x4_t y, t1, t2;
    __asm__("wls lr, %[n], 2f\n"
            "1:\n\t"
            "vldrb.8 %q[y], [%[a0]], #16\n\t"
            "vldrb.8 %q[t1], [%[w0]], #16\n\t"
            "vmladava.s8 %[s0], %q[y], %q[t1]\n\t"
            "vldrb.8 %q[t2], [%[a1]], #16\n\t"
            "vmladava.s8 %[s2], %q[t2], %q[t1]\n\t"
            "vldrb.8 %q[t1], [%[w1]], #16\n\t"
            "vmladava.s8 %[s1], %q[y], %q[t1]\n\t"
            "vmladava.s8 %[s3], %q[t2], %q[t1]\n\t"
            "le lr, 1b\n"
            "2:\n\t"
            "vmsr p0, %[pt]\n\t"
            "vpsttt\n\t"
            "vldrbt.8 %q[y], [%[a0]]\n\t"
            "vldrbt.8 %q[t1], [%[w0]]\n\t"
            "vldrbt.8 %q[t2], [%[a1]]\n\t"
            "vmladava.s8 %[s0], %q[y], %q[t1]\n\t"
            "vmladava.s8 %[s2], %q[t2], %q[t1]\n\t"
            "vpst\n\t"
            "vldrbt.8 %q[t1], [%[w1]]\n\t"
            "vmladava.s8 %[s1], %q[y], %q[t1]\n\t"
            "vmladava.s8 %[s3], %q[t2], %q[t1]\n\t"
            "vmov %q[y][2], %q[y][0], %[s0], %[s2]\n\t"
            "vmov %q[y][3], %q[y][1], %[s1], %[s3]"
            : [s0] "+r"(s0), [s1] "+r"(s1), [s2] "+r"(s2), [s3] "+r"(s3), [a0] "+r"(a0), [a1] "+r"(a1),
              [w0] "+r"(w0), [w1] "+r"(w1), [y] "=&w"(y), [t1] "=&w"(t1), [t2] "=&w"(t2)
            : [n] "r"(n16), [pt] "r"(pt)
            : "lr", "memory");
    return y;
}

/* TFLite's requantization of a tile's four sums (see gemm), the output offset, the clamp. */
RT_MVE_INLINE int32x4_t requant_tile(int32x4_t s, int32x4_t mv, int32x4_t sv, int32_t zo, int32x4_t lo, int32x4_t hi) {
    const int32x4_t y = vqrdmulhq_s32(s, mv);
    return vminq_s32(vmaxq_s32(vaddq_n_s32(vrshlq_s32(vqaddq_s32(y, vshrq_n_s32(y, 31)), sv), zo), lo), hi);
}

static void gemm(const rt_opt_conv_params *p, const int8_t *in, const int8_t *w, const int32_t *bias, int8_t *out) {
    const rt_opt_gemm_params *g = &p->gemm;
    const int32_t m = p->batches * g->m, n = g->n, k = g->k, lda = g->lda, ldc = g->ldc;
    const uint32_t n16 = (uint32_t)(k - 1) / 16u, pt = vctp8q((uint32_t)k - 16u * n16); /* the last 1..16 bytes */
    const int32_t zo = g->out_offset;
    const int32x4_t lo = vdupq_n_s32(g->act_qmin), hi = vdupq_n_s32(g->act_qmax);
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
        const int32_t b0 = bias[ch], b1 = bias[c1];
        mv = vsetq_lane_s32(g->mult[c1], vsetq_lane_s32(g->mult[c1], mv, 1), 3);
        sv = vsetq_lane_s32(g->shift[c1], vsetq_lane_s32(g->shift[c1], sv, 1), 3);
        const mve_pred16_t chp = ch + 1 < n ? 0xFFFF : 0x0F0F;
        const int8_t *a0 = in, *const end = in + (int64_t)(m & ~1) * lda;
        int8_t *o = out + ch;
#define RT_MVE_TILE(a1) requant_tile(dot_2x2(a0, a1, w0, w1, b0, b1, n16, pt), mv, sv, zo, lo, hi)
        if (chp == 0xFFFF)
            for (; a0 != end; a0 += 2 * lda, o += 2 * ldc) vstrbq_scatter_offset_s32(o, at, RT_MVE_TILE(a0 + lda));
        else
            for (; a0 != end; a0 += 2 * lda, o += 2 * ldc) vstrbq_scatter_offset_p_s32(o, at, RT_MVE_TILE(a0 + lda), chp);
        if (m & 1) /* an odd last row: its pair is itself, its second row not stored */
            vstrbq_scatter_offset_p_s32(o, at, RT_MVE_TILE(a0), (mve_pred16_t)(chp & 0x00FF));
#undef RT_MVE_TILE
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
