/* rt_opt_pool.c - MAX_POOL_2D and AVERAGE_POOL_2D vectorized over channels: per output pixel the
 * window's taps are outer and the channels inner, one contiguous run each (NHWC). With AVX-512 a
 * pixel's channels are 64 bytes (int8 max), 16 int32 sums (int8 average) or 16 floats per register,
 * masked at the end, the running values kept in registers across the taps; elsewhere the compiler
 * vectorizes the portable loops. Same results as the reference kernels: the same start value,
 * comparison or additions in the same order per channel (int8 sums wrapping alike), the same
 * rounding of the integer mean and the same clamp. */
#include <float.h>

#include "mpcc_rt.h"
#include "rt_opt.h"
#include "rt_opt_internal.h"

#define POOL_CHUNK 256 /* channels per pass: the running values stay in registers or L1 */

/* START: a channel's first value; STEP(m, t): m with tap value t; FINISH(m, count): the output. */
#define RT_OPT_POOL(NAME, T, ACC, START, STEP, FINISH, VEC)                                                   \
    void NAME(const rt_pool_params *p, const T *in, T *out) {                                                 \
        int32_t b, oy, ox, c0, c, fy, fx, fy0, fy1, fx0, fx1, C = p->channels;                                \
        ACC m[POOL_CHUNK];                                                                                    \
        for (b = 0; b < p->batches; b++)                                                                      \
            for (oy = 0; oy < p->out_h; oy++) {                                                               \
                int32_t y0 = oy * p->stride_h - p->pad_h;                                                     \
                rt_pool_window(y0, p->filter_h, p->in_h, &fy0, &fy1);                                         \
                for (ox = 0; ox < p->out_w; ox++) {                                                           \
                    int32_t x0 = ox * p->stride_w - p->pad_w;                                                 \
                    T *o = out + (((int64_t)b * p->out_h + oy) * p->out_w + ox) * C;                          \
                    rt_pool_window(x0, p->filter_w, p->in_w, &fx0, &fx1);                                     \
                    if (VEC(p, in + (((int64_t)b * p->in_h + y0 + fy0) * p->in_w + x0 + fx0) * C, fy1 - fy0, fx1 - fx0, o)) \
                        continue;                                                                             \
                    for (c0 = 0; c0 < C; c0 += POOL_CHUNK) {                                                  \
                        int32_t n = C - c0 < POOL_CHUNK ? C - c0 : POOL_CHUNK;                                \
                        for (c = 0; c < n; c++) m[c] = START;                                                 \
                        for (fy = fy0; fy < fy1; fy++)                                                        \
                            for (fx = fx0; fx < fx1; fx++) {                                                  \
                                const T *s = in + (((int64_t)b * p->in_h + y0 + fy) * p->in_w + x0 + fx) * C + c0; \
                                for (c = 0; c < n; c++) m[c] = STEP(m[c], s[c]);                              \
                            }                                                                                 \
                        for (c = 0; c < n; c++) o[c0 + c] = FINISH(m[c], (fy1 - fy0) * (fx1 - fx0));         \
                    }                                                                                         \
                }                                                                                             \
            }                                                                                                 \
    }

#define CLAMP_F32(v) rt_clamp_f32((v), p->act_min, p->act_max)
#define CLAMP_I8(v) ((int8_t)rt_clamp_i32((v), p->act_qmin, p->act_qmax))
#define MAX_STEP(m, t) ((t) > (m) ? (t) : (m))
#define MAX_FINISH_F32(m, count) CLAMP_F32(m)
#define MAX_FINISH_I8(m, count) CLAMP_I8(m)
#define SUM_F32(m, t) ((m) + (t))
#define SUM_I8(m, t) ((m) + (uint32_t)(int32_t)(t)) /* int32 sums wrapping as the reference's */
#define AVG_F32(m, count) CLAMP_F32((count) > 0 ? (m) / count_f32(count) : 0.0f)
#define AVG_I8(m, count) CLAMP_I8(rt_pool_mean_i32((int32_t)(m), (count)))

/* The reference's count, 1.0f added per tap (it stops growing at 2^24). */
static inline float count_f32(int32_t count) { return count > (1 << 24) ? 16777216.0f : (float)count; }

#if (defined(RT_OPT_AVX2) && !defined(RT_OPT_AVX512)) || defined(RT_A64)
/* The int8 max of channels c.. (the vector kernels' last fewer than 16), clamped to [blo, bhi]. */
static void pool_tail_i8(const rt_pool_params *p, const int8_t *s, int32_t ny, int32_t nx, int8_t *o, int32_t c,
                         int8_t blo, int8_t bhi) {
    const int32_t C = p->channels;
    const int64_t row = (int64_t)p->in_w * C;
    for (; c < C; c++) {
        int8_t m = -128;
        for (int32_t fy = 0; fy < ny; fy++)
            for (int32_t fx = 0; fx < nx; fx++) {
                const int8_t t = s[fy * row + (int64_t)fx * C + c];
                m = t > m ? t : m;
            }
        o[c] = m < blo ? blo : m > bhi ? bhi : m;
    }
}
#endif

#if defined(RT_OPT_AVX512)
/* One output pixel of f32 channels: over ny x nx taps (the first at s) the max (avg 0) or the sum divided
 * by the reference's count (avg 1), clamped, written to o. max(t, m) is t > m ? t : m lane for lane (the
 * reference's comparison, NaN included), the sum adds the taps in the reference's order, and
 * min(hi, max(lo, v)) is the reference clamp v < lo ? lo : (v > hi ? hi : v) for lo <= hi. */
static int pool_px_f32(const rt_pool_params *p, const float *s, int32_t ny, int32_t nx, float *o, int avg) {
    const int32_t C = p->channels;
    const int64_t row = (int64_t)p->in_w * C;
    const __m512 lo = _mm512_set1_ps(p->act_min), hi = _mm512_set1_ps(p->act_max);
    const __m512 count = _mm512_set1_ps(count_f32(ny * nx));
    int32_t c, fy, fx;
    if (!(p->act_min <= p->act_max)) return 0;
    for (c = 0; c < C; c += 16) {
        const __mmask16 k = C - c >= 16 ? (__mmask16)0xFFFF : (__mmask16)((1u << (C - c)) - 1u);
        __m512 m = avg ? _mm512_setzero_ps() : _mm512_set1_ps(-FLT_MAX);
        for (fy = 0; fy < ny; fy++)
            for (fx = 0; fx < nx; fx++) {
                const __m512 t = _mm512_maskz_loadu_ps(k, s + fy * row + (int64_t)fx * C + c);
                m = avg ? _mm512_add_ps(m, t) : _mm512_max_ps(t, m);
            }
        if (avg) m = ny * nx > 0 ? _mm512_div_ps(m, count) : _mm512_setzero_ps();
        _mm512_mask_storeu_ps(o + c, k, _mm512_min_ps(hi, _mm512_max_ps(lo, m)));
    }
    return 1;
}

/* The int8 pixel: maxima of int8 values are int8, so the int32 clamp of the reference is a clamp to its
 * bounds cut to the int8 range. Masked-off lanes read as 0 and are never stored. */
static int pool_px_i8(const rt_pool_params *p, const int8_t *s, int32_t ny, int32_t nx, int8_t *o) {
    const int32_t C = p->channels;
    const int64_t row = (int64_t)p->in_w * C;
    const int32_t qlo = p->act_qmin < -128 ? -128 : p->act_qmin, qhi = p->act_qmax > 127 ? 127 : p->act_qmax;
    const __m512i lo = _mm512_set1_epi8((char)(qlo > 127 ? 127 : qlo)), hi = _mm512_set1_epi8((char)(qhi < -128 ? -128 : qhi));
    int32_t c, fy, fx;
    if (qlo > qhi) return 0;
    for (c = 0; c < C; c += 64) {
        const __mmask64 k = C - c >= 64 ? ~(__mmask64)0 : (((__mmask64)1 << (C - c)) - 1u);
        __m512i m = _mm512_set1_epi8(-128);
        for (fy = 0; fy < ny; fy++)
            for (fx = 0; fx < nx; fx++)
                m = _mm512_max_epi8(m, _mm512_maskz_loadu_epi8(k, s + fy * row + (int64_t)fx * C + c));
        _mm512_mask_storeu_epi8(o + c, k, _mm512_min_epi8(hi, _mm512_max_epi8(lo, m)));
    }
    return 1;
}

/* AVERAGE_POOL_2D int8: 16 channels' int32 sums (wrapping), TFLite's rounding term added or subtracted
 * by the sign, and the truncating division by the count done in double: for any int32 numerator n and
 * count c the rounded quotient is within half an ulp of n / c, which is below 1 / (2c) for |n| < 2^31,
 * less than the distance 1 / c from n / c to an integer it is not, so truncation gives C's quotient. */
static int avg_px_i8(const rt_pool_params *p, const int8_t *s, int32_t ny, int32_t nx, int8_t *o) {
    const int32_t C = p->channels, count = ny * nx;
    const int64_t row = (int64_t)p->in_w * C;
    const __m512i lo = _mm512_set1_epi32(p->act_qmin), hi = _mm512_set1_epi32(p->act_qmax);
    const __m512i half = _mm512_set1_epi32(count / 2), zero = _mm512_setzero_si512();
    const __m512d dc = _mm512_set1_pd((double)count);
    int32_t c, fy, fx;
    if (p->act_qmin > p->act_qmax) return 0;
    for (c = 0; c < C; c += 16) {
        const __mmask64 k = C - c >= 16 ? (__mmask64)0xFFFF : (((__mmask64)1 << (C - c)) - 1u); /* 16 bytes */
        __m512i m = zero;
        for (fy = 0; fy < ny; fy++)
            for (fx = 0; fx < nx; fx++)
                m = _mm512_add_epi32(m, _mm512_cvtepi8_epi32(_mm512_castsi512_si128(
                                            _mm512_maskz_loadu_epi8(k, (const void *)(s + fy * row + (int64_t)fx * C + c)))));
        if (count > 0) {
            const __m512i t = _mm512_mask_sub_epi32(_mm512_add_epi32(m, half), _mm512_cmple_epi32_mask(m, zero), m, half);
            const __m256i q0 = _mm512_cvttpd_epi32(_mm512_div_pd(_mm512_cvtepi32_pd(_mm512_castsi512_si256(t)), dc));
            const __m256i q1 = _mm512_cvttpd_epi32(_mm512_div_pd(_mm512_cvtepi32_pd(_mm512_extracti64x4_epi64(t, 1)), dc));
            m = _mm512_inserti64x4(_mm512_castsi256_si512(q0), q1, 1);
        }
        _mm512_mask_storeu_epi8((void *)(o + c), k,
                                _mm512_castsi128_si512(_mm512_cvtepi32_epi8(_mm512_min_epi32(_mm512_max_epi32(m, lo), hi))));
    }
    return 1;
}
#define VEC_F32(p, s, ny, nx, o) pool_px_f32(p, s, ny, nx, o, 0)
#define VEC_I8 pool_px_i8
#define VEC_AVG_F32(p, s, ny, nx, o) pool_px_f32(p, s, ny, nx, o, 1)
#define VEC_AVG_I8 avg_px_i8
#elif defined(RT_OPT_AVX2)
/* AVX2 without AVX-512: pool_px_f32 with 8 floats per ymm, the last group of fewer than 8 channels
 * loaded (as 0) and stored under a lane mask (landmark's 2x2 max pools had run the portable loops
 * through a stack array: ~8% of the model on a Zen 3 core). */
static int pool_px_f32(const rt_pool_params *p, const float *s, int32_t ny, int32_t nx, float *o, int avg) {
    const int32_t C = p->channels;
    const int64_t row = (int64_t)p->in_w * C;
    const __m256 lo = _mm256_set1_ps(p->act_min), hi = _mm256_set1_ps(p->act_max);
    const __m256 count = _mm256_set1_ps(count_f32(ny * nx));
    const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    int32_t c, fy, fx;
    if (!(p->act_min <= p->act_max)) return 0;
    for (c = 0; c < C; c += 8) {
        const int full = C - c >= 8;
        const __m256i k = _mm256_cmpgt_epi32(_mm256_set1_epi32(C - c), lane);
        __m256 m = avg ? _mm256_setzero_ps() : _mm256_set1_ps(-FLT_MAX);
        for (fy = 0; fy < ny; fy++)
            for (fx = 0; fx < nx; fx++) {
                const float *q = s + fy * row + (int64_t)fx * C + c;
                const __m256 t = full ? _mm256_loadu_ps(q) : _mm256_maskload_ps(q, k);
                m = avg ? _mm256_add_ps(m, t) : _mm256_max_ps(t, m);
            }
        if (avg) m = ny * nx > 0 ? _mm256_div_ps(m, count) : _mm256_setzero_ps();
        m = _mm256_min_ps(hi, _mm256_max_ps(lo, m));
        if (full) _mm256_storeu_ps(o + c, m);
        else _mm256_maskstore_ps(o + c, k, m);
    }
    return 1;
}

/* The int8 max as the AVX-512 pool_px_i8: 32 channels per ymm, then 16 per xmm, the last fewer than 16
 * one by one (digits' 2x2 max pool ran the portable loops through an int32 array: ~8 % of the model on a
 * Zen 3 core). */
static int pool_px_i8(const rt_pool_params *p, const int8_t *s, int32_t ny, int32_t nx, int8_t *o) {
    const int32_t C = p->channels;
    const int64_t row = (int64_t)p->in_w * C;
    const int32_t qlo = p->act_qmin < -128 ? -128 : p->act_qmin, qhi = p->act_qmax > 127 ? 127 : p->act_qmax;
    const int8_t blo = (int8_t)(qlo > 127 ? 127 : qlo), bhi = (int8_t)(qhi < -128 ? -128 : qhi);
    const __m256i lo = _mm256_set1_epi8((char)blo), hi = _mm256_set1_epi8((char)bhi);
    int32_t c = 0, fy, fx;
    if (qlo > qhi) return 0;
    for (; C - c >= 32; c += 32) {
        __m256i m = _mm256_set1_epi8(-128);
        for (fy = 0; fy < ny; fy++)
            for (fx = 0; fx < nx; fx++)
                m = _mm256_max_epi8(m, _mm256_loadu_si256((const __m256i *)(const void *)(s + fy * row + (int64_t)fx * C + c)));
        _mm256_storeu_si256((__m256i *)(void *)(o + c), _mm256_min_epi8(hi, _mm256_max_epi8(lo, m)));
    }
    for (; C - c >= 16; c += 16) {
        __m128i m = _mm_set1_epi8(-128);
        for (fy = 0; fy < ny; fy++)
            for (fx = 0; fx < nx; fx++)
                m = _mm_max_epi8(m, _mm_loadu_si128((const __m128i *)(const void *)(s + fy * row + (int64_t)fx * C + c)));
        _mm_storeu_si128((__m128i *)(void *)(o + c),
                         _mm_min_epi8(_mm256_castsi256_si128(hi), _mm_max_epi8(_mm256_castsi256_si128(lo), m)));
    }
    pool_tail_i8(p, s, ny, nx, o, c, blo, bhi);
    return 1;
}
#define VEC_F32(p, s, ny, nx, o) pool_px_f32(p, s, ny, nx, o, 0)
#define VEC_I8 pool_px_i8
#define VEC_AVG_F32(p, s, ny, nx, o) pool_px_f32(p, s, ny, nx, o, 1)
#define VEC_AVG_I8(p, s, ny, nx, o) 0
#elif defined(RT_A64)
/* AArch64: the f32 max pool 8 channels at a time (channels a multiple of 4), the max and the clamp as
 * MAX_STEP's and CLAMP_F32's selects (FCMGT / FCMLT and BSL: a NaN passes as there). GCC left the
 * portable loops scalar (digits' 2x2 max pool: 17 % of the model's instructions). */
static int pool_px_f32(const rt_pool_params *p, const float *s, int32_t ny, int32_t nx, float *o) {
    const int32_t C = p->channels;
    const int64_t row = (int64_t)p->in_w * C;
    const float32x4_t lo = vdupq_n_f32(p->act_min), hi = vdupq_n_f32(p->act_max);
    int32_t c, fy, fx, h;
    if (C % 4 || !(p->act_min <= p->act_max)) return 0;
    for (c = 0; c < C; c += 8) {
        const int two = C - c >= 8;
        float32x4_t m[2];
        m[0] = m[1] = vdupq_n_f32(-FLT_MAX);
        for (fy = 0; fy < ny; fy++)
            for (fx = 0; fx < nx; fx++) {
                const float *q = s + fy * row + (int64_t)fx * C + c;
                for (h = 0; h < 1 + two; h++) {
                    const float32x4_t t = vld1q_f32(q + 4 * h);
                    m[h] = vbslq_f32(vcgtq_f32(t, m[h]), t, m[h]);
                }
            }
        for (h = 0; h < 1 + two; h++) {
            const float32x4_t v = vbslq_f32(vcltq_f32(m[h], lo), lo, m[h]);
            vst1q_f32(o + c + 4 * h, vbslq_f32(vcgtq_f32(v, hi), hi, v));
        }
    }
    return 1;
}
/* The int8 max 16 channels at a time (SMAX), the last fewer than 16 one by one; the clamp as
 * the AVX paths' (digits int8's 2x2 max pool ran the portable loops through an int32 array: a third of
 * the model's instructions with the dot product). */
static int pool_px_i8(const rt_pool_params *p, const int8_t *s, int32_t ny, int32_t nx, int8_t *o) {
    const int32_t C = p->channels;
    const int64_t row = (int64_t)p->in_w * C;
    const int32_t qlo = p->act_qmin < -128 ? -128 : p->act_qmin, qhi = p->act_qmax > 127 ? 127 : p->act_qmax;
    const int8_t blo = (int8_t)(qlo > 127 ? 127 : qlo), bhi = (int8_t)(qhi < -128 ? -128 : qhi);
    const int8x16_t lo = vdupq_n_s8(blo), hi = vdupq_n_s8(bhi);
    int32_t c = 0, fy, fx;
    if (qlo > qhi) return 0;
    for (; C - c >= 16; c += 16) {
        int8x16_t m = vdupq_n_s8(-128);
        for (fy = 0; fy < ny; fy++)
            for (fx = 0; fx < nx; fx++) m = vmaxq_s8(m, vld1q_s8(s + fy * row + (int64_t)fx * C + c));
        vst1q_s8(o + c, vminq_s8(hi, vmaxq_s8(lo, m)));
    }
    pool_tail_i8(p, s, ny, nx, o, c, blo, bhi);
    return 1;
}
#define VEC_F32 pool_px_f32
#define VEC_I8 pool_px_i8
#define VEC_AVG_F32(p, s, ny, nx, o) 0
#define VEC_AVG_I8(p, s, ny, nx, o) 0
#else
#define VEC_F32(p, s, ny, nx, o) 0
#define VEC_I8(p, s, ny, nx, o) 0
#define VEC_AVG_F32(p, s, ny, nx, o) 0
#define VEC_AVG_I8(p, s, ny, nx, o) 0
#endif

RT_OPT_POOL(rt_opt_max_pool_2d_f32, float, float, -FLT_MAX, MAX_STEP, MAX_FINISH_F32, VEC_F32)
RT_OPT_POOL(rt_opt_max_pool_2d_i8, int8_t, int32_t, -128, MAX_STEP, MAX_FINISH_I8, VEC_I8)
RT_OPT_POOL(rt_opt_average_pool_2d_f32, float, float, 0.0f, SUM_F32, AVG_F32, VEC_AVG_F32)
RT_OPT_POOL(rt_opt_average_pool_2d_i8, int8_t, uint32_t, 0u, SUM_I8, AVG_I8, VEC_AVG_I8)
