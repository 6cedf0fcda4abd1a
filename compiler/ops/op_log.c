/* op_log.c - LOG: f32; int8 through a lookup table (TFLite's LUTPopulate,
 * with log(x <= 0) mapped to the output's lowest value); int16 (zero points
 * 0) the same way through TFLite's interpolated 513-entry table. */
#include "elementwise_common.h"

static float log_fn(float x, const void *arg) {
    if (x <= 0.0f) return *(const float *)arg;
    return logf(x);
}

static int check(Graph *g, IrOp *op, Diag *d) {
    if (ew_unary_check(g, op, DT(F32) | DT(I8) | DT(I16), DT(I8) | DT(I16), d)) return DIAG_USER;
    return ew_unary_i16_zero_points(g, op, d);
}

static int prepare(Graph *g, IrOp *op, Diag *d) {
    rt_unary_params *p = ew_unary_params(g, op, d);
    if (!p) return DIAG_INTERNAL;
    op->params = p;
    const IrDType t = g->tensors[op->in[0]].dtype;
    if (t == IR_I8 || t == IR_I16) {
        /* TFLite: output_min = (type min - output zero point) * output scale, in float. */
        const float output_min = (float)((t == IR_I8 ? -128 : -32768) - p->out_offset) * p->out_scale;
        if (t == IR_I8 ? !(p->lut = ew_lut_i8(g, p, log_fn, &output_min))
                       : !(p->lut16 = ew_lut_i16(g, p, log_fn, &output_min)))
            return diag_internal(d, "out of memory");
    }
    return 0;
}

static void eval(const Graph *g, const IrOp *op, const void *const *in, void *const *out, void *scratch) {
    (void)scratch;
    switch (g->tensors[op->in[0]].dtype) {
    case IR_I8: rt_log_i8(op->params, in[0], out[0]); break;
    case IR_I16: rt_log_i16(op->params, in[0], out[0]); break;
    default: rt_log_f32(op->params, in[0], out[0]); break;
    }
}

static int emit_c(CgCtx *cg, const Graph *g, const IrOp *op, Diag *d) {
    (void)d;
    char kernel[32];
    snprintf(kernel, sizeof kernel, "rt_log_%s", ew_dtype_suffix(g->tensors[op->in[0]].dtype));
    return ew_emit_unary(cg, op, op->params, kernel);
}

const OpDef op_def_log = {"LOG", op_parse_none, check, prepare, eval, emit_c, ew_out_numel, 0};
