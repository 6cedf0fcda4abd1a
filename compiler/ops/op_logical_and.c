/* op_logical_and.c - LOGICAL_AND: elementwise boolean logic with broadcasting. */
#include "logic_common.h"

static int prepare(Graph *g, IrOp *op, Diag *d) { return lg_logical_prepare(g, op, RT_LOGICAL_AND, d); }

const OpDef op_def_logical_and = {"LOGICAL_AND", op_parse_none, lg_logical_check, prepare, lg_logical_eval, lg_logical_emit, lg_out_numel, 0};
