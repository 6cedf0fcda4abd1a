/* rt_opt.h - optimized kernels (prefix rt_opt_) called by scheduled code.
 *
 * mpcc's scheduler (compiler/passes/pass_schedule.c) lowers CONV_2D,
 * FULLY_CONNECTED and DEPTHWISE_CONV_2D to the few kernel classes here and
 * packs their weights at compile time into the layouts below, so nothing is
 * packed or allocated at run time. The reference kernels (runtime/kernels)
 * stay the oracle: every kernel here gives bit-identical integer results and
 * f32 results equal up to summation order.
 *
 * Vector code uses GCC/Clang vector extensions plus FMA/AVX2 intrinsics when
 * the compiler targets them (__FMA__, __AVX2__); without them a plain C99
 * path computes the same values (integers bit-identical). Build with
 * -O3 -march=native (or the target's -march) for speed.
 *
 * Packed layouts (NR = RT_OPT_NR output channels per panel, N padded up to a
 * multiple of NR with zero weights):
 *   f32 GEMM: panel j holds B[k][j*NR + c] at [j][k][c]        (K x NR floats)
 *   s8 GEMM:  int8 weights, panel j holds B[k][j*NR + c] at [j][k/4][c][k%4]
 *             (K padded to a multiple of 4 with zeros), for byte-quad dot
 *             products (vpdpbusd; widened to int16 pairs without VNNI)
 * Bias, multiplier and shift arrays are padded to the same N.
 * s8 GEMM bias is pre-folded: bias[n] + (in_offset - 128) * sum_k B[k][n]
 * (the kernel multiplies activations + 128, i.e. 0..255, exactly). int8
 * kernels convert `rows` rows of A at a time into scratch (rows * K4 bytes
 * of a + 128, K4 = K rounded up to a multiple of 4). */
#ifndef MPCC_RT_OPT_H
#define MPCC_RT_OPT_H

#include <stddef.h>
#include <stdint.h>

#include "mpcc_rt.h" /* rt_bmm_params, RT_MAX_RANK */

#ifdef __cplusplus
extern "C" {
#endif

#define RT_OPT_NR 16

/* Requantization as TFLite's conv (double rounding) or FC (single rounding), or mpcc's float form
 * (rt_requant_float with the per-column factors fscale: int8 ops quantized by mpcc --precision int8). */
enum { RT_OPT_ROUND_DOUBLE = 0, RT_OPT_ROUND_SINGLE = 1, RT_OPT_ROUND_FLOAT = 2 };

/* C[m][n] = epilogue(bias[n] + sum_k A[m][k] * B[k][n]), A and C row-major. */
typedef struct rt_opt_gemm_params {
    int32_t m, n, k;
    int32_t lda, ldc;                   /* row strides in elements */
    float act_min, act_max;             /* f32 clamp */
    int32_t out_offset;                 /* s8: output zero point */
    int32_t act_qmin, act_qmax;         /* s8: output clamp */
    int32_t rounding;                   /* s8: RT_OPT_ROUND_* */
    const int32_t *mult, *shift;        /* s8: per column, padded */
    const float *fscale;                /* s8, RT_OPT_ROUND_FLOAT: per column, padded */
    int32_t out_f32;                    /* s8 with RT_OPT_ROUND_FLOAT: C holds floats, sum x fscale clamped to
                                         * [act_min, act_max] (rt_opt_gemm_s8_f32) */
    const float *residual;              /* out_f32: set by rt_opt_gemm_s8_f32 on its copy of the params */
    intptr_t res_off;                   /* and its distance in bytes from C (C's layout) */
    int32_t rows;                       /* s8: A rows widened per block (scratch) */
    int32_t slots;                      /* scratch copies, one per thread (>= 1) */
    int64_t slot_bytes;                 /* bytes of one copy */
    int32_t f32_inputs;                 /* 16-bit weights (rt_opt_fc_half), 1: multiply the f32 inputs as they are,
                                         * never rounded to the weights' type (float16 weights a model stores, kept
                                         * 16-bit by pass fold_dequantize: the float model's products) */
    int32_t a64_init;                   /* s8, 1: the packed bias also holds 128 x each column's weight sum
                                         * (pass schedule for --isa armv8a / armv8.2a+dotprod): it is where
                                         * runtime/arm64's tiles start their int8 x int8 sums; the portable
                                         * kernel takes the term off again */
} rt_opt_gemm_params;

/* Threads: kernels taking `par` split their work into min(par->threads,
 * slots) tasks (see mpcc_parallel.h); task t uses scratch copy t (slots 0:
 * the kernel needs no scratch). NULL par runs on the calling thread. */
static inline int32_t rt_opt_tasks(const mpcc_parallel *par, int32_t slots) {
    int32_t t = par && par->run && par->threads > 1 ? par->threads : 1;
    return slots <= 0 || t < slots ? t : slots; /* slots <= 0: no scratch, no limit */
}

/* Task t's share [*lo, *hi) of `total` blocks, contiguous: the rows a task writes are then the rows
 * the same task reads in the next kernel, which splits its rows the same way (the depthwise and fused
 * kernels' row splits are contiguous too), so they stay in that core's cache. */
static inline void rt_opt_task_share(int32_t total, int32_t t, int32_t tasks, int32_t *lo, int32_t *hi) {
    *lo = (int32_t)((int64_t)total * t / tasks);
    *hi = (int32_t)((int64_t)total * (t + 1) / tasks);
}

/* Convolution (groups == 1) as GEMM over im2col rows: M = out_h * out_w per
 * image, K = filter_h * filter_w * in_c. `direct` (1x1, stride 1, no padding)
 * reads the input rows in place (int8: widened `rows` at a time); otherwise
 * `rows` patch rows at a time are gathered into the scratch buffer
 * (f32: rows * K floats; int8: rows * K4 bytes). */
typedef struct rt_opt_conv_params {
    rt_opt_gemm_params gemm;
    int32_t batches, in_h, in_w, in_c, out_h, out_w;
    int32_t filter_h, filter_w, stride_h, stride_w, dil_h, dil_w, pad_h, pad_w;
    int32_t direct, rows;
    int32_t pad_value;                  /* s8: value of out-of-image taps (input zero point) */
    int32_t in_type, out_type, other_type; /* 16-bit weights only: storage types (RT_F32 = 0, RT_BF16, RT_F16) of
                                           * the input, the output and a fused ADD's other input */
} rt_opt_conv_params;

/* An int8 convolution's zero-padded image (its scratch slot holds rows * K4 im2col bytes, then this many):
 * with padding, unit dilation and a padded image of at most 16 KiB (64 KiB where rt_opt_conv_s8_runs),
 * the patch rows are gathered from a copy of the image inside its padding, none of them cut by an edge;
 * 0 where not used. Where rt_opt_conv_s8_runs, AVX512-VNNI builds read the patches in place, from the
 * input or (with padding) from the padded copy at the start of the slot, and gather no im2col rows. */
int64_t rt_opt_conv_s8_padded_bytes(int32_t in_h, int32_t in_w, int32_t in_c, int32_t out_h, int32_t out_w,
                                    int32_t filter_h, int32_t filter_w, int32_t stride_h, int32_t stride_w,
                                    int32_t pad_h, int32_t pad_w, int32_t dil_h, int32_t dil_w);

/* A bf16 convolution's zero-padded bf16 image (bytes; 0 where not used): with padding, unit dilation and at
 * most 16 KiB, the patch rows (or their row table) come from a copy of the image inside its padding, none
 * cut by an edge (an 8 x 8 image has nearly half its patches cut). It lies in the scratch slot at
 * rt_opt_half_pad_at(base), base the slot's bytes without it (rt_opt_conv_typed_scratch). */
int64_t rt_opt_conv_bf16_padded_bytes(int32_t in_h, int32_t in_w, int32_t in_c, int32_t out_h, int32_t out_w,
                                      int32_t filter_h, int32_t filter_w, int32_t stride_h, int32_t stride_w,
                                      int32_t pad_h, int32_t pad_w, int32_t dil_h, int32_t dil_w);
static inline int64_t rt_opt_half_pad_at(int64_t base) { return (base + 63) / 64 * 64; }

/* 1 when an int8 convolution's patch is filter_h runs of whole K quads (filter_w * in_c bytes a multiple of
 * 4, unit dilation, not 1x1): its GEMM reads them from the image, no im2col (AVX512-VNNI builds). */
int rt_opt_conv_s8_runs(int32_t filter_h, int32_t filter_w, int32_t in_c, int32_t dil_h, int32_t dil_w);

/* Scratch bytes per slot of a non-direct f32 convolution with `rows` patch rows per block. */
int64_t rt_opt_conv_f32_slot_bytes(int32_t rows, int32_t k, int32_t filter_h, int32_t filter_w, int32_t in_c);
void rt_opt_gemm_f32(const rt_opt_gemm_params *p, const float *a, const float *packed_b, const float *bias, float *c);
/* An int8 GEMM with float results (p->out_f32, mpcc --precision int8's FULLY_CONNECTED whose DEQUANTIZE it
 * folded): c = clamp(sum x fscale) per column, or with residual (NULL: none; a fused f32 ADD's other operand,
 * laid out as C) clamp(fmaf(sum, fscale, residual)): one rounding, in registers. */
void rt_opt_gemm_s8_f32(const rt_opt_gemm_params *p, const int8_t *a, const int8_t *packed_b, const int32_t *bias,
                        float *c, const float *residual, void *scratch, const mpcc_parallel *par);
void rt_opt_gemm_s8(const rt_opt_gemm_params *p, const int8_t *a, const int8_t *packed_b, const int32_t *bias,
                    int8_t *c, void *scratch, const mpcc_parallel *par);
/* FULLY_CONNECTED f32: rt_opt_gemm_f32 with the rows split across tasks. */
void rt_opt_fc_f32(const rt_opt_gemm_params *p, const float *a, const float *packed_b, const float *bias, float *c,
                   const mpcc_parallel *par);
/* A residual ADD fused into a convolution (pass fuse_add): after each block
 * of output rows is computed, out = ADD(out, other) (or ADD(other, out) when
 * the convolution was the ADD's second input), with the ADD's own params. */
struct rt_binary_params;
typedef struct rt_opt_post_add {
    const struct rt_binary_params *add;
    int32_t conv_is_lhs;
    /* f32 only (pass fuse_prelu): then out = out >= 0 ? out : alpha[c] * out per output channel c, after the
     * ADD; add may be NULL when only this applies. */
    const float *alpha;
    /* f32 only (pass fuse_prelu): then out = HARD_SWISH(out) (rt_hard_swish_f32's arithmetic), after the ADD. */
    int32_t hard_swish;
    /* f32 only (pass fuse_add): `other` has this many channels a row, fewer than the output's (the input of a
     * PAD that widened it with zeros); the channels past them add 0. 0: as many as the output. */
    int32_t other_c;
} rt_opt_post_add;

/* post / other: the fused ADD and its other input, or NULL. */
void rt_opt_conv_f32(const rt_opt_conv_params *p, const float *in, const float *packed_b, const float *bias,
                     float *out, void *scratch, const rt_opt_post_add *post, const float *other,
                     const mpcc_parallel *par);
void rt_opt_conv_s8(const rt_opt_conv_params *p, const int8_t *in, const int8_t *packed_b, const int32_t *bias,
                    int8_t *out, void *scratch, const rt_opt_post_add *post, const int8_t *other,
                    const mpcc_parallel *par);

/* Depthwise convolution vectorized over channels, same params and results as
 * the reference kernels (any depth multiplier; 1 is the fast path). */
struct rt_dwconv_params;
void rt_opt_dwconv_f32(const struct rt_dwconv_params *p, const float *in, const float *filter, const float *bias,
                       float *out, const mpcc_parallel *par);
/* scratch: NULL, or rt_opt_dwconv_s8_scratch_bytes(p) bytes (when that is not 0) for a copy of the image
 * inside its padding, the input zero point around it, made before the rows are split: with AVX512-VNNI
 * every output pixel of a 3x3 convolution (the padded image at most 512 KiB) then takes the
 * interior path (edge pixels had gathered their taps one by one: MobileNetV2 0.35's 6x6x144 layers
 * 2.3 -> 1.6 us). Other builds ignore it. */
int64_t rt_opt_dwconv_s8_scratch_bytes(const struct rt_dwconv_params *p);
void rt_opt_dwconv_s8(const struct rt_dwconv_params *p, const int8_t *in, const int8_t *filter, const int32_t *bias,
                      int8_t *out, void *scratch, const mpcc_parallel *par);
/* A direct (1x1) float CONV_2D (weights f32, or 16-bit: type RT_BF16 /
 * RT_F16 packed as for rt_opt_fc_half) whose only reader is an f32 depthwise
 * convolution with depth multiplier 1 (pass fuse_dw): the expansion rows are
 * made `band` depthwise output rows at a time into scratch (cp->gemm.slots
 * copies of cp->gemm.slot_bytes = rt_opt_conv_dw_slot_bytes(d, band, type,
 * K)) and read there; results equal the convolution's kernel followed by
 * rt_opt_dwconv_f32. */
int64_t rt_opt_conv_dw_slot_bytes(const struct rt_dwconv_params *d, int32_t band, int32_t type, int32_t k);
/* With cp->in_type / cp->out_type (16-bit weights only): the expansion's input and the depthwise output
 * stored in 16 bits; slot bytes rt_opt_conv_dw_typed_slot_bytes(d, band, type, K, in_type, out_type). */
int64_t rt_opt_conv_dw_typed_slot_bytes(const struct rt_dwconv_params *d, int32_t band, int32_t type, int32_t k,
                                        int32_t ti, int32_t to);
void rt_opt_conv_dw(const rt_opt_conv_params *cp, int32_t type, const void *in, const void *packed_b,
                    const float *bias, const struct rt_dwconv_params *d, const float *filter, const float *dbias,
                    int32_t band, void *out, void *scratch, const mpcc_parallel *par);
/* rt_opt_conv_dw with HARD_SWISHes fused (pass fuse_dw; MediaPipe's pose blocks): hswish's bit
 * RT_OPT_DW_HSWISH_IN applies the reference HARD_SWISH to the expansion's rows (after its clamp) before the
 * depthwise reads them, RT_OPT_DW_HSWISH_OUT to the depthwise output rows (after its clamp, before a 16-bit
 * output's rounding); results equal the ops run one after another. */
#define RT_OPT_DW_HSWISH_IN 1
#define RT_OPT_DW_HSWISH_OUT 2
void rt_opt_conv_dw_hswish(const rt_opt_conv_params *cp, int32_t type, const void *in, const void *packed_b,
                           const float *bias, const struct rt_dwconv_params *d, const float *filter, const float *dbias,
                           int32_t band, int32_t hswish, void *out, void *scratch, const mpcc_parallel *par);
/* A float depthwise convolution with its input (ti) and/or output (to) stored in 16 bits: `band` output rows
 * at a time, their input rows widened into scratch (slots copies of rt_opt_dwconv_typed_slot_bytes(p, band,
 * to)), each output row computed in f32 as rt_opt_dwconv_f32 does and rounded. */
int64_t rt_opt_dwconv_typed_slot_bytes(const struct rt_dwconv_params *p, int32_t band, int32_t to);
void rt_opt_dwconv_typed(const struct rt_dwconv_params *p, int32_t ti, const void *in, const float *filter,
                         const float *bias, int32_t to, void *out, void *scratch, int32_t band, int32_t slots,
                         const mpcc_parallel *par);
/* rt_opt_dwconv_f32 / rt_opt_dwconv_typed followed by the reference HARD_SWISH on each output row while it is in
 * cache (pass fuse_prelu: a HARD_SWISH that is a float depthwise convolution's only reader); the same results. */
void rt_opt_dwconv_f32_hswish(const struct rt_dwconv_params *p, const float *in, const float *filter, const float *bias,
                              float *out, const mpcc_parallel *par);
void rt_opt_dwconv_typed_hswish(const struct rt_dwconv_params *p, int32_t ti, const void *in, const float *filter,
                                const float *bias, int32_t to, void *out, void *scratch, int32_t band, int32_t slots,
                                const mpcc_parallel *par);

/* BATCH_MATMUL with the reference params; the RHS of each batch is packed
 * into panels in scratch at run time (rt_opt_bmm_scratch_bytes). */
struct rt_bmm_params;
size_t rt_opt_bmm_scratch_bytes(const struct rt_bmm_params *p, int is_s8);
void rt_opt_bmm_f32(const struct rt_bmm_params *p, const float *lhs, const float *rhs, float *out, void *scratch);
void rt_opt_bmm_s8(const struct rt_bmm_params *p, const int8_t *lhs, const int8_t *rhs, int8_t *out, void *scratch);

/* Binary elementwise ops with the reference params (broadcast included),
 * walked as contiguous runs; results equal the reference kernels. */
void rt_opt_add_f32(const struct rt_binary_params *p, const float *a, const float *b, float *out);
void rt_opt_sub_f32(const struct rt_binary_params *p, const float *a, const float *b, float *out);
void rt_opt_mul_f32(const struct rt_binary_params *p, const float *a, const float *b, float *out);
void rt_opt_div_f32(const struct rt_binary_params *p, const float *a, const float *b, float *out);
/* MAXIMUM / MINIMUM (f32, int8): the reference's select per element over the same broadcast runs; equal results. */
void rt_opt_maximum_f32(const struct rt_binary_params *p, const float *a, const float *b, float *out);
void rt_opt_minimum_f32(const struct rt_binary_params *p, const float *a, const float *b, float *out);
void rt_opt_maximum_i8(const struct rt_binary_params *p, const int8_t *a, const int8_t *b, int8_t *out);
void rt_opt_minimum_i8(const struct rt_binary_params *p, const int8_t *a, const int8_t *b, int8_t *out);
void rt_opt_squared_difference_f32(const struct rt_binary_params *p, const float *a, const float *b, float *out);
void rt_opt_add_i8(const struct rt_binary_params *p, const int8_t *a, const int8_t *b, int8_t *out);
void rt_opt_sub_i8(const struct rt_binary_params *p, const int8_t *a, const int8_t *b, int8_t *out);
void rt_opt_mul_i8(const struct rt_binary_params *p, const int8_t *a, const int8_t *b, int8_t *out);
void rt_opt_squared_difference_i8(const struct rt_binary_params *p, const int8_t *a, const int8_t *b, int8_t *out);

/* MEAN f32 whose reduced axes are adjacent (rows when they are the trailing
 * ones), the same sums in the same order as the reference; other axes run
 * the reference. */
struct rt_reduce_params;
void rt_opt_mean_f32(const struct rt_reduce_params *p, const float *in, float *out);
/* Quantized MEAN whose reduced axes are adjacent (outer x reduced x inner; rt_opt_reduce_blocks says
 * whether they are), same result as the reference. scratch: the reference's (out_count int32). */
int rt_opt_reduce_blocks(const struct rt_reduce_params *p, int64_t *outer, int64_t *reduced, int64_t *inner);
void rt_opt_mean_i8(const struct rt_reduce_params *p, const int8_t *in, int8_t *out, void *scratch);
/* REDUCE_MAX / REDUCE_MIN f32 over adjacent axes (rt_opt_reduce.c): the reference's result (but which
 * zero where +0 and -0 tie for a row's extreme); other axes run the reference. */
void rt_opt_reduce_max_f32(const struct rt_reduce_params *p, const float *in, float *out);
void rt_opt_reduce_min_f32(const struct rt_reduce_params *p, const float *in, float *out);

/* Float UNIDIRECTIONAL_SEQUENCE_LSTM, the reference's interface (rt_unidirectional_sequence_lstm_f32),
 * vectorizable dot products and activations. */
struct rt_lstm_params;
void rt_opt_lstm_f32(const struct rt_lstm_params *p, const float *const *t, float *output_state, float *cell_state,
                     float *out, float *scratch);
/* int8 (8x8->16) UNIDIRECTIONAL_SEQUENCE_LSTM without peephole and layer norm, the reference's
 * interface (rt_unidirectional_sequence_lstm_i8) and integers; input products hoisted out of the
 * recurrence, vector dot products and fixed-point sigmoid/tanh (runtime/rt_opt_lstm_s8.c).
 * scratch: rt_opt_lstm_i8_scratch_bytes(p). */
struct rt_lstm_q_params;
int64_t rt_opt_lstm_i8_scratch_bytes(const struct rt_lstm_q_params *p);
void rt_opt_lstm_i8(const struct rt_lstm_q_params *p, const void *const *t, int8_t *output_state, int16_t *cell_state,
                    int8_t *out, void *scratch);

/* MAX_POOL_2D and AVERAGE_POOL_2D vectorized over channels, same results as the reference. */
struct rt_pool_params;
void rt_opt_max_pool_2d_f32(const struct rt_pool_params *p, const float *in, float *out);
void rt_opt_max_pool_2d_i8(const struct rt_pool_params *p, const int8_t *in, int8_t *out);
void rt_opt_average_pool_2d_f32(const struct rt_pool_params *p, const float *in, float *out);
void rt_opt_average_pool_2d_i8(const struct rt_pool_params *p, const int8_t *in, int8_t *out);

/* The strided copy of the data-movement ops, a memcpy per contiguous run. */
struct rt_copy_params;
void rt_opt_copy(const struct rt_copy_params *p, const void *in, void *out);

/* LOGISTIC and TANH f32 with rt_opt_expf instead of libm, vectorizable; within a few ulp of the
 * references (rt_logistic_f32, rt_tanh_f32). */
struct rt_act_params;
void rt_opt_logistic_f32(const struct rt_act_params *p, const float *in, float *out);
void rt_opt_tanh_f32(const struct rt_act_params *p, const float *in, float *out);

/* RESIZE_BILINEAR f32 / int8 (int8 bit-exact with the reference) and RESIZE_NEAREST_NEIGHBOR (any
 * element size, the reference's result) over NHWC; scratch: rt_opt_resize_scratch_bytes(p, bilinear). */
struct rt_resize_params;
int64_t rt_opt_resize_scratch_bytes(const struct rt_resize_params *p, int32_t bilinear);
void rt_opt_resize_bilinear_f32(const struct rt_resize_params *p, const float *in, float *out, void *scratch);
void rt_opt_resize_bilinear_i8(const struct rt_resize_params *p, const int8_t *in, int8_t *out, void *scratch);
void rt_opt_resize_nearest(const struct rt_resize_params *p, const void *in, void *out, void *scratch);
/* RFFT2D with fft_length [1, N], N >= 16 (rt_opt_fft.c): each slice's first row, cropped or zero-padded to N,
 * transformed as N / 2 complex values by a split-format Stockham FFT in double precision; the reference's
 * results within double rounding. Scratch: rt_opt_rfft_scratch_bytes(p). */
struct rt_rfft2d_params;
int64_t rt_opt_rfft_scratch_bytes(const struct rt_rfft2d_params *p);
void rt_opt_rfft2d(const struct rt_rfft2d_params *p, const float *in, float *out, void *scratch);
/* PAD / PADV2 in one pass: interior runs memcpy'd, only the borders filled (memset when the pad
 * value's bytes are equal). Same params and result as rt_pad. */
struct rt_pad_params;
void rt_opt_pad(const struct rt_pad_params *p, const void *in, const void *value, void *out);

/* PRELU with the innermost dim as a vectorizable loop (alpha per element or one value), the outer
 * dims walked by an odometer. Same params and results as rt_prelu_f32 / rt_prelu_i8 (bit-exact). */
struct rt_prelu_params;
void rt_opt_prelu_f32(const struct rt_prelu_params *p, const float *in, const float *alpha, float *out);
void rt_opt_prelu_i8(const struct rt_prelu_params *p, const int8_t *in, const int8_t *alpha, int8_t *out);
/* int8 with a constant per-channel alpha, by the table of rt_prelu_params.lut: rows of c channels,
 * out[r][j] = lut[j * 256 + (uint8_t)in[r][j]] (lut_c = c; 1: one table for every element). */
/* HARD_SWISH f32 in place over n values, x * clamp(x + 3, 0, 6) / 6 as rt_hard_swish_f32 (identical results): a
 * convolution's fused epilogue (pass fuse_prelu). */
void rt_opt_hard_swish_rows_f32(float *o, int64_t n);
void rt_opt_prelu_lut_i8(int64_t rows, int32_t c, const int8_t *lut, const int8_t *in, int8_t *out);

/* TRANSPOSE_CONV with the filter packed at compile time (rt_opt_tconv.c). f32: packed_w is the filter as a
 * [filter_h * filter_w * out_c][in_c] matrix in rt_opt_gemm_f32's panels, zeros rt_opt_tconv_columns(p)
 * zero floats, `rows` input pixels per GEMM block; int8: packed_w is [fh][fw][in_c][out_c], bit-exact with
 * rt_transpose_conv_i8. bias may be NULL. scratch: rt_opt_tconv_scratch_bytes(p, rows, s8) with s8 = 0 for
 * f32, 1 for int8 built for Arm, 2 for int8 built for x86 (its AVX2 path widens the filter into scratch). */
struct rt_tconv_params;
int64_t rt_opt_tconv_columns(const struct rt_tconv_params *p); /* filter_h * filter_w * out_c, padded to RT_OPT_NR */
int64_t rt_opt_tconv_scratch_bytes(const struct rt_tconv_params *p, int32_t rows, int32_t s8);
void rt_opt_transpose_conv_f32(const struct rt_tconv_params *p, int32_t rows, const float *packed_w,
                               const float *zeros, const float *bias, const float *in, float *out, float *scratch);
void rt_opt_transpose_conv_i8(const struct rt_tconv_params *p, const int8_t *packed_w, const int32_t *bias,
                              const int8_t *in, int8_t *out, void *scratch);

/* CONCATENATION of int8 part k with its rescale (TFLite's round(q * scale + bias) + zero point) or
 * clamp, vectorizable: same params and result as rt_concatenation_i8. */
struct rt_concat_params;
void rt_opt_concatenation(const struct rt_concat_params *p, int32_t k, const void *in, void *out);
void rt_opt_concatenation_i8(const struct rt_concat_params *p, int32_t k, const int8_t *in, int8_t *out);

/* FULLY_CONNECTED with 16-bit float weights (type RT_BF16 or RT_F16),
 * packed as [N/NR][ceil(K/2)][NR][2] (see rt_opt_gemm_half.c: AMX tiles,
 * AVX512-BF16 or widened f32 panels, picked when built); scratch:
 * rt_opt_fc_half_scratch(type, m, n, k) bytes. */
#define RT_OPT_F16_AMX_MIN_ROWS 32 /* fp16 runs on AMX from this many rows of A (scratch sized for it) */
int64_t rt_opt_fc_half_scratch(int32_t type, int32_t m, int32_t n, int32_t k);
void rt_opt_fc_half(const rt_opt_gemm_params *p, int32_t type, const float *a, const uint16_t *packed_b,
                    const float *bias, float *c, void *scratch);
/* 1 where this build's rt_opt_fc_half / rt_opt_conv_half round f32 inputs to the weights' 16-bit type first
 * (as rt_fully_connected_half does, and the 16-bit hardware products need); 0 on AVX2 + FMA without AVX-512
 * (F16C for fp16): 16-bit storage with f32 arithmetic, the products of the inputs as they are. */
int rt_opt_half_rounds_inputs(int32_t type);
/* CONV_2D (one group) with 16-bit float weights packed as for rt_opt_fc_half:
 * `rows` output rows per block (direct 1x1 included), each block's im2col rows
 * gathered in f32 and multiplied by rt_opt_fc_half; scratch per slot:
 * rt_opt_conv_half_scratch(type, direct, M, rows, N, K) bytes (M: output rows of all
 * images). post / other: the fused ADD. */
int64_t rt_opt_conv_half_scratch(int32_t type, int32_t direct, int32_t m, int32_t rows, int32_t n, int32_t k);
/* The same with the input (ti), output (tc) and fused ADD's other input (to) stored as RT_BF16 / RT_F16
 * (p->in_type, out_type, other_type): blocks widened to f32 in scratch, outputs rounded per block. */
int64_t rt_opt_conv_typed_scratch(int32_t type, int32_t ti, int32_t tc, int32_t to, int32_t direct, int32_t m,
                                  int32_t rows, int32_t n, int32_t k);
void rt_opt_conv_half(const rt_opt_conv_params *p, int32_t type, const void *in, const uint16_t *packed_b,
                      const float *bias, void *out, void *scratch, const rt_opt_post_add *post, const void *other,
                      const mpcc_parallel *par);

/* Per-tensor QUANTIZE f32 -> int8 and DEQUANTIZE int8 -> f32 written so the
 * compiler vectorizes them; bit-identical to rt_quantize_f32 /
 * rt_dequantize_int (TFLite's round half away from zero, saturation, NaN). */
struct rt_quant_params;
void rt_opt_quantize_f32_s8(const struct rt_quant_params *p, const float *in, int8_t *out);
void rt_opt_dequantize_s8_f32(const struct rt_quant_params *p, const int8_t *in, float *out);
/* CAST complex64 -> float32 (the real parts; p->n values), as the reference. */
void rt_opt_cast_c64_f32(const struct rt_quant_params *p, const float *in, float *out);

/* f32 GELU and SOFTMAX with a vectorizable exp/erfc (a few ulp from the
 * reference kernels' libm results; GELU's erfc within 1.5e-7 absolute). */
struct rt_act_params;
struct rt_softmax_params;
void rt_opt_gelu_f32(const struct rt_act_params *p, const float *in, float *out);
/* out[i] = lut[(uint8_t)in[i]] for i < n: an int8 GELU, LOGISTIC or TANH (the reference kernels' table). */
void rt_opt_lut_i8(const int8_t *lut, int64_t n, const int8_t *in, int8_t *out);
void rt_opt_softmax_f32(const struct rt_softmax_params *p, const float *in, float *out);
/* SELECT / SELECT_V2 and LOGICAL_AND / LOGICAL_OR over collapsed broadcast runs (rt_opt_select.c): the
 * reference's elements, equal results. */
struct rt_select_params;
struct rt_logical_params;
void rt_opt_select(const struct rt_select_params *p, const uint8_t *cond, const void *x, const void *y, void *out);
void rt_opt_logical(const struct rt_logical_params *p, const uint8_t *a, const uint8_t *b, uint8_t *out);
/* int8 -> int8 SOFTMAX (rt_opt_softmax_s8.c): bit for bit rt_softmax_i8, vectorized with AVX-512. */
void rt_opt_softmax_i8(const struct rt_softmax_params *p, const int8_t *in, int8_t *out);

/* Fused attention (pass fuse_attention): BATCH_MATMUL(Q, K) -> [MUL by a
 * scalar] -> [mask] -> SOFTMAX -> BATCH_MATMUL(., V) as one kernel with an
 * online softmax over blocks of kv_block keys, q_block query rows at a time;
 * the score matrix is never stored (scratch: rt_opt_attention_scratch_bytes,
 * linear in the sequence length). qk and pv are the two matmuls' params
 * (strides of Q, K, V; pv's batch dims are the output's). The mask is
 * SELECT_V2(cond, scores, fill) (KEEP), SELECT_V2(cond, fill, scores) (FILL),
 * with cond = mask0 && mask1 (bool, n_mask 1 or 2), or ADD(scores, mask0)
 * (f32); mask strides are in elements over pv's batch dims, queries, keys
 * (0 where broadcast). With int8 Q and K the scores are exact int32 sums of
 * the stored values (VNNI), scaled and corrected for the zero points. */
enum { RT_OPT_MASK_NONE = 0, RT_OPT_MASK_KEEP = 1, RT_OPT_MASK_FILL = 2, RT_OPT_MASK_ADD = 3 };
typedef struct rt_opt_attn_params {
    rt_bmm_params qk, pv;
    float scale, beta, fill;
    int32_t mask, n_mask;
    int32_t mask_bstride[2][RT_MAX_RANK];
    int32_t mask_sq[2], mask_sk[2];
    int32_t q_block, kv_block;
    int32_t slots;                      /* scratch copies (threads), each rt_opt_attention_scratch_bytes */
    int32_t tq, tk, tv, tmask, tout;    /* storage types of Q, K, V, an ADD mask and out (RT_F32 = 0, RT_BF16, RT_F16;
                                           Q, K (both or neither) and V also RT_I8: a DEQUANTIZE folded in) */
    float qscale[3];                    /* RT_I8 Q, K, V: real value = qscale * (stored - qzero) */
    int32_t qzero[3];
    int32_t bf16;                       /* 1: both products on bf16 operands (Q, K, V and the probabilities
                                           rounded to bf16, f32 sums; scores, softmax and output in f32)
                                           where the build has AVX512-BF16, else f32 as with 0 */
    int32_t pv_u8;                      /* 1 (int8 Q, K, V; bf16 0): the probabilities in 8 bits as TFLite's
                                           int8 softmax stores them, round(255 exp(beta (s - max))), and P.V
                                           exact int32 sums of them and V's bytes, V's zero point taken off
                                           by the rows' sums, where the build has AVX512-VNNI, else as with 0 */
    int32_t out_bstride[RT_MAX_RANK];   /* out_sq > 0: output row i of batch (b_0, b_1, ...) at element */
    int32_t out_sq;                     /* sum b_d out_bstride[d] + i out_sq (a TRANSPOSE folded in); 0: dense
                                           [batch][Lq][Dv] */
} rt_opt_attn_params;
size_t rt_opt_attention_scratch_bytes(const rt_opt_attn_params *p);
void rt_opt_attention_f32(const rt_opt_attn_params *p, const void *q, const void *k, const void *v,
                          const void *mask0, const void *mask1, void *out, void *scratch, const mpcc_parallel *par);

/* litert-torch's odml.scaled_dot_product_attention composite (SCHED_SDPA; rt_opt_sdpa.c): q
 * [batch, q_len, heads, head_dim], k and v [batch, kv_len, kv_heads, head_dim] (query head n reads
 * KV head n / (heads / kv_heads)), an optional additive f32 mask whose row for (b, t) starts at
 * b * mask_sb + t * mask_st (kv_len contiguous keys, the same for every head); out as q. Keys masked
 * below -1e30 are skipped where the row has others. Threads: min(par->threads, slots) tasks, each a
 * contiguous share of the (batch, query row, head) triples, task t in scratch slot t of
 * rt_opt_sdpa_scratch bytes (slots * that in all); the same results on any number of tasks. */
typedef struct rt_opt_sdpa_params {
    int32_t batch, q_len, heads, kv_heads, kv_len, head_dim;
    float scale;
    int32_t mask_sb, mask_st;
    int32_t slots;                      /* scratch copies, one per thread (<= 1: one) */
    int32_t transposed;                 /* 1: odml.sdpa_transposed (litert-torch's Hugging Face export with
                                           its GPU composites): q and out [batch, heads, q_len, head_dim],
                                           k [batch, kv_heads, kv_len, head_dim], v transposed [batch,
                                           kv_heads, head_dim, kv_len] (read in place, stride kv_len), the
                                           mask boolean (one byte per key, nonzero: attend) */
    float mask_fill;                    /* transposed: the score of a key whose mask byte is 0 (the export's
                                           SELECT_V2 constant); such keys are skipped where their
                                           exp(fill - max) is exactly 0 */
} rt_opt_sdpa_params;
size_t rt_opt_sdpa_scratch(const rt_opt_sdpa_params *p);
void rt_opt_sdpa_f32(const rt_opt_sdpa_params *p, const float *q, const float *k, const float *v, const void *mask,
                     float *out, void *scratch, const mpcc_parallel *par);

/* Hybrid FULLY_CONNECTED (float in/out, int8 weights in their stored [out][in] rows; SCHED_FC_HYBRID),
 * bit-identical to rt_fully_connected_hybrid; scratch rt_opt_fc_hybrid_scratch(batches, in_depth, out_depth)
 * bytes (each input row quantized, widened to 16 bits; the weight row sums for asymmetric rows).
 * rt_opt_fc_hybrid.c. */
struct rt_fc_params;
size_t rt_opt_fc_hybrid_scratch(int32_t batches, int32_t in_depth, int32_t out_depth);
void rt_opt_fc_hybrid(const struct rt_fc_params *p, const float *in, const int8_t *w, const float *bias, float *out,
                      void *scratch);
/* The same over the caller's threads (rt_opt_fc_hybrid_par.c): min(par->threads, slots) tasks, each a share
 * of the input rows (several) or of the output channels (one row), task t in scratch slot t of
 * rt_opt_fc_hybrid_slot_bytes(batches, in_depth, out_depth) bytes; bit-identical to one call. */
size_t rt_opt_fc_hybrid_slot_bytes(int32_t batches, int32_t in_depth, int32_t out_depth);
void rt_opt_fc_hybrid_par(const struct rt_fc_params *p, const float *in, const int8_t *w, const float *bias,
                          float *out, void *scratch, int32_t slots, const mpcc_parallel *par);
/* The same with 4-bit weights (a TFLite INT4 constant, values in [-8, 7]) kept packed: row n takes
 * ceil(in_depth / 64) blocks of 32 bytes, byte j of block c holding w[n][64c + j] + 8 in its low nibble and
 * w[n][64c + 32 + j] + 8 in its high one (past in_depth: 8, a zero weight); sched_pack_int4 writes it.
 * Bit-identical to rt_fully_connected_hybrid on the int8 values; scratch rt_opt_fc_hybrid_w4_scratch. */
size_t rt_opt_fc_hybrid_w4_scratch(int32_t batches, int32_t in_depth, int32_t out_depth);
void rt_opt_fc_hybrid_w4(const struct rt_fc_params *p, const float *in, const uint8_t *w, const float *bias,
                         float *out, void *scratch);
/* Block-wise INT4 (p->block > 0, a multiple of 8; rt_opt_fc_hybrid_w4 passes them here), bit-identical to
 * rt_fully_connected_hybrid_blockwise; w as sched_pack_int4_blocks writes it: groups of 8 rows (past out_depth:
 * zero weights, zero scales), per group and block, block / 8 steps of 32 bytes (byte 4 r + i: w + 8 of row r
 * at k = 8 s + i in the low nibble, at 8 s + 4 + i in the high one), then the 8 rows' scales of that block as
 * fp16. Scratch rt_opt_fc_hybrid_w4b_scratch. rt_opt_fc_hybrid_blk.c. */
size_t rt_opt_fc_hybrid_w4b_scratch(int32_t batches, int32_t in_depth, int32_t block);
void rt_opt_fc_hybrid_w4_blockwise(const struct rt_fc_params *p, const float *in, const uint8_t *w,
                                   const float *bias, float *out, void *scratch);
/* Its two halves: the input rows quantized into scratch, then the outputs of groups [g_lo, g_hi) (8 outputs
 * a group) from them; several calls on disjoint groups may run at once on the same scratch. */
void rt_opt_fc_hybrid_w4b_quantize(const struct rt_fc_params *p, const float *in, void *scratch);
void rt_opt_fc_hybrid_w4b_groups(const struct rt_fc_params *p, const uint8_t *w, const float *bias, float *out,
                                 const void *scratch, int32_t g_lo, int32_t g_hi);
/* rt_opt_fc_hybrid_w4 (per-channel or block-wise) over the caller's threads (rt_opt_fc_hybrid_w4_par.c):
 * block-wise, the rows quantized once and the output groups split in pairs (one scratch, any slots);
 * per-channel, as rt_opt_fc_hybrid_par (rows split, or one row's outputs in blocks of 32; `slots` scratch
 * copies of rt_opt_fc_hybrid_w4_slot_bytes). Bit-identical to one call. */
size_t rt_opt_fc_hybrid_w4_slot_bytes(int32_t batches, int32_t in_depth, int32_t out_depth);
void rt_opt_fc_hybrid_w4_par(const struct rt_fc_params *p, const float *in, const uint8_t *w, const float *bias,
                             float *out, void *scratch, int32_t slots, const mpcc_parallel *par);

/* LayerNorm over the last axis (pass fuse_layer_norm): per row of `cols`,
 * mean, variance (mean of squared differences), inv_c = gamma_c / sqrt(var +
 * eps) and y = x * inv_c + (beta_c - mean * inv_c); gamma / beta may be NULL
 * (1 / 0). */
typedef struct rt_opt_ln_params {
    int32_t rows, cols;
    float eps;
} rt_opt_ln_params;
void rt_opt_layer_norm_f32(const rt_opt_ln_params *p, const float *x, const float *gamma, const float *beta, float *y);

/* RMSNorm over the last axis (SCHED_RMS_NORM: litert-torch's odml.rms_norm composite; rt_opt_rms_norm.c):
 * bit-identical to rt_rms_norm_f32 (runtime/kernels/rt_rms_norm.h), the decomposition's float operations.
 * y may be x. */
void rt_opt_rms_norm_f32(const rt_rms_norm_params *p, const float *x, const float *w, float *y);

/* 16-bit activation storage (pass half_storage; rt_opt_typed.c). Types are
 * RT_F32, RT_BF16 or RT_F16 (mpcc_rt.h); 16-bit values are the uint16_t bit
 * patterns. Each kernel computes in f32 as its f32 twin does and rounds
 * what it stores to nearest even. rt_opt_to_f32 / rt_opt_from_f32: n values
 * widened / rounded. rt_opt_binary_typed: ADD, SUB, MUL or
 * SQUARED_DIFFERENCE (op RT_OPT_BIN_*) with each operand and the output of
 * its own type. rt_opt_layer_norm_typed: scratch of p->cols floats.
 * rt_opt_fc_typed: rt_opt_fc_half on blocks of RT_OPT_TYPED_ROWS rows of A
 * (type ta) into C (type tc); scratch rt_opt_fc_typed_scratch bytes. */
enum { RT_OPT_BIN_ADD = 0, RT_OPT_BIN_SUB, RT_OPT_BIN_MUL, RT_OPT_BIN_SQDIFF };
#define RT_OPT_TYPED_ROWS 32
void rt_opt_to_f32(int32_t type, const void *src, int64_t n, float *dst);
void rt_opt_from_f32(const float *src, int64_t n, int32_t type, void *dst);
/* dst[l] = element l * s of x (stored as type) as a float, l < n (s 0: one value repeated). */
void rt_opt_gather_f32(int32_t type, const void *x, int64_t s, int64_t n, float *dst);
void rt_opt_binary_typed(const struct rt_binary_params *p, int32_t op, int32_t ta, const void *a, int32_t tb,
                         const void *b, int32_t to, void *out);
void rt_opt_gelu_typed(const struct rt_act_params *p, int32_t ti, const void *in, int32_t to, void *out);
void rt_opt_layer_norm_typed(const rt_opt_ln_params *p, int32_t tx, const void *x, const float *gamma,
                             const float *beta, int32_t ty, void *y, float *scratch);
int64_t rt_opt_fc_typed_scratch(int32_t type, int32_t ta, int32_t tc, int32_t m, int32_t n, int32_t k);
void rt_opt_fc_typed(const rt_opt_gemm_params *p, int32_t type, int32_t ta, const void *a, const uint16_t *packed_b,
                     const float *bias, int32_t tc, void *c, void *scratch);

/* Names of the vector paths compiled into this runtime, e.g. "avx512-vnni". */
const char *rt_opt_isa(void);

#ifdef __cplusplus
}
#endif

#endif
