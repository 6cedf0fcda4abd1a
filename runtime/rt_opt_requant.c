/* rt_opt_requant.c - TFLite int32 -> int8 requantization of a row of
 * accumulators, vectorized: 8 lanes at a time with AVX2 (64-bit products of
 * even and odd lanes, TFLite's nudge and rounding shifts written with lane
 * masks), 4 with AArch64 NEON (runtime/arm64/rt_a64.h), else the scalar rq_double / rq_single. Bit-identical to
 * rt_mul_by_quantized_multiplier(_single): lanes with a positive shift (a
 * left shift with saturation, rare) take the scalar path. */
#include "mpcc_rt.h"
#include "rt_opt.h"
#include "rt_opt_internal.h"
#include "arm64/rt_a64.h" /* AArch64 lanes (RT_A64) */

void rt_opt_requant_i8(const int32_t *acc, const int32_t *bias, const int32_t *mult, const int32_t *shift, int32_t n,
                       int rounding, int32_t out_offset, int32_t qmin, int32_t qmax, int8_t *out) {
    int32_t j = 0;
#if defined(RT_OPT_AVX2)
    const __m256i off = _mm256_set1_epi32(out_offset), lo = _mm256_set1_epi32(qmin), hi = _mm256_set1_epi32(qmax);
    for (; j + 8 <= n; j += 8) {
        __m256i x = _mm256_loadu_si256((const __m256i *)(const void *)(acc + j));
        __m256i m = _mm256_loadu_si256((const __m256i *)(const void *)(mult + j));
        __m256i s = _mm256_loadu_si256((const __m256i *)(const void *)(shift + j)), v;
        /* Left shifts (s > 0) and exponents past 31: scalar from here. */
        if (_mm256_movemask_epi8(_mm256_or_si256(_mm256_cmpgt_epi32(s, _mm256_setzero_si256()),
                                                 _mm256_cmpgt_epi32(_mm256_set1_epi32(-31), s))))
            break;
        if (bias) x = _mm256_add_epi32(x, _mm256_loadu_si256((const __m256i *)(const void *)(bias + j)));
        v = rounding == RT_OPT_ROUND_SINGLE ? rq_single8(x, m, s) : rq_double8(x, m, s);
        v = _mm256_min_epi32(_mm256_max_epi32(_mm256_add_epi32(v, off), lo), hi);
        _mm_storel_epi64((__m128i *)(void *)(out + j), pack8(v));
    }
#elif defined(RT_A64)
    const int32x4_t off = vdupq_n_s32(out_offset), lo = vdupq_n_s32(qmin), hi = vdupq_n_s32(qmax);
    for (; j + 4 <= n; j += 4) {
        int32x4_t x = vld1q_s32(acc + j), s = vld1q_s32(shift + j), v;
        int16x4_t h;
        if (vmaxvq_s32(s) > (rounding == RT_OPT_ROUND_SINGLE ? 0 : 31) || vminvq_s32(s) < -31)
            break; /* exponents past 31 (single rounding: left shifts): scalar */
        if (bias) x = vaddq_s32(x, vld1q_s32(bias + j));
        v = rounding == RT_OPT_ROUND_SINGLE ? rt_a64_rq_single(x, vld1q_s32(mult + j), s)
                                            : rt_a64_rq_double(x, vld1q_s32(mult + j), s);
        h = vqmovn_s32(vminq_s32(vmaxq_s32(vaddq_s32(v, off), lo), hi));
        vst1_lane_s32((int32_t *)(void *)(out + j), vreinterpret_s32_s8(vqmovn_s16(vcombine_s16(h, h))), 0);
    }
#endif
    for (; j < n; j++) {
        int32_t x = bias ? (int32_t)((uint32_t)acc[j] + (uint32_t)bias[j]) : acc[j];
        int32_t y = (rounding == RT_OPT_ROUND_SINGLE ? rq_single(x, mult[j], shift[j]) : rq_double(x, mult[j], shift[j])) +
                    out_offset;
        out[j] = (int8_t)(y < qmin ? qmin : (y > qmax ? qmax : y));
    }
}

void rt_opt_requant_f_i8(const int32_t *acc, const int32_t *bias, const float *scale, int32_t n, int32_t out_offset,
                         int32_t qmin, int32_t qmax, int8_t *out) {
    int32_t j = 0;
#if defined(RT_OPT_AVX2) && defined(__FMA__)
    const __m256 z = _mm256_set1_ps((float)out_offset), lo = _mm256_set1_ps((float)qmin);
    const __m256 hi = _mm256_set1_ps((float)qmax);
    for (; j + 8 <= n; j += 8) {
        __m256i x = _mm256_loadu_si256((const __m256i *)(const void *)(acc + j));
        __m256 y;
        if (bias) x = _mm256_add_epi32(x, _mm256_loadu_si256((const __m256i *)(const void *)(bias + j)));
        y = _mm256_fmadd_ps(_mm256_cvtepi32_ps(x), _mm256_loadu_ps(scale + j), z);
        y = _mm256_min_ps(_mm256_max_ps(y, lo), hi);
        _mm_storel_epi64((__m128i *)(void *)(out + j), pack8(_mm256_cvtps_epi32(y)));
    }
#endif
    for (; j < n; j++) {
        int32_t x = bias ? (int32_t)((uint32_t)acc[j] + (uint32_t)bias[j]) : acc[j];
        out[j] = (int8_t)rt_requant_float(x, scale[j], out_offset, qmin, qmax);
    }
}
