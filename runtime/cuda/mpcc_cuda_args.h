/* mpcc_cuda_args.h - the argument structs of mpcc's CUDA kernels (the runtime/cuda headers).
 *
 * Plain C structs, the same layout in host C (the NVRTC JIT path fills them in C99 and passes
 * them to cuLaunchKernel), in host C++ (nvcc-built code) and in device code: every kernel takes
 * one of them by value. */
#ifndef MPCC_CUDA_ARGS_H
#define MPCC_CUDA_ARGS_H

#if !defined(__CUDACC_RTC__) && !defined(MPCC_CUDA_CUH)
#include <stdint.h>
#endif

#define MPCC_MAX_RANK 8

#ifndef MPCC_MMA_MODES
#define MPCC_MMA_MODES
enum { MPCC_MMA_TF32 = 0, MPCC_MMA_3XTF32 = 1, MPCC_MMA_BF16 = 2, MPCC_MMA_F16 = 3 };
#endif

typedef struct mpcc_gemm_args {
    const float *a; long long lda, sa;   /* A: M x K row-major f32; sa = batch stride (elements), 0 = broadcast */
    const void *b; long long ldb, sb;    /* B: f32, or 16-bit bits (bf16 / f16 matching MODE) when b_half */
    int b_half;
    const float *bias;                   /* [N] or NULL */
    const float *res; long long ldr, sr; /* residual [M x N] added after act1, or NULL */
    float *c; long long ldc, sc;         /* C: M x N row-major f32 */
    int m, n, k;
    float act1_min, act1_max;            /* clamp after bias (+-INF for none) */
    int gelu;                            /* 0 none, 1 tanh approximation, 2 exact erf: after the clamp */
    float act2_min, act2_max;            /* clamp after adding res */
} mpcc_gemm_args;

typedef struct mpcc_gemm_s8_args {
    const int8_t *a; long long lda, sa;
    const int8_t *b; long long ldb, sb; /* B: N x K int8 (weights) */
    const int32_t *bias;                /* [N] (zero points folded in by the compiler) or NULL */
    const int32_t *mult, *shift;        /* [N] Q31 multiplier, shift (left if > 0) */
    int8_t *c; long long ldc, sc;
    int m, n, k;
    int32_t out_offset, qmin, qmax;
    int single_rounding;            /* 1: TFLite's single-rounding requantization (FULLY_CONNECTED), 0: gemmlowp's double rounding */
} mpcc_gemm_s8_args;

typedef struct mpcc_attn_args {
    const float *q, *k, *v;
    float *o;                    /* f32 tensors in the model's activation arena */
    int batch, heads, seq_q, seq_k; /* head_dim is the template parameter D (or hd below) */
    long long q_sb, q_sh, q_ss;  /* strides in elements: batch, head, row; a row's D elements are contiguous */
    long long k_sb, k_sh, k_ss, v_sb, v_sh, v_ss, o_sb, o_sh, o_ss;
    const float *mask;           /* additive mask (e.g. 0 / -1e9 padding mask), or NULL */
    long long m_sb, m_sh, m_sq, m_sk; /* its strides; 0 = broadcast along that axis */
    float scale;                 /* applied to Q.K^T before the mask */
    int causal;                  /* 1: key j > query i + (seq_k - seq_q) masked out */
    /* Boolean masks (a fused SELECT_V2): cond = bmask0[..] && bmask1[..] (uint8, nonzero = true; set
     * bmask1 = bmask0 for one mask). bmode 1 (KEEP): score where cond, else `fill`; bmode 2 (FILL):
     * `fill` where cond, else the score. 0: no boolean mask. The filled value replaces the scaled
     * score and then goes through the softmax. */
    const unsigned char *bmask0, *bmask1;
    long long b0_sb, b0_sh, b0_sq, b0_sk, b1_sb, b1_sh, b1_sq, b1_sk; /* their strides (elements) */
    int bmode;
    float fill;
    int hd; /* mpcc_attn_body<.., .., .., true>: the real head dimension below D (the rest of each row reads as zeros, is not stored) */
} mpcc_attn_args;

typedef struct mpcc_copy_args {
    const unsigned char *in;
    unsigned char *out;
    int rank, unit;
    int dims[MPCC_MAX_RANK];
    long long in_strides[MPCC_MAX_RANK], out_strides[MPCC_MAX_RANK];
    long long in_offset, out_offset, run, total_units; /* total_units = points * run / unit */
} mpcc_copy_args;

/* Fill n elements of `unit` bytes with one value (PAD's border). */
typedef struct mpcc_fill_args {
    unsigned char *out;
    long long n;
    int unit;
    uint32_t value;
} mpcc_fill_args;

typedef struct mpcc_binary_args {
    const float *a, *b;
    float *out;
    int op, rank;
    int dims[MPCC_MAX_RANK];
    int s1[MPCC_MAX_RANK], s2[MPCC_MAX_RANK]; /* element strides, 0 where broadcast */
    long long n;
    float act_min, act_max;
} mpcc_binary_args;

typedef struct mpcc_unary_args {
    const float *in;
    float *out;
    long long n;
    int op;
    float lo, hi, alpha; /* clamp bounds; LEAKY_RELU slope */
} mpcc_unary_args;

/* ---- SOFTMAX over the last axis: out = exp(beta (x - max)) / sum ---- */
typedef struct mpcc_rows_args {
    const float *in;
    float *out;
    const float *gamma, *beta_vec; /* LayerNorm scale/offset per column, or NULL */
    int rows, cols;
    float beta, eps;
} mpcc_rows_args;

/* MEAN / SUM / REDUCE_MAX / REDUCE_MIN over any set of axes: one thread per output walks its reduced
 * sub-box in row-major order (the reference's order, so sums round the same). */
typedef struct mpcc_mean_args {
    const float *in;
    float *out;
    int rank, out_count, reduce_count;
    int dims[MPCC_MAX_RANK], reduced[MPCC_MAX_RANK];
    int op; /* 0 MEAN, 1 SUM, 2 REDUCE_MAX, 3 REDUCE_MIN */
} mpcc_mean_args;

typedef struct mpcc_conv_args {
    const float *in, *filter, *bias, *res;
    const uint16_t *filter16;           /* 16-bit filter (--precision bf16/fp16) instead of filter: */
    int half;                           /* 1 bf16, 2 f16 (inputs rounded to it, float sums), 0 f32 */
    float *out;
    int batches, in_h, in_w, in_c, out_h, out_w, out_c, filter_h, filter_w;
    int stride_h, stride_w, dil_h, dil_w, pad_h, pad_w, depth_mult;
    float act1_min, act1_max, act2_min, act2_max;
} mpcc_conv_args;

/* ---- AVERAGE_POOL_2D / MAX_POOL_2D (NHWC; padding cells excluded from the average, as TFLite) ---- */
typedef struct mpcc_pool_args {
    const float *in;
    float *out;
    int batches, in_h, in_w, channels, out_h, out_w, filter_h, filter_w, stride_h, stride_w, pad_h, pad_w;
    int is_max;
    float act_min, act_max;
} mpcc_pool_args;

typedef struct mpcc_cast_args {
    const void *in;
    void *out;
    long long n;
    int mode;
    float scale;
    int zero_point;
} mpcc_cast_args;

/* ---- integer / bool elementwise with broadcasting of up to 3 inputs (CAST, int32/int64 ADD SUB MUL,
 * comparisons, LOGICAL_*, SELECT) ---- dtype codes as the C runtime's RT_* */
enum { MPCC_T_F32 = 0, MPCC_T_F16 = 1, MPCC_T_I8 = 3, MPCC_T_U8 = 4, MPCC_T_I16 = 5, MPCC_T_I32 = 6, MPCC_T_I64 = 7,
       MPCC_T_BOOL = 8 };
typedef struct mpcc_elem_args {
    const void *in0, *in1, *in2;
    void *out;
    int op;                  /* MPCC_EL_* */
    int type, out_type;      /* dtype of in0 (and in1); of the output (CAST) */
    int size;                /* SELECT: bytes per element of in1, in2, out */
    int rank;
    long long n;             /* output elements */
    int dims[MPCC_MAX_RANK];
    long long s0[MPCC_MAX_RANK], s1[MPCC_MAX_RANK], s2[MPCC_MAX_RANK]; /* element strides, 0 where broadcast */
    long long lo, hi;        /* integer ADD/SUB/MUL output clamp */
} mpcc_elem_args;

/* ---- GATHER: out[b][o][c][:] = in[b][o][idx[b][c]][:], zeros for an index outside [0, axis_size) ---- */
typedef struct mpcc_gather_args {
    const unsigned char *in;
    const void *idx;         /* int32, or int64 when idx64 */
    unsigned char *out;
    int idx64, unit;         /* unit: 4, 2 or 1 bytes, dividing a slice */
    int batch, outer, axis_size, coords;
    long long inner_units, total_units; /* units per gathered slice; in the output */
} mpcc_gather_args;

/* ---- int8 (TFLite-quantized) kernels: runtime/cuda/mpcc_cuda_int8.cuh ---- */

/* The requantization of a quantized ADD / SUB / SQUARED_DIFFERENCE (TFLite's ArithmeticParams). */
typedef struct mpcc_s8_addq {
    int32_t in1_offset, in2_offset, out_offset, left_shift;
    int32_t in1_mult, in1_shift, in2_mult, in2_shift, out_mult, out_shift;
    int32_t qmin, qmax;
} mpcc_s8_addq;

/* CONV_2D / DEPTHWISE_CONV_2D int8 (NHWC input; filter OHWI, or [1, fh, fw, out_c] when
 * depth_mult > 0), per-channel requantization, optional fused residual ADD (res != NULL). */
typedef struct mpcc_conv_s8_args {
    const int8_t *in, *filter;
    const int32_t *bias;                /* [out_c] or NULL */
    const int32_t *mult, *shift;        /* [out_c] */
    const int8_t *res;                  /* the fused ADD's other input (same shape as out), or NULL */
    int8_t *out;
    int batches, in_h, in_w, in_c, out_h, out_w, out_c, filter_h, filter_w;
    int stride_h, stride_w, dil_h, dil_w, pad_h, pad_w, depth_mult;
    int32_t in_offset, out_offset, qmin, qmax;
    int conv_is_lhs;                    /* the convolution was the ADD's first input */
    mpcc_s8_addq add;
} mpcc_conv_s8_args;

/* Broadcast binary int8 ops: op is one of MPCC_S8_ADD.. (mpcc_cuda_int8.cuh). */
typedef struct mpcc_binary_s8_args {
    const int8_t *a, *b;
    int8_t *out;
    int op, rank;
    int dims[MPCC_MAX_RANK];
    int s1[MPCC_MAX_RANK], s2[MPCC_MAX_RANK]; /* element strides, 0 where broadcast */
    long long n;
    mpcc_s8_addq q;                     /* MUL: in offsets, out_mult/out_shift, out_offset, qmin/qmax */
} mpcc_binary_s8_args;

typedef struct mpcc_pool_s8_args {
    const int8_t *in;
    int8_t *out;
    int batches, in_h, in_w, channels, out_h, out_w;
    int filter_h, filter_w, stride_h, stride_w, pad_h, pad_w;
    int is_max;
    int32_t qmin, qmax;
} mpcc_pool_s8_args;

typedef struct mpcc_mean_s8_args {
    const int8_t *in;
    int8_t *out;
    int rank, out_count, reduce_count;
    int dims[MPCC_MAX_RANK], reduced[MPCC_MAX_RANK];
    int32_t in_zp, out_zp, mult, shift;
    int op;                             /* 0 MEAN (requantized), 1 REDUCE_MAX, 2 REDUCE_MIN (raw values) */
} mpcc_mean_s8_args;

/* out = lut[(uint8_t)in] (LOGISTIC / TANH / GELU int8: the compiler's 256-entry table). */
typedef struct mpcc_lut_s8_args {
    const int8_t *in, *lut;
    int8_t *out;
    long long n;
} mpcc_lut_s8_args;

/* out = clamp(out_zp + MultiplyByQuantizedMultiplier(in - in_zp, mult, shift), qmin, qmax):
 * RELU / RELU6 / RELU_N1_TO_1 int8, QUANTIZE int8 -> int8 (requantization). */
typedef struct mpcc_requant_s8_args {
    const int8_t *in;
    int8_t *out;
    long long n;
    int32_t in_zp, out_zp, mult, shift, qmin, qmax;
} mpcc_requant_s8_args;

/* SOFTMAX int8 -> int8 over the last axis (out scale 1/256, zero point -128; or int8 -> int16 into
 * out16: out scale 1/65536, zero point -32768): TFLite's fixed-point algorithm; exp_q0[d] = exp of the input difference -d in Q0.31 (the compiler's
 * table, 0 where -d < diff_min). */
typedef struct mpcc_softmax_s8_args {
    const int8_t *in;
    int8_t *out;
    const int32_t *exp_q0;              /* [256] */
    int rows, depth;
    int32_t diff_min;
    int16_t *out16;                     /* int8 -> int16 (zero point -32768): written instead of out */
} mpcc_softmax_s8_args;

/* ---- layout ops: runtime/cuda/mpcc_cuda_layout.cuh ---- */

/* PAD / PADV2: phase 0 fills the whole output with the pad value, phase 1 copies the input
 * into its interior box (two launches of one kernel). */
typedef struct mpcc_pad_args {
    mpcc_fill_args fill;
    mpcc_copy_args copy;
    int phase;
} mpcc_pad_args;

/* PRELU: out = x >= 0 ? x : alpha[idx . astride] * x over an output of `rank` dims; int8
 * (s8 = 1): TFLite's two requantizations (rt_prelu_i8). */
typedef struct mpcc_prelu_args {
    const void *in, *alpha;
    void *out;
    long long n;
    int rank;
    int dims[MPCC_MAX_RANK], astride[MPCC_MAX_RANK];
    int32_t in_offset, alpha_offset, out_offset, mult_1, shift_1, mult_2, shift_2;
} mpcc_prelu_args;

/* RESIZE_BILINEAR / RESIZE_NEAREST_NEIGHBOR (NHWC). The compiler computes the source
 * coordinates with the reference's own arithmetic: ytab[3 * oy .. +2] = (y0, y1, dy) and
 * xtab[3 * ox .. +2] = (x0, x1, dx); dy/dx are float bits (f32) or 1/1024 units (int8);
 * nearest uses y0/x0 and copies elem_size-byte elements. */
typedef struct mpcc_resize_args {
    const void *in;
    void *out;
    const int32_t *ytab, *xtab;
    long long n; /* output elements */
    int batches, in_h, in_w, channels, out_h, out_w, elem_size;
} mpcc_resize_args;

/* TRANSPOSE_CONV (NHWC input, filter [out_c, fh, fw, in_c]): one thread per output element
 * gathers the taps that scatter onto it. int8: int32 sums of (in + in_offset) * w, per-channel
 * requantization (rt_transpose_conv_i8). */
typedef struct mpcc_tconv_args {
    const void *in, *filter, *bias;
    void *out;
    const int32_t *mult, *shift;
    long long n;
    int batches, in_h, in_w, in_c, out_h, out_w, out_c, filter_h, filter_w, stride_h, stride_w, pad_h, pad_w;
    float act_min, act_max;
    int32_t in_offset, out_offset, qmin, qmax;
} mpcc_tconv_args;

/* ARG_MAX over the middle axis of [outer, axis, inner] (type: 0 f32, 3 int8, 4 uint8, 5 int16,
 * 6 int32, 7 int64; out int32 or int64 when out64), one thread per output; L2_NORMALIZATION and
 * LOG_SOFTMAX f32 over rows of `axis` elements (inner = 1), one thread per row. */
typedef struct mpcc_rowop_args {
    const void *in;
    void *out;
    int outer, axis, inner, type, out64;
} mpcc_rowop_args;

#include "mpcc_cuda_args_s16.h"
#include "mpcc_cuda_args_misc.h"
#include "mpcc_cuda_args_rnn.h"
#include "mpcc_cuda_args_hybrid.h"

#endif
