/* rt_log.c - LOG reference kernels (TFLite semantics). */
#include "mpcc_rt.h"

void rt_log_f32(const rt_unary_params *p, const float *in, float *out) {
    int64_t i;
    for (i = 0; i < p->n; i++) out[i] = logf(in[i]);
}

void rt_log_i8(const rt_unary_params *p, const int8_t *in, int8_t *out) {
    int64_t i;
    for (i = 0; i < p->n; i++) out[i] = p->lut[in[i] + 128];
}

void rt_log_i16(const rt_unary_params *p, const int16_t *in, int16_t *out) {
    rt_act_lut_i16(p->lut16, p->n, in, out);
}
