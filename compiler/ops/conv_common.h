/* conv_common.h - helpers shared by the "conv" group of op files
 * (convolutions, pools, reductions, resizing): TFLite padding arithmetic
 * and the checks the convolutions share. */
#ifndef MPCC_CONV_COMMON_H
#define MPCC_CONV_COMMON_H

#include "op_util.h"

/* Padding option (TFLite Padding enum) -> TFL_PADDING_SAME/VALID, or error. */
int conv_parse_padding(const IrOp *op, int tfl_padding, Diag *d);

/* TFLite ComputeOutSize: output extent along one spatial axis. */
int64_t conv_out_size(int padding, int64_t in, int64_t filter, int stride, int dilation);

/* TFLite ComputePaddingWithOffset: leading padding along one axis (the odd
 * extra cell, if any, goes at the end). */
int32_t conv_pad(int stride, int dilation, int64_t in, int64_t filter, int64_t out);

/* Checks an int8/int16 filter's quantization: per tensor, or per channel
 * along dimension `dim` with n channels, all zero points 0. */
int conv_check_filter_quant(const IrOp *op, const IrTensor *w, int dim, int64_t n, Diag *d);

/* Validates stride/dilation factors (> 0). */
int conv_check_factors(const IrOp *op, int stride_h, int stride_w, int dil_h, int dil_w, Diag *d);

/* Quantized types of a convolution: int8 filter (input w_k), int32 bias for
 * int8 activations or int64 bias for int16 (input b_k), per-tensor quantized
 * input in_k and output, filter quantization as conv_check_filter_quant, and
 * zero points 0 for int16 activations. */
int conv_check_quantized(Graph *g, IrOp *op, int in_k, int w_k, int b_k, int filter_dim, int64_t n, Diag *d);


/* ---- CONV_2D, DEPTHWISE_CONV_2D ----------------------------------------- */

typedef struct ConvOptions {
    int padding, stride_w, stride_h, dil_w, dil_h, act;
    int depth_mult;                             /* DEPTHWISE_CONV_2D only; 0: unset */
} ConvOptions;

/* Types of inputs (in, filter, bias) and output: f32 throughout, int8/int16
 * activations as conv_check_quantized with the filter quantized along
 * filter_dim with out_c channels, or hybrid: f32 input, output and bias with
 * such an int8 filter. */
int conv_check_types(Graph *g, IrOp *op, int filter_dim, int64_t out_c, Diag *d);
/* Float input with an int8 filter (dynamic-range quantized models). */
int conv_is_hybrid(const Graph *g, const IrOp *op);
/* The filter's per-channel scales when they are not all equal, else NULL:
 * TFLite's hybrid CONV_2D runs its per-channel kernel only then. */
const float *conv_distinct_scales(const IrTensor *w);
/* Sets the output shape [N, out_h, out_w, out_c] from the input, the filter's
 * spatial size and the options; error when the filter does not fit. */
int conv_set_out_shape(Graph *g, IrOp *op, const ConvOptions *o, int64_t out_c, Diag *d);


/* ---- 2-D pooling (AVERAGE_POOL_2D, MAX_POOL_2D) ------------------------- */

typedef struct PoolOptions {
    int padding, stride_w, stride_h, filter_w, filter_h, act;
} PoolOptions;

int pool_parse(Graph *g, IrOp *op, const FbTable *opts, Diag *d);
/* f32/int8/int16, rank-4 input, int input and output share scale and zero point. */
int pool_check(Graph *g, IrOp *op, Diag *d);
int pool_prepare(Graph *g, IrOp *op, Diag *d);
/* Emits `static const rt_pool_params p = {...};` and `<kernel>_<dtype>(&p, in, out);`. */
int pool_emit_c(CgCtx *cg, const Graph *g, const IrOp *op, const char *kernel);
/* The float LSTM's params, tensor table and call of `kernel` (op_unidirectional_sequence_lstm.c). */
int lstm_emit_f32(CgCtx *cg, const IrOp *op, const char *kernel);
int lstm_emit_i8(CgCtx *cg, const IrOp *op, const char *kernel);
/* A FULLY_CONNECTED's `static const rt_fc_params p = {...};` and call of `kernel` (op_fully_connected.c). */
int fc_emit_c(CgCtx *cg, const Graph *g, const IrOp *op, const char *kernel);
int fc_emit_c_par(CgCtx *cg, const Graph *g, const IrOp *op, const char *par);
/* A TRANSPOSE_CONV's padding (TFL_PADDING_SAME / VALID) and strides, no fused activation: its parse, and the
 * MediaPipe custom operator Convolution2DTransposeBias imported as one (tfl_custom.c). */
int tconv_set_options(Graph *g, IrOp *op, int padding, int32_t stride_w, int32_t stride_h, Diag *d);
/* `static const rt_tconv_params p = {...};` (+ its mult/shift arrays) of a TRANSPOSE_CONV (op_transpose_conv.c). */
void tconv_emit_params(CgCtx *cg, const IrOp *op);


/* ---- reductions (MEAN, SUM, REDUCE_MAX, REDUCE_MIN) --------------------- */

typedef struct ReduceOptions {
    int keep_dims;
    int reduced[IR_MAX_RANK];   /* 1 for each input dim reduced (filled by reduce_check) */
} ReduceOptions;

int reduce_parse(Graph *g, IrOp *op, const FbTable *opts, Diag *d);
/* Inputs (data, constant axes), output shape. dtypes: mask for the data. */
int reduce_check(Graph *g, IrOp *op, unsigned dtypes, Diag *d);
/* reduce_check, plus (REDUCE_MAX, REDUCE_MIN) int8/int16 input and output
 * sharing scale and zero point. */
int reduce_minmax_check(Graph *g, IrOp *op, Diag *d);
/* Fills the shape part of the params (mode RT_REDUCE_PLAIN, scales/zps). */
rt_reduce_params *reduce_prepare(Graph *g, IrOp *op, Diag *d);
/* Emits `static const rt_reduce_params p = {...};`. */
void reduce_emit_params(CgCtx *cg, const rt_reduce_params *p);

/* ---- resizing (RESIZE_BILINEAR, RESIZE_NEAREST_NEIGHBOR) ---------------- */

typedef struct ResizeOptions {
    int align_corners, half_pixel_centers;
} ResizeOptions;

/* Input NHWC of a dtype in mask, constant int32 size [2], same dtype and
 * quantization out, output [N, size0, size1, C]. */
int resize_check(Graph *g, IrOp *op, unsigned dtypes, Diag *d);
int resize_prepare(Graph *g, IrOp *op, Diag *d);
void resize_emit_params(CgCtx *cg, const rt_resize_params *p);

#endif
