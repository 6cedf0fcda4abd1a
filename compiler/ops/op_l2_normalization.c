/* op_l2_normalization.c - L2_NORMALIZATION over the last axis. f32; int8
 * (output scale 1/128 and zero point 0, as TFLite requires). Fused
 * activations are rejected, as in TFLite. */
#include "op_util.h"

static int parse(Graph *g, IrOp *op, const FbTable *opts, Diag *d) {
    int8_t act = 0;
    (void)g;
    if (opts && fb_i8(opts, TFL_L2NORM_OPTIONS_FUSED_ACTIVATION_FUNCTION, 0, &act, d)) return DIAG_USER;
    if (act != 0) return op_error(d, op, "fused activation %d is not supported (TFLite supports none)", act);
    return 0;
}

static int check(Graph *g, IrOp *op, Diag *d) {
    if (op_expect_io(op, 1, 1, 1, d) || op_expect_dtype(g, op, 0, 0, DT(F32) | DT(I8), d) ||
        op_expect_same_dtype(g, op, 0, d))
        return DIAG_USER;
    const IrTensor *in = op_cin(g, op, 0), *out = &g->tensors[op->out[0]];
    if (in->rank < 1) return op_error(d, op, "input '%s' must have rank >= 1", in->name);
    if (in->dtype == IR_I8) {
        if (op_expect_quantized(g, op, 0, 0, d) || op_expect_quantized(g, op, 1, 0, d)) return DIAG_USER;
        if (out->q.scale[0] != 1.0f / 128.0f || op_zp(out) != 0)
            return op_error(d, op, "int8 output '%s' must have scale 1/128 and zero point 0", out->name);
    }
    return op_set_out_shape(g, op, 0, in->rank, in->dims, d);
}

static int prepare(Graph *g, IrOp *op, Diag *d) {
    const IrTensor *in = op_cin(g, op, 0);
    rt_l2norm_params *p = op_new_params(g, rt_l2norm_params);
    if (!p) return diag_internal(d, "out of memory");
    p->depth = (int32_t)in->dims[in->rank - 1];
    p->outer = p->depth > 0 ? (int32_t)(ir_tensor_numel(in) / p->depth) : 0;
    p->in_zp = op_zp(in);
    op->params = p;
    return 0;
}

static void eval(const Graph *g, const IrOp *op, const void *const *in, void *const *out, void *scratch) {
    (void)scratch;
    if (g->tensors[op->in[0]].dtype == IR_I8) rt_l2_normalization_i8(op->params, in[0], out[0]);
    else rt_l2_normalization_f32(op->params, in[0], out[0]);
}

static int emit_c(CgCtx *cg, const Graph *g, const IrOp *op, Diag *d) {
    (void)d;
    const rt_l2norm_params *p = op->params;
    cg_line(cg, "static const rt_l2norm_params p = {.outer = %d, .depth = %d, .in_zp = %d};", p->outer, p->depth,
            p->in_zp);
    cg_line(cg, "rt_l2_normalization_%s(&p, %s, %s);", g->tensors[op->in[0]].dtype == IR_I8 ? "i8" : "f32",
            cg_in(cg, op, 0), cg_out(cg, op, 0));
    return 0;
}

static int64_t macs(const Graph *g, const IrOp *op) { return 2 * ir_tensor_numel(&g->tensors[op->in[0]]); }

const OpDef op_def_l2_normalization = {"L2_NORMALIZATION", parse, check, prepare, eval, emit_c, macs, 0};
