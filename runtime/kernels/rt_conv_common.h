/* rt_conv_common.h - types shared by the "conv" group's kernels. */
#ifndef MPCC_RT_CONV_COMMON_H
#define MPCC_RT_CONV_COMMON_H

/* 2-D pooling over an NHWC tensor (AVERAGE_POOL_2D, MAX_POOL_2D). The window
 * at output (y, x) starts at input (y*stride_h - pad_h, x*stride_w - pad_w)
 * and is clipped to the image. Quantized pools keep the input's scale and
 * zero point. */
typedef struct rt_pool_params {
    int32_t batches, in_h, in_w, channels;
    int32_t out_h, out_w;
    int32_t filter_h, filter_w, stride_h, stride_w, pad_h, pad_w;
    float act_min, act_max;                     /* float kernels */
    int32_t act_qmin, act_qmax;                 /* quantized kernels */
} rt_pool_params;

/* Pool window along one axis, clipped to the image: taps lo..hi-1 of a
 * filter whose first tap sits at input coordinate `origin`. */
static inline void rt_pool_window(int32_t origin, int32_t filter, int32_t size, int32_t *lo, int32_t *hi) {
    *lo = origin < 0 ? -origin : 0;
    *hi = size - origin < filter ? size - origin : filter;
}

/* The integer AVERAGE_POOL_2D mean of `count` taps summing to acc: rounded half away from zero, the
 * rounding term wrapping as the int32 sum does (TFLite's kernel); acc itself for an empty window. */
static inline int32_t rt_pool_mean_i32(int32_t acc, int32_t count) {
    if (count <= 0) return acc;
    return acc > 0 ? rt_wrap_add_i32(acc, count / 2) / count : rt_wrap_add_i32(acc, -(count / 2)) / count;
}

/* Reduction over some axes (MEAN, SUM, REDUCE_MAX, REDUCE_MIN). Input
 * elements are visited in row-major order; element i goes to output offset
 * rt_reduce_out_offset(p, i). */
typedef struct rt_reduce_params {
    int32_t rank;                               /* input rank */
    int32_t in_dims[RT_MAX_RANK];
    int32_t out_stride[RT_MAX_RANK];            /* output stride per input dim, 0 on reduced dims */
    int32_t in_count, out_count, reduce_count;  /* elements in, out, and per output */
    int32_t in_zp, out_zp;
    float in_scale, out_scale;
    int32_t mult, shift;                        /* quantized MEAN: in_scale / out_scale / reduce_count */
} rt_reduce_params;

static inline int64_t rt_reduce_out_offset(const rt_reduce_params *p, int64_t i) {
    int64_t off = 0;
    int32_t d;
    for (d = p->rank - 1; d >= 0; d--) {
        off += (i % p->in_dims[d]) * p->out_stride[d];
        i /= p->in_dims[d];
    }
    return off;
}

/* The same offsets while walking the input in order (an odometer, no
 * division per element): start from {0}, call rt_reduce_next after each
 * input element; it.out is the current element's output offset. */
typedef struct rt_reduce_iter {
    int32_t idx[RT_MAX_RANK];
    int64_t out;
} rt_reduce_iter;

static inline void rt_reduce_next(const rt_reduce_params *p, rt_reduce_iter *it) {
    int32_t d;
    for (d = p->rank - 1; d >= 0; d--) {
        it->out += p->out_stride[d];
        if (++it->idx[d] < p->in_dims[d]) return;
        it->out -= (int64_t)p->out_stride[d] * p->in_dims[d];
        it->idx[d] = 0;
    }
}

/* RESIZE_BILINEAR / RESIZE_NEAREST_NEIGHBOR over an NHWC tensor. */
typedef struct rt_resize_params {
    int32_t batches, in_h, in_w, channels;
    int32_t out_h, out_w;
    int32_t align_corners, half_pixel_centers;
    int32_t elem_size;                          /* bytes per element (nearest neighbor) */
} rt_resize_params;

/* RESIZE_BILINEAR float: the source coordinate of output index v and its two neighbours (TFLite's
 * scale and clamping; src may lie below 0 with half_pixel_centers, the weights then extrapolate). */
static inline float rt_resize_scale_f32(int32_t in, int32_t out, int32_t align_corners) {
    if (align_corners && out > 1) return (float)(in - 1) / (float)(out - 1);
    return (float)in / (float)out;
}

static inline void rt_resize_coord_f32(int32_t v, float scale, int32_t half_pixel, int32_t size, float *src,
                                       int32_t *lo, int32_t *hi) {
    float f;
    int32_t c;
    *src = half_pixel ? ((float)v + 0.5f) * scale - 0.5f : (float)v * scale;
    f = floorf(*src);
    *lo = (int32_t)f > 0 ? (int32_t)f : 0;
    c = (int32_t)ceilf(*src);
    *hi = c < size - 1 ? c : size - 1;
}

/* RESIZE_BILINEAR integer (TFLite's ResizeBilinearInteger): scale of source over output coordinates
 * in 1/1024 units, and the source coordinate of output index v in those units with its neighbours. */
static inline int32_t rt_resize_scale_10(int32_t in, int32_t out, int32_t align_corners) {
    if (align_corners && out > 1) return ((1 << 10) * (in - 1) + (out - 1) / 2) / (out - 1);
    return ((1 << 10) * in + out / 2) / out;
}

static inline void rt_resize_coord_10(int32_t v, int32_t scale, int32_t half_pixel, int32_t size, int32_t *src,
                                      int32_t *lo, int32_t *hi) {
    int32_t l, h;
    *src = half_pixel ? v * scale + scale / 2 - (1 << 9) : v * scale;
    l = *src / (1 << 10);
    h = (*src + (1 << 10) - 1) / (1 << 10);
    *lo = l > 0 ? l : 0;
    *hi = h < size - 1 ? h : size - 1;
}

/* RESIZE_NEAREST_NEIGHBOR: the source index of output index v (TFLite's GetNearestNeighbor). */
static inline int32_t rt_resize_nearest(int32_t v, int32_t in_size, int32_t out_size, int32_t align_corners,
                                        int32_t half_pixel) {
    float scale = (align_corners && out_size > 1) ? (float)(in_size - 1) / (float)(out_size - 1)
                                                  : (float)in_size / (float)out_size;
    float offset = half_pixel ? 0.5f : 0.0f;
    int32_t r = align_corners ? (int32_t)roundf(((float)v + offset) * scale)
                              : (int32_t)floorf(((float)v + offset) * scale);
    if (r > in_size - 1) r = in_size - 1;
    if (half_pixel && r < 0) r = 0;
    return r;
}

#endif
