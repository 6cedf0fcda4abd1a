/* pass_alias.c - in-place reuse. Needs: prepare.
 *
 * 1. RESHAPE, SQUEEZE and EXPAND_DIMS only reinterpret their input's bytes:
 *    the output shares the input's storage and the op emits no code.
 * 2. Elementwise ops (the kernels read element i of every input before they
 *    write element i of the output) write over an input that has the
 *    output's shape and dtype when no later op reads that input's storage.
 *    The LayerNorm kernel fused into an ADD (pass fuse_layer_norm) reads a
 *    row fully before writing it, so it may too.
 * Neither applies when a side lives outside the arena (graph inputs and
 * outputs are caller buffers) or is a constant or state. */
#include <stdlib.h>
#include <string.h>

#include "passes.h"

static int arena_resident(const IrTensor *t) {
    return !t->data && !t->is_variable && !t->is_input && !t->is_output;
}

/* Ops whose kernels are safe with the output aliasing a same-shaped input. */
static int elementwise_in_place(OpKind k) {
    switch (k) {
    case OP_ADD: case OP_SUB: case OP_MUL: case OP_DIV: case OP_MAXIMUM: case OP_MINIMUM:
    case OP_SQUARED_DIFFERENCE: case OP_RELU: case OP_RELU6: case OP_RELU_N1_TO_1: case OP_LOGISTIC:
    case OP_TANH: case OP_ABS: case OP_NEG: case OP_EXP: case OP_LOG: case OP_SQRT: case OP_RSQRT:
    case OP_LEAKY_RELU: case OP_HARD_SWISH: case OP_GELU:
        return 1;
    default:
        return 0;
    }
}

static int same_layout(const IrTensor *a, const IrTensor *b) {
    if (a->dtype != b->dtype || a->rank != b->rank) return 0;
    for (int i = 0; i < a->rank; i++)
        if (a->dims[i] != b->dims[i]) return 0;
    return 1;
}

int pass_alias(Graph *g, Diag *d) {
    /* last[t]: the last live op reading tensor t, then, for a storage root,
     * the last live op reading any tensor that shares its storage so far. An
     * input can be written over at op i when no op after i reads its storage. */
    int *last = malloc(sizeof(int) * (size_t)(g->n_tensors + 1));
    if (!last) return diag_internal(d, "out of memory");
    for (int t = 0; t < g->n_tensors; t++) last[t] = -1;
    for (int i = 0; i < g->n_ops; i++)
        for (int k = 0; !g->ops[i].dead && k < g->ops[i].n_in; k++)
            if (g->ops[i].in[k] >= 0) last[g->ops[i].in[k]] = i;
    for (int t = 0; t < g->n_tensors; t++) {
        int root = ir_storage_root(g, t);
        if (root != t && last[t] > last[root]) last[root] = last[t];
    }
    for (int i = 0; i < g->n_ops; i++) {
        IrOp *op = &g->ops[i];
        if (op->dead || op->n_in < 1 || op->n_out != 1 || op->in[0] < 0) continue;
        IrTensor *out = &g->tensors[op->out[0]];
        if (!arena_resident(out) || out->alias_of >= 0) continue;
        int root = -1;
        if (op->kind == OP_RESHAPE || op->kind == OP_SQUEEZE || op->kind == OP_EXPAND_DIMS) {
            IrTensor *in = &g->tensors[op->in[0]];
            if (!arena_resident(in) || ir_tensor_bytes(in) != ir_tensor_bytes(out)) continue;
            root = ir_storage_root(g, in->id);
            op->elided = 1;
        } else if (elementwise_in_place(op->kind) && op->sched.kind != SCHED_ATTENTION) {
            /* Fused kernels are in place only where their file says so. */
            int n_data = op->n_in < 2 ? op->n_in : 2;
            for (int k = 0; k < n_data && root < 0; k++) {
                if (op->in[k] < 0) continue;
                const IrTensor *in = &g->tensors[op->in[k]];
                if (!arena_resident(in) || !same_layout(in, out)) continue;
                int r = ir_storage_root(g, in->id);
                if (last[r] <= i) root = r; /* nothing after op i reads it */
            }
        }
        if (root < 0) continue;
        out->alias_of = root;
        if (last[out->id] > last[root]) last[root] = last[out->id];
    }
    free(last);
    return 0;
}
