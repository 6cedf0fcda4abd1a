/* rt_mve_conv_s8.c - the int8 1x1 convolution (a GEMM) on Helium (rt_mve.h). */
#include "rt_mve.h"

#include "../../rt_opt_internal.h"

#if defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 1)
#include <arm_mve.h>

#define RT_MVE_INLINE static inline __attribute__((always_inline))

/* The sums a0 . w_c and a1 . w_c (c = 0..3) of rows a0, a1 (k bytes) and a group of 4 channels w
 * (sched_pack_mve_s8: nc = n16 + 1 chunks of 4 x 16 bytes, K's zero padding leading): *y0 = row
 * a0's four, *y1 = row a1's. npt: n16 << 16 | pt. The first chunk's loads of A start pad bytes early,
 * predicated to its last 16 - pad lanes (pt; VMSR P0 takes the low half; the lanes before read as 0
 * and touch no memory), VMLADAV (not
 * accumulating) sets the eight sums; then n16 whole chunks, VMLADAVA 16 products an instruction. In
 * assembly: GCC's version spilled the pointers inside the loop. VMLADAV's accumulator must be an
 * even register: the eight take r0..r12 and lr, so the count runs in a register of its own. */
RT_MVE_INLINE void dot_2x4(const int8_t *a0, const int8_t *a1, const int8_t *w, uint32_t npt, int32x4_t *y0,
                           int32x4_t *y1) {
    register int32_t s0 __asm__("r0"), s1 __asm__("r2"), s2 __asm__("r4"), s3 __asm__("r6");
    register int32_t s4 __asm__("r8"), s5 __asm__("r10"), s6 __asm__("r12"), s7 __asm__("lr");
    int32x4_t x0, x1, t;
    mve_pred16_t p0; /* the asm writes VPR: an output, so GCC keeps no predicate there across it */
    __asm__("vmsr p0, %[n]\n\t"
            "vpstt\n\t"
            "vldrbt.8 %q[x0], [%[a0]], #16\n\t"
            "vldrbt.8 %q[x1], [%[a1]], #16\n\t"
            "vldrb.8 %q[t], [%[w]], #16\n\t"
            "vmladav.s8 %[s0], %q[x0], %q[t]\n\t"
            "vmladav.s8 %[s4], %q[x1], %q[t]\n\t"
            "vldrb.8 %q[t], [%[w]], #16\n\t"
            "vmladav.s8 %[s1], %q[x0], %q[t]\n\t"
            "vmladav.s8 %[s5], %q[x1], %q[t]\n\t"
            "vldrb.8 %q[t], [%[w]], #16\n\t"
            "vmladav.s8 %[s2], %q[x0], %q[t]\n\t"
            "vmladav.s8 %[s6], %q[x1], %q[t]\n\t"
            "vldrb.8 %q[t], [%[w]], #16\n\t"
            "vmladav.s8 %[s3], %q[x0], %q[t]\n\t"
            "vmladav.s8 %[s7], %q[x1], %q[t]\n\t"
            "lsrs %[n], %[n], #16\n\t"
            "beq 2f\n"
            "1:\n\t"
            "vldrb.8 %q[x0], [%[a0]], #16\n\t"
            "vldrb.8 %q[x1], [%[a1]], #16\n\t"
            "vldrb.8 %q[t], [%[w]], #16\n\t"
            "vmladava.s8 %[s0], %q[x0], %q[t]\n\t"
            "vmladava.s8 %[s4], %q[x1], %q[t]\n\t"
            "vldrb.8 %q[t], [%[w]], #16\n\t"
            "vmladava.s8 %[s1], %q[x0], %q[t]\n\t"
            "vmladava.s8 %[s5], %q[x1], %q[t]\n\t"
            "vldrb.8 %q[t], [%[w]], #16\n\t"
            "vmladava.s8 %[s2], %q[x0], %q[t]\n\t"
            "vmladava.s8 %[s6], %q[x1], %q[t]\n\t"
            "vldrb.8 %q[t], [%[w]], #16\n\t"
            "vmladava.s8 %[s3], %q[x0], %q[t]\n\t"
            "vmladava.s8 %[s7], %q[x1], %q[t]\n\t"
            "subs %[n], #1\n\t"
            "bne 1b\n"
            "2:\n\t"
            "vmov %q[x0][2], %q[x0][0], %[s0], %[s2]\n\t"
            "vmov %q[x0][3], %q[x0][1], %[s1], %[s3]\n\t"
            "vmov %q[x1][2], %q[x1][0], %[s4], %[s6]\n\t"
            "vmov %q[x1][3], %q[x1][1], %[s5], %[s7]"
            : [s0] "=&r"(s0), [s1] "=&r"(s1), [s2] "=&r"(s2), [s3] "=&r"(s3), [s4] "=&r"(s4), [s5] "=&r"(s5),
              [s6] "=&r"(s6), [s7] "=&r"(s7), [a0] "+r"(a0), [a1] "+r"(a1), [w] "+r"(w), [n] "+r"(npt),
              [x0] "=&w"(x0), [x1] "=&w"(x1), [t] "=&w"(t), [p] "=Up"(p0)
            :
            : "cc", "memory");
    *y0 = x0;
    *y1 = x1;
}

/* TFLite's requantization of a tile's four sums (see gemm), the output offset, the clamp. */
RT_MVE_INLINE int32x4_t requant_tile(int32x4_t s, int32x4_t mv, int32x4_t sv, int32_t zo, int32x4_t lo, int32x4_t hi) {
    const int32x4_t y = vqrdmulhq_s32(s, mv);
    return vminq_s32(vmaxq_s32(vaddq_n_s32(vrshlq_s32(vqaddq_s32(y, vshrq_n_s32(y, 31)), sv), zo), lo), hi);
}

static void gemm(const rt_opt_conv_params *p, const int8_t *in, const int8_t *w, const int32_t *bias, int8_t *out) {
    const rt_opt_gemm_params *g = &p->gemm;
    const int32_t m = p->batches * g->m, n = g->n, k = g->k, lda = g->lda, ldc = g->ldc;
    const uint32_t n16 = (uint32_t)(k - 1) / 16u, pad = 16u * (n16 + 1u) - (uint32_t)k;
    /* n16 in the high half, the first chunk's predicate (its last 16 - pad lanes) in the low */
    const uint32_t npt = n16 << 16 | (uint16_t)~vctp8q(pad);
    const int32_t zo = g->out_offset;
    const int32x4_t lo = vdupq_n_s32(g->act_qmin), hi = vdupq_n_s32(g->act_qmax);
    const int32_t gstep = 64 * (int32_t)(n16 + 1u); /* bytes of a group of 4 channels */
    for (int32_t ch = 0; ch < n; ch += 4, w += gstep) {
        /* TFLite's requantization, the shifts all right shifts (rt_mve_conv_ok): VQRDMULH is its
         * doubling high multiply (round half up, saturating); its rounding divide rounds ties away
         * from zero, so a negative value first loses 1 (saturating), then VRSHL rounds half up.
         * The channels past n (N padded to 4) are not stored. */
        const int32x4_t mv = vldrwq_s32(g->mult + ch), sv = vldrwq_s32(g->shift + ch), bv = vldrwq_s32(bias + ch);
        const mve_pred16_t chp = vctp32q((uint32_t)(n - ch));
        const int8_t *a0 = in - pad, *const end = a0 + (int64_t)(m & ~1) * lda;
        int8_t *o = out + ch;
        int32x4_t y0, y1;
        if (n - ch >= 4)
            for (; a0 != end; a0 += 2 * lda, o += 2 * ldc) {
                dot_2x4(a0, a0 + lda, w, npt, &y0, &y1);
                vstrbq_s32(o, requant_tile(vaddq_s32(y0, bv), mv, sv, zo, lo, hi));
                vstrbq_s32(o + ldc, requant_tile(vaddq_s32(y1, bv), mv, sv, zo, lo, hi));
            }
        else
            for (; a0 != end; a0 += 2 * lda, o += 2 * ldc) {
                dot_2x4(a0, a0 + lda, w, npt, &y0, &y1);
                vstrbq_p_s32(o, requant_tile(vaddq_s32(y0, bv), mv, sv, zo, lo, hi), chp);
                vstrbq_p_s32(o + ldc, requant_tile(vaddq_s32(y1, bv), mv, sv, zo, lo, hi), chp);
            }
        if (m & 1) { /* an odd last row: its pair is itself, stored once */
            dot_2x4(a0, a0, w, npt, &y0, &y1);
            vstrbq_p_s32(o, requant_tile(vaddq_s32(y0, bv), mv, sv, zo, lo, hi), chp);
        }
    }
}
#else
/* Without Helium (a build for another core): the same sums and requantization in plain C. */
static void gemm(const rt_opt_conv_params *p, const int8_t *in, const int8_t *w, const int32_t *bias, int8_t *out) {
    const rt_opt_gemm_params *g = &p->gemm;
    for (int32_t r = 0; r < p->batches * g->m; r++)
        for (int32_t ch = 0; ch < g->n; ch++) {
            /* sched_pack_mve_s8's layout: chunks of 16 bytes, K's padding leading */
            const int32_t nc = (g->k + 15) / 16, pad = 16 * nc - g->k;
            int32_t s = bias[ch];
            for (int32_t i = 0; i < g->k; i++)
                s = rt_wrap_add_i32(s, (int32_t)in[(int64_t)r * g->lda + i] *
                                           w[(((int64_t)(ch / 4) * nc + (i + pad) / 16) * 4 + ch % 4) * 16 + (i + pad) % 16]);
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
