/* rt_opt_internal_s8.h - the int8 GEMM's pieces shared with the int8 convolution and the int4 hybrid FC
 * (rt_opt_gemm_s8*.c, rt_opt_conv_s8.c, rt_opt_fc_hybrid_blk*.c); included by rt_opt_internal.h, not API. */
#ifndef MPCC_RT_OPT_INTERNAL_S8_H
#define MPCC_RT_OPT_INTERNAL_S8_H

/* d[0..n) = s[0..n) + 128 as bytes (the kernels' unsigned operand); short runs (a few channels) in one
 * masked vector op. */
#include "arm64/rt_a64.h" /* RT_A64: the AArch64 lanes below */

static inline void rt_opt_flip_s8(uint8_t *d, const int8_t *s, int32_t n) {
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
#if defined(RT_A64)
    for (; i + 16 <= n; i += 16) vst1q_u8(d + i, veorq_u8(vld1q_u8((const uint8_t *)s + i), vdupq_n_u8(0x80)));
#endif
    for (; i < n; i++) d[i] = (uint8_t)(s[i] + 128);
}

/* Bytes of one element of an int8 GEMM's C (rt_opt_gemm_s8.c, rt_opt_gemm_s8_vnni.c): floats with
 * p->out_f32. */
static inline int64_t rt_opt_s8_c_size(const rt_opt_gemm_params *p) { return p->out_f32 ? 4 : 1; }

/* The residual at the position of C's element at dst (p->residual set): res_off bytes on, computed as
 * integers since the two may be separate buffers. */
static inline const float *rt_opt_s8_res_at(const rt_opt_gemm_params *p, const void *dst) {
    return (const float *)(uintptr_t)((uintptr_t)dst + (uintptr_t)p->res_off);
}

/* `rows` int8 rows (lda apart) as + 128 byte rows of K4 bytes (K's padding 0) at dst. */
void rt_opt_s8_widen_rows(const int8_t *a, int32_t lda, int32_t rows, int32_t k, uint8_t *dst);
/* 1 when every one of the n shifts is in [-31, 0] (TFLite's requantization in 64-bit vector lanes): one
 * branch-free pass the compiler vectorizes, since the kernels ask on every call (a test and early exit
 * per shift, and a call per panel, had cost MobileNetV2 0.35 int8 ~2 % of its time). */
static inline int rt_opt_shifts_vec(const int32_t *shift, int32_t n) {
    int32_t i, bad = 0;
    for (i = 0; i < n; i++) bad |= (shift[i] > 0) | (shift[i] < -31);
    return !bad;
}
/* 1 when every shift of the 16 columns from col is in [-31, 0] (requantized in vector registers). */
int rt_opt_s8_panel_vec(const rt_opt_gemm_params *p, int32_t col);
/* 1 when every panel is (rt_opt_s8_panel_vec) and no AMX tiles run: the kernels that read A in place. */
int rt_opt_s8_in_registers(const rt_opt_gemm_params *p);
/* C's rows 0..m from A8 rows (+ 128 bytes, K padded to K4 with 0, lda8 apart); row_add: a per-row term
 * added before the requantization, or NULL. */
void rt_opt_s8_gemm_u8(const rt_opt_gemm_params *p, int32_t m, const uint8_t *a8, int32_t lda8,
                       const int8_t *packed_b, const int32_t *bias, int8_t *c, const int32_t *row_add);
#if defined(RT_A64)
/* rt_opt_s8_gemm_u8 on AArch64 (runtime/arm64/rt_a64_gemm_s8.h) with A's rows lda bytes apart as
 * + 128 bytes (flip), or (flip 0) int8 rows read in place, K a multiple of 4. */
void rt_opt_s8_a64_gemm(const rt_opt_gemm_params *p, int32_t m, const uint8_t *a, int32_t lda, int flip,
                        const int8_t *packed_b, const int32_t *bias, int8_t *c, const int32_t *row_add);
/* 1 when every panel of p is requantized in the AArch64 tiles' registers (integer rounding, int8 out, every
 * shift in [-31, 0]): rt_opt_s8_a64_conv applies. */
int rt_opt_s8_a64_rq_all(const rt_opt_gemm_params *p);
/* Output pixels m0..m0+m of a convolution (c at pixel m0) read from its int8 image with the padding in
 * it: pixel (oy, ox)'s patch at img + oy * ys + ox * xs, K as nrun runs (filter rows) `step` bytes apart. */
void rt_opt_s8_a64_conv(const rt_opt_gemm_params *p, int32_t m0, int32_t m, const uint8_t *img, int64_t ys,
                        int64_t xs, int32_t out_w, int32_t nrun, int64_t step, const int8_t *packed_b,
                        const int32_t *bias, int8_t *c);
#endif
#if defined(RT_OPT_AVX2) && !defined(RT_OPT_S8_VNNI)
/* The AVX2 GEMM without VNNI (rt_opt_gemm_s8_avx2.c): 1 when it takes p (integer requantization with every
 * shift in [-31, 0], int8 results, K4 <= 2048). C's rows 0..m from A's rows (lda bytes apart, k bytes
 * each: int8 with flip, else + 128 bytes). */
int rt_opt_s8_avx2_applies(const rt_opt_gemm_params *p);
void rt_opt_s8_avx2_gemm(const rt_opt_gemm_params *p, int32_t m, const uint8_t *a, int64_t lda, int flip,
                         const int8_t *packed_b, const int32_t *bias, int8_t *c);
#if !defined(RT_OPT_AVX512)
/* The same for output pixels m0..m0+rows of a convolution (one image `in`; c at pixel m0): its patch rows
 * widened to int16 straight from the image (no byte im2col rows, no scratch). */
void rt_opt_s8_avx2_conv(const struct rt_opt_conv_params *p, const int8_t *in, int32_t m0, int32_t rows,
                         const int8_t *packed_b, const int32_t *bias, int8_t *c);
#endif
#endif

#if defined(RT_OPT_S8_VNNI)
/* Block-wise INT4, several input rows: the outputs n..n+15 of the group pair at wg (the second group gstride
 * bytes on; a last pair may end past out_depth) for every row, from the rows quantized by
 * rt_opt_fc_hybrid_w4b_quantize (rt_opt_fc_hybrid_blk512.c). */
struct rt_fc_params;
void rt_opt_fc_hybrid_w4b_pair512(const struct rt_fc_params *p, const uint8_t *wg, int64_t gstride, const int8_t *x8,
                                  const float *row_scale, const int32_t *zp, const int32_t *cb, const float *bias,
                                  float *out, int32_t n);
#endif

#if defined(RT_OPT_S8_VNNI)
/* Where a micro-tile's A rows are: row r at ap[r] (rows past mr repeat row 0), K as `n` runs of `quads`
 * quads, run s of a row `step` bytes after run s - 1 (a GEMM: one run of K4 / 4 quads; a convolution read
 * in place: one run of filter_w x in_c bytes per filter row, `step` one image row). B's quads stay
 * contiguous across the runs. */
typedef struct rt_opt_a_runs {
    int32_t n, quads;
    int64_t step;
} rt_opt_a_runs;

/* The rows of A for rt_opt_s8_pair_rows: row i at a + i * lda (a GEMM) or, ptr set, at ptr[i] (a
 * convolution's patches read in place). */
typedef struct rt_opt_a_rows {
    const uint8_t *a;
    int64_t lda;
    rt_opt_a_runs runs;
    const uint8_t *const *ptr;
} rt_opt_a_rows;

static inline rt_opt_a_rows rt_opt_s8_gemm_rows(const uint8_t *a, int64_t lda, int32_t k) {
    rt_opt_a_rows s;
    s.a = a, s.lda = lda, s.runs.n = 1, s.runs.quads = RT_OPT_K4(k) / 4, s.runs.step = 0, s.ptr = NULL;
    return s;
}

/* Rows 0..m of C, the columns of panels j and j + 1 (j alone when it is the last), requantized in
 * registers (every shift of those panels in [-31, 0]); A's rows as src says (flip: int8 bytes, + 128
 * added in registers). */
void rt_opt_s8_pair_rows(const rt_opt_gemm_params *p, int32_t j, int flip, int32_t m, const rt_opt_a_rows *src,
                         const int8_t *packed_b, const int32_t *bias, int8_t *c);
/* rt_opt_s8_pair_rows for the pairs starting at panels j0, j0 + 2, .. below j1 (j0 even; a last odd
 * panel is a pair of its own). */
void rt_opt_s8_pairs_rows(const rt_opt_gemm_params *p, int32_t j0, int32_t j1, int flip, int32_t m,
                          const rt_opt_a_rows *src, const int8_t *packed_b, const int32_t *bias, int8_t *c);
#endif

#endif
