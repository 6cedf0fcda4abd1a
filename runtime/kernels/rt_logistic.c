/* rt_logistic.c - LOGISTIC reference kernels (TFLite semantics). */
#include "mpcc_rt.h"

void rt_logistic_f32(const rt_act_params *p, const float *in, float *out) {
    /* TFLite's reference cut-offs: 1 above ~16.6, exp(x) below -9. */
    const float cutoff_upper = 16.619047164916992188f, cutoff_lower = -9.0f;
    int64_t i;
    for (i = 0; i < p->n; i++) {
        float v = in[i];
        if (v > cutoff_upper) out[i] = 1.0f;
        else if (v < cutoff_lower) out[i] = expf(v);
        else out[i] = 1.0f / (1.0f + expf(-v));
    }
}

void rt_logistic_i8(const rt_act_params *p, const int8_t *in, int8_t *out) { rt_act_lut_i8(p->lut_i8, p->n, in, out); }

/* Arithmetic (flooring) right shift, defined for negative values too. */
static int32_t floor_shift(int32_t v, int s) { return v >= 0 ? v >> s : -(int32_t)((uint32_t)(-(v + 1)) >> s) - 1; }

void rt_logistic_i16(const rt_act_params *p, const int16_t *in, int16_t *out) {
    const int32_t *t = p->sigmoid_q16;
    int32_t mult = p->mult_a, shift = p->shift_a;
    int64_t i;
    if (mult == 0) { /* power-of-two input scale */
        mult = 3 << shift;
        shift = 0;
    }
    for (i = 0; i < p->n; i++) {
        int32_t round = shift > 0 ? 1 << (shift - 1) : 0;
        int32_t x = floor_shift((int32_t)in[i] * mult + round, shift);
        uint32_t ax = x >= 0 ? (uint32_t)x : (uint32_t)(-(int64_t)x);
        uint32_t h = ax >> 9, r;
        if (h >= 255) {
            r = 0x7FFFu << 10;
        } else {
            uint32_t a = (uint32_t)t[h], b = (uint32_t)t[h + 1];
            r = (a << 9) + (ax & 0x1FFu) * (b - a);
        }
        r = x >= 0 ? r + (1u << 9) : (1u << 25) - r + (1u << 9) - 1;
        out[i] = (int16_t)(r >> 10);
    }
}
