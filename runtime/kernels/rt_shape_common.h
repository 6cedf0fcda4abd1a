/* rt_shape_common.h - the strided byte copy shared by the data-movement ops
 * (RESHAPE, TRANSPOSE, SLICE, CONCATENATION, PAD, SPLIT, ...).
 *
 * Every such op is "for each point of an iteration box, copy `run`
 * contiguous bytes from in + in_offset + sum(idx[k] * in_strides[k]) to
 * out + out_offset + sum(idx[k] * out_strides[k])". The compiler computes
 * the box (dims merged and the contiguous innermost part folded into `run`),
 * so the kernel does not depend on the element type. Strides may be
 * negative (STRIDED_SLICE) or zero (BROADCAST_TO). in == out is allowed
 * when the copy is the identity (an aliased RESHAPE). */
#ifndef MPCC_RT_SHAPE_COMMON_H
#define MPCC_RT_SHAPE_COMMON_H

#include <string.h>

typedef struct rt_copy_params {
    int32_t rank;                     /* loop rank, 0..RT_MAX_RANK (0: one run) */
    int32_t dims[RT_MAX_RANK];        /* loop extents */
    int64_t in_strides[RT_MAX_RANK];  /* bytes */
    int64_t out_strides[RT_MAX_RANK]; /* bytes */
    int64_t in_offset, out_offset;    /* bytes */
    int64_t run;                      /* contiguous bytes copied at each point */
} rt_copy_params;

/* Number of points in the box (0 when a dimension is 0). */
static inline int64_t rt_copy_points(const rt_copy_params *p) {
    int64_t n = 1;
    int32_t k;
    for (k = 0; k < p->rank; k++) n *= p->dims[k];
    return n;
}

/* Advances the odometer idx[] and the byte offsets of the current point. */
static inline void rt_copy_next(const rt_copy_params *p, int32_t *idx, int64_t *si, int64_t *so) {
    int32_t k;
    for (k = p->rank - 1; k >= 0; k--) {
        *si += p->in_strides[k];
        *so += p->out_strides[k];
        if (++idx[k] < p->dims[k]) return;
        *si -= p->in_strides[k] * p->dims[k];
        *so -= p->out_strides[k] * p->dims[k];
        idx[k] = 0;
    }
}

static inline void rt_copy_strided(const rt_copy_params *p, const void *in, void *out) {
    const uint8_t *src = (const uint8_t *)in;
    uint8_t *dst = (uint8_t *)out;
    int32_t idx[RT_MAX_RANK] = {0};
    int64_t si = p->in_offset, so = p->out_offset, n, total = rt_copy_points(p);
    if (src == dst && si == so && total == 1) return; /* aliased identity copy */
    for (n = 0; n < total; n++) {
        /* memmove, not a byte loop (ViT's [1,16,64] concatenation took 1.2 us of 28) */
        memmove(dst + so, src + si, (size_t)p->run);
        rt_copy_next(p, idx, &si, &so);
    }
}

/* Several copies into or out of one tensor: part k moves input k (CONCAT,
 * PACK) or output k (SPLIT, SPLIT_V, UNPACK). */
typedef struct rt_parts_params {
    int32_t count;
    const rt_copy_params *parts;
} rt_parts_params;

#endif
