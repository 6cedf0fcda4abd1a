/* rt_quantize.c - QUANTIZE reference kernels (TFLite semantics). */
#include "mpcc_rt.h"

static void type_range(int32_t t, int64_t *lo, int64_t *hi) {
    switch (t) {
    case RT_I8: *lo = -128; *hi = 127; break;
    case RT_U8: *lo = 0; *hi = 255; break;
    case RT_I16: *lo = -32768; *hi = 32767; break;
    default: *lo = INT32_MIN; *hi = INT32_MAX; break;
    }
}

static int64_t load_int(int32_t t, const void *p, int64_t i) {
    switch (t) {
    case RT_I8: return ((const int8_t *)p)[i];
    case RT_U8: return ((const uint8_t *)p)[i];
    case RT_I16: return ((const int16_t *)p)[i];
    default: return ((const int32_t *)p)[i];
    }
}

static void store_int(int32_t t, void *p, int64_t i, int64_t v) {
    switch (t) {
    case RT_I8: ((int8_t *)p)[i] = (int8_t)v; break;
    case RT_U8: ((uint8_t *)p)[i] = (uint8_t)v; break;
    case RT_I16: ((int16_t *)p)[i] = (int16_t)v; break;
    default: ((int32_t *)p)[i] = (int32_t)v; break;
    }
}

void rt_quantize_f32(const rt_quant_params *p, const float *in, void *out) {
    int64_t i, lo, hi;
    type_range(p->out_type, &lo, &hi);
    if (p->inv_scale != 0.0f && p->out_type == RT_I8 && p->channels <= 0) {
        for (i = 0; i < p->n; i++) ((int8_t *)out)[i] = (int8_t)rt_quantize_float(in[i], p->inv_scale, p->zero_point);
        return;
    }
    for (i = 0; i < p->n; i++) {
        int32_t c = p->channels > 0 ? (int32_t)((i / p->inner) % p->channels) : 0;
        float scale = p->channels > 0 ? p->scales[c] : p->scale;
        int64_t zp = p->channels > 0 ? p->zero_points[c] : p->zero_point;
        float r = roundf(in[i] / scale);
        int64_t q;
        /* Out-of-range values saturate (the int32 cast in TFLite is undefined there). */
        if (r != r) q = INT32_MIN; /* as x86 converts NaN */
        else if (r >= 2147483648.0f) q = INT32_MAX;
        else if (r < -2147483648.0f) q = INT32_MIN;
        else q = (int64_t)(int32_t)r;
        q += zp;
        store_int(p->out_type, out, i, q < lo ? lo : (q > hi ? hi : q));
    }
}

void rt_quantize_requant(const rt_quant_params *p, const void *in, void *out) {
    int64_t i, lo, hi;
    type_range(p->out_type, &lo, &hi);
    for (i = 0; i < p->n; i++) {
        int32_t x = (int32_t)(load_int(p->in_type, in, i) - p->in_zp);
        int64_t q = (int64_t)rt_mul_by_quantized_multiplier(x, p->mult, p->shift) + p->out_zp;
        store_int(p->out_type, out, i, q < lo ? lo : (q > hi ? hi : q));
    }
}
