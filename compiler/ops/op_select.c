/* op_select.c - SELECT: out = condition ? x : y (condition of x's shape, or a vector selecting rows). */
#include "logic_common.h"

static int check(Graph *g, IrOp *op, Diag *d) { return lg_select_check(g, op, 0, d); }

const OpDef op_def_select = {"SELECT", op_parse_none, check, lg_select_prepare, lg_select_eval, lg_select_emit, lg_out_numel, 0};
