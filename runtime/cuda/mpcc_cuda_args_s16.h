/* mpcc_cuda_args_s16.h - the argument structs of mpcc_cuda_s16.cuh (int16 kernels, compile-time
 * lookup tables, SUM/BATCH_MATMUL int8, GATHER_ND, DYNAMIC_UPDATE_SLICE). Included by mpcc_cuda_args.h: the same plain C
 * layout in host C (the NVRTC JIT path), host C++ and device code. */
#ifndef MPCC_CUDA_ARGS_S16_H
#define MPCC_CUDA_ARGS_S16_H

/* out[i] = lut[a[i] - lo] (one input), or lut[(a - lo_a) * 256 + (b - lo_b)] (two int8 inputs,
 * broadcast by element strides s1 / s2 over dims): the op's own reference kernel evaluated by
 * the compiler on every input value. in16: int16 input, else int8; out_bytes: 1, 2 or 4 (int8,
 * int16, int32 output). */
typedef struct mpcc_lut_x_args {
    const void *a, *b;                  /* b: NULL for one input */
    void *out;
    const void *lut;
    long long n;
    int in16, out_bytes, rank;
    int dims[MPCC_MAX_RANK];
    int s1[MPCC_MAX_RANK], s2[MPCC_MAX_RANK];
} mpcc_lut_x_args;

/* Broadcast ADD / SUB / MUL int16 -> int16: s8.op, s8.q, s8.rank, s8.dims, s8.s1, s8.s2 and
 * s8.n as for int8 (s8.a, s8.b, s8.out unused); pot: TFLite's power-of-two-scale ADD/SUB
 * (zero points 0, inputs shifted right by -q.in1_shift / -q.in2_shift, clamped). */
typedef struct mpcc_binary_s16_args {
    mpcc_binary_s8_args s8;
    const int16_t *a, *b;
    int16_t *out;
    int pot;
} mpcc_binary_s16_args;

/* SUM int8 (rt_sum_i8): the int32 sum of mean_s8_args m (m.op 0), then
 * clamp(out_zp + (int32)roundf(sum * scale + bias)) in float as the reference (no FMA). */
typedef struct mpcc_sum_s8_args {
    mpcc_mean_s8_args m;
    float scale, bias;
} mpcc_sum_s8_args;

/* BATCH_MATMUL int8 (rt_batch_matmul_i8): out[b][i][j] = requant(sum_k (a + a_off)(b + b_off)),
 * element strides as rt_bmm_params (batch strides 0 where broadcast). */
typedef struct mpcc_bmm_s8_args {
    const int8_t *a, *b;
    int8_t *out;
    long long count;                    /* batches * m * n */
    int batch_rank, m, n, k;
    int batch_dims[MPCC_MAX_RANK], a_bs[MPCC_MAX_RANK], b_bs[MPCC_MAX_RANK];
    int a_si, a_sk, b_sk, b_sj;
    int32_t a_off, b_off, out_off, mult, shift;
} mpcc_bmm_s8_args;

/* BATCH_MATMUL f32 in any layout (adj_x, adj_y, batch broadcasts the tiled GEMM cannot walk):
 * out[b][i][j] = sum_k a[..i, k] * b[..k, j] in f32, element strides as rt_bmm_params. */
typedef struct mpcc_bmm_f32_args {
    const float *a, *b;
    float *out;
    long long count;                    /* batches * m * n */
    int batch_rank, m, n, k;
    int batch_dims[MPCC_MAX_RANK], a_bs[MPCC_MAX_RANK], b_bs[MPCC_MAX_RANK];
    int a_si, a_sk, b_sk, b_sj;
} mpcc_bmm_f32_args;

/* GATHER_ND (rt_gather_nd_i32 / _i64): output byte e belongs to slice e / slice_bytes, whose
 * index tuple idx[s][0 .. depth) addresses params; a tuple outside params gives zero bytes. */
typedef struct mpcc_gather_nd_args {
    const unsigned char *in;
    const void *idx;
    unsigned char *out;
    long long total, slice_bytes;       /* output bytes, bytes per slice */
    int idx64, depth;
    int dims[MPCC_MAX_RANK];
    long long stride_bytes[MPCC_MAX_RANK];
} mpcc_gather_nd_args;

/* DYNAMIC_UPDATE_SLICE (rt_dynamic_update_slice_*): out = in, with upd written at the start
 * indices (read on the device, each clamped to [0, in_dims - upd_dims]); out may be in. */
typedef struct mpcc_dus_args {
    const unsigned char *in, *upd;
    const void *start;
    unsigned char *out;
    long long total;                    /* operand bytes */
    int start64, rank, elem_size;
    long long in_dims[MPCC_MAX_RANK], upd_dims[MPCC_MAX_RANK];
} mpcc_dus_args;

/* QUANTIZE int32 -> int8 / int16 / int32 (rt_quantize_requant, per tensor):
 * out = clamp(out_zp + MultiplyByQuantizedMultiplier(in - in_zp, mult, shift), qmin, qmax). */
typedef struct mpcc_requant_i32_args {
    const int32_t *in;
    void *out;
    long long n;
    int out_bytes;
    int32_t in_zp, out_zp, mult, shift, qmin, qmax;
} mpcc_requant_i32_args;

#endif
