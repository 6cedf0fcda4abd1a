/* rt_a64.h - AArch64 NEON helpers (runtime/arm64, docs/arm64.md) for the optimized kernels
 * (runtime/rt_opt_*.c) when the compiler targets AArch64 (not API): TFLite's requantization on
 * four lanes, bit-exact. Header-only, like the kernels of this folder, so that every build of
 * the runtime sources (Makefile, CMake, a user's own) links without listing this folder. */
#ifndef MPCC_RT_A64_H
#define MPCC_RT_A64_H

#include <stdint.h>

#if defined(__aarch64__) && defined(__ARM_NEON) && defined(__GNUC__) && !defined(RT_OPT_SCALAR)
#include <arm_neon.h>
#define RT_A64 1
/* Before a loop over a tile's rows or columns: unrolled whole (GCC 8+, clang), so that arrays of
 * vectors indexed by it stay in registers (at -O2 GCC kept a tile's accumulators in memory). */
#define RT_A64_UNROLL _Pragma("GCC unroll 16")

/* TFLite's MultiplyByQuantizedMultiplier on four lanes: x * 2^max(s, 0) saturated (SQSHL), the
 * rounding doubling high product with m (SQRDMULH: floor((x m + 2^30) / 2^31), saturated, which is
 * TFLite's nudged division rounded toward zero), then the rounding right shift by -min(s, 0) with
 * ties away from zero (SRSHL rounds ties up: negative x is lowered by one first, as TFLite's
 * remainder > threshold + 1 asks). Bit-exact with rq_double (rt_opt_internal.h) for every x, m,
 * and s in [-31, 31]. */
static inline int32x4_t rt_a64_rq_double(int32x4_t x, int32x4_t m, int32x4_t s) {
    const int32x4_t zero = vdupq_n_s32(0), right = vminq_s32(s, zero);
    x = vqrdmulhq_s32(vqshlq_s32(x, vmaxq_s32(s, zero)), m);
    x = vqaddq_s32(x, vshrq_n_s32(vandq_s32(x, right), 31)); /* -1 where x < 0 and it shifts right */
    return vrshlq_s32(x, right);
}

/* 1 when every one of the n shifts is in [-31, 31] (rt_a64_rq_double applies). */
static inline int rt_a64_shifts_double(const int32_t *shift, int32_t n) {
    int32_t i, bad = 0;
    for (i = 0; i < n; i++) bad |= (shift[i] > 31) | (shift[i] < -31);
    return !bad;
}

/* The single-rounding variant (rq_single): (x m + 2^(30 - s)) >> (31 - s) on 64-bit products,
 * saturated to int32; s in [-31, 0]. */
static inline int32x4_t rt_a64_rq_single(int32x4_t x, int32x4_t m, int32x4_t s) {
    const int64x2_t lo = vmull_s32(vget_low_s32(x), vget_low_s32(m)), hi = vmull_high_s32(x, m);
    const int32x4_t total = vsubq_s32(s, vdupq_n_s32(31)); /* -(31 - s): a right shift */
    return vcombine_s32(vqmovn_s64(vrshlq_s64(lo, vmovl_s32(vget_low_s32(total)))),
                        vqmovn_s64(vrshlq_s64(hi, vmovl_high_s32(total))));
}

/* Sixteen int32 lanes (already clamped to int8's range) as bytes. */
static inline int8x16_t rt_a64_narrow16(int32x4_t v0, int32x4_t v1, int32x4_t v2, int32x4_t v3) {
    return vcombine_s8(vqmovn_s16(vcombine_s16(vqmovn_s32(v0), vqmovn_s32(v1))),
                       vqmovn_s16(vcombine_s16(vqmovn_s32(v2), vqmovn_s32(v3))));
}

#endif

#endif
