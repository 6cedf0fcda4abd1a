/* op_exp.c - EXP: f32; int8 through a lookup table (TFLite's LUTPopulate);
 * int16 (zero points 0) through TFLite's interpolated 513-entry table
 * (LUTPopulate<int16_t> in float). */
#include "elementwise_common.h"

static float exp_fn(float x, const void *arg) {
    (void)arg;
    return expf(x);
}

static int check(Graph *g, IrOp *op, Diag *d) {
    if (ew_unary_check(g, op, DT(F32) | DT(I8) | DT(I16), DT(I8) | DT(I16), d)) return DIAG_USER;
    return ew_unary_i16_zero_points(g, op, d);
}

static int prepare(Graph *g, IrOp *op, Diag *d) {
    rt_unary_params *p = ew_unary_params(g, op, d);
    if (!p) return DIAG_INTERNAL;
    op->params = p;
    if (g->tensors[op->in[0]].dtype == IR_I8 && !(p->lut = ew_lut_i8(g, p, exp_fn, NULL)))
        return diag_internal(d, "out of memory");
    if (g->tensors[op->in[0]].dtype == IR_I16 && !(p->lut16 = ew_lut_i16(g, p, exp_fn, NULL)))
        return diag_internal(d, "out of memory");
    return 0;
}

static void eval(const Graph *g, const IrOp *op, const void *const *in, void *const *out, void *scratch) {
    (void)scratch;
    switch (g->tensors[op->in[0]].dtype) {
    case IR_I8: rt_exp_i8(op->params, in[0], out[0]); break;
    case IR_I16: rt_exp_i16(op->params, in[0], out[0]); break;
    default: rt_exp_f32(op->params, in[0], out[0]); break;
    }
}

static int emit_c(CgCtx *cg, const Graph *g, const IrOp *op, Diag *d) {
    (void)d;
    char kernel[32];
    snprintf(kernel, sizeof kernel, "rt_exp_%s", ew_dtype_suffix(g->tensors[op->in[0]].dtype));
    return ew_emit_unary(cg, op, op->params, kernel);
}

const OpDef op_def_exp = {"EXP", op_parse_none, check, prepare, eval, emit_c, ew_out_numel, 0};
