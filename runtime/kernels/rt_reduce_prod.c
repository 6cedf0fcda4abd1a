/* rt_reduce_prod.c - REDUCE_PROD reference kernels (TFLite's generic reducer:
 * outputs start at 1, out = in * out for each input in row-major order). */
#include "mpcc_rt.h"

void rt_reduce_prod_f32(const rt_reduce_params *p, const float *in, float *out) {
    int64_t i;
    for (i = 0; i < p->out_count; i++) out[i] = 1.0f;
    for (i = 0; i < p->in_count; i++) {
        int64_t o = rt_reduce_out_offset(p, i);
        out[o] = in[i] * out[o];
    }
}

/* Integer products in unsigned arithmetic: wrap-around without signed-overflow UB. */
void rt_reduce_prod_i32(const rt_reduce_params *p, const int32_t *in, int32_t *out) {
    int64_t i;
    for (i = 0; i < p->out_count; i++) out[i] = 1;
    for (i = 0; i < p->in_count; i++) {
        int64_t o = rt_reduce_out_offset(p, i);
        out[o] = rt_wrap_mul_i32(in[i], out[o]);
    }
}

void rt_reduce_prod_i64(const rt_reduce_params *p, const int64_t *in, int64_t *out) {
    int64_t i;
    for (i = 0; i < p->out_count; i++) out[i] = 1;
    for (i = 0; i < p->in_count; i++) {
        int64_t o = rt_reduce_out_offset(p, i);
        out[o] = (int64_t)((uint64_t)in[i] * (uint64_t)out[o]);
    }
}
