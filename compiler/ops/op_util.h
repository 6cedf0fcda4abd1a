/* op_util.h - helpers shared by op files: I/O checks, shapes, constant
 * inputs, fused activations, requantization multipliers. */
#ifndef MPCC_OP_UTIL_H
#define MPCC_OP_UTIL_H

#include "ops.h"

#define DT(x) (1u << IR_##x)

/* diag_user with the operator's location: "operator 3 (CONV_2D): ..." */
#define op_error(d, op, ...) op_error_at((d), (op), __VA_ARGS__)
int op_error_at(Diag *d, const IrOp *op, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* Input k (NULL when k is out of range or the optional input is absent). */
IrTensor *op_in(Graph *g, const IrOp *op, int k);
const IrTensor *op_cin(const Graph *g, const IrOp *op, int k);
IrTensor *op_out(Graph *g, const IrOp *op, int k);

/* Count checks; inputs beyond min_in may be absent (-1). */
int op_expect_io(const IrOp *op, int min_in, int max_in, int n_out, Diag *d);
/* Dtype of input (is_output=0) or output k must be in mask (DT(F32)|DT(I8)). */
int op_expect_dtype(const Graph *g, const IrOp *op, int is_output, int k, unsigned mask, Diag *d);
/* Input k must be a constant tensor. */
int op_expect_const(const Graph *g, const IrOp *op, int k, Diag *d);
/* Same dtype for input a and output 0. */
int op_expect_same_dtype(const Graph *g, const IrOp *op, int in_k, Diag *d);
/* Int8/int16 tensor must carry per-tensor quantization. */
int op_expect_quantized(const Graph *g, const IrOp *op, int is_output, int k, Diag *d);

/* Check (and, if the model left it empty, set) the shape of output k. */
int op_set_out_shape(Graph *g, const IrOp *op, int k, int rank, const int64_t *dims, Diag *d);

/* rt_shape from a tensor. */
void op_rt_shape(rt_shape *s, const IrTensor *t);

/* Reads a constant int32/int64 input tensor as int64 values (at most maxn). */
int op_const_ints(const Graph *g, const IrOp *op, int k, int64_t *vals, int maxn, int *n, Diag *d);

/* A shape-like input k (int32/int64 vector): its values if it is constant.
 * Otherwise, when the model fixes them through a static output shape
 * (`declared`, n_declared values, NULL if it does not), those values: the op
 * is compiled for them and op->guard makes the generated code and the
 * interpreter check the input at run time (wildcard: a -1 matches too). */
int op_shape_input(Graph *g, IrOp *op, int k, const int64_t *declared, int n_declared, int wildcard, int64_t *vals,
                   int maxn, int *n, Diag *d);
/* 1 if tensor t's declared shape is static (no -1 in its signature, not being re-inferred). */
int op_static_shape(const IrTensor *t);

/* Numpy-style broadcast of two shapes (right-aligned). */
int op_broadcast(const IrOp *op, const IrTensor *a, const IrTensor *b, int *rank, int64_t *dims, Diag *d);

/* Fused activation (TFLite ActivationFunctionType). TANH and SIGN_BIT are
 * rejected as unsupported. */
enum { ACT_NONE = 0, ACT_RELU = 1, ACT_RELU_N1_TO_1 = 2, ACT_RELU6 = 3 };
int op_parse_act(const IrOp *op, int tfl_act, int *act, Diag *d);
void op_act_range_f32(int act, float *lo, float *hi);
/* Output range in the quantized domain for out's dtype, scale and zero point. */
void op_act_range_q(int act, const IrTensor *out, int32_t *lo, int32_t *hi);
/* An activation bound f in the quantized domain, zp + round(f / scale) in float as TFLite computes it,
 * clamped into [lo, hi]: a quotient beyond them (infinite, for a tiny or hostile scale) is the nearer
 * end, a NaN one is if_nan, never an out-of-range float-to-int conversion. */
int32_t op_quant_bound(float f, float scale, int32_t zp, int32_t lo, int32_t hi, int32_t if_nan);
/* Full range of an integer dtype. */
void op_dtype_range(IrDType t, int32_t *lo, int32_t *hi);

/* TFLite QuantizeMultiplier: real = mult * 2^(shift-31), mult in [2^30,2^31). */
void op_quantize_multiplier(double real, int32_t *mult, int *shift);

/* Per-output-channel multipliers: real = (double)in_scale * (double)w_scale[c]
 * / (double)out_scale, QuantizeMultiplier'd, as TFLite's
 * PopulateConvolutionQuantizationParams. A per-tensor filter scale is
 * repeated for every channel. Allocates mult/shift (n entries) on g. */
int op_channel_multipliers(Graph *g, const IrOp *op, const IrTensor *in, const IrTensor *w, const IrTensor *out, int n,
                           const int32_t **mult, const int32_t **shift, Diag *d);
/* The float requantization's factors (ops pass precision quantized, op->float_rq): s_in s_w[c] / s_out
 * for n channels (a per-tensor filter: one), or s_in s_w[c] where out is NULL (float results). */
int op_float_factors(Graph *g, const IrTensor *in, const IrTensor *w, const IrTensor *out, int n, const float **f,
                     Diag *d);

/* op_quantize_multiplier that rejects factors the kernels cannot apply
 * (shift > 30, negative or NaN) with a user error naming the operator. */
int op_checked_multiplier(const IrOp *op, double real, int32_t *mult, int *shift, Diag *d);

/* Tensor per-tensor scale / zero point (count must be >= 1). */
static inline double op_scale(const IrTensor *t) { return t->q.count ? (double)t->q.scale[0] : 1.0; }
static inline int32_t op_zp(const IrTensor *t) { return t->q.count ? (int32_t)t->q.zero_point[0] : 0; }

/* The runtime's RT_* code of an IR dtype (the two lists are in the same order). */
static inline int32_t op_rt_dtype(IrDType t) {
    switch (t) {
    case IR_F32: return RT_F32;
    case IR_F16: return RT_F16;
    case IR_BF16: return RT_BF16;
    case IR_I8: return RT_I8;
    case IR_U8: return RT_U8;
    case IR_I16: return RT_I16;
    case IR_I32: return RT_I32;
    case IR_I64: return RT_I64;
    case IR_C64: return RT_C64;
    default: return RT_BOOL;
    }
}

/* Allocates a zeroed params struct on the graph arena. */
#define op_new_params(g, T) ((T *)ir_alloc((g), sizeof(T)))

/* For ops whose options struct is a single int: parses nothing. */
int op_parse_none(Graph *g, IrOp *op, const FbTable *opts, Diag *d);

/* MAC count of the data-movement ops: 0. */
int64_t op_no_macs(const Graph *g, const IrOp *op);

#endif
