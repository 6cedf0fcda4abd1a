/* op_select_v2.c - SELECT_V2: out = condition ? x : y (condition broadcast against x and y). */
#include "logic_common.h"

static int check(Graph *g, IrOp *op, Diag *d) { return lg_select_check(g, op, 1, d); }

const OpDef op_def_select_v2 = {"SELECT_V2", op_parse_none, check, lg_select_prepare, lg_select_eval, lg_select_emit, lg_out_numel, 0};
