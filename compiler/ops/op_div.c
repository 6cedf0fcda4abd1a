/* op_div.c - DIV: out = act(a / b), numpy broadcasting (any rank).
 * f32, i32; quantized i8/u8/i16 (TFLite's fixed-point reciprocal). */
#include "elementwise_common.h"

static int parse(Graph *g, IrOp *op, const FbTable *opts, Diag *d) {
    return ew_parse_options(g, op, opts, TFL_DIV_OPTIONS_FUSED_ACTIVATION_FUNCTION, -1, d);
}

static int check(Graph *g, IrOp *op, Diag *d) {
    return ew_binary_check(g, op, DT(F32) | DT(I32) | DT(I8) | DT(U8) | DT(I16), 1, d);
}

static int prepare(Graph *g, IrOp *op, Diag *d) {
    const EwOptions *o = op->options;
    const IrTensor *a = op_cin(g, op, 0), *b = op_cin(g, op, 1), *out = &g->tensors[op->out[0]];
    rt_binary_params *p = ew_binary_params(g, op, o->act, d);
    if (!p) return DIAG_INTERNAL;
    op->params = p;
    if (out->dtype != IR_I8 && out->dtype != IR_U8 && out->dtype != IR_I16) return 0;
    p->in1_offset = -op_zp(a);
    p->in2_offset = -op_zp(b);
    /* TFLite divides in float, then widens. */
    const float real = a->q.scale[0] / (b->q.scale[0] * out->q.scale[0]);
    int shift;
    if (op_checked_multiplier(op, (double)real, &p->out_mult, &shift, d)) return DIAG_USER;
    if (shift > 16)
        return op_error(d, op, "output rescale factor %g is too large for the fixed-point kernel", (double)real);
    p->out_shift = shift;
    return 0;
}

static void eval(const Graph *g, const IrOp *op, const void *const *in, void *const *out, void *scratch) {
    (void)scratch;
    const rt_binary_params *p = op->params;
    switch (g->tensors[op->out[0]].dtype) {
    case IR_I32: rt_div_i32(p, in[0], in[1], out[0]); break;
    case IR_I8: rt_div_i8(p, in[0], in[1], out[0]); break;
    case IR_U8: rt_div_u8(p, in[0], in[1], out[0]); break;
    case IR_I16: rt_div_i16(p, in[0], in[1], out[0]); break;
    default: rt_div_f32(p, in[0], in[1], out[0]); break;
    }
}

static int emit_c(CgCtx *cg, const Graph *g, const IrOp *op, Diag *d) {
    (void)d;
    char kernel[32];
    snprintf(kernel, sizeof kernel, "rt_div_%s", ew_dtype_suffix(g->tensors[op->out[0]].dtype));
    return ew_emit_binary(cg, op, op->params, kernel);
}

const OpDef op_def_div = {"DIV", parse, check, prepare, eval, emit_c, ew_out_numel, 0};
