/* rt_opt_gemm16_avx2.c - FULLY_CONNECTED (and each im2col block of CONV_2D) with 16-bit float weights on
 * AVX2 + FMA without AVX-512 (e.g. AMD Zen 3): no 16-bit arithmetic there, so the 16-bit weights are only
 * storage (half the bytes) and the products are f32 FMAs on weights widened in registers, inside the
 * micro-kernels, straight from the packed panels (rt_opt_gemm_half.c: [K2][NR][2] per 16-column panel):
 * - bf16: a pair word holds k0 in its low and k1 in its high half, so 8 columns' pair words (one load) give
 *   k0's floats by a shift (word << 16) and k1's by an AND (word & 0xffff0000): two integer ops per 16
 *   weights, and the kernel reads half the bytes of the f32 GEMM's;
 * - fp16: vcvtph2ps from memory on 4 columns' pairs, then one shufps for k0 and one for k1 of 8 columns; the
 *   accumulators hold the columns in the order the shuffles leave them ([0 1 4 5 | 2 3 6 7]) and one
 *   permute per accumulator puts them back at the store.
 * Each column's sum runs from the bias through K in order, one FMA per product: the sums of the f32 GEMM
 * (ukr_f32, its GEMV kernel) on the widened weights, bit for bit, however the rows are blocked. No widened
 * copy of the weights is made (the previous version widened each panel into scratch per block of rows and
 * ran the f32 GEMM on it: an extra pass over memory, 0.7-0.9x the speed of fp32).
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
#define MR16 5     /* rows of a tile: 10 accumulators, 2-4 widened weight vectors, a broadcast */
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

/* Row r's two accumulators times the widened weights (w0: columns 0-7, w1: 8-15) and its input at offset off
 * (rows past R compiled out). Named accumulators: GCC kept an array of them in memory, storing each every
 * step. */
#define FMA_ROW(r, w0, w1, off)                                                                                     \
    do {                                                                                                            \
        if (R > (r)) {                                                                                              \
            const __m256 x_ = _mm256_broadcast_ss(a##r + (off));                                                    \
            c##r##0 = _mm256_fmadd_ps((w0), x_, c##r##0);                                                           \
            c##r##1 = _mm256_fmadd_ps((w1), x_, c##r##1);                                                           \
        }                                                                                                           \
    } while (0)
#define FMA_ROWS(w0, w1, off)                                                                                       \
    do {                                                                                                            \
        FMA_ROW(0, w0, w1, off);                                                                                    \
        FMA_ROW(1, w0, w1, off);                                                                                    \
        FMA_ROW(2, w0, w1, off);                                                                                    \
        FMA_ROW(3, w0, w1, off);                                                                                    \
        FMA_ROW(4, w0, w1, off);                                                                                    \
    } while (0)
/* Row r clamped, columns back in order (fp16), stored (a short panel through t). */
#define STORE_ROW(r)                                                                                                \
    do {                                                                                                            \
        if (R > (r) && mr > (r)) {                                                                                  \
            __m256 v0_ = _mm256_min_ps(vhi, _mm256_max_ps(vlo, c##r##0));                                           \
            __m256 v1_ = _mm256_min_ps(vhi, _mm256_max_ps(vlo, c##r##1));                                           \
            float *cr_ = nr == NR ? c + (int64_t)(r)*ldc : t;                                                       \
            if (f16) v0_ = SWAP_MID(v0_), v1_ = SWAP_MID(v1_);                                                      \
            _mm256_storeu_ps(cr_, v0_);                                                                             \
            _mm256_storeu_ps(cr_ + 8, v1_);                                                                         \
            if (nr != NR) memcpy(c + (int64_t)(r)*ldc, t, sizeof(float) * (size_t)nr);                             \
        }                                                                                                           \
    } while (0)

/* C[0..mr)[0..nr) = clamp(bias + A[0..mr) . panel b) for R >= mr rows (rows past mr repeat row 0 and are not
 * stored); f16: the weights' type is fp16 (else bf16). */
RT_OPT_INLINE void ukr16(const int32_t R, const int f16, int32_t k, const float *a, int32_t lda, int32_t mr,
                         const uint16_t *b, const float *bias, float lo, float hi, float *c, int32_t ldc, int32_t nr) {
    const __m256i high = _mm256_set1_epi32((int32_t)0xFFFF0000u);
    const float *a0 = a, *a1 = a + (mr > 1 ? lda : 0), *a2 = a + (mr > 2 ? 2 * lda : 0);
    const float *a3 = a + (mr > 3 ? 3 * (int64_t)lda : 0), *a4 = a + (mr > 4 ? 4 * (int64_t)lda : 0);
    __m256 c00, c01, c10, c11, c20, c21, c30, c31, c40, c41, e0, e1, o0, o1;
    int32_t kk, pairs = k / 2;
    c00 = _mm256_loadu_ps(bias), c01 = _mm256_loadu_ps(bias + 8);
    if (f16) c00 = SWAP_MID(c00), c01 = SWAP_MID(c01);
    c10 = c20 = c30 = c40 = c00;
    c11 = c21 = c31 = c41 = c01;
    for (kk = 0; kk < pairs; kk++, b += 2 * NR) {
        if (f16) {
            WIDEN_F16(b, e0, o0);
            WIDEN_F16(b + NR, e1, o1);
        } else {
            e0 = K0_BF16(LOAD_BF16(b));
            e1 = K0_BF16(LOAD_BF16(b + NR));
        }
        FMA_ROWS(e0, e1, 2 * kk);
        if (!f16) { /* the pair words again (an L1 hit folded into the AND): fewer live registers */
            o0 = K1_BF16(LOAD_BF16(b), high);
            o1 = K1_BF16(LOAD_BF16(b + NR), high);
        }
        FMA_ROWS(o0, o1, 2 * kk + 1);
    }
    if (k & 1) { /* odd K: the last input alone (its pair's k1 is padding) */
        if (f16) {
            WIDEN_F16(b, e0, o0);
            WIDEN_F16(b + NR, e1, o1);
            (void)o0, (void)o1;
        } else {
            e0 = K0_BF16(LOAD_BF16(b));
            e1 = K0_BF16(LOAD_BF16(b + NR));
        }
        FMA_ROWS(e0, e1, 2 * pairs);
    }
    {
        const __m256 vlo = _mm256_set1_ps(lo), vhi = _mm256_set1_ps(hi);
        float t[NR];
        STORE_ROW(0);
        STORE_ROW(1);
        STORE_ROW(2);
        STORE_ROW(3);
        STORE_ROW(4);
    }
}

/* One row (GEMV) against ROW_PANELS full panels (pk halves apart): eight independent FMA chains, each column's
 * sum in K order from the bias, as ukr16's. */
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

/* The kernels with their row count and type fixed (one copy each, the loops unrolled by the compiler). */
typedef void (*ukr16_fn)(int32_t, const float *, int32_t, int32_t, const uint16_t *, const float *, float, float,
                         float *, int32_t, int32_t);
#define UKR16(R, F16, NAME)                                                                                         \
    static void NAME(int32_t k, const float *a, int32_t lda, int32_t mr, const uint16_t *b, const float *bias,     \
                     float lo, float hi, float *c, int32_t ldc, int32_t nr) {                                       \
        ukr16(R, F16, k, a, lda, mr, b, bias, lo, hi, c, ldc, nr);                                                  \
    }
UKR16(1, 0, ukr_bf16_1)
UKR16(2, 0, ukr_bf16_2)
UKR16(3, 0, ukr_bf16_3)
UKR16(4, 0, ukr_bf16_4)
UKR16(5, 0, ukr_bf16_5)
UKR16(1, 1, ukr_f16_1)
UKR16(2, 1, ukr_f16_2)
UKR16(3, 1, ukr_f16_3)
UKR16(4, 1, ukr_f16_4)
UKR16(5, 1, ukr_f16_5)
static const ukr16_fn ukr_bf16[MR16] = {ukr_bf16_1, ukr_bf16_2, ukr_bf16_3, ukr_bf16_4, ukr_bf16_5};
static const ukr16_fn ukr_f16[MR16] = {ukr_f16_1, ukr_f16_2, ukr_f16_3, ukr_f16_4, ukr_f16_5};
static void row_bf16(int32_t k, const float *a, const uint16_t *b, int64_t pk, const float *bias, float lo, float hi,
                     float *c) {
    ukr16_row(0, k, a, b, pk, bias, lo, hi, c);
}
static void row_f16(int32_t k, const float *a, const uint16_t *b, int64_t pk, const float *bias, float lo, float hi,
                    float *c) {
    ukr16_row(1, k, a, b, pk, bias, lo, hi, c);
}

/* Rows of the next tile, rest left: 5, or the rest split evenly when 6..8 are left (no 1- to 3-row tail). */
static int32_t tile_rows(int32_t rest) {
    return rest <= MR16 ? rest : rest < 2 * MR16 - 1 ? (rest + 1) / 2 : MR16;
}

/* Rows [0, rows) of C (ldc apart) from rows of A (lda apart), f32 products on the inputs as they are:
 * panel-outer (a panel stays in L1 while the rows stream past it). */
static void gemm_exact(const rt_opt_gemm_params *p, int32_t type, int32_t rows, const float *a, int32_t lda,
                       const uint16_t *packed_b, const float *bias, float *c) {
    const int32_t k = p->k, k2 = (k + 1) / 2;
    const int64_t pk = (int64_t)k2 * NR * 2;
    const ukr16_fn *tab = type == RT_F16 ? ukr_f16 : ukr_bf16;
    int32_t j = 0, i, rr;
    if (rows == 1) /* GEMV: ROW_PANELS full panels at a time */
        for (; (j + ROW_PANELS) * NR <= p->n; j += ROW_PANELS)
            (type == RT_F16 ? row_f16 : row_bf16)(k, a, packed_b + j * pk, pk, bias + j * NR, p->act_min, p->act_max,
                                                  c + j * NR);
    for (; j * NR < p->n; j++) {
        const int32_t nr = p->n - j * NR < NR ? p->n - j * NR : NR;
        for (i = 0; i < rows; i += rr) {
            rr = tile_rows(rows - i);
            tab[rr - 1](k, a + (int64_t)i * lda, lda, rr, packed_b + j * pk, bias + j * NR, p->act_min, p->act_max,
                        c + (int64_t)i * p->ldc + j * NR, p->ldc, nr);
        }
    }
}

int rt_opt_fc_half_avx2(const rt_opt_gemm_params *p, int32_t type, const float *a, const uint16_t *packed_b,
                        const float *bias, float *c) {
#if !defined(__F16C__)
    if (type == RT_F16) return 0;
#endif
    /* two rows or more: the row GEMM's 6-row tiles (rt_opt_gemm16_rows_avx2.c, the f32 GEMM's shape; fp16 there
     * without shuffles); one row: the GEMV below (eight FMA chains over four panels) */
    if (p->m > 1) return rt_opt_gemm16_rows_avx2(p, type, p->m, a, NULL, 1, packed_b, bias, c);
    gemm_exact(p, type, p->m, a, p->lda, packed_b, bias, c);
    return 1;
}

#else
typedef int rt_opt_gemm16_avx2_unused; /* ISO C: a translation unit is not empty */
#endif
