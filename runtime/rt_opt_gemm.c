/* rt_opt_gemm.c - packed-weight GEMM micro-kernels (f32 FMA, int8 VNNI) with
 * fused epilogues (bias, clamp, TFLite requantization), and convolution as
 * GEMM over im2col row blocks. See rt_opt.h for layouts. */
#include <string.h>

#include "mpcc_rt.h"
#include "rt_opt.h"
#include "rt_opt_internal.h"

#if defined(__GNUC__) && !defined(RT_OPT_SCALAR)
#define RT_OPT_VEC 1
typedef float rt_v8f __attribute__((vector_size(32)));
#if defined(__AVX__) || defined(__FMA__) || defined(__AVX2__)
#include <immintrin.h>
#endif
#endif

#define MR_F32 5
#define NR RT_OPT_NR

const char *rt_opt_isa(void) {
#if defined(RT_OPT_VEC) && defined(__FMA__) && defined(__AVX2__)
    return "vector-extensions+fma+avx2";
#elif defined(RT_OPT_VEC) && defined(__FMA__)
    return "vector-extensions+fma";
#elif defined(RT_OPT_VEC)
    return "vector-extensions";
#else
    return "scalar";
#endif
}

/* ---- f32 ------------------------------------------------------------- */

#if defined(RT_OPT_VEC)
/* Unaligned vector load/store (macros: no vector values cross a call ABI). */
#define LD8(v, p) memcpy(&(v), (p), sizeof(rt_v8f))
#define ST8(p, v) memcpy((p), &(v), sizeof(rt_v8f))
#if defined(__FMA__)
#define FMA8(acc, b, s) ((acc) = (rt_v8f)_mm256_fmadd_ps((__m256)(b), _mm256_set1_ps(s), (__m256)(acc)))
#else
#define FMA8(acc, b, s) ((acc) += (b) * (s))
#endif
/* Clamp to [lo, hi] in registers, operands ordered so a NaN passes through
 * as in rt_clamp_f32 (max_ps/min_ps return the second operand on NaN).
 * Without AVX the tile is clamped in memory (RT_OPT_CLAMP_IN_MEMORY). */
#if defined(__AVX__)
#define CLAMP8(v) ((v) = (rt_v8f)_mm256_min_ps(_mm256_set1_ps(hi), _mm256_max_ps(_mm256_set1_ps(lo), (__m256)(v))))
#else
#define CLAMP8(v) ((void)0)
#define RT_OPT_CLAMP_IN_MEMORY 1
#endif

/* C[0..mr)[0..nr) = clamp(bias + A[0..mr) . panel); MR_F32 x 16 in registers. */
static void ukr_f32(int32_t k, const float *a, int32_t lda, int32_t mr, const float *b, const float *bias, float lo,
                    float hi, float *c, int32_t ldc, int32_t nr) {
    const float *a0 = a, *a1 = a + (mr > 1 ? lda : 0), *a2 = a + (mr > 2 ? 2 * lda : 0);
    const float *a3 = a + (mr > 3 ? 3 * lda : 0), *a4 = a + (mr > 4 ? 4 * lda : 0);
    rt_v8f c00, c01, c10, c11, c20, c21, c30, c31, c40, c41, b0, b1;
    int32_t kk, r;
    LD8(c00, bias);
    LD8(c01, bias + 8);
    c10 = c20 = c30 = c40 = c00;
    c11 = c21 = c31 = c41 = c01;
    for (kk = 0; kk < k; kk++) {
        LD8(b0, b);
        LD8(b1, b + 8);
        b += NR;
        FMA8(c00, b0, a0[kk]);
        FMA8(c01, b1, a0[kk]);
        FMA8(c10, b0, a1[kk]);
        FMA8(c11, b1, a1[kk]);
        FMA8(c20, b0, a2[kk]);
        FMA8(c21, b1, a2[kk]);
        FMA8(c30, b0, a3[kk]);
        FMA8(c31, b1, a3[kk]);
        FMA8(c40, b0, a4[kk]);
        FMA8(c41, b1, a4[kk]);
    }
    {
        /* Clamp in registers; a full tile is stored straight to C. */
        float t[MR_F32][NR];
        float *d0 = t[0], *d1 = t[1], *d2 = t[2], *d3 = t[3], *d4 = t[4];
        CLAMP8(c00);
        CLAMP8(c01);
        CLAMP8(c10);
        CLAMP8(c11);
        CLAMP8(c20);
        CLAMP8(c21);
        CLAMP8(c30);
        CLAMP8(c31);
        CLAMP8(c40);
        CLAMP8(c41);
#if defined(RT_OPT_CLAMP_IN_MEMORY)
        if (0) {
#else
        if (mr == MR_F32 && nr == NR) {
#endif
            d0 = c;
            d1 = c + ldc;
            d2 = c + 2 * (int64_t)ldc;
            d3 = c + 3 * (int64_t)ldc;
            d4 = c + 4 * (int64_t)ldc;
        }
        ST8(d0, c00);
        ST8(d0 + 8, c01);
        ST8(d1, c10);
        ST8(d1 + 8, c11);
        ST8(d2, c20);
        ST8(d2 + 8, c21);
        ST8(d3, c30);
        ST8(d3 + 8, c31);
        ST8(d4, c40);
        ST8(d4 + 8, c41);
        if (d0 != c)
            for (r = 0; r < mr; r++) {
#if defined(RT_OPT_CLAMP_IN_MEMORY)
                int32_t j;
                for (j = 0; j < NR; j++) t[r][j] = rt_clamp_f32(t[r][j], lo, hi);
#endif
                memcpy(c + (int64_t)r * ldc, t[r], sizeof(float) * (size_t)nr);
            }
    }
}
#else
static void ukr_f32(int32_t k, const float *a, int32_t lda, int32_t mr, const float *b, const float *bias, float lo,
                    float hi, float *c, int32_t ldc, int32_t nr) {
    float acc[MR_F32][NR];
    int32_t r, j, kk;
    for (r = 0; r < mr; r++)
        for (j = 0; j < NR; j++) acc[r][j] = bias[j];
    for (kk = 0; kk < k; kk++)
        for (r = 0; r < mr; r++) {
            float s = a[(int64_t)r * lda + kk];
            for (j = 0; j < NR; j++) acc[r][j] += s * b[(int64_t)kk * NR + j];
        }
    for (r = 0; r < mr; r++)
        for (j = 0; j < nr; j++) c[(int64_t)r * ldc + j] = rt_clamp_f32(acc[r][j], lo, hi);
}
#endif

#if defined(RT_OPT_VEC) && defined(__AVX512F__)
#define RT_OPT_INDIRECT 1
#define MR_512 8
/* AVX-512 micro-kernels over rows given by pointers: K is nseg segments of
 * seg values, row r's segment s starts at ap[r * nseg + s] (a GEMM: one
 * segment per row; a convolution: one per filter row, read in place from
 * the image, so no im2col copy). Rows >= mr repeat row 0 and are not stored.
 * ukr_f32_512: C[0..mr)[0..32) from two adjacent panels (b0, b1: K x 16
 * each), 8 rows x 2 zmm = 16 accumulators, 2 loads + 8 broadcasts per 16
 * FMAs; nr <= 32 columns are stored. */
#if defined(__GNUC__)
#define RT_OPT_INLINE static inline __attribute__((always_inline))
#else
#define RT_OPT_INLINE static inline
#endif
RT_OPT_INLINE void ukr_f32_512(const int32_t R, int32_t nseg, int32_t seg, const float *const *ap, int32_t mr,
                               const float *b0, const float *b1, const float *bias, float lo, float hi, float *c,
                               int32_t ldc, int32_t nr) {
    const float *ar[MR_512];
    __m512 acc[MR_512][2], vlo = _mm512_set1_ps(lo), vhi = _mm512_set1_ps(hi);
    int32_t kk, r, sg;
    for (r = 0; r < R; r++) {
        acc[r][0] = _mm512_loadu_ps(bias);
        acc[r][1] = _mm512_loadu_ps(bias + NR);
    }
    for (sg = 0; sg < nseg; sg++) {
        const float *p0 = b0 + (int64_t)sg * seg * NR, *p1 = b1 + (int64_t)sg * seg * NR;
        for (r = 0; r < R; r++) ar[r] = ap[(r < mr ? r : 0) * nseg + sg];
        kk = 0;
        if (R == 1) { /* one row (GEMV): four partial sums per column, so the FMAs do not wait on each other */
            __m512 e0 = _mm512_setzero_ps(), e1 = e0, f0 = e0, f1 = e0, g0 = e0, g1 = e0;
            for (; kk + 4 <= seg; kk += 4) {
                const float *q0 = p0 + (int64_t)kk * NR, *q1 = p1 + (int64_t)kk * NR;
                acc[0][0] = _mm512_fmadd_ps(_mm512_loadu_ps(q0), _mm512_set1_ps(ar[0][kk]), acc[0][0]);
                acc[0][1] = _mm512_fmadd_ps(_mm512_loadu_ps(q1), _mm512_set1_ps(ar[0][kk]), acc[0][1]);
                e0 = _mm512_fmadd_ps(_mm512_loadu_ps(q0 + NR), _mm512_set1_ps(ar[0][kk + 1]), e0);
                e1 = _mm512_fmadd_ps(_mm512_loadu_ps(q1 + NR), _mm512_set1_ps(ar[0][kk + 1]), e1);
                f0 = _mm512_fmadd_ps(_mm512_loadu_ps(q0 + 2 * NR), _mm512_set1_ps(ar[0][kk + 2]), f0);
                f1 = _mm512_fmadd_ps(_mm512_loadu_ps(q1 + 2 * NR), _mm512_set1_ps(ar[0][kk + 2]), f1);
                g0 = _mm512_fmadd_ps(_mm512_loadu_ps(q0 + 3 * NR), _mm512_set1_ps(ar[0][kk + 3]), g0);
                g1 = _mm512_fmadd_ps(_mm512_loadu_ps(q1 + 3 * NR), _mm512_set1_ps(ar[0][kk + 3]), g1);
            }
            acc[0][0] = _mm512_add_ps(acc[0][0], _mm512_add_ps(e0, _mm512_add_ps(f0, g0)));
            acc[0][1] = _mm512_add_ps(acc[0][1], _mm512_add_ps(e1, _mm512_add_ps(f1, g1)));
        }
        for (; kk < seg; kk++) {
            __m512 x0 = _mm512_loadu_ps(p0 + (int64_t)kk * NR), x1 = _mm512_loadu_ps(p1 + (int64_t)kk * NR);
            for (r = 0; r < R; r++) {
                __m512 s = _mm512_set1_ps(ar[r][kk]);
                acc[r][0] = _mm512_fmadd_ps(x0, s, acc[r][0]);
                acc[r][1] = _mm512_fmadd_ps(x1, s, acc[r][1]);
            }
        }
    }
    for (r = 0; r < mr && r < R; r++) {
        /* max/min operand order keeps NaN as rt_clamp_f32 does */
        __m512 v0 = _mm512_min_ps(vhi, _mm512_max_ps(vlo, acc[r][0]));
        __m512 v1 = _mm512_min_ps(vhi, _mm512_max_ps(vlo, acc[r][1]));
        float *cr = c + (int64_t)r * ldc;
        if (nr == 2 * NR) {
            _mm512_storeu_ps(cr, v0);
            _mm512_storeu_ps(cr + NR, v1);
        } else {
            __mmask16 m0 = (__mmask16)(nr >= NR ? 0xFFFF : (1u << nr) - 1);
            __mmask16 m1 = (__mmask16)(nr >= 2 * NR ? 0xFFFF : nr > NR ? (1u << (nr - NR)) - 1 : 0);
            _mm512_mask_storeu_ps(cr, m0, v0);
            _mm512_mask_storeu_ps(cr + NR, m1, v1);
        }
    }
}

#define MR_512_1 14
/* A lone last panel (nr <= 16 columns): 14 rows x 1 zmm, so no second
 * panel is computed only to be thrown away (convolutions with 16 or fewer
 * output channels would run at half the FMA rate). */
RT_OPT_INLINE void ukr_f32_512_1(const int32_t R, int32_t nseg, int32_t seg, const float *const *ap, int32_t mr,
                                 const float *b, const float *bias, float lo, float hi, float *c, int32_t ldc,
                                 int32_t nr) {
    const float *ar[MR_512_1];
    __m512 acc[MR_512_1], vlo = _mm512_set1_ps(lo), vhi = _mm512_set1_ps(hi);
    __mmask16 m = (__mmask16)(nr >= NR ? 0xFFFF : (1u << nr) - 1);
    int32_t kk, r, sg;
    for (r = 0; r < R; r++) acc[r] = _mm512_loadu_ps(bias);
    for (sg = 0; sg < nseg; sg++) {
        const float *p0 = b + (int64_t)sg * seg * NR;
        for (r = 0; r < R; r++) ar[r] = ap[(r < mr ? r : 0) * nseg + sg];
        kk = 0;
        if (R == 1) { /* GEMV: four partial sums, as in ukr_f32_512 */
            __m512 e = _mm512_setzero_ps(), f = e, g = e;
            for (; kk + 4 <= seg; kk += 4) {
                const float *q = p0 + (int64_t)kk * NR;
                acc[0] = _mm512_fmadd_ps(_mm512_loadu_ps(q), _mm512_set1_ps(ar[0][kk]), acc[0]);
                e = _mm512_fmadd_ps(_mm512_loadu_ps(q + NR), _mm512_set1_ps(ar[0][kk + 1]), e);
                f = _mm512_fmadd_ps(_mm512_loadu_ps(q + 2 * NR), _mm512_set1_ps(ar[0][kk + 2]), f);
                g = _mm512_fmadd_ps(_mm512_loadu_ps(q + 3 * NR), _mm512_set1_ps(ar[0][kk + 3]), g);
            }
            acc[0] = _mm512_add_ps(acc[0], _mm512_add_ps(e, _mm512_add_ps(f, g)));
        }
        for (; kk < seg; kk++) {
            __m512 x = _mm512_loadu_ps(p0 + (int64_t)kk * NR);
            for (r = 0; r < R; r++) acc[r] = _mm512_fmadd_ps(x, _mm512_set1_ps(ar[r][kk]), acc[r]);
        }
    }
    for (r = 0; r < mr && r < R; r++)
        _mm512_mask_storeu_ps(c + (int64_t)r * ldc, m, _mm512_min_ps(vhi, _mm512_max_ps(vlo, acc[r])));
}

/* The kernels with the row count fixed (few rows, GEMV above all, do not pay for a full tile). */
#define RT_OPT_UKR_ROWS(R)                                                                                          \
    static void ukr2_##R(int32_t nseg, int32_t seg, const float *const *ap, int32_t mr, const float *b0,           \
                         const float *b1, const float *bias, float lo, float hi, float *c, int32_t ldc, int32_t nr) { \
        ukr_f32_512(R, nseg, seg, ap, mr, b0, b1, bias, lo, hi, c, ldc, nr);                                      \
    }                                                                                                             \
    static void ukr1_##R(int32_t nseg, int32_t seg, const float *const *ap, int32_t mr, const float *b0,           \
                         const float *b1, const float *bias, float lo, float hi, float *c, int32_t ldc, int32_t nr) { \
        (void)b1;                                                                                                 \
        ukr_f32_512_1(R, nseg, seg, ap, mr, b0, bias, lo, hi, c, ldc, nr);                                        \
    }
RT_OPT_UKR_ROWS(1)
RT_OPT_UKR_ROWS(2)
RT_OPT_UKR_ROWS(4)
RT_OPT_UKR_ROWS(8)
static void ukr1_14(int32_t nseg, int32_t seg, const float *const *ap, int32_t mr, const float *b0, const float *b1,
                    const float *bias, float lo, float hi, float *c, int32_t ldc, int32_t nr) {
    (void)b1;
    ukr_f32_512_1(MR_512_1, nseg, seg, ap, mr, b0, bias, lo, hi, c, ldc, nr);
}
typedef void (*ukr_fn)(int32_t, int32_t, const float *const *, int32_t, const float *, const float *, const float *,
                       float, float, float *, int32_t, int32_t);

/* The kernel for rr rows: two panels (8 rows at most) or a lone one (14 rows at most). */
static ukr_fn pick_ukr(int32_t rr, int lone) {
    if (rr <= 1) return lone ? ukr1_1 : ukr2_1;
    if (rr <= 2) return lone ? ukr1_2 : ukr2_2;
    if (rr <= 4) return lone ? ukr1_4 : ukr2_4;
    if (rr <= 8) return lone ? ukr1_8 : ukr2_8;
    return ukr1_14;
}

/* C[0..m) = A . packed_b with row r's K values in nseg segments at tab[r * nseg + s] (tab NULL: rows of
 * a, lda apart, one segment). Two panels (32 columns) at a time; the rows stream past them. */
static void gemm_f32_512(const rt_opt_gemm_params *p, int32_t m, const float *a, const float *const *tab,
                         int32_t nseg, const float *packed_b, const float *bias, float *c) {
    const float *rows[MR_512_1];
    int32_t j, i, r, seg = tab ? p->k / nseg : p->k;
    for (j = 0; j * NR < p->n; j += 2) {
        const float *b0 = packed_b + (int64_t)j * p->k * NR;
        const float *b1 = (j + 1) * NR < p->n ? b0 + (int64_t)p->k * NR : b0;
        int32_t nr = p->n - j * NR < 2 * NR ? p->n - j * NR : 2 * NR, mr = b1 == b0 ? MR_512_1 : MR_512;
        for (i = 0; i < m; i += mr) {
            int32_t rr = m - i < mr ? m - i : mr;
            const float *const *ap = tab ? tab + (int64_t)i * nseg : rows;
            if (!tab)
                for (r = 0; r < rr; r++) rows[r] = a + (int64_t)(i + r) * p->lda;
            pick_ukr(rr, b1 == b0)(tab ? nseg : 1, seg, ap, rr, b0, b1, bias + j * NR, p->act_min, p->act_max,
                                   c + (int64_t)i * p->ldc + j * NR, p->ldc, nr);
        }
    }
}
#endif

void rt_opt_gemm_f32(const rt_opt_gemm_params *p, const float *a, const float *packed_b, const float *bias, float *c) {
#if defined(RT_OPT_INDIRECT)
    (void)ukr_f32; /* the AVX2 kernel is not used here */
    gemm_f32_512(p, p->m, a, NULL, 1, packed_b, bias, c);
#else
    /* Panel-outer: one packed panel (K x 16) stays in cache while all rows
     * of A stream past it. */
    int32_t j, i;
    for (j = 0; j * NR < p->n; j++) {
        const float *bp = packed_b + (int64_t)j * p->k * NR;
        int32_t nr = p->n - j * NR < NR ? p->n - j * NR : NR;
        for (i = 0; i < p->m; i += MR_F32)
            ukr_f32(p->k, a + (int64_t)i * p->lda, p->lda, p->m - i < MR_F32 ? p->m - i : MR_F32, bp, bias + j * NR,
                    p->act_min, p->act_max, c + (int64_t)i * p->ldc + j * NR, p->ldc, nr);
    }
#endif
}

/* ---- int8 ------------------------------------------------------------
 * Exact int8 GEMM on unsigned x signed byte quads: activations become
 * a + 128 (0..255) bytes in a scratch block (im2col writes them so
 * directly), weights are packed at compile time as int8 [N/16][K4/4][16][4]
 * (K4 = K rounded up to 4, zero padded), and each step multiplies one
 * broadcast quad of A by 16 columns: with AVX512-VNNI one vpdpbusd (64 exact
 * products summed into int32 lanes, no saturation) per 16 columns and row;
 * otherwise the quads are widened to int16 and multiplied with pmaddwd
 * (AVX2) or in plain C. Accumulators wrap like TFLite's int32 sums. */

#define K4(k) (((k) + 3) / 4 * 4)

static void requant_row(const rt_opt_gemm_params *p, const int32_t *acc, const int32_t *bias, const int32_t *mult,
                        const int32_t *shift, int8_t *out, int32_t nr) {
    int8_t v[NR];
    rt_opt_requant_i8(acc, bias, mult, shift, NR, p->rounding, p->out_offset, p->act_qmin, p->act_qmax, v);
    memcpy(out, v, (size_t)nr);
}

#if defined(RT_OPT_AVX2)
/* Stores the first nr of 16 packed int8 results. */
static void store_row16(int8_t *dst, __m128i packed, int32_t nr) {
    int8_t t[NR];
    if (nr == NR) {
        _mm_storeu_si128((__m128i *)(void *)dst, packed);
        return;
    }
    _mm_storeu_si128((__m128i *)(void *)t, packed);
    memcpy(dst, t, (size_t)nr);
}
#endif

#if defined(RT_OPT_AVX512)
/* Requantizes an mr x 16 tile: one zmm per row; needs every shift in
 * [-31, 0] (checked per panel). */
static void requant_tile(const rt_opt_gemm_params *p, int32_t (*acc)[NR], int32_t mr, const int32_t *bias,
                         const int32_t *mult, const int32_t *shift, int8_t *c, int32_t nr) {
    const __m512i off = _mm512_set1_epi32(p->out_offset), lo = _mm512_set1_epi32(p->act_qmin);
    const __m512i hi = _mm512_set1_epi32(p->act_qmax);
    const __m512i m = _mm512_loadu_si512((const void *)mult), s = _mm512_loadu_si512((const void *)shift);
    const __m512i b = _mm512_loadu_si512((const void *)bias);
    const rq16 k = rq16_prepare(m, s);
    int32_t r;
    for (r = 0; r < mr; r++) {
        __m512i x = _mm512_add_epi32(_mm512_loadu_si512((const void *)acc[r]), b);
        __m512i v = p->rounding == RT_OPT_ROUND_SINGLE ? rq_single16(x, m, s) : rq16_apply(x, &k);
        __m128i packed;
        v = _mm512_min_epi32(_mm512_max_epi32(_mm512_add_epi32(v, off), lo), hi);
        packed = _mm512_cvtepi32_epi8(v);
        store_row16(c + (int64_t)r * p->ldc, packed, nr);
    }
}
#elif defined(RT_OPT_AVX2)
/* Requantizes an mr x 16 tile: multipliers, shifts and bias of the panel
 * are loaded once; needs every shift in [-31, 0] (checked per panel). */
static void requant_tile(const rt_opt_gemm_params *p, int32_t (*acc)[NR], int32_t mr, const int32_t *bias,
                         const int32_t *mult, const int32_t *shift, int8_t *c, int32_t nr) {
    const __m256i off = _mm256_set1_epi32(p->out_offset), lo = _mm256_set1_epi32(p->act_qmin);
    const __m256i hi = _mm256_set1_epi32(p->act_qmax);
    __m256i m0 = _mm256_loadu_si256((const __m256i *)(const void *)mult);
    __m256i m1 = _mm256_loadu_si256((const __m256i *)(const void *)(mult + 8));
    __m256i s0 = _mm256_loadu_si256((const __m256i *)(const void *)shift);
    __m256i s1 = _mm256_loadu_si256((const __m256i *)(const void *)(shift + 8));
    __m256i b0 = _mm256_loadu_si256((const __m256i *)(const void *)bias);
    __m256i b1 = _mm256_loadu_si256((const __m256i *)(const void *)(bias + 8));
    int32_t r;
    for (r = 0; r < mr; r++) {
        __m256i x0 = _mm256_add_epi32(_mm256_loadu_si256((const __m256i *)(const void *)acc[r]), b0);
        __m256i x1 = _mm256_add_epi32(_mm256_loadu_si256((const __m256i *)(const void *)(acc[r] + 8)), b1);
        __m256i v0, v1;
        __m128i packed;
        if (p->rounding == RT_OPT_ROUND_SINGLE) {
            v0 = rq_single8(x0, m0, s0);
            v1 = rq_single8(x1, m1, s1);
        } else {
            v0 = rq_double8(x0, m0, s0);
            v1 = rq_double8(x1, m1, s1);
        }
        v0 = _mm256_min_epi32(_mm256_max_epi32(_mm256_add_epi32(v0, off), lo), hi);
        v1 = _mm256_min_epi32(_mm256_max_epi32(_mm256_add_epi32(v1, off), lo), hi);
        packed = _mm_unpacklo_epi64(pack8(v0), pack8(v1));
        store_row16(c + (int64_t)r * p->ldc, packed, nr);
    }
}
#endif

/* Adds a per-row term (BATCH_MATMUL's right zero point times the row sums
 * of A), wrapping like the accumulators. */
static void add_rows(int32_t (*acc)[NR], int32_t mr, const int32_t *row_add) {
    int32_t r, c;
    if (!row_add) return;
    for (r = 0; r < mr; r++)
        for (c = 0; c < NR; c++) acc[r][c] = (int32_t)((uint32_t)acc[r][c] + (uint32_t)row_add[r]);
}

/* Requantizes an mr x 16 accumulator tile into C (vector path when every
 * shift of the panel is in [-31, 0]). */
static void store_tile(const rt_opt_gemm_params *p, int32_t (*acc)[NR], int32_t mr, const int32_t *bias, int32_t col,
                       int8_t *c, int32_t nr, int vec) {
    int32_t r;
#if defined(RT_OPT_AVX2)
    if (vec) {
        requant_tile(p, acc, mr, bias + col, p->mult + col, p->shift + col, c, nr);
        return;
    }
#else
    (void)vec;
#endif
    for (r = 0; r < mr; r++)
        requant_row(p, acc[r], bias + col, p->mult + col, p->shift + col, c + (int64_t)r * p->ldc, nr);
}

static int panel_vec(const rt_opt_gemm_params *p, int32_t col) {
    int32_t r, vec = 1;
    for (r = 0; r < NR; r++) vec &= p->shift[col + r] <= 0 && p->shift[col + r] >= -31;
    return vec;
}

#if defined(RT_OPT_VEC) && defined(__AVX512F__) && defined(__AVX512BW__) && defined(__AVX512VNNI__) && \
    defined(RT_OPT_AVX2)
#define RT_OPT_S8_VNNI 1
#define MR_S8 8
/* 8 rows x two panels (32 columns): per quad of K, 2 loads of 64 bytes,
 * 8 broadcasts and 16 vpdpbusd into 16 zmm accumulators. */
/* One panel's requantization constants, loaded and prepared once per panel pair. */
typedef struct panel_q {
    __m512i bias, m, s;
    rq16 k;
    int32_t col, nr;
} panel_q;

static void panel_q_init(const rt_opt_gemm_params *p, const int32_t *bias, int32_t col, panel_q *q) {
    q->bias = _mm512_loadu_si512((const void *)(bias + col));
    q->m = _mm512_loadu_si512((const void *)(p->mult + col));
    q->s = _mm512_loadu_si512((const void *)(p->shift + col));
    q->k = rq16_prepare_z(q->m, q->s, p->rounding == RT_OPT_ROUND_SINGLE ? 0 : p->out_offset);
    q->col = col;
    q->nr = p->n - col < NR ? p->n - col : NR;
}

/* The kernels below keep every accumulator in a named variable (arrays of
 * __m512i made GCC copy and spill them in the K loop) and requantize in
 * registers (no int32 tile in memory): every shift of the panels in
 * [-31, 0], no row corrections. */
/* Four bytes of A as one int32 broadcast to every lane. */
static inline __m512i bcast4(const uint8_t *src) {
    int32_t x;
    memcpy(&x, src, 4);
    return _mm512_set1_epi32(x);
}

/* Requantizes one row of a panel (16 accumulators) and stores its q->nr bytes. */
RT_OPT_INLINE void q_store16(const rt_opt_gemm_params *p, const panel_q *q, __m512i acc, int8_t *dst) {
    const __m512i v = p->rounding == RT_OPT_ROUND_SINGLE
                          ? _mm512_add_epi32(rq_single16(acc, q->m, q->s), _mm512_set1_epi32(p->out_offset))
                          : rq16_apply_z(acc, &q->k);
    _mm512_mask_cvtsepi32_storeu_epi8((void *)dst, (__mmask16)((1u << q->nr) - 1u),
                                      clamp16_i8(v, p->act_qmin, p->act_qmax));
}

/* 8 rows x two panels (32 columns): per quad of K, 2 loads of 64 bytes,
 * 8 broadcasts and 16 vpdpbusd; rows past mr repeat row 0 and are not stored. */
static void ukr_s8_q2(int32_t kq, const uint8_t *a, int32_t lda, int32_t mr, const int8_t *b0, const int8_t *b1,
                      const rt_opt_gemm_params *p, const panel_q *q, int8_t *c) {
    int32_t kk;
#define S8_DECL2(r)                                                                                                 \
    const uint8_t *a##r = a + (int64_t)((r) < mr ? (r) : 0) * lda;                                              \
    __m512i c##r##0 = q[0].bias, c##r##1 = q[1].bias;
    RT_R8(S8_DECL2)
    for (kk = 0; kk < kq; kk++) {
        const __m512i x0 = _mm512_loadu_si512((const void *)(b0 + (int64_t)kk * 4 * NR));
        const __m512i x1 = _mm512_loadu_si512((const void *)(b1 + (int64_t)kk * 4 * NR));
#define S8_STEP2(r)                                                                                                 \
    {                                                                                                               \
        const __m512i va = bcast4(a##r + 4 * kk);                                                                   \
        RT_DPBUSD(c##r##0, va, x0);                                                                                 \
        RT_DPBUSD(c##r##1, va, x1);                                                                                 \
    }
        RT_R8(S8_STEP2)
    }
#define S8_STORE2(r)                                                                                                \
    if ((r) < mr) {                                                                                                 \
        q_store16(p, &q[0], c##r##0, c + (int64_t)(r) * p->ldc + q[0].col);                                         \
        q_store16(p, &q[1], c##r##1, c + (int64_t)(r) * p->ldc + q[1].col);                                         \
    }
    RT_R8(S8_STORE2)
#undef S8_DECL2
#undef S8_STEP2
#undef S8_STORE2
}

/* 16 rows x one panel (a lone last panel, or N <= 16): per quad of K, 1 load
 * of 64 bytes, 16 broadcasts and 16 vpdpbusd. */
static void ukr_s8_q1(int32_t kq, const uint8_t *a, int32_t lda, int32_t mr, const int8_t *b0,
                      const rt_opt_gemm_params *p, const panel_q *q, int8_t *c) {
    int32_t kk;
#define S8_DECL1(r)                                                                                                 \
    const uint8_t *a##r = a + (int64_t)((r) < mr ? (r) : 0) * lda;                                              \
    __m512i c##r = q->bias;
    RT_R16(S8_DECL1)
    for (kk = 0; kk < kq; kk++) {
        const __m512i x0 = _mm512_loadu_si512((const void *)(b0 + (int64_t)kk * 4 * NR));
#define S8_STEP1(r)                                                                                                 \
    {                                                                                                               \
        const __m512i va = bcast4(a##r + 4 * kk);                                                                   \
        RT_DPBUSD(c##r, va, x0);                                                                                    \
    }
        RT_R16(S8_STEP1)
    }
#define S8_STORE1(r)                                                                                                \
    if ((r) < mr) q_store16(p, q, c##r, c + (int64_t)(r) * p->ldc + q->col);
    RT_R16(S8_STORE1)
#undef S8_DECL1
#undef S8_STEP1
#undef S8_STORE1
}

static void ukr_u8_vnni(int32_t kq, const uint8_t *a, int32_t lda, int32_t mr, const int8_t *b0, const int8_t *b1,
                        int32_t acc0[MR_S8][NR], int32_t acc1[MR_S8][NR]) {
    const uint8_t *ar[MR_S8];
    __m512i c[MR_S8][2];
    int32_t kk, r, x;
    for (r = 0; r < MR_S8; r++) {
        ar[r] = a + (int64_t)(r < mr ? r : 0) * lda;
        c[r][0] = c[r][1] = _mm512_setzero_si512();
    }
    for (kk = 0; kk < kq; kk++) {
        __m512i x0 = _mm512_loadu_si512((const void *)(b0 + (int64_t)kk * 4 * NR));
        __m512i x1 = _mm512_loadu_si512((const void *)(b1 + (int64_t)kk * 4 * NR));
        for (r = 0; r < MR_S8; r++) {
            __m512i va;
            memcpy(&x, ar[r] + 4 * kk, 4);
            va = _mm512_set1_epi32(x);
            c[r][0] = _mm512_dpbusd_epi32(c[r][0], va, x0);
            c[r][1] = _mm512_dpbusd_epi32(c[r][1], va, x1);
        }
    }
    for (r = 0; r < mr; r++) {
        _mm512_storeu_si512((void *)acc0[r], c[r][0]);
        _mm512_storeu_si512((void *)acc1[r], c[r][1]);
    }
}
#elif defined(RT_OPT_AVX2)
#define MR_S8 2
/* 2 rows x 16 columns: each 16-byte quarter of a K quad (4 columns x 4 k)
 * is widened to int16 and multiplied with the row's quad (broadcast as 4
 * int16) by pmaddwd: lanes hold (column, k0+k1) and (column, k2+k3) partial
 * sums, added pairwise at the end. */
static void ukr_u8(int32_t kq, const uint8_t *a, int32_t lda, int32_t mr, const int8_t *b, int32_t acc[MR_S8][NR]) {
    const uint8_t *a0 = a, *a1 = a + (mr > 1 ? lda : 0);
    __m256i c0[4], c1[4];
    int32_t kk, q;
    for (q = 0; q < 4; q++) c0[q] = c1[q] = _mm256_setzero_si256();
    for (kk = 0; kk < kq; kk++) {
        int32_t x0, x1;
        __m256i v0, v1;
        memcpy(&x0, a0 + 4 * kk, 4);
        memcpy(&x1, a1 + 4 * kk, 4);
        v0 = _mm256_broadcastq_epi64(_mm_cvtepu8_epi16(_mm_cvtsi32_si128(x0)));
        v1 = _mm256_broadcastq_epi64(_mm_cvtepu8_epi16(_mm_cvtsi32_si128(x1)));
        for (q = 0; q < 4; q++) {
            __m256i w = _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)(const void *)(b + kk * 4 * NR + q * 16)));
            c0[q] = _mm256_add_epi32(c0[q], _mm256_madd_epi16(v0, w));
            c1[q] = _mm256_add_epi32(c1[q], _mm256_madd_epi16(v1, w));
        }
    }
    /* lanes (c, k01), (c, k23) -> columns: hadd within 128-bit halves, then reorder */
    _mm256_storeu_si256((__m256i *)(void *)acc[0], _mm256_permute4x64_epi64(_mm256_hadd_epi32(c0[0], c0[1]), 0xD8));
    _mm256_storeu_si256((__m256i *)(void *)(acc[0] + 8), _mm256_permute4x64_epi64(_mm256_hadd_epi32(c0[2], c0[3]), 0xD8));
    _mm256_storeu_si256((__m256i *)(void *)acc[1], _mm256_permute4x64_epi64(_mm256_hadd_epi32(c1[0], c1[1]), 0xD8));
    _mm256_storeu_si256((__m256i *)(void *)(acc[1] + 8), _mm256_permute4x64_epi64(_mm256_hadd_epi32(c1[2], c1[3]), 0xD8));
}
#else
#define MR_S8 4
static void ukr_u8(int32_t kq, const uint8_t *a, int32_t lda, int32_t mr, const int8_t *b, int32_t acc[MR_S8][NR]) {
    uint32_t u[MR_S8][NR];
    int32_t r, j, kk, t;
    for (r = 0; r < mr; r++)
        for (j = 0; j < NR; j++) u[r][j] = 0;
    for (kk = 0; kk < kq; kk++, b += 4 * NR)
        for (r = 0; r < mr; r++) {
            const uint8_t *x = a + (int64_t)r * lda + 4 * kk;
            for (j = 0; j < NR; j++) {
                int32_t sum = 0;
                for (t = 0; t < 4; t++) sum += (int32_t)x[t] * (int32_t)b[4 * j + t];
                u[r][j] += (uint32_t)sum;
            }
        }
    for (r = 0; r < mr; r++)
        for (j = 0; j < NR; j++) acc[r][j] = (int32_t)u[r][j];
}
#endif

/* C rows from A8 rows (a + 128 bytes, K padded to K4 with 0). row_add: per
 * row term added before requantization, or NULL. */
static void gemm_u8(const rt_opt_gemm_params *p, int32_t m, const uint8_t *a8, int32_t lda8, const int8_t *packed_b,
                    const int32_t *bias, int8_t *c, const int32_t *row_add) {
    int32_t j, i, kq = K4(p->k) / 4;
#if defined(RT_OPT_S8_VNNI)
    /* Two panels at a time; each 8 x 16 half is requantized on its own. With AMX, groups of 16 rows run
     * on the tile unit first (same exact int32 sums) and the rest on vpdpbusd. */
    int32_t acc2[2][MR_S8][NR];
#if defined(RT_OPT_AMX) && defined(__AMX_INT8__)
    int32_t m16 = m >= 16 && kq >= 16 && rt_opt_amx_ready() ? m / 16 * 16 : 0;
    int32_t acc16[2][16][NR];
    if (m16) rt_opt_amx_configure(kq % 16);
#else
    const int32_t m16 = 0;
#endif
    for (j = 0; j * NR < p->n; j += 2) {
        const int8_t *b0 = packed_b + (int64_t)j * kq * 4 * NR;
        int32_t halves = (j + 1) * NR < p->n ? 2 : 1, h;
        const int8_t *b1 = halves == 2 ? b0 + (int64_t)kq * 4 * NR : b0;
        int vec[2];
        for (h = 0; h < halves; h++) vec[h] = panel_vec(p, (j + h) * NR);
#if defined(RT_OPT_AMX) && defined(__AMX_INT8__)
        for (i = 0; i < m16; i += 16) {
            rt_opt_amx_u8(kq, a8 + (int64_t)i * lda8, lda8, b0, b1, &acc16[0][0][0]);
            for (h = 0; h < halves; h++) {
                int32_t col = (j + h) * NR, nr = p->n - col < NR ? p->n - col : NR;
                add_rows(acc16[h], 16, row_add ? row_add + i : NULL);
                store_tile(p, acc16[h], 16, bias, col, c + (int64_t)i * p->ldc + col, nr, vec[h]);
            }
        }
#endif
        if (!row_add && vec[0] && (halves == 1 || vec[1])) { /* requantized in registers */
            panel_q q[2];
            panel_q_init(p, bias, j * NR, &q[0]);
            if (halves == 2) panel_q_init(p, bias, (j + 1) * NR, &q[1]);
            if (halves == 1)
                for (i = m16; i < m; i += 2 * MR_S8)
                    ukr_s8_q1(kq, a8 + (int64_t)i * lda8, lda8, m - i < 2 * MR_S8 ? m - i : 2 * MR_S8, b0, p, q,
                              c + (int64_t)i * p->ldc);
            else
                for (i = m16; i < m; i += MR_S8)
                    ukr_s8_q2(kq, a8 + (int64_t)i * lda8, lda8, m - i < MR_S8 ? m - i : MR_S8, b0, b1, p, q,
                              c + (int64_t)i * p->ldc);
            continue;
        }
        for (i = m16; i < m; i += MR_S8) {
            int32_t mr = m - i < MR_S8 ? m - i : MR_S8;
            ukr_u8_vnni(kq, a8 + (int64_t)i * lda8, lda8, mr, b0, b1, acc2[0], acc2[1]);
            for (h = 0; h < halves; h++) {
                int32_t col = (j + h) * NR, nr = p->n - col < NR ? p->n - col : NR;
                add_rows(acc2[h], mr, row_add ? row_add + i : NULL);
                store_tile(p, acc2[h], mr, bias, col, c + (int64_t)i * p->ldc + col, nr, vec[h]);
            }
        }
    }
#if defined(RT_OPT_AMX) && defined(__AMX_INT8__)
    if (m16) _tile_release();
#endif
#else
    int32_t acc[MR_S8][NR];
    for (j = 0; j * NR < p->n; j++) {
        const int8_t *bp = packed_b + (int64_t)j * kq * 4 * NR;
        int32_t col = j * NR, nr = p->n - col < NR ? p->n - col : NR;
        int vec = panel_vec(p, col);
        for (i = 0; i < m; i += MR_S8) {
            int32_t mr = m - i < MR_S8 ? m - i : MR_S8;
            ukr_u8(kq, a8 + (int64_t)i * lda8, lda8, mr, bp, acc);
            add_rows(acc, mr, row_add ? row_add + i : NULL);
            store_tile(p, acc, mr, bias, col, c + (int64_t)i * p->ldc + col, nr, vec);
        }
    }
#endif
}

/* Converts `rows` int8 rows (stride lda) to a + 128 byte rows of length K4. */
/* d[0..n) = s[0..n) + 128 as bytes; short runs (a few channels) in one masked vector op. */
static inline void flip_run(uint8_t *d, const int8_t *s, int32_t n) {
    int32_t i = 0;
#if defined(RT_OPT_AVX512)
    const __m512i flip = _mm512_set1_epi8((char)0x80);
    for (; i + 64 <= n; i += 64)
        _mm512_storeu_si512((void *)(d + i), _mm512_xor_si512(_mm512_loadu_si512((const void *)(s + i)), flip));
    if (i < n) {
        __mmask64 k = ((__mmask64)1 << (n - i)) - 1;
        _mm512_mask_storeu_epi8((void *)(d + i), k, _mm512_xor_si512(_mm512_maskz_loadu_epi8(k, (const void *)(s + i)), flip));
        return;
    }
#endif
    for (; i < n; i++) d[i] = (uint8_t)(s[i] + 128);
}

static void widen_rows(const int8_t *a, int32_t lda, int32_t rows, int32_t k, uint8_t *dst) {
    int32_t r, kk, k4 = K4(k);
    for (r = 0; r < rows; r++) {
        uint8_t *d = dst + (int64_t)r * k4;
        flip_run(d, a + (int64_t)r * lda, k);
        for (kk = k; kk < k4; kk++) d[kk] = 0;
    }
}

typedef struct gemm_job {
    const rt_opt_gemm_params *p;
    const void *a, *b, *bias;
    void *c, *scratch;
    int32_t tasks, step, by_rows;
} gemm_job;

/* Task t of an s8 GEMM: row blocks t, t + tasks, ... with scratch copy t. */
/* Row block for `tasks` tasks taking blocks of `rows`-row images round-robin: the block count made a
 * multiple of the tasks (else one task gets a whole block more: a 3136-row 1x1 conv in blocks of
 * 2728 ran 2728 rows on one thread and 408 on the other), in whole 16-row (AMX) groups. Blocks only
 * shrink, so they still fit the scratch sized for `block`. */
static int32_t balanced_block(int32_t rows, int32_t images, int32_t block, int32_t tasks) {
    int32_t per, even;
    block = block > 0 ? block : 1;
    if (tasks <= 1 || rows <= 0) return block;
    per = (rows + block - 1) / block;
    while ((int64_t)images * per % tasks) per++;
    even = ((rows + per - 1) / per + 15) / 16 * 16;
    return even < block ? even : block;
}

static void gemm_s8_task(void *v, int t) {
    const gemm_job *j = v;
    const rt_opt_gemm_params *p = j->p;
    int32_t i, rows = j->step;
    uint8_t *a8 = j->scratch ? (uint8_t *)j->scratch + (int64_t)t * p->slot_bytes : NULL;
    for (i = t * rows; i < p->m; i += j->tasks * rows) {
        int32_t mr = p->m - i < rows ? p->m - i : rows;
        widen_rows((const int8_t *)j->a + (int64_t)i * p->lda, p->lda, mr, p->k, a8);
        gemm_u8(p, mr, a8, K4(p->k), (const int8_t *)j->b, (const int32_t *)j->bias,
                (int8_t *)j->c + (int64_t)i * p->ldc, NULL);
    }
}

void rt_opt_gemm_s8(const rt_opt_gemm_params *p, const int8_t *a, const int8_t *packed_b, const int32_t *bias,
                    int8_t *c, void *scratch, const mpcc_parallel *par) {
    gemm_job j = {p, a, packed_b, bias, c, scratch, 1, 0, 0};
    int32_t blocks;
    j.tasks = rt_opt_tasks(par, p->slots);
    j.step = balanced_block(p->m, 1, p->rows, j.tasks);
    blocks = (p->m + j.step - 1) / j.step;
    j.tasks = j.tasks < blocks ? j.tasks : (blocks > 0 ? blocks : 1);
    if (j.tasks > 1) par->run(par->pool, gemm_s8_task, &j, j.tasks);
    else gemm_s8_task(&j, 0);
}

/* Task t of an f32 FC: a range of rows (or of 32-column panel pairs when
 * there are too few rows to split). */
static void fc_f32_task(void *v, int t) {
    const gemm_job *j = v;
    rt_opt_gemm_params g = *j->p;
    int32_t lo = t * j->step, hi = lo + j->step;
    const float *a = (const float *)j->a, *b = (const float *)j->b, *bias = (const float *)j->bias;
    float *c = (float *)j->c;
    if (j->by_rows) {
        hi = hi < g.m ? hi : g.m;
        g.m = hi - lo;
        if (g.m > 0) rt_opt_gemm_f32(&g, a + (int64_t)lo * g.lda, b, bias, c + (int64_t)lo * g.ldc);
    } else {
        hi = hi < g.n ? hi : g.n;
        g.n = hi - lo;
        if (g.n > 0) rt_opt_gemm_f32(&g, a, b + (int64_t)lo * g.k, bias + lo, c + lo);
    }
}

void rt_opt_fc_f32(const rt_opt_gemm_params *p, const float *a, const float *packed_b, const float *bias, float *c,
                   const mpcc_parallel *par) {
    gemm_job j = {p, a, packed_b, bias, c, NULL, 1, 0, 0};
    int32_t tasks = par && par->run && par->threads > 1 ? par->threads : 1;
    j.by_rows = p->m >= 16 * tasks;
    if (j.by_rows) j.step = ((p->m + tasks - 1) / tasks + 7) / 8 * 8; /* whole 8-row tiles */
    else j.step = ((p->n + tasks - 1) / tasks + 2 * NR - 1) / (2 * NR) * (2 * NR); /* whole panel pairs */
    j.tasks = ((j.by_rows ? p->m : p->n) + j.step - 1) / j.step;
    if (tasks > 1 && j.tasks > 1) par->run(par->pool, fc_f32_task, &j, j.tasks);
    else rt_opt_gemm_f32(p, a, packed_b, bias, c);
}

/* ---- convolution as GEMM ---------------------------------------------- */

int64_t rt_opt_conv_f32_slot_bytes(int32_t rows, int32_t k, int32_t filter_h, int32_t filter_w, int32_t in_c) {
    /* im2col rows; with AVX-512 the row table (8-byte pointers per filter row) and a zero filter row */
    return (int64_t)rows * k * 4 + (int64_t)rows * filter_h * 8 + (int64_t)filter_w * in_c * 4 + 64;
}

#define RUN_S8(d, s, n) flip_run((d), (s), (n))

void rt_opt_post_add_f32(const rt_opt_post_add *post, float *out, const float *other, int64_t n) {
    const rt_binary_params *a = post->add;
    int64_t i;
    for (i = 0; i < n; i++) {
        float v = post->conv_is_lhs ? out[i] + other[i] : other[i] + out[i];
        v = v < a->act_min ? a->act_min : v;
        out[i] = v > a->act_max ? a->act_max : v;
    }
}

static void post_add_s8(const rt_opt_post_add *post, int8_t *out, const int8_t *other, int64_t n) {
    if (post->conv_is_lhs) rt_opt_add_run_i8(post->add, out, 1, other, 1, out, n);
    else rt_opt_add_run_i8(post->add, other, 1, out, 1, out, n);
}

#if defined(RT_OPT_INDIRECT)
/* The row table of patch rows m0..m0+rows for gemm_f32_512: row r's filter
 * row fy (fw * in_c values, contiguous in the image when the filter row lies
 * inside it) at tab[r * filter_h + fy]; rows above or below the image point
 * at `zero`, rows cut by the left or right edge are copied with zeros into
 * copy + r * K (the im2col layout, for those rows only). */
static void conv_rows_f32(const rt_opt_conv_params *p, const float *in, int32_t m0, int32_t rows, float *copy,
                          const float **tab, float *zero) {
    const int32_t inc = p->in_c, inw = p->in_w, fh = p->filter_h, fw = p->filter_w, seg = fw * inc;
    int32_t r, fy, fx, oy = m0 / p->out_w, ox = m0 % p->out_w;
    memset(zero, 0, sizeof(float) * (size_t)seg);
    const int64_t rstep = (int64_t)p->dil_h * inw * inc;
    for (r = 0; r < rows; r++) {
        int32_t x0 = ox * p->stride_w - p->pad_w, inside = x0 >= 0 && x0 + fw <= inw, y0 = oy * p->stride_h - p->pad_h;
        if (inside && y0 >= 0 && y0 + (fh - 1) * p->dil_h < p->in_h) { /* the whole patch inside: most rows */
            const float **t = tab + (int64_t)r * fh;
            int64_t off = ((int64_t)y0 * inw + x0) * inc;
            for (fy = 0; fy < fh; fy++, off += rstep) t[fy] = in + off;
            if (++ox == p->out_w) ox = 0, oy++;
            continue;
        }
        for (fy = 0; fy < fh; fy++) {
            int32_t y = oy * p->stride_h - p->pad_h + fy * p->dil_h;
            const float **t = tab + (int64_t)r * fh + fy;
            if (y < 0 || y >= p->in_h) *t = zero;
            else if (inside) *t = in + ((int64_t)y * inw + x0) * inc;
            else {
                float *d = copy + (int64_t)r * p->gemm.k + (int64_t)fy * seg;
                for (fx = 0; fx < fw; fx++) {
                    /* inline 16-lane copies, not a libc call per tap of a few channels */
                    int32_t x = x0 + fx, c;
                    const float *s = x < 0 || x >= inw ? NULL : in + ((int64_t)y * inw + x) * inc;
                    float *dd = d + fx * inc;
                    for (c = 0; c < inc; c += 16) {
                        const __mmask16 m = (__mmask16)(inc - c >= 16 ? 0xFFFF : (1u << (inc - c)) - 1u);
                        _mm512_mask_storeu_ps(dd + c, m, s ? _mm512_maskz_loadu_ps(m, s + c) : _mm512_setzero_ps());
                    }
                }
                *t = d;
            }
        }
        if (++ox == p->out_w) ox = 0, oy++;
    }
}
#endif

/* Task t of a convolution: blocks t, t + tasks, ... of `block` output rows
 * (over all images), with scratch copy t. */
static void conv_f32_task(void *v, int t) {
    const rt_opt_conv_job *j = v;
    const rt_opt_conv_params *p = j->p;
    int32_t mimg = p->out_h * p->out_w, kdim = p->gemm.k, ldd = kdim, oc = p->gemm.n, q;
    rt_opt_gemm_params g = p->gemm;
    /* direct 1x1 convolutions have no scratch (NULL: no pointer arithmetic on it) */
    float *dst = j->scratch ? (float *)(void *)((char *)j->scratch + (int64_t)t * p->gemm.slot_bytes) : NULL;
    for (q = t; q < p->batches * j->per_image; q += j->tasks) {
        int32_t b = q / j->per_image, m0 = q % j->per_image * j->block;
        int32_t rows = mimg - m0 < j->block ? mimg - m0 : j->block;
        const float *in = (const float *)j->in + (int64_t)b * p->in_h * p->in_w * p->in_c;
        float *out = (float *)j->out + (int64_t)b * mimg * oc;
        g.m = rows;
        if (p->direct) {
            g.lda = p->in_c;
            rt_opt_gemm_f32(&g, in + (int64_t)m0 * p->in_c, (const float *)j->b, (const float *)j->bias,
                            out + (int64_t)m0 * oc);
        } else {
#if defined(RT_OPT_INDIRECT)
            if (p->dil_w == 1) {
                const float **tab = (const float **)(void *)(((uintptr_t)(dst + (int64_t)j->block * kdim) + 7) & ~(uintptr_t)7);
                conv_rows_f32(p, in, m0, rows, dst, tab, (float *)(void *)(tab + (int64_t)j->block * p->filter_h));
                gemm_f32_512(&g, rows, NULL, tab, p->filter_h, (const float *)j->b, (const float *)j->bias,
                             out + (int64_t)m0 * oc);
            } else
#endif
            {
                IM2COL(float, float, 0.0f, RUN_F32);
                g.lda = kdim;
                rt_opt_gemm_f32(&g, dst, (const float *)j->b, (const float *)j->bias, out + (int64_t)m0 * oc);
            }
        }
        if (j->post)
            rt_opt_post_add_f32(j->post, out + (int64_t)m0 * oc, (const float *)j->other + ((int64_t)b * mimg + m0) * oc,
                         (int64_t)rows * oc);
    }
}

/* Patch rows m0..m0+rows of an int8 convolution as +128 bytes, K padded to ldd with 0 (IM2COL). */
static void im2col_s8_rows(const rt_opt_conv_params *p, const int8_t *in, int32_t m0, int32_t rows, uint8_t *dst,
                           int32_t ldd) {
    const int32_t kdim = p->gemm.k;
    IM2COL(int8_t, uint8_t, (uint8_t)(p->pad_value + 128), RUN_S8);
}

#if defined(RT_OPT_AVX512)
/* im2col_s8_rows with the rows whose patch lies inside the image (most of
 * them) copied as fh runs of fw * in_c bytes, the runs' masks made once and
 * no per-tap bounds checks: IM2COL spent ~40 cycles a row there, as much as
 * the GEMM of a 16-channel 3x3 convolution. */
static void im2col_s8(const rt_opt_conv_params *p, const int8_t *in, int32_t m0, int32_t rows, uint8_t *dst,
                      int32_t ldd) {
    const int32_t inc = p->in_c, fh = p->filter_h, fw = p->filter_w, run = fw * inc, kdim = p->gemm.k;
    const int32_t chunks = (run - 1) / 64, last = run - 64 * chunks; /* full 64-byte chunks, then 1..64 bytes */
    const int64_t rs = (int64_t)p->in_w * inc, step = (int64_t)p->dil_h * rs;
    const __mmask64 tail = last == 64 ? ~(__mmask64)0 : ((__mmask64)1 << last) - 1;
    const __mmask64 pad = ldd > kdim ? ((__mmask64)1 << (ldd - kdim)) - 1 : 0; /* ldd - kdim <= 3 */
    const __m512i flip = _mm512_set1_epi8((char)0x80);
    int32_t r, fy, c, oy = m0 / p->out_w, ox = m0 % p->out_w;
    for (r = 0; r < rows; r++) {
        const int32_t y0 = oy * p->stride_h - p->pad_h, x0 = ox * p->stride_w - p->pad_w;
        uint8_t *d = dst + (int64_t)r * ldd;
        if (y0 >= 0 && y0 + (fh - 1) * p->dil_h < p->in_h && x0 >= 0 && x0 + fw <= p->in_w) {
            const int8_t *src = in + (int64_t)y0 * rs + (int64_t)x0 * inc;
            for (fy = 0; fy < fh; fy++, src += step, d += run) {
                for (c = 0; c < 64 * chunks; c += 64)
                    _mm512_storeu_si512((void *)(d + c),
                                        _mm512_xor_si512(_mm512_loadu_si512((const void *)(src + c)), flip));
                _mm512_mask_storeu_epi8((void *)(d + c), tail,
                                        _mm512_xor_si512(_mm512_maskz_loadu_epi8(tail, (const void *)(src + c)), flip));
            }
            if (pad) _mm512_mask_storeu_epi8((void *)d, pad, _mm512_setzero_si512());
        } else
            im2col_s8_rows(p, in, m0 + r, 1, d, ldd);
        if (++ox == p->out_w) ox = 0, oy++;
    }
}
#endif

static void conv_s8_task(void *v, int t) {
    const rt_opt_conv_job *j = v;
    const rt_opt_conv_params *p = j->p;
    int32_t mimg = p->out_h * p->out_w, kdim = p->gemm.k, ldd = K4(kdim), oc = p->gemm.n, q;
    uint8_t *dst = j->scratch ? (uint8_t *)j->scratch + (int64_t)t * p->gemm.slot_bytes : NULL;
    for (q = t; q < p->batches * j->per_image; q += j->tasks) {
        int32_t b = q / j->per_image, m0 = q % j->per_image * j->block;
        int32_t rows = mimg - m0 < j->block ? mimg - m0 : j->block;
        const int8_t *in = (const int8_t *)j->in + (int64_t)b * p->in_h * p->in_w * p->in_c;
        int8_t *out = (int8_t *)j->out + (int64_t)b * mimg * oc;
        if (p->direct) widen_rows(in + (int64_t)m0 * p->in_c, p->in_c, rows, kdim, dst);
        else {
#if defined(RT_OPT_AVX512)
            if (p->dil_w == 1) im2col_s8(p, in, m0, rows, dst, ldd);
            else
#endif
                im2col_s8_rows(p, in, m0, rows, dst, ldd);
        }
        gemm_u8(&p->gemm, rows, dst, ldd, (const int8_t *)j->b, (const int32_t *)j->bias, out + (int64_t)m0 * oc, NULL);
        if (j->post)
            post_add_s8(j->post, out + (int64_t)m0 * oc, (const int8_t *)j->other + ((int64_t)b * mimg + m0) * oc,
                        (int64_t)rows * oc);
    }
}

void rt_opt_run_conv(const rt_opt_conv_params *p, const void *in, const void *packed_b, const void *bias,
                     void *out, void *scratch, const rt_opt_post_add *post, const void *other,
                     void (*task)(void *, int), int32_t block, int32_t half_type, const mpcc_parallel *par) {
    rt_opt_conv_job j = {p, in, packed_b, bias, other, out, scratch, post, 1, 1, 1, half_type};
    int32_t mimg = p->out_h * p->out_w, total;
    j.tasks = rt_opt_tasks(par, p->gemm.slots);
    j.block = balanced_block(mimg, p->batches, block, j.tasks);
    j.per_image = (mimg + j.block - 1) / j.block;
    total = p->batches * j.per_image;
    j.tasks = j.tasks < total ? j.tasks : (total > 0 ? total : 1);
    if (j.tasks > 1) par->run(par->pool, task, &j, j.tasks);
    else task(&j, 0);
}

void rt_opt_conv_f32(const rt_opt_conv_params *p, const float *in_all, const float *packed_b, const float *bias,
                     float *out_all, void *scratch, const rt_opt_post_add *post, const float *other,
                     const mpcc_parallel *par) {
    int32_t mimg = p->out_h * p->out_w;
    rt_opt_run_conv(p, in_all, packed_b, bias, out_all, scratch, post, other, conv_f32_task,
                    p->direct ? (post ? 60 : mimg) : p->rows, RT_F32, par);
}

void rt_opt_conv_s8(const rt_opt_conv_params *p, const int8_t *in_all, const int8_t *packed_b, const int32_t *bias,
                    int8_t *out_all, void *scratch, const rt_opt_post_add *post, const int8_t *other,
                    const mpcc_parallel *par) {
    rt_opt_run_conv(p, in_all, packed_b, bias, out_all, scratch, post, other, conv_s8_task, p->rows, RT_F32, par);
}

/* ---- BATCH_MATMUL: both operands are activations, so the RHS of each
 * batch is packed into panels at run time (scratch) and the same micro-
 * kernels run; the packing is O(K*N) against O(M*N*K) of work. */

size_t rt_opt_bmm_scratch_bytes(const rt_bmm_params *p, int is_s8) {
    size_t np = (size_t)(p->n + NR - 1) / NR * NR, k = (size_t)p->k, m = (size_t)p->m;
    if (!is_s8) return (np * k + m * k + np) * sizeof(float);
    k = (size_t)K4(p->k);
    return np * k + m * k + (3 * np + m) * sizeof(int32_t) + 4;
}

void rt_opt_bmm_f32(const rt_bmm_params *p, const float *lhs, const float *rhs, float *out, void *scratch) {
    int64_t b, nb = rt_bmm_batch_count(p);
    int32_t np = (p->n + NR - 1) / NR * NR, i, j, kk;
    float *pb = (float *)scratch, *pa = pb + (int64_t)np * p->k, *bias = pa + (int64_t)p->m * p->k;
    rt_opt_gemm_params g;
    memset(&g, 0, sizeof g);
    g.m = p->m;
    g.n = p->n;
    g.k = p->k;
    g.ldc = p->n;
    g.act_min = -INFINITY;
    g.act_max = INFINITY;
    for (j = 0; j < np; j++) bias[j] = 0.0f;
    for (b = 0; b < nb; b++) {
        int64_t lo, ro;
        const float *a;
        rt_bmm_batch_offsets(p, b, &lo, &ro);
        for (j = 0; j < np; j += NR)
            for (kk = 0; kk < p->k; kk++) {
                float *d = pb + ((int64_t)j * p->k) + (int64_t)kk * NR;
                const float *s = rhs + ro + (int64_t)kk * p->rhs_sk;
                for (i = 0; i < NR; i++) d[i] = j + i < p->n ? s[(int64_t)(j + i) * p->rhs_sj] : 0.0f;
            }
        if (p->lhs_sk == 1) {
            a = lhs + lo;
            g.lda = p->lhs_si;
        } else {
            for (i = 0; i < p->m; i++)
                for (kk = 0; kk < p->k; kk++)
                    pa[(int64_t)i * p->k + kk] = lhs[lo + (int64_t)i * p->lhs_si + (int64_t)kk * p->lhs_sk];
            a = pa;
            g.lda = p->k;
        }
        rt_opt_gemm_f32(&g, a, pb, bias, out + b * p->m * p->n);
    }
}

void rt_opt_bmm_s8(const rt_bmm_params *p, const int8_t *lhs, const int8_t *rhs, int8_t *out, void *scratch) {
    int64_t b, nb = rt_bmm_batch_count(p);
    int32_t np = (p->n + NR - 1) / NR * NR, k4 = K4(p->k), i, j, kk;
    int32_t *bias = (int32_t *)scratch, *mult = bias + np, *shift = mult + np, *row_add = shift + np;
    int8_t *pb = (int8_t *)(row_add + p->m);
    uint8_t *pa = (uint8_t *)(pb + (int64_t)np * k4);
    rt_opt_gemm_params g;
    memset(&g, 0, sizeof g);
    g.m = p->m;
    g.n = p->n;
    g.k = p->k;
    g.ldc = p->n;
    g.act_qmin = -128;
    g.act_qmax = 127;
    g.out_offset = p->out_offset;
    g.rounding = RT_OPT_ROUND_DOUBLE;
    g.mult = mult;
    g.shift = shift;
    for (j = 0; j < np; j++) {
        mult[j] = p->mult;
        shift[j] = p->shift;
    }
    for (b = 0; b < nb; b++) {
        int64_t lo, ro;
        rt_bmm_batch_offsets(p, b, &lo, &ro);
        /* The kernel sums (a + 128) * b over raw int8 b; with lo / ro the
         * operand offsets, sum (a + lo)(b + ro) adds (lo - 128) * colsum(b)
         * + K (lo - 128) ro per column and ro * rowsum(a + 128) per row. */
        for (j = 0; j < np; j++) {
            int64_t sum = 0;
            for (kk = 0; kk < k4; kk++) {
                int8_t v = 0;
                if (j < p->n && kk < p->k) v = rhs[ro + (int64_t)kk * p->rhs_sk + (int64_t)j * p->rhs_sj];
                pb[(int64_t)(j / NR) * k4 * NR + (int64_t)(kk / 4) * NR * 4 + (j % NR) * 4 + kk % 4] = v;
                sum += v;
            }
            bias[j] = (int32_t)(uint32_t)((int64_t)(p->lhs_offset - 128) * (sum + (int64_t)p->k * p->rhs_offset));
        }
        for (i = 0; i < p->m; i++) {
            int64_t sum = 0;
            for (kk = 0; kk < p->k; kk++) {
                uint8_t v = (uint8_t)(lhs[lo + (int64_t)i * p->lhs_si + (int64_t)kk * p->lhs_sk] + 128);
                pa[(int64_t)i * k4 + kk] = v;
                sum += v;
            }
            for (; kk < k4; kk++) pa[(int64_t)i * k4 + kk] = 0;
            row_add[i] = (int32_t)(uint32_t)((int64_t)p->rhs_offset * sum);
        }
        gemm_u8(&g, p->m, pa, k4, pb, bias, out + b * p->m * p->n, p->rhs_offset ? row_add : NULL);
    }
}
