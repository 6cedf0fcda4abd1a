/* rt_opt_gemm16_avx512.c - FULLY_CONNECTED and CONV_2D with 16-bit float weights (bf16 / fp16) on AVX-512 CPUs
 * without 16-bit arithmetic (no AVX512-BF16, AVX512-FP16 or AMX: Intel Ice Lake / Cascade Lake / Skylake-SP
 * Xeons): 16-bit storage, f32 arithmetic, as rt_opt_gemm16_avx2.c / rt_opt_gemm16_rows_avx2.c on AVX2, with
 * zmm registers (32 of them, 16 floats each) as the f32 GEMM here (rt_opt_gemm.c's RT_OPT_INDIRECT kernels).
 * The weights are the packed panels ([K2][16][2] pair words per 16-column panel, rt_opt_gemm_half.c): one
 * k pair of a panel is 64 bytes, one zmm. They are widened in registers; no scratch:
 * - bf16: tiles of up to 12 rows x 32 columns (two panels, 24 accumulators): k0's 16 floats of a panel are
 *   its pair words shifted left by 16, k1's the pair words AND 0xffff0000; each column's sum runs from the
 *   bias through K in order, one FMA per product: rt_opt_gemm.c's f32 tiles on the widened weights, bit for
 *   bit (two integer ops per 24 FMAs of a 12-row tile).
 * - fp16, and bf16 on a lone last panel: tiles of up to 12 rows x 16 columns (one panel): vcvtph2ps (bf16: a zero
 *   extension and a shift) of 8 columns' pair words gives (c k0, c k1) per column, FMAed by the input pair (a[k],
 *   a[k+1]) broadcast (vbroadcastsd), so each column keeps an even-k and an odd-k partial sum (the bias in the even
 *   lanes), added at the store (as rt_opt_gemm.c's lone-panel kernel): two conversions per 24 FMAs, no shuffles;
 *   within rounding of the f32 GEMM. Over more rows than one tile where neither widened path below runs, fp16's
 *   panel is converted once into floats in the same pair order and each tile loads it: the same sums, one
 *   conversion per weight rather than one per tile (16 x 64 x 192: 0.76 -> 0.84x the f32 GEMM, 40 x 64 x 288: 0.79
 *   -> 0.90-0.95x; Intel Xeon AVX-512, no F16 arithmetic). (bf16 in K order on a lone panel needs a broadcast per
 *   FMA, one panel per k: load-bound, 0.87-0.92x the f32 kernel at ResNet's 16-channel convolutions, against ~1.0x
 *   in pairs.)
 * - one row (GEMV, tab NULL): four panels (bf16) or two (fp16) at a time, eight independent FMA chains; the
 *   panels after them one at a time in four chains.
 * - many rows (rt_opt_gemm16_widens; a convolution's blocks, rt_opt_gemm16_widen_rows): the panels widened into an
 *   f32 copy on the stack and rt_opt_gemm.c's own tiles run on it; bf16's copy is stored by each panel pair's first
 *   row tile as it runs (fuse2 / fuse1), fp16's by a widening pass.
 * The inputs are f32 as they are (not rounded to the 16-bit type: rt_opt_half_rounds_inputs is 0 here).
 * K may come as nseg segments of p->k / nseg values, row r's segment s at tab[r * nseg + s] (a convolution's
 * patch rows read in place: rt_opt_conv_rows_f32); a segment may start at an odd k (its first value takes the
 * k1 half of its pair) and end at an even one (its last value the k0 half). */
#include <math.h>
#include <string.h>

#include "mpcc_rt.h"
#include "rt_opt.h"
#include "rt_opt_internal.h"

#if defined(RT_OPT_GEMM16_AVX512)

#define NR RT_OPT_NR
#define PAIRS(src) _mm512_loadu_si512((const void *)(src))
#define K0_BF16(src) _mm512_castsi512_ps(_mm512_slli_epi32(PAIRS(src), 16))
#define K1_BF16(src) _mm512_castsi512_ps(_mm512_and_si512(PAIRS(src), high))
#define LOAD8(src) _mm256_loadu_si256((const __m256i *)(const void *)(src))
/* 8 columns' pair words widened to (c k0, c k1) per column: fp16 by vcvtph2ps, bf16 by a zero extension and a
 * shift */
#define CVT8(src) _mm512_cvtph_ps(LOAD8(src))
#define WIDEN8(src) (F16 ? CVT8(src) : _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(LOAD8(src)), 16)))
/* row r's pointer to segment sg (rows past the tile's R are never read) */
#define ROW(r) if ((r) < R) a##r = ap[(r) * nseg + sg];
#define DECL_ROW(r) const float *a##r = NULL;

/* Keeps two widened weight vectors in registers: gcc 12 otherwise stored them to the stack and gave each of the
 * tile's 24 FMAs a memory operand (with zmm registers free), which made ukr_pairs load-bound: 0.51x the f32 GEMM
 * on BERT-base's FCs (K 768 and 3072, 128 rows), Intel Xeon AVX-512. */
#if defined(__GNUC__)
#define IN_REGS(x, y) __asm__("" : "+v"(x), "+v"(y))
#else
#define IN_REGS(x, y) (void)0
#endif

/* (a[0], a[1]) as one double's bits, for vbroadcastsd */
static inline double pair_of(const float *a) {
    double d;
    memcpy(&d, a, sizeof d);
    return d;
}

/* The two-panel tiles (ukr_bf16, fuse2, chunk_tile; 12 rows x 2 zmm at most): STEP2 gives row r's two accumulators
 * one k's products of the widened weights x0 (columns 0-15) and x1 (16-31) with a##r[off] (STEPS2: every row of R);
 * STORE2 clamps row r to [vlo, vhi] (the max/min operand order keeps NaN as rt_clamp_f32 does) and stores its nr
 * columns under the masks MASK0(nr), MASK1(nr). */
#define STEP2(r, x0, x1, off)                                                                                       \
    if ((r) < R) {                                                                                                  \
        const __m512 s_ = _mm512_set1_ps(a##r[off]);                                                                \
        c##r##0 = _mm512_fmadd_ps((x0), s_, c##r##0);                                                              \
        c##r##1 = _mm512_fmadd_ps((x1), s_, c##r##1);                                                              \
    }
#define STEPS2(x0, x1, off) STEP2(0, x0, x1, off) STEP2(1, x0, x1, off) STEP2(2, x0, x1, off) STEP2(3, x0, x1, off) \
    STEP2(4, x0, x1, off) STEP2(5, x0, x1, off) STEP2(6, x0, x1, off) STEP2(7, x0, x1, off) STEP2(8, x0, x1, off)  \
    STEP2(9, x0, x1, off) STEP2(10, x0, x1, off) STEP2(11, x0, x1, off)
#define MASK0(nr) ((__mmask16)((nr) >= NR ? 0xFFFF : (1u << (nr)) - 1))
#define MASK1(nr) ((__mmask16)((nr) >= 2 * NR ? 0xFFFF : (nr) > NR ? (1u << ((nr) - NR)) - 1 : 0))
#define STORE2(r)                                                                                                   \
    if ((r) < R) {                                                                                                  \
        float *cr = c + (int64_t)(r) * ldc;                                                                         \
        _mm512_mask_storeu_ps(cr, MASK0(nr), _mm512_min_ps(vhi, _mm512_max_ps(vlo, c##r##0)));                      \
        _mm512_mask_storeu_ps(cr + NR, MASK1(nr), _mm512_min_ps(vhi, _mm512_max_ps(vlo, c##r##1)));                 \
    }

/* bf16: C[0..R)[0..nr) from two panels (b0, b1 = b0 + pk), nr <= 32; R <= 12 rows x 2 zmm. */
RT_OPT_INLINE void ukr_bf16(const int32_t R, int32_t nseg, int32_t seg, const float *const *ap,
                            const uint16_t *b0, int64_t pk, const float *bias, float lo, float hi, float *c,
                            int32_t ldc, int32_t nr) {
    const __m512i high = _mm512_set1_epi32((int32_t)0xFFFF0000u);
    const __m512 bias0 = _mm512_loadu_ps(bias), bias1 = _mm512_loadu_ps(bias + NR);
    int32_t sg, kk, k = 0;
#define DECL(r) __m512 c##r##0 = bias0, c##r##1 = bias1;
    RT_R12(DECL) RT_R12(DECL_ROW)
#undef DECL
    for (sg = 0; sg < nseg; sg++, k += seg) {
        const uint16_t *p = b0 + (int64_t)(k / 2) * 2 * NR; /* the pair of k */
        __m512 e0, e1, o0, o1;
        RT_R12(ROW)
        kk = 0;
        if (k & 1) { /* the segment starts at a pair's k1 */
            o0 = K1_BF16(p), o1 = K1_BF16(p + pk);
            STEPS2(o0, o1, 0)
            kk = 1, p += 2 * NR;
        }
        for (; kk + 1 < seg; kk += 2, p += 2 * NR) {
            e0 = K0_BF16(p), e1 = K0_BF16(p + pk);
            STEPS2(e0, e1, kk)
            o0 = K1_BF16(p), o1 = K1_BF16(p + pk);
            STEPS2(o0, o1, kk + 1)
        }
        if (kk < seg) { /* the segment ends at a pair's k0 */
            e0 = K0_BF16(p), e1 = K0_BF16(p + pk);
            STEPS2(e0, e1, kk)
        }
    }
    {
        const __m512 vlo = _mm512_set1_ps(lo), vhi = _mm512_set1_ps(hi);
        RT_R12(STORE2)
    }
}

/* fp16 (F16 1), and bf16 on a lone last panel: C[0..R)[0..nr) from one panel, nr <= 16; R <= 12 rows x 2 zmm
 * (columns 0-7 and 8-15, each lane pair a column's even-k and odd-k sums). F16 2: the panel's pair words already
 * widened to floats at bw, element for element (tile_f16_widened), loaded instead of converted: the same sums. */
RT_OPT_INLINE void ukr_pairs(const int32_t F16, const int32_t R, int32_t nseg, int32_t seg, const float *const *ap, const uint16_t *b,
                           const float *bw, const float *bias, float lo, float hi, float *c, int32_t ldc, int32_t nr) {
    const __m512 bv = _mm512_loadu_ps(bias), z = _mm512_setzero_ps();
    const __m512 bias0 = _mm512_permutex2var_ps(bv, rt_zip_lo(), z), bias1 = _mm512_permutex2var_ps(bv, rt_zip_hi(), z);
    int32_t sg, kk, k = 0;
#define DECL(r) __m512 c##r##0 = bias0, c##r##1 = bias1;
    RT_R12(DECL) RT_R12(DECL_ROW)
#undef DECL
#define STEP(r, X)                                                                                                  \
    if ((r) < R) {                                                                                                  \
        const __m512 s_ = X(a##r);                                                                                  \
        c##r##0 = MASK_FMA(w0, s_, c##r##0);                                                                        \
        c##r##1 = MASK_FMA(w1, s_, c##r##1);                                                                        \
        IN_REGS(w0, w1);                                                                                            \
    }
#define STEPS(X) STEP(0, X) STEP(1, X) STEP(2, X) STEP(3, X) STEP(4, X) STEP(5, X) STEP(6, X) STEP(7, X) STEP(8, X) \
    STEP(9, X) STEP(10, X) STEP(11, X)
#define X_PAIR(ar) _mm512_castpd_ps(_mm512_set1_pd(pair_of(ar + kk)))
#define X_ONE(ar) _mm512_set1_ps(ar[kk])
#define PAIR8(e) (F16 == 2 ? _mm512_loadu_ps(bw + (e)) : WIDEN8(b + (e)))
    for (sg = 0; sg < nseg; sg++, k += seg) {
        int64_t e = (int64_t)(k / 2) * 2 * NR; /* the pair of k, in elements of b (or bw) */
        __m512 w0, w1;
        RT_R12(ROW)
        kk = 0;
        if (k & 1) { /* the segment starts at a pair's k1: the odd lanes only (masked: a non-finite A never meets
                      * the pair's other weight) */
            w0 = PAIR8(e), w1 = PAIR8(e + NR);
#define MASK_FMA(w, s, acc) _mm512_mask3_fmadd_ps((w), (s), (acc), (__mmask16)0xAAAA)
            STEPS(X_ONE)
#undef MASK_FMA
            kk = 1, e += 2 * NR;
        }
#define MASK_FMA(w, s, acc) _mm512_fmadd_ps((w), (s), (acc))
        for (; kk + 1 < seg; kk += 2, e += 2 * NR) {
            w0 = PAIR8(e), w1 = PAIR8(e + NR);
            STEPS(X_PAIR)
        }
#undef MASK_FMA
        if (kk < seg) { /* the segment ends at a pair's k0: the even lanes only */
            w0 = PAIR8(e), w1 = PAIR8(e + NR);
#define MASK_FMA(w, s, acc) _mm512_mask3_fmadd_ps((w), (s), (acc), (__mmask16)0x5555)
            STEPS(X_ONE)
#undef MASK_FMA
        }
    }
#undef PAIR8
#undef X_ONE
#undef X_PAIR
#undef STEPS
#undef STEP
    {
        const __m512 vlo = _mm512_set1_ps(lo), vhi = _mm512_set1_ps(hi);
        const __m512i iev = rt_unzip_even(), iod = rt_unzip_odd();
        const __mmask16 m = (__mmask16)(nr >= NR ? 0xFFFF : (1u << nr) - 1);
#define STORE(r)                                                                                                    \
    if ((r) < R)                                                                                                    \
        _mm512_mask_storeu_ps(c + (int64_t)(r) * ldc, m,                                                            \
                              _mm512_min_ps(vhi, _mm512_max_ps(vlo, _mm512_add_ps(_mm512_permutex2var_ps(c##r##0, iev, c##r##1), \
                                                                                  _mm512_permutex2var_ps(c##r##0, iod, c##r##1)))));
        RT_R12(STORE)
#undef STORE
    }
}
#undef DECL_ROW
#undef ROW

/* bf16, one row (GEMV) against 4 full panels (pk halves apart): the k0 and k1 products of each panel in their
 * own chains (eight), added at the store. */
static void row_bf16(int32_t k, const float *a, const uint16_t *b, int64_t pk, const float *bias, float lo, float hi,
                     float *c) {
    const __m512i high = _mm512_set1_epi32((int32_t)0xFFFF0000u);
    const __m512 vlo = _mm512_set1_ps(lo), vhi = _mm512_set1_ps(hi), z = _mm512_setzero_ps();
    __m512 e0 = _mm512_loadu_ps(bias), e1 = _mm512_loadu_ps(bias + NR), e2 = _mm512_loadu_ps(bias + 2 * NR);
    __m512 e3 = _mm512_loadu_ps(bias + 3 * NR), o0 = z, o1 = z, o2 = z, o3 = z;
    int32_t kk;
    const uint16_t *p = b;
    for (kk = 0; kk + 1 < k; kk += 2, p += 2 * NR) {
        const __m512 x0 = _mm512_set1_ps(a[kk]), x1 = _mm512_set1_ps(a[kk + 1]);
        e0 = _mm512_fmadd_ps(K0_BF16(p), x0, e0);
        o0 = _mm512_fmadd_ps(K1_BF16(p), x1, o0);
        e1 = _mm512_fmadd_ps(K0_BF16(p + pk), x0, e1);
        o1 = _mm512_fmadd_ps(K1_BF16(p + pk), x1, o1);
        e2 = _mm512_fmadd_ps(K0_BF16(p + 2 * pk), x0, e2);
        o2 = _mm512_fmadd_ps(K1_BF16(p + 2 * pk), x1, o2);
        e3 = _mm512_fmadd_ps(K0_BF16(p + 3 * pk), x0, e3);
        o3 = _mm512_fmadd_ps(K1_BF16(p + 3 * pk), x1, o3);
    }
    if (kk < k) {
        const __m512 x0 = _mm512_set1_ps(a[kk]);
        e0 = _mm512_fmadd_ps(K0_BF16(p), x0, e0);
        e1 = _mm512_fmadd_ps(K0_BF16(p + pk), x0, e1);
        e2 = _mm512_fmadd_ps(K0_BF16(p + 2 * pk), x0, e2);
        e3 = _mm512_fmadd_ps(K0_BF16(p + 3 * pk), x0, e3);
    }
    _mm512_storeu_ps(c, _mm512_min_ps(vhi, _mm512_max_ps(vlo, _mm512_add_ps(e0, o0))));
    _mm512_storeu_ps(c + NR, _mm512_min_ps(vhi, _mm512_max_ps(vlo, _mm512_add_ps(e1, o1))));
    _mm512_storeu_ps(c + 2 * NR, _mm512_min_ps(vhi, _mm512_max_ps(vlo, _mm512_add_ps(e2, o2))));
    _mm512_storeu_ps(c + 3 * NR, _mm512_min_ps(vhi, _mm512_max_ps(vlo, _mm512_add_ps(e3, o3))));
}

/* fp16, one row against 2 full panels: four conversions a k pair, each FMAed by the broadcast input pair into its
 * own chain, and a second set of chains for alternate pairs (eight chains). */
static void row_f16(int32_t k, const float *a, const uint16_t *b, int64_t pk, const float *bias, float lo, float hi,
                    float *c) {
    const __m512 vlo = _mm512_set1_ps(lo), vhi = _mm512_set1_ps(hi), z = _mm512_setzero_ps();
    const __m512i ilo = rt_zip_lo(), ihi = rt_zip_hi(), iev = rt_unzip_even(), iod = rt_unzip_odd();
    const __m512 bv = _mm512_loadu_ps(bias), bw = _mm512_loadu_ps(bias + NR);
    __m512 s0 = _mm512_permutex2var_ps(bv, ilo, z), s1 = _mm512_permutex2var_ps(bv, ihi, z);
    __m512 s2 = _mm512_permutex2var_ps(bw, ilo, z), s3 = _mm512_permutex2var_ps(bw, ihi, z);
    __m512 t0 = z, t1 = z, t2 = z, t3 = z;
    int32_t kk, pairs = k / 2;
    const uint16_t *p = b;
    for (kk = 0; kk + 1 < pairs; kk += 2, p += 4 * NR) {
        const __m512 x = _mm512_castpd_ps(_mm512_set1_pd(pair_of(a + 2 * kk)));
        const __m512 y = _mm512_castpd_ps(_mm512_set1_pd(pair_of(a + 2 * kk + 2)));
        s0 = _mm512_fmadd_ps(CVT8(p), x, s0);
        s1 = _mm512_fmadd_ps(CVT8(p + NR), x, s1);
        s2 = _mm512_fmadd_ps(CVT8(p + pk), x, s2);
        s3 = _mm512_fmadd_ps(CVT8(p + pk + NR), x, s3);
        t0 = _mm512_fmadd_ps(CVT8(p + 2 * NR), y, t0);
        t1 = _mm512_fmadd_ps(CVT8(p + 3 * NR), y, t1);
        t2 = _mm512_fmadd_ps(CVT8(p + pk + 2 * NR), y, t2);
        t3 = _mm512_fmadd_ps(CVT8(p + pk + 3 * NR), y, t3);
    }
    for (; kk < pairs; kk++, p += 2 * NR) {
        const __m512 x = _mm512_castpd_ps(_mm512_set1_pd(pair_of(a + 2 * kk)));
        s0 = _mm512_fmadd_ps(CVT8(p), x, s0);
        s1 = _mm512_fmadd_ps(CVT8(p + NR), x, s1);
        s2 = _mm512_fmadd_ps(CVT8(p + pk), x, s2);
        s3 = _mm512_fmadd_ps(CVT8(p + pk + NR), x, s3);
    }
    if (k & 1) { /* the last pair's k1 is past the row (a zero weight): the even lanes only */
        const __m512 x = _mm512_set1_ps(a[k - 1]);
        s0 = _mm512_mask3_fmadd_ps(CVT8(p), x, s0, (__mmask16)0x5555);
        s1 = _mm512_mask3_fmadd_ps(CVT8(p + NR), x, s1, (__mmask16)0x5555);
        s2 = _mm512_mask3_fmadd_ps(CVT8(p + pk), x, s2, (__mmask16)0x5555);
        s3 = _mm512_mask3_fmadd_ps(CVT8(p + pk + NR), x, s3, (__mmask16)0x5555);
    }
    s0 = _mm512_add_ps(s0, t0), s1 = _mm512_add_ps(s1, t1), s2 = _mm512_add_ps(s2, t2), s3 = _mm512_add_ps(s3, t3);
    _mm512_storeu_ps(c, _mm512_min_ps(vhi, _mm512_max_ps(vlo, _mm512_add_ps(_mm512_permutex2var_ps(s0, iev, s1),
                                                                            _mm512_permutex2var_ps(s0, iod, s1)))));
    _mm512_storeu_ps(c + NR, _mm512_min_ps(vhi, _mm512_max_ps(vlo, _mm512_add_ps(_mm512_permutex2var_ps(s2, iev, s3),
                                                                                 _mm512_permutex2var_ps(s2, iod, s3)))));
}

/* One row against one panel (nr <= 16 columns): the GEMV's panels after its groups (a classifier's 10 or 2 outputs,
 * a 16-column tail), where a one-row tile keeps one or two FMA chains K long (latency-bound, and bf16's pairs
 * kernel widens 8 columns per two ops). bf16: the k0 and k1 products of alternate pairs in four chains; fp16: the
 * pair products (columns 0-7 and 8-15) of alternate pairs in four chains; added at the store. */
static void row_one(int32_t f16, int32_t k, const float *a, const uint16_t *b, const float *bias, float lo, float hi,
                    float *c, int32_t nr) {
    const __m512 vlo = _mm512_set1_ps(lo), vhi = _mm512_set1_ps(hi), z = _mm512_setzero_ps();
    const __mmask16 m = (__mmask16)(nr >= NR ? 0xFFFF : (1u << nr) - 1);
    const uint16_t *p = b;
    int32_t kk = 0;
    __m512 v;
    if (f16) {
        const __m512 bv = _mm512_loadu_ps(bias);
        __m512 s0 = _mm512_permutex2var_ps(bv, rt_zip_lo(), z), s1 = _mm512_permutex2var_ps(bv, rt_zip_hi(), z);
        __m512 t0 = z, t1 = z;
        for (; kk + 3 < k; kk += 4, p += 4 * NR) {
            const __m512 x = _mm512_castpd_ps(_mm512_set1_pd(pair_of(a + kk)));
            const __m512 y = _mm512_castpd_ps(_mm512_set1_pd(pair_of(a + kk + 2)));
            s0 = _mm512_fmadd_ps(CVT8(p), x, s0);
            s1 = _mm512_fmadd_ps(CVT8(p + NR), x, s1);
            t0 = _mm512_fmadd_ps(CVT8(p + 2 * NR), y, t0);
            t1 = _mm512_fmadd_ps(CVT8(p + 3 * NR), y, t1);
        }
        if (kk + 1 < k) {
            const __m512 x = _mm512_castpd_ps(_mm512_set1_pd(pair_of(a + kk)));
            s0 = _mm512_fmadd_ps(CVT8(p), x, s0);
            s1 = _mm512_fmadd_ps(CVT8(p + NR), x, s1);
            kk += 2, p += 2 * NR;
        }
        if (kk < k) { /* the last pair's k1 is past the row (a zero weight): the even lanes only */
            const __m512 x = _mm512_set1_ps(a[kk]);
            s0 = _mm512_mask3_fmadd_ps(CVT8(p), x, s0, (__mmask16)0x5555);
            s1 = _mm512_mask3_fmadd_ps(CVT8(p + NR), x, s1, (__mmask16)0x5555);
        }
        s0 = _mm512_add_ps(s0, t0), s1 = _mm512_add_ps(s1, t1);
        v = _mm512_add_ps(_mm512_permutex2var_ps(s0, rt_unzip_even(), s1),
                          _mm512_permutex2var_ps(s0, rt_unzip_odd(), s1));
    } else {
        const __m512i high = _mm512_set1_epi32((int32_t)0xFFFF0000u);
        __m512 e0 = _mm512_loadu_ps(bias), o0 = z, e1 = z, o1 = z;
        for (; kk + 3 < k; kk += 4, p += 4 * NR) {
            e0 = _mm512_fmadd_ps(K0_BF16(p), _mm512_set1_ps(a[kk]), e0);
            o0 = _mm512_fmadd_ps(K1_BF16(p), _mm512_set1_ps(a[kk + 1]), o0);
            e1 = _mm512_fmadd_ps(K0_BF16(p + 2 * NR), _mm512_set1_ps(a[kk + 2]), e1);
            o1 = _mm512_fmadd_ps(K1_BF16(p + 2 * NR), _mm512_set1_ps(a[kk + 3]), o1);
        }
        if (kk + 1 < k) {
            e0 = _mm512_fmadd_ps(K0_BF16(p), _mm512_set1_ps(a[kk]), e0);
            o0 = _mm512_fmadd_ps(K1_BF16(p), _mm512_set1_ps(a[kk + 1]), o0);
            kk += 2, p += 2 * NR;
        }
        if (kk < k) e0 = _mm512_fmadd_ps(K0_BF16(p), _mm512_set1_ps(a[kk]), e0);
        v = _mm512_add_ps(_mm512_add_ps(e0, o0), _mm512_add_ps(e1, o1));
    }
    _mm512_mask_storeu_ps(c, m, _mm512_min_ps(vhi, _mm512_max_ps(vlo, v)));
}

/* One tile of `rows` rows (1..12) through the kernel compiled for that many rows. */
#define CASES(CALL)                                                                                                 \
    switch (rows) {                                                                                                 \
    case 1: CALL(1); break;                                                                                         \
    case 2: CALL(2); break;                                                                                         \
    case 3: CALL(3); break;                                                                                         \
    case 4: CALL(4); break;                                                                                         \
    case 5: CALL(5); break;                                                                                         \
    case 6: CALL(6); break;                                                                                         \
    case 7: CALL(7); break;                                                                                         \
    case 8: CALL(8); break;                                                                                         \
    case 9: CALL(9); break;                                                                                         \
    case 10: CALL(10); break;                                                                                       \
    case 11: CALL(11); break;                                                                                       \
    default: CALL(12); break;                                                                                       \
    }
static void tile_bf16_2(int32_t rows, int32_t nseg, int32_t seg, const float *const *ap, const uint16_t *b,
                        int64_t pk, const float *bias, float lo, float hi, float *c, int32_t ldc, int32_t nr) {
#define CALL(R) ukr_bf16(R, nseg, seg, ap, b, pk, bias, lo, hi, c, ldc, nr)
    CASES(CALL)
#undef CALL
}
static void tile_bf16_pairs(int32_t rows, int32_t nseg, int32_t seg, const float *const *ap, const uint16_t *b,
                            const float *bias, float lo, float hi, float *c, int32_t ldc, int32_t nr) {
#define CALL(R) ukr_pairs(0, R, nseg, seg, ap, b, NULL, bias, lo, hi, c, ldc, nr)
    CASES(CALL)
#undef CALL
}
static void tile_f16(int32_t rows, int32_t nseg, int32_t seg, const float *const *ap, const uint16_t *b,
                     const float *bias, float lo, float hi, float *c, int32_t ldc, int32_t nr) {
#define CALL(R) ukr_pairs(1, R, nseg, seg, ap, b, NULL, bias, lo, hi, c, ldc, nr)
    CASES(CALL)
#undef CALL
}
static void tile_f16_widened(int32_t rows, int32_t nseg, int32_t seg, const float *const *ap, const uint16_t *b,
                             const float *bw, const float *bias, float lo, float hi, float *c, int32_t ldc, int32_t nr) {
#define CALL(R) ukr_pairs(2, R, nseg, seg, ap, b, bw, bias, lo, hi, c, ldc, nr)
    CASES(CALL)
#undef CALL
}
#undef CASES

/* ---- Many rows: the panels widened once, then the f32 GEMM's own tiles ----
 * With enough rows the in-register widening above (bf16: 2 integer ops per 24 FMAs; fp16: 2 vcvtph2ps, 2 uops
 * each on the FMA ports) costs more than widening a panel pair once into an f32 copy in the f32 GEMM's packed
 * layout ([K][16] floats a panel) and running rt_opt_gemm.c's zmm tiles over all the rows with it: the inner loop
 * is then the f32 GEMM's, bit for bit its results on the widened weights (same tiles, same K order, fp16 too),
 * and the widening (a load, two ops and two stores per k pair and panel) is paid once per call, not once per
 * row tile. The copy lives on the stack: WIDEN_KMAX x 32 floats (73,728 bytes at K 576), so deeper K keeps the
 * in-register kernels (their weights stream from L2 there, where half the bytes is the win). */
#ifndef RT_OPT_WIDEN_KMAX
#define RT_OPT_WIDEN_KMAX 576
#endif
/* Fewer rows than these keep the in-register kernels: the widening (2 K zmm stores a panel pair, against the tiles'
 * M x K cycles of FMAs) is not amortized there. Measured (kernel A/B, Intel Xeon AVX-512 + VNNI): bf16's
 * in-register tiles are ~1.0x the f32 GEMM already up to 48 rows, fp16's 0.85-0.95x. */
#ifndef RT_OPT_WIDEN_MIN_ROWS
#define RT_OPT_WIDEN_MIN_ROWS 64
#endif
#ifndef RT_OPT_WIDEN_MIN_ROWS_F16
#define RT_OPT_WIDEN_MIN_ROWS_F16 48
#endif

/* `panels` packed 16-bit panels (pk halves apart) widened to f32 panels [k][16] (k x 16 floats apart) at dst */
RT_OPT_INLINE void widen(const int32_t F16, int32_t k, const uint16_t *b, int64_t pk, int32_t panels, float *dst) {
    const __m512i high = _mm512_set1_epi32((int32_t)0xFFFF0000u), iev = rt_unzip_even(), iod = rt_unzip_odd();
    int32_t q, kk;
    for (q = 0; q < panels; q++) {
        const uint16_t *p = b + q * pk;
        float *d = dst + (int64_t)q * k * NR;
        for (kk = 0; kk + 1 < k; kk += 2, p += 2 * NR, d += 2 * NR) {
            if (F16) { /* columns 0-7 and 8-15 as (k0, k1) pairs, unzipped: 2 conversions, 2 permutes */
                const __m512 lo = CVT8(p), hi = CVT8(p + NR);
                _mm512_storeu_ps(d, _mm512_permutex2var_ps(lo, iev, hi));
                _mm512_storeu_ps(d + NR, _mm512_permutex2var_ps(lo, iod, hi));
            } else {
                const __m512i w = PAIRS(p);
                _mm512_storeu_ps(d, _mm512_castsi512_ps(_mm512_slli_epi32(w, 16)));
                _mm512_storeu_ps(d + NR, _mm512_castsi512_ps(_mm512_and_si512(w, high)));
            }
        }
        if (kk < k) /* odd K: the last pair's k0 */
            _mm512_storeu_ps(d, F16 ? _mm512_cvtph_ps(_mm512_cvtepi32_epi16(PAIRS(p)))
                                    : _mm512_castsi512_ps(_mm512_slli_epi32(PAIRS(p), 16)));
    }
}

/* ---- bf16: the first row tile of a panel pair widens it ----
 * Rather than a widening pass over the pair (a load, two integer ops and two stores a k pair and panel) before the
 * f32 tiles, the pair's first row tile reads the bf16 pair words, widens them in registers for its own FMAs (as
 * ukr_bf16 / ukr_pairs) and stores the widened rows ([k][16] floats a panel, at w0 and w1) for the tiles after it:
 * the stores and the shift / AND ride along the tile's FMAs, and the separate pass (its second read of the pair
 * words) is gone. The tile's rows are the f32 GEMM's first tile's (rt_opt_gemm_f32_tile_rows_512) and its sums
 * those of the f32 tile it stands for, bit for bit: two panels each column from the bias through K in order, a
 * lone panel in pairs (even-k / odd-k sums, as ukr_f32_512_1 for segments that start at an even k). fp16 keeps
 * the widening pass: its conversions (vcvtph2ps and the k0 / k1 unzip, 3 uops a panel and k pair) take the FMA
 * ports either way, and fused they measured no faster (64 x 32 x 144: 0.94x against the pass's 0.96x). */
#define ROW(r) if ((r) < R) a##r = ap[(r) * nseg + sg];
#define DECL_ROW(r) const float *a##r = NULL;
RT_OPT_INLINE void fuse2(const int32_t R, int32_t nseg, int32_t seg, const float *const *ap, const uint16_t *b0,
                         int64_t pk, const float *bias, float lo, float hi, float *c, int32_t ldc, int32_t nr,
                         float *w0, float *w1) {
    const __m512i high = _mm512_set1_epi32((int32_t)0xFFFF0000u);
    const __m512 bias0 = _mm512_loadu_ps(bias), bias1 = _mm512_loadu_ps(bias + NR);
    int32_t sg, kk, k = 0;
#define DECL(r) __m512 c##r##0 = bias0, c##r##1 = bias1;
    RT_R12(DECL) RT_R12(DECL_ROW)
#undef DECL
/* widened row kw of both panels stored (k0 and k1 each from the pair words, as ukr_bf16: fewer live registers than
 * both at once, which spilled) */
#define PUT(kw, x0, x1) _mm512_storeu_ps(w0 + (int64_t)(kw) * NR, x0), _mm512_storeu_ps(w1 + (int64_t)(kw) * NR, x1)
    for (sg = 0; sg < nseg; sg++, k += seg) {
        const uint16_t *p = b0 + (int64_t)(k / 2) * 2 * NR; /* the pair of k */
        __m512 e0, e1, o0, o1;
        RT_R12(ROW)
        kk = 0;
        if (k & 1) { /* the segment starts at a pair's k1 */
            const __m512i v0 = PAIRS(p), v1 = PAIRS(p + pk);
            o0 = _mm512_castsi512_ps(_mm512_and_si512(v0, high)), o1 = _mm512_castsi512_ps(_mm512_and_si512(v1, high));
            PUT(k, o0, o1);
            STEPS2(o0, o1, 0)
            kk = 1, p += 2 * NR;
        }
        for (; kk + 1 < seg; kk += 2, p += 2 * NR) {
            e0 = K0_BF16(p), e1 = K0_BF16(p + pk);
            PUT(k + kk, e0, e1);
            STEPS2(e0, e1, kk)
            o0 = K1_BF16(p), o1 = K1_BF16(p + pk);
            PUT(k + kk + 1, o0, o1);
            STEPS2(o0, o1, kk + 1)
        }
        if (kk < seg) { /* the segment ends at a pair's k0 */
            e0 = K0_BF16(p), e1 = K0_BF16(p + pk);
            PUT(k + kk, e0, e1);
            STEPS2(e0, e1, kk)
        }
    }
#undef PUT
    {
        const __m512 vlo = _mm512_set1_ps(lo), vhi = _mm512_set1_ps(hi);
        RT_R12(STORE2)
    }
}

/* A lone panel (nr <= 16): ukr_pairs' scheme, the pairs' (c k0, c k1) vectors unzipped into the widened rows at w0. */
RT_OPT_INLINE void fuse1(const int32_t R, int32_t nseg, int32_t seg, const float *const *ap, const uint16_t *b,
                         const float *bias, float lo, float hi, float *c, int32_t ldc, int32_t nr, float *w0) {
    const __m512 bv = _mm512_loadu_ps(bias), z = _mm512_setzero_ps();
    const __m512 bias0 = _mm512_permutex2var_ps(bv, rt_zip_lo(), z), bias1 = _mm512_permutex2var_ps(bv, rt_zip_hi(), z);
    const __m512i iev = rt_unzip_even(), iod = rt_unzip_odd();
    const int32_t F16 = 0; /* (WIDEN8: bf16) */
    int32_t sg, kk, k = 0;
#define DECL(r) __m512 c##r##0 = bias0, c##r##1 = bias1;
    RT_R12(DECL) RT_R12(DECL_ROW)
#undef DECL
#define STEP(r, X)                                                                                                  \
    if ((r) < R) {                                                                                                  \
        const __m512 s_ = X(a##r);                                                                                  \
        c##r##0 = MASK_FMA(x0, s_, c##r##0);                                                                        \
        c##r##1 = MASK_FMA(x1, s_, c##r##1);                                                                        \
    }
#define STEPS(X) STEP(0, X) STEP(1, X) STEP(2, X) STEP(3, X) STEP(4, X) STEP(5, X) STEP(6, X) STEP(7, X) STEP(8, X) \
    STEP(9, X) STEP(10, X) STEP(11, X)
#define X_PAIR(ar) _mm512_castpd_ps(_mm512_set1_pd(pair_of(ar + kk)))
#define X_ONE(ar) _mm512_set1_ps(ar[kk])
#define PUT(kw, idx) _mm512_storeu_ps(w0 + (int64_t)(kw) * NR, _mm512_permutex2var_ps(x0, idx, x1))
    for (sg = 0; sg < nseg; sg++, k += seg) {
        const uint16_t *p = b + (int64_t)(k / 2) * 2 * NR;
        __m512 x0, x1;
        RT_R12(ROW)
        kk = 0;
        if (k & 1) { /* a pair's k1: the odd lanes only */
            x0 = WIDEN8(p), x1 = WIDEN8(p + NR);
            PUT(k, iod);
#define MASK_FMA(w, s, acc) _mm512_mask3_fmadd_ps((w), (s), (acc), (__mmask16)0xAAAA)
            STEPS(X_ONE)
#undef MASK_FMA
            kk = 1, p += 2 * NR;
        }
#define MASK_FMA(w, s, acc) _mm512_fmadd_ps((w), (s), (acc))
        for (; kk + 1 < seg; kk += 2, p += 2 * NR) {
            x0 = WIDEN8(p), x1 = WIDEN8(p + NR);
            PUT(k + kk, iev);
            PUT(k + kk + 1, iod);
            STEPS(X_PAIR)
        }
#undef MASK_FMA
        if (kk < seg) { /* a pair's k0: the even lanes only */
            x0 = WIDEN8(p), x1 = WIDEN8(p + NR);
            PUT(k + kk, iev);
#define MASK_FMA(w, s, acc) _mm512_mask3_fmadd_ps((w), (s), (acc), (__mmask16)0x5555)
            STEPS(X_ONE)
#undef MASK_FMA
        }
    }
#undef PUT
#undef X_ONE
#undef X_PAIR
#undef STEPS
#undef STEP
    {
        const __m512 vlo = _mm512_set1_ps(lo), vhi = _mm512_set1_ps(hi);
        const __mmask16 m = (__mmask16)(nr >= NR ? 0xFFFF : (1u << nr) - 1);
#define STORE(r)                                                                                                    \
    if ((r) < R)                                                                                                    \
        _mm512_mask_storeu_ps(c + (int64_t)(r) * ldc, m,                                                            \
                              _mm512_min_ps(vhi, _mm512_max_ps(vlo, _mm512_add_ps(_mm512_permutex2var_ps(c##r##0, iev, c##r##1), \
                                                                                  _mm512_permutex2var_ps(c##r##0, iod, c##r##1)))));
        RT_R12(STORE)
#undef STORE
    }
}
#undef DECL_ROW
#undef ROW

#define CASES(CALL)                                                                                                 \
    switch (rows) {                                                                                                 \
    case 2: CALL(2); break;                                                                                         \
    case 3: CALL(3); break;                                                                                         \
    case 4: CALL(4); break;                                                                                         \
    case 5: CALL(5); break;                                                                                         \
    case 6: CALL(6); break;                                                                                         \
    case 7: CALL(7); break;                                                                                         \
    case 8: CALL(8); break;                                                                                         \
    case 9: CALL(9); break;                                                                                         \
    case 10: CALL(10); break;                                                                                       \
    case 11: CALL(11); break;                                                                                       \
    default: CALL(12); break;                                                                                       \
    }
static void fuse_tile(int32_t lone, int32_t rows, int32_t nseg, int32_t seg, const float *const *ap, const uint16_t *b,
                      int64_t pk, const float *bias, float lo, float hi, float *c, int32_t ldc, int32_t nr, float *w0,
                      float *w1) {
#define CALL2(R) fuse2(R, nseg, seg, ap, b, pk, bias, lo, hi, c, ldc, nr, w0, w1)
#define CALL1(R) fuse1(R, nseg, seg, ap, b, bias, lo, hi, c, ldc, nr, w0)
    if (lone) CASES(CALL1)
    else CASES(CALL2)
#undef CALL1
#undef CALL2
}
#undef CASES

/* bf16 panel pair j's columns [j NR, j NR + p->n) of m rows: its first tile fused with the widening into wide (the
 * pair's [2][K][16] floats, 64-byte aligned), the rest of the rows by the f32 tiles on it. 0 (nothing done) for fp16
 * and where no fused tile matches the f32 GEMM's first tile: one row (its GEMV sums), 17-24 columns (a three-vector
 * tile in pairs), a lone panel over segments that start at an odd k. */
static int pair_fused(const rt_opt_gemm_params *p, int32_t f16, int32_t m, const float *a, const float *const *tab,
                      int32_t nseg, const uint16_t *b, int64_t pk, const float *bias, float *c, float *wide) {
    const int32_t nr = p->n, lone = nr <= NR, seg = p->k / nseg;
    const int32_t rr = rt_opt_gemm_f32_tile_rows_512(m, nr, tab != NULL);
    const float *rows[12];
    int32_t r;
    if (f16 || rr < 2 || (nr > NR && nr <= NR + NR / 2) || (lone && nseg > 1 && seg % 2)) return 0;
    if (!tab)
        for (rows[0] = a, r = 1; r < rr; r++) rows[r] = rows[r - 1] + p->lda;
    fuse_tile(lone, rr, nseg, seg, tab ? tab : rows, b, pk, bias, p->act_min, p->act_max, c, p->ldc, nr, wide,
              wide + (int64_t)p->k * NR);
    if (rr < m)
        rt_opt_gemm_f32_rows_512(p, m - rr, tab ? NULL : a + (int64_t)rr * p->lda, tab ? tab + (int64_t)rr * nseg : NULL,
                                 nseg, wide, bias, c + (int64_t)rr * p->ldc);
    return 1;
}

/* m rows against all the panel pairs, each widened by its first tile (else before the f32 tiles) into wide: pair j at
 * wide + j K NR when `all` (the whole N x K kept for later blocks), else every pair at wide (2 K NR floats). */
static void gemm_widening(const rt_opt_gemm_params *p, int32_t f16, int32_t m, const float *a, const float *const *tab,
                          int32_t nseg, const uint16_t *packed_b, const float *bias, float *c, float *wide, int all) {
    const int64_t pk = (int64_t)(p->k + 1) / 2 * 2 * NR;
    rt_opt_gemm_params q = *p;
    int32_t j;
    for (j = 0; j * NR < p->n; j += 2) {
        const int32_t panels = (j + 1) * NR < p->n ? 2 : 1;
        float *w = all ? wide + (int64_t)j * p->k * NR : wide;
        q.n = p->n - j * NR < 2 * NR ? p->n - j * NR : 2 * NR;
        if (pair_fused(&q, f16, m, a, tab, nseg, packed_b + j * pk, pk, bias + j * NR, c + j * NR, w)) continue;
        if (f16) widen(1, p->k, packed_b + j * pk, pk, panels, w);
        else widen(0, p->k, packed_b + j * pk, pk, panels, w);
        rt_opt_gemm_f32_rows_512(&q, m, a, tab, nseg, w, bias + j * NR, c + j * NR);
    }
}

static void gemm_widened(const rt_opt_gemm_params *p, int32_t f16, int32_t m, const float *a, const float *const *tab,
                         int32_t nseg, const uint16_t *packed_b, const float *bias, float *c) {
    float buf[2 * RT_OPT_WIDEN_KMAX * NR] __attribute__((aligned(64)));
    gemm_widening(p, f16, m, a, tab, nseg, packed_b, bias, c, buf, 0);
}

void rt_opt_gemm16_widen_rows(const rt_opt_gemm_params *p, int32_t type, int32_t m, const float *a,
                              const float *const *tab, int32_t nseg, const uint16_t *packed_b, float *wide,
                              const float *bias, float *c) {
    if (type == RT_F16) { /* fp16: all the panels widened first, then the f32 tiles (no fused tile) */
        rt_opt_gemm16_widen_all(type, p->k, p->n, packed_b, wide, INT64_MAX);
        rt_opt_gemm_f32_rows_512(p, m, a, tab, nseg, wide, bias, c);
    } else
        gemm_widening(p, 0, m, a, tab, nseg, packed_b, bias, c, wide, 1);
}

int rt_opt_gemm16_widen_all(int32_t type, int32_t k, int32_t n, const uint16_t *packed_b, float *dst, int64_t floats) {
    const int32_t panels = (n + NR - 1) / NR;
    if ((int64_t)panels * NR * k > floats) return 0;
    if (type == RT_F16) widen(1, k, packed_b, (int64_t)(k + 1) / 2 * 2 * NR, panels, dst);
    else widen(0, k, packed_b, (int64_t)(k + 1) / 2 * 2 * NR, panels, dst);
    return 1;
}

void rt_opt_gemm16_widened_rows(const rt_opt_gemm_params *p, int32_t m, const float *a, const float *const *tab,
                                int32_t nseg, const float *wide, const float *bias, float *c) {
    rt_opt_gemm_f32_rows_512(p, m, a, tab, nseg, wide, bias, c);
}

/* The widened path for m rows of K p->k (1: take it) */
int rt_opt_gemm16_widens(int32_t type, int32_t m, int32_t k) {
    return m >= (type == RT_F16 ? RT_OPT_WIDEN_MIN_ROWS_F16 : RT_OPT_WIDEN_MIN_ROWS) && k <= RT_OPT_WIDEN_KMAX;
}

/* ---- K beyond RT_OPT_WIDEN_KMAX: the panels widened a K chunk at a time ----
 * Each chunk of RT_OPT_WIDEN_KMAX values of a panel pair is widened once into the stack copy, and every row tile
 * runs its FMAs on it, starting from the bias (first chunk) or from the sums the previous chunk stored in C, and
 * clamping after the last: each column's sum still runs from the bias through K in order, one fused product at
 * a time. Against the in-register pair tiles (2 vcvtph2ps, 4 uops on the FMA ports, per 24 FMAs) the widening is
 * paid once per chunk for all the rows. Rows of A contiguous (tab NULL) only. */
RT_OPT_INLINE void chunk_tile(const int32_t R, int32_t kc, const float *a, int32_t lda, const float *w0,
                              const float *w1, const float *bias, int32_t from_c, int32_t last, float lo, float hi,
                              float *c, int32_t ldc, int32_t nr) {
    const __mmask16 m0 = MASK0(nr), m1 = MASK1(nr); /* (a lone panel's bias has no columns 16-31) */
    const __m512 bias0 = _mm512_maskz_loadu_ps(m0, bias), bias1 = _mm512_maskz_loadu_ps(m1, bias + NR);
    int32_t kk;
#define DECL(r)                                                                                                     \
    __m512 c##r##0 = bias0, c##r##1 = bias1;                                                                        \
    const float *a##r = a + (int64_t)((r) < R ? (r) : 0) * lda;                                                     \
    if ((r) < R && from_c)                                                                                          \
        c##r##0 = _mm512_maskz_loadu_ps(m0, c + (int64_t)(r) * ldc),                                                \
        c##r##1 = _mm512_maskz_loadu_ps(m1, c + (int64_t)(r) * ldc + NR);
    RT_R12(DECL)
#undef DECL
    for (kk = 0; kk < kc; kk++) {
        const __m512 x0 = _mm512_loadu_ps(w0 + (int64_t)kk * NR), x1 = _mm512_loadu_ps(w1 + (int64_t)kk * NR);
        STEPS2(x0, x1, kk)
    }
    { /* clamped after the last chunk; before it [-inf, inf] stores the partial sums as they are */
        const __m512 vlo = _mm512_set1_ps(last ? lo : -INFINITY), vhi = _mm512_set1_ps(last ? hi : INFINITY);
        RT_R12(STORE2)
    }
}

static void gemm_chunked(const rt_opt_gemm_params *p, int32_t f16, int32_t m, const float *a, const uint16_t *packed_b,
                         const float *bias, float *c) {
    /* (its own array: with the caller's buffer passed in instead, gcc's code for these tiles ran BERT-base bf16 at
     * 0.84x fp32 rather than 1.03x, Intel Xeon AVX-512; a local array aliases nothing) */
    float buf[2 * RT_OPT_WIDEN_KMAX * NR] __attribute__((aligned(64)));
    const int64_t pk = (int64_t)(p->k + 1) / 2 * 2 * NR;
    const int32_t kc_max = RT_OPT_WIDEN_KMAX / 2 * 2; /* chunks start at a pair's k0 */
    int32_t j, k0, i, rr, tiles;
    for (j = 0; j * NR < p->n; j += 2) {
        const int32_t panels = (j + 1) * NR < p->n ? 2 : 1, nr = p->n - j * NR < 2 * NR ? p->n - j * NR : 2 * NR;
        for (k0 = 0; k0 < p->k; k0 += kc_max) {
            const int32_t kc = p->k - k0 < kc_max ? p->k - k0 : kc_max, last = k0 + kc == p->k;
            float *w1 = panels == 2 ? buf + (int64_t)kc * NR : buf;
            if (f16) widen(1, kc, packed_b + j * pk + (int64_t)k0 * NR, pk, panels, buf);
            else widen(0, kc, packed_b + j * pk + (int64_t)k0 * NR, pk, panels, buf);
            for (i = 0, tiles = (m + 11) / 12; i < m; i += rr, tiles--) {
                const float *at = a + (int64_t)i * p->lda + k0;
                float *ct = c + (int64_t)i * p->ldc + j * NR;
                rr = rt_opt_even_rows(m - i, tiles);
#define CALL(R) chunk_tile(R, kc, at, p->lda, buf, w1, bias + j * NR, k0 > 0, last, p->act_min, p->act_max, ct, p->ldc, nr)
                switch (rr) {
                case 1: CALL(1); break;
                case 2: CALL(2); break;
                case 3: CALL(3); break;
                case 4: CALL(4); break;
                case 5: CALL(5); break;
                case 6: CALL(6); break;
                case 7: CALL(7); break;
                case 8: CALL(8); break;
                case 9: CALL(9); break;
                case 10: CALL(10); break;
                case 11: CALL(11); break;
                default: CALL(12); break;
                }
#undef CALL
            }
        }
    }
}

/* n fp16 values (n a multiple of 16) widened to floats, in their order */
static void widen_pairs(const uint16_t *src, int64_t n, float *dst) {
    int64_t i;
    for (i = 0; i < n; i += 16) _mm512_store_ps(dst + i, CVT8(src + i));
}

#define MR_DIRECT 8 /* rows of a bf16 two-panel tile over contiguous rows (as rt_opt_gemm.c's f32 tiles) */
#define MR_TAB 12   /* over a row table, and every one-panel tile */

/* panel-outer: one (bf16: two) packed panels stay in cache while the rows stream past them; fp16 over more rows
 * than one tile: each panel's pair words widened once to floats (one vcvtph2ps a 16, no unzip) that every row tile
 * loads rather than converting them again */
static void gemm_panels(const rt_opt_gemm_params *p, int32_t f16, int32_t m, const float *a, const float *const *tab,
                        int32_t nseg, const uint16_t *packed_b, const float *bias, float *c) {
    const int32_t seg = p->k / nseg;
    const int64_t pk = (int64_t)(p->k + 1) / 2 * 2 * NR; /* halves of a panel */
    float wpanel[2 * RT_OPT_WIDEN_KMAX * NR] __attribute__((aligned(64)));
    const int pre = f16 && m > MR_TAB && pk <= 2 * RT_OPT_WIDEN_KMAX * NR;
    const float *rows[MR_TAB];
    int32_t i, j, r, rr, step;
    for (j = 0; j * NR < p->n; j += step) {
        const uint16_t *bp = packed_b + j * pk;
        const int32_t two = !f16 && (j + 1) * NR < p->n, nr = p->n - j * NR < (two + 1) * NR ? p->n - j * NR : (two + 1) * NR;
        const int32_t mr = two && !tab ? MR_DIRECT : MR_TAB;
        int32_t tiles = (m + mr - 1) / mr;
        step = two ? 2 : 1;
        if (pre) widen_pairs(bp, pk, wpanel);
        for (i = 0; i < m; i += rr, tiles--) {
            const float *const *ap = tab ? tab + (int64_t)i * nseg : rows;
            float *ct = c + (int64_t)i * p->ldc + j * NR;
            rr = rt_opt_even_rows(m - i, tiles);
            if (!tab)
                for (rows[0] = a + (int64_t)i * p->lda, r = 1; r < rr; r++) rows[r] = rows[r - 1] + p->lda;
            if (pre) tile_f16_widened(rr, nseg, seg, ap, bp, wpanel, bias + j * NR, p->act_min, p->act_max, ct, p->ldc, nr);
            else if (f16) tile_f16(rr, nseg, seg, ap, bp, bias + j * NR, p->act_min, p->act_max, ct, p->ldc, nr);
            else if (two) tile_bf16_2(rr, nseg, seg, ap, bp, pk, bias + j * NR, p->act_min, p->act_max, ct, p->ldc, nr);
            else tile_bf16_pairs(rr, nseg, seg, ap, bp, bias + j * NR, p->act_min, p->act_max, ct, p->ldc, nr);
        }
    }
}

int rt_opt_gemm16_rows_avx512(const rt_opt_gemm_params *p, int32_t type, int32_t m, const float *a,
                              const float *const *tab, int32_t nseg, const uint16_t *packed_b, const float *bias,
                              float *c) {
    const int32_t f16 = type == RT_F16;
    if (rt_opt_gemm16_widens(type, m, p->k)) gemm_widened(p, f16, m, a, tab, nseg, packed_b, bias, c);
    else if (!tab && m >= (f16 ? RT_OPT_WIDEN_MIN_ROWS_F16 : RT_OPT_WIDEN_MIN_ROWS) && RT_OPT_WIDEN_KMAX >= 2 * NR)
        gemm_chunked(p, f16, m, a, packed_b, bias, c); /* (RT_OPT_SMALL_STACK: no copy, never here) */
    else gemm_panels(p, f16, m, a, tab, nseg, packed_b, bias, c);
    return 1;
}

int rt_opt_fc_half_avx512(const rt_opt_gemm_params *p, int32_t type, const float *a, const uint16_t *packed_b,
                          const float *bias, float *c) {
    /* one row (GEMV): four full panels (bf16) or two (fp16) at a time (eight FMA chains), the rest one panel at a
     * time (four chains); two rows or more by the row tiles above */
    const int64_t pk = (int64_t)(p->k + 1) / 2 * NR * 2;
    const int32_t group = type == RT_F16 ? 2 : 4;
    int32_t j = 0;
    rt_opt_gemm_params q = *p;
    if (p->m == 1) {
        for (; (j + group) * NR <= p->n; j += group)
            (type == RT_F16 ? row_f16 : row_bf16)(p->k, a, packed_b + j * pk, pk, bias + j * NR, p->act_min,
                                                  p->act_max, c + j * NR);
        for (; j * NR < p->n; j++)
            row_one(type == RT_F16, p->k, a, packed_b + j * pk, bias + j * NR, p->act_min, p->act_max, c + j * NR,
                    p->n - j * NR);
        return 1;
    }
    q.n = p->n - j * NR;
    return rt_opt_gemm16_rows_avx512(&q, type, p->m, a, NULL, 1, packed_b + j * pk, bias + j * NR, c + j * NR);
}

#undef STEP2
#undef STEPS2
#undef STORE2
#undef MASK0
#undef MASK1
#else
typedef int rt_opt_gemm16_avx512_unused; /* ISO C: a translation unit is not empty */
#endif
