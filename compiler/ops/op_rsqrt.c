/* op_rsqrt.c - RSQRT: f32; int8 quantized (TFLite's fixed-point inverse
 * square root); int16 (zero points 0) through TFLite's interpolated
 * 513-entry table of 1/sqrt(x), x <= 0 mapped to 32767 * output scale. */
#include "elementwise_common.h"

/* TFLite's int16 table function, in float: 1.0f / sqrt(x), and for x <= 0
 * int16 max times the output scale (the largest output). */
static float rsqrt_fn(float x, const void *arg) {
    if (x <= 0.0f) return 32767.0f * *(const float *)arg;
    return 1.0f / sqrtf(x);
}

static int check(Graph *g, IrOp *op, Diag *d) {
    if (ew_unary_check(g, op, DT(F32) | DT(I8) | DT(I16), DT(I8) | DT(I16), d)) return DIAG_USER;
    return ew_unary_i16_zero_points(g, op, d);
}

static int prepare(Graph *g, IrOp *op, Diag *d) {
    rt_unary_params *p = ew_unary_params(g, op, d);
    if (!p) return DIAG_INTERNAL;
    op->params = p;
    if (g->tensors[op->in[0]].dtype == IR_I8) {
        /* TFLite SetRsqrtOutputMultiplier: float sqrt and product, double reciprocal. */
        const float denom = sqrtf(p->in_scale) * p->out_scale;
        int shift;
        if (op_checked_multiplier(op, 1. / (double)denom, &p->mult, &shift, d)) return DIAG_USER;
        p->shift = shift;
    } else if (g->tensors[op->in[0]].dtype == IR_I16) {
        const float out_scale = p->out_scale;
        if (!(p->lut16 = ew_lut_i16(g, p, rsqrt_fn, &out_scale))) return diag_internal(d, "out of memory");
    }
    return 0;
}

static void eval(const Graph *g, const IrOp *op, const void *const *in, void *const *out, void *scratch) {
    (void)scratch;
    switch (g->tensors[op->in[0]].dtype) {
    case IR_I8: rt_rsqrt_i8(op->params, in[0], out[0]); break;
    case IR_I16: rt_rsqrt_i16(op->params, in[0], out[0]); break;
    default: rt_rsqrt_f32(op->params, in[0], out[0]); break;
    }
}

static int emit_c(CgCtx *cg, const Graph *g, const IrOp *op, Diag *d) {
    (void)d;
    char kernel[32];
    snprintf(kernel, sizeof kernel, "rt_rsqrt_%s", ew_dtype_suffix(g->tensors[op->in[0]].dtype));
    return ew_emit_unary(cg, op, op->params, kernel);
}

const OpDef op_def_rsqrt = {"RSQRT", op_parse_none, check, prepare, eval, emit_c, ew_out_numel, 0};
