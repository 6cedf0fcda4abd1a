/* op_abs.c - ABS: f32, i32; int8 and int16 quantized (requantized when the
 * output scale differs); unquantized int16. */
#include "elementwise_common.h"

static int check(Graph *g, IrOp *op, Diag *d) {
    const IrTensor *in = op_cin(g, op, 0);
    unsigned quant = DT(I8) | (in && in->q.count > 0 ? DT(I16) : 0);
    return ew_unary_check(g, op, DT(F32) | DT(I32) | DT(I8) | DT(I16), quant, d);
}

static int prepare(Graph *g, IrOp *op, Diag *d) {
    const IrTensor *in = op_cin(g, op, 0), *out = &g->tensors[op->out[0]];
    rt_unary_params *p = ew_unary_params(g, op, d);
    if (!p) return DIAG_INTERNAL;
    op->params = p;
    if (in->dtype == IR_I16 && in->q.count == 0) {
        /* Plain int16: |x| wraps like TFLite's static_cast (|-32768| = -32768). */
        p->act_qmin = INT32_MIN;
        p->act_qmax = INT32_MAX;
    }
    if (in->q.count == 0 || (in->dtype != IR_I8 && in->dtype != IR_I16)) return 0;
    if (in->dtype == IR_I16 && (op_zp(in) || op_zp(out)))
        return op_error(d, op, "int16 tensors must have zero point 0 (got %d, %d)", (int)op_zp(in), (int)op_zp(out));
    if (p->in_scale != p->out_scale) {
        int shift;
        p->rescale = 1;
        if (op_checked_multiplier(op, (double)(p->in_scale / p->out_scale), &p->mult, &shift, d)) return DIAG_USER;
        p->shift = shift;
    }
    return 0;
}

static void eval(const Graph *g, const IrOp *op, const void *const *in, void *const *out, void *scratch) {
    (void)scratch;
    switch (g->tensors[op->in[0]].dtype) {
    case IR_I32: rt_abs_i32(op->params, in[0], out[0]); break;
    case IR_I8: rt_abs_i8(op->params, in[0], out[0]); break;
    case IR_I16: rt_abs_i16(op->params, in[0], out[0]); break;
    default: rt_abs_f32(op->params, in[0], out[0]); break;
    }
}

static int emit_c(CgCtx *cg, const Graph *g, const IrOp *op, Diag *d) {
    (void)d;
    char kernel[32];
    snprintf(kernel, sizeof kernel, "rt_abs_%s", ew_dtype_suffix(g->tensors[op->in[0]].dtype));
    return ew_emit_unary(cg, op, op->params, kernel);
}

const OpDef op_def_abs = {"ABS", op_parse_none, check, prepare, eval, emit_c, ew_out_numel, 0};
