/* emit_inplace.c - which graph outputs may share the caller's buffer with a
 * graph input (see cg_inplace_input in cg_internal.h): the KV caches of LLM
 * decoders, whose exports take each cache as a signature input and give the
 * updated cache as an output written by one DYNAMIC_UPDATE_SLICE. When the
 * caller passes one buffer for both, the kernel skips its copy of the operand
 * (runtime/kernels/rt_dynamic_update_slice.c) and a decode step writes only
 * its new rows.
 *
 * The writer may also be a STABLEHLO_COMPOSITE that runs its decomposition
 * as a call (litert-torch's odml.cache_update): the call passes the caller's
 * input and output buffers through as the subgraph's, so the output is an
 * update in place when the decomposition's own output is one of its input
 * (this check, on the subgraph). */
#include "cg_internal.h"

/* The input position of writer w whose buffer its output k may share, or -1. */
static int writer_operand(const Graph *g, const IrOp *w, int k) {
    if (w->elided) return -1;
    if (w->kind == OP_DYNAMIC_UPDATE_SLICE) return w->n_in >= 1 && w->n_out == 1 ? 0 : -1;
    if (w->kind == OP_STABLEHLO_COMPOSITE && w->sched.kind == SCHED_REF && w->n_callee == 1) {
        const Graph *sub = ir_subgraph(g, w->callee[0]);
        return sub && sub != g && k < sub->n_outputs ? cg_inplace_input(sub, k) : -1;
    }
    return -1;
}

int cg_inplace_input(const Graph *g, int j) {
    int y = g->outputs[j], writer = -1, slot = -1;
    for (int i = 0; i < g->n_outputs; i++)
        if (i != j && g->outputs[i] == y) return -1;
    for (int i = 0; i < g->n_ops; i++) {
        const IrOp *op = &g->ops[i];
        if (op->dead) continue;
        for (int k = 0; k < op->n_out; k++)
            if (op->out[k] == y) {
                if (writer >= 0) return -1;
                writer = i, slot = k;
            }
    }
    if (writer < 0) return -1;
    const IrOp *w = &g->ops[writer];
    int pos = writer_operand(g, w, slot);
    if (pos < 0 || pos >= w->n_in) return -1;
    int x = w->in[pos], input = -1;
    for (int i = 0; i < g->n_inputs; i++)
        if (g->inputs[i] == x) {
            if (input >= 0) return -1; /* listed twice */
            input = i;
        }
    if (input < 0 || x == y) return -1;
    for (int i = 0; i < g->n_outputs; i++)
        if (g->outputs[i] == x) return -1;
    /* The operand's only reader is the update itself, once: nothing reads the old cache after it. */
    for (int i = 0; i < g->n_ops; i++) {
        const IrOp *op = &g->ops[i];
        if (op->dead) continue;
        for (int k = 0; k < op->n_in; k++)
            if (op->in[k] == x && (i != writer || k != pos)) return -1;
    }
    return input;
}
