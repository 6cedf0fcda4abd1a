/* rt_hybrid_common.c - input quantization of the hybrid kernels.
 *
 * The x86-64 LiteRT interpreter builds tensor_utils with SSE4.1, which makes it
 * run the NEON quantizers through NEON_2_SSE (neon_tensor_utils.cc), not the
 * portable ones; they round differently, and mpcc follows the former (checked
 * against ai-edge-litert 2.3.0 on tie cases, where the portable code differs):
 *  - each whole group of 8 values rounds x * inv as trunc(p + 0.5f) (trunc(p -
 *    0.5f) below zero), a float add, so 0.49999997f rounds to 1; the last
 *    n % 8 values use roundf;
 *  - asymmetric: rmax - rmin is a float difference, the scale and zero point
 *    are derived in double, the inverse scale is 1.0 / scale in double, and
 *    the zero point is added after rounding.
 * (ARMv8 builds round with vcvta, which differs only at |p| = 0.49999997f.)
 * The products are rounded to float before the +-0.5 (volatile): contracting
 * them into one fused multiply-add would move ties. */
#include <string.h>

#include "mpcc_rt.h"

/* An integral-or-truncated float to int32. Out-of-range values and NaN are
 * pinned outside the int8 range (NaN at the low end) instead of being
 * converted (undefined in C). */
static int32_t to_i32(float t) {
    if (!(t > -1024.0f)) return -1024;
    if (t > 1024.0f) return 1024;
    return (int32_t)t;
}

void rt_hybrid_quantize_row(const float *x, int32_t n, int32_t asymmetric, int8_t *q, float *scale, int32_t *zp) {
    int32_t i, vec_end = n / 8 * 8, zero_point = 0, lo = -127;
    float inv;
    if (!asymmetric) {
        float mn = n > 0 ? x[0] : 0.0f, mx = mn, range;
        for (i = 1; i < n; i++) {
            if (x[i] < mn) mn = x[i];
            if (x[i] > mx) mx = x[i];
        }
        range = fabsf(mn) > fabsf(mx) ? fabsf(mn) : fabsf(mx);
        if (range == 0.0f) {
            memset(q, 0, (size_t)n);
            *scale = 1.0f, *zp = 0;
            return;
        }
        *scale = range / 127.0f;
        inv = 127.0f / range;
    } else {
        /* The range always holds 0. */
        float rmin = 0.0f, rmax = 0.0f;
        double s, from_min, from_max, z;
        for (i = 0; i < n; i++) {
            if (x[i] < rmin) rmin = x[i];
            if (x[i] > rmax) rmax = x[i];
        }
        if (rmin == rmax) {
            memset(q, 0, (size_t)n);
            *scale = 1.0f, *zp = 0;
            return;
        }
        s = (double)(rmax - rmin) / 255.0;
        from_min = -128.0 - rmin / s;
        from_max = 127.0 - rmax / s;
        /* The zero point from the end with the smaller error, nudged into [-128, 127]. */
        z = 128.0 + fabs(rmin / s) < 127.0 + fabs(rmax / s) ? from_min : from_max;
        /* z is NaN when the row holds an infinity (s infinite): TFLite's int8 cast of it is x86's INT32_MIN
         * truncated to 8 bits, 0 */
        zero_point = z != z ? 0 : z <= -128.0 ? -128 : z >= 127.0 ? 127 : (int32_t)round(z);
        *scale = (float)s;
        inv = (float)(1.0 / (double)*scale);
        lo = -128;
    }
    *zp = zero_point;
    for (i = 0; i < n; i++) {
        volatile float p = x[i] * inv;
        /* Vector lanes: truncation of p +- 0.5f; the tail: roundf. */
        int32_t r = to_i32(i < vec_end ? p + (p < 0.0f ? -0.5f : 0.5f) : roundf(p));
        q[i] = (int8_t)rt_clamp_i32(r + zero_point, lo, 127);
    }
}
