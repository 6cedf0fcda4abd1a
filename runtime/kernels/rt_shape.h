/* rt_shape.h - SHAPE kernels: write the (compile-time) input dimensions. */
#ifndef MPCC_RT_SHAPE_H
#define MPCC_RT_SHAPE_H

typedef struct rt_shape_params {
    int32_t rank;
    int32_t dims[RT_MAX_RANK];
} rt_shape_params;

void rt_shape_i32(const rt_shape_params *p, int32_t *out);
void rt_shape_i64(const rt_shape_params *p, int64_t *out);

/* The run-time check of a shape input that a model computes at run time (e.g.
 * TRANSPOSE_CONV's output_shape as a graph input) against the values it was
 * compiled for: 1 if the n values equal want (wildcard: a -1 matches too). */
int rt_check_shape_i32(const int32_t *got, const int32_t *want, int32_t n, int wildcard);
int rt_check_shape_i64(const int64_t *got, const int64_t *want, int32_t n, int wildcard);

#endif
