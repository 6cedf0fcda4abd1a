/* rt_concatenation.c - CONCATENATION kernels (TFLite semantics). */
#include "mpcc_rt.h"

void rt_concatenation(const rt_concat_params *p, int32_t k, const void *in, void *out) {
    rt_copy_strided(&p->parts[k], in, out);
}

void rt_concatenation_f32(const rt_concat_params *p, int32_t k, const float *in, float *out) {
    const rt_copy_params *c = &p->parts[k];
    int32_t idx[RT_MAX_RANK] = {0};
    int64_t si = c->in_offset, so = c->out_offset, n, j, total = rt_copy_points(c), len = c->run / 4;
    for (n = 0; n < total; n++) {
        for (j = 0; j < len; j++) out[so / 4 + j] = rt_clamp_f32(in[si / 4 + j], p->act_min, p->act_max);
        rt_copy_next(c, idx, &si, &so);
    }
}

static int32_t rescale(const rt_concat_params *p, int32_t k, int32_t q) {
    float f;
    if (p->same[k]) return rt_clamp_i32(q, p->qmin, p->qmax);
    f = roundf((float)q * p->scale[k] + p->bias[k]);
    /* Saturated before the conversion (a model's scales can put f past int32, where the cast is undefined);
     * in range this is round(q * scale + bias) + zero point clamped, as TFLite computes it. */
    if (!(f >= (float)(p->qmin - p->out_zp))) return p->qmin;
    if (f > (float)(p->qmax - p->out_zp)) return p->qmax;
    return rt_clamp_i32((int32_t)f + p->out_zp, p->qmin, p->qmax);
}

void rt_concatenation_i8(const rt_concat_params *p, int32_t k, const int8_t *in, int8_t *out) {
    const rt_copy_params *c = &p->parts[k];
    int32_t idx[RT_MAX_RANK] = {0};
    int64_t si = c->in_offset, so = c->out_offset, n, j, total = rt_copy_points(c);
    for (n = 0; n < total; n++) {
        for (j = 0; j < c->run; j++) out[so + j] = (int8_t)rescale(p, k, in[si + j]);
        rt_copy_next(c, idx, &si, &so);
    }
}

void rt_concatenation_u8(const rt_concat_params *p, int32_t k, const uint8_t *in, uint8_t *out) {
    const rt_copy_params *c = &p->parts[k];
    int32_t idx[RT_MAX_RANK] = {0};
    int64_t si = c->in_offset, so = c->out_offset, n, j, total = rt_copy_points(c);
    for (n = 0; n < total; n++) {
        for (j = 0; j < c->run; j++) out[so + j] = (uint8_t)rescale(p, k, in[si + j]);
        rt_copy_next(c, idx, &si, &so);
    }
}
