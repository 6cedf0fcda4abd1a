/* rt_opt_gemm16_avx2.c - FULLY_CONNECTED (and each im2col block of CONV_2D) with 16-bit float weights on
 * AVX2 + FMA without AVX-512 (e.g. AMD Zen 3): no 16-bit arithmetic there, so the 16-bit weights are only
 * storage (half the bytes) and the products are f32 FMAs on the widened weights, as fast as fp32 where the
 * widening costs next to nothing:
 *   - bf16 widens in registers inside a 5 x 16 micro-kernel (the f32 kernel's tile): a packed pair word holds
 *     k0 in its low and k1 in its high half, so word << 16 is k0's float and word & 0xffff0000 k1's, two
 *     integer operations per 8 weights that issue beside the FMAs;
 *   - fp16 (F16C) widens each panel once per block of input rows into scratch in the f32 GEMM's layout
 *     (vcvtph2ps and two shuffles per 8 weights) and runs the f32 GEMM on it; blocks of fewer than
 *     F16_WIDEN_ROWS rows (a GEMV) widen in registers instead, half a panel at a time, each row's pair of
 *     inputs broadcast as one 64-bit value against the pairs as they lie (even and odd K summed apart,
 *     added at the end).
 * The input rows are rounded to the 16-bit type first (rt_opt_round_half_row), so each product is exact and
 * only the summation order differs from rt_fully_connected_half. Packed layout: rt_opt_gemm_half.c. */
#include <string.h>

#include "mpcc_rt.h"
#include "rt_opt.h"
#include "rt_opt_internal.h"

#if defined(RT_OPT_AVX2) && defined(__FMA__) && !defined(RT_OPT_AVX512)

#define NR RT_OPT_NR
#define HALF_ROWS RT_OPT_HALF_ROWS
#define BF16_MR 4 /* 5 rows spill (10 accumulators, 2 pair words, 2 widened, broadcast, mask) */
#define F16_MR 4
#define WIDEN_ROWS 8 /* from this many rows in a block, panels are widened in scratch */
#define BLOCK_ROWS 30 /* rows a block (<= HALF_ROWS, the scratch): whole 5-row tiles of the f32 kernel */

/* c[0..mr)[0..nr) = clamp(bias + acc[r * nv + q]), nv vectors of 8 columns a row. */
static inline void store_tile8(const __m256 *acc, int32_t nv, int32_t mr, const float *bias, float lo, float hi,
                               float *c, int32_t ldc, int32_t nr) {
    const __m256 vlo = _mm256_set1_ps(lo), vhi = _mm256_set1_ps(hi);
    int32_t r, q;
    for (r = 0; r < mr; r++)
        for (q = 0; q < nv; q++) {
            /* operands ordered so a NaN passes through as in rt_clamp_f32 */
            __m256 v = _mm256_min_ps(vhi, _mm256_max_ps(vlo, _mm256_add_ps(acc[r * nv + q], _mm256_loadu_ps(bias + 8 * q))));
            int32_t cols = nr - 8 * q;
            if (cols >= 8)
                _mm256_storeu_ps(c + (int64_t)r * ldc + 8 * q, v);
            else if (cols > 0) {
                float t[8];
                _mm256_storeu_ps(t, v);
                memcpy(c + (int64_t)r * ldc + 8 * q, t, sizeof(float) * (size_t)cols);
            }
        }
}

/* bf16: one panel (16 columns) x BF16_MR rows; rows past mr repeat row 0 and are not stored. K in order
 * (k0 then k1 of each pair into the same accumulator), as the f32 kernel sums. */
static void ukr_bf16(int32_t k, const float *a, int32_t lda, int32_t mr, const uint16_t *b, const float *bias, float lo,
                     float hi, float *c, int32_t ldc, int32_t nr) {
    const __m256i high = _mm256_set1_epi32((int32_t)0xFFFF0000u);
    const float *a0 = a, *a1 = a + (mr > 1 ? lda : 0), *a2 = a + (mr > 2 ? 2 * lda : 0);
    const float *a3 = a + (mr > 3 ? 3 * (int64_t)lda : 0);
    __m256 acc[2 * BF16_MR], w0, w1, x;
    int32_t kk, pairs = k / 2, r;
    for (r = 0; r < 2 * BF16_MR; r++) acc[r] = _mm256_setzero_ps();
#define ROW(r, ap, at)                                                                                             \
    x = _mm256_broadcast_ss((ap) + (at));                                                                          \
    acc[2 * (r)] = _mm256_fmadd_ps(x, w0, acc[2 * (r)]);                                                           \
    acc[2 * (r) + 1] = _mm256_fmadd_ps(x, w1, acc[2 * (r) + 1])
    for (kk = 0; kk < pairs; kk++, b += 2 * NR) {
        const __m256i v0 = _mm256_loadu_si256((const __m256i *)(const void *)b);
        const __m256i v1 = _mm256_loadu_si256((const __m256i *)(const void *)(b + NR));
        w0 = _mm256_castsi256_ps(_mm256_slli_epi32(v0, 16));
        w1 = _mm256_castsi256_ps(_mm256_slli_epi32(v1, 16));
        ROW(0, a0, 2 * kk);
        ROW(1, a1, 2 * kk);
        ROW(2, a2, 2 * kk);
        ROW(3, a3, 2 * kk);
        w0 = _mm256_castsi256_ps(_mm256_and_si256(v0, high));
        w1 = _mm256_castsi256_ps(_mm256_and_si256(v1, high));
        ROW(0, a0, 2 * kk + 1);
        ROW(1, a1, 2 * kk + 1);
        ROW(2, a2, 2 * kk + 1);
        ROW(3, a3, 2 * kk + 1);
    }
    if (2 * pairs < k) { /* odd K: the last pair's k0 alone (its k1 weight is the zero padding) */
        w0 = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_loadu_si256((const __m256i *)(const void *)b), 16));
        w1 = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_loadu_si256((const __m256i *)(const void *)(b + NR)), 16));
        ROW(0, a0, 2 * pairs);
        ROW(1, a1, 2 * pairs);
        ROW(2, a2, 2 * pairs);
        ROW(3, a3, 2 * pairs);
    }
#undef ROW
    store_tile8(acc, 2, mr, bias, lo, hi, c, ldc, nr);
}

#if defined(__F16C__)
/* fp16: 8 columns (b at column 0 or 8 of a panel) x F16_MR rows. vcvtph2ps widens 4 columns' pairs as they
 * lie (c0k0 c0k1 c1k0 ...); a row's input pair, broadcast as one 64-bit value, meets them lane by lane. */
static void ukr_f16(int32_t k, const float *a, int32_t lda, int32_t mr, const uint16_t *b, const float *bias, float lo,
                    float hi, float *c, int32_t ldc, int32_t nr) {
    __m256 acc[F16_MR * 2], sum[F16_MR];
    const float *ar[F16_MR];
    int32_t kk, r, pairs = k / 2;
    for (r = 0; r < F16_MR; r++) {
        acc[2 * r] = acc[2 * r + 1] = _mm256_setzero_ps();
        ar[r] = a + (int64_t)(r < mr ? r : 0) * lda;
    }
    for (kk = 0; kk < pairs; kk++, b += NR * 2) {
        const __m256 w0 = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(const void *)b));
        const __m256 w1 = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(const void *)(b + 8)));
        for (r = 0; r < F16_MR; r++) {
            const __m256 x = _mm256_castpd_ps(_mm256_broadcast_sd((const double *)(const void *)(ar[r] + 2 * kk)));
            acc[2 * r] = _mm256_fmadd_ps(x, w0, acc[2 * r]);
            acc[2 * r + 1] = _mm256_fmadd_ps(x, w1, acc[2 * r + 1]);
        }
    }
    if (pairs * 2 < k) { /* odd K: the last input with a zero partner (never read past the row) */
        const __m256 w0 = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(const void *)b));
        const __m256 w1 = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(const void *)(b + 8)));
        for (r = 0; r < F16_MR; r++) {
            const __m256 x = _mm256_setr_ps(ar[r][2 * pairs], 0, ar[r][2 * pairs], 0, ar[r][2 * pairs], 0,
                                            ar[r][2 * pairs], 0);
            acc[2 * r] = _mm256_fmadd_ps(x, w0, acc[2 * r]);
            acc[2 * r + 1] = _mm256_fmadd_ps(x, w1, acc[2 * r + 1]);
        }
    }
    /* [c0e c0o c1e c1o | c2e c2o c3e c3o], [c4e .. | c6e ..]: hadd gives [c0 c1 c4 c5 | c2 c3 c6 c7] */
    for (r = 0; r < F16_MR; r++)
        sum[r] = _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(_mm256_hadd_ps(acc[2 * r], acc[2 * r + 1])), 0xD8));
    store_tile8(sum, 1, mr, bias, lo, hi, c, ldc, nr);
}

#endif

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
    int32_t j, r, h;
    for (j = 0; j * NR < p->n; j++) {
        const uint16_t *b = packed_b + (int64_t)j * k2 * NR * 2;
        const int32_t nr = p->n - j * NR < NR ? p->n - j * NR : NR;
        if (rows >= WIDEN_ROWS) { /* the panel once in f32 for all the rows, then the f32 GEMM */
            rt_opt_gemm_params sub = *p;
            widen_panel(b, k, type, panel);
            sub.m = rows;
            sub.n = nr;
            sub.lda = lda;
            rt_opt_gemm_f32(&sub, a, panel, bias + j * NR, c + j * NR);
        } else if (type == RT_BF16) {
            for (r = 0; r < rows; r += BF16_MR)
                ukr_bf16(k, a + (int64_t)r * lda, lda, rows - r < BF16_MR ? rows - r : BF16_MR, b, bias + j * NR,
                         p->act_min, p->act_max, c + (int64_t)r * p->ldc + j * NR, p->ldc, nr);
        } else {
#if defined(__F16C__)
            for (h = 0; h < nr; h += 8)
                for (r = 0; r < rows; r += F16_MR)
                    ukr_f16(k, a + (int64_t)r * lda, lda, rows - r < F16_MR ? rows - r : F16_MR, b + 2 * h,
                            bias + j * NR + h, p->act_min, p->act_max, c + (int64_t)r * p->ldc + j * NR + h, p->ldc,
                            nr - h);
#endif
        }
    }
    (void)h;
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
