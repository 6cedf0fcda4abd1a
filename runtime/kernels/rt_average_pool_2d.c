/* rt_average_pool_2d.c - AVERAGE_POOL_2D reference kernels (TFLite
 * reference_ops::AveragePool / reference_integer_ops::AveragePool). */
#include "mpcc_rt.h"

#define AT(p, b, y, x, c, h, w) ((((int64_t)(b) * (h) + (y)) * (w) + (x)) * (p)->channels + (c))

void rt_average_pool_2d_f32(const rt_pool_params *p, const float *in, float *out) {
    int32_t b, oy, ox, c, fy, fx, fy0, fy1, fx0, fx1;
    for (b = 0; b < p->batches; b++)
        for (oy = 0; oy < p->out_h; oy++)
            for (ox = 0; ox < p->out_w; ox++)
                for (c = 0; c < p->channels; c++) {
                    int32_t y0 = oy * p->stride_h - p->pad_h, x0 = ox * p->stride_w - p->pad_w;
                    float total = 0.0f, count = 0.0f, avg;
                    rt_pool_window(y0, p->filter_h, p->in_h, &fy0, &fy1);
                    rt_pool_window(x0, p->filter_w, p->in_w, &fx0, &fx1);
                    for (fy = fy0; fy < fy1; fy++)
                        for (fx = fx0; fx < fx1; fx++) {
                            total += in[AT(p, b, y0 + fy, x0 + fx, c, p->in_h, p->in_w)];
                            count += 1.0f;
                        }
                    avg = count > 0.0f ? total / count : 0.0f;
                    out[AT(p, b, oy, ox, c, p->out_h, p->out_w)] = rt_clamp_f32(avg, p->act_min, p->act_max);
                }
}

/* Integer mean of the window (rt_pool_mean_i32: rounded half away from zero).
 * The int32 sum and the rounding term wrap on overflow, as in TFLite's kernel
 * (a window of more than 2^31 / 128 int8 or 2^31 / 32768 int16 values). */
#define AVG_POOL_INT(NAME, T)                                                                     \
    void NAME(const rt_pool_params *p, const T *in, T *out) {                                     \
        int32_t b, oy, ox, c, fy, fx, fy0, fy1, fx0, fx1;                                         \
        for (b = 0; b < p->batches; b++)                                                          \
            for (oy = 0; oy < p->out_h; oy++)                                                     \
                for (ox = 0; ox < p->out_w; ox++)                                                 \
                    for (c = 0; c < p->channels; c++) {                                           \
                        int32_t y0 = oy * p->stride_h - p->pad_h, x0 = ox * p->stride_w - p->pad_w; \
                        int32_t acc = 0, count = 0;                                               \
                        rt_pool_window(y0, p->filter_h, p->in_h, &fy0, &fy1);                     \
                        rt_pool_window(x0, p->filter_w, p->in_w, &fx0, &fx1);                     \
                        for (fy = fy0; fy < fy1; fy++)                                            \
                            for (fx = fx0; fx < fx1; fx++) {                                      \
                                int64_t at = AT(p, b, y0 + fy, x0 + fx, c, p->in_h, p->in_w);     \
                                acc = rt_wrap_add_i32(acc, in[at]);                               \
                                count++;                                                          \
                            }                                                                     \
                        out[AT(p, b, oy, ox, c, p->out_h, p->out_w)] =                            \
                            (T)rt_clamp_i32(rt_pool_mean_i32(acc, count), p->act_qmin, p->act_qmax); \
                    }                                                                             \
    }

AVG_POOL_INT(rt_average_pool_2d_i8, int8_t)
AVG_POOL_INT(rt_average_pool_2d_i16, int16_t)
