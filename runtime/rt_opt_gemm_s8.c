/* rt_opt_gemm_s8.c - the int8 GEMM (VNNI / AMX / AVX2 / C micro-kernels with the exact
 * TFLite requantization in the epilogue) and int8 BATCH_MATMUL. The int8 convolution on
 * these kernels is in rt_opt_conv_s8.c. */
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


/* Bytes of one element of C: floats with p->out_f32. */
static inline int64_t c_size(const rt_opt_gemm_params *p) { return p->out_f32 ? 4 : 1; }

/* The residual at the position of C's element at dst (p->residual set): res_off bytes on, computed as
 * integers since the two may be separate buffers. */
static inline const float *res_at(const rt_opt_gemm_params *p, const void *dst) {
    return (const float *)(uintptr_t)((uintptr_t)dst + (uintptr_t)p->res_off);
}

/* Float results (p->out_f32) of one row of the 16 columns from col: x fscale, [+ residual in one rounding,]
 * clamped; nr stored at out. */
static void store_f32_row(const rt_opt_gemm_params *p, const int32_t *acc, const int32_t *bias, int32_t col, float *out,
                          int32_t nr) {
    const float *res = p->residual ? res_at(p, out) : NULL;
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
        requant_row(p, acc[r], bias + col, col, c + (int64_t)r * p->ldc * c_size(p), nr);
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
/* One panel's requantization constants, loaded and prepared once per panel pair. */
typedef struct panel_q {
    __m512i bias, m, s;
    rq16 k;
    __m512 fs;     /* RT_OPT_ROUND_FLOAT: the columns' factors */
    int fbig;      /* a factor above 1/2: |acc x factor + zp| may pass 2^31 (clamped in float) */
    int32_t col, nr;
} panel_q;

/* dup: columns col..col+7 in lanes 0-7 and again in 8-15 (two rows of an 8-column panel per vector). */
static void panel_q_init2(const rt_opt_gemm_params *p, const int32_t *bias, int32_t col, int dup, panel_q *q) {
    q->bias = _mm512_loadu_si512((const void *)(bias + col));
    if (dup) q->bias = _mm512_shuffle_i64x2(q->bias, q->bias, 0x44);
    if (p->rounding == RT_OPT_ROUND_FLOAT) { /* mult / shift unused (float results have none) */
        q->fs = _mm512_loadu_ps(p->fscale + col);
        if (dup) q->fs = _mm512_shuffle_f32x4(q->fs, q->fs, 0x44);
        q->fbig = _mm512_cmp_ps_mask(q->fs, _mm512_set1_ps(0.5f), _CMP_GT_OQ) != 0;
        q->m = q->s = _mm512_setzero_si512();
        memset(&q->k, 0, sizeof q->k);
    } else {
        q->m = _mm512_loadu_si512((const void *)(p->mult + col));
        q->s = _mm512_loadu_si512((const void *)(p->shift + col));
        if (dup) q->m = _mm512_shuffle_i64x2(q->m, q->m, 0x44), q->s = _mm512_shuffle_i64x2(q->s, q->s, 0x44);
        q->k = p->rounding == RT_OPT_ROUND_SINGLE ? rq16_prepare_single_z(q->m, q->s, p->out_offset)
                                                  : rq16_prepare_z(q->m, q->s, p->out_offset);
        q->fs = _mm512_setzero_ps(), q->fbig = 0;
    }
    q->col = col;
    q->nr = p->n - col < NR ? p->n - col : NR;
}

static void panel_q_init(const rt_opt_gemm_params *p, const int32_t *bias, int32_t col, panel_q *q) {
    panel_q_init2(p, bias, col, 0, q);
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
    const __m512i v = p->rounding == RT_OPT_ROUND_SINGLE ? _mm512_add_epi32(rq16_apply_single(acc, &q->k), q->k.post)
                                                          : rq16_apply_z(acc, &q->k);
    _mm512_mask_cvtsepi32_storeu_epi8((void *)dst, (__mmask16)((1u << q->nr) - 1u),
                                      clamp16_i8(v, p->act_qmin, p->act_qmax));
}

/* One panel's store constants, read into locals once per micro-tile: the int8 stores may alias
 * anything, so q_store16's reads of p and q (the rounding mode, the bounds, the column count, the
 * rq16 masks) were repeated for every row, ~30 scalar instructions around each 13 vector ones;
 * with 16 or 24 input channels that bound the 1x1 expansions (MobileNetV2 224 int8's first: 200 us,
 * 90 without any requantization). `fast`: the zero point folded into the rounding (TFLite's double or,
 * FULLY_CONNECTED's, single rounding). */
typedef struct q_ctx {
    rq16 k;
    __m512i lo, hi;
    __mmask16 st;
    int fast, plain, clamp; /* plain: no correction for negative products (single rounding, or see below) */
    int mode;               /* 0: TFLite's integer forms; 1: float requantization (q->fs); 2: float results */
    int fclamp;             /* mode 1: the bounds applied in float (before the conversion) */
    const panel_q *q;       /* modes 1, 2 (store_modes): the factors; their other constants are read from p
                             * where used, not held here (held here, they cost the integer kernels 12-16 %) */
} q_ctx;

/* With a lower bound at or above the zero point (a fused ReLU / ReLU6), the double rounding's correction
 * for negative products can go: without it a negative product still gives q <= 0 (the shifted value of x m
 * + 2^30 + 2^(e-1) 2^31 stays below 1), and every q <= 0 is clamped to the bound either way. */

RT_OPT_INLINE q_ctx q_ctx_make(const rt_opt_gemm_params *p, const panel_q *q) {
    q_ctx x;
    x.k = q->k;
    x.lo = _mm512_set1_epi32(p->act_qmin), x.hi = _mm512_set1_epi32(p->act_qmax);
    x.st = (__mmask16)((1u << q->nr) - 1u);
    x.fast = q->k.folded;
    x.plain = p->rounding == RT_OPT_ROUND_SINGLE || p->act_qmin >= p->out_offset;
    x.clamp = p->act_qmin > -128 || p->act_qmax < 127; /* else the saturating store applies the bounds */
    x.mode = p->out_f32 ? 2 : p->rounding == RT_OPT_ROUND_FLOAT;
    x.q = q;
    /* Bounds within int8 clamp in float or in int32 alike (integers, rounding is monotonic); a factor
     * above 1/2 could take the sum past int32, so those panels clamp before the conversion. */
    x.fclamp = x.mode == 1 && q->fbig;
    if (x.fclamp) x.clamp = 0;
    return x;
}

/* Float results of 16 sums (p->out_f32): x fscale, or fmaf with the residual r (res), clamped to p's
 * act_min / act_max where those bound anything. */
RT_OPT_INLINE __m512 q_f32(const q_ctx *x, const rt_opt_gemm_params *p, __m512i acc, int res, __m512 r) {
    const __m512 a = _mm512_cvtepi32_ps(acc);
    __m512 y = res ? _mm512_fmadd_ps(a, x->q->fs, r) : _mm512_mul_ps(a, x->q->fs);
    if (p->act_min > -3.40282347e+38f || p->act_max < 3.40282347e+38f)
        y = _mm512_min_ps(_mm512_max_ps(y, _mm512_set1_ps(p->act_min)), _mm512_set1_ps(p->act_max));
    return y;
}

/* The float requantization of 16 sums (rt_requant_float), clamped where x says. */
RT_OPT_INLINE __m512i q_float16(const q_ctx *x, const rt_opt_gemm_params *p, __m512i acc) {
    __m512 y = _mm512_fmadd_ps(_mm512_cvtepi32_ps(acc), x->q->fs, _mm512_set1_ps((float)p->out_offset));
    __m512i v;
    if (x->fclamp)
        y = _mm512_min_ps(_mm512_max_ps(y, _mm512_set1_ps((float)p->act_qmin)), _mm512_set1_ps((float)p->act_qmax));
    v = _mm512_cvtps_epi32(y);
    if (x->clamp) v = _mm512_min_epi32(_mm512_max_epi32(v, x->lo), x->hi);
    return v;
}

/* q_store16 through a q_ctx (the general case still goes to q_store16): TFLite's integer forms (mode 0). */
RT_OPT_INLINE void q_store_ctx(const q_ctx *x, const rt_opt_gemm_params *p, const panel_q *q, __m512i acc,
                               int8_t *dst) {
    if (x->fast) {
        __m512i v = x->plain ? rq16_apply_single(acc, &x->k) : rq16_apply(acc, &x->k);
        if (x->clamp) v = _mm512_min_epi32(_mm512_max_epi32(v, x->lo), x->hi);
        _mm512_mask_cvtsepi32_storeu_epi8((void *)dst, x->st, v);
    } else
        q_store16(p, q, acc, dst);
}

/* The float modes' stores (1: requantized in float; 2: float results) of n vectors of one panel's sums,
 * v[i] the row at d + i ldc (ldc in bytes); two: each vector holds two rows of an 8-column panel (lanes 8-15
 * the row ldc further), the second stored unless it is past the tile (last). Not inlined: the kernels call
 * it from a branch beside their integer stores (the modes' code inlined there, tested per store or not,
 * cost the int8 models' kernels 10-30 %). */
static void __attribute__((noinline)) store_modes(const rt_opt_gemm_params *p, const panel_q *q, const __m512i *v,
                                                  int32_t n, int8_t *d, int64_t ldc, int two, int last_two) {
    const q_ctx x = q_ctx_make(p, q);
    const __mmask16 st = x.st, st2 = two ? (__mmask16)(st << 8) : 0;
    const int res = p->residual != NULL;
    int32_t i;
    for (i = 0; i < n; i++, d += (two ? 2 : 1) * ldc) {
        const int second = two && (i + 1 < n || last_two);
        if (x.mode == 2) { /* floats: 4 bytes an element (ldc already so) */
            float *d0 = (float *)(void *)d, *d1 = (float *)(void *)(d + ldc - 32);
            __m512 r = _mm512_setzero_ps();
            if (res) {
                r = _mm512_maskz_loadu_ps(st, res_at(p, d0));
                if (second) r = _mm512_mask_loadu_ps(r, st2, res_at(p, d1));
            }
            r = q_f32(&x, p, v[i], res, r);
            _mm512_mask_storeu_ps(d0, st, r);
            if (second) _mm512_mask_storeu_ps(d1, st2, r);
        } else {
            const __m512i y = q_float16(&x, p, v[i]);
            _mm512_mask_cvtsepi32_storeu_epi8((void *)d, st, y);
            if (second) _mm512_mask_cvtsepi32_storeu_epi8((void *)(d + ldc - 8), st2, y);
        }
    }
}

/* Two rows of an 8-column panel in one vector (lanes 0-7 row r, 8-15 row r + 1; q from panel_q_init2 with
 * dup): requantized once, stored as the first q->nr bytes at d and, two, at d + ldc. */
RT_OPT_INLINE void q_store_two(const q_ctx *x, const rt_opt_gemm_params *p, const panel_q *q, __m512i acc, int8_t *d,
                               int64_t ldc, int two) {
    const __mmask16 st = (__mmask16)((1u << q->nr) - 1u);
    __m512i v;
    if (x->fast) {
        v = x->plain ? rq16_apply_single(acc, &x->k) : rq16_apply(acc, &x->k);
        if (x->clamp) v = _mm512_min_epi32(_mm512_max_epi32(v, x->lo), x->hi);
    } else {
        v = p->rounding == RT_OPT_ROUND_SINGLE ? _mm512_add_epi32(rq16_apply_single(acc, &q->k), q->k.post)
                                               : rq16_apply_z(acc, &q->k);
        v = clamp16_i8(v, p->act_qmin, p->act_qmax);
    }
    _mm512_mask_cvtsepi32_storeu_epi8((void *)d, st, v);
    if (two) _mm512_mask_cvtsepi32_storeu_epi8((void *)(d + ldc - 8), (__mmask16)(st << 8), v);
}

/* q_store_ctx's integer forms for n row vectors v[i] (row i at d + i ldc, ldc in bytes), the rounding and
 * clamp chosen once for all of them. The lone-panel kernel with K >= 48 reduces its 24 accumulators to
 * these n vectors first: requantized in place beside the other 23, each row spilled and reloaded
 * constants and retested the flags (ResNet int8 A/B 1.012-1.017). With smaller K the inline stores stay
 * faster (every lone panel through here: person_detect 0.96, MobileNetV2 0.35 0.99). */
RT_OPT_INLINE void q_rows_k(const int PLAIN, const int CLAMP, const q_ctx *x, const __m512i *v, int32_t n, int8_t *d,
                            int64_t ldc) {
    const rq16 k = x->k;
    const __m512i lo = x->lo, hi = x->hi;
    const __mmask16 st = x->st;
    int32_t i;
    for (i = 0; i < n; i++, d += ldc) {
        __m512i y = PLAIN ? rq16_apply_single(v[i], &k) : rq16_apply(v[i], &k);
        if (CLAMP) y = _mm512_min_epi32(_mm512_max_epi32(y, lo), hi);
        _mm512_mask_cvtsepi32_storeu_epi8((void *)d, st, y);
    }
}

static void __attribute__((noinline)) q_store_rows(const rt_opt_gemm_params *p, const panel_q *q, const __m512i *v,
                                                   int32_t n, int8_t *d, int64_t ldc) {
    const q_ctx x = q_ctx_make(p, q);
    int32_t i;
    if (!x.fast)
        for (i = 0; i < n; i++) q_store16(p, q, v[i], d + i * ldc);
    else if (x.plain)
        x.clamp ? q_rows_k(1, 1, &x, v, n, d, ldc) : q_rows_k(1, 0, &x, v, n, d, ldc);
    else
        x.clamp ? q_rows_k(0, 1, &x, v, n, d, ldc) : q_rows_k(0, 0, &x, v, n, d, ldc);
}

/* R <= 9 rows x two panels (32 columns): per quad of K, 2 loads of 64 bytes,
 * R broadcasts and 2R vpdpbusd; rows past mr repeat row 0 and are not stored
 * (9: a block's last 9 rows in one pass, not 8 and a GEMV: ViT's 17 tokens).
 * One row (GEMV) takes even and odd quads into separate accumulators, so the
 * vpdpbusd do not all wait on each other. */
RT_OPT_INLINE void ukr_s8_p2(const int32_t R, const int FLIP, const int RAW, const rt_opt_a_runs *ar, const uint8_t *const *ap,
                             int32_t mr, const int8_t *b0, const int8_t *b1, const rt_opt_gemm_params *p,
                             const panel_q *q, int8_t *c) {
    const __m512i flip = _mm512_set1_epi8((char)0x80);
    const int32_t kq = ar->quads;
    const int64_t bstep = (int64_t)kq * 4 * NR;
    __m512i d0 = _mm512_setzero_si512(), d1 = d0;
    int32_t kk, run;
#define S8_DECL2(r)                                                                                                 \
    const uint8_t *a##r = ap[(r) < mr ? (r) : 0];                                                               \
    __m512i c##r##0 = q[0].bias, c##r##1 = q[1].bias;
    RT_R9(S8_DECL2)
    for (run = 0; run < ar->n; run++, b0 += bstep, b1 += bstep) {
    kk = 0;
    if (R == 1) {
        for (; kk + 2 <= kq; kk += 2) {
            __m512i va = bcast4(a0 + 4 * kk), vb = bcast4(a0 + 4 * kk + 4);
            if (FLIP) va = _mm512_xor_si512(va, flip), vb = _mm512_xor_si512(vb, flip);
            RT_DPBUSD(c00, va, _mm512_loadu_si512((const void *)(b0 + (int64_t)kk * 4 * NR)));
            RT_DPBUSD(c01, va, _mm512_loadu_si512((const void *)(b1 + (int64_t)kk * 4 * NR)));
            RT_DPBUSD(d0, vb, _mm512_loadu_si512((const void *)(b0 + (int64_t)(kk + 1) * 4 * NR)));
            RT_DPBUSD(d1, vb, _mm512_loadu_si512((const void *)(b1 + (int64_t)(kk + 1) * 4 * NR)));
        }
    }
    for (; kk < kq; kk++) {
        const __m512i x0 = _mm512_loadu_si512((const void *)(b0 + (int64_t)kk * 4 * NR));
        const __m512i x1 = _mm512_loadu_si512((const void *)(b1 + (int64_t)kk * 4 * NR));
#define S8_STEP2(r)                                                                                                 \
    if ((r) < R) {                                                                                                  \
        __m512i va = bcast4(a##r + 4 * kk);                                                                         \
        if (FLIP) va = _mm512_xor_si512(va, flip);                                                                  \
        RT_DPBUSD(c##r##0, va, x0);                                                                                 \
        RT_DPBUSD(c##r##1, va, x1);                                                                                 \
    }
        RT_R9(S8_STEP2)
    }
#define S8_NEXT(r) a##r += ar->step;
    RT_R9(S8_NEXT)
#undef S8_NEXT
    }
    if (R == 1) c00 = _mm512_add_epi32(c00, d0), c01 = _mm512_add_epi32(c01, d1);
    if (RAW) { /* the int32 sums (bias included) at int32 columns q[h].col of c's rows; a lone panel as q[1] = q[0] */
        int32_t *const e0 = (int32_t *)(void *)c + q[0].col, *const e1 = (int32_t *)(void *)c + q[1].col;
        const int two = q[1].col != q[0].col;
        const int64_t ldc = p->ldc;
#define S8_RAW2(r)                                                                                                  \
    if ((r) < R && (r) < mr) {                                                                                      \
        _mm512_storeu_si512((void *)(e0 + (int64_t)(r) * ldc), c##r##0);                                            \
        if (two) _mm512_storeu_si512((void *)(e1 + (int64_t)(r) * ldc), c##r##1);                                   \
    }
        RT_R9(S8_RAW2)
#undef S8_RAW2
    } else {
        const int64_t es = c_size(p), ldc = p->ldc * es;
        int8_t *const d0 = c + q[0].col * es, *const d1 = c + q[1].col * es;
        if (p->rounding == RT_OPT_ROUND_FLOAT) { /* mpcc's float forms: the sums to store_modes */
            __m512i t0[R], t1[R];
            const int32_t n = mr < R ? mr : R;
#define S8_T2(r)                                                                                                    \
    if ((r) < R) t0[r] = c##r##0, t1[r] = c##r##1;
            RT_R9(S8_T2)
#undef S8_T2
            store_modes(p, &q[0], t0, n, d0, ldc, 0, 0);
            if (q[1].col != q[0].col) store_modes(p, &q[1], t1, n, d1, ldc, 0, 0);
            return;
        }
        const q_ctx x0 = q_ctx_make(p, &q[0]), x1 = q_ctx_make(p, &q[1]);
#define S8_STORE2(r)                                                                                                \
    if ((r) < R && (r) < mr) {                                                                                      \
        q_store_ctx(&x0, p, &q[0], c##r##0, d0 + (int64_t)(r) * ldc);                                               \
        q_store_ctx(&x1, p, &q[1], c##r##1, d1 + (int64_t)(r) * ldc);                                               \
    }
        RT_R9(S8_STORE2)
    }
#undef S8_DECL2
#undef S8_STEP2
#undef S8_STORE2
}
#define RT_S8_P2(R, F)                                                                                              \
    static void ukr_s8_q2_##R##_##F(const rt_opt_a_runs *ar, const uint8_t *const *ap, int32_t mr, const int8_t *b0,  \
                                    const int8_t *b1, const rt_opt_gemm_params *p, const panel_q *q, int8_t *c) { \
        ukr_s8_p2(R, F, 0, ar, ap, mr, b0, b1, p, q, c);                                                         \
    }
RT_S8_P2(1, 0)
RT_S8_P2(2, 0)
RT_S8_P2(4, 0)
RT_S8_P2(8, 0)
RT_S8_P2(9, 0)
RT_S8_P2(1, 1)
RT_S8_P2(2, 1)
RT_S8_P2(4, 1)
RT_S8_P2(8, 1)
RT_S8_P2(9, 1)
/* int32 sums of int8 rows (flipped in registers): the attention's scores */
#define RT_S8_RAW(R)                                                                                                \
    static void ukr_s8_raw_##R(const rt_opt_a_runs *ar, const uint8_t *const *ap, int32_t mr, const int8_t *b0,        \
                               const int8_t *b1, const rt_opt_gemm_params *p, const panel_q *q, int8_t *c) {     \
        ukr_s8_p2(R, 1, 1, ar, ap, mr, b0, b1, p, q, c);                                                         \
    }
RT_S8_RAW(1)
RT_S8_RAW(2)
RT_S8_RAW(4)
RT_S8_RAW(8)
RT_S8_RAW(9)
/* The two-panel kernels (and their raw-sum twins) come in 1, 2, 4, 8 and 9 rows: the slot of the
 * smallest that holds mr rows. */
typedef void (*ukr_s8_2)(const rt_opt_a_runs *, const uint8_t *const *, int32_t, const int8_t *, const int8_t *,
                         const rt_opt_gemm_params *, const panel_q *, int8_t *);
static int32_t rows_slot(int32_t mr) { return mr <= 1 ? 0 : mr <= 2 ? 1 : mr <= 4 ? 2 : mr <= 8 ? 3 : 4; }

/* The two-panel kernel for mr rows (flip: A is int8, +128 added in registers). */
static void ukr_s8_q2(int flip, const rt_opt_a_runs *ar, const uint8_t *const *ap, int32_t mr, const int8_t *b0,
                      const int8_t *b1, const rt_opt_gemm_params *p, const panel_q *q, int8_t *c) {
    static const ukr_s8_2 k[2][5] = {{ukr_s8_q2_1_0, ukr_s8_q2_2_0, ukr_s8_q2_4_0, ukr_s8_q2_8_0, ukr_s8_q2_9_0},
                                     {ukr_s8_q2_1_1, ukr_s8_q2_2_1, ukr_s8_q2_4_1, ukr_s8_q2_8_1, ukr_s8_q2_9_1}};
    k[flip != 0][rows_slot(mr)](ar, ap, mr, b0, b1, p, q, c);
}

/* R <= 12 rows x one panel (a lone last panel, or N <= 16). One B vector per
 * quad of K against a broadcast of A per vpdpbusd made the loads the limit,
 * so the quads go two at a time: one 8-byte broadcast of A feeds two vpdpbusd
 * against the panel's quad rows kk and kk + 1 interleaved in registers (lo:
 * columns 0-7, hi: 8-15; even lanes quad kk, odd lanes kk + 1), and the two
 * int32 halves of each column's sum are added (exactly) before the
 * requantization. An odd last quad meets zeros in the odd lanes. */
RT_OPT_INLINE void ukr_s8_p1(const int32_t R, const int FLIP, const int HALF, const rt_opt_a_runs *ar,
                             const uint8_t *const *ap, int32_t mr, const int8_t *b0, const rt_opt_gemm_params *p,
                             const panel_q *q, int8_t *c) {
    const __m512i flip = _mm512_set1_epi8((char)0x80);
    const __m512i ilo = rt_zip_lo();
    const __m512i ihi = rt_zip_hi();
    const __m512i z = _mm512_setzero_si512();
    const __m512i bl = _mm512_permutex2var_epi32(q->bias, ilo, z), bh = _mm512_permutex2var_epi32(q->bias, ihi, z);
    const int32_t kq = ar->quads;
    int32_t kk, run;
#define S8_DECL1(r)                                                                                                 \
    const uint8_t *a##r = ap[(r) < mr ? (r) : 0];                                                               \
    __m512i c##r##l = bl, c##r##h = bh;
    RT_R12(S8_DECL1)
    for (run = 0; run < ar->n; run++, b0 += (int64_t)kq * 4 * NR) {
    for (kk = 0; kk + 2 <= kq; kk += 2) {
        const __m512i x0 = _mm512_loadu_si512((const void *)(b0 + (int64_t)kk * 4 * NR));
        const __m512i x1 = _mm512_loadu_si512((const void *)(b0 + (int64_t)(kk + 1) * 4 * NR));
        const __m512i xl = _mm512_permutex2var_epi32(x0, ilo, x1), xh = _mm512_permutex2var_epi32(x0, ihi, x1);
#define S8_STEP1(r)                                                                                                 \
    if ((r) < R) {                                                                                                  \
        __m512i va = _mm512_broadcastq_epi64(_mm_loadl_epi64((const __m128i *)(const void *)(a##r + 4 * kk)));       \
        if (FLIP) va = _mm512_xor_si512(va, flip);                                                                  \
        RT_DPBUSD(c##r##l, va, xl);                                                                                 \
        if (!HALF) RT_DPBUSD(c##r##h, va, xh);                                                                      \
    }
        RT_R12(S8_STEP1)
#undef S8_STEP1
    }
    if (kk < kq) {
        const __m512i x0 = _mm512_loadu_si512((const void *)(b0 + (int64_t)kk * 4 * NR));
        const __m512i xl = _mm512_maskz_permutexvar_epi32((__mmask16)0x5555, ilo, x0);
        const __m512i xh =
            _mm512_maskz_permutexvar_epi32((__mmask16)0x5555, _mm512_and_si512(ihi, _mm512_set1_epi32(15)), x0);
#define S8_STEP1(r)                                                                                                 \
    if ((r) < R) {                                                                                                  \
        __m512i va = bcast4(a##r + 4 * kk);                                                                         \
        if (FLIP) va = _mm512_xor_si512(va, flip);                                                                  \
        RT_DPBUSD(c##r##l, va, xl);                                                                                 \
        if (!HALF) RT_DPBUSD(c##r##h, va, xh);                                                                      \
    }
        RT_R12(S8_STEP1)
#undef S8_STEP1
    }
#define S8_NEXT(r) a##r += ar->step;
    RT_R12(S8_NEXT)
#undef S8_NEXT
    }
    {
        const __m512i iev = rt_unzip_even();
        const __m512i iod = rt_unzip_odd();
        const int64_t es = c_size(p), ldc = p->ldc * es;
        int8_t *const d0 = c + q->col * es;
        if (p->rounding == RT_OPT_ROUND_FLOAT) { /* mpcc's float forms: the sums to store_modes */
            __m512i t[R];
            int32_t n = 0;
            if (HALF) { /* rows r, r + 1 in one vector */
#define S8_T1H(r, s)                                                                                                \
    if ((r) < R && (r) < mr)                                                                                        \
        t[n++] = _mm512_add_epi32(_mm512_permutex2var_epi32(c##r##l, iev, c##s##l),                                \
                                  _mm512_permutex2var_epi32(c##r##l, iod, c##s##l));
                S8_T1H(0, 1) S8_T1H(2, 3) S8_T1H(4, 5) S8_T1H(6, 7) S8_T1H(8, 9) S8_T1H(10, 11)
#undef S8_T1H
                store_modes(p, q, t, n, d0, ldc, 1, !(mr & 1));
            } else {
#define S8_T1(r)                                                                                                    \
    if ((r) < R && (r) < mr)                                                                                        \
        t[n++] = _mm512_add_epi32(_mm512_permutex2var_epi32(c##r##l, iev, c##r##h),                                \
                                  _mm512_permutex2var_epi32(c##r##l, iod, c##r##h));
                RT_R12(S8_T1)
#undef S8_T1
                store_modes(p, q, t, n, d0, ldc, 0, 0);
            }
            return;
        }
        if (!HALF && ar->n * ar->quads >= 12) { /* the rows' sums, then their stores (q_store_rows) */
            __m512i t[R];
            int32_t n = 0;
#define S8_T1(r)                                                                                                    \
    if ((r) < R && (r) < mr)                                                                                        \
        t[n++] = _mm512_add_epi32(_mm512_permutex2var_epi32(c##r##l, iev, c##r##h),                                \
                                  _mm512_permutex2var_epi32(c##r##l, iod, c##r##h));
            RT_R12(S8_T1)
#undef S8_T1
            q_store_rows(p, q, t, n, d0, ldc);
            return;
        }
        const q_ctx x0 = q_ctx_make(p, q);
/* HALF (N <= 8): rows r and r + 1 (r even) in one vector */
#define S8_STORE_TWO(r, s)                                                                                          \
    if ((r) < R && (r) < mr)                                                                                        \
        q_store_two(&x0, p, q,                                                                                      \
                    _mm512_add_epi32(_mm512_permutex2var_epi32(c##r##l, iev, c##s##l),                              \
                                     _mm512_permutex2var_epi32(c##r##l, iod, c##s##l)),                             \
                    d0 + (int64_t)(r) * ldc, ldc, (s) < mr);
#define S8_STORE1(r)                                                                                                \
    if ((r) < R && (r) < mr)                                                                                        \
        q_store_ctx(&x0, p, q,                                                                                      \
                    _mm512_add_epi32(_mm512_permutex2var_epi32(c##r##l, iev, c##r##h),                              \
                                     _mm512_permutex2var_epi32(c##r##l, iod, c##r##h)),                             \
                    d0 + (int64_t)(r) * ldc);
        if (HALF) {
            S8_STORE_TWO(0, 1) S8_STORE_TWO(2, 3) S8_STORE_TWO(4, 5) S8_STORE_TWO(6, 7) S8_STORE_TWO(8, 9)
            S8_STORE_TWO(10, 11)
        } else {
            RT_R12(S8_STORE1)
        }
#undef S8_STORE_TWO
#undef S8_STORE1
    }
#undef S8_DECL1
}
#define MR_S8_1 12
#define RT_S8_P1(R, F)                                                                                              \
    static void ukr_s8_q1_##R##_##F(const rt_opt_a_runs *ar, const uint8_t *const *ap, int32_t mr, const int8_t *b0,  \
                                    const rt_opt_gemm_params *p, const panel_q *q, int8_t *c) {                  \
        if (q->nr <= 8) ukr_s8_p1(R, F, 1, ar, ap, mr, b0, p, q, c);                                             \
        else ukr_s8_p1(R, F, 0, ar, ap, mr, b0, p, q, c);                                                        \
    }
RT_S8_P1(1, 0)
RT_S8_P1(4, 0)
RT_S8_P1(8, 0)
RT_S8_P1(12, 0)
RT_S8_P1(1, 1)
RT_S8_P1(4, 1)
RT_S8_P1(8, 1)
RT_S8_P1(12, 1)
/* The lone-panel kernel for mr rows: the smallest of 1, 4, 8 or 12 rows that holds them. */
static void ukr_s8_q1(int flip, const rt_opt_a_runs *ar, const uint8_t *const *ap, int32_t mr, const int8_t *b0,
                      const rt_opt_gemm_params *p, const panel_q *q, int8_t *c) {
    if (flip)
        (mr <= 1 ? ukr_s8_q1_1_1 : mr <= 4 ? ukr_s8_q1_4_1 : mr <= 8 ? ukr_s8_q1_8_1 : ukr_s8_q1_12_1)(ar, ap, mr, b0, p,
                                                                                                    q, c);
    else
        (mr <= 1 ? ukr_s8_q1_1_0 : mr <= 4 ? ukr_s8_q1_4_0 : mr <= 8 ? ukr_s8_q1_8_0 : ukr_s8_q1_12_0)(ar, ap, mr, b0, p,
                                                                                                    q, c);
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

#if defined(RT_OPT_S8_VNNI)
/* Where rows i..i+n of s start: s->ptr + i, or ap filled. */
static const uint8_t *const *tile_rows(const rt_opt_a_rows *s, int32_t i, int32_t n, const uint8_t **ap) {
    int32_t r;
    if (s->ptr) return s->ptr + i;
    for (ap[0] = s->a + (int64_t)i * s->lda, r = 1; r < n; r++) ap[r] = ap[r - 1] + s->lda; /* (see rt_opt_gemm.c) */
    return ap;
}

/* Rows 0..m of C, the columns of panels j and j + 1 (j alone when it is the last), requantized in
 * registers; A's rows as src says (flip: int8 bytes, +128 added in registers). */
void rt_opt_s8_pair_rows(const rt_opt_gemm_params *p, int32_t j, int flip, int32_t m, const rt_opt_a_rows *src,
                         const int8_t *packed_b, const int32_t *bias, int8_t *c) {
    const int32_t kq = K4(p->k) / 4, halves = (j + 1) * NR < p->n ? 2 : 1;
    const int8_t *b0 = packed_b + (int64_t)j * kq * 4 * NR, *b1 = halves == 2 ? b0 + (int64_t)kq * 4 * NR : b0;
    const uint8_t *ap[MR_S8_1];
    panel_q q[2];
    int32_t i, mr;
    panel_q_init2(p, bias, j * NR, halves == 1 && p->n - j * NR <= 8, &q[0]); /* <= 8 columns: two rows a vector */
    if (halves == 2) panel_q_init(p, bias, (j + 1) * NR, &q[1]);
    if (halves == 1)
        for (i = 0; i < m; i += MR_S8_1) {
            mr = m - i < MR_S8_1 ? m - i : MR_S8_1;
            ukr_s8_q1(flip, &src->runs, tile_rows(src, i, mr, ap), mr, b0, p, q, c + (int64_t)i * p->ldc * c_size(p));
        }
    else
        for (i = 0; i < m; i += mr) {
            mr = rt_opt_next_rows(m - i, MR_S8, MR_S8 + 1);
            ukr_s8_q2(flip, &src->runs, tile_rows(src, i, mr, ap), mr, b0, b1, p, q,
                      c + (int64_t)i * p->ldc * c_size(p));
        }
}

void rt_opt_s8_pairs_rows(const rt_opt_gemm_params *p, int32_t j0, int32_t j1, int flip, int32_t m,
                          const rt_opt_a_rows *src, const int8_t *packed_b, const int32_t *bias, int8_t *c) {
    int32_t j;
    for (j = j0; j < j1; j += 2) rt_opt_s8_pair_rows(p, j, flip, m, src, packed_b, bias, c);
}

#endif

#if defined(RT_A64)
/* (Declared in rt_opt_internal.h.) Where a panel's shifts allow and there is no per-row term or
 * float output, the tiles requantize in registers, starting from bias + 128 * colsum (one pass over
 * the panel a call): 4-row tiles while two or more rows remain, a last single row on the 1-row tile;
 * else they store int32 sums for store_tile. */
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
            rt_a64_s8_init(kq, bp, bias + col, init);
            for (i = 0; i + MR_S8 <= m || (i < m && m - i > 1); i += MR_S8)
                rt_a64_s8_tile_rq(kq, a + (int64_t)i * lda, lda, m - i < MR_S8 ? m - i : MR_S8, flip, bp, init, &q,
                                  c + (int64_t)i * p->ldc + col, p->ldc, nr);
            if (i < m) rt_a64_s8_tile_rq1(kq, a + (int64_t)i * lda, flip, bp, init, &q, c + (int64_t)i * p->ldc + col, nr);
            continue;
        }
        rt_a64_s8_init(kq, bp, NULL, init);
        for (i = 0; i < m; i += MR_S8) {
            int32_t mr = m - i < MR_S8 ? m - i : MR_S8;
            rt_a64_s8_tile(kq, a + (int64_t)i * lda, lda, mr, flip, bp, init, acc);
            add_rows(acc, mr, row_add ? row_add + i : NULL);
            store_tile(p, acc, mr, bias, col, c + ((int64_t)i * p->ldc + col) * c_size(p), nr, vec);
        }
    }
}
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
                store_tile(p, acc16[h], 16, bias, col, c + ((int64_t)i * p->ldc + col) * c_size(p), nr, vec[h]);
            }
        }
#endif
        if (!row_add && vec[0] && (halves == 1 || vec[1])) { /* requantized in registers */
            const rt_opt_a_rows src = rt_opt_s8_gemm_rows(a8 + (int64_t)m16 * lda8, lda8, p->k);
            rt_opt_s8_pair_rows(p, j, 0, m - m16, &src, packed_b, bias, c + (int64_t)m16 * p->ldc * c_size(p));
            continue;
        }
        for (i = m16; i < m; i += MR_S8) {
            int32_t mr = m - i < MR_S8 ? m - i : MR_S8;
            ukr_u8_vnni(kq, a8 + (int64_t)i * lda8, lda8, mr, b0, b1, acc2[0], acc2[1]);
            for (h = 0; h < halves; h++) {
                int32_t col = (j + h) * NR, nr = p->n - col < NR ? p->n - col : NR;
                add_rows(acc2[h], mr, row_add ? row_add + i : NULL);
                store_tile(p, acc2[h], mr, bias, col, c + ((int64_t)i * p->ldc + col) * c_size(p), nr, vec[h]);
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
            add_rows(acc, mr, row_add ? row_add + i : NULL);
            store_tile(p, acc, mr, bias, col, c + ((int64_t)i * p->ldc + col) * c_size(p), nr, vec);
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
                                 (int8_t *)j->c + (int64_t)i * p->ldc * c_size(p));
            continue;
        }
#elif defined(RT_A64)
        if (p->k % 4 == 0) { /* A's int8 rows read in place (whole quads), not widened into a copy first */
            rt_opt_s8_a64_gemm(p, mr, (const uint8_t *)j->a + (int64_t)i * p->lda, p->lda, 0, (const int8_t *)j->b,
                               (const int32_t *)j->bias, (int8_t *)j->c + (int64_t)i * p->ldc * c_size(p), NULL);
            continue;
        }
#elif defined(RT_OPT_AVX2)
        if (rt_opt_s8_avx2_applies(p)) { /* A's int8 rows widened by the kernel, not copied first */
            rt_opt_s8_avx2_gemm(p, mr, (const uint8_t *)j->a + (int64_t)i * p->lda, p->lda, 1, (const int8_t *)j->b,
                                (const int32_t *)j->bias, (int8_t *)j->c + (int64_t)i * p->ldc * c_size(p));
            continue;
        }
#endif
        rt_opt_s8_widen_rows((const int8_t *)j->a + (int64_t)i * p->lda, p->lda, mr, p->k, a8);
        rt_opt_s8_gemm_u8(p, mr, a8, K4(p->k), (const int8_t *)j->b, (const int32_t *)j->bias,
                (int8_t *)j->c + (int64_t)i * p->ldc * c_size(p), NULL);
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

/* ---- int32 products of int8 rows: the fused attention's scores on int8 Q and K (rt_opt_attention.c) */

#if defined(RT_OPT_S8_VNNI)
void rt_opt_scores_s8(int32_t m, int32_t panels, int32_t kq, const int8_t *a, int32_t lda, const int8_t *b,
                      const int32_t *bias, int32_t *c, int32_t ldc) {
    rt_opt_gemm_params g;
    panel_q q[2];
    const rt_opt_a_rows src = rt_opt_s8_gemm_rows((const uint8_t *)a, lda, 4 * kq);
    static const ukr_s8_2 raw[5] = {ukr_s8_raw_1, ukr_s8_raw_2, ukr_s8_raw_4, ukr_s8_raw_8, ukr_s8_raw_9};
    int32_t jp, i, mr;
    /* the raw-sum kernels read only g.ldc and each panel's bias and col: clearing the rest (1.5 KB a call)
     * was a fifth of a 17-key tile's scores */
    g.ldc = ldc;
    for (jp = 0; jp < panels; jp += 2) {
        const int8_t *b0 = b + (int64_t)jp * kq * 4 * NR, *b1 = jp + 1 < panels ? b0 + (int64_t)kq * 4 * NR : b0;
        q[0].bias = _mm512_loadu_si512((const void *)(bias + jp * NR));
        q[0].col = jp * NR;
        q[1].bias = q[0].bias, q[1].col = q[0].col;
        if (jp + 1 < panels) {
            q[1].bias = _mm512_loadu_si512((const void *)(bias + (jp + 1) * NR));
            q[1].col = (jp + 1) * NR;
        }
        for (i = 0; i < m; i += mr) { /* a block's last 9 rows in one pass (ViT's 17 tokens: 8 + 9, not 8 + 8 + 1) */
            const uint8_t *ap[MR_S8 + 1];
            int8_t *ci = (int8_t *)(void *)(c + (int64_t)i * ldc);
            mr = rt_opt_next_rows(m - i, MR_S8, MR_S8 + 1);
            raw[rows_slot(mr)](&src.runs, tile_rows(&src, i, mr, ap), mr, b0, b1, &g, q, ci);
        }
    }
}
#endif
