/* rt_sin.h - SIN kernel: out = sin(x), float32 (TFLite's SIN is float-only). */
#ifndef MPCC_RT_SIN_H
#define MPCC_RT_SIN_H

#include "rt_elementwise_common.h"

void rt_sin_f32(const rt_unary_params *p, const float *in, float *out);

#endif
