/* rt_opt_internal.h - helpers shared by the optimized kernels (not API). */
#ifndef MPCC_RT_OPT_INTERNAL_H
#define MPCC_RT_OPT_INTERNAL_H

#include <stdint.h>

/* TFLite MultiplyByQuantizedMultiplier (double rounding), branch-free so the
 * compiler vectorizes the row loop; equal to rt_mul_by_quantized_multiplier. */
static inline int32_t rq_double(int32_t x, int32_t m, int32_t s) {
    int32_t left = s > 0 ? s : 0, right = s > 0 ? 0 : -s;
    int64_t xs = (int64_t)x * ((int64_t)1 << left);
    int64_t ab, t;
    int32_t q, mask, rem, thr;
    xs = xs > INT32_MAX ? INT32_MAX : (xs < INT32_MIN ? INT32_MIN : xs);
    ab = xs * (int64_t)m;
    t = ab + (ab >= 0 ? ((int64_t)1 << 30) : (1 - ((int64_t)1 << 30)));
    q = (int32_t)(t / ((int64_t)1 << 31));
    if (xs == INT32_MIN && m == INT32_MIN) q = INT32_MAX;
    mask = (int32_t)(((int64_t)1 << right) - 1);
    rem = q & mask;
    thr = (mask >> 1) + (q < 0 ? 1 : 0);
    return (q >> right) + (rem > thr ? 1 : 0);
}

/* The FC variant: one rounding shift of the 64-bit product. */
static inline int32_t rq_single(int32_t x, int32_t m, int32_t s) {
    int32_t total = 31 - s;
    int64_t r = ((int64_t)x * (int64_t)m + ((int64_t)1 << (total - 1))) >> total;
    return (int32_t)(r > INT32_MAX ? INT32_MAX : (r < INT32_MIN ? INT32_MIN : r));
}

/* out[j] = clamp(requant(acc[j] + bias[j]) + out_offset) for j < n, with
 * rounding RT_OPT_ROUND_DOUBLE (conv) or _SINGLE (FC); bias may be NULL. */
void rt_opt_requant_i8(const int32_t *acc, const int32_t *bias, const int32_t *mult, const int32_t *shift, int32_t n,
                       int rounding, int32_t out_offset, int32_t qmin, int32_t qmax, int8_t *out);

#endif
