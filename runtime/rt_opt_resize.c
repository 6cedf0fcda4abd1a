/* rt_opt_resize.c - RESIZE_BILINEAR (f32, int8) and RESIZE_NEAREST_NEIGHBOR (any element size) over NHWC.
 *
 * Bilinear is separable: each output row blends two source rows that were first interpolated along x
 * ("h-rows", out_w x channels each, kept in scratch). An h-row is made once per source row and reused
 * by every output row that reads it (a 2x upscale makes each one once and reads it about four times),
 * so an output element costs one vertical blend plus a share of two horizontal ones instead of the
 * reference's four products. The per-column source offsets and weights are tabled once per call.
 * The channel loops are contiguous and the compiler vectorizes them.
 *
 * int8: TFLite's integer interpolation, bit-exact: with wx0 = 1024 - dx, wx1 = dx (likewise y) the
 * reference's sum a wy0 wx0 + b wy0 wx1 + c wy1 wx0 + d wy1 wx1 equals wy0 (a wx0 + b wx1) +
 * wy1 (c wx0 + d wx1) exactly in int32: |dx|, |dy| <= 1024 and a half-pixel weight is at most 1536,
 * so an h-row value is below 2^18 and the sum below 2^30. The rounding (half away from zero, / 2^20)
 * and the int8 cast are the reference's.
 *
 * f32: top + (bottom - top) dy of the h-rows left + (right - left) dx, one rounding per blend
 * (RT_FMAF): within a few ulp of the reference's four weighted products, not bit-identical.
 *
 * Nearest neighbour copies whole output rows when two output rows read the same source row, and
 * otherwise one pixel per column from a table of source columns. */
#include <string.h>

#include "mpcc_rt.h"
#include "rt_opt.h"
#include "rt_opt_internal.h"

/* Scratch layout of the bilinear kernels: two h-rows (float or int32), then the column table. */
static int64_t hrow_elems(const rt_resize_params *p) { return (int64_t)p->out_w * p->channels; }

int64_t rt_opt_resize_scratch_bytes(const rt_resize_params *p, int32_t bilinear) {
    if (!bilinear) return (int64_t)p->out_w * (int64_t)sizeof(int32_t);
    return 2 * hrow_elems(p) * 4 + (int64_t)p->out_w * 4 * (int64_t)sizeof(int32_t);
}

/* The h-row slot (0 or 1) to hold source row `row`: the one holding it (*make = 0), else the one not
 * holding `keep`, the other row the output row needs (*make = 1: the caller makes it there). */
static int32_t hrow_slot(int32_t idx[2], int32_t row, int32_t keep, int *make) {
    int32_t slot;
    *make = 0;
    if (idx[0] == row) return 0;
    if (idx[1] == row) return 1;
    slot = idx[0] == keep ? 1 : 0;
    idx[slot] = row;
    *make = 1;
    return slot;
}

/* Source row r interpolated along x into d (out_w x C). */
static void hrow_f32(const float *r, const int32_t *x0s, const int32_t *x1s, const float *dxs, int32_t W,
                     int32_t C, float *d) {
    int32_t x, c;
    for (x = 0; x < W; x++, d += C) {
        const float *l = r + (int64_t)x0s[x] * C, *rr = r + (int64_t)x1s[x] * C;
        const float dx = dxs[x];
        for (c = 0; c < C; c++) d[c] = RT_FMAF(rr[c] - l[c], dx, l[c]);
    }
}

/* The same in int8 with weights (w0, w1) in 1/1024 units: sums in 2^-10 units. */
static void hrow_i8(const int8_t *r, const int32_t *x0s, const int32_t *x1s, const int32_t *w0s,
                    const int32_t *w1s, int32_t W, int32_t C, int32_t *d) {
    int32_t x, c;
    for (x = 0; x < W; x++, d += C) {
        const int8_t *l = r + (int64_t)x0s[x] * C, *rr = r + (int64_t)x1s[x] * C;
        const int32_t w0 = w0s[x], w1 = w1s[x];
        for (c = 0; c < C; c++) d[c] = (int32_t)l[c] * w0 + (int32_t)rr[c] * w1;
    }
}

void rt_opt_resize_bilinear_f32(const rt_resize_params *p, const float *in, float *out, void *scratch) {
    const int32_t C = p->channels, W = p->out_w;
    const int64_t n = hrow_elems(p), in_row = (int64_t)p->in_w * C;
    float *h[2], *dxs;
    int32_t *x0s, *x1s, idx[2], b, y, x;
    float hs = rt_resize_scale_f32(p->in_h, p->out_h, p->align_corners);
    float ws = rt_resize_scale_f32(p->in_w, p->out_w, p->align_corners);
    h[0] = (float *)scratch;
    h[1] = h[0] + n;
    dxs = h[1] + n;
    x0s = (int32_t *)(dxs + W);
    x1s = x0s + W;
    for (x = 0; x < W; x++) {
        float sx;
        rt_resize_coord_f32(x, ws, p->half_pixel_centers, p->in_w, &sx, &x0s[x], &x1s[x]);
        dxs[x] = sx - (float)x0s[x];
    }
    for (b = 0; b < p->batches; b++) {
        const float *img = in + (int64_t)b * p->in_h * in_row;
        idx[0] = idx[1] = -1;
        for (y = 0; y < p->out_h; y++) {
            float sy, dy;
            int32_t y0, y1, s0, s1;
            int make;
            float *o = out + ((int64_t)b * p->out_h + y) * n;
            rt_resize_coord_f32(y, hs, p->half_pixel_centers, p->in_h, &sy, &y0, &y1);
            dy = sy - (float)y0;
            s0 = hrow_slot(idx, y0, y1, &make);
            if (make) hrow_f32(img + (int64_t)y0 * in_row, x0s, x1s, dxs, W, C, h[s0]);
            s1 = hrow_slot(idx, y1, y0, &make);
            if (make) hrow_f32(img + (int64_t)y1 * in_row, x0s, x1s, dxs, W, C, h[s1]);
            {
                const float *t = h[s0], *u = h[s1];
                int64_t i;
                for (i = 0; i < n; i++) o[i] = RT_FMAF(u[i] - t[i], dy, t[i]);
            }
        }
    }
}

void rt_opt_resize_bilinear_i8(const rt_resize_params *p, const int8_t *in, int8_t *out, void *scratch) {
    const int32_t C = p->channels, W = p->out_w;
    const int64_t n = hrow_elems(p), in_row = (int64_t)p->in_w * C;
    int32_t *h[2], *x0s, *x1s, *wx0s, *wx1s, idx[2], b, y, x;
    int32_t hs = rt_resize_scale_10(p->in_h, p->out_h, p->align_corners);
    int32_t ws = rt_resize_scale_10(p->in_w, p->out_w, p->align_corners);
    h[0] = (int32_t *)scratch;
    h[1] = h[0] + n;
    x0s = h[1] + n;
    x1s = x0s + W;
    wx0s = x1s + W;
    wx1s = wx0s + W;
    for (x = 0; x < W; x++) {
        int32_t sx;
        rt_resize_coord_10(x, ws, p->half_pixel_centers, p->in_w, &sx, &x0s[x], &x1s[x]);
        wx1s[x] = sx - (1 << 10) * x0s[x];
        wx0s[x] = (1 << 10) - wx1s[x];
    }
    for (b = 0; b < p->batches; b++) {
        const int8_t *img = in + (int64_t)b * p->in_h * in_row;
        idx[0] = idx[1] = -1;
        for (y = 0; y < p->out_h; y++) {
            int32_t sy, y0, y1, s0, s1, wy0, wy1;
            int make;
            int8_t *o = out + ((int64_t)b * p->out_h + y) * n;
            rt_resize_coord_10(y, hs, p->half_pixel_centers, p->in_h, &sy, &y0, &y1);
            wy1 = sy - (1 << 10) * y0;
            wy0 = (1 << 10) - wy1;
            s0 = hrow_slot(idx, y0, y1, &make);
            if (make) hrow_i8(img + (int64_t)y0 * in_row, x0s, x1s, wx0s, wx1s, W, C, h[s0]);
            s1 = hrow_slot(idx, y1, y0, &make);
            if (make) hrow_i8(img + (int64_t)y1 * in_row, x0s, x1s, wx0s, wx1s, W, C, h[s1]);
            {
                const int32_t *t = h[s0], *u = h[s1];
                int64_t i;
                for (i = 0; i < n; i++) {
                    int32_t v = t[i] * wy0 + u[i] * wy1;
                    o[i] = (int8_t)((v + (v > 0 ? (1 << 19) : -(1 << 19))) / (1 << 20));
                }
            }
        }
    }
}

void rt_opt_resize_nearest(const rt_resize_params *p, const void *in, void *out, void *scratch) {
    const size_t pixel = (size_t)p->channels * (size_t)p->elem_size;
    const size_t in_row = pixel * (size_t)p->in_w, out_row = pixel * (size_t)p->out_w;
    const unsigned char *src = (const unsigned char *)in;
    unsigned char *dst = (unsigned char *)out;
    int32_t *xs = (int32_t *)scratch, b, y, x;
    for (x = 0; x < p->out_w; x++)
        xs[x] = rt_resize_nearest(x, p->in_w, p->out_w, p->align_corners, p->half_pixel_centers);
    for (b = 0; b < p->batches; b++) {
        int32_t prev = -1;
        for (y = 0; y < p->out_h; y++) {
            int32_t sy = rt_resize_nearest(y, p->in_h, p->out_h, p->align_corners, p->half_pixel_centers);
            unsigned char *o = dst + ((size_t)b * (size_t)p->out_h + (size_t)y) * out_row;
            const unsigned char *r = src + ((size_t)b * (size_t)p->in_h + (size_t)sy) * in_row;
            if (sy == prev) {
                memcpy(o, o - out_row, out_row);
                continue;
            }
            prev = sy;
            if (pixel == 4)
                for (x = 0; x < p->out_w; x++) memcpy(o + (size_t)x * 4, r + (size_t)xs[x] * 4, 4);
            else
                for (x = 0; x < p->out_w; x++) memcpy(o + (size_t)x * pixel, r + (size_t)xs[x] * pixel, pixel);
        }
    }
}
