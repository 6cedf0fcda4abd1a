/* op_sqrt.c - SQRT: f32; int8 and int16 quantized (computed in float, as
 * TFLite). */
#include "elementwise_common.h"

static int check(Graph *g, IrOp *op, Diag *d) {
    return ew_unary_check(g, op, DT(F32) | DT(I8) | DT(I16), DT(I8) | DT(I16), d);
}

static int prepare(Graph *g, IrOp *op, Diag *d) {
    const IrTensor *in = op_cin(g, op, 0), *out = &g->tensors[op->out[0]];
    if (in->dtype == IR_I16 && (op_zp(in) || op_zp(out)))
        return op_error(d, op, "int16 tensors must have zero point 0 (got %d, %d)", (int)op_zp(in), (int)op_zp(out));
    op->params = ew_unary_params(g, op, d);
    return op->params ? 0 : DIAG_INTERNAL;
}

static void eval(const Graph *g, const IrOp *op, const void *const *in, void *const *out, void *scratch) {
    (void)scratch;
    switch (g->tensors[op->in[0]].dtype) {
    case IR_I8: rt_sqrt_i8(op->params, in[0], out[0]); break;
    case IR_I16: rt_sqrt_i16(op->params, in[0], out[0]); break;
    default: rt_sqrt_f32(op->params, in[0], out[0]); break;
    }
}

static int emit_c(CgCtx *cg, const Graph *g, const IrOp *op, Diag *d) {
    (void)d;
    char kernel[32];
    snprintf(kernel, sizeof kernel, "rt_sqrt_%s", ew_dtype_suffix(g->tensors[op->in[0]].dtype));
    return ew_emit_unary(cg, op, op->params, kernel);
}

const OpDef op_def_sqrt = {"SQRT", op_parse_none, check, prepare, eval, emit_c, ew_out_numel, 0};
