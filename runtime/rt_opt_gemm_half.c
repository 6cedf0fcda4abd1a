/* rt_opt_gemm_half.c - FULLY_CONNECTED with 16-bit float weights (mpcc
 * --precision bf16 / fp16): half the weight bytes of f32, the arithmetic of
 * rt_fully_connected_half (inputs rounded to the weights' type, exact
 * products, float sums) up to summation order.
 *
 * Packed weights: panel j holds W[n = j*NR + c][k] at [j][k/2][c][k%2]
 * (K2 = ceil(K/2) pairs per column, zero padded; N padded to panels), so a
 * pair of inputs meets a pair of weights per column. With AVX512-BF16, bf16
 * runs on vdpbf16ps: 32 products into 16 float lanes per instruction, twice
 * the f32 FMA rate (on Sapphire Rapids it issues once per cycle, so no
 * faster than two FMA ports); with AMX (Linux, built with -mamx-bf16) bf16
 * runs on the tile unit instead: 16x16 float tiles, TDPBF16PS on 16 rows x
 * 32 inputs per step, the packed panels loading straight into B tiles; and
 * so does fp16 (from F16_AMX_MIN_ROWS rows), exactly, as four bf16 products
 * of a hi/lo split of each value (split16).
 * Elsewhere (fp16, or no BF16 instructions) the input rows are rounded to
 * the 16-bit type in scratch; with AVX-512 a micro-kernel widens the panels'
 * pairs in registers (vcvtph2ps / a shift, two permutes per pair) and runs
 * float FMAs; without it each pair of panels is widened to float in scratch
 * and the f32 GEMM micro-kernels run.
 * CONV_2D (rt_opt_conv_half) gathers im2col blocks in f32 and runs the same
 * kernel on each block; on AMX it gathers them straight into the A tiles.
 * The vdpbf16ps pair kernels themselves are in rt_opt_gemm_bf16.c. */
#include <string.h>

#include "mpcc_rt.h"
#include "rt_opt.h"
#include "rt_opt_internal.h"

#define NR RT_OPT_NR
#define HALF_ROWS RT_OPT_HALF_ROWS

#define AMX_ROWS 16 /* rows per tile */
#define F16_AMX_MIN_ROWS RT_OPT_F16_AMX_MIN_ROWS /* (the weights are split once per call) */

/* The AMX path's scratch (amx_layout): A tile(s), accumulators, for fp16 the split weights. */
static int64_t amx_bytes(int32_t type, int32_t n, int32_t k) {
    int64_t k2 = (k + 1) / 2, k2p = (k2 + 15) / 16 * 16, np = (n + NR - 1) / NR * NR;
    int64_t bytes = (int64_t)AMX_ROWS * k2p * 4 + 2 * AMX_ROWS * NR * 4 + 128;
    return type == RT_F16 ? bytes + (int64_t)AMX_ROWS * k2p * 4 + np * k2 * 8 : bytes;
}

int64_t rt_opt_fc_half_scratch(int32_t type, int32_t m, int32_t n, int32_t k) {
    int64_t k2 = (k + 1) / 2, rows = m < HALF_ROWS ? m : HALF_ROWS;
    int64_t plain = rows * k * 4 + 2 * NR * 2 * k2 * 4 + 64;
    int64_t amx = amx_bytes(type == RT_F16 && m < F16_AMX_MIN_ROWS ? RT_BF16 : type, n, k);
    return plain > amx ? plain : amx;
}


/* dst[0..n) = src rounded through the 16-bit type, as floats. */
void rt_opt_round_half_row(const float *src, int32_t n, int32_t type, float *dst) {
    int32_t i = 0;
#if defined(RT_OPT_AVX2) && defined(__F16C__)
    if (type == RT_F16)
        for (; i + 8 <= n; i += 8)
            _mm256_storeu_ps(dst + i, _mm256_cvtph_ps(_mm256_cvtps_ph(_mm256_loadu_ps(src + i), _MM_FROUND_TO_NEAREST_INT)));
#endif
#if defined(RT_OPT_AVX2)
    if (type == RT_BF16)
        for (; i + 8 <= n; i += 8) _mm256_storeu_ps(dst + i, _mm256_castsi256_ps(rt_round8_bf16(_mm256_loadu_ps(src + i))));
#endif
    for (; i < n; i++) dst[i] = rt_round_half(src[i], type);
}

static float half_to_f32(uint16_t h, int32_t type) { return type == RT_BF16 ? rt_bf16_to_f32(h) : rt_f16_to_f32(h); }

/* The n inputs at src as the kernel multiplies them: rounded through the 16-bit type, or with p->f32_inputs as
 * they are. */
static void input_row(const rt_opt_gemm_params *p, const float *src, int32_t n, int32_t type, float *dst) {
    if (p->f32_inputs) memcpy(dst, src, sizeof(float) * (size_t)n);
    else rt_opt_round_half_row(src, n, type, dst);
}

/* FULLY_CONNECTED in no scratch at all, for a plan that sized the scratch for another build's path (the f32
 * activation plan of --isa generic / avx2 gives the AVX2 kernels' room, none): each row of C accumulates in
 * place from its bias, K taken LEAN_K inputs at a time, rounded to the 16-bit type on the stack, then
 * clamped. Slower than the paths it stands in for (widened panels, AVX-512's rounded rows, AMX's tiles). */
#define LEAN_K 256 /* even: a chunk holds whole pairs */
static void fc_half_lean(const rt_opt_gemm_params *p, int32_t type, const float *a, const uint16_t *packed_b,
                         const float *bias, float *c) {
    const int32_t k2 = (p->k + 1) / 2;
    float x[LEAN_K];
    int32_t i, j, k0, kk;
    for (i = 0; i < p->m; i++) {
        float *cr = c + (int64_t)i * p->ldc;
        for (j = 0; j < p->n; j++) cr[j] = bias[j];
        for (k0 = 0; k0 < p->k; k0 += LEAN_K) {
            int32_t kn = p->k - k0 < LEAN_K ? p->k - k0 : LEAN_K;
            input_row(p, a + (int64_t)i * p->lda + k0, kn, type, x);
            for (j = 0; j < p->n; j++) {
                const uint16_t *w = packed_b + (int64_t)(j / NR) * k2 * NR * 2 + (int64_t)(k0 / 2) * NR * 2 + (j % NR) * 2;
                float sum = cr[j];
                for (kk = 0; kk < kn; kk++) sum += x[kk] * half_to_f32(w[(int64_t)(kk / 2) * NR * 2 + (kk & 1)], type);
                cr[j] = sum;
            }
        }
        for (j = 0; j < p->n; j++) cr[j] = rt_clamp_f32(cr[j], p->act_min, p->act_max);
    }
}

#if !defined(RT_OPT_AVX512)

/* Panels j, j+1 (or j alone) widened to the f32 GEMM layout [2][K][NR]. */
static void widen_panels(const uint16_t *packed, int32_t k, int32_t panels, int32_t type, float *dst) {
    int32_t k2 = (k + 1) / 2, q, kk, c, i;
    for (q = 0; q < panels; q++) {
        const uint16_t *src = packed + (int64_t)q * k2 * NR * 2;
        float *out = dst + (int64_t)q * k * NR;
        for (kk = 0; kk < k; kk += 2) {
            const uint16_t *pair = src + (int64_t)(kk / 2) * NR * 2; /* [c][2] */
            float f[2 * NR];
            i = 0;
#if defined(RT_OPT_AVX2) && defined(__F16C__)
            if (type == RT_F16)
                for (; i < 2 * NR; i += 8)
                    _mm256_storeu_ps(f + i, _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(const void *)(pair + i))));
#endif
            for (; i < 2 * NR; i++) f[i] = half_to_f32(pair[i], type);
            for (c = 0; c < NR; c++) out[(int64_t)kk * NR + c] = f[2 * c];
            if (kk + 1 < k)
                for (c = 0; c < NR; c++) out[(int64_t)(kk + 1) * NR + c] = f[2 * c + 1];
        }
    }
}
#endif

#if defined(RT_OPT_AVX512)

#define WIDE_MR 8
/* 16 halves (bf16: the high half of a float; f16: vcvtph2ps) as 16 floats. */
static inline __m512 wide16(__m256i h, int32_t type) {
    return type == RT_BF16 ? _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(h), 16)) : _mm512_cvtph_ps(h);
}

/* C[0..mr)[0..nr) = clamp(bias + A . panels b0, b1), A rows already rounded to the 16-bit type (floats, lda
 * apart), the panels' pairs widened in registers: per pair of K, [c0k0 c0k1 ... c15k1] split into the k0 and
 * k1 columns by two permutes. No widened copy of the weights, so no per-block widening pass. */
static void ukr_wide(int32_t k, const float *a, int32_t lda, int32_t mr, const uint16_t *b0, const uint16_t *b1,
                     const float *bias, int32_t type, float lo, float hi, float *c, int32_t ldc, int32_t nr) {
    const __m512i even = rt_unzip_even(), odd = rt_unzip_odd();
    __m512 acc[WIDE_MR][2], vlo = _mm512_set1_ps(lo), vhi = _mm512_set1_ps(hi), w[2][2];
    const float *ar[WIDE_MR];
    int32_t kk, r, q, pairs = k / 2;
    for (r = 0; r < WIDE_MR; r++) {
        acc[r][0] = _mm512_loadu_ps(bias), acc[r][1] = _mm512_loadu_ps(bias + NR);
        ar[r] = a + (int64_t)(r < mr ? r : 0) * lda; /* rows past mr repeat row 0, never stored */
    }
    for (kk = 0; kk < (k + 1) / 2; kk++) {
        for (q = 0; q < 2; q++) {
            const uint16_t *src = (q ? b1 : b0) + (int64_t)kk * NR * 2;
            __m512 l = wide16(_mm256_loadu_si256((const __m256i *)(const void *)src), type);
            __m512 h = wide16(_mm256_loadu_si256((const __m256i *)(const void *)(src + NR)), type);
            w[q][0] = _mm512_permutex2var_ps(l, even, h);
            w[q][1] = _mm512_permutex2var_ps(l, odd, h);
        }
        if (kk < pairs) {
            for (r = 0; r < WIDE_MR; r++) {
                __m512 x0 = _mm512_set1_ps(ar[r][2 * kk]), x1 = _mm512_set1_ps(ar[r][2 * kk + 1]);
                acc[r][0] = _mm512_fmadd_ps(x0, w[0][0], acc[r][0]);
                acc[r][1] = _mm512_fmadd_ps(x0, w[1][0], acc[r][1]);
                acc[r][0] = _mm512_fmadd_ps(x1, w[0][1], acc[r][0]);
                acc[r][1] = _mm512_fmadd_ps(x1, w[1][1], acc[r][1]);
            }
        } else { /* odd K: the last input alone */
            for (r = 0; r < WIDE_MR; r++) {
                __m512 x0 = _mm512_set1_ps(ar[r][2 * kk]);
                acc[r][0] = _mm512_fmadd_ps(x0, w[0][0], acc[r][0]);
                acc[r][1] = _mm512_fmadd_ps(x0, w[1][0], acc[r][1]);
            }
        }
    }
    for (r = 0; r < mr; r++) {
        float *cr = c + (int64_t)r * ldc;
        __mmask16 m0 = (__mmask16)(nr >= NR ? 0xFFFF : (1u << nr) - 1);
        __mmask16 m1 = (__mmask16)(nr >= 2 * NR ? 0xFFFF : nr > NR ? (1u << (nr - NR)) - 1 : 0);
        _mm512_mask_storeu_ps(cr, m0, _mm512_min_ps(vhi, _mm512_max_ps(vlo, acc[r][0])));
        _mm512_mask_storeu_ps(cr + NR, m1, _mm512_min_ps(vhi, _mm512_max_ps(vlo, acc[r][1])));
    }
}
#endif

#if defined(RT_OPT_AMX) && defined(__AVX512BF16__) && defined(__AMX_BF16__)
#define RT_OPT_AMX_BF16 1
/* Tiles (rt_opt_amx_configure(k2 % 16)): 0, 1 accumulators (two panels), 2 A (16 rows x 16 pairs), 3, 4 B (16
 * pairs x 16 columns x 2), 5, 6, 7 the same for the last rem < 16 pairs. One tile of A: `rows` <= 16 rows of
 * bf16 pairs in a2 (k2p words apart, zero past K), times all panels, into C rows (bias, clamp). acc: scratch
 * for two accumulator tiles. */
/* One step of 16 pairs (tiles TA for A, TB0/TB1 for the two panels, immediates as AMX needs): A x B, and
 * for fp16 (a2lo) the other three products of the hi/lo split. */
#define AMX_STEP(TA, TB0, TB1, a_at, b_at)                                                                         \
    do {                                                                                                           \
        _tile_loadd(TA, a2 + (a_at), k2p * 4);                                                                     \
        _tile_loadd(TB0, b0 + (b_at), NR * 4);                                                                     \
        _tile_dpbf16ps(0, TA, TB0);                                                                                \
        _tile_loadd(TB1, b1 + (b_at), NR * 4);                                                                     \
        _tile_dpbf16ps(1, TA, TB1);                                                                                \
        if (a2lo) { /* hi x lo, lo x lo, lo x hi */                                                                \
            _tile_loadd(TB0, l0 + (b_at), NR * 4);                                                                 \
            _tile_dpbf16ps(0, TA, TB0);                                                                            \
            _tile_loadd(TB1, l1 + (b_at), NR * 4);                                                                 \
            _tile_dpbf16ps(1, TA, TB1);                                                                            \
            _tile_loadd(TA, a2lo + (a_at), k2p * 4);                                                               \
            _tile_dpbf16ps(0, TA, TB0);                                                                            \
            _tile_dpbf16ps(1, TA, TB1);                                                                            \
            _tile_loadd(TB0, b0 + (b_at), NR * 4);                                                                 \
            _tile_dpbf16ps(0, TA, TB0);                                                                            \
            _tile_loadd(TB1, b1 + (b_at), NR * 4);                                                                 \
            _tile_dpbf16ps(1, TA, TB1);                                                                            \
        }                                                                                                          \
    } while (0)

static void amx_bf16_tile(const rt_opt_gemm_params *p, const uint32_t *a2, const uint32_t *a2lo, int32_t k2p,
                          int32_t rows, const uint16_t *packed_b, const uint16_t *packed_lo, const float *bias, float *c,
                          float *acc) {
    int32_t k2 = (p->k + 1) / 2, full = k2 / 16, rem = k2 % 16, j, t, r, q;
    for (j = 0; j * NR < p->n; j += 2) {
        int64_t at = (int64_t)j * k2 * NR * 2, next = (j + 1) * NR < p->n ? (int64_t)k2 * NR * 2 : 0;
        const uint16_t *b0 = packed_b + at, *b1 = b0 + next;
        const uint16_t *l0 = packed_lo ? packed_lo + at : NULL, *l1 = l0 ? l0 + next : NULL;
        int two = next != 0;
        _tile_zero(0);
        _tile_zero(1);
        for (t = 0; t < full; t++) AMX_STEP(2, 3, 4, t * 16, (int64_t)t * 16 * NR * 2);
        if (rem) AMX_STEP(5, 6, 7, full * 16, (int64_t)full * 16 * NR * 2);
        _tile_stored(0, acc, NR * 4);
        _tile_stored(1, acc + AMX_ROWS * NR, NR * 4);
        for (q = 0; q < (two ? 2 : 1); q++) {
            int32_t col = (j + q) * NR, nr = p->n - col < NR ? p->n - col : NR;
            __mmask16 m = (__mmask16)(nr >= NR ? 0xFFFF : (1u << nr) - 1);
            __m512 vb = _mm512_loadu_ps(bias + col), vlo = _mm512_set1_ps(p->act_min), vhi = _mm512_set1_ps(p->act_max);
            for (r = 0; r < rows; r++) {
                __m512 v = _mm512_add_ps(_mm512_loadu_ps(acc + (q * AMX_ROWS + r) * NR), vb);
                _mm512_mask_storeu_ps(c + (int64_t)r * p->ldc + col, m, _mm512_min_ps(vhi, _mm512_max_ps(vlo, v)));
            }
        }
    }
}

/* The AMX path's scratch (sized by rt_opt_fc_half_scratch): the A tile (16 rows x k2p words), for fp16 a
 * second one (the low parts), two accumulator tiles, for fp16 the weights split into two panel sets. */
typedef struct amx_scratch {
    uint32_t *a2, *a2lo;
    float *acc;
    uint16_t *whi, *wlo;
} amx_scratch;

static amx_scratch amx_layout(void *scratch, int32_t k2p, int32_t np, int32_t k2, int f16) {
    amx_scratch s;
    s.a2 = scratch;
    s.a2lo = f16 ? s.a2 + (int64_t)AMX_ROWS * k2p : NULL;
    s.acc = (float *)(void *)(s.a2 + (int64_t)AMX_ROWS * k2p * (f16 ? 2 : 1));
    s.whi = f16 ? (uint16_t *)(void *)(s.acc + 2 * AMX_ROWS * NR) : NULL;
    s.wlo = f16 ? s.whi + (int64_t)np * k2 * 2 : NULL;
    return s;
}

/* fp16 on AMX, exactly: an fp16 value v is hi + lo, hi its top 8 significand bits (a bf16, by truncation) and
 * lo = v - hi (at most 3 bits: a bf16 too), so v_x * v_w is the sum of the four exact bf16 products. Up to 16
 * floats (m) as hi and lo bf16. */
static void split16(__m512 v, uint16_t *hi, uint16_t *lo, __mmask16 m) {
    __m512 h = _mm512_castsi512_ps(_mm512_and_si512(_mm512_castps_si512(v), _mm512_set1_epi32((int32_t)0xFFFF0000u)));
    _mm512_mask_storeu_epi16(hi, (__mmask32)m, _mm512_castsi256_si512((__m256i)_mm512_cvtneps_pbh(h)));
    _mm512_mask_storeu_epi16(lo, (__mmask32)m, _mm512_castsi256_si512((__m256i)_mm512_cvtneps_pbh(_mm512_sub_ps(v, h))));
}

/* n floats as bf16 (lo NULL), or rounded to fp16 and split into hi and lo, 16 at a time. */
static inline void store_row(const float *src, int32_t n, uint16_t *hi, uint16_t *lo) {
    int32_t c;
    if (lo) {
        for (c = 0; c < n; c += 16) {
            __mmask16 m = (__mmask16)(n - c >= 16 ? 0xFFFF : (1u << (n - c)) - 1);
            __m512 v = _mm512_cvtph_ps(_mm512_cvtps_ph(_mm512_maskz_loadu_ps(m, src + c), _MM_FROUND_TO_NEAREST_INT));
            split16(v, hi + c, lo + c, m);
        }
    } else {
        for (c = 0; c < n; c += 16) {
            __mmask16 m = (__mmask16)(n - c >= 16 ? 0xFFFF : (1u << (n - c)) - 1);
            __m256i h = (__m256i)_mm512_cvtneps_pbh(_mm512_maskz_loadu_ps(m, src + c));
            _mm512_mask_storeu_epi16(hi + c, (__mmask32)m, _mm512_castsi256_si512(h));
        }
    }
}

/* The packed fp16 panels (n16 values, a multiple of 16) split into hi and lo bf16 panels, same layout. */
static void split_weights(const uint16_t *packed, int64_t n16, uint16_t *hi, uint16_t *lo) {
    int64_t i;
    for (i = 0; i < n16; i += 16)
        split16(_mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)(const void *)(packed + i))), hi + i, lo + i, 0xFFFF);
}

/* FULLY_CONNECTED on AMX: A's rows converted (bf16) or rounded and split (fp16) 16 at a time. */
static void fc_amx(const rt_opt_gemm_params *p, int32_t type, const float *a, const uint16_t *packed_b,
                   const float *bias, float *c, void *scratch) {
    int32_t k = p->k, k2 = (k + 1) / 2, k2p = (k2 + 15) / 16 * 16, np = (p->n + NR - 1) / NR * NR, i0, r;
    int f16 = type == RT_F16;
    amx_scratch s = amx_layout(scratch, k2p, np, k2, f16);
    if (f16) split_weights(packed_b, (int64_t)np * k2 * 2, s.whi, s.wlo);
    rt_opt_amx_configure(k2 % 16);
    for (i0 = 0; i0 < p->m; i0 += AMX_ROWS) {
        int32_t rows = p->m - i0 < AMX_ROWS ? p->m - i0 : AMX_ROWS;
        memset(s.a2, 0, sizeof(uint32_t) * (size_t)AMX_ROWS * (size_t)k2p * (f16 ? 2 : 1));
        for (r = 0; r < rows; r++)
            store_row(a + (int64_t)(i0 + r) * p->lda, k, (uint16_t *)(void *)(s.a2 + (int64_t)r * k2p),
                      f16 ? (uint16_t *)(void *)(s.a2lo + (int64_t)r * k2p) : NULL);
        amx_bf16_tile(p, s.a2, s.a2lo, k2p, rows, f16 ? s.whi : packed_b, s.wlo, bias, c + (int64_t)i0 * p->ldc, s.acc);
    }
    _tile_release();
}
#endif

int rt_opt_half_rounds_inputs(int32_t type) {
#if defined(RT_OPT_HALF_F32_AVX2)
#if defined(__F16C__)
    (void)type;
    return 0;
#else
    return type == RT_F16; /* fp16 without F16C: the widened panels below */
#endif
#elif defined(RT_OPT_HALF_F32_A64)
    (void)type;
    return 0;
#else
    (void)type;
    return 1;
#endif
}

void rt_opt_fc_half(const rt_opt_gemm_params *p, int32_t type, const float *a, const uint16_t *packed_b,
                    const float *bias, float *c, void *scratch) {
    int32_t k = p->k, k2 = (k + 1) / 2, i0, j;
#if defined(RT_OPT_HALF_F32_AVX2) || defined(RT_OPT_HALF_F32_A64)
    /* no 16-bit arithmetic: f32 FMAs on the weights widened in registers, no scratch (0: fp16 without F16C) */
    if (RT_OPT_FC_HALF_F32(p, type, a, packed_b, bias, c)) return;
#endif
    if (p->slot_bytes < rt_opt_fc_half_scratch(type, p->m, p->n, k)) { /* short: a path that needs none */
        fc_half_lean(p, type, a, packed_b, bias, c);
        return;
    }
#if defined(RT_OPT_AVX512) && defined(__AVX512BF16__)
#if defined(RT_OPT_AMX_BF16)
    if (!p->f32_inputs && p->m >= (type == RT_BF16 ? 4 : F16_AMX_MIN_ROWS) && rt_opt_amx_ready()) {
        fc_amx(p, type, a, packed_b, bias, c, scratch);
        return;
    }
#endif
    if (type == RT_BF16 && !p->f32_inputs) {
        rt_opt_fc_bf16_to(p, a, packed_b, bias, c, RT_F32, scratch);
        return;
    }
#endif
#if defined(RT_OPT_AVX512)
    {
        float *arow = scratch;
        for (i0 = 0; i0 < p->m; i0 += HALF_ROWS) {
            int32_t rows = p->m - i0 < HALF_ROWS ? p->m - i0 : HALF_ROWS, r;
            for (r = 0; r < rows; r++) input_row(p, a + (int64_t)(i0 + r) * p->lda, k, type, arow + (int64_t)r * k);
            for (j = 0; j * NR < p->n; j += 2) {
                const uint16_t *b0, *b1;
                float bias2[2 * NR];
                int32_t nr = rt_opt_panel_pair(packed_b, bias, p->n, k2, j, &b0, &b1, bias2);
                for (r = 0; r < rows; r += WIDE_MR)
                    ukr_wide(k, arow + (int64_t)r * k, k, rows - r < WIDE_MR ? rows - r : WIDE_MR, b0, b1, bias2, type,
                             p->act_min, p->act_max, c + (int64_t)(i0 + r) * p->ldc + j * NR, p->ldc, nr);
            }
        }
    }
#else
    {
        float *arow = scratch, *panel = arow + (int64_t)(p->m < HALF_ROWS ? p->m : HALF_ROWS) * k;
        for (i0 = 0; i0 < p->m; i0 += HALF_ROWS) {
            int32_t rows = p->m - i0 < HALF_ROWS ? p->m - i0 : HALF_ROWS, r;
            for (r = 0; r < rows; r++) input_row(p, a + (int64_t)(i0 + r) * p->lda, k, type, arow + (int64_t)r * k);
            for (j = 0; j * NR < p->n; j += 2) {
                int32_t panels = (j + 1) * NR < p->n ? 2 : 1;
                rt_opt_gemm_params sub = *p;
                widen_panels(packed_b + (int64_t)j * k2 * NR * 2, k, panels, type, panel);
                sub.m = rows;
                sub.n = p->n - j * NR < 2 * NR ? p->n - j * NR : 2 * NR;
                sub.lda = k;
                rt_opt_gemm_f32(&sub, arow, panel, bias + j * NR, c + (int64_t)i0 * p->ldc + j * NR);
            }
        }
    }
#endif
}

/* ---- CONV_2D with 16-bit weights: im2col blocks (or the input rows of a
 * direct 1x1) in f32, then the FC kernel above on each block. */

/* Bytes of the im2col block at the start of a scratch slot (none for direct). */
static int64_t im2col_bytes(int32_t direct, int32_t rows, int32_t k) {
    return direct ? 0 : ((int64_t)rows * k * 4 + 63) / 64 * 64;
}

/* A slot: the im2col block (or, for a direct convolution with a 16-bit input, its rows widened), the f32
 * output block when the output is 16-bit, the fused ADD's other rows widened when they are, then the FC
 * kernel's (or AMX's) scratch. */
typedef struct conv_slot {
    int64_t a, c, o, rest;
} conv_slot;

static conv_slot slot_layout(int32_t ti, int32_t tc, int32_t to, int32_t direct, int32_t rows, int32_t n, int32_t k) {
    conv_slot s;
    s.a = 0;
    s.c = im2col_bytes(direct && ti == RT_F32, rows, k);
    s.o = s.c + (tc != RT_F32 ? ((int64_t)rows * n * 4 + 63) / 64 * 64 : 0);
    s.rest = s.o + (to != RT_F32 ? ((int64_t)rows * n * 4 + 63) / 64 * 64 : 0);
    return s;
}

int64_t rt_opt_conv_typed_scratch(int32_t type, int32_t ti, int32_t tc, int32_t to, int32_t direct, int32_t m,
                                  int32_t rows, int32_t n, int32_t k) {
    int64_t fc = rt_opt_fc_half_scratch(type, rows, n, k);
    int64_t amx = direct ? 0 : amx_bytes(type == RT_F16 && m < F16_AMX_MIN_ROWS ? RT_BF16 : type, n, k);
    return slot_layout(ti, tc, to, direct, rows, n, k).rest + (fc > amx ? fc : amx);
}

int64_t rt_opt_conv_half_scratch(int32_t type, int32_t direct, int32_t m, int32_t rows, int32_t n, int32_t k) {
    return rt_opt_conv_typed_scratch(type, RT_F32, RT_F32, RT_F32, direct, m, rows, n, k);
}

/* im2col rows of a 16-bit input (type ti), widened to f32. */
#define RUN_WIDEN(d, s, n) rt_opt_to_f32(ti, (s), (n), (d))
static void im2col_widen(const rt_opt_conv_params *p, int32_t ti, const uint16_t *in, int32_t m0, int32_t rows,
                         float *dst) {
    const int32_t kdim = p->gemm.k, ldd = kdim;
    IM2COL(uint16_t, float, 0.0f, RUN_WIDEN);
}


#if defined(RT_OPT_AMX_BF16)
/* Patch rows m0..m0+rows of image `in` into the A tile(s) as store_row writes them (ldd halves apart);
 * out-of-image taps and the padding past K stay as they are (zero: the caller clears the tiles once). */
static void im2col_amx(const rt_opt_conv_params *p, const float *in, int32_t m0, int32_t rows, const amx_scratch *s,
                       int32_t ldd) {
    const int32_t inc = p->in_c, oyx = p->out_w;
    int32_t r, fy, fx, oy = m0 / oyx, ox = m0 % oyx;
    for (r = 0; r < rows; r++) {
        int64_t at = (int64_t)r * ldd;
        for (fy = 0; fy < p->filter_h; fy++) {
            int32_t y = oy * p->stride_h - p->pad_h + fy * p->dil_h;
            for (fx = 0; fx < p->filter_w; fx++, at += inc) {
                int32_t x = ox * p->stride_w - p->pad_w + fx * p->dil_w;
                uint16_t *hi = (uint16_t *)(void *)s->a2 + at, *lo = s->a2lo ? (uint16_t *)(void *)s->a2lo + at : NULL;
                if (y < 0 || y >= p->in_h || x < 0 || x >= p->in_w) {
                    memset(hi, 0, sizeof(uint16_t) * (size_t)inc);
                    if (lo) memset(lo, 0, sizeof(uint16_t) * (size_t)inc);
                    continue;
                }
                store_row(in + ((int64_t)y * p->in_w + x) * inc, inc, hi, lo);
            }
        }
        if (++ox == oyx) ox = 0, oy++;
    }
}

/* A block of output rows on AMX (the tiles configured and cleared by the caller): the im2col rows gathered
 * straight into the A tile(s) (no f32 block, no second conversion pass), 16 rows at a time; w, wlo: the
 * bf16 panels (fp16: split by the caller). */
static void conv_amx(const rt_opt_conv_job *j, const float *in, int32_t m0_block, int32_t block_rows, float *out,
                     const amx_scratch *s, const uint16_t *w, const uint16_t *wlo) {
    const rt_opt_conv_params *p = j->p;
    int32_t k2p = ((p->gemm.k + 1) / 2 + 15) / 16 * 16, i;
    for (i = 0; i < block_rows; i += AMX_ROWS) {
        int32_t rows = block_rows - i < AMX_ROWS ? block_rows - i : AMX_ROWS, m0 = m0_block + i;
        im2col_amx(p, in, m0, rows, s, 2 * k2p);
        amx_bf16_tile(&p->gemm, s->a2, s->a2lo, k2p, rows, w, wlo, (const float *)j->bias,
                      out + (int64_t)m0 * p->gemm.n, s->acc);
    }
}
#endif

static void conv_half_task(void *v, int t) {
    const rt_opt_conv_job *j = v;
    const rt_opt_conv_params *p = j->p;
    const int32_t ti = p->in_type, tc = p->out_type, to = p->other_type;
    const int64_t si = ti == RT_F32 ? 4 : 2, sc = tc == RT_F32 ? 4 : 2, so = to == RT_F32 ? 4 : 2;
    int32_t mimg = p->out_h * p->out_w, kdim = p->gemm.k, ldd = kdim, oc = p->gemm.n, q;
    rt_opt_gemm_params g = p->gemm;
    char *slot = (char *)j->scratch + (int64_t)t * p->gemm.slot_bytes;
    const conv_slot sl = slot_layout(ti, tc, to, p->direct, p->rows, oc, kdim);
    float *dst = (float *)(void *)slot, *cblk = (float *)(void *)(slot + sl.c), *oblk = (float *)(void *)(slot + sl.o);
    void *fc_scratch = slot + sl.rest;
    g.slot_bytes = p->gemm.slot_bytes - sl.rest; /* rt_opt_fc_half's room (short: it takes a path that fits) */
#if defined(RT_OPT_AVX512) && defined(__AVX512BF16__)
    /* a bf16 image read in place through a row table (rt_opt_conv_rows_bf16), within the im2col block's room */
    const int64_t tab_bytes = rt_opt_conv_rows_bf16_bytes(p, j->block);
    const int tab_fits = tab_bytes > 0 && tab_bytes <= sl.c;
    const int64_t tab_at = ((int64_t)j->block * kdim * 2 + 63) / 64 * 64;
    const uint32_t **tab = (const uint32_t **)(void *)(slot + tab_at);
    uint16_t *zero = (uint16_t *)(void *)(slot + tab_at + (int64_t)j->block * p->filter_h * 8);
    /* the image inside its padding, as bf16 (rt_opt_conv_bf16_padded_bytes), where the slot has room for it */
    const int64_t padded = p->direct || j->half_type != RT_BF16 || (ti != RT_F32 && ti != RT_BF16)
                               ? 0
                               : rt_opt_conv_bf16_padded_bytes(p->in_h, p->in_w, p->in_c, p->out_h, p->out_w,
                                                               p->filter_h, p->filter_w, p->stride_h, p->stride_w,
                                                               p->pad_h, p->pad_w, p->dil_h, p->dil_w);
    const int64_t pad_at = rt_opt_half_pad_at(rt_opt_conv_typed_scratch(RT_BF16, ti, tc, to, 0, p->batches * mimg,
                                                                        p->rows, oc, kdim));
    const int use_pad = padded > 0 && p->gemm.slot_bytes >= pad_at + padded;
    uint16_t *pad = (uint16_t *)(void *)(slot + pad_at);
    rt_opt_conv_params pp; /* p over the padded image of image padded_b (made once per image and task) */
    int32_t padded_b = -1;
#endif
#if defined(RT_OPT_AMX_BF16)
    /* im2col convolutions on AMX: the tiles set up once per task (fp16, from F16_AMX_MIN_ROWS output rows in
     * all: the weights split once); f32 activations only */
    int32_t k2 = (kdim + 1) / 2, k2p = (k2 + 15) / 16 * 16, np = (oc + NR - 1) / NR * NR, f16 = j->half_type == RT_F16;
    int amx = !p->direct && (!f16 || (int64_t)p->batches * mimg >= F16_AMX_MIN_ROWS) && ti == RT_F32 &&
              tc == RT_F32 && to == RT_F32 && g.slot_bytes >= amx_bytes(f16 ? RT_F16 : RT_BF16, oc, kdim) &&
              rt_opt_half_rounds_inputs(j->half_type) && rt_opt_amx_ready();
    amx_scratch s = amx_layout(fc_scratch, k2p, np, k2, f16);
    if (amx) {
        if (f16) split_weights((const uint16_t *)j->b, (int64_t)np * k2 * 2, s.whi, s.wlo);
        memset(s.a2, 0, sizeof(uint32_t) * (size_t)AMX_ROWS * (size_t)k2p * (f16 ? 2 : 1));
        rt_opt_amx_configure(k2 % 16);
    }
#endif
#if defined(RT_OPT_GEMM16_ROWS_AVX2) || defined(RT_OPT_GEMM16_ROWS_A64)
    /* AVX2: an f32 image's patch rows read in place through a row table (rt_opt_conv_rows_f32), `sub` rows at
     * a time: per row its copy room (used only by rows cut by the left or right edge), then the table and
     * the zero row, in the im2col block's room and, with f32 outputs (nothing between), the FC kernel's
     * scratch, which the AVX2 kernels do not use */
    const int64_t room = sl.rest == sl.c ? p->gemm.slot_bytes : sl.c, seg_bytes = (int64_t)p->filter_w * p->in_c * 4;
    const int64_t per_row = (int64_t)kdim * 4 + (int64_t)p->filter_h * (int64_t)sizeof(float *);
    int64_t sub = (room - seg_bytes - 16) / per_row;
    const int rows16 = !p->direct && ti == RT_F32 && p->dil_w == 1 && sub >= 6 &&
                       !rt_opt_half_rounds_inputs(j->half_type); /* fp16 needs F16C */
    const float **tab16;
    float *zero16;
    if (sub > j->block) sub = j->block;
    tab16 = (const float **)(void *)(((uintptr_t)(dst + sub * kdim) + 7) & ~(uintptr_t)7);
    zero16 = (float *)(void *)(tab16 + sub * p->filter_h);
#endif
    int32_t q_end;
    rt_opt_task_share(p->batches * j->per_image, t, j->tasks, &q, &q_end);
#if defined(RT_OPT_GEMM16_WIDEN)
    /* no 16-bit arithmetic, f32 image: with enough rows in this task, all the weights widened once (on the stack) and
     * every block of rows on the f32 GEMM's tiles with them, rather than the panels widened per block (or in
     * registers per tile); where they do not fit, each block as below */
    float wide[RT_OPT_WIDE_ALL_FLOATS] __attribute__((aligned(64)));
    const int wide_all = ti == RT_F32 && (p->direct || rows16) && !rt_opt_half_rounds_inputs(j->half_type) &&
                         (int64_t)(q_end - q) * j->block >= RT_OPT_WIDE_ALL_MIN_ROWS &&
                         RT_OPT_GEMM16_WIDE_FITS(kdim, oc, RT_OPT_WIDE_ALL_FLOATS);
    int widened = 0; /* the first block widens them (AVX-512: its first row tiles do) */
#endif
    for (; q < q_end; q++) {
        int32_t b = q / j->per_image, m0 = q % j->per_image * j->block;
        int32_t rows = mimg - m0 < j->block ? mimg - m0 : j->block;
        int stored = 0; /* the output block is in j->out already (bf16 stored by the pair kernels) */
        const char *inb = (const char *)j->in + (int64_t)b * p->in_h * p->in_w * p->in_c * si;
        const float *in = (const float *)(const void *)inb, *a = dst;
        float *out = tc == RT_F32 ? (float *)j->out + ((int64_t)b * mimg + m0) * oc : cblk;
        g.m = rows;
        g.lda = kdim;
#if defined(RT_OPT_AMX_BF16)
        if (amx)
            conv_amx(j, in, m0, rows, out - (int64_t)m0 * oc, &s, f16 ? s.whi : (const uint16_t *)j->b, s.wlo);
        else
#endif
        {
#if defined(RT_OPT_AVX512) && defined(__AVX512BF16__)
            /* the bf16 pair kernels store a bf16 output themselves (no f32 block to round afterwards) */
            const int32_t tk = tc == RT_BF16 && !j->post ? RT_BF16 : RT_F32;
            void *ok = tk == RT_BF16 ? (void *)((uint16_t *)j->out + ((int64_t)b * mimg + m0) * oc) : (void *)out;
#endif
            if (p->direct && ti == RT_F32) {
                a = in + (int64_t)m0 * p->in_c;
                g.lda = p->in_c;
            } else if (p->direct && ti == RT_BF16 && j->half_type == RT_BF16 &&
                       rt_opt_fc_bf16_rows(&g, (const uint16_t *)(const void *)inb + (int64_t)m0 * p->in_c,
                                           (const uint16_t *)j->b, (const float *)j->bias, out, dst)) {
                a = NULL; /* done: the bf16 rows are the micro-kernel's pairs */
            } else if (p->direct) {
                rt_opt_to_f32(ti, inb + (int64_t)m0 * p->in_c * si, (int64_t)rows * p->in_c, dst);
                g.lda = p->in_c;
            }
#if defined(RT_OPT_AVX512) && defined(__AVX512BF16__)
            else if (j->half_type == RT_BF16 && (ti == RT_BF16 || (ti == RT_F32 && rt_opt_half_rounds_inputs(RT_BF16)))) {
                /* bf16 pairs from the image (an f32 one rounded, where the build rounds f32 inputs), or from its
                 * padded bf16 copy (no patch cut by an edge): a bf16 image through its row table where it fits,
                 * else as im2col rows */
                const rt_opt_conv_params *gp = p;
                const void *src = inb;
                int32_t st = ti;
                if (use_pad) {
                    if (b != padded_b) rt_opt_pad_image_bf16(p, ti, inb, pad, &pp), padded_b = b;
                    gp = &pp, src = pad, st = RT_BF16;
                }
                if (st == RT_BF16 && tab_fits) {
                    rt_opt_conv_rows_bf16(gp, (const uint16_t *)src, m0, rows, (uint16_t *)(void *)dst, tab, zero);
                    rt_opt_fc_bf16_pairs(&g, rows, NULL, tab, p->filter_h, p->filter_w * p->in_c / 2, (const uint16_t *)j->b,
                                  (const float *)j->bias, ok, tk, mimg == 1);
                } else {
                    rt_opt_im2col_bf16(gp, st, src, m0, rows, (uint16_t *)(void *)dst);
                    rt_opt_fc_bf16_pairs(&g, rows, (const uint32_t *)(const void *)dst, NULL, 0, 0, (const uint16_t *)j->b,
                                  (const float *)j->bias, ok, tk, mimg == 1);
                }
                a = NULL; /* done */
                stored = tk == RT_BF16;
            }
#endif
#if defined(RT_OPT_GEMM16_ROWS_AVX2) || defined(RT_OPT_GEMM16_ROWS_A64)
            else if (rows16) {
                int32_t s, n;
                for (s = 0; s < rows; s += n) {
                    n = rows - s < (int32_t)sub ? rows - s : (int32_t)sub;
                    rt_opt_conv_rows_f32(p, in, m0 + s, n, dst, tab16, zero16);
#if defined(RT_OPT_GEMM16_WIDEN)
                    if (wide_all)
                        rt_opt_gemm16_wide_block(&g, j->half_type, n, NULL, tab16, p->filter_h, (const uint16_t *)j->b,
                                                 wide, &widened, (const float *)j->bias, out + (int64_t)s * oc);
                    else
#endif
                        RT_OPT_GEMM16_ROWS_F32(&g, j->half_type, n, NULL, tab16, p->filter_h, (const uint16_t *)j->b,
                                               (const float *)j->bias, out + (int64_t)s * oc);
                }
                a = NULL; /* done */
            }
#endif
            else if (ti != RT_F32)
                im2col_widen(p, ti, (const uint16_t *)(const void *)inb, m0, rows, dst);
            else
                IM2COL(float, float, 0.0f, RUN_F32);
            if (a) { /* NULL: a bf16 block already done */
#if defined(RT_OPT_GEMM16_WIDEN)
                if (wide_all) { /* the widened weights, the f32 GEMM's tiles */
                    rt_opt_gemm16_wide_block(&g, j->half_type, rows, a, NULL, 1, (const uint16_t *)j->b, wide, &widened,
                                             (const float *)j->bias, out);
                    a = NULL;
                }
#endif
#if defined(RT_OPT_HALF_F32_AVX2) || defined(RT_OPT_HALF_F32_A64)
                /* 16-bit storage, f32 arithmetic: the block (or the direct rows) read as they are */
                if (a && RT_OPT_FC_HALF_F32(&g, j->half_type, a, (const uint16_t *)j->b, (const float *)j->bias, out))
                    a = NULL;
#endif
                if (a) rt_opt_fc_half(&g, j->half_type, a, (const uint16_t *)j->b, (const float *)j->bias, out, fc_scratch);
            }
        }
        if (j->post) {
            const char *ob = (const char *)j->other + ((int64_t)b * mimg + m0) * oc * so;
            if (to != RT_F32) rt_opt_to_f32(to, ob, (int64_t)rows * oc, oblk);
            rt_opt_post_add_f32(j->post, out, to != RT_F32 ? oblk : (const float *)(const void *)ob, (int64_t)rows * oc);
        }
        if (tc != RT_F32 && !stored)
            rt_opt_from_f32(cblk, (int64_t)rows * oc, tc, (char *)j->out + ((int64_t)b * mimg + m0) * oc * sc);
    }
#if defined(RT_OPT_AMX_BF16)
    if (amx) _tile_release();
#endif
}

void rt_opt_conv_half(const rt_opt_conv_params *p, int32_t type, const void *in, const uint16_t *packed_b,
                      const float *bias, void *out, void *scratch, const rt_opt_post_add *post, const void *other,
                      const mpcc_parallel *par) {
    rt_opt_run_conv(p, in, packed_b, bias, out, scratch, post, other, conv_half_task, p->rows, type, par);
}
