/* rt_opt_requant.c - TFLite int32 -> int8 requantization of a row of
 * accumulators, vectorized: 8 lanes at a time with AVX2 (64-bit products of
 * even and odd lanes, TFLite's nudge and rounding shifts written with lane
 * masks), else the scalar rq_double / rq_single. Bit-identical to
 * rt_mul_by_quantized_multiplier(_single): lanes with a positive shift (a
 * left shift with saturation, rare) take the scalar path. */
#include "mpcc_rt.h"
#include "rt_opt.h"
#include "rt_opt_internal.h"

#if defined(__GNUC__) && defined(__AVX2__) && !defined(RT_OPT_SCALAR)
#include <immintrin.h>
#define RQ_AVX2 1

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
    const __m256i zero = _mm256_setzero_si256(), one = _mm256_set1_epi32(1);
    const __m256i pos = _mm256_set1_epi64x((int64_t)1 << 30), neg = _mm256_set1_epi64x(1 - ((int64_t)1 << 30));
    const __m256i trunc = _mm256_set1_epi64x(((int64_t)1 << 31) - 1);
    __m256i e, o, q, right = _mm256_sub_epi32(zero, s), mask, rem, thr;
    mul_lanes(x, m, &e, &o);
    /* t = ab + nudge; q = t / 2^31 toward zero (low 32 bits suffice). */
    e = _mm256_add_epi64(e, _mm256_blendv_epi8(pos, neg, _mm256_cmpgt_epi64(zero, e)));
    o = _mm256_add_epi64(o, _mm256_blendv_epi8(pos, neg, _mm256_cmpgt_epi64(zero, o)));
    e = _mm256_srli_epi64(_mm256_add_epi64(e, _mm256_and_si256(trunc, _mm256_cmpgt_epi64(zero, e))), 31);
    o = _mm256_srli_epi64(_mm256_add_epi64(o, _mm256_and_si256(trunc, _mm256_cmpgt_epi64(zero, o))), 31);
    q = join_lanes(e, o);
    /* Rounding divide by 2^right, ties away from zero. */
    mask = _mm256_sub_epi32(_mm256_sllv_epi32(one, right), one);
    rem = _mm256_and_si256(q, mask);
    thr = _mm256_sub_epi32(_mm256_srai_epi32(mask, 1), _mm256_cmpgt_epi32(zero, q));
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
#endif

void rt_opt_requant_i8(const int32_t *acc, const int32_t *bias, const int32_t *mult, const int32_t *shift, int32_t n,
                       int rounding, int32_t out_offset, int32_t qmin, int32_t qmax, int8_t *out) {
    int32_t j = 0, k;
#if defined(RQ_AVX2)
    const __m256i off = _mm256_set1_epi32(out_offset), lo = _mm256_set1_epi32(qmin), hi = _mm256_set1_epi32(qmax);
    for (; j + 8 <= n; j += 8) {
        __m256i x = _mm256_loadu_si256((const __m256i *)(const void *)(acc + j));
        __m256i m = _mm256_loadu_si256((const __m256i *)(const void *)(mult + j));
        __m256i s = _mm256_loadu_si256((const __m256i *)(const void *)(shift + j)), v;
        int32_t tmp[8];
        /* Left shifts (s > 0) and exponents past 31: scalar from here. */
        if (_mm256_movemask_epi8(_mm256_or_si256(_mm256_cmpgt_epi32(s, _mm256_setzero_si256()),
                                                 _mm256_cmpgt_epi32(_mm256_set1_epi32(-31), s))))
            break;
        if (bias) x = _mm256_add_epi32(x, _mm256_loadu_si256((const __m256i *)(const void *)(bias + j)));
        v = rounding == RT_OPT_ROUND_SINGLE ? rq_single8(x, m, s) : rq_double8(x, m, s);
        v = _mm256_min_epi32(_mm256_max_epi32(_mm256_add_epi32(v, off), lo), hi);
        _mm256_storeu_si256((__m256i *)(void *)tmp, v);
        for (k = 0; k < 8; k++) out[j + k] = (int8_t)tmp[k];
    }
#endif
    for (; j < n; j++) {
        int32_t x = bias ? (int32_t)((uint32_t)acc[j] + (uint32_t)bias[j]) : acc[j];
        int32_t y = (rounding == RT_OPT_ROUND_SINGLE ? rq_single(x, mult[j], shift[j]) : rq_double(x, mult[j], shift[j])) +
                    out_offset;
        out[j] = (int8_t)(y < qmin ? qmin : (y > qmax ? qmax : y));
    }
    (void)k;
}
