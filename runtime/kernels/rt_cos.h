/* rt_cos.h - COS kernel: out = cos(x), float32 (TFLite's COS is float-only). */
#ifndef MPCC_RT_COS_H
#define MPCC_RT_COS_H

#include "rt_elementwise_common.h"

void rt_cos_f32(const rt_unary_params *p, const float *in, float *out);

#endif
