/* rt_cast.c - CAST reference kernel (TFLite semantics). */
#include "mpcc_rt.h"

/* One value, either floating or integral. */
typedef struct cast_val {
    int is_float;
    float f;
    int64_t i;
} cast_val;

static cast_val load(int32_t t, const void *p, int64_t k) {
    cast_val v = {0, 0.0f, 0};
    switch (t) {
    case RT_F32: v.is_float = 1; v.f = ((const float *)p)[k]; break;
    case RT_F16: v.is_float = 1; v.f = rt_f16_to_f32(((const uint16_t *)p)[k]); break;
    case RT_C64: v.is_float = 1; v.f = ((const float *)p)[2 * k]; break; /* the real part */
    case RT_I8: v.i = ((const int8_t *)p)[k]; break;
    case RT_U8: v.i = ((const uint8_t *)p)[k]; break;
    case RT_I16: v.i = ((const int16_t *)p)[k]; break;
    case RT_I32: v.i = ((const int32_t *)p)[k]; break;
    case RT_I64: v.i = ((const int64_t *)p)[k]; break;
    default: v.i = ((const uint8_t *)p)[k] != 0; break; /* bool */
    }
    return v;
}

/* float -> integer in [lo, hi]: truncation, saturation, NaN -> hi. */
static int64_t sat_float(float f, int64_t lo, int64_t hi, float hi_excl) {
    if (f != f) return hi;
    if (f < (float)lo) return lo;
    if (f >= hi_excl) return hi;
    return (int64_t)f;
}

void rt_cast(const rt_quant_params *p, const void *in, void *out) {
    int64_t k;
    for (k = 0; k < p->n; k++) {
        cast_val v = load(p->in_type, in, k);
        switch (p->out_type) {
        case RT_F32: ((float *)out)[k] = v.is_float ? v.f : (float)v.i; break;
        case RT_BOOL: ((uint8_t *)out)[k] = (uint8_t)(v.is_float ? v.f != 0.0f : v.i != 0); break;
        case RT_I8:
            ((int8_t *)out)[k] = (int8_t)(v.is_float ? sat_float(v.f, -128, 127, 128.0f) : v.i);
            break;
        case RT_U8:
            ((uint8_t *)out)[k] = (uint8_t)(v.is_float ? sat_float(v.f, 0, 255, 256.0f) : v.i);
            break;
        case RT_I16:
            ((int16_t *)out)[k] = (int16_t)(v.is_float ? sat_float(v.f, -32768, 32767, 32768.0f) : v.i);
            break;
        case RT_I32:
            ((int32_t *)out)[k] = (int32_t)(v.is_float ? sat_float(v.f, INT32_MIN, INT32_MAX, 2147483648.0f) : v.i);
            break;
        default:
            ((int64_t *)out)[k] = v.is_float ? sat_float(v.f, INT64_MIN, INT64_MAX, 9223372036854775808.0f) : v.i;
            break;
        }
    }
}
