/* activation_common.h - helpers shared by the "activation" group of op files
 * (SOFTMAX, LOG_SOFTMAX, RELU, RELU6, RELU_N1_TO_1, LOGISTIC, TANH,
 * LEAKY_RELU, PRELU, HARD_SWISH, GELU): the unary check, TFLite's lookup
 * table generators, and the emitter of the common unary params struct. */
#ifndef MPCC_ACTIVATION_COMMON_H
#define MPCC_ACTIVATION_COMMON_H

#include "op_util.h"

/* One input, one output of the same dtype in `mask` and the same shape;
 * integer tensors must carry per-tensor quantization. */
int act_check_unary(Graph *g, IrOp *op, unsigned mask, Diag *d);

/* TFLite LUTPopulate<int8_t>: lut[(uint8_t)q] = quantize(f(dequantize(q)))
 * with float arithmetic, round half away from zero, saturating. */
void act_lut_i8(float in_scale, int32_t in_zp, float out_scale, int32_t out_zp, float (*f)(float), int8_t *lut);

/* TFLite LUTPopulate<int16_t> (513 entries, interpolated by
 * rt_act_lut_lookup_i16), computed in double (the softmax tables) or in
 * float (the GELU, EXP, LOG and RSQRT tables), as TFLite does for each. */
void act_lut_i16_double(double in_scale, int32_t in_zp, double out_scale, int32_t out_zp, double (*f)(double),
                        int16_t *lut);
void act_lut_i16_float(float in_scale, int32_t in_zp, float out_scale, int32_t out_zp, float (*f)(float),
                       int16_t *lut);
/* The float one with a parameter for f (TFLite's transform_params: LOG's
 * output minimum, RSQRT's output scale). */
void act_lut_i16_float_arg(float in_scale, int32_t in_zp, float out_scale, int32_t out_zp,
                           float (*f)(float, const void *), const void *arg, int16_t *lut);

/* `static const rt_act_params p = {...};` (+ its lut array) then
 * `kernel(&p, in0, out0);`. */
int act_emit_unary(CgCtx *cg, const IrOp *op, const rt_act_params *p, const char *kernel);
/* `static const rt_softmax_params p = {...};` (+ its tables) of a SOFTMAX (op_softmax.c). */
void softmax_emit_params(CgCtx *cg, const IrOp *op);
/* PRELU's params and call of KERNEL_f32 / KERNEL_i8 / KERNEL_i16 (rt_prelu, or the scheduled rt_opt_prelu;
 * op_prelu.c). */
int prelu_emit_c(CgCtx *cg, const Graph *g, const IrOp *op, const char *kernel);

/* New rt_act_params with n = the element count of input 0. */
rt_act_params *act_new_params(Graph *g, const IrOp *op);

/* Prepare of an elementwise float function f (LOGISTIC, TANH): the params,
 * and for an int8 input the act_lut_i8 table of f. */
int act_lut_prepare(Graph *g, IrOp *op, float (*f)(float), Diag *d);

/* int16 LOGISTIC and TANH (TFLite's table-interpolating reference kernels):
 * zero points 0 and an output scale of 1/32768 (check), then the sigmoid
 * table and the input multiplier (mult_a, 0 for a power-of-two scale) and
 * left shift (shift_a) into p. */
int act_sigmoid16_check(const IrOp *op, const IrTensor *in, const IrTensor *out, Diag *d);
int act_sigmoid16_prepare(Graph *g, IrOp *op, int tanh_op, rt_act_params *p, Diag *d);

/* Prepare of the RELU family: float clamp [lo, hi]; for int8/int16 TFLite's
 * ReluX requantization (in_scale/out_scale, float division) and the clamp
 * zp + roundf(lo/scale) .. zp + roundf(hi/scale) (hi = INFINITY: the type max). */
int act_relu_prepare(Graph *g, IrOp *op, float lo, float hi, Diag *d);

/* "f32", "i8", "i16" for input 0's dtype. */
const char *act_suffix(const Graph *g, const IrOp *op);

/* Element count of input 0 (the MAC count of these ops). */
int64_t act_numel(const Graph *g, const IrOp *op);

#endif
