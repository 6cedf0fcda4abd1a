/* rt_complex.h - REAL, IMAG, COMPLEX_ABS kernels: complex64 (interleaved
 * (re, im) float pairs, p->n of them) -> float32. */
#ifndef MPCC_RT_COMPLEX_H
#define MPCC_RT_COMPLEX_H

#include "rt_elementwise_common.h"

void rt_real_c64(const rt_unary_params *p, const float *in, float *out);
void rt_imag_c64(const rt_unary_params *p, const float *in, float *out);
/* |re + i im| = hypotf(re, im): no overflow for large parts (TFLite's std::abs). */
void rt_complex_abs_c64(const rt_unary_params *p, const float *in, float *out);

#endif
