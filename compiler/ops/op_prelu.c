/* op_prelu.c - PRELU: x >= 0 ? x : alpha * x, alpha (input 1) broadcast onto
 * the input's shape. f32; int8 (per-tensor alpha quantization); int16 input
 * and output with an int8 alpha (TFLite's 16x8 kernel: the same two
 * requantizations, any zero points). int8 with a constant alpha, one value
 * or one per channel: a table of the reference's 256 results per channel,
 * read by the scheduled kernel (rt_opt_prelu_lut_i8). */
#include "activation_common.h"

#include <string.h>

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

/* Most bytes of an int8 PRELU's table (256 per channel): larger ones keep the arithmetic kernel. */
#define PRELU_TABLE_MAX (64 * 1024)

/* For a constant alpha that is one value, or one per channel of the last dim: p->lut, each channel's
 * 256 results computed by the reference kernel itself (so the table is exact by construction). */
static int prelu_table_i8(Graph *g, rt_prelu_params *p, const int8_t *alpha, Diag *d) {
    int r = p->shape.rank, c = 1;
    for (int k = 0; k + 1 < r; k++)
        if (p->alpha_stride[k] != 0) return 0;
    if (r > 0 && p->alpha_stride[r - 1] == 1) c = p->shape.dims[r - 1];
    else if (r > 0 && p->alpha_stride[r - 1] != 0) return 0;
    if (c < 1 || (int64_t)c * 256 > PRELU_TABLE_MAX) return 0;
    int8_t *lut = ir_alloc(g, (size_t)c * 256), all[256];
    if (!lut) return diag_internal(d, "out of memory");
    for (int v = 0; v < 256; v++) all[v] = (int8_t)(uint8_t)v;
    rt_prelu_params q = *p;
    memset(&q.shape, 0, sizeof q.shape);
    memset(q.alpha_stride, 0, sizeof q.alpha_stride);
    q.shape.rank = 1;
    q.shape.dims[0] = 256;
    for (int ch = 0; ch < c; ch++) rt_prelu_i8(&q, all, alpha + ch, lut + (size_t)ch * 256);
    p->lut = lut;
    p->lut_c = c;
    return 0;
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
        if (in->dtype == IR_I8 && alpha->data && prelu_table_i8(g, p, (const int8_t *)alpha->data, d))
            return DIAG_INTERNAL;
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
    if (p->lut && !strcmp(kernel, "rt_opt_prelu")) { /* the scheduled int8 kernel: the table */
        int64_t n = 1;
        for (int k = 0; k < p->shape.rank; k++) n *= p->shape.dims[k];
        cg_array_i8(cg, "lut", p->lut, (int64_t)p->lut_c * 256);
        cg_line(cg, "rt_opt_prelu_lut_i8(%lld, %d, lut, %s, %s);", (long long)(n / p->lut_c), p->lut_c,
                cg_in(cg, op, 0), cg_out(cg, op, 0));
        return 0;
    }
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
