/* op_transpose.c - TRANSPOSE with a constant permutation (input 1):
 * out.dims[k] = in.dims[perm[k]]. A strided copy over the output box. */
#include "shape_common.h"

static int get_perm(const Graph *g, const IrOp *op, int *perm, Diag *d) {
    const IrTensor *in = op_cin(g, op, 0);
    int64_t v[IR_MAX_RANK];
    int n = 0, seen[IR_MAX_RANK] = {0};
    if (op_const_ints(g, op, 1, v, IR_MAX_RANK, &n, d)) return DIAG_USER;
    if (n != in->rank) return op_error(d, op, "perm has %d entries but the input has rank %d", n, in->rank);
    for (int k = 0; k < n; k++) {
        if (v[k] < 0 || v[k] >= n || seen[v[k]])
            return op_error(d, op, "perm[%d] = %lld is not a permutation of 0..%d", k, (long long)v[k], n - 1);
        seen[v[k]] = 1;
        perm[k] = (int)v[k];
    }
    return 0;
}

static int check(Graph *g, IrOp *op, Diag *d) {
    if (shape_expect_copy(g, op, 2, d)) return DIAG_USER;
    const IrTensor *in = op_cin(g, op, 0);
    int perm[IR_MAX_RANK];
    if (get_perm(g, op, perm, d)) return DIAG_USER;
    int64_t dims[IR_MAX_RANK];
    for (int k = 0; k < in->rank; k++) dims[k] = in->dims[perm[k]];
    return op_set_out_shape(g, op, 0, in->rank, dims, d);
}

static int prepare(Graph *g, IrOp *op, Diag *d) {
    const IrTensor *in = op_cin(g, op, 0), *out = op_out(g, op, 0);
    int perm[IR_MAX_RANK];
    int64_t in_str[IR_MAX_RANK], is[IR_MAX_RANK];
    if (get_perm(g, op, perm, d)) return DIAG_USER;
    shape_contig_strides(in->rank, in->dims, in_str);
    for (int k = 0; k < in->rank; k++) is[k] = in_str[perm[k]];
    return shape_box_prepare(g, op, out->rank, out->dims, is, 0, d);
}

static void eval(const Graph *g, const IrOp *op, const void *const *in, void *const *out, void *scratch) {
    (void)g, (void)scratch;
    rt_transpose(op->params, in[0], out[0]);
}

static int emit_c(CgCtx *cg, const Graph *g, const IrOp *op, Diag *d) {
    (void)g, (void)d;
    shape_emit_copy_kernel(cg, op, "rt_transpose");
    return 0;
}

const OpDef op_def_transpose = {"TRANSPOSE", op_parse_none, check, prepare, eval, emit_c, op_no_macs, 0};
