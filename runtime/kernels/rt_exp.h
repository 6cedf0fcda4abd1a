/* rt_exp.h - EXP kernels. */
#ifndef MPCC_RT_EXP_H
#define MPCC_RT_EXP_H

#include "rt_elementwise_common.h"

void rt_exp_f32(const rt_unary_params *p, const float *in, float *out);
/* int8 through the 256-entry table p->lut (built as TFLite's LUTPopulate). */
void rt_exp_i8(const rt_unary_params *p, const int8_t *in, int8_t *out);
/* int16 (zero points 0) through the 513-entry interpolated table p->lut16
 * (built as TFLite's LUTPopulate<int16_t>). */
void rt_exp_i16(const rt_unary_params *p, const int16_t *in, int16_t *out);

#endif
