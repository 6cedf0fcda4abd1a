/* rt_square.h - SQUARE kernel: out = x * x, float32 (TFLite's SQUARE is float-only). */
#ifndef MPCC_RT_SQUARE_H
#define MPCC_RT_SQUARE_H

#include "rt_elementwise_common.h"

void rt_square_f32(const rt_unary_params *p, const float *in, float *out);

#endif
