/* rt_opt_cast.c - per-tensor float <-> int8 conversions without libm calls
 * or branches, so the loops vectorize. Bit-identical to the reference:
 * roundf is truncation plus one step away from zero when the (exactly
 * computed) fraction is at least one half; a NaN lands on the low clamp as
 * the reference's INT32_MIN does; scale * (q - zp) in float equals the
 * reference's double product rounded to float (a 24-bit scale times a
 * 9-bit integer is exact in double, so both round the same exact value). */
#include <math.h>

#include "mpcc_rt.h"
#include "rt_opt.h"

void rt_opt_quantize_f32_s8(const rt_quant_params *p, const float *in, int8_t *out) {
    const float scale = p->scale, lo = (float)(-128 - p->zero_point), hi = (float)(127 - p->zero_point);
    const float zp = (float)p->zero_point;
    int64_t i;
    for (i = 0; i < p->n; i++) {
        float v = in[i] / scale, t = truncf(v), f = v - t;
        t += f >= 0.5f ? 1.0f : 0.0f;
        t -= f <= -0.5f ? 1.0f : 0.0f;
        t = t >= lo ? t : lo; /* also a NaN */
        t = t <= hi ? t : hi;
        out[i] = (int8_t)(int32_t)(t + zp);
    }
}

void rt_opt_dequantize_s8_f32(const rt_quant_params *p, const int8_t *in, float *out) {
    const float scale = p->scale;
    const int32_t zp = p->zero_point;
    int64_t i;
    for (i = 0; i < p->n; i++) out[i] = scale * (float)((int32_t)in[i] - zp);
}
