/* rt_a64_gemm_f32.h - the AArch64 f32 GEMM micro-kernel for rt_opt_gemm.c (runtime/arm64,
 * docs/arm64.md; not API, included by that file only).
 *
 * The panel is pass schedule's f32 panel (rt_opt.h): K rows of 16 columns. A 5 x 16 tile keeps
 * 20 accumulators, the 4 weight vectors of one k and 5 activation vectors (four k of each row)
 * in 29 of the 32 NEON registers; FMLA by element multiplies a weight vector by one k of a row
 * without a broadcast: 80 multiply-adds from 4 loads per k. Each sum runs over k in order with one
 * rounding a step (fused), clamped in registers (FMAX/FMIN pass a NaN through, as rt_clamp_f32
 * does). The tile is inline assembly: written with intrinsics, GCC 12 at -O2 kept an accumulator
 * in memory in the k loop (a load and a store every four k, and register moves). */
#ifndef MPCC_RT_A64_GEMM_F32_H
#define MPCC_RT_A64_GEMM_F32_H

#include <string.h>

#include "rt_a64.h"

#if defined(RT_A64)
#define RT_A64_MR_F32 5

/* Four k of the 5 x 16 tile's rows (activations v0..v4, lane L) times the panel's next 16 weights
 * (v5..v8) into the accumulators v12..v31 (row r: v12 + 4 r ..). */
#define RT_A64_F32_K(L)                                                                                                \
    "ldp q5, q6, [%[b]], #32\n"                                                                                      \
    "ldp q7, q8, [%[b]], #32\n"                                                                                      \
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

/* C[0..mr)[0..nr) = clamp(bias + A[0..mr) . panel, lo, hi); rows past mr repeat row 0 (never stored).
 * The sums in assembly: the accumulators in v12..v31, the activations in v0..v4, the weights in
 * v5..v8, four k a step then one; they go to t, and from there clamped to C. Each sum runs over k in
 * order, fused. */
static void rt_a64_f32_tile(int32_t k, const float *a, int32_t lda, int32_t mr, const float *b, const float *bias,
                            float lo, float hi, float *c, int32_t ldc, int32_t nr) {
    const float *a0 = a, *a1 = a + (int64_t)(mr > 1 ? 1 : 0) * lda, *a2 = a + (int64_t)(mr > 2 ? 2 : 0) * lda;
    const float *a3 = a + (int64_t)(mr > 3 ? 3 : 0) * lda, *a4 = a + (int64_t)(mr > 4 ? 4 : 0) * lda;
    const float32x4_t vlo = vdupq_n_f32(lo), vhi = vdupq_n_f32(hi);
    float t[RT_A64_MR_F32 * 16], *out = t;
    int64_t steps = k / 4, tail = k % 4;
    int32_t r;
    __asm__ volatile(
        "ld1 {v12.4s-v15.4s}, [%[bias]]\n"
        "ld1 {v16.4s-v19.4s}, [%[bias]]\n"
        "ld1 {v20.4s-v23.4s}, [%[bias]]\n"
        "ld1 {v24.4s-v27.4s}, [%[bias]]\n"
        "ld1 {v28.4s-v31.4s}, [%[bias]]\n"
        "cbz %[n], 2f\n"
        "1:\n"
        "ldr q0, [%[a0]], #16\n"
        "ldr q1, [%[a1]], #16\n"
        "ldr q2, [%[a2]], #16\n"
        "ldr q3, [%[a3]], #16\n"
        "ldr q4, [%[a4]], #16\n"
        RT_A64_F32_K(0) RT_A64_F32_K(1) RT_A64_F32_K(2) RT_A64_F32_K(3)
        "subs %[n], %[n], #1\n"
        "b.ne 1b\n"
        "2:\n"
        "cbz %[t], 4f\n"
        "3:\n"
        "ldr s0, [%[a0]], #4\n"
        "ldr s1, [%[a1]], #4\n"
        "ldr s2, [%[a2]], #4\n"
        "ldr s3, [%[a3]], #4\n"
        "ldr s4, [%[a4]], #4\n"
        RT_A64_F32_K(0)
        "subs %[t], %[t], #1\n"
        "b.ne 3b\n"
        "4:\n"
        "st1 {v12.4s-v15.4s}, [%[out]], #64\n"
        "st1 {v16.4s-v19.4s}, [%[out]], #64\n"
        "st1 {v20.4s-v23.4s}, [%[out]], #64\n"
        "st1 {v24.4s-v27.4s}, [%[out]], #64\n"
        "st1 {v28.4s-v31.4s}, [%[out]], #64\n"
        : [a0] "+r"(a0), [a1] "+r"(a1), [a2] "+r"(a2), [a3] "+r"(a3), [a4] "+r"(a4), [b] "+r"(b), [n] "+r"(steps),
          [t] "+r"(tail), [out] "+r"(out)
        : [bias] "r"(bias)
        : "v0", "v1", "v2", "v3", "v4", "v5", "v6", "v7", "v8", "v12", "v13", "v14", "v15", "v16", "v17",
          "v18", "v19", "v20", "v21", "v22", "v23", "v24", "v25", "v26", "v27", "v28", "v29", "v30", "v31", "cc", "memory");
    for (r = 0; r < mr; r++) { /* clamped (FMAX/FMIN pass a NaN through, as rt_clamp_f32 does) into C */
        float *d = c + (int64_t)r * ldc, *x = t + 16 * r;
        int32_t q;
        if (nr < 16) d = x;
        RT_A64_UNROLL for (q = 0; q < 4; q++) vst1q_f32(d + 4 * q, vminq_f32(vmaxq_f32(vld1q_f32(x + 4 * q), vlo), vhi));
        if (nr < 16) memcpy(c + (int64_t)r * ldc, x, sizeof(float) * (size_t)nr);
    }
}
#undef RT_A64_F32_K
#endif

#endif
