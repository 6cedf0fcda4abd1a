/* mpcc_cuda_ops.cuh - the SIMT kernels of mpcc's CUDA target: data movement,
 * elementwise, row reductions (softmax, LayerNorm, mean), direct and
 * depthwise convolution, pooling, int8 <-> f32 casts.
 *
 * Like the GEMM and attention headers these are __device__ bodies; the
 * generated code wraps each op's call in its own `extern "C" __global__`
 * kernel (one per op, so the JIT can find it by name) and passes one of the
 * argument structs below by value. Element-wise bodies use a grid-stride
 * loop, so any grid size is correct; the emitter picks ceil(n / 256) blocks
 * of 256 threads (capped). Row bodies run one block per row (blockIdx.x is
 * the row, a grid-stride over rows). Everything is f32 unless named.
 * Written against mpcc_cuda.cuh only, so it also builds with NVRTC and runs
 * in the CPU emulator (MPCC_CUDA_EMU).
 */
#ifndef MPCC_CUDA_OPS_CUH
#define MPCC_CUDA_OPS_CUH

#include "mpcc_cuda.cuh"
#include "mpcc_cuda_args.h"

#ifndef INFINITY /* NVRTC has no <math.h> */
#define INFINITY __int_as_float(0x7f800000)
#endif
#define MPCC_ROW_THREADS 256 /* block size of the row kernels */

MPCC_DEV long long mpcc_tid(void) { return (long long)blockIdx.x * blockDim.x + threadIdx.x; }
MPCC_DEV long long mpcc_nthreads(void) { return (long long)gridDim.x * blockDim.x; }

/* ---- strided copy (RESHAPE, TRANSPOSE, CONCATENATION, SLICE, PAD's body, ...) ----
 * For every point of a box of `rank` dims, copy `run` bytes from
 * in + in_offset + sum(idx * in_strides) to out + out_offset + sum(idx * out_strides).
 * `unit` is the widest of 4/2/1 bytes dividing run, the strides and offsets. */
MPCC_DEV void mpcc_copy_body(const mpcc_copy_args &p) {
    long long per = p.run / p.unit;
    for (long long u = mpcc_tid(); u < p.total_units; u += mpcc_nthreads()) {
        long long pt = u / per, within = (u % per) * p.unit, io = p.in_offset + within, oo = p.out_offset + within;
        for (int d = p.rank - 1; d >= 0; d--) {
            long long i = pt % p.dims[d];
            pt /= p.dims[d];
            io += i * p.in_strides[d];
            oo += i * p.out_strides[d];
        }
        if (p.unit == 4) *(uint32_t *)(p.out + oo) = *(const uint32_t *)(p.in + io);
        else if (p.unit == 2) *(uint16_t *)(p.out + oo) = *(const uint16_t *)(p.in + io);
        else p.out[oo] = p.in[io];
    }
}

MPCC_DEV void mpcc_fill_body(const mpcc_fill_args &p) {
    for (long long i = mpcc_tid(); i < p.n; i += mpcc_nthreads()) {
        if (p.unit == 4) ((uint32_t *)p.out)[i] = p.value;
        else if (p.unit == 2) ((uint16_t *)p.out)[i] = (uint16_t)p.value;
        else p.out[i] = (unsigned char)p.value;
    }
}

/* ---- elementwise binary with broadcasting: out[idx] = act(a[idx . s1] op b[idx . s2]) ---- */
enum {
    MPCC_BIN_ADD = 0, MPCC_BIN_SUB, MPCC_BIN_MUL, MPCC_BIN_DIV, MPCC_BIN_SQDIFF, MPCC_BIN_MAX, MPCC_BIN_MIN,
    MPCC_BIN_POW
};
MPCC_DEV float mpcc_binary_apply(int op, float x, float y) {
    switch (op) {
    case MPCC_BIN_ADD: return x + y;
    case MPCC_BIN_SUB: return x - y;
    case MPCC_BIN_MUL: return x * y;
    case MPCC_BIN_DIV: return x / y;
    case MPCC_BIN_SQDIFF: return (x - y) * (x - y);
    case MPCC_BIN_MAX: return fmaxf(x, y);
    case MPCC_BIN_MIN: return fminf(x, y);
    default: return powf(x, y);
    }
}
MPCC_DEV void mpcc_binary_body(const mpcc_binary_args &p) {
    for (long long e = mpcc_tid(); e < p.n; e += mpcc_nthreads()) {
        long long r = e, o1 = 0, o2 = 0;
        for (int d = p.rank - 1; d >= 0; d--) {
            long long i = r % p.dims[d];
            r /= p.dims[d];
            o1 += i * p.s1[d];
            o2 += i * p.s2[d];
        }
        float v = mpcc_binary_apply(p.op, p.a[o1], p.b[o2]);
        p.out[e] = fminf(fmaxf(v, p.act_min), p.act_max);
    }
}

/* ---- elementwise unary ---- */
enum {
    MPCC_UN_CLAMP = 0, /* RELU, RELU6, RELU_N1_TO_1: clamp to [lo, hi] */
    MPCC_UN_LOGISTIC, MPCC_UN_TANH, MPCC_UN_EXP, MPCC_UN_LOG, MPCC_UN_RSQRT, MPCC_UN_SQRT, MPCC_UN_ABS,
    MPCC_UN_NEG, MPCC_UN_GELU_ERF, MPCC_UN_GELU_TANH, MPCC_UN_HARD_SWISH, MPCC_UN_LEAKY_RELU,
    MPCC_UN_COS, MPCC_UN_SIN
};
MPCC_DEV float mpcc_unary_apply(const mpcc_unary_args &p, float x) {
    switch (p.op) {
    case MPCC_UN_CLAMP: return fminf(fmaxf(x, p.lo), p.hi);
    case MPCC_UN_LOGISTIC: return 1.0f / (1.0f + expf(-x));
    case MPCC_UN_TANH: return tanhf(x);
    case MPCC_UN_EXP: return expf(x);
    case MPCC_UN_LOG: return logf(x);
    case MPCC_UN_RSQRT: return 1.0f / sqrtf(x);
    case MPCC_UN_SQRT: return sqrtf(x);
    case MPCC_UN_ABS: return fabsf(x);
    case MPCC_UN_NEG: return -x;
    case MPCC_UN_GELU_ERF: return 0.5f * x * erfcf(-x * 0.70710678118654752f);
    case MPCC_UN_GELU_TANH:
        return 0.5f * x * (1.0f + tanhf(0.7978845608028654f * (x + 0.044715f * x * x * x)));
    case MPCC_UN_HARD_SWISH: return x * fminf(fmaxf(x + 3.0f, 0.0f), 6.0f) / 6.0f;
    case MPCC_UN_COS: return cosf(x);
    case MPCC_UN_SIN: return sinf(x);
    default: return x >= 0.0f ? x : x * p.alpha;
    }
}
MPCC_DEV void mpcc_unary_body(const mpcc_unary_args &p) {
    for (long long e = mpcc_tid(); e < p.n; e += mpcc_nthreads()) p.out[e] = mpcc_unary_apply(p, p.in[e]);
}

/* ---- block reductions for the row kernels (MPCC_ROW_THREADS threads) ---- */
MPCC_DEV float mpcc_block_sum(float v, float *red) {
    v = mpcc_warp_sum(v);
    int w = threadIdx.x / 32, lane = threadIdx.x % 32;
    if (lane == 0) red[w] = v;
    mpcc_sync();
    float t = lane < MPCC_ROW_THREADS / 32 ? red[lane] : 0.0f;
    t = mpcc_warp_sum(t);
    mpcc_sync(); /* red is reused by the next reduction */
    return t;
}
MPCC_DEV float mpcc_block_max(float v, float *red) {
    v = mpcc_warp_max(v);
    int w = threadIdx.x / 32, lane = threadIdx.x % 32;
    if (lane == 0) red[w] = v;
    mpcc_sync();
    float t = lane < MPCC_ROW_THREADS / 32 ? red[lane] : -INFINITY;
    t = mpcc_warp_max(t);
    mpcc_sync();
    return t;
}

MPCC_DEV void mpcc_softmax_body(const mpcc_rows_args &p) {
    __shared__ float red[MPCC_ROW_THREADS / 32];
    for (int r = blockIdx.x; r < p.rows; r += gridDim.x) {
        const float *x = p.in + (long long)r * p.cols;
        float *y = p.out + (long long)r * p.cols;
        float m = -INFINITY;
        for (int c = threadIdx.x; c < p.cols; c += blockDim.x) m = fmaxf(m, x[c]);
        m = mpcc_block_max(m, red);
        float s = 0.0f;
        for (int c = threadIdx.x; c < p.cols; c += blockDim.x) {
            float e = expf(p.beta * (x[c] - m));
            y[c] = e;
            s += e;
        }
        s = mpcc_block_sum(s, red);
        float inv = 1.0f / s;
        for (int c = threadIdx.x; c < p.cols; c += blockDim.x) y[c] *= inv;
        mpcc_sync();
    }
}

/* LayerNorm over the last axis (the converter's 10-op chain, fused by pass
 * fuse_layer_norm): y = (x - mean) * gamma / sqrt(var + eps) + beta, var the
 * mean of squared differences (two passes over the row, as the reference). */
MPCC_DEV void mpcc_layer_norm_body(const mpcc_rows_args &p) {
    __shared__ float red[MPCC_ROW_THREADS / 32];
    for (int r = blockIdx.x; r < p.rows; r += gridDim.x) {
        const float *x = p.in + (long long)r * p.cols;
        float *y = p.out + (long long)r * p.cols;
        float s = 0.0f;
        for (int c = threadIdx.x; c < p.cols; c += blockDim.x) s += x[c];
        float mean = mpcc_block_sum(s, red) / (float)p.cols;
        float v = 0.0f;
        for (int c = threadIdx.x; c < p.cols; c += blockDim.x) v += (x[c] - mean) * (x[c] - mean);
        float inv = 1.0f / sqrtf(mpcc_block_sum(v, red) / (float)p.cols + p.eps);
        for (int c = threadIdx.x; c < p.cols; c += blockDim.x) {
            float g = p.gamma ? p.gamma[c] * inv : inv;
            y[c] = (x[c] - mean) * g + (p.beta_vec ? p.beta_vec[c] : 0.0f);
        }
    }
}

/* MEAN over the trailing `cols` elements of each row. */
MPCC_DEV void mpcc_row_mean_body(const mpcc_rows_args &p) {
    __shared__ float red[MPCC_ROW_THREADS / 32];
    for (int r = blockIdx.x; r < p.rows; r += gridDim.x) {
        const float *x = p.in + (long long)r * p.cols;
        float s = 0.0f;
        for (int c = threadIdx.x; c < p.cols; c += blockDim.x) s += x[c];
        s = mpcc_block_sum(s, red);
        if (threadIdx.x == 0) p.out[r] = s / (float)p.cols;
    }
}

MPCC_DEV void mpcc_mean_body(const mpcc_mean_args &p) {
    for (long long o = mpcc_tid(); o < p.out_count; o += mpcc_nthreads()) {
        long long base = 0, rem = o, s = 1; /* strides recomputed in each walk: no local array */
        for (int d = p.rank - 1; d >= 0; d--) {
            if (!p.reduced[d]) base += (rem % p.dims[d]) * s, rem /= p.dims[d];
            s *= p.dims[d];
        }
        /* max / min as the reference: start at -+FLT_MAX, NaN inputs never replace the value */
        float acc = p.op == 2 ? -3.40282347e+38f : p.op == 3 ? 3.40282347e+38f : 0.0f;
        for (long long r = 0; r < p.reduce_count; r++) {
            long long off = base, q = r, st = 1;
            for (int d = p.rank - 1; d >= 0; d--) {
                if (p.reduced[d]) off += (q % p.dims[d]) * st, q /= p.dims[d];
                st *= p.dims[d];
            }
            const float x = p.in[off];
            if (p.op == 2) acc = x > acc ? x : acc;
            else if (p.op == 3) acc = x < acc ? x : acc;
            else acc += x;
        }
        p.out[o] = p.op == 0 ? acc / (float)p.reduce_count : acc;
    }
}

/* ---- convolution, NHWC input, OHWI filter (TFLite layouts) ----
 * One thread per output element; the epilogue is the GEMM's: clamp1(acc +
 * bias), + res (a fused residual ADD), clamp2. depth_mult > 0 selects
 * depthwise (filter [1, fh, fw, in_c * depth_mult]). */
MPCC_DEV void mpcc_conv_body(const mpcc_conv_args &p) {
    long long n = (long long)p.batches * p.out_h * p.out_w * p.out_c;
    for (long long e = mpcc_tid(); e < n; e += mpcc_nthreads()) {
        int oc = (int)(e % p.out_c);
        long long r = e / p.out_c;
        int ox = (int)(r % p.out_w);
        r /= p.out_w;
        int oy = (int)(r % p.out_h), b = (int)(r / p.out_h);
        float acc = p.bias ? p.bias[oc] : 0.0f;
        for (int fy = 0; fy < p.filter_h; fy++) {
            int iy = oy * p.stride_h - p.pad_h + fy * p.dil_h;
            if (iy < 0 || iy >= p.in_h) continue;
            for (int fx = 0; fx < p.filter_w; fx++) {
                int ix = ox * p.stride_w - p.pad_w + fx * p.dil_w;
                if (ix < 0 || ix >= p.in_w) continue;
                const float *x = p.in + (((long long)b * p.in_h + iy) * p.in_w + ix) * p.in_c;
                if (p.depth_mult > 0) {
                    acc += x[oc / p.depth_mult] * p.filter[((long long)fy * p.filter_w + fx) * p.out_c + oc];
                } else if (p.half) {
                    const uint16_t *w = p.filter16 + (((long long)oc * p.filter_h + fy) * p.filter_w + fx) * p.in_c;
                    for (int c = 0; c < p.in_c; c++)
                        acc += p.half == 1 ? mpcc_bf2f(mpcc_f2bf(x[c])) * mpcc_bf2f(w[c])
                                           : mpcc_h2f(mpcc_f2h(x[c])) * mpcc_h2f(w[c]);
                } else {
                    const float *w = p.filter + (((long long)oc * p.filter_h + fy) * p.filter_w + fx) * p.in_c;
                    for (int c = 0; c < p.in_c; c++) acc += x[c] * w[c];
                }
            }
        }
        float v = fminf(fmaxf(acc, p.act1_min), p.act1_max);
        if (p.res) v = fminf(fmaxf(v + p.res[e], p.act2_min), p.act2_max);
        p.out[e] = v;
    }
}

MPCC_DEV void mpcc_pool_body(const mpcc_pool_args &p) {
    long long n = (long long)p.batches * p.out_h * p.out_w * p.channels;
    for (long long e = mpcc_tid(); e < n; e += mpcc_nthreads()) {
        int c = (int)(e % p.channels);
        long long r = e / p.channels;
        int ox = (int)(r % p.out_w);
        r /= p.out_w;
        int oy = (int)(r % p.out_h), b = (int)(r / p.out_h);
        int y0 = oy * p.stride_h - p.pad_h, x0 = ox * p.stride_w - p.pad_w;
        float acc = p.is_max ? -INFINITY : 0.0f;
        int count = 0;
        for (int fy = 0; fy < p.filter_h; fy++) {
            int iy = y0 + fy;
            if (iy < 0 || iy >= p.in_h) continue;
            for (int fx = 0; fx < p.filter_w; fx++) {
                int ix = x0 + fx;
                if (ix < 0 || ix >= p.in_w) continue;
                float v = p.in[(((long long)b * p.in_h + iy) * p.in_w + ix) * p.channels + c];
                acc = p.is_max ? fmaxf(acc, v) : acc + v;
                count++;
            }
        }
        if (!p.is_max) acc = count ? acc / (float)count : 0.0f;
        p.out[e] = fminf(fmaxf(acc, p.act_min), p.act_max);
    }
}

/* ---- QUANTIZE f32 -> int8 / DEQUANTIZE int8 -> f32, per tensor; f16 -> f32 ----
 * Quantize rounds half away from zero as TFLite (roundf), then clamps. */
enum { MPCC_CAST_DEQUANT_S8 = 0, MPCC_CAST_QUANT_S8 = 1, MPCC_CAST_F16_F32 = 2 };
MPCC_DEV void mpcc_cast_body(const mpcc_cast_args &p) {
    for (long long e = mpcc_tid(); e < p.n; e += mpcc_nthreads()) {
        if (p.mode == MPCC_CAST_F16_F32) {
            ((float *)p.out)[e] = mpcc_h2f(((const uint16_t *)p.in)[e]);
        } else if (p.mode == MPCC_CAST_QUANT_S8) {
            float q = roundf(((const float *)p.in)[e] / p.scale) + (float)p.zero_point;
            ((int8_t *)p.out)[e] = (int8_t)fminf(fmaxf(q, -128.0f), 127.0f);
        } else {
            ((float *)p.out)[e] = p.scale * (float)((int)((const int8_t *)p.in)[e] - p.zero_point);
        }
    }
}

/* ---- integer / bool elementwise (the C runtime's rt_cast, rt_add_i32/_i64, rt_compare, rt_logical,
 * rt_select semantics) ---- */
enum {
    MPCC_EL_CAST = 0, MPCC_EL_ADD, MPCC_EL_SUB, MPCC_EL_MUL, MPCC_EL_LESS, MPCC_EL_GREATER, MPCC_EL_GREATER_EQUAL,
    MPCC_EL_LESS_EQUAL, MPCC_EL_EQUAL, MPCC_EL_NOT_EQUAL, MPCC_EL_AND, MPCC_EL_OR, MPCC_EL_NOT, MPCC_EL_SELECT
};
MPCC_DEV long long mpcc_ld_int(int t, const void *b, long long i) {
    switch (t) {
    case MPCC_T_I8: return ((const int8_t *)b)[i];
    case MPCC_T_U8: return ((const uint8_t *)b)[i];
    case MPCC_T_BOOL: return ((const uint8_t *)b)[i] != 0;
    case MPCC_T_I16: return ((const int16_t *)b)[i];
    case MPCC_T_I32: return ((const int32_t *)b)[i];
    default: return ((const long long *)b)[i];
    }
}
/* float -> integer as TFLite's CAST: truncation, saturation to [lo, hi], NaN -> hi */
MPCC_DEV long long mpcc_sat_float(float f, long long lo, long long hi, float hi_excl) {
    if (f != f) return hi;
    if (f < (float)lo) return lo;
    if (f >= hi_excl) return hi;
    return (long long)f;
}
MPCC_DEV void mpcc_cast_one(const mpcc_elem_args &p, long long i, long long e) {
    const bool fl = p.type == MPCC_T_F32 || p.type == MPCC_T_F16;
    const float f = p.type == MPCC_T_F32 ? ((const float *)p.in0)[i] : p.type == MPCC_T_F16 ? mpcc_h2f(((const uint16_t *)p.in0)[i]) : 0.0f;
    const long long v = fl ? 0 : mpcc_ld_int(p.type, p.in0, i);
    const long long lmin = -9223372036854775807LL - 1, lmax = 9223372036854775807LL;
    switch (p.out_type) {
    case MPCC_T_F32: ((float *)p.out)[e] = fl ? f : (float)v; break;
    case MPCC_T_BOOL: ((uint8_t *)p.out)[e] = (uint8_t)(fl ? f != 0.0f : v != 0); break;
    case MPCC_T_I8: ((int8_t *)p.out)[e] = (int8_t)(fl ? mpcc_sat_float(f, -128, 127, 128.0f) : v); break;
    case MPCC_T_U8: ((uint8_t *)p.out)[e] = (uint8_t)(fl ? mpcc_sat_float(f, 0, 255, 256.0f) : v); break;
    case MPCC_T_I16: ((int16_t *)p.out)[e] = (int16_t)(fl ? mpcc_sat_float(f, -32768, 32767, 32768.0f) : v); break;
    case MPCC_T_I32:
        ((int32_t *)p.out)[e] = (int32_t)(fl ? mpcc_sat_float(f, -2147483647LL - 1, 2147483647LL, 2147483648.0f) : v);
        break;
    default: ((long long *)p.out)[e] = fl ? mpcc_sat_float(f, lmin, lmax, 9223372036854775808.0f) : v; break;
    }
}
MPCC_DEV void mpcc_elem_body(const mpcc_elem_args &p) {
    for (long long e = mpcc_tid(); e < p.n; e += mpcc_nthreads()) {
        long long r = e, o0 = 0, o1 = 0, o2 = 0;
        for (int d = p.rank - 1; d >= 0; d--) {
            long long i = r % p.dims[d];
            r /= p.dims[d];
            o0 += i * p.s0[d];
            o1 += i * p.s1[d];
            o2 += i * p.s2[d];
        }
        switch (p.op) {
        case MPCC_EL_CAST: mpcc_cast_one(p, o0, e); break;
        case MPCC_EL_ADD: case MPCC_EL_SUB: case MPCC_EL_MUL: {
            /* wrapping arithmetic, then the activation clamp */
            const unsigned long long a = (unsigned long long)mpcc_ld_int(p.type, p.in0, o0),
                                     b = (unsigned long long)mpcc_ld_int(p.type, p.in1, o1);
            unsigned long long w = p.op == MPCC_EL_ADD ? a + b : p.op == MPCC_EL_SUB ? a - b : a * b;
            long long v = p.type == MPCC_T_I32 ? (long long)(int32_t)(uint32_t)w : (long long)w;
            v = v < p.lo ? p.lo : v > p.hi ? p.hi : v;
            if (p.type == MPCC_T_I32) ((int32_t *)p.out)[e] = (int32_t)v;
            else ((long long *)p.out)[e] = v;
            break;
        }
        case MPCC_EL_AND: ((uint8_t *)p.out)[e] = ((const uint8_t *)p.in0)[o0] && ((const uint8_t *)p.in1)[o1]; break;
        case MPCC_EL_OR: ((uint8_t *)p.out)[e] = ((const uint8_t *)p.in0)[o0] || ((const uint8_t *)p.in1)[o1]; break;
        case MPCC_EL_NOT: ((uint8_t *)p.out)[e] = !((const uint8_t *)p.in0)[o0]; break;
        case MPCC_EL_SELECT: {
            const unsigned char *src = ((const uint8_t *)p.in0)[o0] ? (const unsigned char *)p.in1 + o1 * p.size
                                                                    : (const unsigned char *)p.in2 + o2 * p.size;
            unsigned char *dst = (unsigned char *)p.out + e * p.size;
            for (int k = 0; k < p.size; k++) dst[k] = src[k];
            break;
        }
        default: { /* comparisons -> bool */
            bool lt, eq;
            if (p.type == MPCC_T_F32) {
                const float a = ((const float *)p.in0)[o0], b = ((const float *)p.in1)[o1];
                lt = a < b, eq = a == b;
                if (a != a || b != b) { /* NaN: only != holds */
                    ((uint8_t *)p.out)[e] = p.op == MPCC_EL_NOT_EQUAL;
                    break;
                }
            } else {
                const long long a = mpcc_ld_int(p.type, p.in0, o0), b = mpcc_ld_int(p.type, p.in1, o1);
                lt = a < b, eq = a == b;
            }
            bool v;
            switch (p.op) {
            case MPCC_EL_LESS: v = lt; break;
            case MPCC_EL_GREATER: v = !lt && !eq; break;
            case MPCC_EL_GREATER_EQUAL: v = !lt; break;
            case MPCC_EL_LESS_EQUAL: v = lt || eq; break;
            case MPCC_EL_EQUAL: v = eq; break;
            default: v = !eq; break;
            }
            ((uint8_t *)p.out)[e] = v;
        }
        }
    }
}

MPCC_DEV void mpcc_gather_body(const mpcc_gather_args &p) {
    for (long long u = mpcc_tid(); u < p.total_units; u += mpcc_nthreads()) {
        long long within = u % p.inner_units, r = u / p.inner_units;
        const int c = (int)(r % p.coords);
        r /= p.coords;
        const int o = (int)(r % p.outer), b = (int)(r / p.outer);
        const long long ix = (long long)b * p.coords + c;
        const long long i = p.idx64 ? ((const long long *)p.idx)[ix] : (long long)((const int32_t *)p.idx)[ix];
        const bool ok = i >= 0 && i < p.axis_size;
        const long long src = ((((long long)b * p.outer + o) * p.axis_size + (ok ? i : 0)) * p.inner_units + within) * p.unit;
        const long long dst = u * p.unit;
        if (p.unit == 4) *(uint32_t *)(p.out + dst) = ok ? *(const uint32_t *)(p.in + src) : 0u;
        else if (p.unit == 2) *(uint16_t *)(p.out + dst) = ok ? *(const uint16_t *)(p.in + src) : (uint16_t)0;
        else p.out[dst] = ok ? p.in[src] : (unsigned char)0;
    }
}

#endif
