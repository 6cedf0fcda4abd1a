/* op_expand_dims.c - EXPAND_DIMS: inserts a size-1 dimension at the constant
 * axis (input 1, in [-rank-1, rank]). A flat copy. */
#include "shape_common.h"

static int check(Graph *g, IrOp *op, Diag *d) {
    if (op_expect_io(op, 2, 2, 1, d) || op_expect_dtype(g, op, 0, 0, SHAPE_FLAT_DTYPE, d) ||
        shape_expect_same_quant(g, op, 0, 0, d))
        return DIAG_USER;
    const IrTensor *in = op_cin(g, op, 0);
    int64_t axis;
    int n = 0;
    if (op_const_ints(g, op, 1, &axis, 1, &n, d)) return DIAG_USER;
    if (n != 1) return op_error(d, op, "axis input must hold exactly one value, got %d", n);
    if (in->rank + 1 > IR_MAX_RANK) return op_error(d, op, "output rank %d exceeds %d", in->rank + 1, IR_MAX_RANK);
    int a = shape_axis(axis, in->rank + 1);
    if (a < 0) return op_error(d, op, "axis %lld is out of range for rank %d", (long long)axis, in->rank);
    int64_t dims[IR_MAX_RANK];
    for (int i = 0, j = 0; i <= in->rank; i++) dims[i] = i == a ? 1 : in->dims[j++];
    return op_set_out_shape(g, op, 0, in->rank + 1, dims, d);
}

static void eval(const Graph *g, const IrOp *op, const void *const *in, void *const *out, void *scratch) {
    (void)g, (void)scratch;
    rt_expand_dims(op->params, in[0], out[0]);
}

static int emit_c(CgCtx *cg, const Graph *g, const IrOp *op, Diag *d) {
    (void)g, (void)d;
    shape_emit_copy_kernel(cg, op, "rt_expand_dims");
    return 0;
}

const OpDef op_def_expand_dims = {"EXPAND_DIMS", op_parse_none, check, shape_flat_prepare, eval, emit_c, op_no_macs, 0};
