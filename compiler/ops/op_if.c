/* op_if.c - IF: inputs (cond: one bool, then the values passed on), outputs
 * from then_subgraph_index when cond is true, else from else_subgraph_index.
 * Both branches take the op's inputs 1.. and give its outputs with the same
 * static dtypes and shapes. The generated code is a C `if` calling one of
 * the two subgraph functions, with the op's scratch as the branch's arena
 * (the larger of the two). The interpreter runs the branch graph itself
 * (interp.c). */
#include "control_flow_common.h"

typedef struct IfParams {
    int64_t arena_bytes;    /* the scratch: the larger branch arena */
} IfParams;

static int parse(Graph *g, IrOp *op, const FbTable *opts, Diag *d) {
    static const int fields[2] = {TFL_IF_OPTIONS_THEN_SUBGRAPH_INDEX, TFL_IF_OPTIONS_ELSE_SUBGRAPH_INDEX};
    (void)g;
    return cf_parse_callees(op, opts, fields, 2, "IfOptions", d);
}

static int check(Graph *g, IrOp *op, Diag *d) {
    if (op_expect_io(op, 1, TFL_MAX_IO_PTRS, op->n_out, d) || op_expect_dtype(g, op, 0, 0, DT(BOOL), d))
        return DIAG_USER;
    if (op->in[0] < 0 || ir_tensor_numel(op_cin(g, op, 0)) != 1)
        return op_error(d, op, "the condition must be one bool value");
    for (int b = 0; b < 2; b++) {
        int rc;
        const Graph *sub = cf_callee(g, op, b, d, &rc);
        if (rc) return rc;
        char what[64];
        if (sub->n_inputs != op->n_in - 1 || sub->n_outputs != op->n_out)
            return op_error(d, op, "%s branch (subgraph %d) has %d inputs and %d outputs, the op passes %d and takes %d",
                            b ? "else" : "then", op->callee[b], sub->n_inputs, sub->n_outputs, op->n_in - 1, op->n_out);
        for (int k = 1; k < op->n_in; k++) {
            if (op->in[k] < 0) return op_error(d, op, "input %d is missing", k);
            snprintf(what, sizeof what, "input %d and subgraph %d's input %d", k, op->callee[b], k - 1);
            if (cf_expect_same(op, op_cin(g, op, k), &sub->tensors[sub->inputs[k - 1]], what, d)) return DIAG_USER;
        }
        for (int k = 0; k < op->n_out; k++) {
            const IrTensor *so = &sub->tensors[sub->outputs[k]];
            if (b == 0 && op_set_out_shape(g, op, k, so->rank, so->dims, d)) return DIAG_USER;
            snprintf(what, sizeof what, "output %d and subgraph %d's output %d", k, op->callee[b], k);
            if (cf_expect_same(op, op_out(g, op, k), so, what, d)) return DIAG_USER;
        }
    }
    return 0;
}

static int prepare(Graph *g, IrOp *op, Diag *d) {
    IfParams *p = op_new_params(g, IfParams);
    if (!p) return diag_internal(d, "out of memory");
    for (int b = 0; b < 2; b++) {
        const Graph *sub = ir_subgraph(g, op->callee[b]);
        if (sub->arena_bytes > p->arena_bytes) p->arena_bytes = sub->arena_bytes;
    }
    op->params = p;
    op->scratch_bytes = (size_t)p->arena_bytes;
    return 0;
}

static int emit_c(CgCtx *cg, const Graph *g, const IrOp *op, Diag *d) {
    (void)d;
    cg_line(cg, "const void *in[%d];", op->n_in > 1 ? op->n_in - 1 : 1);
    cg_line(cg, "void *out[%d];", op->n_out > 0 ? op->n_out : 1);
    cg_line(cg, "int rc;");
    for (int k = 1; k < op->n_in; k++) cg_line(cg, "in[%d] = %s;", k - 1, cg_in(cg, op, k));
    for (int k = 0; k < op->n_out; k++) cg_line(cg, "out[%d] = %s;", k, cg_out(cg, op, k));
    const char *arena = cg_scratch(cg, op); /* the branch's arena (void *: converts to unsigned char *) */
    cg_open(cg, "if (*%s) {", cg_in(cg, op, 0));
    cf_emit_call(cg, op->callee[0], "in", "out", arena);
    cg_close(cg, "}");
    cg_open(cg, "else {");
    cf_emit_call(cg, op->callee[1], "in", "out", arena);
    cg_close(cg, "}");
    (void)g;
    return 0;
}

static int64_t macs(const Graph *g, const IrOp *op) {
    (void)g, (void)op;
    return 0;
}

const OpDef op_def_if = {"IF", parse, check, prepare, NULL, emit_c, macs, 0};
