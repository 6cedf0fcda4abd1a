/* rt_complex.c - REAL, IMAG, COMPLEX_ABS reference kernels (TFLite semantics). */
#include <math.h>

#include "mpcc_rt.h"

void rt_real_c64(const rt_unary_params *p, const float *in, float *out) {
    int64_t i;
    for (i = 0; i < p->n; i++) out[i] = in[2 * i];
}

void rt_imag_c64(const rt_unary_params *p, const float *in, float *out) {
    int64_t i;
    for (i = 0; i < p->n; i++) out[i] = in[2 * i + 1];
}

void rt_complex_abs_c64(const rt_unary_params *p, const float *in, float *out) {
    int64_t i;
    for (i = 0; i < p->n; i++) out[i] = hypotf(in[2 * i], in[2 * i + 1]);
}
