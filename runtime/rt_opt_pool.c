/* rt_opt_pool.c - MAX_POOL_2D vectorized over channels: per output pixel the
 * window's taps are outer and the channels inner, one contiguous run each
 * (NHWC). With AVX-512 a pixel's channels are 64 bytes (int8) or 16 floats per
 * register, masked at the end, the maxima kept in registers across the taps;
 * elsewhere the compiler vectorizes the portable loops. Same results as the
 * reference kernels (same start value, same comparison, same clamp). */
#include <float.h>

#include "mpcc_rt.h"
#include "rt_opt.h"
#include "rt_opt_internal.h"

#define POOL_CHUNK 256 /* channels per pass: the running maxima stay in registers or L1 */

#define RT_OPT_MAX_POOL(NAME, T, ACC, LOWEST, CLAMP, VEC)                                                          \
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
                        for (c = 0; c < n; c++) m[c] = LOWEST;                                                \
                        for (fy = fy0; fy < fy1; fy++)                                                        \
                            for (fx = fx0; fx < fx1; fx++) {                                                  \
                                const T *s = in + (((int64_t)b * p->in_h + y0 + fy) * p->in_w + x0 + fx) * C + c0; \
                                for (c = 0; c < n; c++) m[c] = (ACC)s[c] > m[c] ? (ACC)s[c] : m[c];           \
                            }                                                                                 \
                        for (c = 0; c < n; c++) o[c0 + c] = CLAMP(m[c]);                                      \
                    }                                                                                         \
                }                                                                                             \
            }                                                                                                 \
    }

#define CLAMP_F32(v) rt_clamp_f32((v), p->act_min, p->act_max)
#define CLAMP_I8(v) ((int8_t)rt_clamp_i32((v), p->act_qmin, p->act_qmax))

#if defined(RT_OPT_AVX512)
/* One output pixel: the max over ny x nx taps (the first at s) of each channel, clamped, written to o.
 * max(t, m) is t > m ? t : m lane for lane (the reference's comparison, NaN included), and
 * min(hi, max(lo, v)) is the reference clamp v < lo ? lo : (v > hi ? hi : v) for lo <= hi. */
static int pool_px_f32(const rt_pool_params *p, const float *s, int32_t ny, int32_t nx, float *o) {
    const int32_t C = p->channels;
    const int64_t row = (int64_t)p->in_w * C;
    const __m512 lo = _mm512_set1_ps(p->act_min), hi = _mm512_set1_ps(p->act_max);
    int32_t c, fy, fx;
    if (!(p->act_min <= p->act_max)) return 0;
    for (c = 0; c < C; c += 16) {
        const __mmask16 k = C - c >= 16 ? (__mmask16)0xFFFF : (__mmask16)((1u << (C - c)) - 1u);
        __m512 m = _mm512_set1_ps(-FLT_MAX);
        for (fy = 0; fy < ny; fy++)
            for (fx = 0; fx < nx; fx++) m = _mm512_max_ps(_mm512_maskz_loadu_ps(k, s + fy * row + (int64_t)fx * C + c), m);
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
#define VEC_F32 pool_px_f32
#define VEC_I8 pool_px_i8
#else
#define VEC_F32(p, s, ny, nx, o) 0
#define VEC_I8(p, s, ny, nx, o) 0
#endif

RT_OPT_MAX_POOL(rt_opt_max_pool_2d_f32, float, float, -FLT_MAX, CLAMP_F32, VEC_F32)
RT_OPT_MAX_POOL(rt_opt_max_pool_2d_i8, int8_t, int32_t, -128, CLAMP_I8, VEC_I8)
