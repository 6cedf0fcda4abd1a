/* rt_a64_gemm_f32.h - the AArch64 f32 GEMM micro-kernel for rt_opt_gemm.c (runtime/arm64,
 * docs/arm64.md; not API, included by that file only).
 *
 * The panel is pass schedule's f32 panel (rt_opt.h): K rows of 16 columns. A 5 x 16 tile keeps
 * 20 accumulators, the 4 weight vectors of one k and 5 activation vectors (four k of each row)
 * in 29 of the 32 NEON registers; FMLA by element (vfmaq_laneq_f32) multiplies a weight vector by
 * one k of a row without a broadcast: 80 multiply-adds from 4 loads per k. Each sum runs over k in
 * order with one rounding a step (fused), clamped in registers (FMAX/FMIN pass a NaN through, as
 * rt_clamp_f32 does). */
#ifndef MPCC_RT_A64_GEMM_F32_H
#define MPCC_RT_A64_GEMM_F32_H

#include <string.h>

#include "rt_a64.h"

#if defined(RT_A64)
#define RT_A64_MR_F32 5

/* C[0..mr)[0..nr) = clamp(bias + A[0..mr) . panel, lo, hi); rows past mr repeat row 0 (never stored). */
static void rt_a64_f32_tile(int32_t k, const float *a, int32_t lda, int32_t mr, const float *b, const float *bias,
                            float lo, float hi, float *c, int32_t ldc, int32_t nr) {
    const float *ap[RT_A64_MR_F32];
    float32x4_t acc[RT_A64_MR_F32][4];
    const float32x4_t vlo = vdupq_n_f32(lo), vhi = vdupq_n_f32(hi);
    int32_t r, q, kk = 0;
    RT_A64_UNROLL for (r = 0; r < RT_A64_MR_F32; r++) {
        ap[r] = a + (int64_t)(r < mr ? r : 0) * lda;
        RT_A64_UNROLL for (q = 0; q < 4; q++) acc[r][q] = vld1q_f32(bias + 4 * q);
    }
#define RT_A64_FMA_LANE(L)                                                                                           \
    do {                                                                                                               \
        const float32x4_t b0 = vld1q_f32(b), b1 = vld1q_f32(b + 4), b2 = vld1q_f32(b + 8), b3 = vld1q_f32(b + 12);    \
        RT_A64_UNROLL for (r = 0; r < RT_A64_MR_F32; r++) {                                                            \
            acc[r][0] = vfmaq_laneq_f32(acc[r][0], b0, av[r], L);                                                      \
            acc[r][1] = vfmaq_laneq_f32(acc[r][1], b1, av[r], L);                                                      \
            acc[r][2] = vfmaq_laneq_f32(acc[r][2], b2, av[r], L);                                                      \
            acc[r][3] = vfmaq_laneq_f32(acc[r][3], b3, av[r], L);                                                      \
        }                                                                                                              \
        b += 16;                                                                                                       \
    } while (0)
    for (; kk + 4 <= k; kk += 4) {
        float32x4_t av[RT_A64_MR_F32];
        RT_A64_UNROLL for (r = 0; r < RT_A64_MR_F32; r++) av[r] = vld1q_f32(ap[r] + kk);
        RT_A64_FMA_LANE(0);
        RT_A64_FMA_LANE(1);
        RT_A64_FMA_LANE(2);
        RT_A64_FMA_LANE(3);
    }
#undef RT_A64_FMA_LANE
    for (; kk < k; kk++, b += 16)
        RT_A64_UNROLL for (r = 0; r < RT_A64_MR_F32; r++)
            RT_A64_UNROLL for (q = 0; q < 4; q++) acc[r][q] = vfmaq_n_f32(acc[r][q], vld1q_f32(b + 4 * q), ap[r][kk]);
    RT_A64_UNROLL for (r = 0; r < RT_A64_MR_F32; r++) {
        float *d = c + (int64_t)r * ldc, t[16];
        if (r >= mr) break;
        RT_A64_UNROLL for (q = 0; q < 4; q++) acc[r][q] = vminq_f32(vmaxq_f32(acc[r][q], vlo), vhi);
        if (nr < 16) d = t;
        RT_A64_UNROLL for (q = 0; q < 4; q++) vst1q_f32(d + 4 * q, acc[r][q]);
        if (nr < 16) memcpy(c + (int64_t)r * ldc, t, sizeof(float) * (size_t)nr);
    }
}
#endif

#endif
