/* rt_resize_nearest_neighbor.c - RESIZE_NEAREST_NEIGHBOR reference kernel. */
#include "mpcc_rt.h"

#include <string.h>

void rt_resize_nearest_neighbor(const rt_resize_params *p, const void *in, void *out) {
    const unsigned char *src = (const unsigned char *)in;
    unsigned char *dst = (unsigned char *)out;
    size_t pixel = (size_t)p->channels * (size_t)p->elem_size;
    int32_t b, y, x;
    for (b = 0; b < p->batches; b++)
        for (y = 0; y < p->out_h; y++) {
            int32_t sy = rt_resize_nearest(y, p->in_h, p->out_h, p->align_corners, p->half_pixel_centers);
            for (x = 0; x < p->out_w; x++) {
                int32_t sx = rt_resize_nearest(x, p->in_w, p->out_w, p->align_corners, p->half_pixel_centers);
                memcpy(dst + (((size_t)b * p->out_h + y) * p->out_w + x) * pixel,
                       src + (((size_t)b * p->in_h + sy) * p->in_w + sx) * pixel, pixel);
            }
        }
}
