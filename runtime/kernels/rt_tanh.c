/* rt_tanh.c - TANH reference kernels (TFLite semantics). */
#include "mpcc_rt.h"

void rt_tanh_f32(const rt_act_params *p, const float *in, float *out) {
    int64_t i;
    for (i = 0; i < p->n; i++) out[i] = tanhf(in[i]);
}

void rt_tanh_i8(const rt_act_params *p, const int8_t *in, int8_t *out) { rt_act_lut_i8(p->lut_i8, p->n, in, out); }

/* Arithmetic (flooring) right shift, defined for negative values too. */
static int32_t floor_shift(int32_t v, int s) { return v >= 0 ? v >> s : -(int32_t)((uint32_t)(-(v + 1)) >> s) - 1; }

void rt_tanh_i16(const rt_act_params *p, const int16_t *in, int16_t *out) {
    const int32_t *t = p->sigmoid_q16;
    int64_t i;
    for (i = 0; i < p->n; i++) {
        int32_t x;
        uint32_t ax;
        if (p->mult_a > 0) {
            /* Rescaled to 1/(3*4096) with rounding: the multiplier holds the factor 3. */
            int32_t round = p->shift_a > 0 ? 1 << (p->shift_a - 1) : 0;
            x = floor_shift((int32_t)in[i] * p->mult_a + round, p->shift_a);
            ax = x >= 0 ? (uint32_t)x : (uint32_t)(-(int64_t)x);
        } else {
            /* A power-of-two input scale: 2^-12, or 2^-11 (shift_a 1) doubled here. */
            x = p->shift_a == 1 ? 2 * (int32_t)in[i] : (int32_t)in[i];
            ax = 3u * (x >= 0 ? (uint32_t)x : (uint32_t)(-(int64_t)x));
        }
        uint32_t h = ax >> 8;
        int32_t r;
        if (h >= 255) {
            r = 0xFFFF << 8;
        } else {
            uint32_t a = (uint32_t)t[h], b = (uint32_t)t[h + 1];
            r = (int32_t)((a << 8) + (ax & 0xFFu) * (b - a));
        }
        r = x >= 0 ? r - (1 << 23) + (1 << 7) : -r + (1 << 23) + (1 << 7) - 1;
        out[i] = (int16_t)floor_shift(r, 8);
    }
}
