/* rt_opt_gemm_s8_vnni.c - the AVX512-VNNI int8 kernels requantized in registers (moved out of
 * rt_opt_gemm_s8.c, which keeps the driver, the AMX / AVX2 / C tiles and BATCH_MATMUL): R <= 9 rows x two
 * 16-column panels or R <= 12 rows x one panel per micro-tile, one vpdpbusd per 16 products, A's rows read
 * in place as runs where a convolution allows (rt_opt_a_rows), and the raw int32 sums of the attention's
 * int8 scores (rt_opt_scores_s8). */
#include <string.h>

#include "mpcc_rt.h"
#include "rt_opt.h"
#include "rt_opt_internal.h"

#if defined(RT_OPT_S8_VNNI)

#define NR RT_OPT_NR
#define K4(k) RT_OPT_K4(k)
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
                r = _mm512_maskz_loadu_ps(st, rt_opt_s8_res_at(p, d0));
                if (second) r = _mm512_mask_loadu_ps(r, st2, rt_opt_s8_res_at(p, d1));
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
        const int64_t es = rt_opt_s8_c_size(p), ldc = p->ldc * es;
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
/* rows r's two halves, unzipped, in t[n] (the float forms and q_store_rows) */
#define S8_T1(r)                                                                                                    \
    if ((r) < R && (r) < mr)                                                                                        \
        t[n++] = _mm512_add_epi32(_mm512_permutex2var_epi32(c##r##l, iev, c##r##h),                                \
                                  _mm512_permutex2var_epi32(c##r##l, iod, c##r##h));
        const int64_t es = rt_opt_s8_c_size(p), ldc = p->ldc * es;
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
                RT_R12(S8_T1)
                store_modes(p, q, t, n, d0, ldc, 0, 0);
            }
            return;
        }
        if (!HALF && ar->n * ar->quads >= 12) { /* the rows' sums, then their stores (q_store_rows) */
            __m512i t[R];
            int32_t n = 0;
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
            ukr_s8_q1(flip, &src->runs, tile_rows(src, i, mr, ap), mr, b0, p, q, c + (int64_t)i * p->ldc * rt_opt_s8_c_size(p));
        }
    else
        for (i = 0; i < m; i += mr) {
            mr = rt_opt_next_rows(m - i, MR_S8, MR_S8 + 1);
            ukr_s8_q2(flip, &src->runs, tile_rows(src, i, mr, ap), mr, b0, b1, p, q,
                      c + (int64_t)i * p->ldc * rt_opt_s8_c_size(p));
        }
}

void rt_opt_s8_pairs_rows(const rt_opt_gemm_params *p, int32_t j0, int32_t j1, int flip, int32_t m,
                          const rt_opt_a_rows *src, const int8_t *packed_b, const int32_t *bias, int8_t *c) {
    int32_t j;
    for (j = j0; j < j1; j += 2) rt_opt_s8_pair_rows(p, j, flip, m, src, packed_b, bias, c);
}


/* ---- int32 products of int8 rows: the fused attention's scores on int8 Q and K (rt_opt_attention.c) */

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
