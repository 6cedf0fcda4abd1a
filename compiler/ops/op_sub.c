/* op_sub.c - SUB: out = act(a - b), numpy broadcasting (any rank).
 * f32, i32, i64; quantized i8/u8 (TFLite's left_shift-20 rescaling) and i16
 * (left_shift 15, or the power-of-two-scale path). */
#include "elementwise_common.h"

static int parse(Graph *g, IrOp *op, const FbTable *opts, Diag *d) {
    return ew_parse_options(g, op, opts, TFL_SUB_OPTIONS_FUSED_ACTIVATION_FUNCTION, TFL_SUB_OPTIONS_POT_SCALE_INT16,
                            d);
}

static int check(Graph *g, IrOp *op, Diag *d) {
    return ew_binary_check(g, op, DT(F32) | DT(I32) | DT(I64) | DT(I8) | DT(U8) | DT(I16), 1, d);
}

static int prepare(Graph *g, IrOp *op, Diag *d) { return ew_prepare_addsub(g, op, 1, d); }

static void eval(const Graph *g, const IrOp *op, const void *const *in, void *const *out, void *scratch) {
    (void)scratch;
    const rt_binary_params *p = op->params;
    switch (g->tensors[op->out[0]].dtype) {
    case IR_I32: rt_sub_i32(p, in[0], in[1], out[0]); break;
    case IR_I64: rt_sub_i64(p, in[0], in[1], out[0]); break;
    case IR_I8: rt_sub_i8(p, in[0], in[1], out[0]); break;
    case IR_U8: rt_sub_u8(p, in[0], in[1], out[0]); break;
    case IR_I16: rt_sub_i16(p, in[0], in[1], out[0]); break;
    default: rt_sub_f32(p, in[0], in[1], out[0]); break;
    }
}

static int emit_c(CgCtx *cg, const Graph *g, const IrOp *op, Diag *d) {
    (void)d;
    char kernel[32];
    snprintf(kernel, sizeof kernel, "rt_sub_%s", ew_dtype_suffix(g->tensors[op->out[0]].dtype));
    return ew_emit_binary(cg, op, op->params, kernel);
}

const OpDef op_def_sub = {"SUB", parse, check, prepare, eval, emit_c, ew_out_numel, 0};
