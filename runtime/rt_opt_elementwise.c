/* rt_opt_elementwise.c - binary elementwise ops (ADD, SUB, MUL,
 * SQUARED_DIFFERENCE) over the reference params, with the broadcast walked
 * as long contiguous runs instead of an odometer step per element.
 *
 * Adjacent dimensions are merged while both inputs stay contiguous (or both
 * broadcast) across them; the innermost run then has input strides 0 or 1,
 * and each of the four cases is a plain loop the compiler vectorizes. The
 * per-element arithmetic is the reference's own (rt_addsub_q, ...), so
 * integer results are identical. */
#include "mpcc_rt.h"
#include "rt_opt.h"
#include "rt_opt_internal.h"

#include "arm64/rt_a64_binary_f32.h" /* the AArch64 f32 lanes (RT_A64) */

/* The broadcast with mergeable dimensions merged. */
void rt_opt_bcast_collapse(const rt_bcast *in, rt_bcast *out) {
    int32_t d;
    out->rank = 0;
    for (d = 0; d < in->rank; d++) {
        int32_t r = out->rank;
        if (in->dims[d] == 1) continue; /* size-1 dims add nothing to the walk */
        if (r > 0 && out->stride1[r - 1] == in->stride1[d] * in->dims[d] &&
            out->stride2[r - 1] == in->stride2[d] * in->dims[d]) {
            out->dims[r - 1] *= in->dims[d];
            out->stride1[r - 1] = in->stride1[d];
            out->stride2[r - 1] = in->stride2[d];
            continue;
        }
        out->dims[r] = in->dims[d];
        out->stride1[r] = in->stride1[d];
        out->stride2[r] = in->stride2[d];
        out->rank++;
    }
}

/* Defines fname(p, a, b, out) with `y = EXPR(x1, x2)` per element (AArch64: the run's lanes by
 * rt_a64_binary_f32's VOP first). */
#define RT_OPT_BINARY(fname, T, EXPR, VOP) RT_OPT_BINARY_LANES(fname, T, EXPR, RT_A64_BINARY_F32, VOP)
/* NO_LANES: no AArch64 lanes first (the compilers vectorize the plain loops of MAXIMUM / MINIMUM) */
#define NO_LANES(op, p, a, sa, b, sb, o, n) 0
#define RT_OPT_BINARY_LANES(fname, T, EXPR, LANES, VOP)                                              \
    void fname(const rt_binary_params *p, const T *a, const T *b, T *out) {                          \
        rt_bcast bc, outer;                                                                          \
        rt_bcast_iter it;                                                                            \
        int64_t o, n_outer, i, inner, s1, s2;                                                        \
        rt_opt_bcast_collapse(&p->bc, &bc);                                                                       \
        if (rt_bcast_numel(&p->bc) == 0) return;                                                     \
        inner = bc.rank ? bc.dims[bc.rank - 1] : 1;                                                  \
        s1 = bc.rank ? bc.stride1[bc.rank - 1] : 0;                                                  \
        s2 = bc.rank ? bc.stride2[bc.rank - 1] : 0;                                                  \
        outer = bc;                                                                                  \
        outer.rank = bc.rank ? bc.rank - 1 : 0;                                                      \
        n_outer = rt_bcast_numel(&outer);                                                            \
        rt_bcast_begin(&it);                                                                         \
        for (o = 0; o < n_outer; o++, rt_bcast_next(&outer, &it)) {                                  \
            const T *pa = a + it.off1, *pb = b + it.off2;                                            \
            T *po = out + o * inner;                                                                 \
            i = LANES(VOP, p, pa, s1, pb, s2, po, inner);                                            \
            if (s1 == 1 && s2 == 1) {                                                                \
                for (; i < inner; i++) po[i] = EXPR(pa[i], pb[i]);                                   \
            } else if (s1 == 1 && s2 == 0) {                                                         \
                const T y = pb[0];                                                                   \
                for (; i < inner; i++) po[i] = EXPR(pa[i], y);                                       \
            } else if (s1 == 0 && s2 == 1) {                                                         \
                const T x = pa[0];                                                                   \
                for (; i < inner; i++) po[i] = EXPR(x, pb[i]);                                       \
            } else {                                                                                 \
                for (; i < inner; i++) po[i] = EXPR(pa[i * s1], pb[i * s2]);                         \
            }                                                                                        \
        }                                                                                            \
    }

#define CLAMPF(v) ((v) < p->act_min ? p->act_min : ((v) > p->act_max ? p->act_max : (v)))
#define ADD_F32(x, y) CLAMPF((x) + (y))
#define SUB_F32(x, y) CLAMPF((x) - (y))
#define MUL_F32(x, y) CLAMPF((x) * (y))
#define SQDIFF_F32(x, y) (((x) - (y)) * ((x) - (y)))

/* As the reference MUL int8: requantize the product of the offset inputs. */
static inline int8_t mul_i8(const rt_binary_params *p, int32_t a, int32_t b) {
    int32_t prod = (p->in1_offset + a) * (p->in2_offset + b);
    int32_t r = p->out_offset + rq_double(prod, p->out_mult, p->out_shift);
    return (int8_t)(r < p->act_qmin ? p->act_qmin : (r > p->act_qmax ? p->act_qmax : r));
}

/* As the reference SQUARED_DIFFERENCE int8. */
static inline int8_t sqdiff_i8(const rt_binary_params *p, int32_t a, int32_t b) {
    int32_t sa = (p->in1_offset + a) * ((int32_t)1 << p->left_shift);
    int32_t sb = (p->in2_offset + b) * ((int32_t)1 << p->left_shift);
    int32_t diff = rt_mul_q_smaller_than_one(sa, p->in1_mult, p->in1_shift) -
                   rt_mul_q_smaller_than_one(sb, p->in2_mult, p->in2_shift);
    int32_t r = rt_mul_q_smaller_than_one(diff * diff, p->out_mult, p->out_shift) + p->out_offset;
    return (int8_t)rt_clamp_i32(r, p->act_qmin, p->act_qmax);
}

RT_OPT_BINARY(rt_opt_add_f32, float, ADD_F32, RT_A64_ADD)
RT_OPT_BINARY(rt_opt_sub_f32, float, SUB_F32, RT_A64_SUB)
RT_OPT_BINARY(rt_opt_mul_f32, float, MUL_F32, RT_A64_MUL)
RT_OPT_BINARY(rt_opt_squared_difference_f32, float, SQDIFF_F32, RT_A64_SQDIFF)
/* MAXIMUM / MINIMUM: the reference's a > b ? a : b (a < b ? a : b) per element, so the same values (a NaN in a
 * gives b, in b gives b: x86's maxps / minps are exactly this select); f32 and int8 (a quantized MAXIMUM keeps
 * its input's scale and zero point, so it compares the stored values as the reference does). */
#define MAX_OF(x, y) ((x) > (y) ? (x) : (y))
#define MIN_OF(x, y) ((x) < (y) ? (x) : (y))
RT_OPT_BINARY_LANES(rt_opt_maximum_f32, float, MAX_OF, NO_LANES, 0)
RT_OPT_BINARY_LANES(rt_opt_minimum_f32, float, MIN_OF, NO_LANES, 0)
RT_OPT_BINARY_LANES(rt_opt_maximum_i8, int8_t, MAX_OF, NO_LANES, 0)
RT_OPT_BINARY_LANES(rt_opt_minimum_i8, int8_t, MIN_OF, NO_LANES, 0)
/* DIV f32: the reference's quotient and clamp per element (an IEEE division: the same values) */
#define DIV_F32(x, y) rt_clamp_f32((x) / (y), p->act_min, p->act_max)
RT_OPT_BINARY_LANES(rt_opt_div_f32, float, DIV_F32, NO_LANES, 0)

/* ---- int8 ADD/SUB/MUL: the same walk, each run handed to a run function
 * that vectorizes TFLite's fixed-point arithmetic 8 lanes at a time
 * (AVX2) with the scalar reference formula for the tail and for
 * parameters outside the vector path's range. */
typedef void (*run_i8_fn)(const rt_binary_params *p, const int8_t *a, int64_t sa, const int8_t *b, int64_t sb,
                          int8_t *o, int64_t n);

void rt_opt_bcast_runs(const rt_bcast *full, rt_opt_run_fn run, void *ctx) {
    rt_bcast bc, outer;
    rt_bcast_iter it;
    int64_t o, n_outer, inner, s1, s2;
    if (rt_bcast_numel(full) == 0) return;
    rt_opt_bcast_collapse(full, &bc);
    inner = bc.rank ? bc.dims[bc.rank - 1] : 1;
    s1 = bc.rank ? bc.stride1[bc.rank - 1] : 0;
    s2 = bc.rank ? bc.stride2[bc.rank - 1] : 0;
    outer = bc;
    outer.rank = bc.rank ? bc.rank - 1 : 0;
    n_outer = rt_bcast_numel(&outer);
    rt_bcast_begin(&it);
    for (o = 0; o < n_outer; o++, rt_bcast_next(&outer, &it)) run(ctx, it.off1, s1, it.off2, s2, o * inner, inner);
}

typedef struct walk_i8_ctx {
    const rt_binary_params *p;
    const int8_t *a, *b;
    int8_t *out;
    run_i8_fn run;
} walk_i8_ctx;

static void walk_i8_run(void *v, int64_t off1, int64_t s1, int64_t off2, int64_t s2, int64_t out_off, int64_t n) {
    const walk_i8_ctx *c = v;
    c->run(c->p, c->a + off1, s1, c->b + off2, s2, c->out + out_off, n);
}

static void walk_i8(const rt_binary_params *p, const int8_t *a, const int8_t *b, int8_t *out, run_i8_fn run) {
    walk_i8_ctx c;
    c.p = p, c.a = a, c.b = b, c.out = out, c.run = run;
    rt_opt_bcast_runs(&p->bc, walk_i8_run, &c);
}

#if defined(RT_OPT_AVX2)
static int vec_shift(int32_t s) { return s <= 0 && s >= -31; }

/* 8 lanes of operand x (stride 1) or its broadcast value (stride 0), as int32. */
static inline __m256i load8(const int8_t *x, int64_t stride, int64_t i) {
    return stride ? _mm256_cvtepi8_epi32(_mm_loadl_epi64((const __m128i *)(const void *)(x + i)))
                  : _mm256_set1_epi32(x[0]);
}

/* The binary ops' fixed-point constants, broadcast once per run. */
typedef struct rescale8 {
    __m256i o1, o2, m1, e1, m2, e2, mo, eo, oo, ls, lo, hi;
} rescale8;

static inline rescale8 rescale8_init(const rt_binary_params *p) {
    rescale8 k;
    k.o1 = _mm256_set1_epi32(p->in1_offset), k.o2 = _mm256_set1_epi32(p->in2_offset);
    k.m1 = _mm256_set1_epi32(p->in1_mult), k.e1 = _mm256_set1_epi32(p->in1_shift);
    k.m2 = _mm256_set1_epi32(p->in2_mult), k.e2 = _mm256_set1_epi32(p->in2_shift);
    k.mo = _mm256_set1_epi32(p->out_mult), k.eo = _mm256_set1_epi32(p->out_shift);
    k.oo = _mm256_set1_epi32(p->out_offset), k.ls = _mm256_set1_epi32(p->left_shift);
    k.lo = _mm256_set1_epi32(p->act_qmin), k.hi = _mm256_set1_epi32(p->act_qmax);
    return k;
}

/* Both inputs offset, shifted left and rescaled to the common scale. */
static inline void rescale_inputs8(const rescale8 *k, __m256i a, __m256i b, __m256i *ra, __m256i *rb) {
    *ra = rq_double8(_mm256_sllv_epi32(_mm256_add_epi32(a, k->o1), k->ls), k->m1, k->e1);
    *rb = rq_double8(_mm256_sllv_epi32(_mm256_add_epi32(b, k->o2), k->ls), k->m2, k->e2);
}
#endif

#if defined(RT_OPT_AVX512)
/* The rescaling of an int8 operand in 32-bit lanes. Its value w = x + offset is small (|w| <= 256), so
 * TFLite's double rounding of (w << L) by (M, -e), floor((w M 2^L + 2^30 + c 2^31) / 2^(31+e)) with
 * c = 2^(e-1) - [w < 0] for e > 0 and c = 0 for e = 0 (rq16's form), is, dividing by 2^L and splitting
 * M = Mh 2^B + Ml (B = 31 - L, 0 <= Ml < 2^B), floor((w Mh + c + floor((w Ml + 2^(B-1)) / 2^B)) / 2^e):
 * two 32-bit products that cannot overflow for 8 <= L <= 22 (|w Mh| < 2^(8+L), |w Ml| < 2^(8+B)),
 * [w < 0] being [w M < -2^(30-L)] for M > 2^(30-L). Ten operations for 16 lanes where the 64-bit
 * form takes fourteen; same integers as rt_addsub_q. */
typedef struct small16 {
    __m512i off, mh, ml, half, c, sign; /* sign: all ones when e > 0 (the [w < 0] term) */
    __m128i b, e, l1; /* l1: L - 1 */
    int half_scale;   /* M = 2^30, e = 0: the result is w 2^(L-1) exactly */
} small16;

static int small16_init(int32_t offset, int32_t mult, int32_t shift, int32_t left, small16 *k) {
    const int32_t b = 31 - left, e = -shift;
    if (left < 8 || left > 22 || offset < -128 || offset > 128 || shift > 0 || shift < -31 ||
        mult <= ((int32_t)1 << (30 - left)))
        return 0;
    /* TFLite scales both ADD operands by s_i / (2 max(s1, s2)): the larger-scale one by exactly 1/2
     * (M = 2^30, no shift), and (w 2^L) 2^30 rounded to 2^31 is w 2^(L-1) with no remainder */
    k->half_scale = mult == ((int32_t)1 << 30) && e == 0;
    k->l1 = _mm_cvtsi32_si128(left - 1);
    k->off = _mm512_set1_epi32(offset);
    k->mh = _mm512_set1_epi32(mult >> b), k->ml = _mm512_set1_epi32(mult & (((int32_t)1 << b) - 1));
    k->half = _mm512_set1_epi32((int32_t)1 << (b - 1));
    k->c = _mm512_set1_epi32(e > 0 ? (int32_t)1 << (e - 1) : 0), k->sign = _mm512_set1_epi32(e > 0 ? -1 : 0);
    k->b = _mm_cvtsi32_si128(b), k->e = _mm_cvtsi32_si128(e);
    return 1;
}

static inline __m512i small16_apply(__m512i x, const small16 *k) {
    const __m512i w = _mm512_add_epi32(x, k->off);
    if (k->half_scale) return _mm512_sll_epi32(w, k->l1);
    const __m512i lo = _mm512_sra_epi32(_mm512_add_epi32(_mm512_mullo_epi32(w, k->ml), k->half), k->b);
    const __m512i t = _mm512_add_epi32(_mm512_add_epi32(_mm512_mullo_epi32(w, k->mh), k->c),
                                       _mm512_add_epi32(lo, _mm512_and_si512(_mm512_srai_epi32(w, 31), k->sign)));
    return _mm512_sra_epi32(t, k->e);
}

/* 16 lanes of an operand offset, shifted left and rescaled to the common scale (the first half of
 * rt_addsub_q; stride 0: its one value): by small16 where it applies, else in 64-bit lanes (rq16). */
typedef struct operand16 {
    small16 s;
    rq16 r;
    __m512i offset;
    __m128i left_shift;
    int small;
} operand16;

static operand16 operand16_init(int32_t offset, int32_t mult, int32_t shift, int32_t left) {
    operand16 k;
    memset(&k, 0, sizeof k);
    k.small = small16_init(offset, mult, shift, left, &k.s);
    if (!k.small) k.r = rq16_prepare(_mm512_set1_epi32(mult), _mm512_set1_epi32(shift));
    k.offset = _mm512_set1_epi32(offset), k.left_shift = _mm_cvtsi32_si128(left);
    return k;
}

static inline __m512i rescaled16(const int8_t *x, int64_t stride, int64_t i, const operand16 *k) {
    const __m512i v = stride ? _mm512_cvtepi8_epi32(_mm_loadu_si128((const __m128i *)(const void *)(x + i)))
                             : _mm512_set1_epi32(x[0]);
    return k->small ? small16_apply(v, &k->s) : rq16_apply(_mm512_sll_epi32(_mm512_add_epi32(v, k->offset), k->left_shift), &k->r);
}

/* ADD/SUB int8, 16 lanes at a time: both rescalings and the output requantization computed in
 * registers (gathering the rescaled inputs from 256-entry tables was twice as slow: two vpgatherdd
 * per 16 lanes cost more than two rescalings). Same integers as rt_addsub_q. */
static int64_t addsub16(const rt_binary_params *p, const int8_t *a, int64_t sa, const int8_t *b, int64_t sb,
                        int8_t *o, int64_t n, int sign) {
    const operand16 k1 = operand16_init(p->in1_offset, p->in1_mult, p->in1_shift, p->left_shift);
    const operand16 k2 = operand16_init(p->in2_offset, p->in2_mult, p->in2_shift, p->left_shift);
    rq16 ko = rq16_prepare_z(_mm512_set1_epi32(p->out_mult), _mm512_set1_epi32(p->out_shift), p->out_offset);
    /* a stride-0 operand is rescaled once */
    const __m512i xa = rescaled16(a, 0, 0, &k1), xb = rescaled16(b, 0, 0, &k2);
    int64_t i;
    rq16_bound(&ko, p->act_qmin, p->out_offset); /* clamped at act_qmin below (or by the saturating store) */
    for (i = 0; i + 16 <= n; i += 16) {
        const __m512i x = sa ? rescaled16(a, 1, i, &k1) : xa, y = sb ? rescaled16(b, 1, i, &k2) : xb;
        const __m512i raw = sign > 0 ? _mm512_add_epi32(x, y) : _mm512_sub_epi32(x, y);
        _mm_storeu_si128((__m128i *)(void *)(o + i),
                         _mm512_cvtsepi32_epi8(clamp16_i8(rq16_apply_zb(raw, &ko), p->act_qmin, p->act_qmax)));
    }
    return i;
}
#endif

#if defined(RT_OPT_AVX512) || (defined(RT_OPT_AVX2) && defined(__FMA__))
/* The lanes m of a float-requantized vector (results in t, element i first) that lie near a tie,
 * redone by the integer form; t is stored after this, since o may be a or b (the fused residual ADD
 * writes in place). */
static void addsub_redo_lanes(const rt_binary_params *p, const int8_t *a, int64_t sa, const int8_t *b, int64_t sb,
                              int64_t i, unsigned m, int sign, int8_t *t) {
    for (; m; m &= m - 1) {
        const int j = __builtin_ctz(m);
        t[j] = (int8_t)rt_addsub_q(p, a[(i + j) * sa], b[(i + j) * sb], sign);
    }
}
#endif

#if defined(RT_OPT_AVX512)
static inline __m512 load16f(const int8_t *x, int64_t stride, int64_t i) {
    return _mm512_cvtepi32_ps(stride ? _mm512_cvtepi8_epi32(_mm_loadu_si128((const __m128i *)(const void *)(x + i)))
                                     : _mm512_set1_epi32(x[0]));
}

/* addsub16_float for fq_mode 2 (exact on every pair: no tie test) with both operands contiguous, 64
 * lanes a step: each 16 rounded to int32 in the conversion itself, the 64 narrowed by saturating packs and
 * clamped as bytes (the bounds are integers, so clamping after rounding gives the same bytes), where the
 * 16-lane loop clamped, rounded and converted in three steps and narrowed each 16 by a vpmovdb. */
static int64_t addsub64_float(const rt_binary_params *p, const int8_t *a, const int8_t *b, int8_t *o, int64_t n) {
    const __m512 ka = _mm512_set1_ps(p->fq_a), kb = _mm512_set1_ps(p->fq_b), kc = _mm512_set1_ps(p->fq_c);
    const __m512i lo = _mm512_set1_epi8((char)p->act_qmin), hi = _mm512_set1_epi8((char)p->act_qmax);
    const __m512i order = _mm512_set_epi32(15, 11, 7, 3, 14, 10, 6, 2, 13, 9, 5, 1, 12, 8, 4, 0);
    int64_t i;
    for (i = 0; i + 64 <= n; i += 64) {
        __m512i q[4], r;
        int j;
        for (j = 0; j < 4; j++) {
            const __m512 v = _mm512_fmadd_ps(load16f(b, 1, i + 16 * j), kb, _mm512_fmadd_ps(load16f(a, 1, i + 16 * j), ka, kc));
            q[j] = _mm512_cvt_roundps_epi32(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
        }
        /* 128-bit lane L of the packs holds 4 outputs of each q[j]: put them back in order */
        r = _mm512_permutexvar_epi32(order, _mm512_packs_epi16(_mm512_packs_epi32(q[0], q[1]), _mm512_packs_epi32(q[2], q[3])));
        _mm512_storeu_si512((void *)(o + i), _mm512_min_epi8(_mm512_max_epi8(r, lo), hi));
    }
    return i;
}

/* ADD/SUB int8 requantized in float (p->fq_mode, proven exact by pass schedule on every input pair):
 * clamp(a fq_a + b fq_b + fq_c) rounded to nearest, two FMAs where the integer form takes three 64-bit
 * products. fq_mode 1: a vector with a lane near a tie redoes those lanes by the integer form. */
static int64_t addsub16_float(const rt_binary_params *p, const int8_t *a, int64_t sa, const int8_t *b, int64_t sb,
                              int8_t *o, int64_t n, int sign) {
    const __m512 ka = _mm512_set1_ps(p->fq_a), kb = _mm512_set1_ps(p->fq_b), kc = _mm512_set1_ps(p->fq_c);
    const __m512 lo = _mm512_set1_ps((float)p->act_qmin), hi = _mm512_set1_ps((float)p->act_qmax);
    const __m512 tie = _mm512_set1_ps(RT_FQ_TIE);
    const __m512 xa = load16f(a, 0, 0), xb = load16f(b, 0, 0);
    const int check = p->fq_mode == 1;
    int64_t i;
    for (i = 0; i + 16 <= n; i += 16) {
        const __m512 x = sa ? load16f(a, 1, i) : xa, y = sb ? load16f(b, 1, i) : xb;
        const __m512 v = _mm512_min_ps(_mm512_max_ps(_mm512_fmadd_ps(y, kb, _mm512_fmadd_ps(x, ka, kc)), lo), hi);
        const __m512 r = _mm512_roundscale_ps(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
        const __m128i q = _mm512_cvtepi32_epi8(_mm512_cvttps_epi32(r));
        const __mmask16 m = check ? _mm512_cmp_ps_mask(_mm512_abs_ps(_mm512_sub_ps(v, r)), tie, _CMP_GT_OQ) : 0;
        if (m) {
            int8_t t[16];
            _mm_storeu_si128((__m128i *)(void *)t, q);
            addsub_redo_lanes(p, a, sa, b, sb, i, m, sign, t);
            memcpy(o + i, t, 16);
        } else
            _mm_storeu_si128((__m128i *)(void *)(o + i), q);
    }
    return i;
}
#endif

#if defined(RT_OPT_AVX2) && defined(__FMA__)
static inline __m256 load8f(const int8_t *x, int64_t stride, int64_t i) {
    return _mm256_cvtepi32_ps(load8(x, stride, i));
}

/* addsub16_float on 8 lanes (AVX2 with FMA): the same float operations, so the same results. */
static int64_t addsub8_float(const rt_binary_params *p, const int8_t *a, int64_t sa, const int8_t *b, int64_t sb,
                             int8_t *o, int64_t n, int sign) {
    const __m256 ka = _mm256_set1_ps(p->fq_a), kb = _mm256_set1_ps(p->fq_b), kc = _mm256_set1_ps(p->fq_c);
    const __m256 lo = _mm256_set1_ps((float)p->act_qmin), hi = _mm256_set1_ps((float)p->act_qmax);
    const __m256 tie = _mm256_set1_ps(RT_FQ_TIE), abs_mask = _mm256_castsi256_ps(_mm256_set1_epi32(0x7FFFFFFF));
    const __m256 xa = load8f(a, 0, 0), xb = load8f(b, 0, 0);
    const int check = p->fq_mode == 1;
    int64_t i;
    for (i = 0; i + 8 <= n; i += 8) {
        const __m256 x = sa ? load8f(a, 1, i) : xa, y = sb ? load8f(b, 1, i) : xb;
        const __m256 v = _mm256_min_ps(_mm256_max_ps(_mm256_fmadd_ps(y, kb, _mm256_fmadd_ps(x, ka, kc)), lo), hi);
        const __m256 r = _mm256_round_ps(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
        const __m128i q = pack8(_mm256_cvttps_epi32(r));
        const int m = check ? _mm256_movemask_ps(_mm256_cmp_ps(_mm256_and_ps(_mm256_sub_ps(v, r), abs_mask), tie, _CMP_GT_OQ))
                            : 0;
        if (m) {
            int8_t t[8];
            _mm_storel_epi64((__m128i *)(void *)t, q);
            addsub_redo_lanes(p, a, sa, b, sb, i, (unsigned)m, sign, t);
            memcpy(o + i, t, 8);
        } else
            _mm_storel_epi64((__m128i *)(void *)(o + i), q);
    }
    return i;
}
#endif

#include "arm64/rt_a64_addsub_s8.h" /* the AArch64 lanes (RT_A64): ADD, SUB, SQUARED_DIFFERENCE */
#include "arm64/rt_a64_mul_s8.h"    /* and MUL */
#include "arm64/rt_a64_mean_s8.h"   /* and MEAN's */

static void addsub_run(const rt_binary_params *p, const int8_t *a, int64_t sa, const int8_t *b, int64_t sb, int8_t *o,
                       int64_t n, int sign) {
    int64_t i = 0;
    const int float_ok = p->fq_mode && (sa == 0 || sa == 1) && (sb == 0 || sb == 1);
    (void)float_ok;
#if defined(RT_OPT_AVX512)
    if (float_ok && p->fq_mode == 2 && sa == 1 && sb == 1 && n >= 64) i = addsub64_float(p, a, b, o, n);
    if (float_ok && n - i >= 16)
        i += addsub16_float(p, a + i * sa, sa, b + i * sb, sb, o + i, n - i, sign);
    else if (!float_ok && (sa == 0 || sa == 1) && (sb == 0 || sb == 1) && vec_shift(p->in1_shift) && vec_shift(p->in2_shift) &&
        vec_shift(p->out_shift) && p->left_shift >= 0 && p->left_shift <= 23)
        i = addsub16(p, a, sa, b, sb, o, n, sign);
#endif
#if defined(RT_OPT_AVX2) && defined(__FMA__)
    if (float_ok && i + 8 <= n) i += addsub8_float(p, a + i * sa, sa, b + i * sb, sb, o + i, n - i, sign);
#endif
#if defined(RT_OPT_AVX2)
    if ((sa == 0 || sa == 1) && (sb == 0 || sb == 1) && vec_shift(p->in1_shift) && vec_shift(p->in2_shift) &&
        vec_shift(p->out_shift) && p->left_shift >= 0 && p->left_shift <= 23) {
        const rescale8 k = rescale8_init(p);
        for (; i + 8 <= n; i += 8) {
            __m256i rx, ry, raw, r;
            rescale_inputs8(&k, load8(a, sa, i), load8(b, sb, i), &rx, &ry);
            raw = sign > 0 ? _mm256_add_epi32(rx, ry) : _mm256_sub_epi32(rx, ry);
            r = _mm256_add_epi32(rq_double8(raw, k.mo, k.eo), k.oo);
            r = _mm256_min_epi32(_mm256_max_epi32(r, k.lo), k.hi);
            _mm_storel_epi64((__m128i *)(void *)(o + i), pack8(r));
        }
    }
#endif
#if defined(RT_A64)
    if (rt_a64_rescaled_s8_ok(p, sa, sb, sign)) i = rt_a64_rescaled_s8(p, a, sa, b, sb, o, n, sign);
#endif
    for (; i < n; i++) o[i] = (int8_t)rt_addsub_q(p, a[i * sa], b[i * sb], sign);
}

void rt_opt_add_run_i8(const rt_binary_params *p, const int8_t *a, int64_t sa, const int8_t *b, int64_t sb, int8_t *o,
                       int64_t n) {
    addsub_run(p, a, sa, b, sb, o, n, 1);
}

static void sub_run(const rt_binary_params *p, const int8_t *a, int64_t sa, const int8_t *b, int64_t sb, int8_t *o,
                    int64_t n) {
    addsub_run(p, a, sa, b, sb, o, n, -1);
}

static void mul_run(const rt_binary_params *p, const int8_t *a, int64_t sa, const int8_t *b, int64_t sb, int8_t *o,
                    int64_t n) {
    int64_t i = 0;
#if defined(RT_OPT_AVX2)
    if ((sa == 0 || sa == 1) && (sb == 0 || sb == 1) && vec_shift(p->out_shift)) {
        const __m256i o1 = _mm256_set1_epi32(p->in1_offset), o2 = _mm256_set1_epi32(p->in2_offset);
        const __m256i mo = _mm256_set1_epi32(p->out_mult), eo = _mm256_set1_epi32(p->out_shift);
        const __m256i oo = _mm256_set1_epi32(p->out_offset);
        const __m256i lo = _mm256_set1_epi32(p->act_qmin), hi = _mm256_set1_epi32(p->act_qmax);
        for (; i + 8 <= n; i += 8) {
            __m256i prod = _mm256_mullo_epi32(_mm256_add_epi32(load8(a, sa, i), o1), _mm256_add_epi32(load8(b, sb, i), o2));
            __m256i r = _mm256_add_epi32(rq_double8(prod, mo, eo), oo);
            r = _mm256_min_epi32(_mm256_max_epi32(r, lo), hi);
            _mm_storel_epi64((__m128i *)(void *)(o + i), pack8(r));
        }
    }
#endif
#if defined(RT_A64)
    if (rt_a64_mul_s8_ok(p, sa, sb)) i = rt_a64_mul_s8(p, a, sa, b, sb, o, n);
#endif
    for (; i < n; i++) o[i] = mul_i8(p, a[i * sa], b[i * sb]);
}

/* SQUARED_DIFFERENCE int8: both inputs rescaled to the common scale, the
 * difference squared (fits int32: |diff| < 2^15 with TFLite's left shift
 * of 7) and requantized, 8 lanes at a time as the reference computes it. */
static void sqdiff_run(const rt_binary_params *p, const int8_t *a, int64_t sa, const int8_t *b, int64_t sb, int8_t *o,
                       int64_t n) {
    int64_t i = 0;
#if defined(RT_OPT_AVX2)
    if ((sa == 0 || sa == 1) && (sb == 0 || sb == 1) && vec_shift(p->in1_shift) && vec_shift(p->in2_shift) &&
        vec_shift(p->out_shift) && p->left_shift >= 0 && p->left_shift <= 7) {
        const rescale8 k = rescale8_init(p);
        for (; i + 8 <= n; i += 8) {
            __m256i rx, ry, raw, r;
            rescale_inputs8(&k, load8(a, sa, i), load8(b, sb, i), &rx, &ry);
            raw = _mm256_sub_epi32(rx, ry);
            r = _mm256_add_epi32(rq_double8(_mm256_mullo_epi32(raw, raw), k.mo, k.eo), k.oo);
            r = _mm256_min_epi32(_mm256_max_epi32(r, k.lo), k.hi);
            _mm_storel_epi64((__m128i *)(void *)(o + i), pack8(r));
        }
    }
#endif
#if defined(RT_A64)
    if (rt_a64_rescaled_s8_ok(p, sa, sb, 0)) i = rt_a64_rescaled_s8(p, a, sa, b, sb, o, n, 0);
#endif
    for (; i < n; i++) o[i] = sqdiff_i8(p, a[i * sa], b[i * sb]);
}

void rt_opt_squared_difference_i8(const rt_binary_params *p, const int8_t *a, const int8_t *b, int8_t *out) {
    walk_i8(p, a, b, out, sqdiff_run);
}

void rt_opt_add_i8(const rt_binary_params *p, const int8_t *a, const int8_t *b, int8_t *out) {
    walk_i8(p, a, b, out, rt_opt_add_run_i8);
}

void rt_opt_sub_i8(const rt_binary_params *p, const int8_t *a, const int8_t *b, int8_t *out) {
    walk_i8(p, a, b, out, sub_run);
}

void rt_opt_mul_i8(const rt_binary_params *p, const int8_t *a, const int8_t *b, int8_t *out) {
    walk_i8(p, a, b, out, mul_run);
}

/* The reduction as outer x reduced x inner blocks when the reduced axes (of size > 1) are adjacent:
 * 0 when they are not. */
int rt_opt_reduce_blocks(const rt_reduce_params *p, int64_t *outer, int64_t *reduced, int64_t *inner) {
    int32_t d, first = p->rank, last = -1, state = 0; /* 0 before the reduced axes, 1 in them, 2 after */
    for (d = 0; d < p->rank; d++) {
        if (p->in_dims[d] == 1) continue;
        if (p->out_stride[d] == 0) {
            if (state == 2) return 0;
            state = 1, first = first < d ? first : d, last = d;
        } else if (state == 1) {
            state = 2;
        }
    }
    *outer = *reduced = *inner = 1;
    for (d = 0; d < p->rank; d++) {
        if (d < first) *outer *= p->in_dims[d];
        else if (d <= last) *reduced *= p->in_dims[d];
        else *inner *= p->in_dims[d];
    }
    return *outer * *reduced * *inner == p->in_count && *reduced == p->reduce_count;
}

/* Quantized MEAN over adjacent axes (global average pooling above all): the kept inner axis summed in
 * wrapping uint32 lanes, the same sums and the same rt_mean_q as the reference. */
void rt_opt_mean_i8(const rt_reduce_params *p, const int8_t *in, int8_t *out, void *scratch) {
    uint32_t *sum = scratch;
    int64_t outer, red, inner, o, r, i;
    if (!rt_opt_reduce_blocks(p, &outer, &red, &inner)) {
        rt_mean_i8(p, in, out, scratch);
        return;
    }
    for (o = 0; o < outer; o++) {
        const int8_t *src = in + o * red * inner;
        int64_t i0 = 0; /* the channels done on lanes (AArch64) */
#if defined(RT_A64)
        if (rt_a64_mean_s8_ok(p)) i0 = rt_a64_mean_s8(p, src, red, inner, out + o * inner);
#endif
        for (i = i0; i < inner; i++) sum[i] = 0;
        for (r = 0; r < red; r++)
            for (i = i0; i < inner; i++) sum[i] += (uint32_t)(int32_t)src[r * inner + i];
        i = i0;
#if defined(RT_OPT_AVX512)
        if (p->reduce_count > 0 && p->shift <= 0) { /* rt_mean_q 16 lanes at a time (right shifts only) */
            const rq16 k = rq16_prepare(_mm512_set1_epi32(p->mult), _mm512_set1_epi32(p->shift));
            const __m512i zc = _mm512_set1_epi32((int32_t)((uint32_t)p->in_zp * (uint32_t)p->reduce_count));
            const __m512i oz = _mm512_set1_epi32(p->out_zp), lo = _mm512_set1_epi32(-128), hi = _mm512_set1_epi32(127);
            for (; i + 16 <= inner; i += 16) {
                __m512i x = _mm512_sub_epi32(_mm512_loadu_si512((const void *)(sum + i)), zc);
                x = _mm512_add_epi32(rq16_apply(x, &k), oz);
                x = _mm512_min_epi32(_mm512_max_epi32(x, lo), hi);
                _mm_storeu_si128((__m128i *)(void *)(out + o * inner + i), _mm512_cvtepi32_epi8(x));
            }
        }
#endif
        for (; i < inner; i++)
            out[o * inner + i] = p->reduce_count > 0 ? (int8_t)rt_mean_q(p, (int32_t)sum[i], -128, 127) : 0;
    }
}

/* MEAN over adjacent axes: over trailing ones (the LayerNorm case) one
 * contiguous row per output, else (global average pooling) whole rows of the
 * kept inner axis added up; each output sums its inputs in the reference's
 * order, so the result is identical. */
void rt_opt_mean_f32(const rt_reduce_params *p, const float *in, float *out) {
    int64_t outer, red, inner, o, r, i, n = p->reduce_count;
    if (!rt_opt_reduce_blocks(p, &outer, &red, &inner)) {
        rt_mean_f32(p, in, out);
        return;
    }
    for (o = 0; o < outer; o++) {
        const float *src = in + o * red * inner;
        float *dst = out + o * inner;
        if (inner == 1) {
            float s = 0.0f;
            for (r = 0; r < red; r++) s += src[r];
            dst[0] = s;
        } else {
            for (i = 0; i < inner; i++) dst[i] = 0.0f;
            for (r = 0; r < red; r++)
                for (i = 0; i < inner; i++) dst[i] += src[r * inner + i];
        }
        if (n > 0)
            for (i = 0; i < inner; i++) dst[i] = dst[i] / (float)n;
    }
}
