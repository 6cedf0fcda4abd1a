/* mpcc_cuda_s16.cuh - mpcc's CUDA kernels for int16 ops, compile-time lookup tables and
 * a few more integer / data-movement ops:
 *
 *   mpcc_lut_x_body      out = lut[in]: any elementwise op of one int8 / int16 input (LEAKY_RELU,
 *                        LOGISTIC, TANH, EXP, LOG, RSQRT, SQRT, ABS, HARD_SWISH, RELU_0_TO_1,
 *                        QUANTIZE between int8 and int16), or of two broadcast int8 inputs (DIV);
 *                        the compiler fills the table by running the op's reference kernel on
 *                        every input value, so the result is the reference's, bit for bit
 *   mpcc_binary_s16_body broadcast ADD / SUB / MUL int16 (the int8 kernel's arithmetic, and
 *                        TFLite's power-of-two-scale ADD / SUB)
 *   mpcc_sum_s8_body     SUM int8 (the reference's float rescale, never fused into an FMA)
 *   mpcc_bmm_s8_body     BATCH_MATMUL int8 (one thread per output element)
 *   mpcc_bmm_f32_body    BATCH_MATMUL f32 in a layout the tiled GEMM has none for (adj_x; same scheme)
 *   mpcc_reduce_bool_body  REDUCE_ANY / REDUCE_ALL
 *   mpcc_gather_nd_body  GATHER_ND (any dtype: one thread per output byte)
 *   mpcc_dus_body        DYNAMIC_UPDATE_SLICE (any dtype, start indices read on the device)
 *   mpcc_requant_i32_body  QUANTIZE int32 -> int8 / int16 / int32
 *
 * Written against mpcc_cuda.cuh and mpcc_cuda_int8.cuh alone (nvcc, NVRTC, the CPU emulator).
 * Grid-stride bodies: any grid is correct. */
#ifndef MPCC_CUDA_S16_CUH
#define MPCC_CUDA_S16_CUH

#include "mpcc_cuda.cuh"
#include "mpcc_cuda_args.h"
#include "mpcc_cuda_int8.cuh"

/* Offsets of element e of a broadcast op's two inputs (element strides, 0 where broadcast). */
MPCC_DEV void mpcc_bcast_offsets(long long e, int rank, const int *dims, const int *s1, const int *s2, long long *o1,
                                 long long *o2) {
    long long r = e, a = 0, b = 0;
    for (int d = rank - 1; d >= 0; d--) {
        const long long i = r % dims[d];
        r /= dims[d];
        a += i * s1[d];
        b += i * s2[d];
    }
    *o1 = a, *o2 = b;
}

MPCC_DEV void mpcc_lut_x_body(const mpcc_lut_x_args &p) {
    for (long long e = mpcc_tid(); e < p.n; e += mpcc_nthreads()) {
        long long o1 = e, o2 = 0, at;
        if (p.b) mpcc_bcast_offsets(e, p.rank, p.dims, p.s1, p.s2, &o1, &o2);
        if (p.in16) at = (long long)((const int16_t *)p.a)[o1] + 32768;
        else at = (long long)((const int8_t *)p.a)[o1] + 128;
        if (p.b) at = at * 256 + ((const int8_t *)p.b)[o2] + 128;
        if (p.out_bytes == 4) ((int32_t *)p.out)[e] = ((const int32_t *)p.lut)[at];
        else if (p.out_bytes == 2) ((int16_t *)p.out)[e] = ((const int16_t *)p.lut)[at];
        else ((int8_t *)p.out)[e] = ((const int8_t *)p.lut)[at];
    }
}

MPCC_DEV void mpcc_binary_s16_body(const mpcc_binary_s16_args &p) {
    const mpcc_binary_s8_args &s = p.s8;
    for (long long e = mpcc_tid(); e < s.n; e += mpcc_nthreads()) {
        long long o1, o2;
        mpcc_bcast_offsets(e, s.rank, s.dims, s.s1, s.s2, &o1, &o2);
        const int32_t a = p.a[o1], b = p.b[o2];
        int32_t v;
        if (p.pot) { /* rt_addsub_pot_i16 */
            const int32_t ra = mpcc_rdbpot(a, -s.q.in1_shift), rb = mpcc_rdbpot(b, -s.q.in2_shift);
            v = mpcc_s8_clamp(s.op == MPCC_S8_SUB ? ra - rb : ra + rb, s.q.qmin, s.q.qmax);
        } else {
            v = mpcc_s8_binary_apply(s, a, b);
        }
        p.out[e] = (int16_t)v;
    }
}

/* a * b and a + b rounded on their own (never fused into an FMA: the reference's float steps). */
#ifdef MPCC_CUDA_EMU
static inline float mpcc_fmul_rn(float a, float b) { return a * b; }
static inline float mpcc_fadd_rn(float a, float b) { return a + b; }
#else
MPCC_DEV float mpcc_fmul_rn(float a, float b) { return __fmul_rn(a, b); }
MPCC_DEV float mpcc_fadd_rn(float a, float b) { return __fadd_rn(a, b); }
#endif

MPCC_DEV void mpcc_sum_s8_body(const mpcc_sum_s8_args &p) {
    for (long long o = mpcc_tid(); o < p.m.out_count; o += mpcc_nthreads()) {
        float r = roundf(mpcc_fadd_rn(mpcc_fmul_rn((float)mpcc_reduce_s8_at(p.m, o), p.scale), p.bias));
        r = r > 2147483520.0f ? 2147483520.0f : r < -2147483648.0f ? -2147483648.0f : r;
        p.m.out[o] = (int8_t)mpcc_s8_clamp(mpcc_wrap_add((int32_t)r, p.m.out_zp), -128, 127);
    }
}

/* Output element e of a BATCH_MATMUL (args P: mpcc_bmm_s8_args or mpcc_bmm_f32_args): the offsets of
 * its row of A and column of B. */
template <class P> MPCC_DEV void mpcc_bmm_at(const P &p, long long e, long long *ao, long long *bo) {
    const int j = (int)(e % p.n), i = (int)(e / p.n % p.m);
    long long bt = e / ((long long)p.m * p.n), lo = 0, ro = 0;
    for (int d = p.batch_rank - 1; d >= 0; d--) {
        const long long x = bt % p.batch_dims[d];
        bt /= p.batch_dims[d];
        lo += x * p.a_bs[d];
        ro += x * p.b_bs[d];
    }
    *ao = lo + (long long)i * p.a_si, *bo = ro + (long long)j * p.b_sj;
}

MPCC_DEV void mpcc_bmm_s8_body(const mpcc_bmm_s8_args &p) {
    for (long long e = mpcc_tid(); e < p.count; e += mpcc_nthreads()) {
        long long ao, bo;
        mpcc_bmm_at(p, e, &ao, &bo);
        const int8_t *a = p.a + ao, *b = p.b + bo;
        int32_t acc = 0;
        for (int k = 0; k < p.k; k++)
            acc = mpcc_wrap_add(acc, ((int32_t)a[(long long)k * p.a_sk] + p.a_off) * ((int32_t)b[(long long)k * p.b_sk] + p.b_off));
        p.out[e] = (int8_t)mpcc_s8_clamp(mpcc_s8_requant(acc, p.mult, p.shift) + p.out_off, -128, 127);
    }
}

MPCC_DEV void mpcc_bmm_f32_body(const mpcc_bmm_f32_args &p) {
    for (long long e = mpcc_tid(); e < p.count; e += mpcc_nthreads()) {
        long long ao, bo;
        mpcc_bmm_at(p, e, &ao, &bo);
        const float *a = p.a + ao, *b = p.b + bo;
        float acc = 0.0f;
        for (int k = 0; k < p.k; k++) acc += a[(long long)k * p.a_sk] * b[(long long)k * p.b_sk];
        p.out[e] = acc;
    }
}

/* REDUCE_ANY (m.op 1, the maximum) / REDUCE_ALL (m.op 2, the minimum) of bool bytes (0 or 1):
 * an empty reduction gives -128 / 127, clamped to false / true as the reference's start values. */
MPCC_DEV void mpcc_reduce_bool_body(const mpcc_mean_s8_args &p) {
    for (long long o = mpcc_tid(); o < p.out_count; o += mpcc_nthreads())
        p.out[o] = (int8_t)mpcc_s8_clamp(mpcc_reduce_s8_at(p, o), 0, 1);
}

MPCC_DEV void mpcc_gather_nd_body(const mpcc_gather_nd_args &p) {
    for (long long e = mpcc_tid(); e < p.total; e += mpcc_nthreads()) {
        const long long s = e / p.slice_bytes;
        long long src = e % p.slice_bytes;
        int ok = 1;
        for (int j = 0; j < p.depth; j++) {
            const long long i = p.idx64 ? ((const long long *)p.idx)[s * p.depth + j] : ((const int *)p.idx)[s * p.depth + j];
            if (i < 0 || i >= p.dims[j]) ok = 0;
            else src += i * p.stride_bytes[j];
        }
        p.out[e] = ok ? p.in[src] : 0;
    }
}

MPCC_DEV void mpcc_dus_body(const mpcc_dus_args &p) {
    for (long long e = mpcc_tid(); e < p.total; e += mpcc_nthreads()) {
        long long r = e / p.elem_size, u = 0, inner = 1;
        int inside = 1;
        for (int j = p.rank - 1; j >= 0; j--) {
            const long long c = r % p.in_dims[j], hi = p.in_dims[j] - p.upd_dims[j];
            r /= p.in_dims[j];
            long long st = p.start64 ? ((const long long *)p.start)[j] : ((const int *)p.start)[j];
            st = st < 0 ? 0 : st > hi ? hi : st;
            if (c < st || c >= st + p.upd_dims[j]) inside = 0;
            u += (c - st) * inner;
            inner *= p.upd_dims[j];
        }
        p.out[e] = inside ? p.upd[u * p.elem_size + e % p.elem_size] : p.in[e];
    }
}

MPCC_DEV void mpcc_requant_i32_body(const mpcc_requant_i32_args &p) {
    for (long long e = mpcc_tid(); e < p.n; e += mpcc_nthreads()) {
        const int32_t x = (int32_t)((uint32_t)p.in[e] - (uint32_t)p.in_zp);
        long long q = (long long)mpcc_s8_requant(x, p.mult, p.shift) + p.out_zp;
        q = q < p.qmin ? p.qmin : q > p.qmax ? p.qmax : q;
        if (p.out_bytes == 4) ((int32_t *)p.out)[e] = (int32_t)q;
        else if (p.out_bytes == 2) ((int16_t *)p.out)[e] = (int16_t)q;
        else ((int8_t *)p.out)[e] = (int8_t)q;
    }
}

#endif
