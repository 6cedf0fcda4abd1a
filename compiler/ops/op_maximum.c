/* op_maximum.c - MAXIMUM: elementwise larger of two tensors, numpy broadcasting
 * (any rank). f32, i8, u8, i16, i32, i64; quantized values are compared
 * as stored (TFLite does not rescale). */
#include "elementwise_common.h"

static int check(Graph *g, IrOp *op, Diag *d) {
    return ew_binary_check(g, op, DT(F32) | DT(I8) | DT(U8) | DT(I16) | DT(I32) | DT(I64), 0, d);
}

static void eval(const Graph *g, const IrOp *op, const void *const *in, void *const *out, void *scratch) {
    (void)scratch;
    const rt_binary_params *p = op->params;
    switch (g->tensors[op->out[0]].dtype) {
    case IR_I8: rt_maximum_i8(p, in[0], in[1], out[0]); break;
    case IR_U8: rt_maximum_u8(p, in[0], in[1], out[0]); break;
    case IR_I16: rt_maximum_i16(p, in[0], in[1], out[0]); break;
    case IR_I32: rt_maximum_i32(p, in[0], in[1], out[0]); break;
    case IR_I64: rt_maximum_i64(p, in[0], in[1], out[0]); break;
    default: rt_maximum_f32(p, in[0], in[1], out[0]); break;
    }
}

static int emit_c(CgCtx *cg, const Graph *g, const IrOp *op, Diag *d) {
    (void)d;
    char kernel[32];
    snprintf(kernel, sizeof kernel, "rt_maximum_%s", ew_dtype_suffix(g->tensors[op->out[0]].dtype));
    return ew_emit_binary(cg, op, op->params, kernel);
}

const OpDef op_def_maximum = {"MAXIMUM", op_parse_none, check, ew_binary_prepare, eval, emit_c, ew_out_numel, 0};
