/* op_floor_mod.c - FLOOR_MOD: out = a mod b with the sign of b (Python's %),
 * numpy broadcasting (any rank). f32, i32, i64 (TFLite's types). A constant
 * integer zero divisor is refused; one computed at run time gives 0, and a
 * float zero divisor NaN as in TFLite (rt_floor_mod.h). */
#include "elementwise_common.h"

static int check(Graph *g, IrOp *op, Diag *d) {
    if (ew_binary_check(g, op, DT(F32) | DT(I32) | DT(I64), 0, d)) return DIAG_USER;
    return op_cin(g, op, 1)->dtype == IR_F32 ? 0 : ew_check_const_divisor(g, op, d);
}

static void eval(const Graph *g, const IrOp *op, const void *const *in, void *const *out, void *scratch) {
    (void)scratch;
    switch (g->tensors[op->out[0]].dtype) {
    case IR_I32: rt_floor_mod_i32(op->params, in[0], in[1], out[0]); break;
    case IR_I64: rt_floor_mod_i64(op->params, in[0], in[1], out[0]); break;
    default: rt_floor_mod_f32(op->params, in[0], in[1], out[0]); break;
    }
}

static int emit_c(CgCtx *cg, const Graph *g, const IrOp *op, Diag *d) {
    (void)d;
    char kernel[32];
    snprintf(kernel, sizeof kernel, "rt_floor_mod_%s", ew_dtype_suffix(g->tensors[op->out[0]].dtype));
    return ew_emit_binary(cg, op, op->params, kernel);
}

const OpDef op_def_floor_mod = {"FLOOR_MOD", op_parse_none, check, ew_binary_prepare, eval, emit_c, ew_out_numel, 0};
