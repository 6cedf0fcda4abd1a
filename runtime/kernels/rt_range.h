/* rt_range.h - RANGE kernels: out[i] = start + i * delta for i < n, formed as
 * TFLite does by adding delta to a running value (in float for f32, so the
 * rounding matches); start and delta are scalar inputs, n (the output's
 * length, fixed at compile time) is in the params. */
#ifndef MPCC_RT_RANGE_H
#define MPCC_RT_RANGE_H

typedef struct rt_range_params {
    int64_t n;
} rt_range_params;

void rt_range_f32(const rt_range_params *p, const float *start, const float *delta, float *out);
void rt_range_i32(const rt_range_params *p, const int32_t *start, const int32_t *delta, int32_t *out);
void rt_range_i64(const rt_range_params *p, const int64_t *start, const int64_t *delta, int64_t *out);

#endif
