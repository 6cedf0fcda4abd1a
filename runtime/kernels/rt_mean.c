/* rt_mean.c - MEAN reference kernels. Quantized: TFLite's integer
 * QuantizedMeanOrSum (the reference path for every axis set in current
 * LiteRT): the int32 sum minus n * in_zp, times a multiplier that folds in
 * in_scale / out_scale / n (prepared at compile time), plus out_zp, clamped.
 * The int32 sum and the zero-point correction wrap on overflow, as TFLite's do
 * (its sum is a WrappingAdd; the correction is cast back to int32). */
#include "mpcc_rt.h"

void rt_mean_f32(const rt_reduce_params *p, const float *in, float *out) {
    int64_t i;
    for (i = 0; i < p->out_count; i++) out[i] = 0.0f;
    rt_reduce_iter it = {{0}, 0};
    for (i = 0; i < p->in_count; i++, rt_reduce_next(p, &it)) out[it.out] += in[i];
    if (p->reduce_count > 0)
        for (i = 0; i < p->out_count; i++) out[i] = out[i] / (float)p->reduce_count;
}


void rt_mean_i8(const rt_reduce_params *p, const int8_t *in, int8_t *out, void *scratch) {
    int32_t *sum = (int32_t *)scratch;
    int64_t i;
    for (i = 0; i < p->out_count; i++) sum[i] = 0;
    rt_reduce_iter it = {{0}, 0};
    for (i = 0; i < p->in_count; i++, rt_reduce_next(p, &it)) {
        int64_t o = it.out;
        sum[o] = rt_wrap_add_i32(sum[o], in[i]);
    }
    for (i = 0; i < p->out_count; i++) out[i] = p->reduce_count > 0 ? (int8_t)rt_mean_q(p, sum[i], -128, 127) : 0;
}

void rt_mean_i16(const rt_reduce_params *p, const int16_t *in, int16_t *out, void *scratch) {
    int32_t *sum = (int32_t *)scratch;
    int64_t i;
    for (i = 0; i < p->out_count; i++) sum[i] = 0;
    rt_reduce_iter it = {{0}, 0};
    for (i = 0; i < p->in_count; i++, rt_reduce_next(p, &it)) {
        int64_t o = it.out;
        sum[o] = rt_wrap_add_i32(sum[o], in[i]);
    }
    for (i = 0; i < p->out_count; i++)
        out[i] = p->reduce_count > 0 ? (int16_t)rt_mean_q(p, sum[i], -32768, 32767) : 0;
}
