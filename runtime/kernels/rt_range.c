/* rt_range.c - RANGE reference kernels (TFLite semantics). */
#include "mpcc_rt.h"

void rt_range_f32(const rt_range_params *p, const float *start, const float *delta, float *out) {
    float v = *start;
    int64_t i;
    for (i = 0; i < p->n; i++) {
        out[i] = v;
        v += *delta;
    }
}

/* The running value wraps (the step after the last element may leave the type). */
void rt_range_i32(const rt_range_params *p, const int32_t *start, const int32_t *delta, int32_t *out) {
    int32_t v = *start;
    int64_t i;
    for (i = 0; i < p->n; i++) {
        out[i] = v;
        v = rt_wrap_add_i32(v, *delta);
    }
}

void rt_range_i64(const rt_range_params *p, const int64_t *start, const int64_t *delta, int64_t *out) {
    int64_t v = *start, i;
    for (i = 0; i < p->n; i++) {
        out[i] = v;
        v = (int64_t)((uint64_t)v + (uint64_t)*delta);
    }
}
