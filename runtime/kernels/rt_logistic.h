/* rt_logistic.h - LOGISTIC kernels. rt_act_params: n; int8: lut_i8
 * (256 entries indexed by (uint8_t)input, built at compile time as TFLite
 * builds it); int16: sigmoid_q16, mult_a, shift_a. */
#ifndef MPCC_RT_LOGISTIC_H
#define MPCC_RT_LOGISTIC_H

#include "rt_activation_common.h"

void rt_logistic_f32(const rt_act_params *p, const float *in, float *out);
void rt_logistic_i8(const rt_act_params *p, const int8_t *in, int8_t *out);
/* int16 (TFLite's reference): x rescaled by mult_a / 2^shift_a (mult_a 0: a
 * power-of-two input scale, times 3), |x| / 512 indexes sigmoid_q16 and its
 * remainder interpolates linearly; the odd symmetry gives negative inputs. */
void rt_logistic_i16(const rt_act_params *p, const int16_t *in, int16_t *out);

#endif
