/* rt_opt_internal.h - helpers shared by the optimized kernels (not API). */
#ifndef MPCC_RT_OPT_INTERNAL_H
#define MPCC_RT_OPT_INTERNAL_H

#include <stdint.h>
#include <string.h>

/* GNU C vector extensions and intrinsics (the vector paths of the GEMM kernels). */
#if defined(__GNUC__) && !defined(RT_OPT_SCALAR)
#define RT_OPT_VEC 1
#endif
#if defined(__GNUC__)
#define RT_OPT_INLINE static inline __attribute__((always_inline))
#else
#define RT_OPT_INLINE static inline
#endif

/* TFLite MultiplyByQuantizedMultiplier (double rounding), branch-free so the
 * compiler vectorizes the row loop; equal to rt_mul_by_quantized_multiplier. */
static inline int32_t rq_double(int32_t x, int32_t m, int32_t s) {
    int32_t left = s > 0 ? s : 0, right = s > 0 ? 0 : -s;
    int64_t xs = (int64_t)x * ((int64_t)1 << left);
    int64_t ab, t;
    int32_t q, mask, rem, thr;
    xs = xs > INT32_MAX ? INT32_MAX : (xs < INT32_MIN ? INT32_MIN : xs);
    ab = xs * (int64_t)m;
    t = ab + (ab >= 0 ? ((int64_t)1 << 30) : (1 - ((int64_t)1 << 30)));
    q = (int32_t)(t / ((int64_t)1 << 31));
    if (xs == INT32_MIN && m == INT32_MIN) q = INT32_MAX;
    mask = (int32_t)(((int64_t)1 << right) - 1);
    rem = q & mask;
    thr = (mask >> 1) + (q < 0 ? 1 : 0);
    return (q >> right) + (rem > thr ? 1 : 0);
}

/* The FC variant: one rounding shift of the 64-bit product. */
static inline int32_t rq_single(int32_t x, int32_t m, int32_t s) {
    int32_t total = 31 - s;
    int64_t r = ((int64_t)x * (int64_t)m + ((int64_t)1 << (total - 1))) >> total;
    return (int32_t)(r > INT32_MAX ? INT32_MAX : (r < INT32_MIN ? INT32_MIN : r));
}

/* a * b + c with one rounding where the target has FMA: the same result whether or not the build lets
 * the compiler contract (ISO modes such as -std=c99 do not, and the polynomials and row loops below ran
 * 5% slower in BERT for it), else a multiply and an add. */
#if defined(__GNUC__) && (defined(__FMA__) || defined(__ARM_FEATURE_FMA)) && !defined(RT_OPT_SCALAR)
#define RT_FMAF(a, b, c) __builtin_fmaf((a), (b), (c))
#else
#define RT_FMAF(a, b, c) ((a) * (b) + (c))
#endif

/* exp(x) in float, vectorizable (no branches, no libm call): 2^n * P(r) with
 * x = n ln2 + r, |r| <= ln2/2, and a degree-7 polynomial (Cephes' expf
 * coefficients, public domain); relative error about 2 ulp. x is clamped to
 * [-87, 88] (exp(-87) ~ 1.6e-38 stands in for underflow, no denormals; a NaN gives it too). */
static inline float rt_opt_expf_clamped(float x) {
    float n, r, p, s;
    int32_t e;
    x = x >= -87.0f ? x : -87.0f; /* a NaN too, so that no NaN reaches the integer conversion (UB) */
    x = x > 88.0f ? 88.0f : x;
    n = RT_FMAF(x, 1.44269504088896341f, 12582912.0f); /* round to nearest integer */
    n -= 12582912.0f;
    r = RT_FMAF(n, -0.693359375f, x);
    r = RT_FMAF(n, 2.12194440e-4f, r);
    p = 1.9875691500e-4f;
    p = RT_FMAF(p, r, 1.3981999507e-3f);
    p = RT_FMAF(p, r, 8.3334519073e-3f);
    p = RT_FMAF(p, r, 4.1665795894e-2f);
    p = RT_FMAF(p, r, 1.6666665459e-1f);
    p = RT_FMAF(p, r, 5.0000001201e-1f);
    p = RT_FMAF(p * r, r, r) + 1.0f;
    e = ((int32_t)n + 127) * (1 << 23);
    memcpy(&s, &e, sizeof s);
    return p * s;
}

/* The same, NaN in, NaN out. (A select whose arm multiplies keeps GCC 12 from vectorizing the loop
 * under the default -ftrapping-math; loops that must vectorize call rt_opt_expf_clamped and blend.) */
static inline float rt_opt_expf(float x) {
    const float y = rt_opt_expf_clamped(x);
    return x == x ? y : x;
}

/* erfc(z), vectorizable: Abramowitz & Stegun 7.1.26 (absolute error below
 * 1.5e-7) with erfc(-z) = 2 - erfc(z). */
static inline float rt_opt_erfcf(float z) {
    float a = z < 0.0f ? -z : z, t = 1.0f / (1.0f + 0.3275911f * a), q;
    q = RT_FMAF(t, 1.061405429f, -1.453152027f);
    q = RT_FMAF(t, q, 1.421413741f);
    q = RT_FMAF(t, q, -0.284496736f);
    q = t * RT_FMAF(t, q, 0.254829592f);
    q *= rt_opt_expf(-a * a);
    return z < 0.0f ? 2.0f - q : q;
}

#if defined(__GNUC__) && defined(__AVX2__) && !defined(RT_OPT_SCALAR)
#include <immintrin.h>
#define RT_OPT_AVX2 1

/* 8 floats rounded to bf16 as rt_f32_to_bf16 does (nearest even; NaN quiet; a subnormal to a signed zero),
 * returned as the floats' bits (the bf16 in the high halves, zero low halves). Without AVX512-BF16 this
 * is the vector form of the rounding the 16-bit kernels do on every input row and stored activation. */
static inline __m256i rt_round8_bf16(__m256 v) {
    const __m256i u = _mm256_castps_si256(v), high = _mm256_set1_epi32((int32_t)0xFFFF0000u);
    const __m256i lsb = _mm256_and_si256(_mm256_srli_epi32(u, 16), _mm256_set1_epi32(1));
    __m256i r = _mm256_and_si256(_mm256_add_epi32(_mm256_add_epi32(u, _mm256_set1_epi32(0x7FFF)), lsb), high);
    const __m256i nan = _mm256_cmpgt_epi32(_mm256_and_si256(u, _mm256_set1_epi32(0x7FFFFFFF)), _mm256_set1_epi32(0x7F800000));
    const __m256i denorm = _mm256_cmpeq_epi32(_mm256_and_si256(u, _mm256_set1_epi32(0x7F800000)), _mm256_setzero_si256());
    r = _mm256_blendv_epi8(r, _mm256_or_si256(_mm256_and_si256(u, high), _mm256_set1_epi32(0x00400000)), nan);
    return _mm256_blendv_epi8(r, _mm256_and_si256(u, _mm256_set1_epi32((int32_t)0x80000000u)), denorm);
}

#if defined(__AVX512F__)
/* Lane indices of the K-pair micro-kernels (rt_opt_gemm*.c) for _mm512_permutex2var_*(x0, idx, x1): the
 * first (rt_zip_lo) or last (rt_zip_hi) 8 lanes of x0 and x1 interleaved, x0[i] x1[i] x0[i+1] ...; and
 * the even (rt_unzip_even) or odd lanes of x0 then of x1, which undo the zip: a kernel that accumulated
 * zipped panel rows adds the even and odd lanes of its two accumulators to get each column's sum. */
static inline __m512i rt_zip_lo(void) { return _mm512_set_epi32(23, 7, 22, 6, 21, 5, 20, 4, 19, 3, 18, 2, 17, 1, 16, 0); }
static inline __m512i rt_zip_hi(void) {
    return _mm512_set_epi32(31, 15, 30, 14, 29, 13, 28, 12, 27, 11, 26, 10, 25, 9, 24, 8);
}
static inline __m512i rt_unzip_even(void) {
    return _mm512_set_epi32(30, 28, 26, 24, 22, 20, 18, 16, 14, 12, 10, 8, 6, 4, 2, 0);
}
static inline __m512i rt_unzip_odd(void) { return _mm512_add_epi32(rt_unzip_even(), _mm512_set1_epi32(1)); }
#endif

/* Arithmetic right shift of 64-bit lanes by per-lane counts (AVX2 has only
 * the logical one): flip negatives, shift, flip back. */
static inline __m256i sra64(__m256i t, __m256i count) {
    __m256i sign = _mm256_cmpgt_epi64(_mm256_setzero_si256(), t);
    return _mm256_xor_si256(_mm256_srlv_epi64(_mm256_xor_si256(t, sign), count), sign);
}

/* 64-bit products of even lanes (low) and odd lanes (high) of x * m. */
static inline void mul_lanes(__m256i x, __m256i m, __m256i *even, __m256i *odd) {
    *even = _mm256_mul_epi32(x, m);
    *odd = _mm256_mul_epi32(_mm256_srli_epi64(x, 32), _mm256_srli_epi64(m, 32));
}

/* Low 32 bits of even/odd 64-bit lanes back into one vector of 8. */
static inline __m256i join_lanes(__m256i even, __m256i odd) {
    return _mm256_blend_epi32(even, _mm256_slli_epi64(odd, 32), 0xAA);
}

static inline __m256i rq_double8(__m256i x, __m256i m, __m256i s) {
    /* TFLite's (ab + nudge) / 2^31 toward zero, nudge 2^30 or 1 - 2^30 by the sign of ab, equals
     * floor((ab + 2^30) / 2^31) for every ab (ab < 0: -floor((2^30 - 1 - ab) / 2^31) is
     * ceil((-ab - 2^30) / 2^31) negated), and its low 32 bits are bits 31..62 of ab + 2^30 (a logical
     * shift gives them as well as an arithmetic one): one add and one shift per 64-bit lane, no sign
     * selects. (m = x = INT32_MIN, saturated by TFLite, wraps here as it did before; multipliers are
     * positive.) */
    const __m256i zero = _mm256_setzero_si256(), one = _mm256_set1_epi32(1);
    const __m256i half = _mm256_set1_epi64x((int64_t)1 << 30);
    __m256i e, o, q, right = _mm256_sub_epi32(zero, s), mask, rem, thr;
    mul_lanes(x, m, &e, &o);
    e = _mm256_srli_epi64(_mm256_add_epi64(e, half), 31);
    o = _mm256_slli_epi64(_mm256_add_epi64(o, half), 1); /* bits 31..62 into the high half */
    q = _mm256_blend_epi32(e, o, 0xAA);
    /* Rounding divide by 2^right, ties away from zero. */
    mask = _mm256_sub_epi32(_mm256_sllv_epi32(one, right), one);
    rem = _mm256_and_si256(q, mask);
    thr = _mm256_sub_epi32(_mm256_srai_epi32(mask, 1), _mm256_srai_epi32(q, 31));
    return _mm256_sub_epi32(_mm256_srav_epi32(q, right), _mm256_cmpgt_epi32(rem, thr));
}

static inline __m256i rq_single8(__m256i x, __m256i m, __m256i s) {
    __m256i e, o, total = _mm256_sub_epi32(_mm256_set1_epi32(31), s);
    /* Per-lane 64-bit shift counts for the even and odd lanes. */
    __m256i t_e = _mm256_and_si256(total, _mm256_set1_epi64x(0xFFFFFFFF)), t_o = _mm256_srli_epi64(total, 32);
    __m256i one = _mm256_set1_epi64x(1);
    mul_lanes(x, m, &e, &o);
    e = sra64(_mm256_add_epi64(e, _mm256_sllv_epi64(one, _mm256_sub_epi64(t_e, one))), t_e);
    o = sra64(_mm256_add_epi64(o, _mm256_sllv_epi64(one, _mm256_sub_epi64(t_o, one))), t_o);
    return join_lanes(e, o);
}

/* TFLite's double (or single) rounding of 8 lanes with the output zero point z, as one logical shift per
 * 64-bit product, its constants made once per channel group (rq8k_prepare; m and s: the lanes' multipliers
 * and shifts, every shift in [-31, 0]). Double: floor((x m + 2^30 + 2^(e-1) 2^31 - [x m < -2^30] 2^31) /
 * 2^(31+e)) (rq16_prepare_z's derivation; e = -s); single: floor((x m + 2^(t-1)) / 2^t), t = 31 + e. AVX2 has
 * no arithmetic 64-bit shift, so 2^62 is added first (|x m| < 2^62: the sum is never negative) and 2^(31-e)
 * subtracted after the logical shift, with z (post). plain: the negative-product correction left out, which
 * changes nothing for the single rounding or where the lower bound is at or above z (the result <= z then
 * either way). */
typedef struct rq8k {
    __m256i m, m_o, k_e, k_o, t_e, t_o, c_e, c_o, post;
} rq8k;

static inline rq8k rq8k_prepare(__m256i m, __m256i s, int32_t z, int single) {
    const __m256i one = _mm256_set1_epi64x(1), zero = _mm256_setzero_si256();
    const __m256i big = _mm256_set1_epi64x((int64_t)1 << 62), nudge = _mm256_set1_epi64x((int64_t)1 << 30);
    const __m256i right = _mm256_sub_epi32(zero, s);
    const __m256i r_e = _mm256_and_si256(right, _mm256_set1_epi64x(0xFFFFFFFF)), r_o = _mm256_srli_epi64(right, 32);
    const __m256i r31 = _mm256_set1_epi64x(31), two31 = _mm256_set1_epi64x((int64_t)1 << 31);
    __m256i h_e, h_o;
    rq8k k;
    k.m = m, k.m_o = _mm256_srli_epi64(m, 32);
    k.t_e = _mm256_add_epi64(r_e, r31), k.t_o = _mm256_add_epi64(r_o, r31);
    if (single) {
        h_e = _mm256_sllv_epi64(one, _mm256_sub_epi64(k.t_e, one));
        h_o = _mm256_sllv_epi64(one, _mm256_sub_epi64(k.t_o, one));
        k.c_e = k.c_o = zero;
    } else {
        h_e = _mm256_add_epi64(nudge, _mm256_slli_epi64(_mm256_srli_epi64(_mm256_sllv_epi64(one, r_e), 1), 31));
        h_o = _mm256_add_epi64(nudge, _mm256_slli_epi64(_mm256_srli_epi64(_mm256_sllv_epi64(one, r_o), 1), 31));
        k.c_e = _mm256_andnot_si256(_mm256_cmpeq_epi64(r_e, zero), two31);
        k.c_o = _mm256_andnot_si256(_mm256_cmpeq_epi64(r_o, zero), two31);
    }
    k.k_e = _mm256_add_epi64(h_e, big), k.k_o = _mm256_add_epi64(h_o, big);
    /* z - 2^(31-e) in 32-bit lanes (2^31 wraps, as the low half of the shifted sum does) */
    k.post = _mm256_sub_epi32(_mm256_set1_epi32(z),
                              _mm256_sllv_epi32(_mm256_set1_epi32(1), _mm256_sub_epi32(_mm256_set1_epi32(31), right)));
    return k;
}

static inline __m256i rq8k_apply(__m256i x, const rq8k *k, int plain) {
    const __m256i lim = _mm256_set1_epi64x(-((int64_t)1 << 30));
    __m256i e = _mm256_mul_epi32(x, k->m), o = _mm256_mul_epi32(_mm256_srli_epi64(x, 32), k->m_o);
    if (!plain) {
        e = _mm256_sub_epi64(e, _mm256_and_si256(_mm256_cmpgt_epi64(lim, e), k->c_e));
        o = _mm256_sub_epi64(o, _mm256_and_si256(_mm256_cmpgt_epi64(lim, o), k->c_o));
    }
    e = _mm256_srlv_epi64(_mm256_add_epi64(e, k->k_e), k->t_e);
    o = _mm256_srlv_epi64(_mm256_add_epi64(o, k->k_o), k->t_o);
    return _mm256_add_epi32(_mm256_blend_epi32(e, _mm256_slli_epi64(o, 32), 0xAA), k->post);
}

/* 8 int32 lanes already clamped to [-128, 127] -> 8 int8 in the low 64 bits. */
static inline __m128i pack8(__m256i v) {
    __m256i h = _mm256_packs_epi32(v, v);
    __m256i w = _mm256_packs_epi16(h, h);
    return _mm_unpacklo_epi32(_mm256_castsi256_si128(w), _mm256_extracti128_si256(w, 1));
}
#endif

#if defined(RT_OPT_AVX2) && defined(__AVX512F__) && defined(__AVX512BW__)
#define RT_OPT_AVX512 1
/* 16 floats under lane mask k, by plain moves when k is whole: a masked move costs several plain ones on
 * some CPUs (Zen 5 here) even with every lane set, and rows of 17 or 33 values are mostly whole vectors. */
static inline __m512 rt_load16(__mmask16 k, const float *x) {
    return k == 0xFFFF ? _mm512_loadu_ps(x) : _mm512_maskz_loadu_ps(k, x);
}
static inline void rt_store16(float *y, __mmask16 k, __m512 v) {
    if (k == 0xFFFF) _mm512_storeu_ps(y, v);
    else _mm512_mask_storeu_ps(y, k, v);
}
#if defined(__AVX512BF16__) && defined(__AVX512VL__)
/* v rounded to bf16 (vcvtneps2bf16, as rt_f32_to_bf16) into the lanes k of y, plain when whole. */
static inline void rt_store16_bf16(uint16_t *y, __mmask16 k, __m512 v) {
    const __m256i h = (__m256i)_mm512_cvtneps_pbh(v);
    if (k == 0xFFFF) _mm256_storeu_si256((__m256i *)(void *)y, h);
    else _mm256_mask_storeu_epi16((void *)y, k, h);
}
#endif
/* 16 rows of 16 floats transposed in registers: r[i] = row i -> r[i] = column i (K panels of the
 * attention, its 16-row softmax sums). */
static inline void transpose16(__m512 r[16]) { /* r[i] = row i -> r[i] = column i */
    __m512 t[16], u[16];
    int i;
    for (i = 0; i < 8; i++) {
        t[2 * i] = _mm512_unpacklo_ps(r[2 * i], r[2 * i + 1]);
        t[2 * i + 1] = _mm512_unpackhi_ps(r[2 * i], r[2 * i + 1]);
    }
    for (i = 0; i < 4; i++) {
        u[4 * i] = _mm512_shuffle_ps(t[4 * i], t[4 * i + 2], 0x44);
        u[4 * i + 1] = _mm512_shuffle_ps(t[4 * i], t[4 * i + 2], 0xEE);
        u[4 * i + 2] = _mm512_shuffle_ps(t[4 * i + 1], t[4 * i + 3], 0x44);
        u[4 * i + 3] = _mm512_shuffle_ps(t[4 * i + 1], t[4 * i + 3], 0xEE);
    }
    for (i = 0; i < 4; i++) {
        t[i] = _mm512_shuffle_f32x4(u[i], u[4 + i], 0x88);
        t[4 + i] = _mm512_shuffle_f32x4(u[i], u[4 + i], 0xDD);
        t[8 + i] = _mm512_shuffle_f32x4(u[8 + i], u[12 + i], 0x88);
        t[12 + i] = _mm512_shuffle_f32x4(u[8 + i], u[12 + i], 0xDD);
    }
    for (i = 0; i < 4; i++) {
        r[i] = _mm512_shuffle_f32x4(t[i], t[8 + i], 0x88);
        r[8 + i] = _mm512_shuffle_f32x4(t[i], t[8 + i], 0xDD);
        r[4 + i] = _mm512_shuffle_f32x4(t[4 + i], t[12 + i], 0x88);
        r[12 + i] = _mm512_shuffle_f32x4(t[4 + i], t[12 + i], 0xDD);
    }
}

/* The same requantizations on 16 lanes (AVX-512: native 64-bit arithmetic
 * shifts and mask registers). */
static inline __m512i join16(__m512i even, __m512i odd) {
    /* one two-source permute (the low halves of both's 64-bit lanes, alternately), not a shift and a blend */
    return _mm512_permutex2var_epi32(even, _mm512_set_epi32(30, 14, 28, 12, 26, 10, 24, 8, 22, 6, 20, 4, 18, 2, 16, 0),
                                     odd);
}

/* TFLite's double rounding in 64-bit lanes: the doubling high multiply with
 * its nudge and truncation toward zero equals q = floor((x m + 2^30) / 2^31)
 * (the two nudges differ by one where the truncations differ), and the
 * rounding divide by 2^e (ties away from zero) equals
 * (q + 2^(e-1) - [q < 0]) >> e for e > 0. Adding an integer commutes with
 * floor, so both steps are one shift of x m + 2^30 + (2^(e-1) - [q < 0]) 2^31
 * by 31 + e, where q < 0 exactly when x m < -2^30: a multiply, a compare, an
 * add, a masked subtract and a shift per half of the lanes (|x m| < 2^62, so
 * nothing overflows). m must not be INT32_MIN. */
typedef struct rq16 {
    __m512i m, m_o, k_e, k_o, s_e, s_o; /* multipliers (m_o: the odd lanes'); 2^30 + 2^(e-1) 2^31 [+ z 2^(31+e)]
                                           and 31 + e of the even and odd lanes */
    __m512i post;                       /* z when it is not folded into k_e/k_o, else 0 */
    __mmask8 nz_e, nz_o;                /* lanes with a right shift (e > 0) */
    int folded;                         /* z is in k_e/k_o */
    int plain;                          /* rq16_apply_zb may skip the negative-product correction (rq16_bound) */
} rq16;

/* The per-lane constants of rq_double16, made once per panel or channel group,
 * with the output zero point z added to the results (rq16_apply_z). Adding
 * z 2^(31+e) before the shift adds z after it (a multiple of the divisor
 * commutes with floor), so z costs nothing where it fits: |x m| < 2^62, and
 * with e <= 23 the addend stays below 2^62, so the sum cannot overflow. */
static inline rq16 rq16_prepare_z(__m512i m, __m512i s, int32_t z) {
    const __m512i one = _mm512_set1_epi64(1), right = _mm512_sub_epi32(_mm512_setzero_si512(), s);
    const __m512i nudge = _mm512_set1_epi64((int64_t)1 << 30), r31 = _mm512_set1_epi64(31);
    __m512i r_e = _mm512_and_si512(right, _mm512_set1_epi64(0xFFFFFFFF)), r_o = _mm512_srli_epi64(right, 32);
    rq16 k;
    k.m = m;
    k.m_o = _mm512_srli_epi64(m, 32);
    k.k_e = _mm512_add_epi64(nudge, _mm512_slli_epi64(_mm512_srli_epi64(_mm512_sllv_epi64(one, r_e), 1), 31));
    k.k_o = _mm512_add_epi64(nudge, _mm512_slli_epi64(_mm512_srli_epi64(_mm512_sllv_epi64(one, r_o), 1), 31));
    k.s_e = _mm512_add_epi64(r_e, r31), k.s_o = _mm512_add_epi64(r_o, r31);
    k.nz_e = _mm512_test_epi64_mask(r_e, r_e), k.nz_o = _mm512_test_epi64_mask(r_o, r_o);
    k.folded = _mm512_cmpgt_epi32_mask(right, _mm512_set1_epi32(23)) == 0;
    k.plain = 0;
    k.post = _mm512_set1_epi32(k.folded ? 0 : z);
    if (k.folded && z) {
        const __m512i zz = _mm512_set1_epi64(z);
        k.k_e = _mm512_add_epi64(k.k_e, _mm512_sllv_epi64(zz, k.s_e));
        k.k_o = _mm512_add_epi64(k.k_o, _mm512_sllv_epi64(zz, k.s_o));
    }
    return k;
}

static inline rq16 rq16_prepare(__m512i m, __m512i s) { return rq16_prepare_z(m, s, 0); }

static inline __m512i rq16_apply(__m512i x, const rq16 *k) {
    const __m512i lim = _mm512_set1_epi64(-((int64_t)1 << 30)), two31 = _mm512_set1_epi64((int64_t)1 << 31);
    __m512i e = _mm512_mul_epi32(x, k->m), o = _mm512_mul_epi32(_mm512_srli_epi64(x, 32), k->m_o);
    __mmask8 ne = _mm512_mask_cmplt_epi64_mask(k->nz_e, e, lim), no = _mm512_mask_cmplt_epi64_mask(k->nz_o, o, lim);
    e = _mm512_add_epi64(e, k->k_e);
    o = _mm512_add_epi64(o, k->k_o);
    e = _mm512_srav_epi64(_mm512_mask_sub_epi64(e, ne, e, two31), k->s_e);
    o = _mm512_srav_epi64(_mm512_mask_sub_epi64(o, no, o, two31), k->s_o);
    return join16(e, o);
}

/* rq16_apply plus the zero point given to rq16_prepare_z. */
static inline __m512i rq16_apply_z(__m512i x, const rq16 *k) {
    const __m512i v = rq16_apply(x, k);
    return k->folded ? v : _mm512_add_epi32(v, k->post);
}

/* Clamps int32 lanes to the bounds of [lo, hi] (within [-128, 127]) that
 * are not int8 limits: a saturating narrowing (vpmovsdb) must follow, and
 * applies those (ReLU6-style ranges often are the full int8 range). */
static inline __m512i clamp16_i8(__m512i v, int32_t lo, int32_t hi) {
    if (lo > -128) v = _mm512_max_epi32(v, _mm512_set1_epi32(lo));
    if (hi < 127) v = _mm512_min_epi32(v, _mm512_set1_epi32(hi));
    return v;
}

static inline __m512i rq_double16(__m512i x, __m512i m, __m512i s) {
    const rq16 k = rq16_prepare(m, s);
    return rq16_apply(x, &k);
}

/* TFLite's single rounding, (x m + 2^(t-1)) >> t with t = 31 - shift in 64-bit lanes, as an rq16: k_e/k_o
 * = 2^(t-1) [+ z 2^t: the zero point folded where every t <= 54, so |x m| < 2^62 plus both stays within
 * int64], s_e/s_o = t, no negative-product corrections (nz_e/nz_o empty); applied by rq16_apply_single. */
static inline rq16 rq16_prepare_single_z(__m512i m, __m512i s, int32_t z) {
    const __m512i one = _mm512_set1_epi64(1), total = _mm512_sub_epi32(_mm512_set1_epi32(31), s);
    const __m512i t_e = _mm512_and_si512(total, _mm512_set1_epi64(0xFFFFFFFF)), t_o = _mm512_srli_epi64(total, 32);
    rq16 k;
    k.m = m;
    k.m_o = _mm512_srli_epi64(m, 32);
    k.k_e = _mm512_sllv_epi64(one, _mm512_sub_epi64(t_e, one));
    k.k_o = _mm512_sllv_epi64(one, _mm512_sub_epi64(t_o, one));
    k.s_e = t_e, k.s_o = t_o;
    k.nz_e = k.nz_o = 0;
    k.folded = _mm512_cmpgt_epi32_mask(total, _mm512_set1_epi32(54)) == 0;
    k.plain = 0;
    k.post = _mm512_set1_epi32(k.folded ? 0 : z);
    if (k.folded && z) {
        const __m512i zz = _mm512_set1_epi64(z);
        k.k_e = _mm512_add_epi64(k.k_e, _mm512_sllv_epi64(zz, t_e));
        k.k_o = _mm512_add_epi64(k.k_o, _mm512_sllv_epi64(zz, t_o));
    }
    return k;
}

static inline __m512i rq16_apply_single(__m512i x, const rq16 *k) {
    __m512i e = _mm512_mul_epi32(x, k->m), o = _mm512_mul_epi32(_mm512_srli_epi64(x, 32), k->m_o);
    e = _mm512_srav_epi64(_mm512_add_epi64(e, k->k_e), k->s_e);
    o = _mm512_srav_epi64(_mm512_add_epi64(o, k->k_o), k->s_o);
    return join16(e, o);
}

/* For results the caller clamps below by lo (a fused ReLU / ReLU6) with lo at or above the zero point z
 * (folded into k): a negative product gives q <= 0 with or without the double rounding's correction (x m
 * + 2^30 + 2^(e-1) 2^31 shifted by 31 + e stays below 1), and every q <= 0 ends at lo either way, so
 * rq16_apply_zb may skip the correction (a compare and a masked subtract per 8 lanes). */
static inline void rq16_bound(rq16 *k, int32_t lo, int32_t z) { k->plain = k->folded && lo >= z; }

/* rq16_apply_z, exact after the clamp at the lo given to rq16_bound. */
static inline __m512i rq16_apply_zb(__m512i x, const rq16 *k) {
    return k->plain ? rq16_apply_single(x, k) : rq16_apply_z(x, k);
}
#endif

/* X(0) .. X(7) / X(8) / X(11) / X(15): the rows of the micro-kernels that keep each accumulator in a
 * named variable (rt_opt_gemm.c, rt_opt_gemm_s8.c, rt_opt_gemm_half.c). */
#define RT_R8(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7)
#define RT_R9(X) RT_R8(X) X(8)
#define RT_R12(X) RT_R9(X) X(9) X(10) X(11)
#define RT_R16(X) RT_R8(X) X(8) X(9) X(10) X(11) X(12) X(13) X(14) X(15)

/* Rows of a block's next micro-tile, `rest` rows left: mr, or all that are left when at most `most` (mr + 1
 * where a 9-row kernel takes a block's last 9 rows in one pass, rather than 8 and the latency-bound GEMV;
 * f32, int8 and bf16 two-panel kernels). With that 9-row kernel, rest % mr tiles of 9 rows take up the
 * rows a short last tile would have had, where the rows allow (196 = 4 x 9 + 20 x 8, not 24 x 8 + 4). */
static inline int32_t rt_opt_next_rows(int32_t rest, int32_t mr, int32_t most) {
    if (rest <= most) return rest;
    return most == mr + 1 && rest % mr && rest >= most * (rest % mr) ? most : mr;
}

#if defined(__AVX512VNNI__)
/* acc += a (u8) . b (s8) in place. GCC's register allocator gives the
 * intrinsic's result a fresh register and copies it back every iteration
 * (16 moves and a spill per quad of K in the GEMM kernels); the asm ties
 * the accumulator to its register. */
#if defined(__GNUC__) && !defined(__clang__)
#define RT_DPBUSD(acc, a, b) __asm__("vpdpbusd %2, %1, %0" : "+v"(acc) : "v"(a), "v"(b))
#else
#define RT_DPBUSD(acc, a, b) ((acc) = _mm512_dpbusd_epi32((acc), (a), (b)))
#endif
#endif

/* Row helpers of rt_opt_act.c: the max, and y = exp(beta (x - sub)) (y may
 * alias x) returning the sum of y, both over lanes of 32. */
float rt_opt_max_f32(int32_t n, const float *x);
void rt_opt_scale_max_rows(int32_t n, int32_t d, float scale, float *x, int64_t ldx, float *mx);
/* The exact GELU of the p->n values of in (f32) rounded to bf16 into out in one pass, where the vector path
 * is built, with an erf accurate to bf16 (2.6e-5 absolute; not rt_opt_gelu_f32's values rounded): returns
 * how many it did (p->n, or 0 without AVX512-BF16, or for the tanh form). */
int64_t rt_opt_gelu_f32_bf16(const struct rt_act_params *p, const float *in, uint16_t *out);
float rt_opt_exp_row_f32(int32_t n, float beta, float sub, const float *x, float *y); /* returns the sum of y */
float rt_opt_exp_row_bf16(int32_t n, float beta, float sub, const float *x, uint16_t *y); /* y as bf16, the f32 sum */
/* n rows of those: row r from x + r ldx into y + r ldy (f32, y16 NULL) or y16 + r ldy (bf16), minus sub[r];
 * sum[r] its sum (the same values as the one-row calls) */
void rt_opt_exp_rows(int32_t n, int32_t d, float beta, const float *sub, const float *x, int64_t ldx, float *y,
                     uint16_t *y16, int64_t ldy, float *sum);

/* ADD of n contiguous elements (strides 0/1) with the reference params. */
struct rt_binary_params;
void rt_opt_add_run_i8(const struct rt_binary_params *p, const int8_t *a, int64_t sa, const int8_t *b, int64_t sb,
                       int8_t *o, int64_t n);

/* out[j] = clamp(requant(acc[j] + bias[j]) + out_offset) for j < n, with
 * rounding RT_OPT_ROUND_DOUBLE (conv) or _SINGLE (FC); bias may be NULL. */
void rt_opt_requant_i8(const int32_t *acc, const int32_t *bias, const int32_t *mult, const int32_t *shift, int32_t n,
                       int rounding, int32_t out_offset, int32_t qmin, int32_t qmax, int8_t *out);
/* The same with the float requantization: out[j] = rt_requant_float(acc[j] + bias[j], scale[j], out_offset,
 * qmin, qmax); bias may be NULL. */
void rt_opt_requant_f_i8(const int32_t *acc, const int32_t *bias, const float *scale, int32_t n, int32_t out_offset,
                         int32_t qmin, int32_t qmax, int8_t *out);


/* int8 depthwise convolution on AVX2 (rt_opt_dwconv_s8_avx2.c): output rows r0..r1 of all images, where
 * rt_opt_dw_avx2_applies (depth multiplier 1 or one input channel, output channels a multiple of 8, at
 * most 26 taps, input offset in [-127, 128], every shift in [-31, 0]). */
#if defined(RT_OPT_AVX2)
struct rt_dwconv_params;
int rt_opt_dw_avx2_applies(const struct rt_dwconv_params *p);
void rt_opt_dw_avx2_s8(const struct rt_dwconv_params *p, const int8_t *in, const int8_t *filter, const int32_t *bias,
                       int8_t *out, int32_t r0, int32_t r1);
/* 1 when rt_opt_dw_avx2_s8 takes p's pixels through its interior kernel wherever every tap is inside the
 * image: worth a padded copy of the image (rt_opt_dwconv.c). */
int rt_opt_dw_avx2_pads(const struct rt_dwconv_params *p);
#endif

/* PRELU over n floats (rt_opt_prelu.c): o = x >= 0 ? x : x * a, a_step 1 (a per element) or 0 (a[0] for
 * all); o may be x. */
void rt_opt_prelu_row_f32(const float *x, const float *a, int a_step, float *o, int64_t n);
/* The same in place on rows x c floats with one slope per column, a[0..c). */
void rt_opt_prelu_rows_f32(float *o, const float *a, int64_t rows, int32_t c);
/* rt_opt_hard_swish_rows_f32 on channels c0..c1 of each of n pixels of c channels (rt_opt_prelu.c). */
void rt_opt_hard_swish_px_f32(float *o, int64_t n, int32_t c, int32_t c0, int32_t c1);
#if defined(RT_OPT_AVX512)
/* rt_opt_hard_swish_rows_f32 on AVX-512, the same bits (rt_opt_hswish_f32_avx512.c) */
void rt_opt_hard_swish_rows_f32_512(float *o, int64_t n);
#endif

/* int8 depthwise output rows r0..r1 (of all images) by the portable loop (rt_opt_dwconv_s8_rows.c). */
struct rt_dwconv_params;
void rt_opt_dw_s8_rows_portable(const struct rt_dwconv_params *p, const int8_t *in, const int8_t *filter,
                                const int32_t *bias, int8_t *out, int32_t r0, int32_t r1);
/* Depthwise convolution shapes shared by the row kernels (rt_opt_dwconv.c, rt_opt_dwconv_f32_avx2.c).
 * The taps [lo, hi) of a filter of `filter` taps `dil` apart at `origin` that fall inside [0, size). */
static inline void rt_opt_taps_range(int32_t origin, int32_t dil, int32_t filter, int32_t size, int32_t *lo,
                                     int32_t *hi) {
    int32_t t = 0;
    while (t < filter && origin + t * dil < 0) t++;
    *lo = t;
    t = filter;
    while (t > *lo && origin + (t - 1) * dil >= size) t--;
    *hi = t;
}

/* The interior output columns [lo, hi) of a row: every tap inside the image's width (lo <= hi). */
static inline void rt_opt_dw_interior(int32_t in_w, int32_t out_w, int32_t filter_w, int32_t stride_w,
                                      int32_t dil_w, int32_t pad_w, int32_t *lo, int32_t *hi) {
    const int32_t last = in_w - 1 + pad_w - (filter_w - 1) * dil_w;
    *hi = last < 0 ? 0 : last / stride_w + 1;
    if (*hi > out_w) *hi = out_w;
    *lo = (pad_w + stride_w - 1) / stride_w;
    if (*lo > *hi) *lo = *hi;
}

#if defined(RT_OPT_AVX2) && defined(__FMA__)
/* rt_opt_expf on 8 lanes (and expf16 in rt_opt_act.c), operation for operation; a NaN stays a NaN. */
static inline __m256 rt_opt_expf8(__m256 x) {
    const __m256 big = _mm256_set1_ps(12582912.0f);
    __m256 n, r, p;
    x = _mm256_max_ps(_mm256_set1_ps(-87.0f), x); /* a NaN stays (max/min return their second operand) */
    x = _mm256_min_ps(_mm256_set1_ps(88.0f), x);
    n = _mm256_sub_ps(_mm256_fmadd_ps(x, _mm256_set1_ps(1.44269504088896341f), big), big);
    r = _mm256_fmadd_ps(n, _mm256_set1_ps(-0.693359375f), x);
    r = _mm256_fmadd_ps(n, _mm256_set1_ps(2.12194440e-4f), r);
    p = _mm256_fmadd_ps(_mm256_set1_ps(1.9875691500e-4f), r, _mm256_set1_ps(1.3981999507e-3f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(8.3334519073e-3f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(4.1665795894e-2f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.6666665459e-1f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(5.0000001201e-1f));
    p = _mm256_add_ps(_mm256_fmadd_ps(_mm256_mul_ps(p, r), r, r), _mm256_set1_ps(1.0f));
    return _mm256_mul_ps(p, _mm256_castsi256_ps(_mm256_slli_epi32(
                                _mm256_add_epi32(_mm256_cvttps_epi32(n), _mm256_set1_epi32(127)), 23)));
}
#endif
/* f32 depthwise convolution on AVX2 + FMA without AVX-512 (rt_opt_dwconv_f32_avx2.c): output row oy of one
 * image, channels c0..c1, depth multiplier 1, filters at most RT_OPT_DW8_MAX_FH rows high; img holds the
 * image's input rows from y_base on (row y at img + (y - y_base) * in_w * in_c). */
#if defined(RT_OPT_AVX2) && !defined(RT_OPT_AVX512) && defined(__FMA__)
#define RT_OPT_DW8_F32 1
#define RT_OPT_DW8_MAX_FH 32
void rt_opt_dw8_f32_row(const struct rt_dwconv_params *p, const float *img, int32_t y_base, const float *filter,
                        const float *bias, float *orow, int32_t oy, int32_t c0, int32_t c1);
#endif

/* f32 GEMM over row pointers on AVX2 + FMA without AVX-512 (rt_opt_gemm_f32_avx2.c): C[0..m) = clamp(bias +
 * A . packed_b), K as nseg segments of p->k / nseg values, row r's segment s at tab[r * nseg + s] (a
 * convolution's patch rows read in place), or, with tab NULL, row r at a + r * p->lda. */
#if defined(RT_OPT_AVX2) && !defined(RT_OPT_AVX512) && defined(__FMA__)
#define RT_OPT_F32_ROWS_AVX2 1
void rt_opt_gemm_f32_rows_avx2(const rt_opt_gemm_params *p, int32_t m, const float *a, const float *const *tab,
                               int32_t nseg, const float *packed_b, const float *bias, float *c);
#endif
#if defined(RT_OPT_AVX2) && defined(__FMA__)
/* The row-pointer GEMMs' epilogue (this one and rt_opt_gemm16_rows_avx2.c). Lane mask of the first n (0..8)
 * columns, for vmaskmovps: */
static inline __m256i rt_opt_col_mask(int32_t n) {
    return _mm256_cmpgt_epi32(_mm256_set1_epi32(n), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}
/* a tile row's nr (8 < nr <= RT_OPT_NR) columns v0 | v1 clamped to [lo, hi] (operands ordered so a NaN passes
 * through as in rt_clamp_f32) and stored at cr; m1 = rt_opt_col_mask(nr - 8). */
RT_OPT_INLINE void rt_opt_store_row16(float *cr, __m256 v0, __m256 v1, int32_t nr, __m256i m1, __m256 vlo,
                                      __m256 vhi) {
    _mm256_storeu_ps(cr, _mm256_min_ps(vhi, _mm256_max_ps(vlo, v0)));
    if (nr == RT_OPT_NR) _mm256_storeu_ps(cr + 8, _mm256_min_ps(vhi, _mm256_max_ps(vlo, v1)));
    else _mm256_maskstore_ps(cr + 8, m1, _mm256_min_ps(vhi, _mm256_max_ps(vlo, v1)));
}
/* Rows of the next tile, `rest` rows and `tiles` tiles left: the fewest tiles of at most mr rows (ceil(m / mr)),
 * their rows as even as can be, so no tile is left with a few rows (49 rows: 4 x 6 + 5 x 5, not 7 x 6 + 4 + 3,
 * whose 3-row tile had 6 FMA chains for a latency that wants 8). */
static inline int32_t rt_opt_even_rows(int32_t rest, int32_t tiles) { return (rest + tiles - 1) / tiles; }
/* the same for nr (1..8) columns in v; m = rt_opt_col_mask(nr) */
RT_OPT_INLINE void rt_opt_store_row8(float *cr, __m256 v, int32_t nr, __m256i m, __m256 vlo, __m256 vhi) {
    if (nr == 8) _mm256_storeu_ps(cr, _mm256_min_ps(vhi, _mm256_max_ps(vlo, v)));
    else _mm256_maskstore_ps(cr, m, _mm256_min_ps(vhi, _mm256_max_ps(vlo, v)));
}
#endif
#include "arm64/rt_a64.h" /* RT_A64 */

/* int8 depthwise convolution on AVX512-VNNI (rt_opt_dwconv_vnni.c): output rows r0..r1 of all images,
 * depth multiplier 1, at most 4 * RT_OPT_DW_QUADS taps, input offset in [-127, 128], every shift in
 * [-31, 0] (rt_opt_dwconv.c's dw_s8_rows checks these and the channel counts). */
#if defined(RT_OPT_AVX2) && defined(RT_OPT_AVX512) && defined(__AVX512VL__) && defined(__AVX512VNNI__)
#define RT_OPT_DW_VNNI 1
#define RT_OPT_DW_QUADS 7 /* up to 28 taps */
struct rt_dwconv_params;
void rt_opt_dw_vnni_s8(const struct rt_dwconv_params *p, const int8_t *in, const int8_t *filter, const int32_t *bias,
                       int8_t *out, int32_t r0, int32_t r1);
#if defined(__AVX512VBMI__)
/* The same for 8 or 16 output channels (any depth multiplier), filters at most 4 wide, where a
 * filter row's input bytes for 64 / C output pixels span at most 128 (rt_opt_dw_narrow_applies). */
#define RT_OPT_DW_NARROW 1
int rt_opt_dw_narrow_applies(const struct rt_dwconv_params *p);
void rt_opt_dw_narrow_s8(const struct rt_dwconv_params *p, const int8_t *in, const int8_t *filter,
                         const int32_t *bias, int8_t *out, int32_t r0, int32_t r1);
#endif
#endif

/* The bf16 convolutions' A operand (rt_opt_im2col_half.c, AVX512-BF16 builds): patch rows m0..m0+rows
 * of an f32 (ti RT_F32: rounded) or bf16 image as bf16 pairs, rows of (K + 1) / 2 words; and the row
 * table of a bf16 image read in place (filter_h segments of fw * in_c / 2 pairs a row at tab[r * filter_h
 * + fy], rows cut by the image's left/right edge copied to `copy` in im2col layout, rows off it at the
 * zero row `zero`), with its scratch bytes for `block` rows (0: not for this convolution). */
struct rt_opt_conv_params;
void rt_opt_padded_dims(int32_t in_h, int32_t in_w, int32_t out_h, int32_t out_w, int32_t fh, int32_t fw, int32_t sh,
                        int32_t sw, int32_t ph, int32_t pw, int64_t *hp, int64_t *wp);
/* One int8 image of in_h x in_w pixels of c channels inside an hp x wp one at `pad`, its pixel (y, x) at
 * (y + pad_h, x + pad_w), the rest `value` (the input zero point); flip: every byte + 128 (the VNNI
 * kernels' unsigned operand). */
void rt_opt_pad_rows_s8(const int8_t *in, int32_t in_h, int32_t in_w, int32_t c, int64_t hp, int64_t wp, int32_t pad_h,
                        int32_t pad_w, int32_t value, int flip, void *pad);
/* Elements of a convolution's zero-padded image (rt_opt_padded_dims, times in_c); 0 where no patch is cut
 * by an edge, or dilated. */
int64_t rt_opt_padded_elems(int32_t in_h, int32_t in_w, int32_t in_c, int32_t out_h, int32_t out_w, int32_t filter_h,
                            int32_t filter_w, int32_t stride_h, int32_t stride_w, int32_t pad_h, int32_t pad_w,
                            int32_t dil_h, int32_t dil_w);
/* The bf16 image `in` (ti RT_F32: rounded; RT_BF16: copied) inside its zero padding at `pad`
 * (rt_opt_conv_bf16_padded_bytes), and pp: p's geometry over it, no padding. */
void rt_opt_pad_image_bf16(const struct rt_opt_conv_params *p, int32_t ti, const void *in, uint16_t *pad,
                           struct rt_opt_conv_params *pp);
void rt_opt_im2col_bf16(const struct rt_opt_conv_params *p, int32_t ti, const void *in, int32_t m0, int32_t rows,
                        uint16_t *dst);
int64_t rt_opt_conv_rows_bf16_bytes(const struct rt_opt_conv_params *p, int32_t block);
void rt_opt_conv_rows_bf16(const struct rt_opt_conv_params *p, const uint16_t *in, int32_t m0, int32_t rows,
                           uint16_t *copy, const uint32_t **tab, uint16_t *zero);

/* AMX tiles (rt_opt_amx.c): Linux, AVX-512 and -mamx-tile. rt_opt_amx_ready
 * asks the kernel for the tile state (1: granted); rt_opt_amx_configure sets
 * tiles 0, 1 (16 x 16 int32/float accumulators), 2 (A: 16 rows x 64 bytes),
 * 3, 4 (B: 16 rows x 64 bytes), and 5, 6, 7 for a last step of rem < 16
 * four-byte columns of A / rows of B; rt_opt_amx_u8 is the int8 product of
 * 16 rows of A (a + 128 bytes, kq quads, lda8 bytes apart) by two packed
 * panels into acc[2][16][16], wrapping like vpdpbusd. */
#if defined(__linux__) && defined(__AMX_TILE__) && defined(RT_OPT_AVX512)
#define RT_OPT_AMX 1
int rt_opt_amx_ready(void);
void rt_opt_amx_configure(int32_t rem);
#if defined(__AMX_INT8__)
void rt_opt_amx_u8(int32_t kq, const uint8_t *a8, int32_t lda8, const int8_t *b0, const int8_t *b1, int32_t *acc);
#endif
#endif

/* 16-bit weights, f32 arithmetic for f32 inputs on every x86 AVX2 + FMA build (rt_opt_gemm16_avx2.c, _rows_avx2.c,
 * _avx512.c), AVX512-BF16 / AMX too: their rounded-input products ran at 0.02-0.54x fp32 on an Emerald Rapids
 * (docs/precision-modes.md, "Speed by CPU"); they take 16-bit inputs only, but with -DRT_OPT_HALF_ARITH_F32. */
#if defined(RT_OPT_AVX2) && defined(__FMA__) && \
    !(defined(RT_OPT_AVX512) && defined(__AVX512BF16__) && defined(RT_OPT_HALF_ARITH_F32))
#define RT_OPT_HALF_F32_AVX2 1
#endif

/* ---- GEMM and convolution as GEMM (rt_opt_gemm.c, rt_opt_conv_f32.c, rt_opt_gemm_s8.c, rt_opt_gemm_half.c,
 * rt_opt_gemm_bf16.c) ---- */
#include "rt_opt_internal_gemm.h"

/* K rounded up to whole 4-byte quads (the int8 kernels' packed K). */
#define RT_OPT_K4(k) (((k) + 3) / 4 * 4)

/* ---- the int8 GEMM's pieces shared with the int8 convolution (rt_opt_gemm_s8.c, rt_opt_conv_s8.c) ---- */
#include "rt_opt_internal_s8.h"

/* A GEMM split over tasks: rows (or column panels, by_rows 0) in steps of `step`. */
typedef struct rt_opt_gemm_job {
    const rt_opt_gemm_params *p;
    const void *a, *b, *bias;
    void *c, *scratch;
    int32_t tasks, step, by_rows;
    int32_t in_place; /* s8: A's rows read as they are (flipped to unsigned in registers) */
} rt_opt_gemm_job;

/* The GEMM parameters of one BATCH_MATMUL batch: m, n, k, ldc = n, the rest zero. */
struct rt_bmm_params;
rt_opt_gemm_params rt_opt_bmm_gemm(const struct rt_bmm_params *p);

/* Row block for `tasks` tasks over `images` images of `rows` rows, at most `block` (rt_opt_gemm.c). */
int32_t rt_opt_balanced_block(int32_t rows, int32_t images, int32_t block, int32_t tasks);

/* Gathers patch rows m0..m0+rows of image `in` into `dst` (rows x ldd),
 * copying each contiguous run with RUN (memcpy for f32, + 128 per byte for int8). */
/* (Parameters are copied to locals: the byte stores of the int8 variant may
 * alias *p, which would make the compiler reload them and keep the channel
 * loop scalar.) */
#define IM2COL(TI, TO, fill, RUN)                                                                            \
    do {                                                                                                        \
        const int32_t inc_ = p->in_c, inw_ = p->in_w, inh_ = p->in_h, outw_ = p->out_w;                         \
        const int32_t fh_ = p->filter_h, fw_ = p->filter_w, sh_ = p->stride_h, sw_ = p->stride_w;               \
        const int32_t dh_ = p->dil_h, dw_ = p->dil_w, ph_ = p->pad_h, pw_ = p->pad_w;                           \
        const TO fill_ = (fill);                                                                                \
        int32_t r_, fy_, fx_, c_, oy_ = m0 / outw_, ox_ = m0 % outw_;                                           \
        for (r_ = 0; r_ < rows; r_++) {                                                                         \
            TO *d_ = dst + (int64_t)r_ * ldd;                                                                   \
            for (fy_ = 0; fy_ < fh_; fy_++) {                                                                   \
                int32_t y_ = oy_ * sh_ - ph_ + fy_ * dh_;                                                       \
                int row_ok_ = y_ >= 0 && y_ < inh_;                                                             \
                const TI *srow_ = row_ok_ ? in + (int64_t)y_ * inw_ * inc_ : in;                                \
                int32_t x0_ = ox_ * sw_ - pw_;                                                                  \
                if (row_ok_ && dw_ == 1 && x0_ >= 0 && x0_ + fw_ <= inw_) { /* one contiguous run */           \
                    const TI *s_ = srow_ + (int64_t)x0_ * inc_;                                                 \
                    RUN(d_, s_, fw_ * inc_);                                                                    \
                    d_ += fw_ * inc_;                                                                           \
                    continue;                                                                                   \
                }                                                                                               \
                for (fx_ = 0; fx_ < fw_; fx_++, d_ += inc_) {                                                   \
                    int32_t x_ = ox_ * sw_ - pw_ + fx_ * dw_;                                                   \
                    if (!row_ok_ || x_ < 0 || x_ >= inw_) {                                                     \
                        for (c_ = 0; c_ < inc_; c_++) d_[c_] = fill_;                                           \
                    } else {                                                                                    \
                        const TI *s_ = srow_ + (int64_t)x_ * inc_;                                              \
                        RUN(d_, s_, inc_);                                                                      \
                    }                                                                                           \
                }                                                                                               \
            }                                                                                                   \
            for (c_ = kdim; c_ < ldd; c_++) dst[(int64_t)r_ * ldd + c_] = 0;                                   \
            if (++ox_ == outw_) { /* next output pixel without a division */                                    \
                ox_ = 0;                                                                                        \
                oy_++;                                                                                          \
            }                                                                                                   \
        }                                                                                                       \
    } while (0)
/* im2col's f32 runs are short (a filter row of a 3-channel image: 9 or 15 floats; one tap: 3), so a
 * call to memcpy per run cost more than the GEMM after it on AVX2 (MediaPipe's first layers: 4096 rows
 * of 3 or 5 runs). With AVX, runs of 8 or more go as 8-float vectors, the last one overlapping. */
static inline void rt_opt_copy_run_f32(float *d, const float *s, int32_t n) {
#if defined(RT_OPT_AVX2)
    int32_t i;
    if (n >= 8) {
        for (i = 0; i + 8 < n; i += 8) _mm256_storeu_ps(d + i, _mm256_loadu_ps(s + i));
        _mm256_storeu_ps(d + n - 8, _mm256_loadu_ps(s + n - 8));
        return;
    }
    if (n >= 4) {
        _mm_storeu_ps(d, _mm_loadu_ps(s));
        _mm_storeu_ps(d + n - 4, _mm_loadu_ps(s + n - 4));
        return;
    }
    for (i = 0; i < n; i++) d[i] = s[i];
#elif defined(RT_A64)
    int32_t i;
    if (n >= 4) { /* 4-float vectors, the last one overlapping */
        for (i = 0; i + 4 < n; i += 4) vst1q_f32(d + i, vld1q_f32(s + i));
        vst1q_f32(d + n - 4, vld1q_f32(s + n - 4));
        return;
    }
    for (i = 0; i < n; i++) d[i] = s[i];
#else
    memcpy(d, s, sizeof(float) * (size_t)n);
#endif
}
#define RUN_F32(d, s, n) rt_opt_copy_run_f32((d), (s), (n))

/* One convolution's work, split into blocks of `block` output rows; task t
 * runs its contiguous share of them (rt_opt_task_share) with scratch copy t. */
struct rt_opt_post_add;
typedef struct rt_opt_conv_job {
    const rt_opt_conv_params *p;
    const void *in, *b, *bias, *other;
    void *out, *scratch;
    const struct rt_opt_post_add *post;
    int32_t tasks, block, per_image;
    int32_t half_type; /* 16-bit weights: RT_BF16 or RT_F16 */
} rt_opt_conv_job;

void rt_opt_run_conv(const rt_opt_conv_params *p, const void *in, const void *packed_b, const void *bias, void *out,
                     void *scratch, const struct rt_opt_post_add *post, const void *other, void (*task)(void *, int),
                     int32_t block, int32_t half_type, const mpcc_parallel *par);
/* A binary op's broadcast with adjacent dimensions merged while both inputs
 * stay contiguous (or both broadcast) across them (rt_opt_elementwise.c). */
void rt_opt_bcast_collapse(const rt_bcast *in, rt_bcast *out);
/* Walks a broadcast as contiguous runs: run(ctx, off1, s1, off2, s2, out_off, n) per run of n outputs
 * from out_off, input elements at off1 + i * s1 and off2 + i * s2 (strides 0, 1 or other). */
typedef void (*rt_opt_run_fn)(void *ctx, int64_t off1, int64_t s1, int64_t off2, int64_t s2, int64_t out_off,
                              int64_t n);
void rt_opt_bcast_runs(const rt_bcast *bc, rt_opt_run_fn run, void *ctx);

/* rt_opt_fc_half with bf16 weights and A already bf16 (rows lda halves apart): the rows are the
 * micro-kernel's bf16 pairs (copied to scratch, HALF_ROWS x (k + 1) / 2 words, only when K is odd or the
 * rows are not packed). Returns 0 without doing anything when built without AVX512-BF16; p NULL: only
 * answers whether it is built in. */
int rt_opt_fc_bf16_rows(const rt_opt_gemm_params *p, const uint16_t *a, const uint16_t *packed_b, const float *bias,
                        float *c, void *scratch);
/* rt_opt_fc_bf16_rows with C of type tc (RT_F32 or RT_BF16: each value rounded in the micro-kernel's
 * store, as rt_opt_from_f32 rounds it; ldc in elements). */
int rt_opt_fc_bf16_rows_to(const rt_opt_gemm_params *p, const uint16_t *a, const uint16_t *packed_b,
                           const float *bias, void *c, int32_t tc, void *scratch);
/* rt_opt_fc_half's bf16 path with C of type tc (as rt_opt_fc_bf16_rows_to stores it): f32 rows of A rounded
 * into bf16 pairs, HALF_ROWS at a time, in scratch (rt_opt_fc_half_scratch). Returns 0 without doing anything
 * when built without AVX512-BF16. */
int rt_opt_fc_bf16_to(const rt_opt_gemm_params *p, const float *a, const uint16_t *packed_b, const float *bias, void *c,
                      int32_t tc, void *scratch);

/* The fused residual ADD over n contiguous outputs. */
void rt_opt_post_add_f32(const struct rt_opt_post_add *post, float *out, const float *other, int64_t n);

#endif
