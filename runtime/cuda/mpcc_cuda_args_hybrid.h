/* mpcc_cuda_args_hybrid.h - the argument struct of mpcc_cuda_hybrid.cuh: TFLite's hybrid
 * (dynamic-range quantized) FULLY_CONNECTED, CONV_2D and DEPTHWISE_CONV_2D, float activations
 * with int8 weights. Included by mpcc_cuda_args.h: the same plain C layout in host C (the NVRTC
 * JIT path), host C++ and device code. */
#ifndef MPCC_CUDA_ARGS_HYBRID_H
#define MPCC_CUDA_ARGS_HYBRID_H

/* One kernel, launched twice per op:
 *  phase 0: one block per batch row quantizes in[row * row_len ..) to int8 into q (the
 *           arena's tail) and writes the row's scale and zero point (rt_hybrid_quantize_row);
 *  phase 1: the outputs: kind 0 FULLY_CONNECTED (a warp per output, with row_sums[n], the sum
 *           of weight row n, for the zero-point term), 1 CONV_2D, 2 DEPTHWISE_CONV_2D (a thread
 *           per output), scaled back to float and clamped in the reference kernel's order. */
typedef struct mpcc_hybrid_args {
    const float *in, *bias;             /* bias: [out_c] or NULL */
    const int8_t *w;
    const float *w_scales;              /* per output channel, or NULL (w_scale) */
    const int32_t *row_sums;            /* kind 0: [out_c] */
    float *out;
    float *scales;                      /* [batches]: each row's input scale */
    int32_t *zps;                       /* [batches]: each row's zero point */
    int8_t *q;                          /* [batches * row_len] */
    long long row_len, count;           /* values per quantized row; outputs */
    int phase, kind, asymmetric, batches;
    float w_scale, act_min, act_max;
    /* kind 0: in_c = in_depth, out_c = out_depth; kinds 1, 2: NHWC geometry (filter_c: CONV_2D's
     * input channels per group; depth_mult: DEPTHWISE_CONV_2D's) */
    int in_h, in_w, in_c, out_h, out_w, out_c, filter_h, filter_w, filter_c;
    int stride_h, stride_w, dil_h, dil_w, pad_h, pad_w, depth_mult;
} mpcc_hybrid_args;

/* FULLY_CONNECTED 16x8 (rt_fully_connected_i16): int16 input, int8 weights, int64 bias, int16
 * output; acc = sum (in + in_offset) * (w + w_offset) + bias in int64, then one rounding of the
 * 64-bit product (rt_mul_by_quantized_multiplier_single_64) with mult[n] / shift[n]. */
typedef struct mpcc_fc_s16_args {
    const int16_t *in;
    const int8_t *w;
    const long long *bias;              /* [out_depth] or NULL */
    const int32_t *mult, *shift;        /* [out_depth] */
    int16_t *out;
    long long count;                    /* batches * out_depth */
    int in_depth, out_depth;
    int32_t in_offset, w_offset, out_offset, qmin, qmax;
} mpcc_fc_s16_args;

#endif
