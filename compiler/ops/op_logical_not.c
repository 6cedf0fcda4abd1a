/* op_logical_not.c - LOGICAL_NOT: elementwise boolean logic with broadcasting. */
#include "logic_common.h"

static int prepare(Graph *g, IrOp *op, Diag *d) { return lg_logical_prepare(g, op, 0, d); }

const OpDef op_def_logical_not = {"LOGICAL_NOT", op_parse_none, lg_logical_check, prepare, lg_logical_eval, lg_logical_emit, lg_out_numel, 0};
