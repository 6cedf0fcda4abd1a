/* rt_cm.h - Cortex-M kernels (runtime/cortex_m/), chosen by mpcc for the Cortex-M ISAs
 * (--isa armv7em, armv8m, armv81m; docs/cortex-m.md). Each takes the same arguments as the
 * portable kernel it stands in for (runtime/rt_opt.h) and gives the same results, bit for bit;
 * the cases it has no faster path for go to that kernel. */
#ifndef MPCC_RT_CM_H
#define MPCC_RT_CM_H

#include "rt_opt.h"

#if defined(__ARM_FEATURE_SAT)
#include <arm_acle.h>
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* TFLite's requantization of one accumulator (RT_OPT_ROUND_DOUBLE: MultiplyByQuantizedMultiplier,
 * RT_OPT_ROUND_SINGLE: the FC reference's single rounding), plus the output zero point, clamped:
 * the values of rt_opt_requant_i8, inline, with the 64-bit product on SMULL and the truncating
 * division by 2^31 as a shift (a negative sum is first raised by 2^31 - 1). */
static inline int8_t rt_cm_requant(int32_t acc, int32_t mult, int32_t shift, int32_t rounding, int32_t out_offset,
                                   int32_t qmin, int32_t qmax) {
    int32_t y;
    if (rounding == RT_OPT_ROUND_SINGLE) {
        y = rt_mul_by_quantized_multiplier_single(acc, mult, shift);
    } else if (shift < -31) { /* a shift past 31 bits: the reference's 64-bit arithmetic */
        y = rt_mul_by_quantized_multiplier(acc, mult, shift);
    } else {
        int32_t right = shift > 0 ? 0 : -shift, xs = acc, q, mask, rem, thr;
        int64_t t;
        if (shift > 0) { /* a left shift first, saturated (rare: multipliers above 1) */
            int64_t l = (int64_t)acc * ((int64_t)1 << shift);
            xs = (int32_t)(l > INT32_MAX ? INT32_MAX : (l < INT32_MIN ? INT32_MIN : l));
        }
        t = (int64_t)xs * mult; /* one SMULL */
        t += t >= 0 ? ((int64_t)1 << 30) : (1 - ((int64_t)1 << 30));
        if (t < 0) t += ((int64_t)1 << 31) - 1;
        q = (int32_t)(t >> 31);
        if (xs == INT32_MIN && mult == INT32_MIN) q = INT32_MAX;
        mask = (int32_t)((1u << right) - 1u); /* right <= 31 */
        rem = q & mask;
        thr = (mask >> 1) + (q < 0 ? 1 : 0);
        y = (q >> right) + (rem > thr ? 1 : 0);
    }
    y += out_offset;
    return (int8_t)(y < qmin ? qmin : (y > qmax ? qmax : y));
}

/* rt_cm_requant's value for the common case, in about a dozen instructions: rounding
 * RT_OPT_ROUND_DOUBLE, shift in [-31, 0], mult != INT32_MIN (rt_cm_requant_fast_ok says so for a
 * whole op). TFLite's SaturatingRoundingDoublingHighMul adds 2^30 to the 64-bit product (1 - 2^30
 * when it is negative) and divides by 2^31 truncating toward zero; both cases are
 * floor((x * m + 2^30) / 2^31), one SMLAL and a 64-bit shift (saturation happens only for
 * x == m == INT32_MIN). RoundingDivideByPOT by 2^right rounds half away from zero: the remainder
 * is compared with half of the divisor, one more for a negative q. right = -shift,
 * mask = 2^right - 1. */
static inline int8_t rt_cm_requant_fast(int32_t acc, int32_t mult, int32_t right, int32_t mask, int32_t out_offset,
                                        int32_t qmin, int32_t qmax) {
    int32_t q = (int32_t)(((int64_t)acc * mult + ((int64_t)1 << 30)) >> 31);
    int32_t y = (q >> right) + ((q & mask) > (mask >> 1) + (int32_t)((uint32_t)q >> 31) ? 1 : 0) + out_offset;
    return (int8_t)(y < qmin ? qmin : (y > qmax ? qmax : y));
}

/* 1 when rt_cm_requant_fast gives rt_cm_requant's values for all n channels of an op. */
static inline int rt_cm_requant_fast_ok(const int32_t *mult, const int32_t *shift, int32_t n, int32_t rounding) {
    if (rounding != RT_OPT_ROUND_DOUBLE) return 0;
    for (int32_t i = 0; i < n; i++)
        if (shift[i] > 0 || shift[i] < -31 || mult[i] == INT32_MIN) return 0;
    return 1;
}

/* rt_cm_requant's value in one 64-bit multiply-accumulate and a shift of its high word, where
 * rt_cm_requant_hi_ok holds for the op (rounding RT_OPT_ROUND_DOUBLE, shift in [-31, -1],
 * 2^30 < mult). With q = floor((x m + 2^30) / 2^31) (rt_cm_requant_fast), TFLite's
 * RoundingDivideByPOT(q, r) is floor((q + 2^(r-1) - [q < 0]) / 2^r), and nested floors of
 * divisions compose: floor((x m + 2^30 + (2^(r-1) - [q < 0]) 2^31) / 2^(31+r)); with
 * 2^30 < m, q < 0 exactly when x < 0, and 31 + r >= 32 makes the division an arithmetic shift of
 * the high word by r - 1. A channel's constants (rt_cm_requant_hi_channel): rlo, rhi the words of
 * 2^30 + 2^(r+30), sh1 = r - 1. narrow: the clamp is not int8's whole range. */
typedef struct rt_cm_rq {
    int32_t mult, sh1, rhi;
    uint32_t rlo;
} rt_cm_rq;

static inline rt_cm_rq rt_cm_requant_hi_channel(int32_t mult, int32_t shift) {
    rt_cm_rq c;
    c.mult = mult, c.sh1 = -shift - 1;
    c.rlo = shift == -1 ? 0xC0000000u : 0x40000000u, c.rhi = shift == -1 ? 0 : (int32_t)(1u << (-shift - 2));
    return c;
}

static inline int8_t rt_cm_requant_hi(int32_t acc, rt_cm_rq c, int32_t out_offset, int32_t qmin, int32_t qmax,
                                      int narrow) {
    int64_t t = (int64_t)(((uint64_t)(uint32_t)c.rhi << 32) | c.rlo) + (int64_t)acc * c.mult -
                (int64_t)((uint32_t)acc & 0x80000000u);
    int32_t y = ((int32_t)(t >> 32) >> c.sh1) + out_offset;
#if defined(__ARM_FEATURE_SAT)
    y = __ssat(y, 8);
#else
    y = y < -128 ? -128 : (y > 127 ? 127 : y);
#endif
    if (narrow) y = y < qmin ? qmin : (y > qmax ? qmax : y);
    return (int8_t)y;
}

/* 1 when rt_cm_requant_hi gives rt_cm_requant's values for all n channels of an op. */
static inline int rt_cm_requant_hi_ok(const int32_t *mult, const int32_t *shift, int32_t n, int32_t rounding) {
    if (rounding != RT_OPT_ROUND_DOUBLE) return 0;
    for (int32_t i = 0; i < n; i++)
        if (shift[i] > -1 || shift[i] < -31 || mult[i] <= (1 << 30)) return 0;
    return 1;
}

/* int8 convolution (rt_opt_conv_s8's contract). With the DSP extension (__ARM_FEATURE_DSP:
 * Cortex-M4/M7/M33/M55) a 1x1 stride-1 convolution runs a GEMM on SMLAD: two 16x16-bit
 * products per instruction, activations widened with UXTB16 and weights with SXTB16 straight
 * from the packed panels, 2 rows x 2 channels of accumulators, a fused residual ADD applied
 * after it; other convolutions (K <= 512, one batch) run the same GEMM on their patches,
 * gathered two at a time. Its buffers are on the stack (up to 5 KiB), never in scratch (pass
 * schedule may give it none: scratch NULL). */
void rt_cm_conv_s8(const rt_opt_conv_params *p, const int8_t *in, const int8_t *packed_b, const int32_t *bias,
                   int8_t *out, void *scratch, const rt_opt_post_add *post, const int8_t *other,
                   const mpcc_parallel *par);

/* int8 depthwise convolution (rt_opt_dwconv_s8's contract). With the DSP extension and depth
 * multiplier 1 or a multiple of 4: four output channels at a time in 16-bit lanes (SXTB16,
 * SMLABB/SMLATT), their taps' weights widened once on the stack (up to 128 taps, 1 KiB). */
void rt_cm_dwconv_s8(const rt_dwconv_params *p, const int8_t *in, const int8_t *filter, const int32_t *bias,
                     int8_t *out, void *scratch, const mpcc_parallel *par);

#ifdef __cplusplus
}
#endif

#endif
