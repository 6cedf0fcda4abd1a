/* elementwise_common.h - helpers shared by the "elementwise" group of op
 * files (ADD, SUB, MUL, DIV, SQUARED_DIFFERENCE, MAXIMUM, MINIMUM, POW,
 * QUANTIZE, DEQUANTIZE, CAST and the unary math ops): broadcast strides,
 * the common check/emit code of binary ops, TFLite's multiplier helpers. */
#ifndef MPCC_ELEMENTWISE_COMMON_H
#define MPCC_ELEMENTWISE_COMMON_H

#include <math.h>
#include <stdio.h>

#include "op_util.h"

/* Options of the binary arithmetic ops (ADD/SUB/MUL/DIV). */
typedef struct EwOptions {
    int act;             /* ACT_* */
    int pot_scale_int16; /* ADD/SUB: allow the int16 power-of-two path */
} EwOptions;

/* Parses {fused_activation_function[, pot_scale_int16]} (field slots given;
 * pot_field < 0 when the op has none). */
int ew_parse_options(Graph *g, IrOp *op, const FbTable *opts, int act_field, int pot_field, Diag *d);

/* Two inputs, one output, all of one dtype in `mask`; output shape = the
 * broadcast of the inputs. Quantized dtypes (i8/u8/i16) must be per-tensor
 * quantized when `quantized` is set. */
int ew_binary_check(Graph *g, IrOp *op, unsigned mask, int quantized, Diag *d);

/* Broadcast strides of op's inputs 0/1 onto output 0. */
void ew_bcast_init(rt_bcast *bc, const Graph *g, const IrOp *op);

/* New params with bc filled, float clamp from act, integer clamp from act
 * for the output dtype (quantized when the output has a scale). */
rt_binary_params *ew_binary_params(Graph *g, const IrOp *op, int act, Diag *d);
/* Prepare of a binary op without fused activation (MAXIMUM, MINIMUM, POW):
 * op->params = ew_binary_params(.., ACT_NONE, ..). */
int ew_binary_prepare(Graph *g, IrOp *op, Diag *d);

/* ADD/SUB prepare (TFLite add.cc / sub.cc Prepare): fills op->params for
 * every dtype; quantized outputs get the general rescaling (left_shift 20
 * for 8-bit, 15 for int16) or, for int16 with power-of-two scales and
 * pot_scale_int16, the shift-only path. */
int ew_prepare_addsub(Graph *g, IrOp *op, int is_sub, Diag *d);

/* `static const rt_binary_params p = {...};` then `kernel(&p, in0, in1, out0);`. */
int ew_emit_binary(CgCtx *cg, const IrOp *op, const rt_binary_params *p, const char *kernel);
/* Just `static const rt_binary_params <name> = {...};`. */
void ew_emit_binary_struct(CgCtx *cg, const rt_binary_params *p, const char *name);
/* `static const rt_unary_params p = {...};` then `kernel(&p, in0, out0);`. */
int ew_emit_unary(CgCtx *cg, const IrOp *op, const rt_unary_params *p, const char *kernel);

/* New rt_quant_params for op's input 0 -> output 0 (n, in_type, out_type);
 * when `q` is per-channel, fills channels/inner/scales/zero_points from it
 * (q's tensor shape is `t`). */
rt_quant_params *ew_quant_params(Graph *g, const IrOp *op, const IrTensor *t, Diag *d);
/* `static const rt_quant_params p = {...};` then `kernel(&p, in0, out0);`. */
int ew_emit_quant(CgCtx *cg, const IrOp *op, const rt_quant_params *p, const char *kernel);

/* One input, one output of the same dtype in `mask` and the same shape;
 * dtypes in quant_mask must be per-tensor quantized on both sides. */
int ew_unary_check(Graph *g, IrOp *op, unsigned mask, unsigned quant_mask, Diag *d);
/* int16 EXP, LOG, RSQRT: TFLite's Prepare requires zero points 0 on the
 * int16 input and output (a user error naming the tensor otherwise); 0 for
 * other dtypes. */
int ew_unary_i16_zero_points(const Graph *g, const IrOp *op, Diag *d);
/* New unary params: n, dtype clamp range, offsets and scales when quantized. */
rt_unary_params *ew_unary_params(Graph *g, const IrOp *op, Diag *d);
/* TFLite LUTPopulateInt8 for int8 -> int8 through fn (float domain), with
 * p's scales/offsets; indexed by q + 128. NULL on OOM. */
int8_t *ew_lut_i8(Graph *g, const rt_unary_params *p, float (*fn)(float, const void *), const void *arg);
/* TFLite LUTPopulate<int16_t> (float arithmetic, 513 entries, read by
 * rt_act_lut_i16) for int16 -> int16 through fn, with p's scales/offsets. NULL
 * on OOM. */
int16_t *ew_lut_i16(Graph *g, const rt_unary_params *p, float (*fn)(float, const void *), const void *arg);

/* FLOOR_DIV / FLOOR_MOD: a constant divisor (input 1) holding a zero is a user
 * error naming the tensor and element (TFLite fails every call with "Division
 * by 0"); a divisor computed at run time gets the kernels' defined value. */
int ew_check_const_divisor(const Graph *g, const IrOp *op, Diag *d);

/* Element count of output 0 (the MAC count of elementwise ops). */
int64_t ew_out_numel(const Graph *g, const IrOp *op);

/* TFLite QuantizeMultiplierSmallerThanOneExp: like op_quantize_multiplier
 * but fails (user error) when real >= 1, where TFLite aborts. */
int ew_quantize_multiplier_lt1(const IrOp *op, double real, int32_t *mult, int32_t *shift, const char *what, Diag *d);

/* TFLite CheckedLog2: is x a power of two (within 1e-3 in log2)? */
int ew_checked_log2(float x, int *log2_result);

/* "rt_<stem>_<suffix>" kernel suffix for a dtype: "f32", "i8", ... */
const char *ew_dtype_suffix(IrDType t);

#endif
