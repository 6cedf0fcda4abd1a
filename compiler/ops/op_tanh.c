/* op_tanh.c - TANH: tanh(x). f32; int8 through
 * a 256-entry table computed here in float, as TFLite's reference kernel
 * does; int16 (zero points 0, output scale 1/32768) by TFLite's
 * interpolation in a sigmoid table, tanh(x) = 2 sigmoid(2x) - 1 (rt_tanh_i16). */
#include "activation_common.h"

#include <math.h>
#include <stdio.h>

static float tanh_f(float v) { return tanhf(v); }

static int check(Graph *g, IrOp *op, Diag *d) {
    if (act_check_unary(g, op, DT(F32) | DT(I8) | DT(I16), d)) return DIAG_USER;
    const IrTensor *out = &g->tensors[op->out[0]];
    return out->dtype == IR_I16 ? act_sigmoid16_check(op, op_cin(g, op, 0), out, d) : 0;
}

static int prepare(Graph *g, IrOp *op, Diag *d) {
    int rc = act_lut_prepare(g, op, tanh_f, d);
    if (!rc && op_cin(g, op, 0)->dtype == IR_I16) rc = act_sigmoid16_prepare(g, op, 1, op->params, d);
    return rc;
}

static void eval(const Graph *g, const IrOp *op, const void *const *in, void *const *out, void *scratch) {
    (void)scratch;
    switch (g->tensors[op->in[0]].dtype) {
    case IR_I8: rt_tanh_i8(op->params, in[0], out[0]); break;
    case IR_I16: rt_tanh_i16(op->params, in[0], out[0]); break;
    default: rt_tanh_f32(op->params, in[0], out[0]); break;
    }
}

static int emit_c(CgCtx *cg, const Graph *g, const IrOp *op, Diag *d) {
    (void)d;
    char kernel[32];
    snprintf(kernel, sizeof kernel, "rt_tanh_%s", act_suffix(g, op));
    return act_emit_unary(cg, op, op->params, kernel);
}

const OpDef op_def_tanh = {"TANH", op_parse_none, check, prepare, eval, emit_c, act_numel, 0};
