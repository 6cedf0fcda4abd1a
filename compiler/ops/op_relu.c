/* op_relu.c - RELU: max(x, 0). f32, int8, int16 (zero points 0); the integer
 * kernels requantize to the output scale then clamp, as TFLite's ReluX. */
#include "activation_common.h"

#include <math.h>

static int check(Graph *g, IrOp *op, Diag *d) { return act_check_unary(g, op, DT(F32) | DT(I8) | DT(I16), d); }

static int prepare(Graph *g, IrOp *op, Diag *d) { return act_relu_prepare(g, op, 0.0f, INFINITY, d); }

static void eval(const Graph *g, const IrOp *op, const void *const *in, void *const *out, void *scratch) {
    (void)scratch;
    switch (g->tensors[op->in[0]].dtype) {
    case IR_I8: rt_relu_i8(op->params, in[0], out[0]); break;
    case IR_I16: rt_relu_i16(op->params, in[0], out[0]); break;
    default: rt_relu_f32(op->params, in[0], out[0]); break;
    }
}

static int emit_c(CgCtx *cg, const Graph *g, const IrOp *op, Diag *d) {
    (void)d;
    char kernel[64];
    snprintf(kernel, sizeof kernel, "rt_relu_%s", act_suffix(g, op));
    return act_emit_unary(cg, op, op->params, kernel);
}

const OpDef op_def_relu = {"RELU", op_parse_none, check, prepare, eval, emit_c, act_numel, 0};
