/* pass_fold_transpose.c - folds a TRANSPOSE that feeds a BATCH_MATMUL into
 * the matmul's strides: the matmul reads the transpose's input directly and
 * the transpose disappears (no copy, no buffer).
 *
 * Needs: prepare (the BATCH_MATMUL params hold element strides). Runs only at
 * opt level >= 1. A transpose is folded when its output feeds nothing but
 * the matmul and is not a graph output. For a transposed operand
 * T = transpose(X, perm), T's dimension d walks X with stride XS[perm[d]]
 * (XS: X's dense strides), so every stride the params derived from T's
 * dense layout is replaced by that one. Both the reference and the
 * optimized BATCH_MATMUL kernels take arbitrary strides. */
#include <stdlib.h>
#include <string.h>

#include "ops.h"
#include "passes.h"

/* Per tensor: how many live ops read it, a graph output counting 2. Folding
 * keeps the counts of the tensors it asks about later (the matmul reads the
 * transpose's input instead of the dead transpose). */
static int *count_consumers(const Graph *g) {
    int *n = calloc((size_t)g->n_tensors + 1, sizeof(int));
    if (!n) return NULL;
    for (int i = 0; i < g->n_ops; i++) {
        const IrOp *op = &g->ops[i];
        for (int k = 0; !op->dead && k < op->n_in; k++)
            if (op->in[k] >= 0) n[op->in[k]]++;
    }
    for (int i = 0; i < g->n_outputs; i++) n[g->outputs[i]] += 2;
    return n;
}

/* Rewrites the strides of operand `side` (0 lhs, 1 rhs) of a BATCH_MATMUL. */
static void restride(rt_bmm_params *p, int side, const IrTensor *t, const IrTensor *x, const int *perm, int adj) {
    int64_t xs[IR_MAX_RANK];
    int r = t->rank, br = p->batch_rank;
    xs[x->rank - 1] = 1;
    for (int q = x->rank - 2; q >= 0; q--) xs[q] = xs[q + 1] * x->dims[q + 1];
    int32_t rows = (int32_t)xs[perm[r - 2]], cols = (int32_t)xs[perm[r - 1]];
    for (int i = 0; i < br; i++) {
        int it = i - (br - (r - 2));
        int32_t *bs = side ? &p->rhs_bstride[i] : &p->lhs_bstride[i];
        if (it >= 0 && *bs != 0) *bs = (int32_t)xs[perm[it]];
    }
    if (side == 0) {
        p->lhs_si = adj ? cols : rows;
        p->lhs_sk = adj ? rows : cols;
    } else {
        p->rhs_sk = adj ? cols : rows;
        p->rhs_sj = adj ? rows : cols;
    }
}

/* Whether operand `side` is read adjoint (adj_x / adj_y), from the shapes,
 * and where a square operand leaves both readings possible, from the dense
 * strides prepare chose. */
static int adjoint(const rt_bmm_params *p, int side, const IrTensor *t) {
    int64_t r2 = t->dims[t->rank - 2], r1 = t->dims[t->rank - 1];
    int64_t outer = side == 0 ? p->m : p->k, inner = side == 0 ? p->k : p->n;
    int plain = outer == r2 && inner == r1, adj = outer == r1 && inner == r2;
    if (plain != adj) return adj;
    return side == 0 ? p->lhs_sk != 1 : p->rhs_sj != 1;
}

int pass_fold_transpose(Graph *g, Diag *d) {
    if (g->opt_level < 1) return 0;
    int *consumers = count_consumers(g);
    if (!consumers) return diag_internal(d, "out of memory");
    for (int i = 0; i < g->n_ops; i++) {
        IrOp *op = &g->ops[i];
        if (op->dead || op->kind != OP_BATCH_MATMUL || !op->params) continue;
        rt_bmm_params *p = op->params;
        for (int side = 0; side < 2; side++) {
            int tid = op->in[side];
            int prod = g->tensors[tid].producer;
            if (prod < 0 || g->ops[prod].dead || g->ops[prod].kind != OP_TRANSPOSE) continue;
            IrOp *t = &g->ops[prod];
            int perm[IR_MAX_RANK];
            if (pass_transpose_perm(g, t, perm) || consumers[tid] != 1) continue;
            const IrTensor *x = &g->tensors[t->in[0]];
            /* The strides must fit the params' int32 fields. */
            if (ir_tensor_numel(x) > INT32_MAX) continue;
            int adj = adjoint(p, side, &g->tensors[tid]);
            restride(p, side, &g->tensors[tid], x, perm, adj);
            op->in[side] = t->in[0];
            t->dead = 1;
            size_t len = strlen(op->fused);
            if (len + 12 < sizeof op->fused) memcpy(op->fused + len, len ? ", TRANSPOSE" : "TRANSPOSE", len ? 12 : 10);
        }
    }
    ir_set_producers(g);
    free(consumers);
    return 0;
}
