/* op_prelu.c - PRELU: x >= 0 ? x : alpha * x, alpha (input 1) broadcast onto
 * the input's shape. f32; int8 (per-tensor alpha quantization); int16 input
 * and output with an int8 alpha (TFLite's 16x8 kernel: the same two
 * requantizations, any zero points). */
#include "activation_common.h"

static int check(Graph *g, IrOp *op, Diag *d) {
    if (op_expect_io(op, 2, 2, 1, d) || op_expect_dtype(g, op, 0, 0, DT(F32) | DT(I8) | DT(I16), d) ||
        op_expect_same_dtype(g, op, 0, d))
        return DIAG_USER;
    const IrTensor *in = op_cin(g, op, 0), *alpha = op_cin(g, op, 1);
    /* int16 PRELU reads alpha as int8 (TFLite does not check its type: an int16 alpha would be
     * read as bytes). */
    if (in->dtype == IR_I16 ? op_expect_dtype(g, op, 0, 1, DT(I8), d) : op_expect_same_dtype(g, op, 1, d))
        return DIAG_USER;
    if (in->dtype != IR_F32) {
        if (op_expect_quantized(g, op, 0, 0, d) || op_expect_quantized(g, op, 0, 1, d) ||
            op_expect_quantized(g, op, 1, 0, d))
            return DIAG_USER;
        if (alpha->q.count != 1)
            return op_error(d, op, "alpha '%s' must be quantized per tensor", alpha->name);
    }
    int rank;
    int64_t dims[IR_MAX_RANK];
    if (op_broadcast(op, in, alpha, &rank, dims, d)) return DIAG_USER;
    int same = rank == in->rank;
    for (int i = 0; same && i < rank; i++) same = dims[i] == in->dims[i];
    if (!same) return op_error(d, op, "alpha '%s' must broadcast to the shape of input '%s'", alpha->name, in->name);
    return op_set_out_shape(g, op, 0, in->rank, in->dims, d);
}

static int prepare(Graph *g, IrOp *op, Diag *d) {
    const IrTensor *in = op_cin(g, op, 0), *alpha = op_cin(g, op, 1), *out = &g->tensors[op->out[0]];
    rt_prelu_params *p = op_new_params(g, rt_prelu_params);
    if (!p) return diag_internal(d, "out of memory");
    op_rt_shape(&p->shape, in);
    /* alpha right-aligned; stride 0 along its size-1 (broadcast) dims. */
    int64_t stride = 1;
    for (int i = in->rank - 1; i >= 0; i--) {
        int ia = i - (in->rank - alpha->rank);
        int64_t n = ia >= 0 ? alpha->dims[ia] : 1;
        p->alpha_stride[i] = n == 1 ? 0 : (int32_t)stride;
        stride *= n;
    }
    if (in->dtype != IR_F32) {
        int shift;
        /* Both real multipliers are float expressions in TFLite. */
        if (op_checked_multiplier(op, (double)(in->q.scale[0] / out->q.scale[0]), &p->mult_1, &shift, d)) return DIAG_USER;
        p->shift_1 = shift;
        if (op_checked_multiplier(op, (double)(in->q.scale[0] * alpha->q.scale[0] / out->q.scale[0]), &p->mult_2, &shift, d)) return DIAG_USER;
        p->shift_2 = shift;
        p->in_offset = -op_zp(in);
        p->alpha_offset = -op_zp(alpha);
        p->out_offset = op_zp(out);
    }
    op->params = p;
    return 0;
}

static void eval(const Graph *g, const IrOp *op, const void *const *in, void *const *out, void *scratch) {
    (void)scratch;
    switch (g->tensors[op->in[0]].dtype) {
    case IR_I8: rt_prelu_i8(op->params, in[0], in[1], out[0]); break;
    case IR_I16: rt_prelu_i16(op->params, in[0], in[1], out[0]); break;
    default: rt_prelu_f32(op->params, in[0], in[1], out[0]); break;
    }
}

/* Also the scheduled kernel's (rt_opt_prelu_*): the same params. */
int prelu_emit_c(CgCtx *cg, const Graph *g, const IrOp *op, const char *kernel) {
    const rt_prelu_params *p = op->params;
    cg_open(cg, "static const rt_prelu_params p = {");
    const int32_t *s = p->shape.dims, *a = p->alpha_stride;
    cg_line(cg, ".shape = {.rank = %d, .dims = {%d, %d, %d, %d, %d, %d, %d, %d}},", p->shape.rank, s[0], s[1], s[2],
            s[3], s[4], s[5], s[6], s[7]);
    cg_line(cg, ".alpha_stride = {%d, %d, %d, %d, %d, %d, %d, %d},", a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7]);
    cg_line(cg, ".in_offset = %d, .alpha_offset = %d, .out_offset = %d,", p->in_offset, p->alpha_offset,
            p->out_offset);
    cg_line(cg, ".mult_1 = %d, .shift_1 = %d, .mult_2 = %d, .shift_2 = %d", p->mult_1, p->shift_1, p->mult_2,
            p->shift_2);
    cg_close(cg, "};");
    cg_line(cg, "%s_%s(&p, %s, %s, %s);", kernel, ir_dtype_name(g->tensors[op->in[0]].dtype), cg_in(cg, op, 0),
            cg_in(cg, op, 1), cg_out(cg, op, 0));
    return 0;
}

static int emit_c(CgCtx *cg, const Graph *g, const IrOp *op, Diag *d) {
    (void)d;
    return prelu_emit_c(cg, g, op, "rt_prelu");
}

const OpDef op_def_prelu = {"PRELU", op_parse_none, check, prepare, eval, emit_c, act_numel, 0};
