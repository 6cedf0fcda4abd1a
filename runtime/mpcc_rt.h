/* mpcc_rt.h - the mpcc runtime: types, fixed-point arithmetic and kernel
 * declarations used by code that mpcc generates.
 *
 * C99, no malloc, no globals, only <stdint.h>, <stddef.h>, <math.h>.
 * The same kernels are the compiler's reference interpreter: a kernel here is
 * plain, obviously-correct C with TFLite's exact semantics, including its
 * fixed-point requantization (bit-exact integer paths).
 */
#ifndef MPCC_RT_H
#define MPCC_RT_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define RT_MAX_RANK 8

/* Status codes returned by generated <prefix>_run() and <prefix>_check_weights(). */
#define RT_OK 0
#define RT_ERR_NULL_ARG 1
#define RT_ERR_WEIGHTS_SIZE 2 /* weights blob of the wrong size */
#define RT_ERR_WEIGHTS_HASH 3 /* weights blob of another model (header or contents differ) */
#define RT_ERR_SHAPE_INPUT 4  /* a shape input computed at run time differs from the shape compiled for */
#define RT_ERR_CUSTOM_OP 5    /* a user kernel for a custom operator returned non-zero */

/* Generated code's constant arrays (packed weights, biases) start on a 64-byte cache line where the compiler
 * allows it: the kernels read them with 64-byte vector loads, which otherwise split across two lines (x86-64
 * and AArch64 with GCC or Clang; elsewhere, e.g. Cortex-M flash, the compiler's own alignment). Define
 * MPCC_CONST_ALIGN before including this header to change it. */
#if !defined(MPCC_CONST_ALIGN)
#if (defined(__GNUC__) || defined(__clang__)) && (defined(__x86_64__) || defined(__aarch64__))
#define MPCC_CONST_ALIGN __attribute__((aligned(64)))
#else
#define MPCC_CONST_ALIGN
#endif
#endif

/* ---- the weights blob of `mpcc --weights file` (rt_weights.c) ---------- */

/* 8 bytes "mpccwts1", then the payload's 64-bit hash, little-endian. */
#define RT_WEIGHTS_HEADER_BYTES 16
#define RT_HASH_SEED UINT64_C(0x6a09e667f3bcc908)
/* Content hash, one shot: rt_hash_final(rt_hash_update(RT_HASH_SEED, p, n), n)
 * when n is a multiple of 8 (a shorter tail is hashed zero-padded to 8). */
uint64_t rt_hash(const void *data, size_t n);
uint64_t rt_hash_update(uint64_t h, const void *data, size_t n); /* n: a multiple of 8 */
uint64_t rt_hash_final(uint64_t h, uint64_t total_bytes);
void rt_weights_header(unsigned char out[RT_WEIGHTS_HEADER_BYTES], uint64_t hash);
/* 1 if the blob's header carries `hash` (reads 16 bytes). */
int rt_weights_header_ok(const void *blob, uint64_t hash);
/* RT_OK, RT_ERR_NULL_ARG, RT_ERR_WEIGHTS_SIZE (n != want_bytes) or
 * RT_ERR_WEIGHTS_HASH (header or payload hash differ); reads the whole blob. */
int rt_weights_check(const void *blob, size_t n, size_t want_bytes, uint64_t want_hash);

/* Tensor element types (mirrors the IR's list). */
enum {
    RT_F32 = 0, RT_F16, RT_BF16, RT_I8, RT_U8, RT_I16, RT_I32, RT_I64, RT_BOOL,
    RT_C64          /* complex64: interleaved (re, im) float pairs */
};

typedef struct rt_shape {
    int32_t rank;
    int32_t dims[RT_MAX_RANK];
} rt_shape;

static inline int64_t rt_numel(const rt_shape *s) {
    int64_t n = 1;
    int32_t i;
    for (i = 0; i < s->rank; i++) n *= s->dims[i];
    return n;
}

/* ---- fixed point, TFLite semantics ------------------------------------ */

static inline int32_t rt_sat_rounding_doubling_high_mul(int32_t a, int32_t b) {
    int64_t ab, nudge;
    int32_t r;
    if (a == b && a == INT32_MIN) return INT32_MAX;
    ab = (int64_t)a * (int64_t)b;
    nudge = ab >= 0 ? ((int64_t)1 << 30) : (1 - ((int64_t)1 << 30));
    /* Division truncating toward zero, as gemmlowp does. */
    r = (int32_t)((ab + nudge) / ((int64_t)1 << 31));
    return r;
}

/* Round-half-away-from-zero arithmetic right shift. */
static inline int32_t rt_rounding_divide_by_pot(int32_t x, int exponent) {
    int32_t mask = (int32_t)((((int64_t)1) << exponent) - 1);
    int32_t remainder = x & mask;
    int32_t threshold = (mask >> 1) + ((x < 0) ? 1 : 0);
    return (x >> exponent) + ((remainder > threshold) ? 1 : 0);
}

/* x * multiplier * 2^shift with TFLite's double rounding
 * (MultiplyByQuantizedMultiplier). multiplier is Q31 in [2^30, 2^31). */
static inline int32_t rt_mul_by_quantized_multiplier(int32_t x, int32_t multiplier, int shift) {
    int left = shift > 0 ? shift : 0;
    int right = shift > 0 ? 0 : -shift;
    int64_t scaled = (int64_t)x * ((int64_t)1 << left);
    int32_t xs;
    if (scaled > INT32_MAX) scaled = INT32_MAX; /* unreachable for valid models; avoids UB */
    if (scaled < INT32_MIN) scaled = INT32_MIN;
    xs = (int32_t)scaled;
    return rt_rounding_divide_by_pot(rt_sat_rounding_doubling_high_mul(xs, multiplier), right);
}

/* The single-rounding variant: one rounding shift of the 64-bit product, as
 * TFLite's reference FULLY_CONNECTED int8 kernel rounds (verified bit-exact
 * against the interpreter; the double-rounding form above differs in about
 * 1 of 1000 outputs). */
static inline int32_t rt_mul_by_quantized_multiplier_single(int32_t x, int32_t multiplier, int shift) {
    int total_shift = 31 - shift;
    int64_t r = ((int64_t)x * (int64_t)multiplier + ((int64_t)1 << (total_shift - 1))) >> total_shift;
    if (r > INT32_MAX) r = INT32_MAX;
    if (r < INT32_MIN) r = INT32_MIN;
    return (int32_t)r;
}

/* mpcc's float requantization, used by the int8 ops that mpcc --precision int8
 * quantizes itself (no converter fixed their rounding): q = round-to-nearest-even
 * of fmaf((float)acc, scale, zp), clamped to [qmin, qmax]. The optimized kernels
 * compute the same value (cvtdq2ps, one fused multiply-add, cvtps2dq); clamping
 * before the rounding equals clamping after it (the bounds are integers), and
 * keeps the conversion within int32 for any scale. */
static inline int32_t rt_requant_float(int32_t acc, float scale, int32_t zp, int32_t qmin, int32_t qmax) {
    float y = fmaf((float)acc, scale, (float)zp);
    y = y < (float)qmin ? (float)qmin : (y > (float)qmax ? (float)qmax : y);
    return (int32_t)lrintf(y);
}

/* mpcc's float quantization of x to int8 (the QUANTIZE ops mpcc --precision int8 inserts): the
 * nearest integer (half to even) to fmaf(x, inv_scale, zp), clamped to [-128, 127]; NaN gives -128
 * (as TFLite's x86 conversion does). One multiply-add where TFLite's form divides. */
static inline int32_t rt_quantize_float(float x, float inv_scale, int32_t zp) {
    float y = fmaf(x, inv_scale, (float)zp);
    y = y >= -128.0f ? (y <= 127.0f ? y : 127.0f) : -128.0f;
    return (int32_t)lrintf(y);
}

/* The single-rounding variant for a 64-bit accumulator (int16 FULLY_CONNECTED):
 * round(x * multiplier / 2^(31 - shift)), x within TFLite's stated +-2^47.
 * The 95-bit product is formed in two halves of the multiplier so that no
 * intermediate overflows; the result saturates to int32. */
static inline int32_t rt_mul_by_quantized_multiplier_single_64(int64_t x, int32_t multiplier, int shift) {
    const int64_t lim = ((int64_t)1 << 47) - 1;
    int total_shift = 31 - shift;
    int64_t r;
    if (x > lim) x = lim;
    if (x < -lim) x = -lim;
    if (total_shift < 17) {
        /* A multiplier of 2^14 or more: only a small x does not saturate (and then fits). */
        if (x >= ((int64_t)1 << 17)) return INT32_MAX;
        if (x <= -((int64_t)1 << 17)) return INT32_MIN;
        r = (x * (int64_t)multiplier + ((int64_t)1 << (total_shift - 1))) >> total_shift;
    } else {
        int64_t hi = x * (int64_t)(multiplier >> 16), lo = x * (int64_t)(multiplier & 0xFFFF);
        /* floor((hi * 2^16 + lo + 2^(total_shift-1)) / 2^total_shift), in two exact steps */
        r = (hi + (lo >> 16) + ((int64_t)1 << (total_shift - 17))) >> (total_shift - 16);
    }
    if (r > INT32_MAX) r = INT32_MAX;
    if (r < INT32_MIN) r = INT32_MIN;
    return (int32_t)r;
}

/* 64-bit accumulator variant used by int16 (16x8) kernels. */
static inline int32_t rt_mul_by_quantized_multiplier_64(int64_t x, int32_t multiplier, int shift) {
    /* Rounds the int32 multiplier to 16 bits, then one rounding shift, as TFLite does. */
    int32_t reduced = (multiplier < 0x7FFF0000) ? ((multiplier + (1 << 15)) >> 16) : 0x7FFF;
    int total_shift = 15 - shift;
    int64_t round = (int64_t)1 << (total_shift - 1);
    int64_t r = ((x * (int64_t)reduced) + round) >> total_shift;
    if (r > INT32_MAX) r = INT32_MAX;
    if (r < INT32_MIN) r = INT32_MIN;
    return (int32_t)r;
}

/* int32 addition that wraps like TFLite's kernels do on hostile data (no UB). */
static inline int32_t rt_wrap_add_i32(int32_t a, int32_t b) { return (int32_t)((uint32_t)a + (uint32_t)b); }

/* Two's-complement narrowing, as a C++ static_cast to a narrower type does. */
static inline int8_t rt_wrap_i8(int32_t v) {
    v &= 0xFF;
    return (int8_t)(v >= 0x80 ? v - 0x100 : v);
}

static inline int16_t rt_wrap_i16(int32_t v) {
    v &= 0xFFFF;
    return (int16_t)(v >= 0x8000 ? v - 0x10000 : v);
}

static inline int32_t rt_clamp_i32(int32_t x, int32_t lo, int32_t hi) {
    return x < lo ? lo : (x > hi ? hi : x);
}

static inline float rt_clamp_f32(float x, float lo, float hi) {
    return x < lo ? lo : (x > hi ? hi : x);
}

/* IEEE half / bfloat16 bit patterns to float. */
static inline float rt_f16_to_f32(uint16_t h) {
    uint32_t sign = (uint32_t)(h >> 15) & 1u, exp = (uint32_t)(h >> 10) & 0x1Fu, man = (uint32_t)h & 0x3FFu;
    float v;
    if (exp == 0) v = ldexpf((float)man, -24);
    else if (exp == 31) v = man ? NAN : INFINITY;
    else v = ldexpf((float)(man | 0x400u), (int)exp - 25);
    return sign ? -v : v;
}

static inline float rt_bf16_to_f32(uint16_t h) {
    union { uint32_t u; float f; } c;
    c.u = (uint32_t)h << 16;
    return c.f;
}

/* float to bfloat16 / IEEE half bits, rounding to nearest even (NaN stays a
 * quiet NaN; halves overflow to infinity and underflow through subnormals;
 * bfloat16 treats subnormal floats as zero, as the AVX512-BF16 conversion). */
static inline uint16_t rt_f32_to_bf16(float f) {
    union { uint32_t u; float f; } c;
    c.f = f;
    if ((c.u & 0x7FFFFFFFu) > 0x7F800000u) return (uint16_t)((c.u >> 16) | 0x40u);
    if ((c.u & 0x7F800000u) == 0) return (uint16_t)((c.u >> 16) & 0x8000u); /* subnormal: zero, as vcvtneps2bf16 */
    return (uint16_t)((c.u + 0x7FFFu + ((c.u >> 16) & 1u)) >> 16);
}

static inline uint16_t rt_f32_to_f16(float f) {
    union { uint32_t u; float f; } c;
    uint32_t sign, a, e, m, r;
    c.f = f;
    sign = (c.u >> 16) & 0x8000u;
    a = c.u & 0x7FFFFFFFu;
    if (a > 0x7F800000u) return (uint16_t)(sign | 0x7E00u);
    if (a >= 0x477FF000u) return (uint16_t)(sign | 0x7C00u); /* rounds to >= 65520: infinity */
    e = a >> 23;
    if (e < 113) { /* below 2^-14: subnormal half (or zero) */
        if (e < 102) return (uint16_t)sign;
        m = (a & 0x7FFFFFu) | 0x800000u;
        r = 126 - e; /* shift so the result counts units of 2^-24 */
        {
            uint32_t q = m >> r, rem = m & ((1u << r) - 1u), half = 1u << (r - 1);
            q += rem > half || (rem == half && (q & 1u));
            return (uint16_t)(sign | q);
        }
    }
    m = a + 0xFFFu + ((a >> 13) & 1u) - (112u << 23); /* rebias the exponent, round the mantissa */
    return (uint16_t)(sign | (m >> 13));
}

/* x rounded through the 16-bit float type (RT_BF16 or RT_F16), as a float. */
static inline float rt_round_half(float x, int32_t type) {
    return type == RT_BF16 ? rt_bf16_to_f32(rt_f32_to_bf16(x)) : rt_f16_to_f32(rt_f32_to_f16(x));
}

#include "kernels/rt_all.h"
#include "mpcc_custom.h"
#include "mpcc_parallel.h"
#include "rt_opt.h"

#ifdef __cplusplus
}
#endif

#endif
