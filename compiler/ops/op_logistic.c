/* op_logistic.c - LOGISTIC (sigmoid): 1 / (1 + exp(-x)). f32; int8 through
 * a 256-entry table computed here in float, as TFLite's reference kernel
 * does (output scale must be 1/256); int16 (zero points 0, output scale
 * 1/32768) by TFLite's interpolation in a sigmoid table (rt_logistic_i16). */
#include "activation_common.h"

#include <math.h>
#include <stdio.h>

static float sigmoid(float v) { return 1.0f / (1.0f + expf(-v)); }

static int check(Graph *g, IrOp *op, Diag *d) {
    if (act_check_unary(g, op, DT(F32) | DT(I8) | DT(I16), d)) return DIAG_USER;
    const IrTensor *out = &g->tensors[op->out[0]];
    if (out->dtype == IR_I16) return act_sigmoid16_check(op, op_cin(g, op, 0), out, d);
    if (out->dtype == IR_I8 && (double)out->q.scale[0] != 1.0 / 256)
        return op_error(d, op, "int8 output '%s' must have scale 1/256, got %g", out->name, (double)out->q.scale[0]);
    return 0;
}

static int prepare(Graph *g, IrOp *op, Diag *d) {
    int rc = act_lut_prepare(g, op, sigmoid, d);
    if (!rc && op_cin(g, op, 0)->dtype == IR_I16) rc = act_sigmoid16_prepare(g, op, 0, op->params, d);
    return rc;
}

static void eval(const Graph *g, const IrOp *op, const void *const *in, void *const *out, void *scratch) {
    (void)scratch;
    switch (g->tensors[op->in[0]].dtype) {
    case IR_I8: rt_logistic_i8(op->params, in[0], out[0]); break;
    case IR_I16: rt_logistic_i16(op->params, in[0], out[0]); break;
    default: rt_logistic_f32(op->params, in[0], out[0]); break;
    }
}

static int emit_c(CgCtx *cg, const Graph *g, const IrOp *op, Diag *d) {
    (void)d;
    char kernel[32];
    snprintf(kernel, sizeof kernel, "rt_logistic_%s", act_suffix(g, op));
    return act_emit_unary(cg, op, op->params, kernel);
}

const OpDef op_def_logistic = {"LOGISTIC", op_parse_none, check, prepare, eval, emit_c, act_numel, 0};
