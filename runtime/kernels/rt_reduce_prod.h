/* rt_reduce_prod.h - REDUCE_PROD kernels. */
#ifndef MPCC_RT_REDUCE_PROD_H
#define MPCC_RT_REDUCE_PROD_H

#include "rt_conv_common.h"

/* The product over the reduced axes, inputs multiplied in row-major order
 * (integers wrap around as TFLite's do on every target). */
void rt_reduce_prod_f32(const rt_reduce_params *p, const float *in, float *out);
void rt_reduce_prod_i32(const rt_reduce_params *p, const int32_t *in, int32_t *out);
void rt_reduce_prod_i64(const rt_reduce_params *p, const int64_t *in, int64_t *out);

#endif
