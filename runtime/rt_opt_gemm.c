/* rt_opt_gemm.c - packed-weight f32 GEMM micro-kernels (FMA; AVX-512 over row
 * pointers) with fused epilogues (bias, clamp), and FULLY_CONNECTED over them.
 * Convolution as GEMM and the convolution driver: rt_opt_conv_f32.c. See
 * rt_opt.h for layouts. */
#include <string.h>

#include "mpcc_rt.h"
#include "rt_opt.h"
#include "rt_opt_internal.h"
#include "arm64/rt_a64_gemm_f32.h" /* the AArch64 tile (RT_A64) */

#if defined(RT_OPT_VEC)
typedef float rt_v8f __attribute__((vector_size(32)));
#if defined(__AVX__) || defined(__FMA__) || defined(__AVX2__)
#include <immintrin.h>
#endif
#endif

#define MR_F32 5
#define NR RT_OPT_NR

const char *rt_opt_isa(void) {
#if defined(RT_OPT_AMX) && defined(RT_OPT_S8_VNNI)
    return "vector-extensions+fma+avx2+avx512+vnni+amx";
#elif defined(RT_OPT_S8_VNNI)
    return "vector-extensions+fma+avx2+avx512+vnni";
#elif defined(RT_OPT_AVX512)
    return "vector-extensions+fma+avx2+avx512";
#elif defined(RT_OPT_VEC) && defined(__FMA__) && defined(__AVX2__)
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

#if defined(RT_OPT_F32_ROWS_A64)
/* AArch64: runtime/arm64/rt_a64_gemm_f32.h's 5 x 16 tile over row tables (rt_a64_f32_gemm_rows), no ukr_f32 */
#elif defined(RT_OPT_VEC)
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

#if defined(RT_OPT_F32_ROWS_AVX2)
/* A GEMM of one row (GEMV: a fully-connected layer on one input): ukr_f32 would run five copies of
 * the row with one FMA chain per 8 columns (4 cycles a K step for a panel). Four full panels at once
 * instead: eight independent chains, each column's sum still in K order from the bias (so equal, bit
 * for bit, to ukr_f32's: the 16-bit conversions' results must equal the f32 path's). b: the first of
 * the four panels (K x 16 each, pk floats apart). */
static void ukr_f32_row4(int32_t k, const float *a, const float *b, int64_t pk, const float *bias, float lo, float hi,
                         float *c) {
    __m256 s[8];
    const __m256 vlo = _mm256_set1_ps(lo), vhi = _mm256_set1_ps(hi);
    int32_t kk, q;
    for (q = 0; q < 8; q++) s[q] = _mm256_loadu_ps(bias + 8 * q);
    for (kk = 0; kk < k; kk++) {
        const __m256 x = _mm256_broadcast_ss(a + kk);
        const float *r = b + (int64_t)kk * NR;
        for (q = 0; q < 8; q++) s[q] = _mm256_fmadd_ps(_mm256_loadu_ps(r + (q >> 1) * pk + 8 * (q & 1)), x, s[q]);
    }
    for (q = 0; q < 8; q++) _mm256_storeu_ps(c + 8 * q, _mm256_min_ps(vhi, _mm256_max_ps(vlo, s[q])));
}
#endif

#if defined(RT_OPT_INDIRECT)
#define MR_512 8
/* AVX-512 micro-kernels over rows given by pointers: K is nseg segments of
 * seg values, row r's segment s starts at ap[r * nseg + s] (a GEMM: one
 * segment per row; a convolution: one per filter row, read in place from
 * the image, so no im2col copy). Rows >= mr repeat row 0 and are not stored.
 * ukr_f32_512: C[0..mr)[0..32) from two adjacent panels (b0, b1: K x 16
 * each), 8 rows x 2 zmm = 16 accumulators, 2 loads + 8 broadcasts per 16
 * FMAs; nr <= 32 columns are stored. R 9 (18 accumulators) takes a block's
 * last 9 rows in one pass, where 8 + 1 left a row to the latency-bound GEMV
 * (ViT's 17 tokens). R 12 (24 accumulators) takes convolutions read through
 * row tables (MR_512_IND): a tile's table reads and segment starts spread
 * over 12 rows (MobileNetV2's 3x3 stride-2 first layer, K = 3 x 9: 1.08).
 * Direct GEMMs keep 8: 12 measured no faster there, and 7x7 maps (49 rows)
 * lost 5 % to their 13-row remainders. */
#define MR_512_IND 12
/* Direct GEMMs whose packed weights are at most this many floats run row tiles outer (rt_opt_gemm_f32_rows_512). */
#ifndef RT_OPT_ROW_OUTER_FLOATS
#define RT_OPT_ROW_OUTER_FLOATS 8192
#endif
/* Row r's A pointer for segment sg (rows past mr repeat row 0: loaded, never stored). */
#define UKR_ROW(r) a##r = ap[((r) < mr ? (r) : 0) * nseg + sg];
RT_OPT_INLINE void ukr_f32_512(const int32_t R, int32_t nseg, int32_t seg, const float *const *ap, int32_t mr,
                               const float *b0, const float *b1, const float *bias, float lo, float hi, float *c,
                               int32_t ldc, int32_t nr) {
    /* every accumulator a named variable: with an array GCC kept the tile on the stack between the
     * segments and the stores, ~48 extra moves a tile (a fifth of a K = 16 tile's work: MobileNetV2's
     * 112 x 112 expansion ran at 63 % of peak, XNNPACK's at 85 %) */
    const __m512 vlo = _mm512_set1_ps(lo), vhi = _mm512_set1_ps(hi);
    const __m512 bias0 = _mm512_loadu_ps(bias), bias1 = _mm512_loadu_ps(bias + NR);
    int32_t kk, sg;
#define F_DECL(r) __m512 c##r##0 = bias0, c##r##1 = bias1; const float *a##r;
    RT_R12(F_DECL)
#undef F_DECL
    for (sg = 0; sg < nseg; sg++) {
        const float *p0 = b0 + (int64_t)sg * seg * NR, *p1 = b1 + (int64_t)sg * seg * NR;
        RT_R12(UKR_ROW)
        kk = 0;
        if (R == 1) { /* one row (GEMV): four partial sums per column, so the FMAs do not wait on each other */
            __m512 e0 = _mm512_setzero_ps(), e1 = e0, f0 = e0, f1 = e0, g0 = e0, g1 = e0;
            for (; kk + 4 <= seg; kk += 4) {
                const float *q0 = p0 + (int64_t)kk * NR, *q1 = p1 + (int64_t)kk * NR;
                c00 = _mm512_fmadd_ps(_mm512_loadu_ps(q0), _mm512_set1_ps(a0[kk]), c00);
                c01 = _mm512_fmadd_ps(_mm512_loadu_ps(q1), _mm512_set1_ps(a0[kk]), c01);
                e0 = _mm512_fmadd_ps(_mm512_loadu_ps(q0 + NR), _mm512_set1_ps(a0[kk + 1]), e0);
                e1 = _mm512_fmadd_ps(_mm512_loadu_ps(q1 + NR), _mm512_set1_ps(a0[kk + 1]), e1);
                f0 = _mm512_fmadd_ps(_mm512_loadu_ps(q0 + 2 * NR), _mm512_set1_ps(a0[kk + 2]), f0);
                f1 = _mm512_fmadd_ps(_mm512_loadu_ps(q1 + 2 * NR), _mm512_set1_ps(a0[kk + 2]), f1);
                g0 = _mm512_fmadd_ps(_mm512_loadu_ps(q0 + 3 * NR), _mm512_set1_ps(a0[kk + 3]), g0);
                g1 = _mm512_fmadd_ps(_mm512_loadu_ps(q1 + 3 * NR), _mm512_set1_ps(a0[kk + 3]), g1);
            }
            c00 = _mm512_add_ps(c00, _mm512_add_ps(e0, _mm512_add_ps(f0, g0)));
            c01 = _mm512_add_ps(c01, _mm512_add_ps(e1, _mm512_add_ps(f1, g1)));
        }
        for (; kk < seg; kk++) {
            const __m512 x0 = _mm512_loadu_ps(p0 + (int64_t)kk * NR), x1 = _mm512_loadu_ps(p1 + (int64_t)kk * NR);
#define F_STEP(r)                                                                                                   \
    if ((r) < R) {                                                                                                  \
        const __m512 s = _mm512_set1_ps(a##r[kk]);                                                                  \
        c##r##0 = _mm512_fmadd_ps(x0, s, c##r##0);                                                                  \
        c##r##1 = _mm512_fmadd_ps(x1, s, c##r##1);                                                                  \
    }
            RT_R12(F_STEP)
#undef F_STEP
        }
    }
    {
        const __mmask16 m0 = (__mmask16)(nr >= NR ? 0xFFFF : (1u << nr) - 1);
        const __mmask16 m1 = (__mmask16)(nr >= 2 * NR ? 0xFFFF : nr > NR ? (1u << (nr - NR)) - 1 : 0);
        /* max/min operand order keeps NaN as rt_clamp_f32 does */
#define F_STORE(r)                                                                                                  \
    if ((r) < R && (r) < mr) {                                                                                      \
        float *cr = c + (int64_t)(r) * ldc;                                                                         \
        const __m512 v0 = _mm512_min_ps(vhi, _mm512_max_ps(vlo, c##r##0));                                          \
        const __m512 v1 = _mm512_min_ps(vhi, _mm512_max_ps(vlo, c##r##1));                                          \
        if (nr == 2 * NR) {                                                                                         \
            _mm512_storeu_ps(cr, v0);                                                                               \
            _mm512_storeu_ps(cr + NR, v1);                                                                          \
        } else {                                                                                                    \
            _mm512_mask_storeu_ps(cr, m0, v0);                                                                      \
            _mm512_mask_storeu_ps(cr + NR, m1, v1);                                                                 \
        }                                                                                                           \
    }
        RT_R12(F_STORE)
#undef F_STORE
    }
}

#define MR_512_1 12
/* A lone last panel (nr <= 16 columns), so no second panel is computed only
 * to be thrown away. With one B vector per k, a broadcast of A per FMA would
 * make the loads, not the FMAs, the limit (convolutions with 16 or fewer
 * output channels ran at ~70% of peak); so K is taken in pairs: one 8-byte
 * broadcast of A[r][k..k+1] feeds two FMAs against the panel's rows k and
 * k+1 interleaved in registers (lo: columns 0-7, hi: 8-15, even lanes k, odd
 * lanes k+1), and the two halves of each column's sum are added at the end.
 * 12 rows x 2 zmm; an odd last k updates the even lanes only (masked, so a
 * non-finite A never meets a zero). One row (GEMV): as ukr_f32_512. */
RT_OPT_INLINE void ukr_f32_512_1(const int32_t R, int32_t nseg, int32_t seg, const float *const *ap, int32_t mr,
                                 const float *b, const float *bias, float lo, float hi, float *c, int32_t ldc,
                                 int32_t nr) {
    const __m512 vlo = _mm512_set1_ps(lo), vhi = _mm512_set1_ps(hi);
    const __m512i ilo = rt_zip_lo();
    const __m512i ihi = rt_zip_hi();
    __mmask16 m = (__mmask16)(nr >= NR ? 0xFFFF : (1u << nr) - 1);
    int32_t kk, sg;
    if (R == 1) {
        __m512 a0 = _mm512_loadu_ps(bias);
        for (sg = 0; sg < nseg; sg++) {
            const float *p0 = b + (int64_t)sg * seg * NR, *x = ap[sg];
            __m512 e = _mm512_setzero_ps(), f = e, g = e;
            for (kk = 0; kk + 4 <= seg; kk += 4) { /* four partial sums, as in ukr_f32_512 */
                const float *q = p0 + (int64_t)kk * NR;
                a0 = _mm512_fmadd_ps(_mm512_loadu_ps(q), _mm512_set1_ps(x[kk]), a0);
                e = _mm512_fmadd_ps(_mm512_loadu_ps(q + NR), _mm512_set1_ps(x[kk + 1]), e);
                f = _mm512_fmadd_ps(_mm512_loadu_ps(q + 2 * NR), _mm512_set1_ps(x[kk + 2]), f);
                g = _mm512_fmadd_ps(_mm512_loadu_ps(q + 3 * NR), _mm512_set1_ps(x[kk + 3]), g);
            }
            a0 = _mm512_add_ps(a0, _mm512_add_ps(e, _mm512_add_ps(f, g)));
            for (; kk < seg; kk++) a0 = _mm512_fmadd_ps(_mm512_loadu_ps(p0 + (int64_t)kk * NR), _mm512_set1_ps(x[kk]), a0);
        }
        if (mr > 0) _mm512_mask_storeu_ps(c, m, _mm512_min_ps(vhi, _mm512_max_ps(vlo, a0)));
        return;
    }
    {
        const __m512 bv = _mm512_loadu_ps(bias), z = _mm512_setzero_ps();
        const __m512 bias0 = _mm512_permutex2var_ps(bv, ilo, z), bias1 = _mm512_permutex2var_ps(bv, ihi, z);
        const __m512i iev = rt_unzip_even();
        const __m512i iod = rt_unzip_odd();
        /* named accumulators, as in ukr_f32_512 (an array of them went through the stack) */
#define F1_DECL(r) __m512 c##r##0 = bias0, c##r##1 = bias1; const float *a##r;
        RT_R12(F1_DECL)
#undef F1_DECL
        for (sg = 0; sg < nseg; sg++) {
            const float *p0 = b + (int64_t)sg * seg * NR;
            RT_R12(UKR_ROW)
            for (kk = 0; kk + 2 <= seg; kk += 2) {
                const __m512 x0 = _mm512_loadu_ps(p0 + (int64_t)kk * NR), x1 = _mm512_loadu_ps(p0 + (int64_t)(kk + 1) * NR);
                const __m512 blo = _mm512_permutex2var_ps(x0, ilo, x1), bhi = _mm512_permutex2var_ps(x0, ihi, x1);
                /* A[r][kk], A[r][kk+1] in every lane pair (loadl: an unaligned, aliasing-safe 8-byte load) */
#define F1_STEP(r)                                                                                                  \
    if ((r) < R) {                                                                                                  \
        const __m512 s = _mm512_castsi512_ps(_mm512_broadcastq_epi64(_mm_loadl_epi64((const __m128i *)(const void *)(a##r + kk)))); \
        c##r##0 = _mm512_fmadd_ps(blo, s, c##r##0);                                                                 \
        c##r##1 = _mm512_fmadd_ps(bhi, s, c##r##1);                                                                 \
    }
                RT_R12(F1_STEP)
#undef F1_STEP
            }
            if (kk < seg) {
                const __m512 x0 = _mm512_loadu_ps(p0 + (int64_t)kk * NR);
                const __m512 blo = _mm512_permutexvar_ps(ilo, x0), bhi = _mm512_permutexvar_ps(_mm512_and_si512(ihi, _mm512_set1_epi32(15)), x0);
#define F1_LAST(r)                                                                                                  \
    if ((r) < R) {                                                                                                  \
        const __m512 s = _mm512_set1_ps(a##r[kk]);                                                                  \
        c##r##0 = _mm512_mask3_fmadd_ps(blo, s, c##r##0, (__mmask16)0x5555);                                        \
        c##r##1 = _mm512_mask3_fmadd_ps(bhi, s, c##r##1, (__mmask16)0x5555);                                        \
    }
                RT_R12(F1_LAST)
#undef F1_LAST
            }
        }
#define F1_STORE(r)                                                                                                 \
    if ((r) < R && (r) < mr)                                                                                        \
        _mm512_mask_storeu_ps(c + (int64_t)(r) * ldc, m,                                                            \
                              _mm512_min_ps(vhi, _mm512_max_ps(vlo, _mm512_add_ps(_mm512_permutex2var_ps(c##r##0, iev, c##r##1), \
                                                                                  _mm512_permutex2var_ps(c##r##0, iod, c##r##1)))));
        RT_R12(F1_STORE)
#undef F1_STORE
    }
}

/* A last pair of panels with 17..24 columns (MobileNetV2's 24-channel projections): ukr_f32_512 would
 * spend a quarter of its FMAs on the second panel's empty half (3136 x 24 x 144 ran at 72 % of peak).
 * Here all three 8-column groups take K in pairs as ukr_f32_512_1 does (rows k and k+1 zipped in
 * registers, one 8-byte broadcast of A[r][k..k+1] per row feeding three FMAs): 8 rows x 3 zmm, 3 B
 * vectors + 8 broadcasts per 24 FMAs, every lane a useful product. */
RT_OPT_INLINE void ukr_f32_512_24(const int32_t R, int32_t nseg, int32_t seg, const float *const *ap, int32_t mr,
                                  const float *b0, const float *b1, const float *bias, float lo, float hi, float *c,
                                  int32_t ldc, int32_t nr) {
    const __m512 vlo = _mm512_set1_ps(lo), vhi = _mm512_set1_ps(hi);
    const __m512i ilo = rt_zip_lo();
    const __m512i ihi = rt_zip_hi();
    const __m512 z = _mm512_setzero_ps(), bv = _mm512_loadu_ps(bias), bw = _mm512_loadu_ps(bias + NR);
    const __m512 bias0 = _mm512_permutex2var_ps(bv, ilo, z), bias1 = _mm512_permutex2var_ps(bv, ihi, z);
    const __m512 bias2 = _mm512_permutex2var_ps(bw, ilo, z);
    int32_t kk, sg;
#define F3_DECL(r) __m512 c##r##0 = bias0, c##r##1 = bias1, c##r##2 = bias2; const float *a##r;
    RT_R8(F3_DECL)
#undef F3_DECL
    for (sg = 0; sg < nseg; sg++) {
        const float *p0 = b0 + (int64_t)sg * seg * NR, *p1 = b1 + (int64_t)sg * seg * NR;
        RT_R8(UKR_ROW)
        for (kk = 0; kk + 2 <= seg; kk += 2) {
            const __m512 x0 = _mm512_loadu_ps(p0 + (int64_t)kk * NR), x1 = _mm512_loadu_ps(p0 + (int64_t)(kk + 1) * NR);
            const __m512 y0 = _mm512_loadu_ps(p1 + (int64_t)kk * NR), y1 = _mm512_loadu_ps(p1 + (int64_t)(kk + 1) * NR);
            const __m512 blo = _mm512_permutex2var_ps(x0, ilo, x1), bhi = _mm512_permutex2var_ps(x0, ihi, x1);
            const __m512 bw2 = _mm512_permutex2var_ps(y0, ilo, y1);
#define F3_STEP(r)                                                                                                  \
    if ((r) < R) {                                                                                                  \
        const __m512 s = _mm512_castsi512_ps(_mm512_broadcastq_epi64(_mm_loadl_epi64((const __m128i *)(const void *)(a##r + kk)))); \
        c##r##0 = _mm512_fmadd_ps(blo, s, c##r##0);                                                                 \
        c##r##1 = _mm512_fmadd_ps(bhi, s, c##r##1);                                                                 \
        c##r##2 = _mm512_fmadd_ps(bw2, s, c##r##2);                                                                 \
    }
            RT_R8(F3_STEP)
#undef F3_STEP
        }
        if (kk < seg) { /* an odd last k: the even lanes only (masked, so a non-finite A never meets a zero) */
            const __m512i i15 = _mm512_and_si512(ihi, _mm512_set1_epi32(15));
            const __m512 x0 = _mm512_loadu_ps(p0 + (int64_t)kk * NR), y0 = _mm512_loadu_ps(p1 + (int64_t)kk * NR);
            const __m512 blo = _mm512_permutexvar_ps(ilo, x0), bhi = _mm512_permutexvar_ps(i15, x0);
            const __m512 bw2 = _mm512_permutexvar_ps(ilo, y0);
#define F3_LAST(r)                                                                                                  \
    if ((r) < R) {                                                                                                  \
        const __m512 s = _mm512_set1_ps(a##r[kk]);                                                                  \
        c##r##0 = _mm512_mask3_fmadd_ps(blo, s, c##r##0, (__mmask16)0x5555);                                       \
        c##r##1 = _mm512_mask3_fmadd_ps(bhi, s, c##r##1, (__mmask16)0x5555);                                       \
        c##r##2 = _mm512_mask3_fmadd_ps(bw2, s, c##r##2, (__mmask16)0x5555);                                       \
    }
            RT_R8(F3_LAST)
#undef F3_LAST
        }
    }
    {
        const __m512i iev = rt_unzip_even();
        const __m512i iod = rt_unzip_odd();
        const __mmask16 m2 = (__mmask16)((1u << (nr - NR)) - 1u);
#define F3_STORE(r)                                                                                                 \
    if ((r) < R && (r) < mr) {                                                                                      \
        float *cr = c + (int64_t)(r) * ldc;                                                                         \
        _mm512_storeu_ps(cr, _mm512_min_ps(vhi, _mm512_max_ps(vlo, _mm512_add_ps(_mm512_permutex2var_ps(c##r##0, iev, c##r##1), \
                                                                                 _mm512_permutex2var_ps(c##r##0, iod, c##r##1))))); \
        _mm512_mask_storeu_ps(cr + NR, m2, _mm512_min_ps(vhi, _mm512_max_ps(vlo, _mm512_add_ps(_mm512_permutexvar_ps(iev, c##r##2), \
                                                                                              _mm512_permutexvar_ps(iod, c##r##2))))); \
    }
        RT_R8(F3_STORE)
#undef F3_STORE
    }
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
#define RT_OPT_UKR24_ROWS(R)                                                                                        \
    static void ukr3_##R(int32_t nseg, int32_t seg, const float *const *ap, int32_t mr, const float *b0,           \
                         const float *b1, const float *bias, float lo, float hi, float *c, int32_t ldc, int32_t nr) { \
        ukr_f32_512_24(R, nseg, seg, ap, mr, b0, b1, bias, lo, hi, c, ldc, nr);                                   \
    }
RT_OPT_UKR24_ROWS(2)
RT_OPT_UKR24_ROWS(4)
RT_OPT_UKR24_ROWS(8)
static void ukr2_9(int32_t nseg, int32_t seg, const float *const *ap, int32_t mr, const float *b0, const float *b1,
                   const float *bias, float lo, float hi, float *c, int32_t ldc, int32_t nr) {
    ukr_f32_512(MR_512 + 1, nseg, seg, ap, mr, b0, b1, bias, lo, hi, c, ldc, nr);
}
static void ukr2_12(int32_t nseg, int32_t seg, const float *const *ap, int32_t mr, const float *b0, const float *b1,
                    const float *bias, float lo, float hi, float *c, int32_t ldc, int32_t nr) {
    ukr_f32_512(MR_512_IND, nseg, seg, ap, mr, b0, b1, bias, lo, hi, c, ldc, nr);
}
static void ukr1_12(int32_t nseg, int32_t seg, const float *const *ap, int32_t mr, const float *b0, const float *b1,
                    const float *bias, float lo, float hi, float *c, int32_t ldc, int32_t nr) {
    (void)b1;
    ukr_f32_512_1(MR_512_1, nseg, seg, ap, mr, b0, bias, lo, hi, c, ldc, nr);
}
typedef void (*ukr_fn)(int32_t, int32_t, const float *const *, int32_t, const float *, const float *, const float *,
                       float, float, float *, int32_t, int32_t);

/* The kernel for rr rows: two panels (9 rows at most), a lone one (12 rows at most), or two with 17..24
 * columns (8 rows at most; one row is a GEMV, for ukr2_1). */
static ukr_fn pick_ukr(int32_t rr, int lone, int cols24) {
    if (cols24 && rr > 1) return rr <= 2 ? ukr3_2 : rr <= 4 ? ukr3_4 : ukr3_8;
    if (rr <= 1) return lone ? ukr1_1 : ukr2_1;
    if (rr <= 2) return lone ? ukr1_2 : ukr2_2;
    if (rr <= 4) return lone ? ukr1_4 : ukr2_4;
    if (rr <= 8) return lone ? ukr1_8 : ukr2_8;
    return lone ? ukr1_12 : rr <= 9 ? ukr2_9 : ukr2_12;
}

/* Rows of the next 12-row two-panel tile, rest left, with no short tile at the end (13..19: 5..11, then 8). */
static int32_t pair_rows(int32_t rest) {
    return rest <= MR_512_IND ? rest : rest < MR_512_IND + MR_512 ? rest - MR_512 : MR_512_IND;
}

/* Rows of the next tile of rt_opt_gemm_f32_rows_512 for `rest` rows left of a panel pair with nr columns (a function
 * of these alone: the 16-bit kernels' fused first tile takes the same rows, rt_opt_gemm16_avx512.c). */
RT_OPT_INLINE int32_t tile_rows_512(int32_t rest, int32_t nr, int tab) {
    const int lone = nr <= NR, cols24 = nr > NR && nr <= NR + NR / 2;
    const int32_t mr = lone ? MR_512_1 : tab ? MR_512_IND : MR_512;
    return cols24 ? rt_opt_next_rows(rest, MR_512, MR_512)
           : mr == MR_512_IND && !lone ? pair_rows(rest)
                                       : rt_opt_next_rows(rest, mr, mr == MR_512 ? MR_512 + 1 : mr);
}
int32_t rt_opt_gemm_f32_tile_rows_512(int32_t rest, int32_t nr, int tab) { return tile_rows_512(rest, nr, tab); }

/* C[0..m) = A . packed_b with row r's K values in nseg segments at tab[r * nseg + s] (tab NULL: rows of
 * a, lda apart, one segment). Two panels (32 columns) at a time; the rows stream past them. Also the 16-bit
 * weights' kernel on a widened copy of their panels (rt_opt_gemm16_avx512.c). */
void rt_opt_gemm_f32_rows_512(const rt_opt_gemm_params *p, int32_t m, const float *a, const float *const *tab,
                         int32_t nseg, const float *packed_b, const float *bias, float *c) {
    const float *rows[MR_512_1];
    int32_t j, i, r, rr, seg = tab ? p->k / nseg : p->k;
    if (!tab && p->n > 2 * NR && p->n % (2 * NR) == 0 && (int64_t)p->k * p->n <= RT_OPT_ROW_OUTER_FLOATS) {
        /* all the panels fit in L1 together: row tiles outer, so a tile's A rows are read from L1 by every
         * panel pair and its C rows written whole. Whole pairs only: every pair then takes the row tiles the
         * loop below gives it (tile_rows_512 of the rows left and 32 columns), so the results are its own, bit
         * for bit (the 16-bit kernels' equality with these tiles on widened weights rests on that). */
        for (i = 0; i < m; i += rr) {
            rr = tile_rows_512(m - i, 2 * NR, 0);
            for (rows[0] = a + (int64_t)i * p->lda, r = 1; r < rr; r++) rows[r] = rows[r - 1] + p->lda;
            for (j = 0; j * NR < p->n; j += 2) {
                const float *b0 = packed_b + (int64_t)j * p->k * NR;
                pick_ukr(rr, 0, 0)(1, seg, rows, rr, b0, b0 + (int64_t)p->k * NR, bias + j * NR, p->act_min, p->act_max,
                                   c + (int64_t)i * p->ldc + j * NR, p->ldc, 2 * NR);
            }
        }
        return;
    }
    for (j = 0; j * NR < p->n; j += 2) {
        const float *b0 = packed_b + (int64_t)j * p->k * NR;
        const float *b1 = (j + 1) * NR < p->n ? b0 + (int64_t)p->k * NR : b0;
        int32_t nr = p->n - j * NR < 2 * NR ? p->n - j * NR : 2 * NR;
        const int cols24 = nr > NR && nr <= NR + NR / 2;
        for (i = 0; i < m; i += rr) {
            rr = tile_rows_512(m - i, nr, tab != NULL);
            const float *const *ap = tab ? tab + (int64_t)i * nseg : rows;
            if (!tab) /* (a running pointer: the compiler vectorized a multiply per row, 2 % of a K = 16 GEMM) */
                for (rows[0] = a + (int64_t)i * p->lda, r = 1; r < rr; r++) rows[r] = rows[r - 1] + p->lda;
            pick_ukr(rr, b1 == b0, cols24)(tab ? nseg : 1, seg, ap, rr, b0, b1, bias + j * NR, p->act_min, p->act_max,
                                   c + (int64_t)i * p->ldc + j * NR, p->ldc, nr);
        }
    }
}
#endif

void rt_opt_gemm_f32(const rt_opt_gemm_params *p, const float *a, const float *packed_b, const float *bias, float *c) {
#if defined(RT_OPT_INDIRECT)
    (void)ukr_f32; /* the AVX2 kernel is not used here */
    rt_opt_gemm_f32_rows_512(p, p->m, a, NULL, 1, packed_b, bias, c);
#else
    /* Panel-outer: one packed panel (K x 16) stays in cache while all rows
     * of A stream past it. */
    int32_t j = 0;
#if defined(RT_OPT_F32_ROWS_AVX2)
    (void)ukr_f32; /* AVX2: rt_opt_gemm_f32_avx2.c's tiles */
    if (p->m == 1) /* GEMV: four full panels at a time */
        for (; (j + 4) * NR <= p->n; j += 4)
            ukr_f32_row4(p->k, a, packed_b + (int64_t)j * p->k * NR, (int64_t)p->k * NR, bias + j * NR, p->act_min,
                         p->act_max, c + j * NR);
    if (j * NR < p->n) {
        rt_opt_gemm_params q = *p;
        q.n = p->n - j * NR;
        rt_opt_gemm_f32_rows_avx2(&q, p->m, a, NULL, 1, packed_b + (int64_t)j * p->k * NR, bias + j * NR, c + j * NR);
    }
#elif defined(RT_OPT_F32_ROWS_A64)
    (void)j;
    rt_a64_f32_gemm_rows(p, p->m, a, NULL, 1, packed_b, bias, c);
#else
    int32_t i;
    for (; j * NR < p->n; j++) {
        const float *bp = packed_b + (int64_t)j * p->k * NR;
        int32_t nr = p->n - j * NR < NR ? p->n - j * NR : NR;
        for (i = 0; i < p->m; i += MR_F32)
            ukr_f32(p->k, a + (int64_t)i * p->lda, p->lda, p->m - i < MR_F32 ? p->m - i : MR_F32, bp, bias + j * NR,
                    p->act_min, p->act_max, c + (int64_t)i * p->ldc + j * NR, p->ldc, nr);
    }
#endif
#endif
}

#if defined(RT_OPT_F32_ROWS_A64)
/* The AArch64 tiles for the 16-bit weights' kernels (rt_opt_gemm16_a64.c), on their widened panels. */
void rt_opt_gemm_f32_rows_a64(const rt_opt_gemm_params *p, int32_t m, const float *a, const float *const *tab,
                              int32_t nseg, const float *packed_b, const float *bias, float *c) {
    rt_a64_f32_gemm_rows(p, m, a, tab, nseg, packed_b, bias, c);
}
#endif

/* Task t of an f32 FC: a range of rows (or of 32-column panel pairs when
 * there are too few rows to split). */
static void fc_f32_task(void *v, int t) {
    const rt_opt_gemm_job *j = v;
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
    rt_opt_gemm_job j = {p, a, packed_b, bias, c, NULL, 1, 0, 0, 0};
    int32_t tasks = par && par->run && par->threads > 1 ? par->threads : 1;
    /* by rows, each task reads all the weights; by columns, all of A: split the bigger one */
    j.by_rows = p->m >= 16 * tasks && p->m >= p->n;
    if (j.by_rows) j.step = ((p->m + tasks - 1) / tasks + 7) / 8 * 8; /* whole 8-row tiles */
    else j.step = ((p->n + tasks - 1) / tasks + 2 * NR - 1) / (2 * NR) * (2 * NR); /* whole panel pairs */
    j.tasks = ((j.by_rows ? p->m : p->n) + j.step - 1) / j.step;
    if (tasks > 1 && j.tasks > 1) par->run(par->pool, fc_f32_task, &j, j.tasks);
    else rt_opt_gemm_f32(p, a, packed_b, bias, c);
}

/* A fused residual ADD after a block of outputs (rt_opt_post_add; the convolutions of rt_opt_conv_f32.c and
 * rt_opt_gemm_half.c). The clamp bounds in locals: out may alias *post->add as far as the compiler knows, which
 * kept the loop scalar, reloading them per element. Float addition commutes, so conv_is_lhs changes nothing here. */
void rt_opt_post_add_f32(const rt_opt_post_add *post, float *out, const float *other, int64_t n) {
    const float lo = post->add->act_min, hi = post->add->act_max;
    int64_t i = 0;
#if defined(RT_A64)
    i = rt_a64_post_add_f32(out, other, n, lo, hi); /* GCC left the loop below scalar */
#endif
    for (; i < n; i++) {
        float v = out[i] + other[i];
        v = v < lo ? lo : v;
        out[i] = v > hi ? hi : v;
    }
}
