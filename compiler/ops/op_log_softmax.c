/* op_log_softmax.c - LOG_SOFTMAX over the last dimension: x - max - log(sum
 * exp(x - max)). f32; int8 -> int8 (output scale 16/256, zero point 127) with
 * TFLite's reference gemmlowp fixed-point algorithm. */
#include "activation_common.h"

#include <math.h>

static int check(Graph *g, IrOp *op, Diag *d) {
    if (act_check_unary(g, op, DT(F32) | DT(I8), d)) return DIAG_USER;
    const IrTensor *in = op_cin(g, op, 0), *out = &g->tensors[op->out[0]];
    if (in->rank < 1) return op_error(d, op, "input '%s' must have rank >= 1", in->name);
    if (in->dtype == IR_I8 && ((double)out->q.scale[0] != 16.0 / 256 || op_zp(out) != 127))
        return op_error(d, op, "int8 output '%s' must have scale 16/256 and zero point 127 (got %g, %d)", out->name,
                        (double)out->q.scale[0], op_zp(out));
    return 0;
}

static int prepare(Graph *g, IrOp *op, Diag *d) {
    const IrTensor *in = op_cin(g, op, 0);
    rt_log_softmax_params *p = op_new_params(g, rt_log_softmax_params);
    if (!p) return diag_internal(d, "out of memory");
    p->depth = (int32_t)in->dims[in->rank - 1];
    p->outer = p->depth ? (int32_t)(ir_tensor_numel(in) / p->depth) : 0;
    if (in->dtype == IR_I8) {
        /* TFLite PreprocessLogSoftmaxScalingExp, beta 1, Q5.26 differences. */
        const int kScaledDiffIntegerBits = 5;
        double real = 1.0 * (double)in->q.scale[0] * (double)(1 << (31 - kScaledDiffIntegerBits));
        if (real > (double)((1LL << 31) - 1)) real = (double)((1LL << 31) - 1);
        int32_t mult;
        int shift;
        op_quantize_multiplier(real, &mult, &shift);
        if (real <= 1.0 || shift < 0 || shift > 30)
            return op_error(d, op, "input scale %g is out of range for the int8 kernel", (double)in->q.scale[0]);
        p->input_multiplier = mult;
        p->input_left_shift = shift;
        double reverse = (double)(1LL << (31 - shift)) / (double)mult;
        int32_t rmult;
        int rshift;
        if (op_checked_multiplier(op, reverse, &rmult, &rshift, d)) return DIAG_USER;
        if (!(reverse > 0.0 && reverse < 1.0) || rshift > 0)
            return op_error(d, op, "input scale %g is out of range for the int8 kernel", (double)in->q.scale[0]);
        p->reverse_multiplier = rmult;
        p->reverse_right_shift = -rshift;
        double radius = 1.0 * ((1 << kScaledDiffIntegerBits) - 1) *
                        (double)(1LL << (31 - kScaledDiffIntegerBits)) / (double)(1LL << shift);
        p->diff_min = -(int32_t)floor(radius);
    }
    op->params = p;
    return 0;
}

static void eval(const Graph *g, const IrOp *op, const void *const *in, void *const *out, void *scratch) {
    (void)scratch;
    if (g->tensors[op->in[0]].dtype == IR_I8) rt_log_softmax_i8(op->params, in[0], out[0]);
    else rt_log_softmax_f32(op->params, in[0], out[0]);
}

static int emit_c(CgCtx *cg, const Graph *g, const IrOp *op, Diag *d) {
    (void)d;
    const rt_log_softmax_params *p = op->params;
    cg_open(cg, "static const rt_log_softmax_params p = {");
    cg_line(cg, ".outer = %d, .depth = %d,", p->outer, p->depth);
    cg_line(cg, ".input_multiplier = %d, .input_left_shift = %d,", p->input_multiplier, p->input_left_shift);
    cg_line(cg, ".reverse_multiplier = %d, .reverse_right_shift = %d,", p->reverse_multiplier,
            p->reverse_right_shift);
    cg_line(cg, ".diff_min = %d", p->diff_min);
    cg_close(cg, "};");
    cg_line(cg, "%s(&p, %s, %s);", g->tensors[op->in[0]].dtype == IR_I8 ? "rt_log_softmax_i8" : "rt_log_softmax_f32",
            cg_in(cg, op, 0), cg_out(cg, op, 0));
    return 0;
}

const OpDef op_def_log_softmax = {"LOG_SOFTMAX", op_parse_none, check, prepare, eval, emit_c, act_numel, 0};
