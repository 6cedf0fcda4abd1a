/* rt_sum.c - SUM reference kernels (TFLite reduce.cc EvalSum: the generic
 * reducer, or QuantizedMeanOrSum with compute_sum for int8). */
#include "mpcc_rt.h"

void rt_sum_f32(const rt_reduce_params *p, const float *in, float *out) {
    int64_t i;
    for (i = 0; i < p->out_count; i++) out[i] = 0.0f;
    rt_reduce_iter it = {{0}, 0};
    for (i = 0; i < p->in_count; i++, rt_reduce_next(p, &it)) out[it.out] += in[i];
}

void rt_sum_i32(const rt_reduce_params *p, const int32_t *in, int32_t *out) {
    int64_t i;
    for (i = 0; i < p->out_count; i++) out[i] = 0;
    /* Unsigned arithmetic: wraps like the int32 reducer without UB. */
    rt_reduce_iter it = {{0}, 0};
    for (i = 0; i < p->in_count; i++, rt_reduce_next(p, &it)) {
        int64_t o = it.out;
        out[o] = (int32_t)((uint32_t)out[o] + (uint32_t)in[i]);
    }
}

void rt_sum_i64(const rt_reduce_params *p, const int64_t *in, int64_t *out) {
    int64_t i;
    for (i = 0; i < p->out_count; i++) out[i] = 0;
    rt_reduce_iter it = {{0}, 0};
    for (i = 0; i < p->in_count; i++, rt_reduce_next(p, &it)) {
        int64_t o = it.out;
        out[o] = (int64_t)((uint64_t)out[o] + (uint64_t)in[i]);
    }
}

void rt_sum_i8(const rt_reduce_params *p, const int8_t *in, int8_t *out, void *scratch) {
    int32_t *sum = (int32_t *)scratch;
    float scale = p->in_scale / p->out_scale;
    float bias = (float)(-p->in_zp) * scale * (float)p->reduce_count;
    int64_t i;
    for (i = 0; i < p->out_count; i++) sum[i] = 0;
    rt_reduce_iter it = {{0}, 0};
    for (i = 0; i < p->in_count; i++, rt_reduce_next(p, &it)) {
        int64_t o = it.out;
        sum[o] = rt_wrap_add_i32(sum[o], in[i]);
    }
    for (i = 0; i < p->out_count; i++) {
        float r = roundf((float)sum[i] * scale + bias);
        int32_t v;
        /* TFLite casts without clamping; keep the float->int cast defined. */
        if (r > 2147483520.0f) r = 2147483520.0f;
        if (r < -2147483648.0f) r = -2147483648.0f;
        v = rt_wrap_add_i32((int32_t)r, p->out_zp);
        /* The interpreter's kernel clamps to the int8 range (checked against it). */
        out[i] = (int8_t)rt_clamp_i32(v, -128, 127);
    }
}

void rt_sum_i16(const rt_reduce_params *p, const int16_t *in, int16_t *out) {
    int64_t i;
    for (i = 0; i < p->out_count; i++) out[i] = 0;
    rt_reduce_iter it = {{0}, 0};
    for (i = 0; i < p->in_count; i++, rt_reduce_next(p, &it)) {
        int64_t o = it.out;
        out[o] = rt_wrap_i16((int32_t)out[o] + in[i]);
    }
}
