/* rt_opt_gemm16_avx2.c - FULLY_CONNECTED (and each block of CONV_2D that is not read through a row table) with
 * 16-bit float weights on AVX2 + FMA without AVX-512 (e.g. AMD Zen 3): no 16-bit arithmetic there, so the
 * 16-bit weights are only storage (half the bytes) and the products are f32 FMAs on weights widened in
 * registers, straight from the packed panels (rt_opt_gemm_half.c: [K2][NR][2] per 16-column panel).
 * This file holds the entry point and the one-row kernel (GEMV) over four panels at once (eight FMA chains):
 * - bf16: a pair word holds k0 in its low and k1 in its high half, so 8 columns' pair words (one load) give
 *   k0's floats by a shift (word << 16) and k1's by an AND (word & 0xffff0000);
 * - fp16: vcvtph2ps from memory on 4 columns' pairs, then one shufps for k0 and one for k1 of 8 columns; the
 *   accumulators hold the columns in the order the shuffles leave them ([0 1 4 5 | 2 3 6 7]) and one
 *   permute per accumulator puts them back at the store.
 * Each column's sum runs from the bias through K in order, one FMA per product: the f32 GEMV's sums on the
 * widened weights, bit for bit. Two rows or more, and the panels past the last group of four, go to the row
 * GEMM's 6-row tiles (rt_opt_gemm16_rows_avx2.c; its 5-row tiles here before, 2026-11-29).
 * The input rows are NOT rounded to the 16-bit type: this is 16-bit storage with f32 arithmetic (the issue-42
 * rule for CPUs without 16-bit arithmetic), so each product is the f32 product of the input as it is and the
 * widened weight, and the result is closer to fp32 than rt_fully_connected_half's (which rounds the inputs, as
 * the 16-bit hardware does). Rounding them cost a pass over A per block (~12 vector ops per 8 bf16 values)
 * and made the kernel 0.92-1.0x the f32 GEMM at BERT's shapes; without it 1.09-1.14x (AMD EPYC Zen 3,
 * docs/precision-avx2.md). rt_opt_half_rounds_inputs says which path a build takes. */
#include <string.h>

#include "mpcc_rt.h"
#include "rt_opt.h"
#include "rt_opt_internal.h"

#if defined(RT_OPT_AVX2) && defined(__FMA__) && !defined(RT_OPT_AVX512)

#define NR RT_OPT_NR
#define ROW_PANELS 4 /* panels of the one-row kernel (GEMV): 8 independent FMA chains */

#if defined(__F16C__)
/* 8 columns' k0 (*e) and k1 (*o) of fp16 pairs at src (8 pair words), columns as [0 1 4 5 | 2 3 6 7]. */
#define WIDEN_F16(src, e, o)                                                                                        \
    do {                                                                                                            \
        const __m256 x_ = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(const void *)(src)));                 \
        const __m256 y_ = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(const void *)((src) + 8)));           \
        (e) = _mm256_shuffle_ps(x_, y_, 0x88);                                                                      \
        (o) = _mm256_shuffle_ps(x_, y_, 0xDD);                                                                      \
    } while (0)
#else
#define WIDEN_F16(src, e, o) ((e) = (o) = _mm256_setzero_ps()) /* not reached: fp16 needs F16C */
#endif
/* [0 1 4 5 | 2 3 6 7] <-> [0 1 2 3 | 4 5 6 7] (its own inverse) */
#define SWAP_MID(v) _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(v), 0xD8))
#define LOAD_BF16(src) _mm256_loadu_si256((const __m256i *)(const void *)(src))
#define K0_BF16(v) _mm256_castsi256_ps(_mm256_slli_epi32((v), 16))
#define K1_BF16(v, high) _mm256_castsi256_ps(_mm256_and_si256((v), (high)))

/* One row (GEMV) against ROW_PANELS full panels (pk halves apart): eight independent FMA chains, each column's
 * sum in K order from the bias. */
RT_OPT_INLINE void ukr16_row(const int f16, int32_t k, const float *a, const uint16_t *b, int64_t pk,
                             const float *bias, float lo, float hi, float *c) {
    const __m256i high = _mm256_set1_epi32((int32_t)0xFFFF0000u);
    const __m256 vlo = _mm256_set1_ps(lo), vhi = _mm256_set1_ps(hi);
    __m256 s[2 * ROW_PANELS], e[2 * ROW_PANELS], o[2 * ROW_PANELS];
    int32_t kk, q, pairs = k / 2;
    for (q = 0; q < 2 * ROW_PANELS; q++) {
        s[q] = _mm256_loadu_ps(bias + 8 * q);
        if (f16) s[q] = SWAP_MID(s[q]);
    }
    for (kk = 0; kk < (k + 1) / 2; kk++) {
        const __m256 x0 = _mm256_broadcast_ss(a + 2 * kk);
        for (q = 0; q < 2 * ROW_PANELS; q++) {
            const uint16_t *src = b + (q >> 1) * pk + (int64_t)kk * 2 * NR + (q & 1) * NR;
            if (f16) {
                WIDEN_F16(src, e[q], o[q]);
            } else {
                const __m256i v = LOAD_BF16(src);
                e[q] = K0_BF16(v);
                o[q] = K1_BF16(v, high);
            }
            s[q] = _mm256_fmadd_ps(e[q], x0, s[q]);
        }
        if (kk < pairs) {
            const __m256 x1 = _mm256_broadcast_ss(a + 2 * kk + 1);
            for (q = 0; q < 2 * ROW_PANELS; q++) s[q] = _mm256_fmadd_ps(o[q], x1, s[q]);
        }
    }
    for (q = 0; q < 2 * ROW_PANELS; q++) {
        __m256 v = _mm256_min_ps(vhi, _mm256_max_ps(vlo, s[q]));
        _mm256_storeu_ps(c + 8 * q, f16 ? SWAP_MID(v) : v);
    }
}

static void row_bf16(int32_t k, const float *a, const uint16_t *b, int64_t pk, const float *bias, float lo, float hi,
                     float *c) {
    ukr16_row(0, k, a, b, pk, bias, lo, hi, c);
}
static void row_f16(int32_t k, const float *a, const uint16_t *b, int64_t pk, const float *bias, float lo, float hi,
                    float *c) {
    ukr16_row(1, k, a, b, pk, bias, lo, hi, c);
}

int rt_opt_fc_half_avx2(const rt_opt_gemm_params *p, int32_t type, const float *a, const uint16_t *packed_b,
                        const float *bias, float *c) {
#if !defined(__F16C__)
    if (type == RT_F16) return 0;
#endif
    /* one row (GEMV): four full panels at a time here (eight FMA chains); the rest, and two rows or more, by the
     * row GEMM's tiles (rt_opt_gemm16_rows_avx2.c: 6 rows, the f32 GEMM's shape; fp16 there without shuffles) */
    const int32_t k2 = (p->k + 1) / 2;
    const int64_t pk = (int64_t)k2 * NR * 2;
    int32_t j = 0;
    rt_opt_gemm_params q = *p;
    if (p->m == 1)
        for (; (j + ROW_PANELS) * NR <= p->n; j += ROW_PANELS)
            (type == RT_F16 ? row_f16 : row_bf16)(p->k, a, packed_b + j * pk, pk, bias + j * NR, p->act_min,
                                                  p->act_max, c + j * NR);
    if (j * NR >= p->n) return 1;
    q.n = p->n - j * NR;
    return rt_opt_gemm16_rows_avx2(&q, type, p->m, a, NULL, 1, packed_b + j * pk, bias + j * NR, c + j * NR);
}

#else
typedef int rt_opt_gemm16_avx2_unused; /* ISO C: a translation unit is not empty */
#endif
