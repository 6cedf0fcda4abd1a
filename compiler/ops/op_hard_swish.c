/* op_hard_swish.c - HARD_SWISH: x * relu6(x + 3) / 6. f32; int8 with
 * TFLite's 16-bit fixed-point reference algorithm (multipliers computed in
 * float and reduced to Q15 as TFLite's HardSwishPrepare does). int8 also
 * gets the reference kernel's 256 results as a table (pass schedule:
 * SCHED_LUT, rt_opt_lut_i8; exact by construction). */
#include "activation_common.h"

#include <math.h>

static int check(Graph *g, IrOp *op, Diag *d) { return act_check_unary(g, op, DT(F32) | DT(I8), d); }

/* TFLite DownScaleInt32ToInt16Multiplier. */
static int32_t q31_to_q15(int32_t m) {
    if (m >= INT32_MAX - (1 << 15)) return INT16_MAX;
    return (m + (1 << 15)) >> 16;
}

static int prepare(Graph *g, IrOp *op, Diag *d) {
    const IrTensor *in = op_cin(g, op, 0), *out = &g->tensors[op->out[0]];
    rt_act_params *p = act_new_params(g, op);
    if (!p) return diag_internal(d, "out of memory");
    if (in->dtype == IR_I8) {
        const float hires_input_scale = (1.0f / 128.0f) * in->q.scale[0];
        const float reluish_scale = 3.0f / 32768.0f;
        const float output_multiplier = hires_input_scale / out->q.scale[0];
        const float reluish_multiplier = hires_input_scale / reluish_scale;
        int32_t m;
        int e;
        if (op_checked_multiplier(op, (double)output_multiplier, &m, &e, d)) return DIAG_USER;
        if (e > 0)
            return op_error(d, op, "input scale %g / output scale %g is too large for the int8 kernel",
                            (double)in->q.scale[0], (double)out->q.scale[0]);
        p->mult_a = q31_to_q15(m);
        p->shift_a = e;
        if (op_checked_multiplier(op, (double)reluish_multiplier, &m, &e, d)) return DIAG_USER;
        p->mult_b = q31_to_q15(m);
        p->shift_b = e;
        p->in_zp = op_zp(in);
        p->out_zp = op_zp(out);
        int8_t *lut = ir_alloc(g, 256), all[256];
        rt_act_params q = *p;
        if (!lut) return diag_internal(d, "out of memory");
        for (int v = 0; v < 256; v++) all[v] = (int8_t)(uint8_t)v;
        q.n = 256;
        rt_hard_swish_i8(&q, all, lut);
        p->lut_i8 = lut;
    }
    op->params = p;
    return 0;
}

static void eval(const Graph *g, const IrOp *op, const void *const *in, void *const *out, void *scratch) {
    (void)scratch;
    if (g->tensors[op->in[0]].dtype == IR_I8) rt_hard_swish_i8(op->params, in[0], out[0]);
    else rt_hard_swish_f32(op->params, in[0], out[0]);
}

static int emit_c(CgCtx *cg, const Graph *g, const IrOp *op, Diag *d) {
    (void)d;
    return act_emit_unary(cg, op, op->params,
                          g->tensors[op->in[0]].dtype == IR_I8 ? "rt_hard_swish_i8" : "rt_hard_swish_f32");
}

const OpDef op_def_hard_swish = {"HARD_SWISH", op_parse_none, check, prepare, eval, emit_c, act_numel, 0};
