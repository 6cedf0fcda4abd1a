/* rt_opt_gemm_f32_avx2.c - f32 GEMM over row pointers on AVX2 + FMA without
 * AVX-512: the AVX2 counterpart of rt_opt_gemm.c's rt_opt_gemm_f32_rows_512.
 *
 * K is nseg segments of seg values; row r's segment s starts at
 * tab[r * nseg + s] (a GEMM: one segment per row; a convolution: one per
 * filter row, read in place from the image, so no im2col copy of the block:
 * 16-19 % of a MediaPipe landmark model's time went to that copy).
 *
 * Tiles: 6 rows x 16 columns (12 ymm accumulators, 2 panel loads and 6
 * broadcasts per 12 FMAs; the usual AVX2 shape), a panel's last 8 or fewer
 * columns 8 rows x 8. Every tile size is a compile-time constant (the
 * kernels are inlined per size), so a block's last rows cost what they
 * compute, and the rows are spread evenly over the tiles: 80 rows =
 * 10 x 6 + 4 x 5, not 13 x 6 + a 2-row tile with four dependent FMA chains
 * (the FMA latency wants 8 in flight).
 *
 * Each column's sum starts at the bias and adds A[r][k] * B[k][c] in K
 * order, one fused multiply-add per k, exactly as ukr_f32 does on an
 * im2col copy: the results are the same bit for bit. */
#include <string.h>

#include "mpcc_rt.h"
#include "rt_opt.h"
#include "rt_opt_internal.h"

#if defined(RT_OPT_F32_ROWS_AVX2)

#define NR RT_OPT_NR

/* The K loops unrolled twice and the tile functions at 64-byte boundaries. Unrolled, the loop's counter,
 * pointer step and branch come once per two K steps; aligned, the loops sit at the same offsets in every
 * link (where the linker put tile_16 moved its 6-row loop across fetch blocks: the same kernel object,
 * linked with two builds of the other files, ran kws_conv1d 7 % and ResNet 10 % apart). Interleaved A/B
 * on an AMD EPYC (Zen 3, AVX2): kws_conv1d_f32 1.18-1.25x, resnet_f32 1.06x against main's runtime;
 * unrolled four times the same within noise, with twice the code. */
#if defined(__clang__)
#define RT_UNROLL_K _Pragma("clang loop unroll_count(2)")
#else
#define RT_UNROLL_K _Pragma("GCC unroll 2")
#endif
#define RT_ALIGN_CODE __attribute__((aligned(64)))


/* row r's pointer to segment sg (rows past the tile's R are never read) */
#define ROW(r) if ((r) < R) a##r = ap[(r) * nseg + sg];

/* C[0..R)[0..nr) for 8 < nr <= 16: R <= 6 rows x 2 ymm, each accumulator a named variable (an array of
 * them went through the stack with GCC, as rt_opt_gemm.c notes for rt_opt_gemm_f32_rows_512). */
RT_OPT_INLINE void ukr_6x16(const int32_t R, int32_t nseg, int32_t seg, const float *const *ap, const float *b,
                            const float *bias, float lo, float hi, float *c, int32_t ldc, int32_t nr) {
    const __m256 vlo = _mm256_set1_ps(lo), vhi = _mm256_set1_ps(hi);
    const __m256 bias0 = _mm256_loadu_ps(bias), bias1 = _mm256_loadu_ps(bias + 8);
    __m256 c00 = bias0, c01 = bias1, c10 = bias0, c11 = bias1, c20 = bias0, c21 = bias1;
    __m256 c30 = bias0, c31 = bias1, c40 = bias0, c41 = bias1, c50 = bias0, c51 = bias1;
    const float *a0 = NULL, *a1 = NULL, *a2 = NULL, *a3 = NULL, *a4 = NULL, *a5 = NULL;
    int32_t sg, kk;
    for (sg = 0; sg < nseg; sg++) {
        const float *p = b + (int64_t)sg * seg * NR;
        ROW(0) ROW(1) ROW(2) ROW(3) ROW(4) ROW(5)
        RT_UNROLL_K
        for (kk = 0; kk < seg; kk++, p += NR) {
            const __m256 x0 = _mm256_loadu_ps(p), x1 = _mm256_loadu_ps(p + 8);
#define STEP(r)                                                                                                     \
    if ((r) < R) {                                                                                                  \
        const __m256 s = _mm256_broadcast_ss(a##r + kk);                                                            \
        c##r##0 = _mm256_fmadd_ps(x0, s, c##r##0);                                                                  \
        c##r##1 = _mm256_fmadd_ps(x1, s, c##r##1);                                                                  \
    }
            STEP(0) STEP(1) STEP(2) STEP(3) STEP(4) STEP(5)
#undef STEP
        }
    }
    {
        const __m256i m1 = rt_opt_col_mask(nr - 8);
#define STORE(r) if ((r) < R) rt_opt_store_row16(c + (int64_t)(r) * ldc, c##r##0, c##r##1, nr, m1, vlo, vhi);
        STORE(0) STORE(1) STORE(2) STORE(3) STORE(4) STORE(5)
#undef STORE
    }
}

/* C[0..R)[0..nr) for nr <= 8 (a panel's last columns: N = 24, 40, ...): R <= 8 rows x 1 ymm. */
RT_OPT_INLINE void ukr_8x8(const int32_t R, int32_t nseg, int32_t seg, const float *const *ap, const float *b,
                           const float *bias, float lo, float hi, float *c, int32_t ldc, int32_t nr) {
    const __m256 vlo = _mm256_set1_ps(lo), vhi = _mm256_set1_ps(hi), bv = _mm256_loadu_ps(bias);
    __m256 c0 = bv, c1 = bv, c2 = bv, c3 = bv, c4 = bv, c5 = bv, c6 = bv, c7 = bv;
    const float *a0 = NULL, *a1 = NULL, *a2 = NULL, *a3 = NULL, *a4 = NULL, *a5 = NULL, *a6 = NULL, *a7 = NULL;
    int32_t sg, kk;
    for (sg = 0; sg < nseg; sg++) {
        const float *p = b + (int64_t)sg * seg * NR;
        ROW(0) ROW(1) ROW(2) ROW(3) ROW(4) ROW(5) ROW(6) ROW(7)
        RT_UNROLL_K
        for (kk = 0; kk < seg; kk++, p += NR) {
            const __m256 x = _mm256_loadu_ps(p);
#define STEP(r)                                                                                                     \
    if ((r) < R) c##r = _mm256_fmadd_ps(x, _mm256_broadcast_ss(a##r + kk), c##r);
            STEP(0) STEP(1) STEP(2) STEP(3) STEP(4) STEP(5) STEP(6) STEP(7)
#undef STEP
        }
    }
    {
        const __m256i m = rt_opt_col_mask(nr);
#define STORE(r) if ((r) < R) rt_opt_store_row8(c + (int64_t)(r) * ldc, c##r, nr, m, vlo, vhi);
        STORE(0) STORE(1) STORE(2) STORE(3) STORE(4) STORE(5) STORE(6) STORE(7)
#undef STORE
    }
}

/* One tile of `rows` rows through the kernel compiled for that many (a switch, so each size is its own
 * straight-line code). */
#define TILE_CASE(R, ukr)                                                                                           \
    case R: ukr(R, nseg, seg, ap, b, bias, lo, hi, c, ldc, nr); break;
RT_ALIGN_CODE static void tile_16(int32_t rows, int32_t nseg, int32_t seg, const float *const *ap, const float *b,
                                  const float *bias, float lo, float hi, float *c, int32_t ldc, int32_t nr) {
    switch (rows) {
        TILE_CASE(1, ukr_6x16) TILE_CASE(2, ukr_6x16) TILE_CASE(3, ukr_6x16) TILE_CASE(4, ukr_6x16)
        TILE_CASE(5, ukr_6x16) default: ukr_6x16(6, nseg, seg, ap, b, bias, lo, hi, c, ldc, nr);
    }
}

RT_ALIGN_CODE static void tile_8(int32_t rows, int32_t nseg, int32_t seg, const float *const *ap, const float *b,
                                 const float *bias, float lo, float hi, float *c, int32_t ldc, int32_t nr) {
    switch (rows) {
        TILE_CASE(1, ukr_8x8) TILE_CASE(2, ukr_8x8) TILE_CASE(3, ukr_8x8) TILE_CASE(4, ukr_8x8)
        TILE_CASE(5, ukr_8x8) TILE_CASE(6, ukr_8x8) TILE_CASE(7, ukr_8x8)
        default: ukr_8x8(8, nseg, seg, ap, b, bias, lo, hi, c, ldc, nr);
    }
}

void rt_opt_gemm_f32_rows_avx2(const rt_opt_gemm_params *p, int32_t m, const float *a, const float *const *tab,
                               int32_t nseg, const float *packed_b, const float *bias, float *c) {
    const int32_t seg = p->k / nseg;
    const float *rows[8];
    int32_t i, j, r;
    /* panel-outer: one packed panel (K x 16) stays in cache while the rows stream past it */
    for (j = 0; j * NR < p->n; j++) {
        const float *bp = packed_b + (int64_t)j * p->k * NR;
        const int32_t nr = p->n - j * NR < NR ? p->n - j * NR : NR, mr = nr <= 8 ? 8 : 6;
        int32_t rr, tiles = (m + mr - 1) / mr;
        for (i = 0; i < m; i += rr, tiles--) {
            const float *const *ap = tab ? tab + (int64_t)i * nseg : rows;
            rr = rt_opt_even_rows(m - i, tiles);
            if (!tab)
                for (rows[0] = a + (int64_t)i * p->lda, r = 1; r < rr; r++) rows[r] = rows[r - 1] + p->lda;
            (nr <= 8 ? tile_8 : tile_16)(rr, nseg, seg, ap, bp, bias + j * NR, p->act_min, p->act_max,
                                         c + (int64_t)i * p->ldc + j * NR, p->ldc, nr);
        }
    }
}

#endif
