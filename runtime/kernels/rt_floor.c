/* rt_floor.c - FLOOR reference kernel (TFLite: std::floor on each float). */
#include <math.h>

#include "mpcc_rt.h"

void rt_floor_f32(const rt_unary_params *p, const float *in, float *out) {
    int64_t i;
    for (i = 0; i < p->n; i++) out[i] = floorf(in[i]);
}
