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

/* rt_cm_requant_hi with the output offset folded in, for ops whose shifts are in [-23, -2]
 * (rt_cm_requant_hi2_ok): in rt_cm_requant_hi's sum T = x m + 2^30 - [x < 0] 2^31 + 2^(r+30),
 * the part below 2^32 and the sign term are one 64-bit addend whose low word is
 * 2^30 | (x & 2^31) and whose high word is x >> 31 (r >= 2 keeps 2^(r+30) in the high word),
 * so an AND, an ORR and an ADD set up the SMLAL; and floor(h / 2^(r-1)) + zo is
 * floor((h + zo 2^(r-1)) / 2^(r-1)), so zo joins the high word's constant: hadd = 2^(r-2) +
 * zo 2^(r-1) (|h| <= 2^30 and r <= 23 keep the sum inside int32). Then one shift and SSAT:
 * seven instructions with the store. Returns the value saturated to int8 (the caller clamps a
 * narrower activation range). */
typedef struct rt_cm_rq2 {
    int32_t mult, hadd, sh1;
} rt_cm_rq2;

static inline rt_cm_rq2 rt_cm_requant_hi2_channel(int32_t mult, int32_t shift, int32_t out_offset) {
    rt_cm_rq2 c;
    c.mult = mult, c.sh1 = -shift - 1;
    c.hadd = (int32_t)((shift == -1 ? 0u : 1u << (-shift - 2)) + ((uint32_t)out_offset << (-shift - 1)));
    return c;
}

static inline int32_t rt_cm_requant_hi2(int32_t acc, int32_t mult, int32_t hadd, int32_t sh1) {
    int32_t y;
#if defined(__ARM_FEATURE_DSP) && defined(__thumb2__)
    uint32_t lo;
    __asm__("and %0, %2, #0x80000000\n\t"
            "orr %0, %0, #0x40000000\n\t"
            "add %1, %4, %2, asr #31\n\t"
            "smlal %0, %1, %2, %3"
            : "=&r"(lo), "=&r"(y)
            : "r"(acc), "r"(mult), "r"(hadd));
    (void)lo;
    return __ssat(y >> sh1, 8);
#else
    const int64_t t = (int64_t)acc * mult + (acc < 0 ? -((int64_t)1 << 30) : ((int64_t)1 << 30)) +
                      (int64_t)hadd * ((int64_t)1 << 32);
    y = (int32_t)(t >> 32) >> sh1;
    return y < -128 ? -128 : (y > 127 ? 127 : y);
#endif
}

/* rt_cm_requant_hi2 for channels with shift -1 too: rt_cm_requant_hi's sum with the low word
 * rlo (rt_cm_requant_hi2_rlo: 2^30, or 2^30 + 2^31 for shift -1, whose 2^(r+30) does not reach
 * the high word) and the high word hadd (rt_cm_requant_hi2_channel: 0 + zo for shift -1), minus
 * [x < 0] 2^31 after the SMLAL: nine instructions with the store. */
static inline uint32_t rt_cm_requant_hi2_rlo(int32_t shift) {
    return shift == -1 ? 0xC0000000u : 0x40000000u;
}

static inline int32_t rt_cm_requant_hi2g(int32_t acc, int32_t mult, int32_t hadd, int32_t sh1, uint32_t rlo) {
    int32_t y;
#if defined(__ARM_FEATURE_DSP) && defined(__thumb2__)
    uint32_t lo, t;
    __asm__("mov %0, %4\n\t"
            "mov %1, %5\n\t"
            "smlal %0, %1, %3, %6\n\t"
            "and %2, %3, #0x80000000\n\t"
            "subs %0, %0, %2\n\t"
            "sbc %1, %1, #0"
            : "=&r"(lo), "=&r"(y), "=&r"(t)
            : "r"(acc), "r"(rlo), "r"(hadd), "r"(mult)
            : "cc");
    (void)lo;
    return __ssat(y >> sh1, 8);
#else
    const int64_t t = (int64_t)acc * mult + (int64_t)rlo - (acc < 0 ? ((int64_t)1 << 31) : 0) +
                      (int64_t)hadd * ((int64_t)1 << 32);
    y = (int32_t)(t >> 32) >> sh1;
    return y < -128 ? -128 : (y > 127 ? 127 : y);
#endif
}

/* For all n channels of an op: 1 when rt_cm_requant_hi2 gives rt_cm_requant's values (rounding
 * RT_OPT_ROUND_DOUBLE, shift in [-23, -2], 2^30 < mult), 2 when only rt_cm_requant_hi2g does (a
 * shift of -1 among them), else 0. */
static inline int rt_cm_requant_hi2_ok(const int32_t *mult, const int32_t *shift, int32_t n, int32_t rounding) {
    int r1 = 0;
    if (rounding != RT_OPT_ROUND_DOUBLE) return 0;
    for (int32_t i = 0; i < n; i++) {
        if (shift[i] > -1 || shift[i] < -23 || mult[i] <= (1 << 30)) return 0;
        r1 |= shift[i] == -1;
    }
    return r1 ? 2 : 1;
}

/* Four int8 values (y0 in the low byte) in one word, each clamped to [qmin, qmax] where
 * narrow (lo4, hi4: qmin and qmax in all four bytes): three BFI, then SSUB8 sets a lane's GE
 * flag where it is at least the bound and SEL keeps it or takes the bound, twice. */
static inline uint32_t rt_cm_pack4(int32_t y0, int32_t y1, int32_t y2, int32_t y3, uint32_t lo4, uint32_t hi4,
                                   int narrow) {
#if defined(__ARM_FEATURE_DSP) && defined(__thumb2__)
    uint32_t v = (uint32_t)y0, t;
    __asm__("bfi %0, %1, #8, #8\n\t"
            "bfi %0, %2, #16, #8\n\t"
            "bfi %0, %3, #24, #8"
            : "+r"(v)
            : "r"(y1), "r"(y2), "r"(y3));
    if (narrow)
        __asm__("ssub8 %1, %0, %2\n\t"
                "sel %0, %0, %2\n\t"
                "ssub8 %1, %3, %0\n\t"
                "sel %0, %0, %3"
                : "+r"(v), "=&r"(t)
                : "r"(lo4), "r"(hi4)
                : "cc");
    return v;
#else
    const int32_t y[4] = {y0, y1, y2, y3};
    uint32_t v = 0;
    for (int i = 0; i < 4; i++) {
        const int32_t lo = (int8_t)(lo4 >> (8 * i)), hi = (int8_t)(hi4 >> (8 * i));
        const int32_t c = narrow ? (y[i] < lo ? lo : (y[i] > hi ? hi : y[i])) : y[i];
        v |= (uint32_t)(uint8_t)c << (8 * i);
    }
    return v;
#endif
}

/* K up to this many for a convolution other than 1x1 stride 1 on the DSP GEMM: the patches of two
 * output pixels are gathered on the stack (2 x RT_CM_PATCH bytes). */
#define RT_CM_PATCH 512

/* 1 when rt_cm_conv_s8 runs an int8 convolution on its DSP GEMM rather than the portable kernel:
 * integer requantization (rounding not RT_OPT_ROUND_FLOAT, int8 results) and a 1x1 stride-1
 * convolution (direct) or one batch of patches of k <= RT_CM_PATCH bytes (its outputs dense:
 * ldc == n, m == out_h x out_w, as mpcc emits them). mpcc asks it at compile time too and then
 * calls rt_cm_conv_s8_dsp, so a program whose ops all take the DSP GEMM does not link the
 * portable kernel (flash). */
static inline int rt_cm_conv_dsp_ok(int32_t direct, int32_t batches, int32_t k, int32_t rounding, int32_t out_f32) {
    return rounding != RT_OPT_ROUND_FLOAT && !out_f32 && (direct || (batches == 1 && k <= RT_CM_PATCH));
}

/* 1 when rt_cm_dwconv_s8 runs depthwise p with its 3x3 assembly kernel (Thumb-2 with the DSP
 * extension): 3x3 taps, depth multiplier 1 or a multiple of 4, out channels a multiple of 4, an
 * int8 input zero point and every channel's requantization within rt_cm_requant_hi2g's reach.
 * mpcc asks it at compile time too and then calls rt_cm_dwconv_s8_3x3 (no other kernel linked). */
static inline int rt_cm_dw3x3_ok(const rt_dwconv_params *p) {
    return (p->depth_mult == 1 || p->depth_mult % 4 == 0) && p->filter_h == 3 && p->filter_w == 3 &&
           p->in_c * p->depth_mult % 4 == 0 && -p->in_offset >= -128 && -p->in_offset <= 127 && p->mult &&
           rt_cm_requant_hi2_ok(p->mult, p->shift, p->in_c * p->depth_mult, RT_OPT_ROUND_DOUBLE);
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

/* rt_cm_conv_s8 for a convolution that rt_cm_conv_dsp_ok accepts and without a fused ADD: the
 * DSP GEMM only (on a core without the DSP extension: rt_cm_conv_s8). */
void rt_cm_conv_s8_dsp(const rt_opt_conv_params *p, const int8_t *in, const int8_t *packed_b, const int32_t *bias,
                       int8_t *out);

/* int8 depthwise convolution (rt_opt_dwconv_s8's contract). With the DSP extension and depth
 * multiplier 1 or a multiple of 4: four output channels at a time in 16-bit lanes (SXTB16,
 * SMLABB/SMLATT), their taps' weights widened once on the stack (up to 128 taps, 1 KiB). */
void rt_cm_dwconv_s8(const rt_dwconv_params *p, const int8_t *in, const int8_t *filter, const int32_t *bias,
                     int8_t *out, void *scratch, const mpcc_parallel *par);

/* rt_cm_dwconv_s8 for a depthwise convolution that rt_cm_dw3x3_ok accepts: the 3x3 assembly kernel
 * only (elsewhere: rt_cm_dwconv_s8 without scratch). */
void rt_cm_dwconv_s8_3x3(const rt_dwconv_params *p, const int8_t *in, const int8_t *filter, const int32_t *bias,
                         int8_t *out);

#ifdef __cplusplus
}
#endif

#endif
