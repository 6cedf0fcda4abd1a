/* rt_opt_gemm16_avx2.c - FULLY_CONNECTED (and each im2col block of CONV_2D) with 16-bit float weights on
 * AVX2 + FMA without AVX-512 (e.g. AMD Zen 3): no 16-bit arithmetic there, so the 16-bit weights are only
 * storage (half the bytes) and the products are f32 FMAs on the widened weights, as fast as fp32 where the
 * widening costs next to nothing:
 * each 16-column panel is widened once per block of input rows into scratch in the f32 GEMM's layout and
 * the f32 GEMM runs on it: a bf16 pair word holds k0 in its low and k1 in its high half (word << 16 is
 * k0's float, word & 0xffff0000 k1's); fp16 takes vcvtph2ps and two shuffles per 8 weights. Widening in
 * registers inside the micro-kernels ran slower on Zen 3 (bf16 5 x 16 spilled: 0.6x the f32 GEMM; fp16
 * repeated vcvtph2ps for every 4 rows: 0.4x) and summed in another order than the f32 GEMM.
 * The input rows are rounded to the 16-bit type first (rt_opt_round_half_row), so each product is exact and
 * only the summation order differs from rt_fully_connected_half. Packed layout: rt_opt_gemm_half.c. */
#include <string.h>

#include "mpcc_rt.h"
#include "rt_opt.h"
#include "rt_opt_internal.h"

#if defined(RT_OPT_AVX2) && defined(__FMA__) && !defined(RT_OPT_AVX512)

#define NR RT_OPT_NR
#define HALF_ROWS RT_OPT_HALF_ROWS
#define BLOCK_ROWS 30 /* rows a block (<= HALF_ROWS, the scratch): whole 5-row tiles of the f32 kernel */

/* One panel ([K2][NR][2], bf16 or fp16) widened to the f32 GEMM's panel layout [K][NR]. */
static void widen_panel(const uint16_t *src, int32_t k, int32_t type, float *dst) {
    const __m256i high = _mm256_set1_epi32((int32_t)0xFFFF0000u);
    int32_t kk, h;
    for (kk = 0; kk < k; kk += 2, src += 2 * NR, dst += 2 * NR)
        for (h = 0; h < NR; h += 8) {
            __m256 e, o;
            if (type == RT_BF16) { /* 8 columns' pair words: k0 in the low halves, k1 in the high */
                const __m256i v = _mm256_loadu_si256((const __m256i *)(const void *)(src + 2 * h));
                e = _mm256_castsi256_ps(_mm256_slli_epi32(v, 16));
                o = _mm256_castsi256_ps(_mm256_and_si256(v, high));
            } else {
#if defined(__F16C__)
                /* columns h..h+3 and h+4..h+7 as pairs; shuffles split k0 from k1: [c0 c1 c4 c5 | c2 c3 c6 c7] */
                const __m256 x = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(const void *)(src + 2 * h)));
                const __m256 y = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(const void *)(src + 2 * h + 8)));
                e = _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(_mm256_shuffle_ps(x, y, 0x88)), 0xD8));
                o = _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(_mm256_shuffle_ps(x, y, 0xDD)), 0xD8));
#else
                e = o = _mm256_setzero_ps(); /* not reached: fp16 needs F16C (rt_opt_fc_half_avx2) */
#endif
            }
            _mm256_storeu_ps(dst + h, e);
            if (kk + 1 < k) _mm256_storeu_ps(dst + NR + h, o);
        }
}

/* Rows [0, rows) of C (ldc apart) from rows of A (lda apart) whose values are of the 16-bit type already,
 * against every panel; panel: scratch for one widened panel (K x NR floats). */
static void gemm_exact(const rt_opt_gemm_params *p, int32_t type, int32_t rows, const float *a, int32_t lda,
                       const uint16_t *packed_b, const float *bias, float *c, float *panel) {
    const int32_t k = p->k, k2 = (k + 1) / 2;
    int32_t j;
    for (j = 0; j * NR < p->n; j++) {
        const uint16_t *b = packed_b + (int64_t)j * k2 * NR * 2;
        const int32_t nr = p->n - j * NR < NR ? p->n - j * NR : NR;
        /* the panel once in f32 for all the rows, then the f32 GEMM (the same sums, in the same order, as an
         * f32 GEMM on the widened weights, however the rows are blocked) */
        rt_opt_gemm_params sub = *p;
        widen_panel(b, k, type, panel);
        sub.m = rows;
        sub.n = nr;
        sub.lda = lda;
        rt_opt_gemm_f32(&sub, a, panel, bias + j * NR, c + j * NR);
    }
}

int rt_opt_fc_half_avx2(const rt_opt_gemm_params *p, int32_t type, const float *a, int exact, const uint16_t *packed_b,
                        const float *bias, float *c, void *scratch) {
    const int32_t k = p->k;
    float *arow = scratch, *panel = arow + (int64_t)(p->m < HALF_ROWS ? p->m : HALF_ROWS) * k;
    int32_t i0, r;
#if !defined(__F16C__)
    if (type == RT_F16) return 0;
#endif
    if (exact) { /* no rounded copy: all the rows against each panel widened once */
        gemm_exact(p, type, p->m, a, p->lda, packed_b, bias, c, scratch);
        return 1;
    }
    for (i0 = 0; i0 < p->m; i0 += BLOCK_ROWS) {
        const int32_t rows = p->m - i0 < BLOCK_ROWS ? p->m - i0 : BLOCK_ROWS;
        for (r = 0; r < rows; r++) rt_opt_round_half_row(a + (int64_t)(i0 + r) * p->lda, k, type, arow + (int64_t)r * k);
        gemm_exact(p, type, rows, arow, k, packed_b, bias, c + (int64_t)i0 * p->ldc, panel);
    }
    return 1;
}

#else
typedef int rt_opt_gemm16_avx2_unused; /* ISO C: a translation unit is not empty */
#endif
