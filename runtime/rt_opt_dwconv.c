/* rt_opt_dwconv.c - depthwise convolution (depth multiplier 1) vectorized
 * over channels: per output pixel, taps outer and channels inner in long
 * contiguous loops the compiler vectorizes (NHWC keeps channels adjacent in
 * input, filter and output). Results equal the reference kernels. */
#include "mpcc_rt.h"
#include "rt_opt.h"
#include "rt_opt_internal.h"

#define CHUNK 512 /* channels per pass; the accumulators stay in L1 */

/* Clipped tap range [lo, hi) of a filter along one axis at `origin`. */
static void taps(int32_t origin, int32_t dil, int32_t filter, int32_t size, int32_t *lo, int32_t *hi) {
    int32_t t = 0;
    while (t < filter && origin + t * dil < 0) t++;
    *lo = t;
    t = filter;
    while (t > *lo && origin + (t - 1) * dil >= size) t--;
    *hi = t;
}

void rt_opt_dwconv_f32(const struct rt_dwconv_params *p, const float *in, const float *filter, const float *bias,
                       float *out) {
    int32_t b, oy, ox, c0, c, fy, fx, M = p->depth_mult, C = p->in_c * M;
    float acc[CHUNK];
    for (b = 0; b < p->batches; b++)
        for (oy = 0; oy < p->out_h; oy++) {
            int32_t y0 = oy * p->stride_h - p->pad_h, ylo, yhi;
            taps(y0, p->dil_h, p->filter_h, p->in_h, &ylo, &yhi);
            for (ox = 0; ox < p->out_w; ox++) {
                int32_t x0 = ox * p->stride_w - p->pad_w, xlo, xhi;
                float *o = out + (((int64_t)b * p->out_h + oy) * p->out_w + ox) * C;
                taps(x0, p->dil_w, p->filter_w, p->in_w, &xlo, &xhi);
                for (c0 = 0; c0 < C; c0 += CHUNK) {
                    int32_t n = C - c0 < CHUNK ? C - c0 : CHUNK;
                    for (c = 0; c < n; c++) acc[c] = bias ? bias[c0 + c] : 0.0f;
                    for (fy = ylo; fy < yhi; fy++) {
                        int32_t y = y0 + fy * p->dil_h;
                        for (fx = xlo; fx < xhi; fx++) {
                            int32_t x = x0 + fx * p->dil_w;
                            const float *ip = in + (((int64_t)b * p->in_h + y) * p->in_w + x) * p->in_c;
                            const float *wp = filter + ((int64_t)fy * p->filter_w + fx) * C + c0;
                            if (M == 1)
                                for (c = 0; c < n; c++) acc[c] += ip[c0 + c] * wp[c];
                            else
                                for (c = 0; c < n; c++) acc[c] += ip[(c0 + c) / M] * wp[c];
                        }
                    }
                    for (c = 0; c < n; c++) {
                        float v = acc[c];
                        v = v < p->act_min ? p->act_min : v;
                        o[c0 + c] = v > p->act_max ? p->act_max : v;
                    }
                }
            }
        }
}

void rt_opt_dwconv_s8(const struct rt_dwconv_params *p, const int8_t *in, const int8_t *filter, const int32_t *bias,
                      int8_t *out) {
    int32_t b, oy, ox, c0, c, fy, fx, M = p->depth_mult, C = p->in_c * M;
    uint32_t acc[CHUNK];
    int32_t acc32[CHUNK];
    /* |(in + off) * w| <= 255 * 128 fits int16 when off is in [-127, 128]. */
    const int16_t off = (int16_t)p->in_offset;
    const int off16 = p->in_offset >= -127 && p->in_offset <= 128;
    for (b = 0; b < p->batches; b++)
        for (oy = 0; oy < p->out_h; oy++) {
            int32_t y0 = oy * p->stride_h - p->pad_h, ylo, yhi;
            taps(y0, p->dil_h, p->filter_h, p->in_h, &ylo, &yhi);
            for (ox = 0; ox < p->out_w; ox++) {
                int32_t x0 = ox * p->stride_w - p->pad_w, xlo, xhi;
                int8_t *o = out + (((int64_t)b * p->out_h + oy) * p->out_w + ox) * C;
                taps(x0, p->dil_w, p->filter_w, p->in_w, &xlo, &xhi);
                for (c0 = 0; c0 < C; c0 += CHUNK) {
                    int32_t n = C - c0 < CHUNK ? C - c0 : CHUNK;
                    for (c = 0; c < n; c++) acc[c] = bias ? (uint32_t)bias[c0 + c] : 0u;
                    for (fy = ylo; fy < yhi; fy++) {
                        int32_t y = y0 + fy * p->dil_h;
                        for (fx = xlo; fx < xhi; fx++) {
                            int32_t x = x0 + fx * p->dil_w;
                            const int8_t *ip = in + (((int64_t)b * p->in_h + y) * p->in_w + x) * p->in_c;
                            const int8_t *wp = filter + ((int64_t)fy * p->filter_w + fx) * C + c0;
                            /* (in + in_offset) * w fits int16 when the offset is a zero point (the
                             * fast path); the sum wraps like TFLite's int32 accumulators. */
                            if (M == 1 && off16)
                                for (c = 0; c < n; c++)
                                    acc[c] += (uint32_t)(int32_t)(int16_t)((int16_t)(ip[c0 + c] + off) * (int16_t)wp[c]);
                            else
                                for (c = 0; c < n; c++)
                                    acc[c] += (uint32_t)(((int32_t)ip[(c0 + c) / M] + p->in_offset) * (int32_t)wp[c]);
                        }
                    }
                    for (c = 0; c < n; c++) acc32[c] = (int32_t)acc[c];
                    rt_opt_requant_i8(acc32, NULL, p->mult + c0, p->shift + c0, n, RT_OPT_ROUND_DOUBLE, p->out_offset,
                                      p->act_qmin, p->act_qmax, o + c0);
                }
            }
        }
}
