/* op_floor_div.c - FLOOR_DIV: out = floor(a / b), numpy broadcasting (any
 * rank). f32, i32 (TFLite's types). A constant zero divisor is refused; one
 * computed at run time gives the kernels' defined value (rt_floor_div.h). */
#include "elementwise_common.h"

static int check(Graph *g, IrOp *op, Diag *d) {
    if (ew_binary_check(g, op, DT(F32) | DT(I32), 0, d)) return DIAG_USER;
    return ew_check_const_divisor(g, op, d);
}

static void eval(const Graph *g, const IrOp *op, const void *const *in, void *const *out, void *scratch) {
    (void)scratch;
    if (g->tensors[op->out[0]].dtype == IR_I32) rt_floor_div_i32(op->params, in[0], in[1], out[0]);
    else rt_floor_div_f32(op->params, in[0], in[1], out[0]);
}

static int emit_c(CgCtx *cg, const Graph *g, const IrOp *op, Diag *d) {
    (void)d;
    char kernel[32];
    snprintf(kernel, sizeof kernel, "rt_floor_div_%s", ew_dtype_suffix(g->tensors[op->out[0]].dtype));
    return ew_emit_binary(cg, op, op->params, kernel);
}

const OpDef op_def_floor_div = {"FLOOR_DIV", op_parse_none, check, ew_binary_prepare, eval, emit_c, ew_out_numel, 0};
