/* op_reverse_v2.c - REVERSE_V2: the input with the dimensions named by a
 * constant axis vector (input 1; int32/int64, one or more axes, negative ones
 * counted from the end, each at most once) reversed. Any dtype (a byte copy;
 * quantized tensors keep their parameters). A strided copy whose reversed
 * dimensions are read with negative strides. */
#include "shape_common.h"

/* reversed[k] = 1 for each dimension named by the axis vector. */
static int get_axes(const Graph *g, const IrOp *op, int *reversed, Diag *d) {
    const IrTensor *in = op_cin(g, op, 0), *axis = op_cin(g, op, 1);
    int64_t v[IR_MAX_RANK];
    int n = 0;
    if (axis->rank != 1) return op_error(d, op, "axis tensor '%s' must be a vector, got rank %d", axis->name, axis->rank);
    if (op_const_ints(g, op, 1, v, IR_MAX_RANK, &n, d)) return DIAG_USER;
    for (int k = 0; k < in->rank; k++) reversed[k] = 0;
    for (int i = 0; i < n; i++) {
        int a = shape_axis(v[i], in->rank);
        if (a < 0) return op_error(d, op, "axis %lld is out of range for rank %d", (long long)v[i], in->rank);
        if (reversed[a]) return op_error(d, op, "axis %d is given more than once", a);
        reversed[a] = 1;
    }
    return 0;
}

static int check(Graph *g, IrOp *op, Diag *d) {
    if (shape_expect_copy(g, op, 2, d) || op_expect_dtype(g, op, 0, 1, DT(I32) | DT(I64), d)) return DIAG_USER;
    const IrTensor *in = op_cin(g, op, 0);
    int reversed[IR_MAX_RANK];
    if (get_axes(g, op, reversed, d)) return DIAG_USER;
    return op_set_out_shape(g, op, 0, in->rank, in->dims, d);
}

static int prepare(Graph *g, IrOp *op, Diag *d) {
    const IrTensor *in = op_cin(g, op, 0);
    int reversed[IR_MAX_RANK];
    int64_t strides[IR_MAX_RANK], offset = 0;
    if (get_axes(g, op, reversed, d)) return DIAG_USER;
    shape_contig_strides(in->rank, in->dims, strides);
    for (int k = 0; k < in->rank; k++) {
        if (!reversed[k] || in->dims[k] == 0) continue;
        offset += (in->dims[k] - 1) * strides[k]; /* the last element along k comes first */
        strides[k] = -strides[k];
    }
    return shape_box_prepare(g, op, in->rank, in->dims, strides, offset, d);
}

static void eval(const Graph *g, const IrOp *op, const void *const *in, void *const *out, void *scratch) {
    (void)g, (void)scratch;
    rt_reverse_v2(op->params, in[0], out[0]);
}

static int emit_c(CgCtx *cg, const Graph *g, const IrOp *op, Diag *d) {
    (void)g, (void)d;
    shape_emit_copy_kernel(cg, op, "rt_reverse_v2");
    return 0;
}

const OpDef op_def_reverse_v2 = {"REVERSE_V2", op_parse_none, check, prepare, eval, emit_c, op_no_macs, 0};
