/* op_densify.c - DENSIFY: the dense form of a sparse constant. The importer
 * already densified the input (tfl_sparsity.c), so the op is a copy, and the
 * importer folds it away (fold_const.c): its consumers read the dense
 * constant directly. Only an op writing a graph output stays, as a flat copy. */
#include "shape_common.h"

static int check(Graph *g, IrOp *op, Diag *d) {
    if (op_expect_io(op, 1, 1, 1, d) || op_expect_const(g, op, 0, d) || op_expect_same_dtype(g, op, 0, d))
        return DIAG_USER;
    const IrTensor *in = op_cin(g, op, 0);
    return op_set_out_shape(g, op, 0, in->rank, in->dims, d);
}

const OpDef op_def_densify = {"DENSIFY", op_parse_none, check, shape_flat_prepare, shape_flat_copy_eval,
                               shape_flat_copy_emit, op_no_macs, 0};
