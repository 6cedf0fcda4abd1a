/* rt_a64_gemm_f32.h - the AArch64 f32 GEMM micro-kernel for rt_opt_gemm.c (runtime/arm64,
 * docs/arm64.md; not API, included by that file only).
 *
 * The panel is pass schedule's f32 panel (rt_opt.h): K rows of 16 columns. A 5 x 16 tile keeps
 * 20 accumulators, the 4 weight vectors of one k and 5 activation vectors (four k of each row)
 * in 29 of the 32 NEON registers; FMLA by element multiplies a weight vector by one k of a row
 * without a broadcast: 80 multiply-adds a k from one LD1 of its 4 weight vectors and, every four k,
 * one load a row. The rows are read through a table of pointers (K as
 * nseg segments, row r's segment s at ap[r * nseg + s]): a GEMM's rows (one segment), or a
 * convolution's filter rows read in place from the image (rt_opt_conv_rows_f32: no im2col copy
 * but for the patches cut by the left or right edge). Each sum runs over k in order with one
 * rounding a step (fused), clamped in registers (FMAX/FMIN pass a NaN through, as rt_clamp_f32
 * does; skipped when there are no bounds). The tile is inline assembly: written with intrinsics,
 * GCC 12 at -O2 kept an accumulator in memory in the k loop (a load and a store every four k,
 * and register moves). */
#ifndef MPCC_RT_A64_GEMM_F32_H
#define MPCC_RT_A64_GEMM_F32_H

#include <string.h>

#include "rt_a64.h"

#if defined(RT_A64)
#define RT_A64_MR_F32 5
/* rt_opt_gemm.c: convolutions through row tables (rt_opt_conv_rows_f32) and rt_a64_f32_gemm_rows */
#define RT_OPT_F32_ROWS_A64 1

/* One k of the 5 x 16 tile's rows (activations v0..v4, lane L) times the panel's next 16 weights
 * (v5..v8, one LD1) into the accumulators v12..v31 (row r: v12 + 4 r ..). */
#define RT_A64_F32_K(L)                                                                                                \
    "ld1 {v5.4s-v8.4s}, [%[b]], #64\n"                                                                               \
    "fmla v12.4s, v5.4s, v0.s[" #L "]\n" "fmla v13.4s, v6.4s, v0.s[" #L "]\n"                                      \
    "fmla v14.4s, v7.4s, v0.s[" #L "]\n" "fmla v15.4s, v8.4s, v0.s[" #L "]\n"                                      \
    "fmla v16.4s, v5.4s, v1.s[" #L "]\n" "fmla v17.4s, v6.4s, v1.s[" #L "]\n"                                      \
    "fmla v18.4s, v7.4s, v1.s[" #L "]\n" "fmla v19.4s, v8.4s, v1.s[" #L "]\n"                                      \
    "fmla v20.4s, v5.4s, v2.s[" #L "]\n" "fmla v21.4s, v6.4s, v2.s[" #L "]\n"                                      \
    "fmla v22.4s, v7.4s, v2.s[" #L "]\n" "fmla v23.4s, v8.4s, v2.s[" #L "]\n"                                      \
    "fmla v24.4s, v5.4s, v3.s[" #L "]\n" "fmla v25.4s, v6.4s, v3.s[" #L "]\n"                                      \
    "fmla v26.4s, v7.4s, v3.s[" #L "]\n" "fmla v27.4s, v8.4s, v3.s[" #L "]\n"                                      \
    "fmla v28.4s, v5.4s, v4.s[" #L "]\n" "fmla v29.4s, v6.4s, v4.s[" #L "]\n"                                      \
    "fmla v30.4s, v7.4s, v4.s[" #L "]\n" "fmla v31.4s, v8.4s, v4.s[" #L "]\n"
/* the accumulators clamped: one FMAX and one FMIN each (an assembler loop: the asm string stays under
 * the 4095 characters of C99's limit) */
#define RT_A64_F32_CLAMP                                                                                               \
    ".irp r, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31\n"                        \
    "fmax v\\r\\().4s, v\\r\\().4s, %[lo].4s\n"                                                                        \
    "fmin v\\r\\().4s, v\\r\\().4s, %[hi].4s\n"                                                                        \
    ".endr\n"

/* C[0..mr)[0..nr) = clamp(bias + A[0..mr) . panel, lo, hi): K as nseg segments of seg values, row
 * r's segment s at ap[r * nseg + s]; rows past mr repeat row 0 (never stored). The sums in
 * assembly: the accumulators in v12..v31, the activations in v0..v4, the weights in v5..v8, four k
 * a step then one; clamped in registers and stored to C (a full tile) or to t, and from there the
 * nr columns of the mr rows to C. Each sum runs over k in order, fused. */
RT_OPT_INLINE void rt_a64_f32_tile(int32_t nseg, int32_t seg, const float *const *ap, int32_t mr, const float *b,
                                   const float *bias, float lo, float hi, float *c, int32_t ldc, int32_t nr) {
    const float *const *t0 = ap, *const *t1 = ap + (mr > 1 ? nseg : 0), *const *t2 = ap + (mr > 2 ? 2 * nseg : 0);
    const float *const *t3 = ap + (mr > 3 ? 3 * nseg : 0), *const *t4 = ap + (mr > 4 ? 4 * nseg : 0);
    const float *a0, *a1, *a2, *a3, *a4;
    const float32x4_t vlo = vdupq_n_f32(lo), vhi = vdupq_n_f32(hi);
    const int direct = mr == RT_A64_MR_F32 && nr == 16;
    float t[RT_A64_MR_F32 * 16], *out = direct ? c : t;
    int64_t ostep = direct ? (int64_t)ldc * 4 : 64, ns = nseg, sg = seg, n;
    int64_t clamp = !(lo < -3.4028235e38f && hi > 3.4028235e38f); /* bounds other than -inf, inf */
    int32_t r;
    __asm__ volatile(
        "ld1 {v12.4s-v15.4s}, [%[bias]]\n"
        "ld1 {v16.4s-v19.4s}, [%[bias]]\n"
        "ld1 {v20.4s-v23.4s}, [%[bias]]\n"
        "ld1 {v24.4s-v27.4s}, [%[bias]]\n"
        "ld1 {v28.4s-v31.4s}, [%[bias]]\n"
        "1:\n"
        "ldr %[a0], [%[t0]], #8\n"
        "ldr %[a1], [%[t1]], #8\n"
        "ldr %[a2], [%[t2]], #8\n"
        "ldr %[a3], [%[t3]], #8\n"
        "ldr %[a4], [%[t4]], #8\n"
        "lsr %[n], %[sg], #2\n"
        "cbz %[n], 3f\n"
        "2:\n"
        "ldr q0, [%[a0]], #16\n"
        "ldr q1, [%[a1]], #16\n"
        "ldr q2, [%[a2]], #16\n"
        "ldr q3, [%[a3]], #16\n"
        "ldr q4, [%[a4]], #16\n"
        RT_A64_F32_K(0) RT_A64_F32_K(1) RT_A64_F32_K(2) RT_A64_F32_K(3)
        "subs %[n], %[n], #1\n"
        "b.ne 2b\n"
        "3:\n"
        "ands %[n], %[sg], #3\n"
        "b.eq 5f\n"
        "4:\n"
        "ldr s0, [%[a0]], #4\n"
        "ldr s1, [%[a1]], #4\n"
        "ldr s2, [%[a2]], #4\n"
        "ldr s3, [%[a3]], #4\n"
        "ldr s4, [%[a4]], #4\n"
        RT_A64_F32_K(0)
        "subs %[n], %[n], #1\n"
        "b.ne 4b\n"
        "5:\n"
        "subs %[ns], %[ns], #1\n"
        "b.ne 1b\n"
        "cbz %[clamp], 6f\n"
        RT_A64_F32_CLAMP
        "6:\n"
        "st1 {v12.4s-v15.4s}, [%[out]], %[os]\n"
        "st1 {v16.4s-v19.4s}, [%[out]], %[os]\n"
        "st1 {v20.4s-v23.4s}, [%[out]], %[os]\n"
        "st1 {v24.4s-v27.4s}, [%[out]], %[os]\n"
        "st1 {v28.4s-v31.4s}, [%[out]], %[os]\n"
        : [a0] "=&r"(a0), [a1] "=&r"(a1), [a2] "=&r"(a2), [a3] "=&r"(a3), [a4] "=&r"(a4), [t0] "+r"(t0),
          [t1] "+r"(t1), [t2] "+r"(t2), [t3] "+r"(t3), [t4] "+r"(t4), [b] "+r"(b), [n] "=&r"(n), [ns] "+r"(ns),
          [out] "+r"(out)
        : [bias] "r"(bias), [sg] "r"(sg), [clamp] "r"(clamp), [os] "r"(ostep), [lo] "w"(vlo), [hi] "w"(vhi)
        : "v0", "v1", "v2", "v3", "v4", "v5", "v6", "v7", "v8", "v12", "v13", "v14", "v15", "v16", "v17",
          "v18", "v19", "v20", "v21", "v22", "v23", "v24", "v25", "v26", "v27", "v28", "v29", "v30", "v31", "cc", "memory");
    if (!direct)
        for (r = 0; r < mr; r++) memcpy(c + (int64_t)r * ldc, t + 16 * r, sizeof(float) * (size_t)nr);
}

/* One k of a 2 x 16 tile (activations v0, v1, lane L; weights v4..v7; accumulators v16..v23). */
#define RT_A64_F32_K2(L)                                                                                               \
    "ld1 {v4.4s-v7.4s}, [%[b]], #64\n"                                                                               \
    "fmla v16.4s, v4.4s, v0.s[" #L "]\n" "fmla v17.4s, v5.4s, v0.s[" #L "]\n"                                      \
    "fmla v18.4s, v6.4s, v0.s[" #L "]\n" "fmla v19.4s, v7.4s, v0.s[" #L "]\n"                                      \
    "fmla v20.4s, v4.4s, v1.s[" #L "]\n" "fmla v21.4s, v5.4s, v1.s[" #L "]\n"                                      \
    "fmla v22.4s, v6.4s, v1.s[" #L "]\n" "fmla v23.4s, v7.4s, v1.s[" #L "]\n"

/* rt_a64_f32_tile for mr <= 2 (the last rows of a GEMM whose M leaves 1 or 2, ViT's 17 tokens: a 5-row
 * tile would compute 3 or 4 rows for nothing); no callee-saved register (v8..v15) touched. */
RT_OPT_INLINE void rt_a64_f32_tile2(int32_t nseg, int32_t seg, const float *const *ap, int32_t mr, const float *b,
                                    const float *bias, float lo, float hi, float *c, int32_t ldc, int32_t nr) {
    const float *const *t0 = ap, *const *t1 = ap + (mr > 1 ? nseg : 0);
    const float *a0, *a1;
    const float32x4_t vlo = vdupq_n_f32(lo), vhi = vdupq_n_f32(hi);
    const int direct = mr == 2 && nr == 16;
    float t[2 * 16], *out = direct ? c : t;
    int64_t ostep = direct ? (int64_t)ldc * 4 : 64, ns = nseg, sg = seg, n;
    int64_t clamp = !(lo < -3.4028235e38f && hi > 3.4028235e38f);
    int32_t r;
    __asm__ volatile(
        "ld1 {v16.4s-v19.4s}, [%[bias]]\n"
        "ld1 {v20.4s-v23.4s}, [%[bias]]\n"
        "1:\n"
        "ldr %[a0], [%[t0]], #8\n"
        "ldr %[a1], [%[t1]], #8\n"
        "lsr %[n], %[sg], #2\n"
        "cbz %[n], 3f\n"
        "2:\n"
        "ldr q0, [%[a0]], #16\n"
        "ldr q1, [%[a1]], #16\n"
        RT_A64_F32_K2(0) RT_A64_F32_K2(1) RT_A64_F32_K2(2) RT_A64_F32_K2(3)
        "subs %[n], %[n], #1\n"
        "b.ne 2b\n"
        "3:\n"
        "ands %[n], %[sg], #3\n"
        "b.eq 5f\n"
        "4:\n"
        "ldr s0, [%[a0]], #4\n"
        "ldr s1, [%[a1]], #4\n"
        RT_A64_F32_K2(0)
        "subs %[n], %[n], #1\n"
        "b.ne 4b\n"
        "5:\n"
        "subs %[ns], %[ns], #1\n"
        "b.ne 1b\n"
        "cbz %[clamp], 6f\n"
        ".irp r, 16, 17, 18, 19, 20, 21, 22, 23\n"
        "fmax v\\r\\().4s, v\\r\\().4s, %[lo].4s\n"
        "fmin v\\r\\().4s, v\\r\\().4s, %[hi].4s\n"
        ".endr\n"
        "6:\n"
        "st1 {v16.4s-v19.4s}, [%[out]], %[os]\n"
        "st1 {v20.4s-v23.4s}, [%[out]], %[os]\n"
        : [a0] "=&r"(a0), [a1] "=&r"(a1), [t0] "+r"(t0), [t1] "+r"(t1), [b] "+r"(b), [n] "=&r"(n), [ns] "+r"(ns),
          [out] "+r"(out)
        : [bias] "r"(bias), [sg] "r"(sg), [clamp] "r"(clamp), [os] "r"(ostep), [lo] "w"(vlo), [hi] "w"(vhi)
        : "v0", "v1", "v4", "v5", "v6", "v7", "v16", "v17", "v18", "v19", "v20", "v21", "v22", "v23", "cc", "memory");
    if (!direct)
        for (r = 0; r < mr; r++) memcpy(c + (int64_t)r * ldc, t + 16 * r, sizeof(float) * (size_t)nr);
}

/* C[0..m) = clamp(bias + A . packed_b): K as nseg segments of p->k / nseg values, row r's segment s
 * at tab[r * nseg + s] (a convolution's patch rows), or, with tab NULL, row r at a + r * p->lda.
 * Panel-outer: one packed panel (K x 16) stays in cache while the rows stream past it. */
static void rt_a64_f32_gemm_rows(const rt_opt_gemm_params *p, int32_t m, const float *a, const float *const *tab,
                                 int32_t nseg, const float *packed_b, const float *bias, float *c) {
    const int32_t seg = p->k / nseg;
    const float *rows[RT_A64_MR_F32];
    int32_t i, j, r;
    for (j = 0; j * 16 < p->n; j++) {
        const float *bp = packed_b + (int64_t)j * p->k * 16;
        const int32_t nr = p->n - j * 16 < 16 ? p->n - j * 16 : 16;
        for (i = 0; i < m; i += RT_A64_MR_F32) {
            const int32_t mr = m - i < RT_A64_MR_F32 ? m - i : RT_A64_MR_F32;
            const float *const *ap = tab ? tab + (int64_t)i * nseg : rows;
            if (!tab)
                for (r = 0; r < mr; r++) rows[r] = a + (int64_t)(i + r) * p->lda;
            if (mr <= 2)
                rt_a64_f32_tile2(tab ? nseg : 1, tab ? seg : p->k, ap, mr, bp, bias + j * 16, p->act_min, p->act_max,
                                 c + (int64_t)i * p->ldc + j * 16, p->ldc, nr);
            else
                rt_a64_f32_tile(tab ? nseg : 1, tab ? seg : p->k, ap, mr, bp, bias + j * 16, p->act_min, p->act_max,
                                c + (int64_t)i * p->ldc + j * 16, p->ldc, nr);
        }
    }
}
/* rt_opt_post_add_f32 (a convolution's fused residual ADD) 8 lanes at a time: out = out + other, the
 * clamp as its selects (a NaN passes, a -0 stays); returns the values done (n rounded down to 8). */
static int64_t rt_a64_post_add_f32(float *out, const float *other, int64_t n, float lo, float hi) {
    const float32x4_t vlo = vdupq_n_f32(lo), vhi = vdupq_n_f32(hi);
    int64_t i;
    for (i = 0; i + 8 <= n; i += 8) {
        float32x4_t v0 = vaddq_f32(vld1q_f32(out + i), vld1q_f32(other + i));
        float32x4_t v1 = vaddq_f32(vld1q_f32(out + i + 4), vld1q_f32(other + i + 4));
        v0 = vbslq_f32(vcltq_f32(v0, vlo), vlo, v0);
        v1 = vbslq_f32(vcltq_f32(v1, vlo), vlo, v1);
        vst1q_f32(out + i, vbslq_f32(vcgtq_f32(v0, vhi), vhi, v0));
        vst1q_f32(out + i + 4, vbslq_f32(vcgtq_f32(v1, vhi), vhi, v1));
    }
    return i;
}
#undef RT_A64_F32_K
#undef RT_A64_F32_K2
#undef RT_A64_F32_CLAMP
#endif

#endif
