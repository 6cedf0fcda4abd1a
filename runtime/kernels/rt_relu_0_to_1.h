/* rt_relu_0_to_1.h - RELU_0_TO_1 kernels (rt_act_params: n, f_min/f_max; integer:
 * in_zp, out_zp, mult_a/shift_a = in_scale/out_scale, q_min/q_max). */
#ifndef MPCC_RT_RELU_0_TO_1_H
#define MPCC_RT_RELU_0_TO_1_H

#include "rt_activation_common.h"

void rt_relu_0_to_1_f32(const rt_act_params *p, const float *in, float *out);
void rt_relu_0_to_1_i8(const rt_act_params *p, const int8_t *in, int8_t *out);
void rt_relu_0_to_1_i16(const rt_act_params *p, const int16_t *in, int16_t *out);

#endif
