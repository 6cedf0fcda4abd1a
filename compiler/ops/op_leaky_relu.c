/* op_leaky_relu.c - LEAKY_RELU: x > 0 ? x : alpha * x. f32, int8, int16
 * (zero points 0); integer kernels use two requantization multipliers as
 * TFLite's QuantizeLeakyRelu. int8 also gets the 256 results of the
 * reference kernel as a table (pass schedule: SCHED_LUT, rt_opt_lut_i8). */
#include "activation_common.h"

#include <math.h>

typedef struct LeakyReluOptions {
    float alpha;
} LeakyReluOptions;

static int parse(Graph *g, IrOp *op, const FbTable *opts, Diag *d) {
    LeakyReluOptions *o = ir_alloc(g, sizeof *o);
    if (!o) return diag_internal(d, "out of memory");
    op->options = o;
    if (opts && fb_f32(opts, TFL_LEAKY_RELU_OPTIONS_ALPHA, 0.0f, &o->alpha, d)) return DIAG_USER;
    return 0;
}

static int check(Graph *g, IrOp *op, Diag *d) {
    if (act_check_unary(g, op, DT(F32) | DT(I8) | DT(I16), d)) return DIAG_USER;
    const IrTensor *in = op_cin(g, op, 0), *out = &g->tensors[op->out[0]];
    if (in->dtype == IR_I16 && (op_zp(in) != 0 || op_zp(out) != 0))
        return op_error(d, op, "int16 input '%s' and output '%s' must have zero point 0", in->name, out->name);
    return 0;
}

static int prepare(Graph *g, IrOp *op, Diag *d) {
    const LeakyReluOptions *o = op->options;
    const IrTensor *in = op_cin(g, op, 0), *out = &g->tensors[op->out[0]];
    rt_act_params *p = act_new_params(g, op);
    if (!p) return diag_internal(d, "out of memory");
    p->alpha = o->alpha;
    if (in->dtype != IR_F32) {
        int shift;
        /* TFLite computes both real multipliers in float. */
        float alpha_real = in->q.scale[0] * o->alpha / out->q.scale[0];
        float identity_real = in->q.scale[0] / out->q.scale[0];
        /* QuantizeMultiplier is odd in its argument: keep |alpha| and the sign. */
        if (op_checked_multiplier(op, fabs((double)alpha_real), &p->mult_b, &shift, d)) return DIAG_USER;
        p->shift_b = shift;
        p->neg_b = alpha_real < 0.0f;
        if (op_checked_multiplier(op, (double)identity_real, &p->mult_a, &shift, d)) return DIAG_USER;
        p->shift_a = shift;
        p->in_zp = op_zp(in);
        p->out_zp = op_zp(out);
        if (in->dtype == IR_I8) { /* the reference kernel's 256 results, exact by construction */
            int8_t *lut = ir_alloc(g, 256), all[256];
            rt_act_params q = *p;
            if (!lut) return diag_internal(d, "out of memory");
            for (int v = 0; v < 256; v++) all[v] = (int8_t)(uint8_t)v;
            q.n = 256;
            rt_leaky_relu_i8(&q, all, lut);
            p->lut_i8 = lut;
        }
    }
    op->params = p;
    return 0;
}

static void eval(const Graph *g, const IrOp *op, const void *const *in, void *const *out, void *scratch) {
    (void)scratch;
    switch (g->tensors[op->in[0]].dtype) {
    case IR_I8: rt_leaky_relu_i8(op->params, in[0], out[0]); break;
    case IR_I16: rt_leaky_relu_i16(op->params, in[0], out[0]); break;
    default: rt_leaky_relu_f32(op->params, in[0], out[0]); break;
    }
}

static int emit_c(CgCtx *cg, const Graph *g, const IrOp *op, Diag *d) {
    (void)d;
    char kernel[64];
    snprintf(kernel, sizeof kernel, "rt_leaky_relu_%s", act_suffix(g, op));
    return act_emit_unary(cg, op, op->params, kernel);
}

const OpDef op_def_leaky_relu = {"LEAKY_RELU", parse, check, prepare, eval, emit_c, act_numel, 0};
