/* rt_opt_gemm16_avx2.c - FULLY_CONNECTED (and each block of CONV_2D that is not read through a row table) with
 * 16-bit float weights on AVX2 + FMA without AVX-512 (e.g. AMD Zen 3): no 16-bit arithmetic there, so the
 * 16-bit weights are only storage (half the bytes) and the products are f32 FMAs on weights widened in
 * registers, straight from the packed panels (rt_opt_gemm_half.c: [K2][NR][2] per 16-column panel).
 * This file holds the entry point and the one-row kernels (GEMV), eight FMA chains each:
 * - bf16, four panels at once: a pair word holds k0 in its low and k1 in its high half, so 8 columns' pair
 *   words (one load) give k0's floats by a shift (word << 16) and k1's by an AND (word & 0xffff0000). Each
 *   column's sum runs from the bias through K in order, one FMA per product: the f32 GEMV's sums on the
 *   widened weights, bit for bit.
 * - fp16, two panels at once: vcvtph2ps of 4 columns' pair words FMAed by the broadcast input pair, an even-k
 *   and an odd-k partial sum per column added at the store (as rt_opt_gemm16_rows_avx2.c's fp16 tiles): one
 *   conversion per 8 weights and no shuffles. The shuffle kernel it replaced (k0 and k1 split by a shufps
 *   per conversion, one sum per column) ran 0.56-0.61x its speed (1 x 64 x 512 to 1 x 512 x 512, AMD EPYC
 *   Zen 3, thread CPU time, medians of 31); within rounding of the f32 GEMV, not bit for bit.
 * bf16's panels past the last group: one at a time, four chains (row_one_bf16). Two rows or more (and fp16's
 * panels past its groups) go to the row GEMM's 6-row tiles (rt_opt_gemm16_rows_avx2.c; its 5-row tiles here
 * before, 2026-11-29).
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

#if defined(RT_OPT_HALF_F32_AVX2)

#define NR RT_OPT_NR
#define ROW_PANELS 4 /* panels of the one-row kernel (GEMV): 8 independent FMA chains */

/* [0 1 4 5 | 2 3 6 7] <-> [0 1 2 3 | 4 5 6 7] (its own inverse) */
#define SWAP_MID(v) _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(v), 0xD8))
#define LOAD_BF16(src) _mm256_loadu_si256((const __m256i *)(const void *)(src))
#define K0_BF16(v) _mm256_castsi256_ps(_mm256_slli_epi32((v), 16))
#define K1_BF16(v, high) _mm256_castsi256_ps(_mm256_and_si256((v), (high)))

/* bf16, one row (GEMV) against ROW_PANELS full panels (pk halves apart): eight independent FMA chains, each
 * column's sum in K order from the bias. */
static void row_bf16(int32_t k, const float *a, const uint16_t *b, int64_t pk,
                             const float *bias, float lo, float hi, float *c) {
    const __m256i high = _mm256_set1_epi32((int32_t)0xFFFF0000u);
    const __m256 vlo = _mm256_set1_ps(lo), vhi = _mm256_set1_ps(hi);
    __m256 s[2 * ROW_PANELS], e[2 * ROW_PANELS], o[2 * ROW_PANELS];
    int32_t kk, q, pairs = k / 2;
    for (q = 0; q < 2 * ROW_PANELS; q++) s[q] = _mm256_loadu_ps(bias + 8 * q);
    for (kk = 0; kk < (k + 1) / 2; kk++) {
        const __m256 x0 = _mm256_broadcast_ss(a + 2 * kk);
        for (q = 0; q < 2 * ROW_PANELS; q++) {
            const uint16_t *src = b + (q >> 1) * pk + (int64_t)kk * 2 * NR + (q & 1) * NR;
            const __m256i v = LOAD_BF16(src);
            e[q] = K0_BF16(v);
            o[q] = K1_BF16(v, high);
            s[q] = _mm256_fmadd_ps(e[q], x0, s[q]);
        }
        if (kk < pairs) {
            const __m256 x1 = _mm256_broadcast_ss(a + 2 * kk + 1);
            for (q = 0; q < 2 * ROW_PANELS; q++) s[q] = _mm256_fmadd_ps(o[q], x1, s[q]);
        }
    }
    for (q = 0; q < 2 * ROW_PANELS; q++) {
        __m256 v = _mm256_min_ps(vhi, _mm256_max_ps(vlo, s[q]));
        _mm256_storeu_ps(c + 8 * q, v);
    }
}

#if defined(__F16C__)
/* fp16, one row against 2 full panels (32 columns): vcvtph2ps of 4 columns' pair words gives (c k0, c k1) per
 * column, FMAed by the broadcast input pair (a[k0], a[k1]), so each column keeps an even-k and an odd-k partial
 * sum (the bias in the even lanes), added at the store: one conversion per 8 weights and no shuffles (the
 * 4-panel kernel above: a shufps per conversion), eight FMA chains. Not the f32 GEMV's order (two partial sums
 * a column), so within rounding of it, as rt_opt_gemm16_rows_avx2's fp16 tiles. */
#define PAIR_PANELS 2
static void row_f16_pairs(int32_t k, const float *a, const uint16_t *b, int64_t pk, const float *bias, float lo,
                          float hi, float *c) {
    const __m256 zero = _mm256_setzero_ps(), vlo = _mm256_set1_ps(lo), vhi = _mm256_set1_ps(hi);
    __m256 s[4 * PAIR_PANELS], x;
    int32_t kk, q, pairs = k / 2;
    double d;
    for (q = 0; q < 4 * PAIR_PANELS; q += 2) { /* columns 4q/2 .. +7: bias (b0 0 b1 0 | b2 0 b3 0) per 4 */
        const __m256d bv = _mm256_castps_pd(_mm256_loadu_ps(bias + 4 * q));
        s[q] = _mm256_unpacklo_ps(_mm256_castpd_ps(_mm256_permute4x64_pd(bv, 0x50)), zero);
        s[q + 1] = _mm256_unpacklo_ps(_mm256_castpd_ps(_mm256_permute4x64_pd(bv, 0xFA)), zero);
    }
#define CVT(src) _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(const void *)(src)))
#define PAIR_STEP(x)                                                                                                   for (q = 0; q < 4 * PAIR_PANELS; q++)                                                                                  s[q] = _mm256_fmadd_ps(CVT(b + (q >> 2) * pk + (int64_t)kk * 2 * NR + (q & 3) * 8), (x), s[q]);
    for (kk = 0; kk < pairs; kk++) {
        memcpy(&d, a + 2 * kk, sizeof d);
        x = _mm256_castpd_ps(_mm256_set1_pd(d));
        PAIR_STEP(x)
    }
    if (k & 1) { /* the last pair's k1 is past the row: (a[k-1], 0) */
        x = _mm256_blend_ps(_mm256_broadcast_ss(a + k - 1), zero, 0xAA);
        PAIR_STEP(x)
    }
#undef PAIR_STEP
#undef CVT
    for (q = 0; q < 4 * PAIR_PANELS; q += 2) {
        const __m256 v = SWAP_MID(_mm256_hadd_ps(s[q], s[q + 1])); /* (c0 c1 c4 c5 | c2 c3 c6 c7) in order */
        _mm256_storeu_ps(c + 4 * q, _mm256_min_ps(vhi, _mm256_max_ps(vlo, v)));
    }
}
#endif

/* bf16, one row against one panel (nr <= 16 columns): the GEMV's panels after its groups (a classifier's 10 or 2
 * outputs, a tail), where the row GEMM's one-row tile ran at 0.64-0.84x the f32 GEMV (1 x 10 x 64 to 1 x 48 x
 * 128); here 0.85-1.43x (kernel A/B, Intel Xeon, -O2 -march=haswell, thread CPU time, medians of 11, two runs).
 * The k0 and k1 products of each 8 columns in their own chains (four), added at the store: within rounding of the
 * f32 GEMV (not its order), as the groups above. (fp16 keeps the row tile: the same scheme with vcvtph2ps ran
 * 0.36-0.59x against its 0.46-0.87x.) */
static void row_one_bf16(int32_t k, const float *a, const uint16_t *b, const float *bias, float lo, float hi, float *c,
                         int32_t nr) {
    const __m256i high = _mm256_set1_epi32((int32_t)0xFFFF0000u);
    const __m256 zero = _mm256_setzero_ps(), vlo = _mm256_set1_ps(lo), vhi = _mm256_set1_ps(hi);
    __m256 e0 = _mm256_loadu_ps(bias), e1 = _mm256_loadu_ps(bias + 8), o0 = zero, o1 = zero;
    float out[NR];
    int32_t kk, pairs = k / 2;
    for (kk = 0; kk < (k + 1) / 2; kk++) {
        const __m256i w0 = LOAD_BF16(b + (int64_t)kk * 2 * NR), w1 = LOAD_BF16(b + (int64_t)kk * 2 * NR + NR);
        const __m256 x0 = _mm256_broadcast_ss(a + 2 * kk);
        e0 = _mm256_fmadd_ps(K0_BF16(w0), x0, e0);
        e1 = _mm256_fmadd_ps(K0_BF16(w1), x0, e1);
        if (kk < pairs) {
            const __m256 x1 = _mm256_broadcast_ss(a + 2 * kk + 1);
            o0 = _mm256_fmadd_ps(K1_BF16(w0, high), x1, o0);
            o1 = _mm256_fmadd_ps(K1_BF16(w1, high), x1, o1);
        }
    }
    _mm256_storeu_ps(out, _mm256_min_ps(vhi, _mm256_max_ps(vlo, _mm256_add_ps(e0, o0))));
    _mm256_storeu_ps(out + 8, _mm256_min_ps(vhi, _mm256_max_ps(vlo, _mm256_add_ps(e1, o1))));
    memcpy(c, out, sizeof(float) * (size_t)(nr < NR ? nr : NR));
}

int rt_opt_fc_half_avx2(const rt_opt_gemm_params *p, int32_t type, const float *a, const uint16_t *packed_b,
                        const float *bias, float *c) {
#if !defined(__F16C__)
    if (type == RT_F16) return 0;
#endif
    /* one row (GEMV): four full panels (bf16) or two (fp16) at a time here (eight FMA chains), bf16's rest one
     * panel at a time (row_one_bf16); fp16's rest and two rows or more by the row GEMM's tiles
     * (rt_opt_gemm16_rows_avx2.c: 6 rows, the f32 GEMM's shape) */
    const int32_t k2 = (p->k + 1) / 2;
    const int64_t pk = (int64_t)k2 * NR * 2;
    int32_t j = 0;
    rt_opt_gemm_params q = *p;
#if defined(__F16C__)
    if (p->m == 1 && type == RT_F16)
        for (; (j + PAIR_PANELS) * NR <= p->n; j += PAIR_PANELS)
            row_f16_pairs(p->k, a, packed_b + j * pk, pk, bias + j * NR, p->act_min, p->act_max, c + j * NR);
#endif
    if (p->m == 1 && type == RT_BF16)
        for (; (j + ROW_PANELS) * NR <= p->n; j += ROW_PANELS)
            row_bf16(p->k, a, packed_b + j * pk, pk, bias + j * NR, p->act_min, p->act_max, c + j * NR);
    if (p->m == 1 && type == RT_BF16) { /* the panels after the groups, one at a time */
        for (; j * NR < p->n; j++)
            row_one_bf16(p->k, a, packed_b + j * pk, bias + j * NR, p->act_min, p->act_max, c + j * NR, p->n - j * NR);
        return 1;
    }
    if (j * NR >= p->n) return 1;
    q.n = p->n - j * NR;
    return rt_opt_gemm16_rows_avx2(&q, type, p->m, a, NULL, 1, packed_b + j * pk, bias + j * NR, c + j * NR);
}

#else
typedef int rt_opt_gemm16_avx2_unused; /* ISO C: a translation unit is not empty */
#endif
