/* op_gather.c - GATHER along `axis` with `batch_dims` (both may be
 * negative). Any data dtype (quantized tensors keep their quantization),
 * indices int32/int64. Out-of-range indices: TFLite fails the invocation;
 * our kernel cannot fail, so it writes a slice of zero bytes instead. */
#include "shape_common.h"

typedef struct GatherOptions {
    int axis;
    int batch_dims;
} GatherOptions;

static int parse(Graph *g, IrOp *op, const FbTable *opts, Diag *d) {
    GatherOptions *o = ir_alloc(g, sizeof *o);
    int32_t axis = 0, bd = 0;
    if (!o) return diag_internal(d, "out of memory");
    op->options = o;
    if (!opts) return 0;
    if (fb_i32(opts, TFL_GATHER_OPTIONS_AXIS, 0, &axis, d) || fb_i32(opts, TFL_GATHER_OPTIONS_BATCH_DIMS, 0, &bd, d))
        return DIAG_USER;
    o->axis = axis;
    o->batch_dims = bd;
    return 0;
}

/* Normalized axis and batch_dims, validated. */
static int axes(const Graph *g, const IrOp *op, int *axis, int *bd, Diag *d) {
    const GatherOptions *o = op->options;
    const IrTensor *in = op_cin(g, op, 0), *idx = op_cin(g, op, 1);
    *axis = shape_axis(o->axis, in->rank);
    if (*axis < 0) return op_error(d, op, "axis %d is out of range for rank %d", o->axis, in->rank);
    *bd = o->batch_dims < 0 ? o->batch_dims + idx->rank : o->batch_dims;
    if (*bd < 0 || *bd > idx->rank || *bd > *axis)
        return op_error(d, op, "batch_dims %d is out of range (indices rank %d, axis %d)", o->batch_dims, idx->rank,
                        *axis);
    for (int i = 0; i < *bd; i++)
        if (in->dims[i] != idx->dims[i])
            return op_error(d, op, "batch dimension %d differs: params %lld, indices %lld", i, (long long)in->dims[i],
                            (long long)idx->dims[i]);
    return 0;
}

static int check(Graph *g, IrOp *op, Diag *d) {
    if (op_expect_io(op, 2, 2, 1, d) || op_expect_dtype(g, op, 0, 0, SHAPE_ANY_DTYPE, d) ||
        op_expect_dtype(g, op, 0, 1, DT(I32) | DT(I64), d) || shape_expect_same_quant(g, op, 0, 0, d))
        return DIAG_USER;
    const IrTensor *in = op_cin(g, op, 0), *idx = op_cin(g, op, 1);
    int axis, bd;
    if (axes(g, op, &axis, &bd, d)) return DIAG_USER;
    int64_t dims[IR_MAX_RANK];
    int n = 0;
    if (in->rank - 1 + idx->rank - bd > IR_MAX_RANK) return op_error(d, op, "output rank exceeds %d", IR_MAX_RANK);
    for (int i = 0; i < axis; i++) dims[n++] = in->dims[i];
    for (int i = bd; i < idx->rank; i++) dims[n++] = idx->dims[i];
    for (int i = axis + 1; i < in->rank; i++) dims[n++] = in->dims[i];
    return op_set_out_shape(g, op, 0, n, dims, d);
}

static int prepare(Graph *g, IrOp *op, Diag *d) {
    const IrTensor *in = op_cin(g, op, 0), *idx = op_cin(g, op, 1);
    int axis, bd;
    if (axes(g, op, &axis, &bd, d)) return DIAG_USER;
    int64_t batch = 1, outer = 1, inner = 1, coords = 1;
    for (int i = 0; i < bd; i++) batch *= in->dims[i];
    for (int i = bd; i < axis; i++) outer *= in->dims[i];
    for (int i = axis + 1; i < in->rank; i++) inner *= in->dims[i];
    for (int i = bd; i < idx->rank; i++) coords *= idx->dims[i];
    if (batch > INT32_MAX || outer > INT32_MAX || coords > INT32_MAX || in->dims[axis] > INT32_MAX)
        return op_error(d, op, "tensor too large");
    rt_gather_params *p = op_new_params(g, rt_gather_params);
    if (!p) return diag_internal(d, "out of memory");
    p->batch = (int32_t)batch;
    p->outer = (int32_t)outer;
    p->axis_size = (int32_t)in->dims[axis];
    p->coords = (int32_t)coords;
    p->inner_bytes = inner * (int64_t)ir_dtype_size(in->dtype);
    op->params = p;
    return 0;
}

static void eval(const Graph *g, const IrOp *op, const void *const *in, void *const *out, void *scratch) {
    (void)scratch;
    if (g->tensors[op->in[1]].dtype == IR_I64) rt_gather_i64(op->params, in[0], in[1], out[0]);
    else rt_gather_i32(op->params, in[0], in[1], out[0]);
}

static int emit_c(CgCtx *cg, const Graph *g, const IrOp *op, Diag *d) {
    (void)d;
    const rt_gather_params *p = op->params;
    cg_open(cg, "static const rt_gather_params p = {");
    cg_line(cg, ".batch = %d, .outer = %d, .axis_size = %d, .coords = %d, .inner_bytes = %lld", p->batch, p->outer,
            p->axis_size, p->coords, (long long)p->inner_bytes);
    cg_close(cg, "};");
    cg_line(cg, "%s(&p, %s, %s, %s);", g->tensors[op->in[1]].dtype == IR_I64 ? "rt_gather_i64" : "rt_gather_i32",
            cg_in(cg, op, 0), cg_in(cg, op, 1), cg_out(cg, op, 0));
    return 0;
}

const OpDef op_def_gather = {"GATHER", parse, check, prepare, eval, emit_c, op_no_macs, 0};
