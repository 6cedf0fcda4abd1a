/* op_relu_0_to_1.c - RELU_0_TO_1: min(max(x, 0), 1). f32, int8; the integer
 * kernels requantize to the output scale then clamp, as TFLite's ReluX. */
#include "activation_common.h"

#include <math.h>

static int check(Graph *g, IrOp *op, Diag *d) { return act_check_unary(g, op, DT(F32) | DT(I8), d); }

static int prepare(Graph *g, IrOp *op, Diag *d) { return act_relu_prepare(g, op, 0.0f, 1.0f, d); }

static void eval(const Graph *g, const IrOp *op, const void *const *in, void *const *out, void *scratch) {
    (void)scratch;
    switch (g->tensors[op->in[0]].dtype) {
    case IR_I8: rt_relu_0_to_1_i8(op->params, in[0], out[0]); break;
    case IR_I16: rt_relu_0_to_1_i16(op->params, in[0], out[0]); break;
    default: rt_relu_0_to_1_f32(op->params, in[0], out[0]); break;
    }
}

static int emit_c(CgCtx *cg, const Graph *g, const IrOp *op, Diag *d) {
    (void)d;
    char kernel[64];
    snprintf(kernel, sizeof kernel, "rt_relu_0_to_1_%s", act_suffix(g, op));
    return act_emit_unary(cg, op, op->params, kernel);
}

const OpDef op_def_relu_0_to_1 = {"RELU_0_TO_1", op_parse_none, check, prepare, eval, emit_c, act_numel, 0};
