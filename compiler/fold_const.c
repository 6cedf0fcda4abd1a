/* fold_const.c - compile-time constant operators (see fold_const.h). */
#include "fold_const.h"

#include <stdlib.h>

#include "ops.h"
#include "tfl_import.h"

/* Shape vectors are small; anything bigger is real data and stays at run time. */
#define FOLD_MAX_ELEMENTS 1024

static int foldable(const Graph *g, const IrOp *op) {
    if (op->dead || op->n_out == 0) return 0;
    const OpDef *def = op_def(op->kind);
    if (!def->prepare || !def->eval) return 0;
    for (int k = 0; k < op->n_out; k++) {
        const IrTensor *t = &g->tensors[op->out[k]];
        /* A float scalar too: a shape value cast to float (the limit of a float RANGE). */
        int shape_like = t->dtype == IR_I32 || t->dtype == IR_I64 || (t->dtype == IR_F32 && ir_tensor_numel(t) == 1);
        if (!shape_like || t->is_output || t->is_variable || t->unknown || ir_tensor_numel(t) > FOLD_MAX_ELEMENTS)
            return 0;
    }
    if (op->kind == OP_SHAPE) return 1; /* reads only its input's (static) shape */
    for (int k = 0; k < op->n_in; k++) {
        if (op->in[k] < 0) continue;
        const IrTensor *t = &g->tensors[op->in[k]];
        if (!t->data || t->is_variable) return 0;
    }
    return 1;
}

int fold_const_values(Graph *g, const IrOp *op, void **out, Diag *d) {
    const OpDef *def = op_def(op->kind);
    const void *in[TFL_MAX_IO_PTRS];
    static const int64_t nothing[2] = {0, 0};
    if (!def->eval || op->n_in > TFL_MAX_IO_PTRS || op->n_out > TFL_MAX_IO_PTRS) return 1;
    for (int k = 0; k < op->n_in; k++) {
        const IrTensor *t = op->in[k] < 0 ? NULL : &g->tensors[op->in[k]];
        in[k] = !t ? NULL : t->data ? (const void *)t->data : (const void *)nothing;
    }
    for (int k = 0; k < op->n_out; k++) {
        IrTensor *t = &g->tensors[op->out[k]];
        size_t bytes = (size_t)ir_tensor_bytes(t);
        out[k] = ir_alloc(g, bytes ? bytes : 1);
        if (!out[k]) return diag_internal(d, "out of memory");
    }
    void *scratch = op->scratch_bytes ? malloc(op->scratch_bytes) : NULL;
    if (op->scratch_bytes && !scratch) return diag_internal(d, "out of memory");
    def->eval(g, op, in, out, scratch);
    free(scratch);
    return 0;
}

void fold_const_commit(Graph *g, IrOp *op, void *const *out) {
    for (int k = 0; k < op->n_out; k++) {
        IrTensor *t = &g->tensors[op->out[k]];
        t->data = out[k];
        t->data_size = (size_t)ir_tensor_bytes(t);
        t->producer = -1;
    }
    op->dead = 1;
}

int fold_const_eval(Graph *g, IrOp *op, Diag *d) {
    void *out[TFL_MAX_IO_PTRS];
    int rc = op_def(op->kind)->prepare(g, op, d);
    if (rc) return rc;
    rc = fold_const_values(g, op, out, d);
    if (rc == DIAG_INTERNAL) return rc;
    if (!rc) fold_const_commit(g, op, out);
    return 0;
}

int fold_const_op(Graph *g, IrOp *op, int *folded, Diag *d) {
    *folded = 0;
    if (op->kind == OP_DENSIFY) {
        /* check() made sure the input is a constant of the output's shape and dtype. */
        IrTensor *in = &g->tensors[op->in[0]], *out = &g->tensors[op->out[0]];
        if (out->is_output) return 0; /* a graph output keeps its producer (a copy at run time) */
        out->data = in->data;
        out->data_size = in->data_size;
        out->producer = -1;
        op->dead = 1;
        *folded = 1;
        return 0;
    }
    if (!foldable(g, op)) return 0;
    int rc = fold_const_eval(g, op, d);
    *folded = !rc && op->dead;
    return rc;
}
