/* pass_util.c - reader counts shared by the fusion passes (one scan of the
 * ops, so a pass stays linear in the graph size). */
#include <string.h>

#include "passes.h"

int *pass_count_readers(Graph *g) {
    int *readers = ir_alloc(g, sizeof(int) * (size_t)(g->n_tensors > 0 ? g->n_tensors : 1));
    if (!readers) return NULL;
    memset(readers, 0, sizeof(int) * (size_t)g->n_tensors);
    for (int i = 0; i < g->n_ops; i++) {
        const IrOp *op = &g->ops[i];
        if (op->dead) continue;
        for (int k = 0; k < op->n_in; k++)
            if (op->in[k] >= 0) readers[op->in[k]]++;
    }
    return readers;
}

int pass_only_reader(const Graph *g, const int *readers, int t) {
    if (t < 0 || readers[t] != 1 || g->tensors[t].is_output) return -1;
    for (int i = g->tensors[t].producer + 1; i < g->n_ops; i++) {
        const IrOp *op = &g->ops[i];
        if (op->dead) continue;
        for (int k = 0; k < op->n_in; k++)
            if (op->in[k] == t) return i;
    }
    return -1;
}

int pass_producer(const Graph *g, int t, OpKind kind) {
    int p = t >= 0 ? g->tensors[t].producer : -1;
    return p >= 0 && !g->ops[p].dead && g->ops[p].kind == kind ? p : -1;
}

void pass_add_fused_name(IrOp *op, const char *name) {
    size_t len = strlen(op->fused), n = strlen(name);
    if (len + n + 3 >= sizeof op->fused) return;
    if (len) {
        memcpy(op->fused + len, ", ", 2);
        len += 2;
    }
    memcpy(op->fused + len, name, n + 1);
}
