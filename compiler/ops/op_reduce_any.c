/* op_reduce_any.c - REDUCE_ANY over constant axes (ReducerOptions.keep_dims):
 * bool in and out. LLM exports build their causal masks with it. */
#include "conv_common.h"

static int check(Graph *g, IrOp *op, Diag *d) { return reduce_check(g, op, DT(BOOL), d); }

static int prepare(Graph *g, IrOp *op, Diag *d) { return reduce_prepare(g, op, d) ? 0 : DIAG_INTERNAL; }

static void eval(const Graph *g, const IrOp *op, const void *const *in, void *const *out, void *scratch) {
    (void)g;
    (void)scratch;
    rt_reduce_any_bool(op->params, in[0], out[0]);
}

static int emit_c(CgCtx *cg, const Graph *g, const IrOp *op, Diag *d) {
    (void)g;
    (void)d;
    reduce_emit_params(cg, op->params);
    cg_line(cg, "rt_reduce_any_bool(&p, %s, %s);", cg_in(cg, op, 0), cg_out(cg, op, 0));
    return 0;
}

const OpDef op_def_reduce_any = {"REDUCE_ANY", reduce_parse, check, prepare, eval, emit_c, op_no_macs, 0};
