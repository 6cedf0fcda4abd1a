/* emit_inplace.c - which graph outputs may share the caller's buffer with a
 * graph input (see cg_inplace_input in cg_internal.h): the KV caches of LLM
 * decoders, whose exports take each cache as a signature input and give the
 * updated cache as an output written by one DYNAMIC_UPDATE_SLICE. When the
 * caller passes one buffer for both, the kernel skips its copy of the operand
 * (runtime/kernels/rt_dynamic_update_slice.c) and a decode step writes only
 * its new rows. */
#include "cg_internal.h"

int cg_inplace_input(const Graph *g, int j) {
    int y = g->outputs[j], writer = -1;
    for (int i = 0; i < g->n_outputs; i++)
        if (i != j && g->outputs[i] == y) return -1;
    for (int i = 0; i < g->n_ops; i++) {
        const IrOp *op = &g->ops[i];
        if (op->dead) continue;
        for (int k = 0; k < op->n_out; k++)
            if (op->out[k] == y) {
                if (writer >= 0) return -1;
                writer = i;
            }
    }
    if (writer < 0) return -1;
    const IrOp *w = &g->ops[writer];
    if (w->kind != OP_DYNAMIC_UPDATE_SLICE || w->elided || w->n_in < 1 || w->n_out != 1) return -1;
    int x = w->in[0], input = -1;
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
            if (op->in[k] == x && (i != writer || k != 0)) return -1;
    }
    return input;
}
