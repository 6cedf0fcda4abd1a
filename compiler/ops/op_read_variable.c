/* op_read_variable.c - READ_VARIABLE: the value of a resource variable. The
 * importer (tfl_variables.c) turned the variable into a state tensor, input
 * 0 here; the op copies it out (a later ASSIGN_VARIABLE may overwrite the
 * state while the value is still read). */
#include "shape_common.h"

static int check(Graph *g, IrOp *op, Diag *d) {
    if (op_expect_io(op, 1, 1, 1, d) || op_expect_same_dtype(g, op, 0, d)) return DIAG_USER;
    const IrTensor *v = op_cin(g, op, 0);
    if (!v->is_variable) return op_error(d, op, "input '%s' is not a variable", v->name);
    return op_set_out_shape(g, op, 0, v->rank, v->dims, d);
}

const OpDef op_def_read_variable = {"READ_VARIABLE", op_parse_none, check, shape_flat_prepare, shape_flat_copy_eval,
                                    shape_flat_copy_emit, op_no_macs, 0};
