/* rt_relu_0_to_1.c - RELU_0_TO_1 reference kernels (min(max(x, 0), 1); the
 * integer kernels requantize, then clamp, as TFLite's ReluX does). onnx2tf
 * writes ONNX HardSigmoid's clamp as this op. */
#include "mpcc_rt.h"

void rt_relu_0_to_1_f32(const rt_act_params *p, const float *in, float *out) { rt_act_clamp_f32(p, in, out); }

void rt_relu_0_to_1_i8(const rt_act_params *p, const int8_t *in, int8_t *out) {
    int64_t i;
    for (i = 0; i < p->n; i++) out[i] = (int8_t)rt_act_relux_q(p, in[i]);
}

void rt_relu_0_to_1_i16(const rt_act_params *p, const int16_t *in, int16_t *out) {
    int64_t i;
    for (i = 0; i < p->n; i++) out[i] = (int16_t)rt_act_relux_q(p, in[i]);
}
