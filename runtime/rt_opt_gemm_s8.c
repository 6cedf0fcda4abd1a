/* rt_opt_gemm_s8.c - the int8 GEMM (VNNI / AMX / AVX2 / C micro-kernels with the exact
 * TFLite requantization in the epilogue) and int8 BATCH_MATMUL. The VNNI kernels requantized in
 * registers are in rt_opt_gemm_s8_vnni.c, the AVX2 one without VNNI in rt_opt_gemm_s8_avx2.c; the
 * int8 convolution on these kernels is in rt_opt_conv_s8.c. */
#include <string.h>

#include "mpcc_rt.h"
#include "rt_opt.h"
#include "rt_opt_internal.h"
#include "arm64/rt_a64_gemm_s8.h" /* AArch64 tiles (RT_A64) */

#define NR RT_OPT_NR
#define K4(k) RT_OPT_K4(k)

/* ---- int8 ------------------------------------------------------------
 * Exact int8 GEMM on unsigned x signed byte quads: activations become
 * a + 128 (0..255) bytes in a scratch block (im2col writes them so
 * directly), weights are packed at compile time as int8 [N/16][K4/4][16][4]
 * (K4 = K rounded up to 4, zero padded), and each step multiplies one
 * broadcast quad of A by 16 columns: with AVX512-VNNI one vpdpbusd (64 exact
 * products summed into int32 lanes, no saturation) per 16 columns and row;
 * otherwise the quads are widened to int16 and multiplied with pmaddwd
 * (AVX2) or in plain C. Accumulators wrap like TFLite's int32 sums. */


/* Float results (p->out_f32) of one row of the 16 columns from col: x fscale, [+ residual in one rounding,]
 * clamped; nr stored at out. */
static void store_f32_row(const rt_opt_gemm_params *p, const int32_t *acc, const int32_t *bias, int32_t col, float *out,
                          int32_t nr) {
    const float *res = p->residual ? rt_opt_s8_res_at(p, out) : NULL;
    int32_t j;
    for (j = 0; j < nr; j++) {
        const float x = (float)(int32_t)((uint32_t)acc[j] + (uint32_t)(bias ? bias[j] : 0));
        out[j] = rt_clamp_f32(res ? fmaf(x, p->fscale[col + j], res[j]) : x * p->fscale[col + j], p->act_min,
                              p->act_max);
    }
}

/* Requantizes one row of the 16 columns from col (bias: the panel's) and stores its nr bytes. */
static void requant_row(const rt_opt_gemm_params *p, const int32_t *acc, const int32_t *bias, int32_t col, int8_t *out,
                        int32_t nr) {
    int8_t v[NR];
    if (p->out_f32) {
        store_f32_row(p, acc, bias, col, (float *)(void *)out, nr);
        return;
    }
    if (p->rounding == RT_OPT_ROUND_FLOAT)
        rt_opt_requant_f_i8(acc, bias, p->fscale + col, NR, p->out_offset, p->act_qmin, p->act_qmax, v);
    else
        rt_opt_requant_i8(acc, bias, p->mult + col, p->shift + col, NR, p->rounding, p->out_offset, p->act_qmin,
                          p->act_qmax, v);
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
    const int single = p->rounding == RT_OPT_ROUND_SINGLE;
    const rq16 k = single ? rq16_prepare_single_z(m, s, 0) : rq16_prepare(m, s);
    int32_t r;
    for (r = 0; r < mr; r++) {
        __m512i x = _mm512_add_epi32(_mm512_loadu_si512((const void *)acc[r]), b);
        __m512i v = single ? rq16_apply_single(x, &k) : rq16_apply(x, &k);
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

/* Takes 128 x the column sums of panel b off rows 0..mr of acc (wrapping): a bias packed for
 * runtime/arm64's tiles (p->a64_init) summed by a kernel of the a + 128 bytes (a build for AArch64
 * without them: RT_OPT_SCALAR, or not GCC / Clang). */
#if !defined(RT_A64) && !defined(RT_OPT_S8_VNNI)
static void colsum_off(int32_t kq, const int8_t *b, int32_t (*acc)[NR], int32_t mr) {
    int32_t r, c, kk;
    for (c = 0; c < NR; c++) {
        uint32_t s = 0;
        for (kk = 0; kk < 4 * kq; kk++) s += (uint32_t)(int32_t)b[(kk / 4) * 4 * NR + c * 4 + kk % 4];
        for (r = 0; r < mr; r++) acc[r][c] = (int32_t)((uint32_t)acc[r][c] - 128u * s);
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

#if defined(RT_A64)
/* The requantization of rt_a64_gemm_s8.h applies (with every shift of a panel in [-31, 0]): integer
 * rounding, int8 results, the offset and the clamp within int8. */
static int a64_rq_applies(const rt_opt_gemm_params *p) {
    return p->rounding != RT_OPT_ROUND_FLOAT && !p->out_f32 && p->out_offset >= -128 && p->out_offset <= 127 &&
           p->act_qmin >= -128 && p->act_qmax <= 127 && p->act_qmin <= p->act_qmax;
}
#endif

/* Requantizes an mr x 16 accumulator tile into C (vector path when every
 * shift of the panel is in [-31, 0]). */
static void store_tile(const rt_opt_gemm_params *p, int32_t (*acc)[NR], int32_t mr, const int32_t *bias, int32_t col,
                       int8_t *c, int32_t nr, int vec) {
    int32_t r;
#if defined(RT_OPT_AVX2)
    if (vec && p->rounding != RT_OPT_ROUND_FLOAT) {
        requant_tile(p, acc, mr, bias + col, p->mult + col, p->shift + col, c, nr);
        return;
    }
#elif defined(RT_A64)
    if (vec && a64_rq_applies(p)) {
        const rt_a64_rq_cols q = {p->mult + col, p->shift + col, p->rounding == RT_OPT_ROUND_SINGLE, p->out_offset,
                                  p->act_qmin, p->act_qmax};
        rt_a64_rq_regs k;
        rt_a64_rq_load(&q, &k);
        for (r = 0; r < mr; r++) {
            int32x4_t v[4];
            int32_t i;
            for (i = 0; i < 4; i++) v[i] = vaddq_s32(vld1q_s32(acc[r] + 4 * i), vld1q_s32(bias + col + 4 * i));
            rt_a64_rq_row(v, &k, c + (int64_t)r * p->ldc, nr);
        }
        return;
    }
#else
    (void)vec;
#endif
    for (r = 0; r < mr; r++)
        requant_row(p, acc[r], bias + col, col, c + (int64_t)r * p->ldc * rt_opt_s8_c_size(p), nr);
}

int rt_opt_s8_panel_vec(const rt_opt_gemm_params *p, int32_t col) {
    return p->rounding == RT_OPT_ROUND_FLOAT || rt_opt_shifts_vec(p->shift + col, NR);
}

int rt_opt_s8_in_registers(const rt_opt_gemm_params *p) {
    if (p->rounding != RT_OPT_ROUND_FLOAT && !rt_opt_shifts_vec(p->shift, (p->n + NR - 1) / NR * NR)) return 0;
#if defined(RT_OPT_AMX) && defined(__AMX_INT8__)
    if (rt_opt_amx_ready()) return 0;
#endif
    return 1;
}

#if defined(RT_OPT_S8_VNNI)
#define MR_S8 8

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
RT_OPT_INLINE void ukr_u8_sums(int32_t kq, const uint8_t *a, int32_t lda, int32_t mr, const int8_t *b, __m256i c0[4],
                                __m256i c1[4]) {
    const uint8_t *a0 = a, *a1 = a + (mr > 1 ? lda : 0);
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
}

static void ukr_u8(int32_t kq, const uint8_t *a, int32_t lda, int32_t mr, const int8_t *b, int32_t acc[MR_S8][NR]) {
    __m256i c0[4], c1[4];
    ukr_u8_sums(kq, a, lda, mr, b, c0, c1);
    /* lanes (c, k01), (c, k23) -> columns: hadd within 128-bit halves, then reorder */
    _mm256_storeu_si256((__m256i *)(void *)acc[0], _mm256_permute4x64_epi64(_mm256_hadd_epi32(c0[0], c0[1]), 0xD8));
    _mm256_storeu_si256((__m256i *)(void *)(acc[0] + 8), _mm256_permute4x64_epi64(_mm256_hadd_epi32(c0[2], c0[3]), 0xD8));
    _mm256_storeu_si256((__m256i *)(void *)acc[1], _mm256_permute4x64_epi64(_mm256_hadd_epi32(c1[0], c1[1]), 0xD8));
    _mm256_storeu_si256((__m256i *)(void *)(acc[1] + 8), _mm256_permute4x64_epi64(_mm256_hadd_epi32(c1[2], c1[3]), 0xD8));
}

#if !defined(RT_OPT_AVX512)
/* AVX2 without AVX-512: the 2 x 16 tile requantized in registers (no int32 tile in memory). The
 * pairwise sums leave each row's columns as [0 1 4 5 2 3 6 7] and [8 9 12 13 10 11 14 15] (no
 * permute): the panel's bias, multipliers and shifts are loaded in that order (rq_panel_init), and
 * the final packs put the bytes back in column order. */
typedef struct rq_panel {
    __m256i b[2], m[2], s[2], off, lo, hi;
    int single;
} rq_panel;

static inline __m256i rq_order(const int32_t *src) {
    return _mm256_permute4x64_epi64(_mm256_loadu_si256((const __m256i *)(const void *)src), 0xD8);
}

static void rq_panel_init(const rt_opt_gemm_params *p, const int32_t *bias, int32_t col, rq_panel *q) {
    int32_t h;
    for (h = 0; h < 2; h++) {
        q->b[h] = rq_order(bias + col + 8 * h);
        q->m[h] = rq_order(p->mult + col + 8 * h);
        q->s[h] = rq_order(p->shift + col + 8 * h);
    }
    q->off = _mm256_set1_epi32(p->out_offset);
    q->lo = _mm256_set1_epi32(p->act_qmin), q->hi = _mm256_set1_epi32(p->act_qmax);
    q->single = p->rounding == RT_OPT_ROUND_SINGLE;
}

/* One row's two vectors of sums (in rq_panel's order) requantized, its nr bytes stored at dst. */
static inline void rq_row_store(const rq_panel *q, __m256i x0, __m256i x1, int8_t *dst, int32_t nr) {
    __m256i v0 = _mm256_add_epi32(x0, q->b[0]), v1 = _mm256_add_epi32(x1, q->b[1]), t;
    v0 = q->single ? rq_single8(v0, q->m[0], q->s[0]) : rq_double8(v0, q->m[0], q->s[0]);
    v1 = q->single ? rq_single8(v1, q->m[1], q->s[1]) : rq_double8(v1, q->m[1], q->s[1]);
    v0 = _mm256_min_epi32(_mm256_max_epi32(_mm256_add_epi32(v0, q->off), q->lo), q->hi);
    v1 = _mm256_min_epi32(_mm256_max_epi32(_mm256_add_epi32(v1, q->off), q->lo), q->hi);
    t = _mm256_packs_epi32(v0, v1);   /* int16 words (0 1)(4 5)(8 9)(12 13) | (2 3)(6 7)(10 11)(14 15) */
    t = _mm256_packs_epi16(t, t);     /* the same as bytes, in the low 8 of each half */
    store_row16(dst, _mm_unpacklo_epi16(_mm256_castsi256_si128(t), _mm256_extracti128_si256(t, 1)), nr);
}

/* ukr_u8 with the requantization fused: rows 0..mr (at most 2) of C at c (row stride ldc bytes). */
static void ukr_u8_rq(int32_t kq, const uint8_t *a, int32_t lda, int32_t mr, const int8_t *b, const rq_panel *q,
                      int8_t *c, int64_t ldc, int32_t nr) {
    __m256i c0[4], c1[4];
    ukr_u8_sums(kq, a, lda, mr, b, c0, c1);
    rq_row_store(q, _mm256_hadd_epi32(c0[0], c0[1]), _mm256_hadd_epi32(c0[2], c0[3]), c, nr);
    if (mr > 1) rq_row_store(q, _mm256_hadd_epi32(c1[0], c1[1]), _mm256_hadd_epi32(c1[2], c1[3]), c + ldc, nr);
}
#endif
#elif defined(RT_A64)
#define MR_S8 RT_A64_MR /* runtime/arm64/rt_a64_gemm_s8.h's tiles */
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


#if defined(RT_A64)
/* (Declared in rt_opt_internal.h.) Where a panel's shifts allow and there is no per-row term or
 * float output, the tiles requantize in registers, starting from bias + 128 * colsum (the packed bias
 * itself with p->a64_init, else one pass over the panel a call): 4-row tiles while two or more rows
 * remain, a last single row on the 1-row tile; else they store int32 sums (from 128 * colsum, or 0)
 * for store_tile. */
void rt_opt_s8_a64_gemm(const rt_opt_gemm_params *p, int32_t m, const uint8_t *a, int32_t lda, int flip,
                        const int8_t *packed_b, const int32_t *bias, int8_t *c, const int32_t *row_add) {
    int32_t j, i, kq = K4(p->k) / 4;
    int32_t acc[MR_S8][NR], init[NR];
    for (j = 0; j * NR < p->n; j++) {
        const int8_t *bp = packed_b + (int64_t)j * kq * 4 * NR;
        int32_t col = j * NR, nr = p->n - col < NR ? p->n - col : NR;
        int vec = rt_opt_s8_panel_vec(p, col);
        if (vec && !row_add && a64_rq_applies(p)) {
            const rt_a64_rq_cols q = {p->mult + col, p->shift + col, p->rounding == RT_OPT_ROUND_SINGLE,
                                      p->out_offset, p->act_qmin, p->act_qmax};
            const int32_t *in0 = init;
            if (p->a64_init) in0 = bias + col;
            else rt_a64_s8_init(kq, bp, bias + col, init);
            rt_a64_s8_panel_rq(kq, a, lda, m, flip, bp, in0, &q, c + col, p->ldc, nr);
            continue;
        }
        if (p->a64_init) memset(init, 0, sizeof init);
        else rt_a64_s8_init(kq, bp, NULL, init);
        for (i = 0; i < m; i += MR_S8) {
            int32_t mr = m - i < MR_S8 ? m - i : MR_S8;
            rt_a64_s8_tile(kq, a + (int64_t)i * lda, lda, mr, flip, bp, init, acc);
            add_rows(acc, mr, row_add ? row_add + i : NULL);
            store_tile(p, acc, mr, bias, col, c + ((int64_t)i * p->ldc + col) * rt_opt_s8_c_size(p), nr, vec);
        }
    }
}
#endif

#if defined(RT_A64)
int rt_opt_s8_a64_rq_all(const rt_opt_gemm_params *p) { return a64_rq_applies(p) && rt_opt_s8_in_registers(p); }

/* (Declared in rt_opt_internal.h.) Output pixels m0..m0+m of a convolution read from its int8 image (no
 * im2col rows): pixel (oy, ox)'s patch starts at img + oy * ys + ox * xs, its K as nrun runs of K4 / 4 /
 * nrun quads, `step` bytes apart. The patches' pointers are made for ROWS_RUNS pixels at a time, then
 * every panel runs over them (rt_a64_s8_rows_rq_runs); every panel requantized in registers. */
#define ROWS_RUNS 256
void rt_opt_s8_a64_conv(const rt_opt_gemm_params *p, int32_t m0, int32_t m, const uint8_t *img, int64_t ys,
                        int64_t xs, int32_t out_w, int32_t nrun, int64_t step, const int8_t *packed_b,
                        const int32_t *bias, int8_t *c) {
    const int32_t kq = K4(p->k) / 4, rq = kq / nrun;
    const uint8_t *ptr[ROWS_RUNS + RT_A64_MR];
    int32_t init[NR], r0, n, i, j, oy = m0 / out_w, ox = m0 % out_w;
    for (r0 = 0; r0 < m; r0 += n) {
        n = m - r0 < ROWS_RUNS ? m - r0 : ROWS_RUNS;
        for (i = 0; i < n; i++) {
            ptr[i] = img + oy * ys + ox * xs;
            if (++ox == out_w) ox = 0, oy++;
        }
        for (i = 0; i < MR_S8 - 1; i++) ptr[n + i] = ptr[0]; /* the last tile's repeated rows */
        for (j = 0; j * NR < p->n; j++) {
            const int8_t *bp = packed_b + (int64_t)j * kq * 4 * NR;
            const int32_t col = j * NR, nr = p->n - col < NR ? p->n - col : NR;
            const rt_a64_rq_cols q = {p->mult + col, p->shift + col, p->rounding == RT_OPT_ROUND_SINGLE,
                                      p->out_offset, p->act_qmin, p->act_qmax};
            if (!p->a64_init) rt_a64_s8_init(kq, bp, bias + col, init);
            rt_a64_s8_rows_rq_runs(nrun, rq, step, ptr, n, bp, p->a64_init ? bias + col : init, &q,
                                   c + (int64_t)r0 * p->ldc + col, p->ldc, nr);
        }
    }
}
#undef ROWS_RUNS
#endif

/* C rows from A8 rows (a + 128 bytes, K padded to K4 with 0). row_add: per
 * row term added before requantization, or NULL. */
void rt_opt_s8_gemm_u8(const rt_opt_gemm_params *p, int32_t m, const uint8_t *a8, int32_t lda8, const int8_t *packed_b,
                       const int32_t *bias, int8_t *c, const int32_t *row_add) {
#if defined(RT_A64)
    rt_opt_s8_a64_gemm(p, m, a8, lda8, 1, packed_b, bias, c, row_add);
#else
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
        for (h = 0; h < halves; h++) vec[h] = rt_opt_s8_panel_vec(p, (j + h) * NR);
#if defined(RT_OPT_AMX) && defined(__AMX_INT8__)
        for (i = 0; i < m16; i += 16) {
            rt_opt_amx_u8(kq, a8 + (int64_t)i * lda8, lda8, b0, b1, &acc16[0][0][0]);
            for (h = 0; h < halves; h++) {
                int32_t col = (j + h) * NR, nr = p->n - col < NR ? p->n - col : NR;
                add_rows(acc16[h], 16, row_add ? row_add + i : NULL);
                store_tile(p, acc16[h], 16, bias, col, c + ((int64_t)i * p->ldc + col) * rt_opt_s8_c_size(p), nr, vec[h]);
            }
        }
#endif
        if (!row_add && vec[0] && (halves == 1 || vec[1])) { /* requantized in registers */
            const rt_opt_a_rows src = rt_opt_s8_gemm_rows(a8 + (int64_t)m16 * lda8, lda8, p->k);
            rt_opt_s8_pair_rows(p, j, 0, m - m16, &src, packed_b, bias, c + (int64_t)m16 * p->ldc * rt_opt_s8_c_size(p));
            continue;
        }
        for (i = m16; i < m; i += MR_S8) {
            int32_t mr = m - i < MR_S8 ? m - i : MR_S8;
            ukr_u8_vnni(kq, a8 + (int64_t)i * lda8, lda8, mr, b0, b1, acc2[0], acc2[1]);
            for (h = 0; h < halves; h++) {
                int32_t col = (j + h) * NR, nr = p->n - col < NR ? p->n - col : NR;
                add_rows(acc2[h], mr, row_add ? row_add + i : NULL);
                store_tile(p, acc2[h], mr, bias, col, c + ((int64_t)i * p->ldc + col) * rt_opt_s8_c_size(p), nr, vec[h]);
            }
        }
    }
#if defined(RT_OPT_AMX) && defined(__AMX_INT8__)
    if (m16) _tile_release();
#endif
#else
    int32_t acc[MR_S8][NR];
#if defined(RT_OPT_AVX2)
    if (!row_add && rt_opt_s8_avx2_applies(p)) { /* rt_opt_gemm_s8_avx2.c */
        rt_opt_s8_avx2_gemm(p, m, a8, lda8, 0, packed_b, bias, c);
        return;
    }
#endif
    for (j = 0; j * NR < p->n; j++) {
        const int8_t *bp = packed_b + (int64_t)j * kq * 4 * NR;
        int32_t col = j * NR, nr = p->n - col < NR ? p->n - col : NR;
        int vec = rt_opt_s8_panel_vec(p, col);
#if defined(RT_OPT_AVX2) && !defined(RT_OPT_AVX512)
        if (vec && !row_add && p->rounding != RT_OPT_ROUND_FLOAT && !p->out_f32) {
            rq_panel q;
            rq_panel_init(p, bias, col, &q);
            for (i = 0; i < m; i += MR_S8)
                ukr_u8_rq(kq, a8 + (int64_t)i * lda8, lda8, m - i < MR_S8 ? m - i : MR_S8, bp, &q,
                          c + ((int64_t)i * p->ldc + col), p->ldc, nr);
            continue;
        }
#endif
        for (i = 0; i < m; i += MR_S8) {
            int32_t mr = m - i < MR_S8 ? m - i : MR_S8;
            ukr_u8(kq, a8 + (int64_t)i * lda8, lda8, mr, bp, acc);
            if (p->a64_init) colsum_off(kq, bp, acc, mr);
            add_rows(acc, mr, row_add ? row_add + i : NULL);
            store_tile(p, acc, mr, bias, col, c + ((int64_t)i * p->ldc + col) * rt_opt_s8_c_size(p), nr, vec);
        }
    }
#endif
#endif
}

void rt_opt_s8_widen_rows(const int8_t *a, int32_t lda, int32_t rows, int32_t k, uint8_t *dst) {
    int32_t r, kk, k4 = K4(k);
    for (r = 0; r < rows; r++) {
        uint8_t *d = dst + (int64_t)r * k4;
        rt_opt_flip_s8(d, a + (int64_t)r * lda, k);
        for (kk = k; kk < k4; kk++) d[kk] = 0;
    }
}

#if defined(RT_OPT_S8_VNNI)
/* A read in place (j->in_place): K in whole quads, every panel requantized in registers, no AMX; the
 * kernel adds the 128 to A's bytes in registers instead of a widened copy of the rows being made first
 * (ViT's 17-row FCs: 13 copies a run). */
static int in_place_a(const rt_opt_gemm_params *p) { return p->k % 4 == 0 && rt_opt_s8_in_registers(p); }
#endif

/* Task t of an s8 GEMM: its contiguous share of the row blocks, with scratch copy t (or A in place). */
static void gemm_s8_task(void *v, int t) {
    const rt_opt_gemm_job *j = v;
    const rt_opt_gemm_params *p = j->p;
    int32_t i, rows = j->step, b0, b1;
    uint8_t *a8 = j->scratch ? (uint8_t *)j->scratch + (int64_t)t * p->slot_bytes : NULL;
    rt_opt_task_share((p->m + rows - 1) / rows, t, j->tasks, &b0, &b1);
    for (i = b0 * rows; i < p->m && i < b1 * rows; i += rows) {
        int32_t mr = p->m - i < rows ? p->m - i : rows;
#if defined(RT_OPT_S8_VNNI)
        if (j->in_place) {
            const rt_opt_a_rows src = rt_opt_s8_gemm_rows((const uint8_t *)j->a + (int64_t)i * p->lda, p->lda, p->k);
            rt_opt_s8_pairs_rows(p, 0, (p->n + NR - 1) / NR, 1, mr, &src, (const int8_t *)j->b, (const int32_t *)j->bias,
                                 (int8_t *)j->c + (int64_t)i * p->ldc * rt_opt_s8_c_size(p));
            continue;
        }
#elif defined(RT_A64)
        if (p->k % 4 == 0) { /* A's int8 rows read in place (whole quads), not widened into a copy first */
            rt_opt_s8_a64_gemm(p, mr, (const uint8_t *)j->a + (int64_t)i * p->lda, p->lda, 0, (const int8_t *)j->b,
                               (const int32_t *)j->bias, (int8_t *)j->c + (int64_t)i * p->ldc * rt_opt_s8_c_size(p), NULL);
            continue;
        }
#elif defined(RT_OPT_AVX2)
        if (rt_opt_s8_avx2_applies(p)) { /* A's int8 rows widened by the kernel, not copied first */
            rt_opt_s8_avx2_gemm(p, mr, (const uint8_t *)j->a + (int64_t)i * p->lda, p->lda, 1, (const int8_t *)j->b,
                                (const int32_t *)j->bias, (int8_t *)j->c + (int64_t)i * p->ldc * rt_opt_s8_c_size(p));
            continue;
        }
#endif
        rt_opt_s8_widen_rows((const int8_t *)j->a + (int64_t)i * p->lda, p->lda, mr, p->k, a8);
        rt_opt_s8_gemm_u8(p, mr, a8, K4(p->k), (const int8_t *)j->b, (const int32_t *)j->bias,
                (int8_t *)j->c + (int64_t)i * p->ldc * rt_opt_s8_c_size(p), NULL);
    }
}

void rt_opt_gemm_s8(const rt_opt_gemm_params *p, const int8_t *a, const int8_t *packed_b, const int32_t *bias,
                    int8_t *c, void *scratch, const mpcc_parallel *par) {
    rt_opt_gemm_job j = {p, a, packed_b, bias, c, scratch, 1, 0, 0, 0};
    int32_t blocks;
    j.tasks = rt_opt_tasks(par, p->slots);
    j.step = rt_opt_balanced_block(p->m, 1, p->rows, j.tasks);
    blocks = (p->m + j.step - 1) / j.step;
    j.tasks = j.tasks < blocks ? j.tasks : (blocks > 0 ? blocks : 1);
#if defined(RT_OPT_S8_VNNI)
    j.in_place = in_place_a(p);
#endif
    if (j.tasks > 1) par->run(par->pool, gemm_s8_task, &j, j.tasks);
    else gemm_s8_task(&j, 0);
}

void rt_opt_gemm_s8_f32(const rt_opt_gemm_params *p, const int8_t *a, const int8_t *packed_b, const int32_t *bias,
                        float *c, const float *residual, void *scratch, const mpcc_parallel *par) {
    rt_opt_gemm_params q = *p;
    q.residual = residual;
    q.res_off = residual ? (intptr_t)((uintptr_t)residual - (uintptr_t)c) : 0;
    rt_opt_gemm_s8(&q, a, packed_b, bias, (int8_t *)(void *)c, scratch, par);
}

/* ---- BATCH_MATMUL (int8): the RHS of each batch packed at run time, as for f32 (rt_opt_gemm.c). */

void rt_opt_bmm_s8(const rt_bmm_params *p, const int8_t *lhs, const int8_t *rhs, int8_t *out, void *scratch) {
    int64_t b, nb = rt_bmm_batch_count(p);
    int32_t np = (p->n + NR - 1) / NR * NR, k4 = K4(p->k), i, j, kk;
    int32_t *bias = (int32_t *)scratch, *mult = bias + np, *shift = mult + np, *row_add = shift + np;
    int8_t *pb = (int8_t *)(row_add + p->m);
    uint8_t *pa = (uint8_t *)(pb + (int64_t)np * k4);
    rt_opt_gemm_params g = rt_opt_bmm_gemm(p);
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
        rt_opt_s8_gemm_u8(&g, p->m, pa, k4, pb, bias, out + b * p->m * p->n, p->rhs_offset ? row_add : NULL);
    }
}
