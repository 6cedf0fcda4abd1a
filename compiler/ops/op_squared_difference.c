/* op_squared_difference.c - SQUARED_DIFFERENCE: out = (a - b)^2, numpy
 * broadcasting (any rank). f32, i32; quantized i8 (TFLite's left_shift-7
 * rescaling). */
#include "elementwise_common.h"

static int check(Graph *g, IrOp *op, Diag *d) { return ew_binary_check(g, op, DT(F32) | DT(I32) | DT(I8), 1, d); }

static int prepare(Graph *g, IrOp *op, Diag *d) {
    const IrTensor *a = op_cin(g, op, 0), *b = op_cin(g, op, 1), *out = &g->tensors[op->out[0]];
    rt_binary_params *p = ew_binary_params(g, op, ACT_NONE, d);
    if (!p) return DIAG_INTERNAL;
    op->params = p;
    if (out->dtype != IR_I8) return 0;
    p->in1_offset = -op_zp(a);
    p->in2_offset = -op_zp(b);
    p->left_shift = 7;
    /* Same float/double evaluation order as TFLite's Prepare. */
    const float s1 = a->q.scale[0], s2 = b->q.scale[0];
    const double twice_max = (double)(2.0f * (s1 > s2 ? s1 : s2));
    const double real_out = (twice_max * twice_max) / (double)((float)(1 << (p->left_shift * 2)) * out->q.scale[0]);
    if (ew_quantize_multiplier_lt1(op, (double)s1 / twice_max, &p->in1_mult, &p->in1_shift, "input 0", d) ||
        ew_quantize_multiplier_lt1(op, (double)s2 / twice_max, &p->in2_mult, &p->in2_shift, "input 1", d) ||
        ew_quantize_multiplier_lt1(op, real_out, &p->out_mult, &p->out_shift, "output", d))
        return DIAG_USER;
    return 0;
}

static void eval(const Graph *g, const IrOp *op, const void *const *in, void *const *out, void *scratch) {
    (void)scratch;
    const rt_binary_params *p = op->params;
    switch (g->tensors[op->out[0]].dtype) {
    case IR_I32: rt_squared_difference_i32(p, in[0], in[1], out[0]); break;
    case IR_I8: rt_squared_difference_i8(p, in[0], in[1], out[0]); break;
    default: rt_squared_difference_f32(p, in[0], in[1], out[0]); break;
    }
}

static int emit_c(CgCtx *cg, const Graph *g, const IrOp *op, Diag *d) {
    (void)d;
    char kernel[48];
    snprintf(kernel, sizeof kernel, "rt_squared_difference_%s", ew_dtype_suffix(g->tensors[op->out[0]].dtype));
    return ew_emit_binary(cg, op, op->params, kernel);
}

const OpDef op_def_squared_difference = {"SQUARED_DIFFERENCE", op_parse_none, check, prepare, eval, emit_c,
                                         ew_out_numel, 0};
