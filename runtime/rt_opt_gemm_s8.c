/* rt_opt_gemm_s8.c - the int8 GEMM (VNNI / AMX / AVX2 / C micro-kernels with the exact
 * TFLite requantization in the epilogue), int8 convolution as GEMM over +128 im2col rows,
 * and int8 BATCH_MATMUL. The shared convolution driver is in rt_opt_gemm.c. */
#include <string.h>

#include "mpcc_rt.h"
#include "rt_opt.h"
#include "rt_opt_internal.h"

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

/* The padded image's rows and columns (rt_opt_conv_s8_padded_bytes): the padding before, the image, and
 * as much after it as the last patch reaches. */
static void padded_dims(int32_t in_h, int32_t in_w, int32_t out_h, int32_t out_w, int32_t fh, int32_t fw, int32_t sh,
                        int32_t sw, int32_t ph, int32_t pw, int64_t *hp, int64_t *wp) {
    const int64_t ry = (int64_t)(out_h - 1) * sh + fh, rx = (int64_t)(out_w - 1) * sw + fw;
    *hp = ry > (int64_t)in_h + ph ? ry : (int64_t)in_h + ph;
    *wp = rx > (int64_t)in_w + pw ? rx : (int64_t)in_w + pw;
}

static int panel_vec(const rt_opt_gemm_params *p, int32_t col) {
    int32_t r, vec = 1;
    for (r = 0; r < NR; r++) vec &= p->shift[col + r] <= 0 && p->shift[col + r] >= -31;
    return vec;
}

#if defined(RT_OPT_S8_VNNI)
#define MR_S8 8
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
    q->k = p->rounding == RT_OPT_ROUND_SINGLE ? rq16_prepare_single_z(q->m, q->s, p->out_offset)
                                              : rq16_prepare_z(q->m, q->s, p->out_offset);
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

/* Where a micro-tile's A rows are: row r at ap[r] (rows past mr repeat row 0), K as `n` runs of `quads`
 * quads, run s of a row `step` bytes after run s - 1 (a GEMM: one run of K4 / 4 quads; a convolution read
 * from its padded image: one run of filter_w x in_c bytes per filter row, `step` one image row). B's
 * quads stay contiguous across the runs. */
typedef struct a_runs {
    int32_t n, quads;
    int64_t step;
} a_runs;

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
    int fast, single, clamp;
} q_ctx;

RT_OPT_INLINE q_ctx q_ctx_make(const rt_opt_gemm_params *p, const panel_q *q) {
    q_ctx x;
    x.k = q->k;
    x.lo = _mm512_set1_epi32(p->act_qmin), x.hi = _mm512_set1_epi32(p->act_qmax);
    x.st = (__mmask16)((1u << q->nr) - 1u);
    x.fast = q->k.folded;
    x.single = p->rounding == RT_OPT_ROUND_SINGLE;
    x.clamp = p->act_qmin > -128 || p->act_qmax < 127; /* else the saturating store applies the bounds */
    return x;
}

/* q_store16 through a q_ctx (the general case still goes to q_store16). */
RT_OPT_INLINE void q_store_ctx(const q_ctx *x, const rt_opt_gemm_params *p, const panel_q *q, __m512i acc,
                               int8_t *dst) {
    if (x->fast) {
        __m512i v = x->single ? rq16_apply_single(acc, &x->k) : rq16_apply(acc, &x->k);
        if (x->clamp) v = _mm512_min_epi32(_mm512_max_epi32(v, x->lo), x->hi);
        _mm512_mask_cvtsepi32_storeu_epi8((void *)dst, x->st, v);
    } else
        q_store16(p, q, acc, dst);
}

/* R <= 8 rows x two panels (32 columns): per quad of K, 2 loads of 64 bytes,
 * R broadcasts and 2R vpdpbusd; rows past mr repeat row 0 and are not stored.
 * One row (GEMV) takes even and odd quads into separate accumulators, so the
 * vpdpbusd do not all wait on each other. */
RT_OPT_INLINE void ukr_s8_p2(const int32_t R, const int FLIP, const int RAW, const a_runs *ar, const uint8_t *const *ap,
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
    RT_R8(S8_DECL2)
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
        RT_R8(S8_STEP2)
    }
#define S8_NEXT(r) a##r += ar->step;
    RT_R8(S8_NEXT)
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
        RT_R8(S8_RAW2)
#undef S8_RAW2
    } else {
        const q_ctx x0 = q_ctx_make(p, &q[0]), x1 = q_ctx_make(p, &q[1]);
        const int64_t ldc = p->ldc;
        int8_t *const d0 = c + q[0].col, *const d1 = c + q[1].col;
#define S8_STORE2(r)                                                                                                \
    if ((r) < R && (r) < mr) {                                                                                      \
        q_store_ctx(&x0, p, &q[0], c##r##0, d0 + (int64_t)(r) * ldc);                                               \
        q_store_ctx(&x1, p, &q[1], c##r##1, d1 + (int64_t)(r) * ldc);                                               \
    }
        RT_R8(S8_STORE2)
    }
#undef S8_DECL2
#undef S8_STEP2
#undef S8_STORE2
}
#define RT_S8_P2(R, F)                                                                                              \
    static void ukr_s8_q2_##R##_##F(const a_runs *ar, const uint8_t *const *ap, int32_t mr, const int8_t *b0,  \
                                    const int8_t *b1, const rt_opt_gemm_params *p, const panel_q *q, int8_t *c) { \
        ukr_s8_p2(R, F, 0, ar, ap, mr, b0, b1, p, q, c);                                                         \
    }
RT_S8_P2(1, 0)
RT_S8_P2(2, 0)
RT_S8_P2(4, 0)
RT_S8_P2(8, 0)
RT_S8_P2(1, 1)
RT_S8_P2(2, 1)
RT_S8_P2(4, 1)
RT_S8_P2(8, 1)
/* int32 sums of int8 rows (flipped in registers): the attention's scores */
#define RT_S8_RAW(R)                                                                                                \
    static void ukr_s8_raw_##R(const a_runs *ar, const uint8_t *const *ap, int32_t mr, const int8_t *b0,        \
                               const int8_t *b1, const rt_opt_gemm_params *p, const panel_q *q, int8_t *c) {     \
        ukr_s8_p2(R, 1, 1, ar, ap, mr, b0, b1, p, q, c);                                                         \
    }
RT_S8_RAW(1)
RT_S8_RAW(2)
RT_S8_RAW(4)
RT_S8_RAW(8)
/* The two-panel kernel for mr rows: the smallest of 1, 2, 4 or 8 rows that holds them (flip: A is int8,
 * +128 added in registers). */
static void ukr_s8_q2(int flip, const a_runs *ar, const uint8_t *const *ap, int32_t mr, const int8_t *b0,
                      const int8_t *b1, const rt_opt_gemm_params *p, const panel_q *q, int8_t *c) {
    if (flip)
        (mr <= 1 ? ukr_s8_q2_1_1 : mr <= 2 ? ukr_s8_q2_2_1 : mr <= 4 ? ukr_s8_q2_4_1 : ukr_s8_q2_8_1)(ar, ap, mr, b0, b1,
                                                                                                   p, q, c);
    else
        (mr <= 1 ? ukr_s8_q2_1_0 : mr <= 2 ? ukr_s8_q2_2_0 : mr <= 4 ? ukr_s8_q2_4_0 : ukr_s8_q2_8_0)(ar, ap, mr, b0, b1,
                                                                                                   p, q, c);
}

/* R <= 12 rows x one panel (a lone last panel, or N <= 16). One B vector per
 * quad of K against a broadcast of A per vpdpbusd made the loads the limit,
 * so the quads go two at a time: one 8-byte broadcast of A feeds two vpdpbusd
 * against the panel's quad rows kk and kk + 1 interleaved in registers (lo:
 * columns 0-7, hi: 8-15; even lanes quad kk, odd lanes kk + 1), and the two
 * int32 halves of each column's sum are added (exactly) before the
 * requantization. An odd last quad meets zeros in the odd lanes. */
#define RT_R12(X) RT_R8(X) X(8) X(9) X(10) X(11)
RT_OPT_INLINE void ukr_s8_p1(const int32_t R, const int FLIP, const a_runs *ar, const uint8_t *const *ap, int32_t mr,
                             const int8_t *b0, const rt_opt_gemm_params *p, const panel_q *q, int8_t *c) {
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
        RT_DPBUSD(c##r##h, va, xh);                                                                                 \
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
        RT_DPBUSD(c##r##h, va, xh);                                                                                 \
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
        const q_ctx x0 = q_ctx_make(p, q);
        const int64_t ldc = p->ldc;
        int8_t *const d0 = c + q->col;
#define S8_STORE1(r)                                                                                                \
    if ((r) < R && (r) < mr)                                                                                        \
        q_store_ctx(&x0, p, q,                                                                                      \
                    _mm512_add_epi32(_mm512_permutex2var_epi32(c##r##l, iev, c##r##h),                              \
                                     _mm512_permutex2var_epi32(c##r##l, iod, c##r##h)),                             \
                    d0 + (int64_t)(r) * ldc);
        RT_R12(S8_STORE1)
    }
#undef S8_DECL1
#undef S8_STORE1
}
#define MR_S8_1 12
#define RT_S8_P1(R, F)                                                                                              \
    static void ukr_s8_q1_##R##_##F(const a_runs *ar, const uint8_t *const *ap, int32_t mr, const int8_t *b0,  \
                                    const rt_opt_gemm_params *p, const panel_q *q, int8_t *c) {                  \
        ukr_s8_p1(R, F, ar, ap, mr, b0, p, q, c);                                                                \
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
static void ukr_s8_q1(int flip, const a_runs *ar, const uint8_t *const *ap, int32_t mr, const int8_t *b0,
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

#if defined(RT_OPT_S8_VNNI)
/* The rows of A for pair_rows: row i at a + i * lda (a GEMM) or, ptr set, at ptr[i] (a convolution's
 * patches read in place). */
typedef struct a_rows {
    const uint8_t *a;
    int64_t lda;
    a_runs runs;
    const uint8_t *const *ptr;
} a_rows;

static a_rows gemm_rows(const uint8_t *a, int64_t lda, int32_t k) {
    a_rows s;
    s.a = a, s.lda = lda, s.runs.n = 1, s.runs.quads = K4(k) / 4, s.runs.step = 0, s.ptr = NULL;
    return s;
}

/* Where rows i..i+n of s start: s->ptr + i, or ap filled. */
static const uint8_t *const *tile_rows(const a_rows *s, int32_t i, int32_t n, const uint8_t **ap) {
    int32_t r;
    if (s->ptr) return s->ptr + i;
    for (r = 0; r < n; r++) ap[r] = s->a + (int64_t)(i + r) * s->lda;
    return ap;
}

/* ap[0..n): the patches of output pixels m..m+n of p read from image a (padding none or in a). */
static void patch_rows(const rt_opt_conv_params *p, const uint8_t *a, int32_t m, int32_t n, const uint8_t **ap) {
    const int64_t ys = (int64_t)p->stride_h * p->in_w * p->in_c, xs = (int64_t)p->stride_w * p->in_c;
    int32_t oy = m / p->out_w, ox = m % p->out_w, r;
    for (r = 0; r < n; r++) {
        ap[r] = a + oy * ys + ox * xs;
        if (++ox == p->out_w) ox = 0, oy++;
    }
}

/* Rows 0..m of C, the columns of panels j and j + 1 (j alone when it is the last), requantized in
 * registers; A's rows as src says (flip: int8 bytes, +128 added in registers). */
static void pair_rows(const rt_opt_gemm_params *p, int32_t j, int flip, int32_t m, const a_rows *src,
                      const int8_t *packed_b, const int32_t *bias, int8_t *c) {
    const int32_t kq = K4(p->k) / 4, halves = (j + 1) * NR < p->n ? 2 : 1;
    const int8_t *b0 = packed_b + (int64_t)j * kq * 4 * NR, *b1 = halves == 2 ? b0 + (int64_t)kq * 4 * NR : b0;
    const uint8_t *ap[MR_S8_1];
    panel_q q[2];
    int32_t i, mr;
    panel_q_init(p, bias, j * NR, &q[0]);
    if (halves == 2) panel_q_init(p, bias, (j + 1) * NR, &q[1]);
    if (halves == 1)
        for (i = 0; i < m; i += MR_S8_1) {
            mr = m - i < MR_S8_1 ? m - i : MR_S8_1;
            ukr_s8_q1(flip, &src->runs, tile_rows(src, i, mr, ap), mr, b0, p, q, c + (int64_t)i * p->ldc);
        }
    else
        for (i = 0; i < m; i += MR_S8) {
            mr = m - i < MR_S8 ? m - i : MR_S8;
            ukr_s8_q2(flip, &src->runs, tile_rows(src, i, mr, ap), mr, b0, b1, p, q, c + (int64_t)i * p->ldc);
        }
}

/* A 1x1 convolution (stride 1, no padding: its pixels are the GEMM's rows) read in place, its int8
 * bytes flipped in registers rather than copied: in_c a multiple of 4 (whole K quads, no padding),
 * every panel requantized in registers, no AMX. */
static int direct_in_place(const rt_opt_conv_params *p) {
    int32_t col;
    if (!p->direct || p->in_c % 4) return 0;
    for (col = 0; col < p->gemm.n; col += NR)
        if (!panel_vec(&p->gemm, col)) return 0;
#if defined(RT_OPT_AMX) && defined(__AMX_INT8__)
    if (rt_opt_amx_ready()) return 0;
#endif
    return 1;
}

/* A convolution read in place as K runs (rt_opt_conv_s8_runs), from its input or, with padding, from a
 * padded copy in the scratch slot: no im2col rows; every panel requantized in registers, no AMX. */
#define RUNS_BLOCK 256 /* output rows per block (a fused ADD's pass follows each) */
static int conv_runs(const rt_opt_conv_params *p, const void *scratch) {
    int32_t col;
    if (p->direct || !rt_opt_conv_s8_runs(p->filter_h, p->filter_w, p->in_c, p->dil_h, p->dil_w)) return 0;
    for (col = 0; col < p->gemm.n; col += NR)
        if (!panel_vec(&p->gemm, col)) return 0;
#if defined(RT_OPT_AMX) && defined(__AMX_INT8__)
    if (rt_opt_amx_ready()) return 0;
#endif
    {
        int64_t hp, wp, padded;
        padded_dims(p->in_h, p->in_w, p->out_h, p->out_w, p->filter_h, p->filter_w, p->stride_h, p->stride_w,
                    p->pad_h, p->pad_w, &hp, &wp);
        if (hp == p->in_h && wp == p->in_w && p->pad_h <= 0 && p->pad_w <= 0) return 1;
        padded = rt_opt_conv_s8_padded_bytes(p->in_h, p->in_w, p->in_c, p->out_h, p->out_w, p->filter_h, p->filter_w,
                                             p->stride_h, p->stride_w, p->pad_h, p->pad_w, p->dil_h, p->dil_w);
        return padded > 0 && scratch && p->gemm.slot_bytes >= padded;
    }
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
            const a_rows src = gemm_rows(a8 + (int64_t)m16 * lda8, lda8, p->k);
            pair_rows(p, j, 0, m - m16, &src, packed_b, bias, c + (int64_t)m16 * p->ldc);
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

/* Task t of an s8 GEMM: row blocks t, t + tasks, ... with scratch copy t. */
static void gemm_s8_task(void *v, int t) {
    const rt_opt_gemm_job *j = v;
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
    rt_opt_gemm_job j = {p, a, packed_b, bias, c, scratch, 1, 0, 0};
    int32_t blocks;
    j.tasks = rt_opt_tasks(par, p->slots);
    j.step = rt_opt_balanced_block(p->m, 1, p->rows, j.tasks);
    blocks = (p->m + j.step - 1) / j.step;
    j.tasks = j.tasks < blocks ? j.tasks : (blocks > 0 ? blocks : 1);
    if (j.tasks > 1) par->run(par->pool, gemm_s8_task, &j, j.tasks);
    else gemm_s8_task(&j, 0);
}

#define RUN_S8(d, s, n) flip_run((d), (s), (n))

static void post_add_s8(const rt_opt_post_add *post, int8_t *out, const int8_t *other, int64_t n) {
    if (post->conv_is_lhs) rt_opt_add_run_i8(post->add, out, 1, other, 1, out, n);
    else rt_opt_add_run_i8(post->add, other, 1, out, 1, out, n);
}

/* Patch rows m0..m0+rows of an int8 convolution as +128 bytes, K padded to ldd with 0 (IM2COL). */
static void im2col_s8_rows(const rt_opt_conv_params *p, const int8_t *in, int32_t m0, int32_t rows, uint8_t *dst,
                           int32_t ldd) {
    const int32_t kdim = p->gemm.k;
    IM2COL(int8_t, uint8_t, (uint8_t)(p->pad_value + 128), RUN_S8);
}

#if defined(RT_OPT_AVX512)
/* One patch row cut by the image's edge (in_c <= 64, dil_w 1): tap by tap, the in_c bytes by one masked
 * move or the padding (IM2COL's byte loops took ~60 cycles a row); `pad` zeroes K's padding. */
static void edge_row_s8(const rt_opt_conv_params *p, const int8_t *in, int32_t y0, int32_t x0, uint8_t *d,
                        __mmask64 pad) {
    const int32_t inc = p->in_c;
    const __mmask64 cm = inc == 64 ? ~(__mmask64)0 : ((__mmask64)1 << inc) - 1;
    const __m512i flip = _mm512_set1_epi8((char)0x80), fill = _mm512_set1_epi8((char)(uint8_t)(p->pad_value + 128));
    int32_t fy, fx;
    for (fy = 0; fy < p->filter_h; fy++) {
        const int32_t y = y0 + fy * p->dil_h, row_ok = y >= 0 && y < p->in_h;
        for (fx = 0; fx < p->filter_w; fx++, d += inc) {
            const int32_t x = x0 + fx;
            const __m512i v =
                row_ok && x >= 0 && x < p->in_w
                    ? _mm512_xor_si512(_mm512_maskz_loadu_epi8(cm, (const void *)(in + ((int64_t)y * p->in_w + x) * inc)), flip)
                    : fill;
            _mm512_mask_storeu_epi8((void *)d, cm, v);
        }
    }
    if (pad) _mm512_mask_storeu_epi8((void *)d, pad, _mm512_setzero_si512());
}

/* n consecutive patch rows along one output row, every patch inside the image: FH filter rows of `run`
 * bytes each (CH full 64-byte vectors, then a masked one; CH < 0: `chunks` of them), each vector loaded,
 * flipped and stored, the source advancing by the stride. FH and CH are constants in the instantiations
 * for 3x3 and 1-row filters (the loops unrolled; a variable count cost a third of the gain). */
RT_OPT_INLINE void inner_rows_s8(const int32_t FH, const int32_t CH, int32_t fh, int32_t chunks, const int8_t *src,
                                 int64_t sstep, int64_t step, uint8_t *d, int32_t ldd, int32_t run, int32_t n,
                                 __mmask64 tail, __mmask64 pad) {
    const __m512i flip = _mm512_set1_epi8((char)0x80);
    const int32_t rows_h = FH ? FH : fh, full = 64 * (CH >= 0 ? CH : chunks);
    int32_t i, fy, c;
    for (i = 0; i < n; i++, src += sstep, d += ldd) {
        for (fy = 0; fy < rows_h; fy++) {
            const int8_t *s = src + fy * step;
            uint8_t *t = d + fy * run;
            for (c = 0; c < full; c += 64)
                _mm512_storeu_si512((void *)(t + c), _mm512_xor_si512(_mm512_loadu_si512((const void *)(s + c)), flip));
            _mm512_mask_storeu_epi8((void *)(t + full), tail,
                                    _mm512_xor_si512(_mm512_maskz_loadu_epi8(tail, (const void *)(s + full)), flip));
        }
        if (pad) _mm512_mask_storeu_epi8((void *)(d + rows_h * run), pad, _mm512_setzero_si512());
    }
}

/* im2col_s8_rows with the rows whose patch lies inside the image (most of them) copied as fh runs of
 * fw * in_c bytes, the runs' masks made once and no per-tap bounds checks: IM2COL spent ~40 cycles a
 * row there, as much as the GEMM of a 16-channel 3x3 convolution. The inside rows go along an output
 * row in one call (inner_rows_s8): bounds checked once per stretch,
 * not per row (ResNet int8's 16-channel 3x3 convolutions: ~15 -> ~5 ns a 1024-row image's row). */
static void im2col_s8(const rt_opt_conv_params *p, const int8_t *in, int32_t m0, int32_t rows, uint8_t *dst,
                      int32_t ldd) {
    const int32_t inc = p->in_c, fh = p->filter_h, fw = p->filter_w, run = fw * inc, kdim = p->gemm.k;
    const int32_t chunks = (run - 1) / 64, last = run - 64 * chunks; /* full 64-byte chunks, then 1..64 bytes */
    const int64_t rs = (int64_t)p->in_w * inc, step = (int64_t)p->dil_h * rs, sstep = (int64_t)p->stride_w * inc;
    const __mmask64 tail = last == 64 ? ~(__mmask64)0 : ((__mmask64)1 << last) - 1;
    const __mmask64 pad = ldd > kdim ? ((__mmask64)1 << (ldd - kdim)) - 1 : 0; /* ldd - kdim <= 3 */
    /* the last output column whose patch ends inside the image */
    const int32_t ox_in = p->in_w - fw + p->pad_w >= 0 ? (p->in_w - fw + p->pad_w) / p->stride_w : -1;
    int32_t r, oy = m0 / p->out_w, ox = m0 % p->out_w;
    for (r = 0; r < rows;) {
        const int32_t y0 = oy * p->stride_h - p->pad_h, x0 = ox * p->stride_w - p->pad_w;
        uint8_t *d = dst + (int64_t)r * ldd;
        int32_t n = 1;
        if (y0 >= 0 && y0 + (fh - 1) * p->dil_h < p->in_h && x0 >= 0 && x0 + fw <= p->in_w) {
            const int8_t *src = in + (int64_t)y0 * rs + (int64_t)x0 * inc;
            n = ox_in - ox + 1;
            n = n < p->out_w - ox ? n : p->out_w - ox;
            n = n < rows - r ? n : rows - r;
            if (fh == 3 && chunks == 0) inner_rows_s8(3, 0, fh, chunks, src, sstep, step, d, ldd, run, n, tail, pad);
            else if (fh == 3 && chunks == 1) inner_rows_s8(3, 1, fh, chunks, src, sstep, step, d, ldd, run, n, tail, pad);
            else if (fh == 1 && chunks == 0) inner_rows_s8(1, 0, fh, chunks, src, sstep, step, d, ldd, run, n, tail, pad);
            else inner_rows_s8(0, -1, fh, chunks, src, sstep, step, d, ldd, run, n, tail, pad);
        } else if (inc <= 64)
            edge_row_s8(p, in, y0, x0, d, pad);
        else
            im2col_s8_rows(p, in, m0 + r, 1, d, ldd);
        r += n;
        ox += n;
        if (ox == p->out_w) ox = 0, oy++;
    }
}
#endif

int64_t rt_opt_conv_s8_padded_bytes(int32_t in_h, int32_t in_w, int32_t in_c, int32_t out_h, int32_t out_w,
                                    int32_t filter_h, int32_t filter_w, int32_t stride_h, int32_t stride_w,
                                    int32_t pad_h, int32_t pad_w, int32_t dil_h, int32_t dil_w) {
    int64_t hp, wp, bytes;
    if (dil_h != 1 || dil_w != 1 || pad_h < 0 || pad_w < 0 || out_h < 1 || out_w < 1) return 0;
    padded_dims(in_h, in_w, out_h, out_w, filter_h, filter_w, stride_h, stride_w, pad_h, pad_w, &hp, &wp);
    if (hp == in_h && wp == in_w) return 0; /* every patch inside the image */
    bytes = hp * wp * in_c;
    return bytes <= (rt_opt_conv_s8_runs(filter_h, filter_w, in_c, dil_h, dil_w) ? 65536 : 16384) ? (bytes + 63) / 64 * 64 : 0;
}

int rt_opt_conv_s8_runs(int32_t filter_h, int32_t filter_w, int32_t in_c, int32_t dil_h, int32_t dil_w) {
    /* a strided 1x1 convolution stays on im2col rows (its +128 in the copy, not in each broadcast: faster) */
    return dil_h == 1 && dil_w == 1 && (int64_t)filter_w * in_c % 4 == 0 && (int64_t)filter_h * filter_w > 1;
}

#if defined(RT_OPT_AVX512)
/* Image `in` inside its padding (pad_value) at `pad`, and pp: p's geometry over it, no padding. With
 * ResNet-sized images a patch row in eight was cut by an edge, in digits' 8 x 8 ones nearly half, and
 * those went tap by tap with a bounds check each (a third of digits int8's time in im2col). */
static void pad_image_s8(const rt_opt_conv_params *p, const int8_t *in, int8_t *pad, rt_opt_conv_params *pp) {
    int64_t hp, wp, y;
    padded_dims(p->in_h, p->in_w, p->out_h, p->out_w, p->filter_h, p->filter_w, p->stride_h, p->stride_w, p->pad_h,
                p->pad_w, &hp, &wp);
    memset(pad, (int8_t)p->pad_value, (size_t)(hp * wp * p->in_c));
    for (y = 0; y < p->in_h; y++)
        memcpy(pad + ((y + p->pad_h) * wp + p->pad_w) * p->in_c, in + y * p->in_w * p->in_c, (size_t)p->in_w * (size_t)p->in_c);
    *pp = *p;
    pp->in_h = (int32_t)hp, pp->in_w = (int32_t)wp, pp->pad_h = pp->pad_w = 0;
}

#if defined(RT_OPT_S8_VNNI)
/* pad_image_s8 with every byte + 128 (the VNNI kernels' unsigned operand). */
static void pad_image_u8(const rt_opt_conv_params *p, const int8_t *in, uint8_t *pad, rt_opt_conv_params *pp) {
    int64_t hp, wp, y;
    padded_dims(p->in_h, p->in_w, p->out_h, p->out_w, p->filter_h, p->filter_w, p->stride_h, p->stride_w, p->pad_h,
                p->pad_w, &hp, &wp);
    memset(pad, (uint8_t)(p->pad_value + 128), (size_t)(hp * wp * p->in_c));
    for (y = 0; y < p->in_h; y++)
        flip_run(pad + ((y + p->pad_h) * wp + p->pad_w) * p->in_c, in + y * p->in_w * p->in_c, p->in_w * p->in_c);
    *pp = *p;
    pp->in_h = (int32_t)hp, pp->in_w = (int32_t)wp, pp->pad_h = pp->pad_w = 0;
}
#endif
#endif

static void conv_s8_task(void *v, int t) {
    const rt_opt_conv_job *j = v;
    const rt_opt_conv_params *p = j->p;
    int32_t mimg = p->out_h * p->out_w, kdim = p->gemm.k, ldd = K4(kdim), oc = p->gemm.n, q;
    uint8_t *dst = j->scratch ? (uint8_t *)j->scratch + (int64_t)t * p->gemm.slot_bytes : NULL;
#if defined(RT_OPT_S8_VNNI)
    const int in_place = direct_in_place(p), runs = !in_place && conv_runs(p, dst);
#endif
#if defined(RT_OPT_AVX512)
    const int64_t padded = p->direct || !dst ? 0
                                              : rt_opt_conv_s8_padded_bytes(p->in_h, p->in_w, p->in_c, p->out_h, p->out_w,
                                                                            p->filter_h, p->filter_w, p->stride_h,
                                                                            p->stride_w, p->pad_h, p->pad_w, p->dil_h,
                                                                            p->dil_w);
    rt_opt_conv_params pp; /* p over the padded image of image padded_b (made once per image and task) */
    int32_t padded_b = -1;
#endif
    for (q = t; q < p->batches * j->per_image; q += j->tasks) {
        int32_t b = q / j->per_image, m0 = q % j->per_image * j->block;
        int32_t rows = mimg - m0 < j->block ? mimg - m0 : j->block;
        const int8_t *in = (const int8_t *)j->in + (int64_t)b * p->in_h * p->in_w * p->in_c;
        int8_t *out = (int8_t *)j->out + (int64_t)b * mimg * oc;
#if defined(RT_OPT_S8_VNNI)
        if (in_place || runs) {
            int32_t jp, flip = 1, r0, n;
            a_rows src = gemm_rows((const uint8_t *)(in + (int64_t)m0 * p->in_c), p->in_c, kdim);
            const uint8_t *ptr[RUNS_BLOCK];
            const rt_opt_conv_params *g = p;
            if (runs) {
                src.a = (const uint8_t *)in;
                if (padded) { /* patches read from the image in its padding, its bytes + 128 */
                    if (b != padded_b) pad_image_u8(p, in, dst, &pp), padded_b = b;
                    src.a = dst, g = &pp, flip = 0;
                }
                src.runs.n = p->filter_h, src.runs.quads = p->filter_w * p->in_c / 4;
                src.runs.step = (int64_t)g->in_w * p->in_c;
                src.ptr = ptr;
            }
            for (r0 = 0; r0 < rows; r0 += n) { /* runs: RUNS_BLOCK rows' patches at a time */
                n = !runs ? rows : rows - r0 < RUNS_BLOCK ? rows - r0 : RUNS_BLOCK;
                if (runs) patch_rows(g, src.a, m0 + r0, n, ptr);
                else src.a = (const uint8_t *)(in + (int64_t)m0 * p->in_c);
                for (jp = 0; jp * NR < oc; jp += 2)
                    pair_rows(&p->gemm, jp, flip, n, &src, (const int8_t *)j->b, (const int32_t *)j->bias,
                              out + (int64_t)(m0 + r0) * oc);
            }
        } else
#endif
        {
            if (p->direct) widen_rows(in + (int64_t)m0 * p->in_c, p->in_c, rows, kdim, dst);
#if defined(RT_OPT_AVX512)
            else if (padded && p->gemm.slot_bytes >= (int64_t)p->rows * ldd + padded) {
                int8_t *pad = (int8_t *)(dst + (int64_t)p->rows * ldd);
                if (b != padded_b) pad_image_s8(p, in, pad, &pp), padded_b = b;
                im2col_s8(&pp, pad, m0, rows, dst, ldd);
            } else if (p->dil_w == 1)
                im2col_s8(p, in, m0, rows, dst, ldd);
#endif
            else im2col_s8_rows(p, in, m0, rows, dst, ldd);
            gemm_u8(&p->gemm, rows, dst, ldd, (const int8_t *)j->b, (const int32_t *)j->bias, out + (int64_t)m0 * oc,
                    NULL);
        }
        if (j->post)
            post_add_s8(j->post, out + (int64_t)m0 * oc, (const int8_t *)j->other + ((int64_t)b * mimg + m0) * oc,
                        (int64_t)rows * oc);
    }
}

void rt_opt_conv_s8(const rt_opt_conv_params *p, const int8_t *in_all, const int8_t *packed_b, const int32_t *bias,
                    int8_t *out_all, void *scratch, const rt_opt_post_add *post, const int8_t *other,
                    const mpcc_parallel *par) {
    int32_t block = p->rows;
#if defined(RT_OPT_S8_VNNI)
    if (conv_runs(p, scratch) && block < RUNS_BLOCK) block = RUNS_BLOCK; /* no im2col rows to fit in scratch */
#endif
    rt_opt_run_conv(p, in_all, packed_b, bias, out_all, scratch, post, other, conv_s8_task, block, RT_F32, par);
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
        gemm_u8(&g, p->m, pa, k4, pb, bias, out + b * p->m * p->n, p->rhs_offset ? row_add : NULL);
    }
}

/* ---- int32 products of int8 rows: the fused attention's scores on int8 Q and K (rt_opt_attention.c) */

#if defined(RT_OPT_S8_VNNI)
void rt_opt_scores_s8(int32_t m, int32_t panels, int32_t kq, const int8_t *a, int32_t lda, const int8_t *b,
                      const int32_t *bias, int32_t *c, int32_t ldc) {
    rt_opt_gemm_params g;
    panel_q q[2];
    const a_rows src = gemm_rows((const uint8_t *)a, lda, 4 * kq);
    int32_t jp, i;
    memset(&g, 0, sizeof g);
    memset(q, 0, sizeof q);
    g.ldc = ldc;
    for (jp = 0; jp < panels; jp += 2) {
        const int8_t *b0 = b + (int64_t)jp * kq * 4 * NR, *b1 = jp + 1 < panels ? b0 + (int64_t)kq * 4 * NR : b0;
        q[0].bias = _mm512_loadu_si512((const void *)(bias + jp * NR));
        q[0].col = jp * NR;
        q[1] = q[0];
        if (jp + 1 < panels) {
            q[1].bias = _mm512_loadu_si512((const void *)(bias + (jp + 1) * NR));
            q[1].col = (jp + 1) * NR;
        }
        for (i = 0; i < m; i += MR_S8) {
            const int32_t mr = m - i < MR_S8 ? m - i : MR_S8;
            const uint8_t *ap[MR_S8];
            int8_t *ci = (int8_t *)(void *)(c + (int64_t)i * ldc);
            (mr <= 1 ? ukr_s8_raw_1 : mr <= 2 ? ukr_s8_raw_2 : mr <= 4 ? ukr_s8_raw_4 : ukr_s8_raw_8)(
                &src.runs, tile_rows(&src, i, mr, ap), mr, b0, b1, &g, q, ci);
        }
    }
}
#endif
