/* mpcc_cuda_hybrid.cuh - TFLite's hybrid kernels (float activations, int8 constant weights: the
 * dynamic-range quantized FULLY_CONNECTED, CONV_2D and DEPTHWISE_CONV_2D) on the GPU, with the
 * arithmetic of mpcc's reference kernels (runtime/kernels/rt_fully_connected.c,
 * rt_conv_2d.c, rt_depthwise_conv_2d.c, rt_hybrid_common.c):
 *
 *   mpcc_hybrid_body  phase 0: per batch row, max/min by a block reduction (exact in any
 *                     order), then the row's scale, zero point and inverse scale as
 *                     rt_hybrid_quantize_row derives them (float, or double when asymmetric),
 *                     and each value quantized with its rounding: trunc(p +- 0.5f) for the
 *                     whole groups of 8, roundf for the last n % 8, p = x * inv rounded on its
 *                     own (never an FMA);
 *                     phase 1: exact int32 sums (wrapping, so any order gives the reference's),
 *                     then the float epilogue in the reference's order, each product and sum
 *                     rounded on its own (mpcc_fmul_rn / mpcc_fadd_rn).
 *   mpcc_fc_s16_body  FULLY_CONNECTED 16x8 (int16 activations, int8 weights, int64 bias): a warp
 *                     per output, exact int64 sums, the reference's single 64-bit rounding
 *   mpcc_prelu_s16_body  PRELU 16x8 (int16 input and output, int8 alpha): rt_prelu_i16's
 *                     two requantizations, the int16 clamp
 *
 * Written against mpcc_cuda.cuh (nvcc, NVRTC, the CPU emulator). Grid-stride bodies; blocks of
 * 256 threads (the reduction's shared arrays). */
#ifndef MPCC_CUDA_HYBRID_CUH
#define MPCC_CUDA_HYBRID_CUH

#include "mpcc_cuda.cuh"
#include "mpcc_cuda_args.h"
#include "mpcc_cuda_ops.cuh"
#include "mpcc_cuda_s16.cuh"
#include "mpcc_cuda_int8.cuh"
#include "mpcc_cuda_layout.cuh"

#define MPCC_HYBRID_THREADS 256

/* An integral-or-truncated float to int32, out-of-range values and NaN pinned outside the int8
 * range (rt_hybrid_common.c's to_i32). */
MPCC_DEV int32_t mpcc_hybrid_i32(float t) {
    if (!(t > -1024.0f)) return -1024;
    if (t > 1024.0f) return 1024;
    return (int32_t)t;
}

MPCC_DEV float mpcc_hybrid_clamp(float x, float lo, float hi) { return x < lo ? lo : (x > hi ? hi : x); }

MPCC_DEV void mpcc_hybrid_quantize(const mpcc_hybrid_args &p) {
    __shared__ float lo_s[MPCC_HYBRID_THREADS], hi_s[MPCC_HYBRID_THREADS];
    __shared__ float inv_s;
    __shared__ int32_t zp_s, qlo_s, zero_s;
    const int t = (int)threadIdx.x, nt = (int)blockDim.x;
    const long long n = p.row_len, vec_end = n / 8 * 8;
    for (int row = (int)blockIdx.x; row < p.batches; row += (int)gridDim.x) {
        const float *x = p.in + (long long)row * n;
        int8_t *q = p.q + (long long)row * n;
        /* symmetric: the row's own min and max (x[0] is one of them); asymmetric: the range holds 0 */
        float lo = p.asymmetric || n == 0 ? 0.0f : x[0], hi = lo;
        for (long long i = t; i < n; i += nt) {
            lo = fminf(lo, x[i]);
            hi = fmaxf(hi, x[i]);
        }
        lo_s[t] = lo, hi_s[t] = hi;
        mpcc_sync();
        for (int s = nt / 2; s > 0; s >>= 1) {
            if (t < s) lo_s[t] = fminf(lo_s[t], lo_s[t + s]), hi_s[t] = fmaxf(hi_s[t], hi_s[t + s]);
            mpcc_sync();
        }
        if (t == 0) {
            float mn = lo_s[0], mx = hi_s[0], scale = 1.0f, inv = 0.0f;
            int32_t zp = 0, qlo = -127, zero = 0;
            if (!p.asymmetric) {
                float range = fabsf(mn) > fabsf(mx) ? fabsf(mn) : fabsf(mx);
                if (range == 0.0f) zero = 1;
                else scale = range / 127.0f, inv = 127.0f / range;
            } else if (mn == mx) {
                zero = 1;
            } else {
                double s = (double)(mx - mn) / 255.0;
                double from_min = -128.0 - (double)mn / s, from_max = 127.0 - (double)mx / s;
                double z = 128.0 + fabs((double)mn / s) < 127.0 + fabs((double)mx / s) ? from_min : from_max;
                zp = z <= -128.0 ? -128 : z >= 127.0 ? 127 : (int32_t)round(z);
                scale = (float)s;
                inv = (float)(1.0 / (double)scale);
                qlo = -128;
            }
            p.scales[row] = scale, p.zps[row] = zp;
            inv_s = inv, zp_s = zp, qlo_s = qlo, zero_s = zero;
        }
        mpcc_sync();
        for (long long i = t; i < n; i += nt) {
            if (zero_s) {
                q[i] = 0;
                continue;
            }
            const float v = mpcc_fmul_rn(x[i], inv_s);
            const int32_t r = mpcc_hybrid_i32(i < vec_end ? truncf(mpcc_fadd_rn(v, v < 0.0f ? -0.5f : 0.5f)) : roundf(v));
            const int32_t c = r + zp_s;
            q[i] = (int8_t)(c < qlo_s ? qlo_s : c > 127 ? 127 : c);
        }
        mpcc_sync(); /* the shared values of the next row */
    }
}

/* FULLY_CONNECTED (rt_fully_connected_hybrid): a warp per output [b][n]. */
MPCC_DEV void mpcc_hybrid_fc(const mpcc_hybrid_args &p) {
    const int lane = (int)threadIdx.x & 31, wpb = (int)blockDim.x >> 5;
    for (long long o = (long long)blockIdx.x * wpb + ((int)threadIdx.x >> 5); o < p.count; o += (long long)gridDim.x * wpb) {
        const long long b = o / p.out_c, n = o % p.out_c;
        const int8_t *wn = p.w + n * p.in_c, *qb = p.q + b * p.row_len;
        uint32_t dot = 0;
        for (int k = lane; k < p.in_c; k += 32) dot += (uint32_t)((int32_t)wn[k] * (int32_t)qb[k]);
        for (int m = 16; m > 0; m >>= 1) dot += __shfl_xor_sync(0xffffffffu, dot, m);
        if (lane == 0) {
            dot += (uint32_t)p.row_sums[n] * (uint32_t)-p.zps[b];
            const float scale = mpcc_fmul_rn(p.scales[b], p.w_scales ? p.w_scales[n] : p.w_scale);
            const float prod = mpcc_fmul_rn((float)(int32_t)dot, scale);
            p.out[o] = mpcc_hybrid_clamp(mpcc_fadd_rn(p.bias ? p.bias[n] : 0.0f, prod), p.act_min, p.act_max);
        }
    }
}

/* CONV_2D (rt_conv_2d_hybrid) and DEPTHWISE_CONV_2D (rt_depthwise_conv_2d_hybrid): a thread per
 * output [b][oy][ox][oc], out-of-image taps skipped. */
MPCC_DEV void mpcc_hybrid_conv(const mpcc_hybrid_args &p) {
    for (long long i = mpcc_tid(); i < p.count; i += mpcc_nthreads()) {
        long long r = i;
        const int oc = (int)(r % p.out_c);
        r /= p.out_c;
        const int ox = (int)(r % p.out_w);
        r /= p.out_w;
        const int oy = (int)(r % p.out_h);
        const long long b = r / p.out_h;
        const int32_t zp = p.zps[b];
        const float in_scale = p.scales[b];
        const int8_t *qb = p.q + b * p.row_len;
        const int y0 = oy * p.stride_h - p.pad_h, x0 = ox * p.stride_w - p.pad_w;
        uint32_t acc = 0;
        float v;
        if (p.kind == 1) {
            const int per_group = p.out_c / (p.in_c / p.filter_c), c0 = (oc / per_group) * p.filter_c;
            for (int fy = 0; fy < p.filter_h; fy++) {
                const int y = y0 + p.dil_h * fy;
                if (y < 0 || y >= p.in_h) continue;
                for (int fx = 0; fx < p.filter_w; fx++) {
                    const int x = x0 + p.dil_w * fx;
                    if (x < 0 || x >= p.in_w) continue;
                    const int8_t *wt = p.w + (((long long)oc * p.filter_h + fy) * p.filter_w + fx) * p.filter_c;
                    const int8_t *qt = qb + ((long long)y * p.in_w + x) * p.in_c + c0;
                    for (int ic = 0; ic < p.filter_c; ic++) acc += (uint32_t)((int32_t)wt[ic] * ((int32_t)qt[ic] - zp));
                }
            }
            if (p.w_scales) v = mpcc_fmul_rn(mpcc_fmul_rn((float)(int32_t)acc, p.w_scales[oc]), in_scale);
            else v = mpcc_fmul_rn((float)(int32_t)acc, mpcc_fmul_rn(in_scale, p.w_scale));
        } else {
            const int ic = oc / p.depth_mult;
            for (int fy = 0; fy < p.filter_h; fy++) {
                const int y = y0 + p.dil_h * fy;
                if (y < 0 || y >= p.in_h) continue;
                for (int fx = 0; fx < p.filter_w; fx++) {
                    const int x = x0 + p.dil_w * fx;
                    if (x < 0 || x >= p.in_w) continue;
                    acc += (uint32_t)((int32_t)p.w[((long long)fy * p.filter_w + fx) * p.out_c + oc] *
                                      ((int32_t)qb[((long long)y * p.in_w + x) * p.in_c + ic] - zp));
                }
            }
            v = mpcc_fmul_rn((float)(int32_t)acc, mpcc_fmul_rn(p.w_scales[oc], in_scale));
        }
        p.out[i] = mpcc_hybrid_clamp(p.bias ? mpcc_fadd_rn(v, p.bias[oc]) : v, p.act_min, p.act_max);
    }
}

MPCC_DEV void mpcc_hybrid_body(const mpcc_hybrid_args &p) {
    if (p.phase == 0) mpcc_hybrid_quantize(p);
    else if (p.kind == 0) mpcc_hybrid_fc(p);
    else mpcc_hybrid_conv(p);
}

/* rt_mul_by_quantized_multiplier_single_64: x clamped to +-(2^47 - 1), one rounding shift of
 * x * mult by 31 - shift (in two exact steps when that is 17 or more), saturated to int32. */
MPCC_DEV int32_t mpcc_requant_single_64(long long x, int32_t mult, int shift) {
    const long long lim = (1ll << 47) - 1;
    const int total = 31 - shift;
    long long r;
    x = x > lim ? lim : x < -lim ? -lim : x;
    if (total < 17) {
        if (x >= (1ll << 17)) return 2147483647;
        if (x <= -(1ll << 17)) return -2147483647 - 1;
        r = (x * (long long)mult + (1ll << (total - 1))) >> total;
    } else {
        const long long hi = x * (long long)(mult >> 16), lo = x * (long long)(mult & 0xFFFF);
        r = (hi + (lo >> 16) + (1ll << (total - 17))) >> (total - 16);
    }
    return (int32_t)(r > 2147483647ll ? 2147483647ll : r < -2147483648ll ? -2147483648ll : r);
}

MPCC_DEV void mpcc_fc_s16_body(const mpcc_fc_s16_args &p) {
    const int lane = (int)threadIdx.x & 31, wpb = (int)blockDim.x >> 5;
    for (long long o = (long long)blockIdx.x * wpb + ((int)threadIdx.x >> 5); o < p.count; o += (long long)gridDim.x * wpb) {
        const long long b = o / p.out_depth;
        const int n = (int)(o % p.out_depth);
        const int16_t *x = p.in + b * p.in_depth;
        const int8_t *wn = p.w + (long long)n * p.in_depth;
        long long acc = 0;
        for (int k = lane; k < p.in_depth; k += 32) acc += (long long)(x[k] + p.in_offset) * (wn[k] + p.w_offset);
        for (int m = 16; m > 0; m >>= 1) { /* as two 32-bit halves (shuffles move 32 bits) */
            const uint32_t lo = __shfl_xor_sync(0xffffffffu, (uint32_t)(unsigned long long)acc, m);
            const uint32_t hi = __shfl_xor_sync(0xffffffffu, (uint32_t)((unsigned long long)acc >> 32), m);
            acc += (long long)(((unsigned long long)hi << 32) | lo);
        }
        if (lane == 0) {
            if (p.bias) acc += p.bias[n];
            const int32_t r = mpcc_requant_single_64(acc, p.mult[n], p.shift[n]) + p.out_offset;
            p.out[o] = (int16_t)mpcc_s8_clamp(r, p.qmin, p.qmax);
        }
    }
}

MPCC_DEV void mpcc_prelu_s16_body(const mpcc_prelu_args &p) { mpcc_prelu_q_body<int16_t>(p, -32768, 32767); }

#endif
