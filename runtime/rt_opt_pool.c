/* rt_opt_pool.c - MAX_POOL_2D vectorized over channels: per output pixel the
 * window's taps are outer and the channels inner, one contiguous run each
 * (NHWC), so the compiler vectorizes the max. Same results as the reference
 * kernels (same start value, same comparison, same clamp). */
#include <float.h>

#include "mpcc_rt.h"
#include "rt_opt.h"

#define POOL_CHUNK 256 /* channels per pass: the running maxima stay in registers or L1 */

#define RT_OPT_MAX_POOL(NAME, T, ACC, LOWEST, CLAMP)                                                          \
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

RT_OPT_MAX_POOL(rt_opt_max_pool_2d_f32, float, float, -FLT_MAX, CLAMP_F32)
RT_OPT_MAX_POOL(rt_opt_max_pool_2d_i8, int8_t, int32_t, -128, CLAMP_I8)
