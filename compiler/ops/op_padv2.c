/* op_padv2.c - PADV2: PAD with an explicit scalar pad value (input 2); the
 * implementation is shared with op_pad.c. */
#include "shape_common.h"

static int check(Graph *g, IrOp *op, Diag *d) {
    if (op_expect_io(op, 2, 3, 1, d)) return DIAG_USER;
    return shape_pad_check(g, op, d);
}

const OpDef op_def_padv2 = {"PADV2", op_parse_none, check, shape_pad_prepare, shape_pad_eval, shape_pad_emit_c,
                            op_no_macs, 0};
