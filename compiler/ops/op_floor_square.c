/* op_floor_square.c - FLOOR and SQUARE (two rows of the op table, one file:
 * they differ only in the kernel): float32 only, as in TFLite. */
#include "elementwise_common.h"

static int check(Graph *g, IrOp *op, Diag *d) { return ew_unary_check(g, op, DT(F32), 0, d); }

static int prepare(Graph *g, IrOp *op, Diag *d) {
    op->params = ew_unary_params(g, op, d);
    return op->params ? 0 : DIAG_INTERNAL;
}

static void eval(const Graph *g, const IrOp *op, const void *const *in, void *const *out, void *scratch) {
    (void)g, (void)scratch;
    if (op->kind == OP_FLOOR) rt_floor_f32(op->params, in[0], out[0]);
    else rt_square_f32(op->params, in[0], out[0]);
}

static int emit_c(CgCtx *cg, const Graph *g, const IrOp *op, Diag *d) {
    (void)g, (void)d;
    return ew_emit_unary(cg, op, op->params, op->kind == OP_FLOOR ? "rt_floor_f32" : "rt_square_f32");
}

const OpDef op_def_floor = {"FLOOR", op_parse_none, check, prepare, eval, emit_c, ew_out_numel, 0};
const OpDef op_def_square = {"SQUARE", op_parse_none, check, prepare, eval, emit_c, ew_out_numel, 0};
