/* rt_square.c - SQUARE reference kernel (TFLite: x * x in float). */
#include "mpcc_rt.h"

void rt_square_f32(const rt_unary_params *p, const float *in, float *out) {
    int64_t i;
    for (i = 0; i < p->n; i++) out[i] = in[i] * in[i];
}
