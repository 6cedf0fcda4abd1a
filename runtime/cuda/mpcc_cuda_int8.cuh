/* mpcc_cuda_int8.cuh - the int8 (TFLite-quantized) SIMT kernels of mpcc's CUDA target:
 * direct and depthwise convolution with per-channel requantization (and a fused residual
 * ADD), broadcast ADD / SUB / MUL / SQUARED_DIFFERENCE / MAXIMUM / MINIMUM, average and
 * max pooling, MEAN, and table lookups (LOGISTIC / TANH).
 *
 * Every result is bit-exact with mpcc's reference kernels (runtime/kernels/rt_*.c, which
 * are bit-exact with TFLite): the arithmetic below is theirs, integer for integer, with
 * the same wrapping int32 sums. The gemmlowp helpers (mpcc_srdhm, mpcc_rdbpot,
 * mpcc_mul_by_qm) are the GEMM header's. Written against mpcc_cuda.cuh alone, so it
 * builds with nvcc, NVRTC and the CPU emulator (MPCC_CUDA_EMU). Grid-stride bodies: any
 * grid is correct; the emitter picks ceil(n / 256) blocks of 256 threads (capped). */
#ifndef MPCC_CUDA_INT8_CUH
#define MPCC_CUDA_INT8_CUH

#include "mpcc_cuda.cuh"
#include "mpcc_cuda_args.h"
#include "mpcc_cuda_ops.cuh"
#include "mpcc_cuda_gemm.cuh"

MPCC_DEV int32_t mpcc_s8_clamp(int32_t v, int32_t lo, int32_t hi) { return v < lo ? lo : v > hi ? hi : v; }
MPCC_DEV int32_t mpcc_wrap_add(int32_t a, int32_t b) { return (int32_t)((uint32_t)a + (uint32_t)b); }

/* TFLite's MultiplyByQuantizedMultiplierSmallerThanOneExp (shift <= 0), including the
 * x86 behaviour of RoundingDivideByPOT for exponents 32..63 (rt_mul_q_smaller_than_one). */
MPCC_DEV int32_t mpcc_mul_q_lt_one(int32_t x, int32_t mult, int32_t shift) {
    const int32_t v = mpcc_srdhm(x, mult);
    const int e = -shift;
    if (e > 31 && e < 64) return (v >> (e & 31)) + (v > -1 + (v < 0 ? 1 : 0) ? 1 : 0);
    return mpcc_rdbpot(v, e);
}

/* The reference's MultiplyByQuantizedMultiplier: x * 2^left saturated to int32 first
 * (rt_mul_by_quantized_multiplier), then the double rounding. */
MPCC_DEV int32_t mpcc_s8_requant(int32_t x, int32_t mult, int shift) {
    const int left = shift > 0 ? shift : 0, right = shift > 0 ? 0 : -shift;
    long long s = (long long)x * (1ll << left);
    s = s > 2147483647ll ? 2147483647ll : s < -2147483648ll ? -2147483648ll : s;
    return mpcc_rdbpot(mpcc_srdhm((int32_t)s, mult), right);
}

/* Quantized ADD (sign +1) / SUB (sign -1) of one element pair (rt_addsub_q). */
MPCC_DEV int32_t mpcc_s8_addsub(const mpcc_s8_addq &q, int32_t a, int32_t b, int sign) {
    const int32_t sa = (int32_t)((uint32_t)(q.in1_offset + a) << q.left_shift);
    const int32_t sb = (int32_t)((uint32_t)(q.in2_offset + b) << q.left_shift);
    const int32_t ra = mpcc_mul_q_lt_one(sa, q.in1_mult, q.in1_shift);
    const int32_t rb = mpcc_mul_q_lt_one(sb, q.in2_mult, q.in2_shift);
    const int32_t raw = sign > 0 ? ra + rb : ra - rb;
    return mpcc_s8_clamp(mpcc_mul_q_lt_one(raw, q.out_mult, q.out_shift) + q.out_offset, q.qmin, q.qmax);
}

/* ---- CONV_2D / DEPTHWISE_CONV_2D int8 ----
 * One thread per output element: int32 sum of filter * (in + in_offset) over the in-image
 * taps (wrapping, as the reference), + bias, requantized per channel, + out_offset,
 * clamped; then the fused residual ADD, if any, with the ADD's own requantization. */
MPCC_DEV void mpcc_conv_s8_body(const mpcc_conv_s8_args &p) {
    const long long n = (long long)p.batches * p.out_h * p.out_w * p.out_c;
    for (long long e = mpcc_tid(); e < n; e += mpcc_nthreads()) {
        const int oc = (int)(e % p.out_c);
        long long r = e / p.out_c;
        const int ox = (int)(r % p.out_w);
        r /= p.out_w;
        const int oy = (int)(r % p.out_h), b = (int)(r / p.out_h);
        const int y0 = oy * p.stride_h - p.pad_h, x0 = ox * p.stride_w - p.pad_w;
        int32_t acc = 0;
        for (int fy = 0; fy < p.filter_h; fy++) {
            const int iy = y0 + p.dil_h * fy;
            if (iy < 0 || iy >= p.in_h) continue;
            for (int fx = 0; fx < p.filter_w; fx++) {
                const int ix = x0 + p.dil_w * fx;
                if (ix < 0 || ix >= p.in_w) continue;
                const long long at = (((long long)b * p.in_h + iy) * p.in_w + ix) * p.in_c;
                if (p.depth_mult > 0) {
                    const int32_t w = p.filter[((long long)fy * p.filter_w + fx) * p.out_c + oc];
                    acc = mpcc_wrap_add(acc, w * ((int32_t)p.in[at + oc / p.depth_mult] + p.in_offset));
                } else {
                    const int8_t *wr = p.filter + (((long long)oc * p.filter_h + fy) * p.filter_w + fx) * p.in_c;
                    const int8_t *ir = p.in + at;
                    for (int ic = 0; ic < p.in_c; ic++)
                        acc = mpcc_wrap_add(acc, (int32_t)wr[ic] * ((int32_t)ir[ic] + p.in_offset));
                }
            }
        }
        if (p.bias) acc = mpcc_wrap_add(acc, p.bias[oc]);
        int32_t v = mpcc_s8_clamp(mpcc_s8_requant(acc, p.mult[oc], p.shift[oc]) + p.out_offset, p.qmin, p.qmax);
        if (p.res) v = p.conv_is_lhs ? mpcc_s8_addsub(p.add, v, p.res[e], 1) : mpcc_s8_addsub(p.add, p.res[e], v, 1);
        p.out[e] = (int8_t)v;
    }
}

/* ---- broadcast binary int8 ---- */
enum { MPCC_S8_ADD = 0, MPCC_S8_SUB, MPCC_S8_MUL, MPCC_S8_SQDIFF, MPCC_S8_MAX, MPCC_S8_MIN };
MPCC_DEV int32_t mpcc_s8_binary_apply(const mpcc_binary_s8_args &p, int32_t a, int32_t b) {
    const mpcc_s8_addq &q = p.q;
    switch (p.op) {
    case MPCC_S8_ADD: return mpcc_s8_addsub(q, a, b, 1);
    case MPCC_S8_SUB: return mpcc_s8_addsub(q, a, b, -1);
    case MPCC_S8_MUL: /* rt_mul.c mul_q */
        return mpcc_s8_clamp(q.out_offset + mpcc_s8_requant((q.in1_offset + a) * (q.in2_offset + b), q.out_mult, q.out_shift),
                             q.qmin, q.qmax);
    case MPCC_S8_SQDIFF: { /* rt_squared_difference_i8 */
        const int32_t sa = (int32_t)((uint32_t)(q.in1_offset + a) << q.left_shift);
        const int32_t sb = (int32_t)((uint32_t)(q.in2_offset + b) << q.left_shift);
        const int32_t d = mpcc_mul_q_lt_one(sa, q.in1_mult, q.in1_shift) - mpcc_mul_q_lt_one(sb, q.in2_mult, q.in2_shift);
        return mpcc_s8_clamp(mpcc_mul_q_lt_one((int32_t)((uint32_t)d * (uint32_t)d), q.out_mult, q.out_shift) + q.out_offset,
                             q.qmin, q.qmax);
    }
    case MPCC_S8_MAX: return a > b ? a : b;
    default: return a < b ? a : b;
    }
}
MPCC_DEV void mpcc_binary_s8_body(const mpcc_binary_s8_args &p) {
    for (long long e = mpcc_tid(); e < p.n; e += mpcc_nthreads()) {
        long long r = e, o1 = 0, o2 = 0;
        for (int d = p.rank - 1; d >= 0; d--) {
            const long long i = r % p.dims[d];
            r /= p.dims[d];
            o1 += i * p.s1[d];
            o2 += i * p.s2[d];
        }
        p.out[e] = (int8_t)mpcc_s8_binary_apply(p, p.a[o1], p.b[o2]);
    }
}

/* ---- AVERAGE_POOL_2D / MAX_POOL_2D int8 (window clipped to the image; the average
 * rounds half away from zero with C division, as the reference) ---- */
MPCC_DEV void mpcc_pool_s8_body(const mpcc_pool_s8_args &p) {
    const long long n = (long long)p.batches * p.out_h * p.out_w * p.channels;
    for (long long e = mpcc_tid(); e < n; e += mpcc_nthreads()) {
        const int c = (int)(e % p.channels);
        long long r = e / p.channels;
        const int ox = (int)(r % p.out_w);
        r /= p.out_w;
        const int oy = (int)(r % p.out_h), b = (int)(r / p.out_h);
        const int y0 = oy * p.stride_h - p.pad_h, x0 = ox * p.stride_w - p.pad_w;
        int32_t acc = p.is_max ? -128 : 0, count = 0;
        for (int fy = 0; fy < p.filter_h; fy++) {
            const int iy = y0 + fy;
            if (iy < 0 || iy >= p.in_h) continue;
            for (int fx = 0; fx < p.filter_w; fx++) {
                const int ix = x0 + fx;
                if (ix < 0 || ix >= p.in_w) continue;
                const int32_t v = p.in[(((long long)b * p.in_h + iy) * p.in_w + ix) * p.channels + c];
                if (p.is_max) acc = v > acc ? v : acc;
                else acc = mpcc_wrap_add(acc, v);
                count++;
            }
        }
        if (!p.is_max && count > 0)
            acc = acc > 0 ? mpcc_wrap_add(acc, count / 2) / count : mpcc_wrap_add(acc, -(count / 2)) / count;
        p.out[e] = (int8_t)mpcc_s8_clamp(acc, p.qmin, p.qmax);
    }
}

/* ---- MEAN int8 over any axes (TFLite's QuantizedMeanOrSum: wrapping int32 sum minus
 * n * in_zp, requantized, + out_zp, clamped); REDUCE_MAX / REDUCE_MIN (op 1 / 2: the
 * extreme raw value, from -128 / 127 as the reference) ---- */
/* The wrapping int32 sum (op 0), the maximum (1) or the minimum (2) of output o's inputs. */
MPCC_DEV int32_t mpcc_reduce_s8_at(const mpcc_mean_s8_args &p, long long o) {
    long long base = 0, rem = o, s = 1; /* strides on the fly: no local array (no stack frame) */
    for (int d = p.rank - 1; d >= 0; d--) {
        if (!p.reduced[d]) base += (rem % p.dims[d]) * s, rem /= p.dims[d];
        s *= p.dims[d];
    }
    int32_t sum = p.op == 1 ? -128 : p.op == 2 ? 127 : 0;
    for (long long r = 0; r < p.reduce_count; r++) {
        long long off = base, q = r, st = 1;
        for (int d = p.rank - 1; d >= 0; d--) {
            if (p.reduced[d]) off += (q % p.dims[d]) * st, q /= p.dims[d];
            st *= p.dims[d];
        }
        const int32_t x = p.in[off];
        sum = p.op == 1 ? (x > sum ? x : sum) : p.op == 2 ? (x < sum ? x : sum) : mpcc_wrap_add(sum, x);
    }
    return sum;
}

MPCC_DEV void mpcc_mean_s8_body(const mpcc_mean_s8_args &p) {
    for (long long o = mpcc_tid(); o < p.out_count; o += mpcc_nthreads()) {
        const int32_t sum = mpcc_reduce_s8_at(p, o);
        int32_t v = 0;
        if (p.op) {
            v = sum;
        } else if (p.reduce_count > 0) {
            const int32_t shifted = (int32_t)((uint32_t)sum - (uint32_t)p.in_zp * (uint32_t)p.reduce_count);
            v = mpcc_s8_clamp(mpcc_wrap_add(mpcc_s8_requant(shifted, p.mult, p.shift), p.out_zp), -128, 127);
        }
        p.out[o] = (int8_t)v;
    }
}

/* ---- table lookup: out = lut[(uint8_t)in] (TFLite's LUTPopulate<int8_t> order) ---- */
MPCC_DEV void mpcc_lut_s8_body(const mpcc_lut_s8_args &p) {
    for (long long e = mpcc_tid(); e < p.n; e += mpcc_nthreads()) p.out[e] = p.lut[(uint8_t)p.in[e]];
}

/* ---- requantization (RELU family int8, QUANTIZE int8 -> int8: rt_act_relux_q, rt_quantize_requant) ---- */
MPCC_DEV void mpcc_requant_s8_body(const mpcc_requant_s8_args &p) {
    for (long long e = mpcc_tid(); e < p.n; e += mpcc_nthreads()) {
        const long long v = (long long)p.out_zp + mpcc_s8_requant((int32_t)p.in[e] - p.in_zp, p.mult, p.shift);
        p.out[e] = (int8_t)(v < p.qmin ? p.qmin : v > p.qmax ? p.qmax : v);
    }
}

/* ---- SOFTMAX int8 -> int8 / int16 (rt_softmax.c softmax_row_q with gemmlowp's fixed point) ---- */
MPCC_DEV int32_t mpcc_fp_mul_pot(int32_t x, int exponent) { /* SaturatingRoundingMultiplyByPOT */
    if (exponent > 0) {
        const int32_t threshold = (int32_t)((1ll << (31 - exponent)) - 1);
        if (x > threshold) return 2147483647;
        if (x < -threshold) return -2147483647 - 1;
        return (int32_t)((uint32_t)x << exponent);
    }
    return exponent < 0 ? mpcc_rdbpot(x, -exponent) : x;
}
MPCC_DEV int32_t mpcc_fp_one_over_one_plus_x(int32_t a) { /* 1 / (1 + a), a in [0, 1), Q0.31 */
    const int32_t c48_over_17 = 1515870810, cneg32_over_17 = -1010580540, one_q2 = 1 << 29;
    const long long sum = (long long)a + 2147483647ll;
    const int32_t half_den = (int32_t)((sum + (sum >= 0 ? 1 : -1)) / 2);
    int32_t x = mpcc_wrap_add(c48_over_17, mpcc_srdhm(half_den, cneg32_over_17));
    for (int i = 0; i < 3; i++) {
        const int32_t one_minus = (int32_t)((uint32_t)one_q2 - (uint32_t)mpcc_srdhm(half_den, x));
        x = mpcc_wrap_add(x, mpcc_fp_mul_pot(mpcc_srdhm(x, one_minus), 2));
    }
    return mpcc_fp_mul_pot(x, 1);
}
MPCC_DEV void mpcc_softmax_s8_body(const mpcc_softmax_s8_args &p) {
    for (long long row = mpcc_tid(); row < p.rows; row += mpcc_nthreads()) {
        const int8_t *x = p.in + row * p.depth;
        const int32_t lo = p.out16 ? -32768 : -128, hi = p.out16 ? 32767 : 127; /* lo: the output zero point */
        int32_t mx = -128, sum = 0;
        for (int c = 0; c < p.depth; c++) mx = x[c] > mx ? x[c] : mx;
        for (int c = 0; c < p.depth; c++) {
            const int32_t diff = (int32_t)x[c] - mx;
            if (diff >= p.diff_min) sum = mpcc_wrap_add(sum, mpcc_fp_mul_pot(p.exp_q0[-diff], -12)); /* Q12.19 */
        }
        /* GetReciprocal(sum, 12) */
        int hp1 = 0;
        for (uint32_t u = (uint32_t)sum; hp1 < 32 && !(u & 0x80000000u); u <<= 1) hp1++;
        const int nbou = 12 - hp1;
        const int32_t shifted_minus_one = (int32_t)((hp1 < 32 ? (uint32_t)sum << hp1 : 0u) - 0x80000000u);
        const int32_t scale = mpcc_fp_one_over_one_plus_x(shifted_minus_one);
        const int exponent = nbou + 31 - (p.out16 ? 16 : 8);
        for (int c = 0; c < p.depth; c++) {
            const int32_t diff = (int32_t)x[c] - mx;
            int32_t v = lo;
            if (diff >= p.diff_min) {
                const int32_t t = mpcc_srdhm(scale, p.exp_q0[-diff]);
                const int32_t r = exponent < 0 ? mpcc_fp_mul_pot(t, -exponent)
                                  : exponent < 32 ? mpcc_rdbpot(t, exponent)
                                  : (exponent == 32 && t == -2147483647 - 1 ? -1 : 0);
                v = mpcc_s8_clamp(r + lo, lo, hi);
            }
            if (p.out16) p.out16[row * p.depth + c] = (int16_t)v;
            else p.out[row * p.depth + c] = (int8_t)v;
        }
    }
}

#endif
