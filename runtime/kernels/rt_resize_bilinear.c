/* rt_resize_bilinear.c - RESIZE_BILINEAR reference kernels (TFLite semantics). */
#include "mpcc_rt.h"

#define AT(b, y, x, c, h, w, ch) ((((int64_t)(b) * (h) + (y)) * (w) + (x)) * (ch) + (c))

void rt_resize_bilinear_f32(const rt_resize_params *p, const float *in, float *out) {
    float hs = rt_resize_scale_f32(p->in_h, p->out_h, p->align_corners);
    float ws = rt_resize_scale_f32(p->in_w, p->out_w, p->align_corners);
    int32_t b, y, x, c, y0, y1, x0, x1;
    float sy, sx;
    for (b = 0; b < p->batches; b++)
        for (y = 0; y < p->out_h; y++) {
            rt_resize_coord_f32(y, hs, p->half_pixel_centers, p->in_h, &sy, &y0, &y1);
            for (x = 0; x < p->out_w; x++) {
                rt_resize_coord_f32(x, ws, p->half_pixel_centers, p->in_w, &sx, &x0, &x1);
                for (c = 0; c < p->channels; c++) {
                    float dy = sy - (float)y0, dx = sx - (float)x0;
                    out[AT(b, y, x, c, p->out_h, p->out_w, p->channels)] =
                        in[AT(b, y0, x0, c, p->in_h, p->in_w, p->channels)] * (1 - dy) * (1 - dx) +
                        in[AT(b, y1, x0, c, p->in_h, p->in_w, p->channels)] * dy * (1 - dx) +
                        in[AT(b, y0, x1, c, p->in_h, p->in_w, p->channels)] * (1 - dy) * dx +
                        in[AT(b, y1, x1, c, p->in_h, p->in_w, p->channels)] * dy * dx;
                }
            }
        }
}

/* Weighted sum in 2^-20 units, rounded half away from zero. */
#define RESIZE_BILINEAR_INT(NAME, T)                                                              \
    void NAME(const rt_resize_params *p, const T *in, T *out) {                                   \
        int32_t hs = rt_resize_scale_10(p->in_h, p->out_h, p->align_corners);                     \
        int32_t ws = rt_resize_scale_10(p->in_w, p->out_w, p->align_corners);                     \
        int32_t b, y, x, c, y0, y1, x0, x1, sy, sx;                                               \
        for (b = 0; b < p->batches; b++)                                                          \
            for (y = 0; y < p->out_h; y++) {                                                      \
                rt_resize_coord_10(y, hs, p->half_pixel_centers, p->in_h, &sy, &y0, &y1);         \
                for (x = 0; x < p->out_w; x++) {                                                  \
                    int64_t dy = sy - (1 << 10) * y0, dx;                                         \
                    rt_resize_coord_10(x, ws, p->half_pixel_centers, p->in_w, &sx, &x0, &x1);     \
                    dx = sx - (1 << 10) * x0;                                                     \
                    for (c = 0; c < p->channels; c++) {                                           \
                        int64_t v = (int64_t)in[AT(b, y0, x0, c, p->in_h, p->in_w, p->channels)] * \
                                        ((1 << 10) - dy) * ((1 << 10) - dx) +                     \
                                    (int64_t)in[AT(b, y1, x0, c, p->in_h, p->in_w, p->channels)] * \
                                        dy * ((1 << 10) - dx) +                                   \
                                    (int64_t)in[AT(b, y0, x1, c, p->in_h, p->in_w, p->channels)] * \
                                        ((1 << 10) - dy) * dx +                                   \
                                    (int64_t)in[AT(b, y1, x1, c, p->in_h, p->in_w, p->channels)] * \
                                        dy * dx;                                                  \
                        int64_t round = v > 0 ? (1 << 19) : -(1 << 19);                           \
                        out[AT(b, y, x, c, p->out_h, p->out_w, p->channels)] = (T)((v + round) / (1 << 20)); \
                    }                                                                             \
                }                                                                                 \
            }                                                                                     \
    }

RESIZE_BILINEAR_INT(rt_resize_bilinear_i8, int8_t)
RESIZE_BILINEAR_INT(rt_resize_bilinear_i16, int16_t)
