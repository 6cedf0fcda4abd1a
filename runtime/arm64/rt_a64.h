/* rt_a64.h - AArch64 NEON helpers (runtime/arm64, docs/arm64.md) for the optimized kernels
 * (runtime/rt_opt_*.c) when the compiler targets AArch64 (not API): TFLite's requantization on
 * four lanes, bit-exact. Header-only, like the kernels of this folder, so that every build of
 * the runtime sources (Makefile, CMake, a user's own) links without listing this folder. */
#ifndef MPCC_RT_A64_H
#define MPCC_RT_A64_H

#include <stdint.h>
#include <string.h>

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

/* Stores clamp(r + offset) of 8 lanes (r0 the first four) as int8: narrowed to int16 with
 * saturation, the offset added with saturation, narrowed to int8 with saturation, clamped. The
 * same bytes as clamping r + offset in int32 (offset and clamp int8: a saturated value lies
 * outside the clamp on its side). */
static inline void rt_a64_store8(int32x4_t r0, int32x4_t r1, int16x8_t off, int8x8_t lo, int8x8_t hi, int8_t *o) {
    const int16x8_t h = vqaddq_s16(vqmovn_high_s32(vqmovn_s32(r0), r1), off);
    vst1_s8(o, vmin_s8(vmax_s8(vqmovn_s16(h), lo), hi));
}

/* The single-rounding variant (rq_single): (x m + 2^(30 - s)) >> (31 - s) on 64-bit products,
 * saturated to int32; s in [-31, 0]. */
static inline int32x4_t rt_a64_rq_single(int32x4_t x, int32x4_t m, int32x4_t s) {
    const int64x2_t lo = vmull_s32(vget_low_s32(x), vget_low_s32(m)), hi = vmull_high_s32(x, m);
    const int32x4_t total = vsubq_s32(s, vdupq_n_s32(31)); /* -(31 - s): a right shift */
    return vcombine_s32(vqmovn_s64(vrshlq_s64(lo, vmovl_s32(vget_low_s32(total)))),
                        vqmovn_s64(vrshlq_s64(hi, vmovl_high_s32(total))));
}

/* The requantization of a panel's 16 columns (rt_a64_gemm_s8.h's rt_a64_s8_panel_rq): every shift
 * in [-31, 0], the offset and the clamp within int8. */
typedef struct rt_a64_rq_cols {
    const int32_t *mult, *shift;
    int single; /* rt_a64_rq_single, else rt_a64_rq_double */
    int32_t offset, qmin, qmax;
} rt_a64_rq_cols;

/* A panel's requantization in registers: its columns' multipliers and shifts (every shift in
 * [-31, 0]: no left shift), the offset (int16) and the clamp (int8). */
typedef struct rt_a64_rq_regs {
    int32x4_t m[4], s[4];
    int16x8_t off;
    int8x16_t lo, hi;
    int single;
    int right; /* every shift below 0 (rt_a64_rq_right) */
} rt_a64_rq_regs;

/* rt_a64_rq_double's rounding right shift after SQRDMULH when every shift s is below 0: x < 0 is
 * lowered by one with SSRA of its sign (x + (x >> 31)), which cannot wrap: SQRDMULH's result is never
 * INT32_MIN (|x m| <= 2^62, so (2 x m + 2^31) >> 32 >= -2^31 + 1), then SRSHL rounds ties up. The
 * same numbers as the general form (whose AND with s keeps x's sign bit exactly where s < 0) in 3
 * instructions instead of 5. */
static inline int32x4_t rt_a64_rq_right(int32x4_t x, int32x4_t m, int32x4_t s) {
    x = vqrdmulhq_s32(x, m);
    return vrshlq_s32(vsraq_n_s32(x, x, 31), s);
}

/* 1 when every lane of the four shift vectors is below 0. */
static inline int rt_a64_all_right(const int32x4_t s[4]) {
    return vmaxvq_s32(vmaxq_s32(vmaxq_s32(s[0], s[1]), vmaxq_s32(s[2], s[3]))) < 0;
}

static inline __attribute__((always_inline)) void rt_a64_rq_load(const rt_a64_rq_cols *q, rt_a64_rq_regs *k) {
    int32_t i;
    RT_A64_UNROLL for (i = 0; i < 4; i++) {
        k->m[i] = vld1q_s32(q->mult + 4 * i);
        k->s[i] = vld1q_s32(q->shift + 4 * i);
    }
    k->off = vdupq_n_s16((int16_t)q->offset);
    k->lo = vdupq_n_s8((int8_t)q->qmin);
    k->hi = vdupq_n_s8((int8_t)q->qmax);
    k->single = q->single;
    k->right = rt_a64_all_right(k->s);
}

/* Requantizes a row's four sums (rt_a64_rq_double without its left shift, or rt_a64_rq_single) and
 * stores its nr bytes at d. The offset is added after narrowing to int16 with saturation, and the
 * clamp applied after narrowing to int8 with saturation: the same bytes as clamping v + offset in
 * int32 (offset and clamp within int8: a value that saturates lies outside the clamp, on its side). */
static inline __attribute__((always_inline)) void rt_a64_rq_row(const int32x4_t v[4], const rt_a64_rq_regs *k,
                                                                int8_t *d, int32_t nr) {
    int32x4_t y[4];
    int16x8_t h0, h1;
    int8x16_t packed;
    int32_t i;
    if (k->single) {
        RT_A64_UNROLL for (i = 0; i < 4; i++) y[i] = rt_a64_rq_single(v[i], k->m[i], k->s[i]);
    } else if (k->right) {
        RT_A64_UNROLL for (i = 0; i < 4; i++) y[i] = rt_a64_rq_right(v[i], k->m[i], k->s[i]);
    } else {
        RT_A64_UNROLL for (i = 0; i < 4; i++) {
            const int32x4_t x = vqrdmulhq_s32(v[i], k->m[i]);
            y[i] = vrshlq_s32(vqaddq_s32(x, vshrq_n_s32(vandq_s32(x, k->s[i]), 31)), k->s[i]);
        }
    }
    h0 = vqaddq_s16(vqmovn_high_s32(vqmovn_s32(y[0]), y[1]), k->off);
    h1 = vqaddq_s16(vqmovn_high_s32(vqmovn_s32(y[2]), y[3]), k->off);
    packed = vminq_s8(vmaxq_s8(vqmovn_high_s16(vqmovn_s16(h0), h1), k->lo), k->hi);
    if (nr == 16) {
        vst1q_s8(d, packed);
    } else {
        int8_t t[16];
        vst1q_s8(t, packed);
        memcpy(d, t, (size_t)nr);
    }
}

#endif

#endif
