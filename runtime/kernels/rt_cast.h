/* rt_cast.h - CAST kernel. */
#ifndef MPCC_RT_CAST_H
#define MPCC_RT_CAST_H

#include "rt_elementwise_common.h"

/* Converts p->n elements from p->in_type to p->out_type (RT_F32, RT_F16
 * and RT_C64 (input only; complex64 converts its real part), RT_I8, RT_U8,
 * RT_I16, RT_I32, RT_I64, RT_BOOL), as TFLite:
 * float -> integer truncates toward zero and saturates (NaN -> max),
 * integer -> narrower integer wraps, anything -> bool is (x != 0). */
void rt_cast(const rt_quant_params *p, const void *in, void *out);

#endif
