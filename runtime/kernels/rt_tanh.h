/* rt_tanh.h - TANH kernels. rt_act_params: n; int8: lut_i8
 * (256 entries indexed by (uint8_t)input, built at compile time as TFLite
 * builds it); int16: sigmoid_q16, mult_a, shift_a. */
#ifndef MPCC_RT_TANH_H
#define MPCC_RT_TANH_H

#include "rt_activation_common.h"

void rt_tanh_f32(const rt_act_params *p, const float *in, float *out);
void rt_tanh_i8(const rt_act_params *p, const int8_t *in, int8_t *out);
/* int16 (TFLite's reference): x rescaled by mult_a / 2^shift_a (which hold
 * the factor 3), or for a power-of-two input scale (mult_a 0) tripled and
 * doubled when shift_a is 1; |x| / 256 indexes sigmoid_q16 with linear
 * interpolation, tanh(x) = 2 sigmoid(2x) - 1. */
void rt_tanh_i16(const rt_act_params *p, const int16_t *in, int16_t *out);

#endif
