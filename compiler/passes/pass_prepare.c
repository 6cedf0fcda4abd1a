/* pass_prepare.c - lowers every op to its kernel parameters (OpDef.prepare):
 * padding, strides, requantization multipliers, all computed at compile time.
 * Needs: sink. */
#include "ops.h"
#include "passes.h"

/* An op whose data input (input 0) has no elements but whose output has some
 * would read nothing real; only ops that fill their output without it (PAD,
 * CONCATENATION, SHAPE) are meaningful there. Reject the rest up front rather
 * than trusting every kernel with zero-sized dimensions. */
static int empty_input_allowed(OpKind k) {
    return k == OP_PAD || k == OP_PADV2 || k == OP_CONCATENATION || k == OP_SHAPE;
}

static int check_empty_input(const Graph *g, const IrOp *op, Diag *d) {
    if (op->n_in < 1 || op->in[0] < 0 || op->n_out < 1 || empty_input_allowed(op->kind)) return 0;
    const IrTensor *in = &g->tensors[op->in[0]], *out = &g->tensors[op->out[0]];
    if (ir_tensor_numel(in) == 0 && ir_tensor_numel(out) > 0)
        return diag_user(d, "operator %d (%s): input tensor '%s' has a zero-sized dimension but output '%s' has %lld "
                            "elements; not supported",
                         op->tfl_index, ir_op_name(op->kind), in->name, out->name, (long long)ir_tensor_numel(out));
    return 0;
}

int pass_prepare(Graph *g, Diag *d) {
    int failed = 0;
    for (int i = 0; i < g->n_ops; i++) {
        IrOp *op = &g->ops[i];
        if (op->dead) continue;
        const OpDef *def = op_def(op->kind);
        /* Control flow (n_callee > 0) has no eval: the interpreter runs its subgraphs itself. */
        if (!def || !def->prepare || (!def->eval && !op->n_callee)) {
            diag_user(d, "operator %d: %s is not supported (no kernel)", op->tfl_index, ir_op_name(op->kind));
            failed = 1;
            continue;
        }
        if (check_empty_input(g, op, d)) {
            failed = 1;
            continue;
        }
        int rc = def->prepare(g, op, d);
        if (rc == DIAG_INTERNAL) return rc;
        if (rc) failed = 1;
        else if (!op->params)
            return diag_internal(d, "operator %d (%s): prepare set no params", op->tfl_index, ir_op_name(op->kind));
    }
    return failed ? DIAG_USER : 0;
}
