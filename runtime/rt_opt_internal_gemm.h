/* rt_opt_internal_gemm.h - the float and 16-bit GEMM's shared pieces (rt_opt_gemm.c, rt_opt_gemm_half.c,
 * rt_opt_gemm_bf16.c, rt_opt_gemm16_*.c, the attention's int8 probabilities); included by rt_opt_internal.h,
 * not API. */
#ifndef MPCC_RT_OPT_INTERNAL_GEMM_H
#define MPCC_RT_OPT_INTERNAL_GEMM_H

/* The f32 GEMM's AVX-512 tiles over row pointers (rt_opt_gemm.c) and the convolution driver that feeds them row
 * tables (rt_opt_conv_f32.c) */
#if defined(RT_OPT_VEC) && defined(__AVX512F__)
#define RT_OPT_INDIRECT 1
#endif

#if (defined(RT_OPT_VEC) && defined(__AVX512F__)) || defined(RT_OPT_F32_ROWS_AVX2) || defined(RT_A64) /* rt_opt_gemm.c: RT_OPT_INDIRECT, AArch64 */
/* The row table of an f32 convolution's patch rows m0..m0+rows (rt_opt_conv_f32.c): row r's filter row fy at
 * tab[r * filter_h + fy], in place in the image where the filter row lies inside it, `zero` (filter_w * in_c
 * zeros) above or below it, a copy at copy + r * K for rows cut by the left or right edge. dil_w 1 only. */
void rt_opt_conv_rows_f32(const rt_opt_conv_params *p, const float *in, int32_t m0, int32_t rows, float *copy,
                          const float **tab, float *zero);
#endif
#if defined(RT_OPT_VEC) && defined(__AVX512F__)
/* The f32 GEMM's zmm tiles over row pointers (rt_opt_gemm.c, RT_OPT_INDIRECT): C[0..m) = clamp(bias + A . packed_b),
 * K as nseg segments of p->k / nseg values at tab[r * nseg + s], or with tab NULL row r at a + r * p->lda; packed_b:
 * K x 16 f32 panels. The 16-bit weights' kernels call it on a widened copy of their panels. */
void rt_opt_gemm_f32_rows_512(const rt_opt_gemm_params *p, int32_t m, const float *a, const float *const *tab,
                              int32_t nseg, const float *packed_b, const float *bias, float *c);
/* its next tile's rows for `rest` rows left of a panel pair of nr columns (tab: over a row table) */
int32_t rt_opt_gemm_f32_tile_rows_512(int32_t rest, int32_t nr, int tab);
#endif

/* 16-bit weights (rt_opt_gemm_half.c, rt_opt_gemm_bf16.c): packed panels [N/NR][K2][NR][2]. */
#define RT_OPT_HALF_ROWS 32 /* input rows converted (or paired) per block */
/* dst[0..n) = src rounded through the 16-bit type (RT_BF16 / RT_F16), as floats (rt_opt_gemm_half.c). */
void rt_opt_round_half_row(const float *src, int32_t n, int32_t type, float *dst);
#if defined(RT_OPT_HALF_F32_AVX2)
/* rt_opt_fc_half on AVX2 + FMA without AVX-512 (rt_opt_gemm16_avx2.c): 16-bit storage, f32 arithmetic: the
 * 16-bit weights widened in registers times A's values as they are (not rounded to the 16-bit type).
 * Returns 0 (nothing done) where it has no kernel (fp16 without F16C). Needs no scratch. */
int rt_opt_fc_half_avx2(const rt_opt_gemm_params *p, int32_t type, const float *a, const uint16_t *packed_b,
                        const float *bias, float *c);
/* The same over row pointers (rt_opt_gemm16_rows_avx2.c): C[0..m) = clamp(bias + A . packed_b) for 16-bit
 * (type) packed panels, K as nseg segments of p->k / nseg values, row r's segment s at tab[r * nseg + s] (a
 * convolution's patch rows read in place: rt_opt_conv_rows_f32), or with tab NULL row r at a + r * p->lda;
 * rt_opt_gemm_f32_rows_avx2's results on the widened weights (bf16 bit for bit, fp16 within rounding: two partial
 * sums per column). Returns 0 (nothing done) for fp16 without F16C. */
#define RT_OPT_GEMM16_ROWS_AVX2 1
int rt_opt_gemm16_rows_avx2(const rt_opt_gemm_params *p, int32_t type, int32_t m, const float *a,
                            const float *const *tab, int32_t nseg, const uint16_t *packed_b, const float *bias,
                            float *c);
#endif
/* The same kernels with zmm registers on AVX-512 builds without AVX512-BF16 (rt_opt_gemm16_avx512.c; F16C for
 * fp16, which every AVX-512 CPU has): same arguments and results (bf16 bit for bit the f32 GEMM's on the
 * widened weights from two rows on, fp16 within rounding). RT_OPT_FC_HALF_F32 / RT_OPT_GEMM16_ROWS_F32 name
 * the ones a build takes (the callers in rt_opt_gemm_half.c, rt_opt_typed.c). Need no scratch. */
#if defined(RT_OPT_HALF_F32_AVX2) && defined(RT_OPT_AVX512) && defined(__F16C__)
#define RT_OPT_GEMM16_AVX512 1
int rt_opt_fc_half_avx512(const rt_opt_gemm_params *p, int32_t type, const float *a, const uint16_t *packed_b,
                          const float *bias, float *c);
int rt_opt_gemm16_rows_avx512(const rt_opt_gemm_params *p, int32_t type, int32_t m, const float *a,
                              const float *const *tab, int32_t nseg, const uint16_t *packed_b, const float *bias,
                              float *c);
#define RT_OPT_FC_HALF_F32 rt_opt_fc_half_avx512
#define RT_OPT_GEMM16_ROWS_F32 rt_opt_gemm16_rows_avx512
#elif defined(RT_OPT_HALF_F32_AVX2)
#define RT_OPT_FC_HALF_F32 rt_opt_fc_half_avx2
#define RT_OPT_GEMM16_ROWS_F32 rt_opt_gemm16_rows_avx2
#endif
#if defined(RT_A64)
/* The same on AArch64 (rt_opt_gemm16_a64.c; no 16-bit arithmetic used: Armv8.0 has none, and the fp16 products
 * of Armv8.2-A round each product to fp16): 16-bit storage, f32 arithmetic. One row (GEMV): the panels widened
 * in NEON registers (LD2 splits a pair's k0 and k1, FCVTL / SHLL #16 widen them), one FMLA by element a
 * product; more rows: each group of panels widened once into f32 on the stack and the f32 GEMM's tiles
 * (rt_opt_gemm_f32_rows_a64) run on it. Each column's sum runs from the bias through K in order, fused: the
 * f32 GEMM's results on the widened weights, bit for bit, bf16 and fp16. Need no scratch; return 1. */
#define RT_OPT_HALF_F32_A64 1
#define RT_OPT_GEMM16_ROWS_A64 1
int rt_opt_fc_half_a64(const rt_opt_gemm_params *p, int32_t type, const float *a, const uint16_t *packed_b,
                       const float *bias, float *c);
int rt_opt_gemm16_rows_a64(const rt_opt_gemm_params *p, int32_t type, int32_t m, const float *a,
                           const float *const *tab, int32_t nseg, const uint16_t *packed_b, const float *bias, float *c);
/* rt_opt_gemm.c's AArch64 f32 tiles (runtime/arm64/rt_a64_gemm_f32.h) over row pointers, for those kernels. */
void rt_opt_gemm_f32_rows_a64(const rt_opt_gemm_params *p, int32_t m, const float *a, const float *const *tab,
                              int32_t nseg, const float *packed_b, const float *bias, float *c);
#define RT_OPT_FC_HALF_F32 rt_opt_fc_half_a64
#define RT_OPT_GEMM16_ROWS_F32 rt_opt_gemm16_rows_a64
#endif
/* With many rows those kernels widen each panel (pair) once into an f32 copy on the stack and run the f32 GEMM's
 * own tiles over it (rt_opt_gemm_f32_rows_512 / rt_opt_gemm_f32_rows_avx2: their results on the widened weights,
 * bit for bit, fp16 too); rt_opt_gemm16_widens(type, m, k) says whether m rows of K k take that path. */
#if defined(RT_OPT_GEMM16_AVX512) || (defined(RT_OPT_HALF_F32_AVX2) && defined(RT_OPT_F32_ROWS_AVX2) && defined(__F16C__)) || \
    defined(RT_OPT_HALF_F32_A64)
#define RT_OPT_GEMM16_WIDEN 1
int rt_opt_gemm16_widens(int32_t type, int32_t m, int32_t k);
/* A convolution's blocks of rows share their weights: rt_opt_gemm16_widen_all widens all the packed panels of an
 * N x K 16-bit weight once into dst (the f32 GEMM's packed layout, K x 16 floats a panel; 0 when they take more
 * than `floats`), and rt_opt_gemm16_widened_rows runs the f32 GEMM's tiles with them on each block (same arguments
 * as RT_OPT_GEMM16_ROWS_F32). conv_half_task keeps dst on its stack: RT_OPT_WIDE_ALL_FLOATS floats (147,456 bytes,
 * ResNet's 64 x 576). */
#if defined(RT_OPT_SMALL_STACK) /* -DRT_OPT_SMALL_STACK: no widened copies, the 16-bit kernels' stack stays small */
#define RT_OPT_WIDEN_KMAX 1
#define RT_OPT_WIDE_ALL_FLOATS 16
#endif
#ifndef RT_OPT_WIDE_ALL_FLOATS
#define RT_OPT_WIDE_ALL_FLOATS 36864
#endif
#define RT_OPT_WIDE_ALL_MIN_ROWS 64 /* a task's output rows from which that pays (the widening done once) */
int rt_opt_gemm16_widen_all(int32_t type, int32_t k, int32_t n, const uint16_t *packed_b, float *dst, int64_t floats);
void rt_opt_gemm16_widened_rows(const rt_opt_gemm_params *p, int32_t m, const float *a, const float *const *tab,
                                int32_t nseg, const float *wide, const float *bias, float *c);
/* N x K weights' widened copy fits `floats` floats */
#define RT_OPT_GEMM16_WIDE_FITS(k, n, floats) ((int64_t)((n) + RT_OPT_NR - 1) / RT_OPT_NR * RT_OPT_NR * (k) <= (floats))
#if defined(RT_OPT_GEMM16_AVX512)
/* rt_opt_gemm16_widen_all and rt_opt_gemm16_widened_rows at once (a task's first block): each panel pair widened by
 * its first row tile while that tile runs (rt_opt_gemm16_avx512.c), the same results; wide 64-byte aligned. */
void rt_opt_gemm16_widen_rows(const rt_opt_gemm_params *p, int32_t type, int32_t m, const float *a,
                              const float *const *tab, int32_t nseg, const uint16_t *packed_b, float *wide,
                              const float *bias, float *c);
#endif
/* A block of rows on the widened weights (`wide`, N x K floats), widening them first on a task's first block
 * (*widened 0, set to 1) */
static inline void rt_opt_gemm16_wide_block(const rt_opt_gemm_params *p, int32_t type, int32_t m, const float *a,
                                            const float *const *tab, int32_t nseg, const uint16_t *packed_b,
                                            float *wide, int *widened, const float *bias, float *c) {
    if (!*widened) {
        *widened = 1;
#if defined(RT_OPT_GEMM16_AVX512)
        rt_opt_gemm16_widen_rows(p, type, m, a, tab, nseg, packed_b, wide, bias, c);
        return;
#else
        (void)rt_opt_gemm16_widen_all(type, p->k, p->n, packed_b, wide, INT64_MAX);
#endif
    }
    rt_opt_gemm16_widened_rows(p, m, a, tab, nseg, wide, bias, c);
}
#endif
#if defined(RT_OPT_AVX512)
/* The 16-bit weights' panels j and j + 1 (j alone repeated when it is the last) and their bias (bias2: 2 x NR
 * floats); returns the columns they hold. */
static inline int32_t rt_opt_panel_pair(const uint16_t *packed_b, const float *bias, int32_t n, int32_t k2, int32_t j,
                                        const uint16_t **b0, const uint16_t **b1, float *bias2) {
    int two = (j + 1) * RT_OPT_NR < n;
    *b0 = packed_b + (int64_t)j * k2 * RT_OPT_NR * 2;
    *b1 = two ? *b0 + (int64_t)k2 * RT_OPT_NR * 2 : *b0;
    memcpy(bias2, bias + j * RT_OPT_NR, sizeof(float) * RT_OPT_NR);
    memcpy(bias2 + RT_OPT_NR, bias + (two ? j + 1 : j) * RT_OPT_NR, sizeof(float) * RT_OPT_NR);
    return n - j * RT_OPT_NR < 2 * RT_OPT_NR ? n - j * RT_OPT_NR : 2 * RT_OPT_NR;
}
#endif
#if defined(RT_OPT_AVX512) && defined(__AVX512BF16__)
/* C rows 0..rows of p from A as bf16 pairs (rt_opt_gemm_bf16.c), 32 rows at a time against each pair of
 * panels: rows of (k + 1) / 2 words at a2, or (a2 NULL) the row table tab of nseg segments of seg2 words a
 * row (a convolution reading its bf16 image in place); C f32 or (tc RT_BF16) bf16, p->ldc apart. one_row:
 * the whole product (or image) is this one row, taken by the GEMV kernel (four partial sums a panel); a
 * row left alone at the end of a block takes the 1-row micro-kernel instead, so that a row's value does
 * not depend on how rows were blocked (the row-table and im2col paths block them differently). */
void rt_opt_fc_bf16_pairs(const rt_opt_gemm_params *p, int32_t rows, const uint32_t *a2, const uint32_t *const *tab,
                          int32_t nseg, int32_t seg2, const uint16_t *packed_b, const float *bias, void *cv, int32_t tc,
                          int one_row);
#endif

/* The int8 GEMM's AVX512-VNNI kernels are built (rt_opt_gemm_s8.c); the fused attention takes its int8
 * scores on them, and where they are not, the products of its dequantized Q and K. */
#if defined(RT_OPT_VEC) && defined(__AVX512F__) && defined(__AVX512BW__) && defined(__AVX512VNNI__) && \
    defined(RT_OPT_AVX2)
#define RT_OPT_S8_VNNI 1

/* The fused attention's scores on int8 operands (rt_opt_gemm_s8_vnni.c): c[i][j] = bias[j] + sum over k of
 * (a[i][k] + 128) b[k][j], wrapping int32, for i < m and the 16 * panels columns of b packed like the s8
 * weights ([panels][kq][16][4], K padded with zeros); a: m int8 rows lda bytes apart, 4 kq bytes readable
 * in each; c's rows ldc int32 apart, at least 16 * panels wide. */
void rt_opt_scores_s8(int32_t m, int32_t panels, int32_t kq, const int8_t *a, int32_t lda, const int8_t *b,
                      const int32_t *bias, int32_t *c, int32_t ldc);
/* The hybrid FULLY_CONNECTED's int32 dots for B >= RT_OPT_FC_HYBRID_VNNI_ROWS input rows (rt_opt_fc_hybrid_vnni.c):
 * c[b * N + n] = sum_k x8[b * kp + k] w[n * K + k] (wrapping) for the whole blocks of 32 weight rows, n < the
 * returned count (N rounded down to 32); x8's rows zero-padded to kp >= K rounded up to 64; scratch 32 x that
 * + 192 bytes. */
#define RT_OPT_FC_HYBRID_VNNI_ROWS 2
int32_t rt_opt_fc_hybrid_vnni(int32_t B, int32_t K, int32_t N, const int8_t *x8, int64_t kp, const int8_t *w,
                              int32_t *c, void *scratch);
/* rt_hybrid_quantize_row's results 16 values a step, q zero-padded to kp bytes (rt_opt_fc_hybrid_vnni.c). */
void rt_opt_hybrid_quantize_row_vnni(const float *x, int32_t n, int32_t asymmetric, int8_t *q, int64_t kp, float *scale,
                                     int32_t *zp);
/* The same for one input row, every n < N: xu the row as + 128 bytes, zero-padded (+ 128) to 64-byte multiples. */
void rt_opt_fc_hybrid_vnni_gemv(int32_t K, int32_t N, const uint8_t *xu, const int8_t *w, int32_t *c);
#if defined(__FMA__) && defined(__AVX512VL__)
#define RT_OPT_S8_PV 1
/* The fused attention's probabilities in 8 bits (rt_opt_act.c; p->pv_u8): n rows of d values (each readable
 * to a whole 16: the lanes past d are loaded, then dropped), row r from x + r ldx, q = round(255 exp(beta
 * (x - sub[r]))) (x <= sub[r]; the polynomial of the bf16 exponentials, within 2.7e-6 relative; q in
 * [0, 255], 255 at the row's max), stored as q - 128 (int8, the bytes rt_opt_scores_s8 adds 128 to) at
 * y + r ldy, the bytes d..K4(d) -128 (q 0); sum[r] = the row's sum of q. */
void rt_opt_exp_rows_s8(int32_t n, int32_t d, float beta, const float *sub, const float *x, int64_t ldx, int8_t *y,
                        int64_t ldy, int32_t *sum);
#endif
#endif

#endif
