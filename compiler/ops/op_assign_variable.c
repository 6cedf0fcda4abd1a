/* op_assign_variable.c - ASSIGN_VARIABLE: inputs (the variable's state
 * tensor, made by the importer from the resource handle; the value), no
 * outputs. Copies the value into the state, which persists across runs. */
#include "shape_common.h"

static int check(Graph *g, IrOp *op, Diag *d) {
    if (op_expect_io(op, 2, 2, 0, d)) return DIAG_USER;
    const IrTensor *v = op_cin(g, op, 0), *x = op_cin(g, op, 1);
    if (!v->is_variable) return op_error(d, op, "input '%s' is not a variable", v->name);
    int same = v->dtype == x->dtype && v->rank == x->rank;
    for (int i = 0; same && i < v->rank; i++) same = v->dims[i] == x->dims[i];
    char dv[160], dx[160];
    if (!same)
        return op_error(d, op, "value '%s' (%s) does not match variable '%s' (%s)", x->name,
                        ir_tensor_desc(x, dx, sizeof dx), v->name, ir_tensor_desc(v, dv, sizeof dv));
    return 0;
}

static void eval(const Graph *g, const IrOp *op, const void *const *in, void *const *out, void *scratch) {
    (void)g, (void)out, (void)scratch;
    /* The state is the op's input 0: written in place (it is a variable, not a constant). */
    rt_reshape(op->params, in[1], (void *)(uintptr_t)in[0]);
}

static int emit_c(CgCtx *cg, const Graph *g, const IrOp *op, Diag *d) {
    (void)g, (void)d;
    shape_emit_copy(cg, op->params, "static const rt_copy_params p = ", ";");
    cg_line(cg, "rt_reshape(&p, %s, (void *)%s);", cg_in(cg, op, 1), cg_in(cg, op, 0));
    return 0;
}

const OpDef op_def_assign_variable = {"ASSIGN_VARIABLE", op_parse_none, check, shape_flat_prepare, eval, emit_c,
                                      op_no_macs, 0};
