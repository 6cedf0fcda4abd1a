/* mpcc_cuda_s16.cuh - mpcc's CUDA kernels for int16 ops, compile-time lookup tables and PAD:
 *
 *   mpcc_lut_x_body      out = lut[in]: any elementwise op of one int8 / int16 input (LEAKY_RELU,
 *                        LOGISTIC, TANH, EXP, LOG, RSQRT, SQRT, ABS, HARD_SWISH, RELU_0_TO_1,
 *                        QUANTIZE between int8 and int16), or of two broadcast int8 inputs (DIV);
 *                        the compiler fills the table by running the op's reference kernel on
 *                        every input value, so the result is the reference's, bit for bit
 *   mpcc_binary_s16_body broadcast ADD / SUB / MUL int16 (the int8 kernel's arithmetic, and
 *                        TFLite's power-of-two-scale ADD / SUB)
 *   mpcc_pad_body        PAD / PADV2 (one thread per output element)
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
        if (p.out16) ((int16_t *)p.out)[e] = ((const int16_t *)p.lut)[at];
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

MPCC_DEV void mpcc_pad_body(const mpcc_pad_args &p) {
    for (long long e = mpcc_tid(); e < p.n; e += mpcc_nthreads()) {
        long long r = e, src = 0, inner = 1;
        int inside = 1;
        for (int d = p.rank - 1; d >= 0; d--) {
            const int i = (int)(r % p.out_dims[d]) - p.lo[d];
            r /= p.out_dims[d];
            if (i < 0 || i >= p.in_dims[d]) inside = 0;
            src += (long long)i * inner;
            inner *= p.in_dims[d];
        }
        unsigned long long v = p.fill;
        const unsigned char *from = inside ? p.in + src * p.unit : p.value;
        if (from) {
            v = 0;
            for (int k = 0; k < p.unit; k++) v |= (unsigned long long)from[k] << (8 * k);
        }
        for (int k = 0; k < p.unit; k++) p.out[e * p.unit + k] = (unsigned char)(v >> (8 * k));
    }
}

#endif
