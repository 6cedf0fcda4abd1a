/* op_neg.c - NEG: f32, i8, i16, i32, i64 (raw values negated, as TFLite). */
#include "elementwise_common.h"

static int check(Graph *g, IrOp *op, Diag *d) {
    return ew_unary_check(g, op, DT(F32) | DT(I8) | DT(I16) | DT(I32) | DT(I64), 0, d);
}

static int prepare(Graph *g, IrOp *op, Diag *d) {
    op->params = ew_unary_params(g, op, d);
    return op->params ? 0 : DIAG_INTERNAL;
}

static void eval(const Graph *g, const IrOp *op, const void *const *in, void *const *out, void *scratch) {
    (void)scratch;
    switch (g->tensors[op->in[0]].dtype) {
    case IR_I8: rt_neg_i8(op->params, in[0], out[0]); break;
    case IR_I16: rt_neg_i16(op->params, in[0], out[0]); break;
    case IR_I32: rt_neg_i32(op->params, in[0], out[0]); break;
    case IR_I64: rt_neg_i64(op->params, in[0], out[0]); break;
    default: rt_neg_f32(op->params, in[0], out[0]); break;
    }
}

static int emit_c(CgCtx *cg, const Graph *g, const IrOp *op, Diag *d) {
    (void)d;
    char kernel[32];
    snprintf(kernel, sizeof kernel, "rt_neg_%s", ew_dtype_suffix(g->tensors[op->in[0]].dtype));
    return ew_emit_unary(cg, op, op->params, kernel);
}

const OpDef op_def_neg = {"NEG", op_parse_none, check, prepare, eval, emit_c, ew_out_numel, 0};
