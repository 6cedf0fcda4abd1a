/* op_greater_equal.c - GREATER_EQUAL: elementwise comparison with broadcasting, bool output. */
#include "logic_common.h"

static int prepare(Graph *g, IrOp *op, Diag *d) { return lg_compare_prepare(g, op, RT_CMP_GREATER_EQUAL, d); }

const OpDef op_def_greater_equal = {"GREATER_EQUAL", op_parse_none, lg_compare_check, prepare, lg_compare_eval, lg_compare_emit, lg_out_numel, 0};
