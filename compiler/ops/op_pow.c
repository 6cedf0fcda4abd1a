/* op_pow.c - POW: out = a ^ b, numpy broadcasting (any rank). f32 and i32
 * only, as TFLite (quantized POW does not exist there). */
#include "elementwise_common.h"

static int check(Graph *g, IrOp *op, Diag *d) { return ew_binary_check(g, op, DT(F32) | DT(I32), 0, d); }

static void eval(const Graph *g, const IrOp *op, const void *const *in, void *const *out, void *scratch) {
    (void)scratch;
    if (g->tensors[op->out[0]].dtype == IR_I32) rt_pow_i32(op->params, in[0], in[1], out[0]);
    else rt_pow_f32(op->params, in[0], in[1], out[0]);
}

static int emit_c(CgCtx *cg, const Graph *g, const IrOp *op, Diag *d) {
    (void)d;
    return ew_emit_binary(cg, op, op->params, g->tensors[op->out[0]].dtype == IR_I32 ? "rt_pow_i32" : "rt_pow_f32");
}

const OpDef op_def_pow = {"POW", op_parse_none, check, ew_binary_prepare, eval, emit_c, ew_out_numel, 0};
