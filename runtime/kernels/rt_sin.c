/* rt_sin.c - SIN reference kernel (TFLite: std::sin on each float). */
#include <math.h>

#include "mpcc_rt.h"

void rt_sin_f32(const rt_unary_params *p, const float *in, float *out) {
    int64_t i;
    for (i = 0; i < p->n; i++) out[i] = sinf(in[i]);
}
