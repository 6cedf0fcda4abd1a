/* pass_sink.c - scheduling: an op that reads only constants (typically the
 * DEQUANTIZE of float16 or int8 weights) runs right before its first
 * consumer instead of wherever the converter put it (often the very start),
 * so its output is live for one op, not the whole model. Needs: fold_dead.
 * Results are unchanged: such an op depends on nothing computed at run time. */
#include <stdlib.h>
#include <string.h>

#include "passes.h"

static int reads_only_constants(const Graph *g, const IrOp *op) {
    if (op->dead || op->n_in == 0) return 0;
    for (int k = 0; k < op->n_in; k++) {
        if (op->in[k] < 0) continue;
        if (!g->tensors[op->in[k]].data) return 0;
    }
    for (int k = 0; k < op->n_out; k++) {
        const IrTensor *t = &g->tensors[op->out[k]];
        if (t->is_variable || t->is_output) return 0;
    }
    return 1;
}

int pass_sink(Graph *g, Diag *d) {
    int n = g->n_ops, max_in = 1;
    if (n == 0) return 0;
    for (int i = 0; i < n; i++)
        if (g->ops[i].n_in > max_in) max_in = g->ops[i].n_in;
    IrOp *order = malloc(sizeof(IrOp) * (size_t)n);
    char *placed = calloc((size_t)n, 1), *sink = calloc((size_t)n, 1);
    int *sink_of = malloc(sizeof(int) * (size_t)(g->n_tensors + 1)), *due = malloc(sizeof(int) * (size_t)max_in);
    if (!order || !placed || !sink || !sink_of || !due) {
        free(order), free(placed), free(sink), free(sink_of), free(due);
        return diag_internal(d, "out of memory");
    }
    /* sink_of[t]: the constant-only op that writes tensor t, or -1. */
    for (int t = 0; t < g->n_tensors; t++) sink_of[t] = -1;
    for (int i = 0; i < n; i++) {
        sink[i] = (char)reads_only_constants(g, &g->ops[i]);
        for (int k = 0; sink[i] && k < g->ops[i].n_out; k++) sink_of[g->ops[i].out[k]] = i;
    }
    int m = 0;
    for (int i = 0; i < n; i++) {
        if (sink[i]) continue;
        /* Constant-only producers this op reads go right before it, in their original order. */
        const IrOp *op = &g->ops[i];
        int n_due = 0;
        for (int k = 0; k < op->n_in; k++) {
            int j = op->in[k] >= 0 ? sink_of[op->in[k]] : -1;
            if (j < 0 || placed[j]) continue;
            placed[j] = 1;
            int at = n_due++; /* insertion sort: an op has few inputs */
            while (at > 0 && due[at - 1] > j) {
                due[at] = due[at - 1];
                at--;
            }
            due[at] = j;
        }
        for (int k = 0; k < n_due; k++) order[m++] = g->ops[due[k]];
        order[m++] = g->ops[i];
    }
    /* Constant-only ops nobody reads (dead or feeding only dead ops) keep their place at the end. */
    for (int j = 0; j < n; j++)
        if (sink[j] && !placed[j]) order[m++] = g->ops[j];
    memcpy(g->ops, order, sizeof(IrOp) * (size_t)n);
    ir_set_producers(g);
    free(order), free(placed), free(sink), free(sink_of), free(due);
    return 0;
}
