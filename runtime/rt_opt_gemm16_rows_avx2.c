/* rt_opt_gemm16_rows_avx2.c - the GEMM of 16-bit float weights (bf16 / fp16) over row pointers on AVX2 + FMA
 * without AVX-512: the 16-bit-weight twin of rt_opt_gemm_f32_avx2.c's rt_opt_gemm_f32_rows_avx2.
 *
 * Same shape as the f32 one: K is nseg segments of seg values, row r's segment s at tab[r * nseg + s] (a
 * convolution's filter rows read in place from the f32 image: no im2col copy), or with tab NULL row r at
 * a + r * lda; every tile size its own straight-line code. The weights are the 16-bit packed panels
 * ([K2][16][2] pair words per 16-column panel, rt_opt_gemm_half.c), widened in registers:
 * - bf16: tiles of 6 rows x 16 columns (8 x 8 for a panel's last 8 or fewer columns); a shift gives k0's
 *   floats of 8 columns' pair words, an AND k1's. Each column's sum starts at the bias and adds
 *   A[r][k] * B[k][c] in K order, one FMA per k: rt_opt_gemm_f32_rows_avx2's results on the widened weights,
 *   bit for bit.
 * - fp16: tiles of 6 rows x 8 columns (a panel as two halves) that FMA the converted pairs as they are:
 *   vcvtph2ps of 4 columns' pair words times the input pair (a[k0], a[k1]) broadcast, so each column keeps
 *   two partial sums (even and odd k), added at the store; no shuffles (rt_opt_gemm16_avx2.c's fp16 kernel
 *   spends a shufps per conversion to split the pairs). Not the f32 GEMM's order, so its results within
 *   rounding, not bit for bit.
 * A segment may start at an odd k (a 3-channel 3x3 filter row is 9 values): its first value then takes the
 * k1 half of its pair, and a last odd value the k0 half.
 *
 * 16-bit storage, f32 arithmetic (issue 42: this CPU class has no 16-bit products): the inputs are f32 as they
 * are, not rounded to the 16-bit type. */
#include <string.h>

#include "mpcc_rt.h"
#include "rt_opt.h"
#include "rt_opt_internal.h"

#if defined(RT_OPT_GEMM16_ROWS_AVX2)

#define NR RT_OPT_NR

/* [0 1 4 5 | 2 3 6 7] <-> [0 1 2 3 | 4 5 6 7] (its own inverse) */
#define SWAP_MID(v) _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(v), 0xD8))
#define PAIRS(src) _mm256_loadu_si256((const __m256i *)(const void *)(src))
#define K0_BF16(src) _mm256_castsi256_ps(_mm256_slli_epi32(PAIRS(src), 16))
#define K1_BF16(src) _mm256_castsi256_ps(_mm256_and_si256(PAIRS(src), high))
/* row r's pointer to segment sg (rows past the tile's R are never read) */
#define ROW(r) if ((r) < R) a##r = ap[(r) * nseg + sg];


/* bf16: C[0..R)[0..nr) for 8 < nr <= 16: R <= 6 rows x 2 ymm, named accumulators. */
RT_OPT_INLINE void ukr_6x16(const int32_t R, int32_t nseg, int32_t seg, const float *const *ap,
                            const uint16_t *b, const float *bias, float lo, float hi, float *c, int32_t ldc,
                            int32_t nr) {
    const __m256i high = _mm256_set1_epi32((int32_t)0xFFFF0000u);
    const __m256 bias0 = _mm256_loadu_ps(bias), bias1 = _mm256_loadu_ps(bias + 8);
    __m256 c00, c01, c10, c11, c20, c21, c30, c31, c40, c41, c50, c51, e0, e1, o0, o1;
    const float *a0 = NULL, *a1 = NULL, *a2 = NULL, *a3 = NULL, *a4 = NULL, *a5 = NULL;
    int32_t sg, kk, k = 0;
    c00 = c10 = c20 = c30 = c40 = c50 = bias0;
    c01 = c11 = c21 = c31 = c41 = c51 = bias1;
#define STEP(r, w0, w1, off)                                                                                        \
    if ((r) < R) {                                                                                                  \
        const __m256 s_ = _mm256_broadcast_ss(a##r + (off));                                                        \
        c##r##0 = _mm256_fmadd_ps((w0), s_, c##r##0);                                                              \
        c##r##1 = _mm256_fmadd_ps((w1), s_, c##r##1);                                                              \
    }
#define STEPS(w0, w1, off) STEP(0, w0, w1, off) STEP(1, w0, w1, off) STEP(2, w0, w1, off) \
                           STEP(3, w0, w1, off) STEP(4, w0, w1, off) STEP(5, w0, w1, off)
    for (sg = 0; sg < nseg; sg++, k += seg) {
        const uint16_t *p = b + (int64_t)(k / 2) * 2 * NR; /* the pair of k */
        ROW(0) ROW(1) ROW(2) ROW(3) ROW(4) ROW(5)
        kk = 0;
        if (k & 1) { /* the segment starts at a pair's k1 */
            o0 = K1_BF16(p), o1 = K1_BF16(p + NR);
            STEPS(o0, o1, 0)
            kk = 1, p += 2 * NR;
        }
        for (; kk + 1 < seg; kk += 2, p += 2 * NR) {
            e0 = K0_BF16(p), e1 = K0_BF16(p + NR);
            STEPS(e0, e1, kk)
            o0 = K1_BF16(p), o1 = K1_BF16(p + NR); /* the pair words again (an L1 hit): fewer live registers */
            STEPS(o0, o1, kk + 1)
        }
        if (kk < seg) { /* the segment ends at a pair's k0 */
            e0 = K0_BF16(p), e1 = K0_BF16(p + NR);
            STEPS(e0, e1, kk)
        }
    }
#undef STEPS
#undef STEP
    {
        const __m256 vlo = _mm256_set1_ps(lo), vhi = _mm256_set1_ps(hi);
        const __m256i m1 = rt_opt_col_mask(nr - 8);
#define STORE(r) if ((r) < R) rt_opt_store_row16(c + (int64_t)(r) * ldc, c##r##0, c##r##1, nr, m1, vlo, vhi);
        STORE(0) STORE(1) STORE(2) STORE(3) STORE(4) STORE(5)
#undef STORE
    }
}

/* bf16: C[0..R)[0..nr) for nr <= 8 (a panel's first 8 columns' pair words): R <= 8 rows x 1 ymm. */
RT_OPT_INLINE void ukr_8x8(const int32_t R, int32_t nseg, int32_t seg, const float *const *ap,
                           const uint16_t *b, const float *bias, float lo, float hi, float *c, int32_t ldc,
                           int32_t nr) {
    const __m256i high = _mm256_set1_epi32((int32_t)0xFFFF0000u);
    const __m256 bv = _mm256_loadu_ps(bias);
    __m256 c0, c1, c2, c3, c4, c5, c6, c7, e, o;
    const float *a0 = NULL, *a1 = NULL, *a2 = NULL, *a3 = NULL, *a4 = NULL, *a5 = NULL, *a6 = NULL, *a7 = NULL;
    int32_t sg, kk, k = 0;
    c0 = c1 = c2 = c3 = c4 = c5 = c6 = c7 = bv;
#define STEP(r, w, off) if ((r) < R) c##r = _mm256_fmadd_ps((w), _mm256_broadcast_ss(a##r + (off)), c##r);
#define STEPS(w, off) STEP(0, w, off) STEP(1, w, off) STEP(2, w, off) STEP(3, w, off) \
                      STEP(4, w, off) STEP(5, w, off) STEP(6, w, off) STEP(7, w, off)
    for (sg = 0; sg < nseg; sg++, k += seg) {
        const uint16_t *p = b + (int64_t)(k / 2) * 2 * NR;
        ROW(0) ROW(1) ROW(2) ROW(3) ROW(4) ROW(5) ROW(6) ROW(7)
        kk = 0;
        if (k & 1) {
            o = K1_BF16(p);
            STEPS(o, 0)
            kk = 1, p += 2 * NR;
        }
        for (; kk + 1 < seg; kk += 2, p += 2 * NR) {
            e = K0_BF16(p), o = K1_BF16(p);
            STEPS(e, kk)
            STEPS(o, kk + 1)
        }
        if (kk < seg) {
            e = K0_BF16(p);
            STEPS(e, kk)
        }
    }
#undef STEPS
#undef STEP
    {
        const __m256 vlo = _mm256_set1_ps(lo), vhi = _mm256_set1_ps(hi);
        const __m256i m = rt_opt_col_mask(nr);
#define STORE(r) if ((r) < R) rt_opt_store_row8(c + (int64_t)(r) * ldc, c##r, nr, m, vlo, vhi);
        STORE(0) STORE(1) STORE(2) STORE(3) STORE(4) STORE(5) STORE(6) STORE(7)
#undef STORE
    }
}

#if defined(__F16C__)
/* The pair (a[0], a[1]) in every 64-bit lane (vbroadcastsd), for the fp16 pair kernel. */
static inline __m256 pair_bcast(const float *a) {
    double d;
    memcpy(&d, a, sizeof d);
    return _mm256_castpd_ps(_mm256_set1_pd(d));
}

/* fp16: C[0..R)[0..nr) for nr <= 8 of one half (8 columns' pair words, 16 halves a k pair, 2 * NR apart) of
 * a panel, R <= 6 rows x 2 ymm, without shuffles: vcvtph2ps of 4 columns' pair words gives (k0, k1) per
 * column, and one FMA by the broadcast input pair (a[k0], a[k1]) adds both products into their own lane;
 * the even lanes (bias + even k) and the odd ones (odd k) are added at the store. 2 conversions and 6
 * broadcasts per 12 FMAs (the 16-column shuffle kernel: 4 conversions and 4 shuffles per 24). Not
 * rt_opt_gemm_f32_rows_avx2's order (two partial sums per column), so not its results bit for bit. */
RT_OPT_INLINE void ukr_f16p_6x8(const int32_t R, int32_t nseg, int32_t seg, const float *const *ap,
                                const uint16_t *b, const float *bias, float lo, float hi, float *c, int32_t ldc,
                                int32_t nr) {
    const __m256 zero = _mm256_setzero_ps();
    /* bias of columns 0-3 / 4-7 in the even lanes */
    const __m256 bv = _mm256_loadu_ps(bias);
    /* (b0 b1 . . | b2 b3 . .) unpacked with zeros: (b0 0 b1 0 | b2 0 b3 0), the lanes of the conversion's
     * (c0k0 c0k1 c1k0 c1k1 | c2k0 c2k1 c3k0 c3k1) */
    const __m256 b0 = _mm256_unpacklo_ps(_mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(bv), 0x50)), zero);
    const __m256 b1 = _mm256_unpacklo_ps(_mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(bv), 0xFA)), zero);
    __m256 c00, c01, c10, c11, c20, c21, c30, c31, c40, c41, c50, c51, w0, w1;
    const float *a0 = NULL, *a1 = NULL, *a2 = NULL, *a3 = NULL, *a4 = NULL, *a5 = NULL;
    int32_t sg, kk, k = 0;
    c00 = b0, c01 = b1;
    c10 = c20 = c30 = c40 = c50 = c00;
    c11 = c21 = c31 = c41 = c51 = c01;
#define CVT(src) _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(const void *)(src)))
#define STEP(r, x)                                                                                                  \
    if ((r) < R) {                                                                                                  \
        const __m256 s_ = (x);                                                                                      \
        c##r##0 = _mm256_fmadd_ps(w0, s_, c##r##0);                                                                 \
        c##r##1 = _mm256_fmadd_ps(w1, s_, c##r##1);                                                                 \
    }
#define STEPS(X) STEP(0, X(a0)) STEP(1, X(a1)) STEP(2, X(a2)) STEP(3, X(a3)) STEP(4, X(a4)) STEP(5, X(a5))
#define X_PAIR(ar) pair_bcast(ar + kk)
#define X_K1(ar) _mm256_blend_ps(_mm256_broadcast_ss(ar + kk), zero, 0x55) /* (0, a[kk]) */
#define X_K0(ar) _mm256_blend_ps(_mm256_broadcast_ss(ar + kk), zero, 0xAA) /* (a[kk], 0) */
    for (sg = 0; sg < nseg; sg++, k += seg) {
        const uint16_t *p = b + (int64_t)(k / 2) * 2 * NR;
        ROW(0) ROW(1) ROW(2) ROW(3) ROW(4) ROW(5)
        kk = 0;
        if (k & 1) { /* the segment starts at a pair's k1 */
            w0 = CVT(p), w1 = CVT(p + 8);
            STEPS(X_K1)
            kk = 1, p += 2 * NR;
        }
        for (; kk + 1 < seg; kk += 2, p += 2 * NR) {
            w0 = CVT(p), w1 = CVT(p + 8);
            STEPS(X_PAIR)
        }
        if (kk < seg) { /* the segment ends at a pair's k0 */
            w0 = CVT(p), w1 = CVT(p + 8);
            STEPS(X_K0)
        }
    }
#undef X_K0
#undef X_K1
#undef X_PAIR
#undef STEPS
#undef STEP
#undef CVT
    {
        const __m256 vlo = _mm256_set1_ps(lo), vhi = _mm256_set1_ps(hi);
        const __m256i m = rt_opt_col_mask(nr);
        /* hadd(c_0, c_1): (c0 c1 c4 c5 | c2 c3 c6 c7), back in order by SWAP_MID */
#define STORE(r)                                                                                                    \
    if ((r) < R) rt_opt_store_row8(c + (int64_t)(r) * ldc, SWAP_MID(_mm256_hadd_ps(c##r##0, c##r##1)), nr, m, vlo, vhi);
        STORE(0) STORE(1) STORE(2) STORE(3) STORE(4) STORE(5)
#undef STORE
    }
}
#endif

/* One tile of `rows` rows through the kernel compiled for that many rows (at most R) and that type. */
#define CASE(n, UKR, R)                                                                                        \
    case n: UKR((n) < (R) ? (n) : (R), nseg, seg, ap, b, bias, lo, hi, c, ldc, nr); break;
#define TILE(UKR, R, NAME)                                                                                     \
    static void NAME(int32_t rows, int32_t nseg, int32_t seg, const float *const *ap, const uint16_t *b,            \
                     const float *bias, float lo, float hi, float *c, int32_t ldc, int32_t nr) {                    \
        switch (rows) {                                                                                             \
            CASE(1, UKR, R) CASE(2, UKR, R) CASE(3, UKR, R) CASE(4, UKR, R)                     \
            CASE(5, UKR, R) CASE(6, UKR, R) CASE(7, UKR, R)                                          \
        default: UKR(R, nseg, seg, ap, b, bias, lo, hi, c, ldc, nr); break;                                    \
        }                                                                                                           \
    }
TILE(ukr_6x16, 6, tile16_bf16)
TILE(ukr_8x8, 8, tile8_bf16)
#if defined(__F16C__)
TILE(ukr_f16p_6x8, 6, tile8_f16)
#endif

#if defined(RT_OPT_F32_ROWS_AVX2) && defined(__F16C__)
/* ---- Many rows (AVX2 builds): each panel widened once, then the f32 GEMM's own tiles ----
 * As rt_opt_gemm16_avx512.c: with enough rows, widening a panel once into an f32 copy in the f32 GEMM's packed
 * layout ([K][16] floats) and running rt_opt_gemm_f32_rows_avx2's tiles over all the rows with it costs less
 * than widening in every tile; its results are the f32 GEMM's on the widened weights bit for bit (fp16 too).
 * The copy lives on the stack: RT_OPT_WIDEN_KMAX x 16 floats (36,864 bytes at K 576); deeper K keeps the
 * in-register kernels below. */
#ifndef RT_OPT_WIDEN_KMAX
#define RT_OPT_WIDEN_KMAX 576
#endif
/* Fewer rows: the in-register tiles (the widening not amortized). Kernel A/B on an Intel Xeon (AVX2 build): bf16
 * widened 0.91-1.03x the f32 GEMM from 12 rows where its tiles run 0.85-0.90x; fp16's widening (a pack, a permute
 * and two vcvtph2ps per 16 weights) pays from ~32 rows (17 rows: 0.78-0.86x widened, 0.84-0.90x in registers). */
#ifndef RT_OPT_WIDEN_MIN_ROWS
#define RT_OPT_WIDEN_MIN_ROWS 12
#endif
#ifndef RT_OPT_WIDEN_MIN_ROWS_F16
#define RT_OPT_WIDEN_MIN_ROWS_F16 32
#endif

/* the packed 16-bit panel b widened to an f32 panel [k][16] at d */
RT_OPT_INLINE void widen(const int32_t F16, int32_t k, const uint16_t *b, float *d) {
    const __m256i high = _mm256_set1_epi32((int32_t)0xFFFF0000u), low = _mm256_set1_epi32(0xFFFF);
    int32_t kk;
    for (kk = 0; kk < k; kk += 2, b += 2 * NR, d += 2 * NR) {
        const __m256i w0 = PAIRS(b), w1 = PAIRS(b + NR); /* columns 0-7, 8-15: (k0, k1) pair words */
        if (F16) { /* the 16 k0 halves in column order (packus interleaves 128-bit lanes: 0xD8 puts them back) */
            const __m256i h0 = _mm256_permute4x64_epi64(_mm256_packus_epi32(_mm256_and_si256(w0, low),
                                                                            _mm256_and_si256(w1, low)), 0xD8);
            _mm256_storeu_ps(d, _mm256_cvtph_ps(_mm256_castsi256_si128(h0)));
            _mm256_storeu_ps(d + 8, _mm256_cvtph_ps(_mm256_extracti128_si256(h0, 1)));
            if (kk + 1 < k) {
                const __m256i h1 = _mm256_permute4x64_epi64(_mm256_packus_epi32(_mm256_srli_epi32(w0, 16),
                                                                                _mm256_srli_epi32(w1, 16)), 0xD8);
                _mm256_storeu_ps(d + NR, _mm256_cvtph_ps(_mm256_castsi256_si128(h1)));
                _mm256_storeu_ps(d + NR + 8, _mm256_cvtph_ps(_mm256_extracti128_si256(h1, 1)));
            }
        } else {
            _mm256_storeu_ps(d, _mm256_castsi256_ps(_mm256_slli_epi32(w0, 16)));
            _mm256_storeu_ps(d + 8, _mm256_castsi256_ps(_mm256_slli_epi32(w1, 16)));
            if (kk + 1 < k) {
                _mm256_storeu_ps(d + NR, _mm256_castsi256_ps(_mm256_and_si256(w0, high)));
                _mm256_storeu_ps(d + NR + 8, _mm256_castsi256_ps(_mm256_and_si256(w1, high)));
            }
        }
    }
}

int rt_opt_gemm16_widen_all(int32_t type, int32_t k, int32_t n, const uint16_t *packed_b, float *dst, int64_t floats) {
    const int32_t panels = (n + NR - 1) / NR;
    const int64_t pk = (int64_t)(k + 1) / 2 * 2 * NR;
    int32_t j;
    if ((int64_t)panels * NR * k > floats) return 0;
    for (j = 0; j < panels; j++) {
        if (type == RT_F16) widen(1, k, packed_b + j * pk, dst + (int64_t)j * k * NR);
        else widen(0, k, packed_b + j * pk, dst + (int64_t)j * k * NR);
    }
    return 1;
}

void rt_opt_gemm16_widened_rows(const rt_opt_gemm_params *p, int32_t m, const float *a, const float *const *tab,
                                int32_t nseg, const float *wide, const float *bias, float *c) {
    rt_opt_gemm_f32_rows_avx2(p, m, a, tab, nseg, wide, bias, c);
}

int rt_opt_gemm16_widens(int32_t type, int32_t m, int32_t k) {
    return m >= (type == RT_F16 ? RT_OPT_WIDEN_MIN_ROWS_F16 : RT_OPT_WIDEN_MIN_ROWS) && k <= RT_OPT_WIDEN_KMAX;
}

static void gemm_widened(const rt_opt_gemm_params *p, int32_t f16, int32_t m, const float *a, const float *const *tab,
                         int32_t nseg, const uint16_t *packed_b, const float *bias, float *c) {
    float buf[RT_OPT_WIDEN_KMAX * NR] __attribute__((aligned(32)));
    const int64_t pk = (int64_t)(p->k + 1) / 2 * 2 * NR;
    rt_opt_gemm_params q = *p;
    int32_t j;
    for (j = 0; j * NR < p->n; j++) {
        if (f16) widen(1, p->k, packed_b + j * pk, buf);
        else widen(0, p->k, packed_b + j * pk, buf);
        q.n = p->n - j * NR < NR ? p->n - j * NR : NR;
        rt_opt_gemm_f32_rows_avx2(&q, m, a, tab, nseg, buf, bias + j * NR, c + j * NR);
    }
}
#endif

int rt_opt_gemm16_rows_avx2(const rt_opt_gemm_params *p, int32_t type, int32_t m, const float *a,
                            const float *const *tab, int32_t nseg, const uint16_t *packed_b, const float *bias,
                            float *c) {
    const int32_t seg = p->k / nseg, f16 = type == RT_F16;
    const int64_t pk = (int64_t)(p->k + 1) / 2 * 2 * NR; /* halves of a panel */
    const float *rows[8];
    int32_t i, j, r, rr;
#if !defined(__F16C__)
    if (f16) return 0;
#endif
#if defined(RT_OPT_F32_ROWS_AVX2) && defined(__F16C__)
    if (rt_opt_gemm16_widens(type, m, p->k)) {
        gemm_widened(p, f16, m, a, tab, nseg, packed_b, bias, c);
        return 1;
    }
#endif
    /* panel-outer: one packed panel (K x 16 halves) stays in cache while the rows stream past it */
    for (j = 0; j * NR < p->n; j++) {
        const uint16_t *bp = packed_b + j * pk;
        const int32_t nr = p->n - j * NR < NR ? p->n - j * NR : NR, mr = !f16 && nr <= 8 ? 8 : 6;
        int32_t tiles = (m + mr - 1) / mr;
        for (i = 0; i < m; i += rr, tiles--) {
            const float *const *ap = tab ? tab + (int64_t)i * nseg : rows;
            float *ct = c + (int64_t)i * p->ldc + j * NR;
            rr = rt_opt_even_rows(m - i, tiles);
            if (!tab)
                for (rows[0] = a + (int64_t)i * p->lda, r = 1; r < rr; r++) rows[r] = rows[r - 1] + p->lda;
#if defined(__F16C__)
            if (f16) { /* the panel's two 8-column halves */
                tile8_f16(rr, nseg, seg, ap, bp, bias + j * NR, p->act_min, p->act_max, ct, p->ldc, nr < 8 ? nr : 8);
                if (nr > 8)
                    tile8_f16(rr, nseg, seg, ap, bp + 8 * 2, bias + j * NR + 8, p->act_min, p->act_max, ct + 8, p->ldc,
                              nr - 8);
                continue;
            }
#endif
            (nr <= 8 ? tile8_bf16 : tile16_bf16)(rr, nseg, seg, ap, bp, bias + j * NR, p->act_min, p->act_max, ct,
                                                 p->ldc, nr);
        }
    }
    return 1;
}

#else
typedef int rt_opt_gemm16_rows_avx2_unused; /* ISO C: a translation unit is not empty */
#endif
