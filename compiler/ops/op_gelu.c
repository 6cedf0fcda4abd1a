/* op_gelu.c - GELU: 0.5 x (1 + erf(x / sqrt 2)), or its tanh approximation
 * (option `approximate`). f32; int8 (256-entry table) and int16 (513-entry
 * interpolated table), both computed here in float as TFLite does. */
#include "activation_common.h"

#include <math.h>

typedef struct GeluOptions {
    int approximate;
} GeluOptions;

/* The same float expressions as TFLite's GeluTransform(Approximate). */
static float gelu_exact(float x) { return 0.5f * x * erfcf(x * -0.707106781186547524400844f); }
static float gelu_approx(float x) {
    const float k_sqrt_2_over_pi = (float)(1.12837916709551257390 * 0.707106781186547524401);
    return 0.5f * x * (1.f + tanhf(k_sqrt_2_over_pi * (x + 0.044715f * x * x * x)));
}

static int parse(Graph *g, IrOp *op, const FbTable *opts, Diag *d) {
    GeluOptions *o = ir_alloc(g, sizeof *o);
    if (!o) return diag_internal(d, "out of memory");
    op->options = o;
    if (opts && fb_bool(opts, TFL_GELU_OPTIONS_APPROXIMATE, 0, &o->approximate, d)) return DIAG_USER;
    return 0;
}

static int check(Graph *g, IrOp *op, Diag *d) { return act_check_unary(g, op, DT(F32) | DT(I8) | DT(I16), d); }

static int prepare(Graph *g, IrOp *op, Diag *d) {
    const GeluOptions *o = op->options;
    const IrTensor *in = op_cin(g, op, 0), *out = &g->tensors[op->out[0]];
    rt_act_params *p = act_new_params(g, op);
    if (!p) return diag_internal(d, "out of memory");
    p->approximate = o->approximate;
    float (*f)(float) = o->approximate ? gelu_approx : gelu_exact;
    if (in->dtype == IR_I8) {
        int8_t *lut = ir_alloc(g, 256);
        if (!lut) return diag_internal(d, "out of memory");
        act_lut_i8(in->q.scale[0], op_zp(in), out->q.scale[0], op_zp(out), f, lut);
        p->lut_i8 = lut;
    } else if (in->dtype == IR_I16) {
        int16_t *lut = ir_alloc(g, 513 * sizeof(int16_t));
        if (!lut) return diag_internal(d, "out of memory");
        act_lut_i16_float(in->q.scale[0], op_zp(in), out->q.scale[0], op_zp(out), f, lut);
        p->lut_i16 = lut;
    }
    op->params = p;
    return 0;
}

static void eval(const Graph *g, const IrOp *op, const void *const *in, void *const *out, void *scratch) {
    (void)scratch;
    switch (g->tensors[op->in[0]].dtype) {
    case IR_I8: rt_gelu_i8(op->params, in[0], out[0]); break;
    case IR_I16: rt_gelu_i16(op->params, in[0], out[0]); break;
    default: rt_gelu_f32(op->params, in[0], out[0]); break;
    }
}

static int emit_c(CgCtx *cg, const Graph *g, const IrOp *op, Diag *d) {
    (void)d;
    char kernel[64];
    snprintf(kernel, sizeof kernel, "rt_gelu_%s", act_suffix(g, op));
    return act_emit_unary(cg, op, op->params, kernel);
}

const OpDef op_def_gelu = {"GELU", parse, check, prepare, eval, emit_c, act_numel, 0};
