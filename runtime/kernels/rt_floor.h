/* rt_floor.h - FLOOR kernel: out = floor(x), float32 (TFLite's FLOOR is float-only). */
#ifndef MPCC_RT_FLOOR_H
#define MPCC_RT_FLOOR_H

#include "rt_elementwise_common.h"

void rt_floor_f32(const rt_unary_params *p, const float *in, float *out);

#endif
