/* pass_fuse_layer_norm.c - fuses LayerNorm as the TFLite converter writes
 * it (Keras LayerNormalization over the last axis) into one row kernel:
 *     mean = MEAN(x)                    last axis, keepdims
 *     var  = MEAN(SQUARED_DIFFERENCE(x, mean))
 *     inv  = MUL(RSQRT(ADD(var, eps)), gamma)     (the MUL absent without scale)
 *     y    = ADD(MUL(x, inv), shift)
 *   shift = MUL(NEG(mean), inv)                   (no center, or beta = 0 folded)
 *         | SUB(beta, MUL(mean, inv))
 * Ten ops and four row-sized temporaries become rt_opt_layer_norm_f32,
 * which reads x twice and writes y once per row, computing the same
 * expression per element: y = x * inv_c + (beta_c - mean * inv_c).
 *
 * Needs: schedule (both MEANs SCHED_ROW_MEAN over the last axis). The final
 * ADD carries the fused kernel (inputs x, gamma or -1, beta or -1); every
 * other op of the pattern must be read only inside it and not be a graph
 * output. f32 only. */
#include <float.h>
#include <string.h>

#include "ops.h"
#include "passes.h"

typedef struct Ln {
    int x, gamma, beta, out;
    float eps;
    int ops[10], n_ops;
} Ln;

static int const_f32(const Graph *g, int t) {
    return t >= 0 && g->tensors[t].data && g->tensors[t].dtype == IR_F32;
}

/* A constant of C elements laid along the last axis (dims 1 elsewhere). */
static int per_column(const Graph *g, int t, int64_t c) {
    if (!const_f32(g, t) || ir_tensor_numel(&g->tensors[t]) != c) return 0;
    const IrTensor *x = &g->tensors[t];
    return x->rank >= 1 && x->dims[x->rank - 1] == c;
}

static int plain(const Graph *g, int op) {
    const rt_binary_params *p = g->ops[op].params;
    return g->ops[op].sched.kind == SCHED_BINARY && p->act_min <= -FLT_MAX && p->act_max >= FLT_MAX;
}

/* The other operand of binary op `op` when one of its inputs is t, else -1. */
static int other_input(const Graph *g, int op, int t) {
    const IrOp *o = &g->ops[op];
    if (o->n_in != 2) return -1;
    return o->in[0] == t ? o->in[1] : o->in[1] == t ? o->in[0] : -1;
}

/* The single reader of t, if it is an op of `kind`. */
static int next(const Graph *g, const int *readers, int t, OpKind kind) {
    int r = pass_only_reader(g, readers, t);
    return r >= 0 && g->ops[r].kind == kind ? r : -1;
}

/* Live readers of t (up to max), in op order. */
static int readers_of(const Graph *g, int t, int *out, int max) {
    int n = 0;
    for (int i = g->tensors[t].producer + 1; i < g->n_ops && n <= max; i++) {
        const IrOp *op = &g->ops[i];
        if (op->dead) continue;
        for (int k = 0; k < op->n_in; k++)
            if (op->in[k] == t) {
                if (n < max) out[n] = i;
                n++;
                break;
            }
    }
    return n;
}

static int row_mean_of(const Graph *g, int op, int x) {
    const IrOp *m = &g->ops[op];
    if (m->kind != OP_MEAN || m->sched.kind != SCHED_ROW_MEAN || m->in[0] != x) return 0;
    const rt_reduce_params *p = m->params;
    const IrTensor *t = &g->tensors[x];
    return t->rank >= 1 && p->reduce_count == t->dims[t->rank - 1];
}

static int match(const Graph *g, const int *readers, int mean_op, Ln *ln) {
    memset(ln, 0, sizeof *ln);
    ln->x = g->ops[mean_op].in[0];
    ln->gamma = ln->beta = -1;
    const IrTensor *xt = &g->tensors[ln->x];
    if (xt->dtype != IR_F32 || !row_mean_of(g, mean_op, ln->x)) return 0;
    int64_t c = xt->dims[xt->rank - 1];
    int mean = g->ops[mean_op].out[0], rd[3];
    if (g->tensors[mean].is_output || readers_of(g, mean, rd, 3) != 2) return 0;
    /* mean's readers: the SQUARED_DIFFERENCE and NEG (or the MUL by inv) */
    int sqd = g->ops[rd[0]].kind == OP_SQUARED_DIFFERENCE ? rd[0] : rd[1], other = sqd == rd[0] ? rd[1] : rd[0];
    if (g->ops[sqd].kind != OP_SQUARED_DIFFERENCE || other_input(g, sqd, mean) != ln->x ||
        g->ops[sqd].sched.kind != SCHED_BINARY)
        return 0;
    int var_op = next(g, readers, g->ops[sqd].out[0], OP_MEAN);
    if (var_op < 0 || !row_mean_of(g, var_op, g->ops[sqd].out[0])) return 0;
    int add_eps = next(g, readers, g->ops[var_op].out[0], OP_ADD);
    if (add_eps < 0 || !plain(g, add_eps)) return 0;
    int eps_t = other_input(g, add_eps, g->ops[var_op].out[0]);
    if (!const_f32(g, eps_t) || ir_tensor_numel(&g->tensors[eps_t]) != 1) return 0;
    memcpy(&ln->eps, g->tensors[eps_t].data, sizeof ln->eps);
    int rsq = next(g, readers, g->ops[add_eps].out[0], OP_RSQRT);
    if (rsq < 0 || g->tensors[g->ops[rsq].out[0]].dtype != IR_F32) return 0;
    int inv = g->ops[rsq].out[0], gmul = next(g, readers, inv, OP_MUL), n = 0;
    if (gmul >= 0 && plain(g, gmul) && per_column(g, other_input(g, gmul, inv), c)) {
        ln->gamma = other_input(g, gmul, inv);
        inv = g->ops[gmul].out[0];
    } else {
        gmul = -1;
    }
    /* inv's two readers: MUL(x, inv) and MUL(neg or mean, inv) */
    int ir[3];
    if (g->tensors[inv].is_output || readers_of(g, inv, ir, 3) != 2) return 0;
    int xs = other_input(g, ir[0], inv) == ln->x ? ir[0] : ir[1], ms = xs == ir[0] ? ir[1] : ir[0];
    if (g->ops[xs].kind != OP_MUL || g->ops[ms].kind != OP_MUL || other_input(g, xs, inv) != ln->x ||
        !plain(g, xs) || !plain(g, ms))
        return 0;
    int final = next(g, readers, g->ops[xs].out[0], OP_ADD), shift;
    if (final < 0 || !plain(g, final)) return 0;
    shift = other_input(g, final, g->ops[xs].out[0]);
    int neg = -1, sub = -1;
    if (g->ops[other].kind == OP_NEG && other_input(g, ms, inv) == g->ops[other].out[0]) {
        neg = other;
        if (next(g, readers, g->ops[neg].out[0], OP_MUL) != ms || shift != g->ops[ms].out[0]) return 0;
    } else if (other == ms && other_input(g, ms, inv) == mean) {
        sub = next(g, readers, g->ops[ms].out[0], OP_SUB);
        if (sub < 0 || !plain(g, sub) || g->ops[sub].in[1] != g->ops[ms].out[0] || shift != g->ops[sub].out[0] ||
            !per_column(g, g->ops[sub].in[0], c))
            return 0;
        ln->beta = g->ops[sub].in[0];
    } else {
        return 0;
    }
    if (next(g, readers, shift, OP_ADD) != final) return 0;
    /* Output shape = x's shape (no broadcast beyond x). */
    const IrTensor *ot = &g->tensors[g->ops[final].out[0]];
    if (ot->dtype != IR_F32 || ir_tensor_numel(ot) != ir_tensor_numel(xt)) return 0;
    int all[10] = {mean_op, sqd, var_op, add_eps, rsq, gmul, xs, ms, neg >= 0 ? neg : sub, final};
    for (int k = 0; k < 10; k++)
        if (all[k] >= 0) ln->ops[n++] = all[k];
    ln->n_ops = n;
    ln->out = final;
    return 1;
}

int pass_fuse_layer_norm(Graph *g, Diag *d) {
    if (g->opt_level < 1) return 0;
    int *readers = pass_count_readers(g);
    if (!readers) return diag_internal(d, "out of memory");
    int fused = 0;
    for (int i = 0; i < g->n_ops; i++) {
        Ln ln;
        if (g->ops[i].dead || g->ops[i].kind != OP_MEAN || !match(g, readers, i, &ln)) continue;
        rt_opt_ln_params *p = ir_alloc(g, sizeof *p);
        int *in = ir_alloc(g, sizeof(int) * 3);
        if (!p || !in) return diag_internal(d, "out of memory");
        const IrTensor *xt = &g->tensors[ln.x];
        memset(p, 0, sizeof *p);
        p->cols = (int32_t)xt->dims[xt->rank - 1];
        p->rows = (int32_t)(ir_tensor_numel(xt) / (p->cols > 0 ? p->cols : 1));
        p->eps = ln.eps;
        for (int k = 0; k < ln.n_ops; k++) {
            IrOp *op = &g->ops[ln.ops[k]];
            for (int j = 0; j < op->n_in; j++)
                if (op->in[j] >= 0) readers[op->in[j]]--;
            if (ln.ops[k] != ln.out) op->dead = 1;
        }
        in[0] = ln.x;
        in[1] = ln.gamma;
        in[2] = ln.beta;
        for (int k = 0; k < 3; k++)
            if (in[k] >= 0) readers[in[k]]++;
        IrOp *f = &g->ops[ln.out];
        f->in = in;
        f->n_in = 3;
        f->fused[0] = '\0';
        for (int k = 0; k < ln.n_ops; k++)
            if (ln.ops[k] != ln.out) pass_add_fused_name(f, ir_op_name(g->ops[ln.ops[k]].kind));
        f->sched.kind = SCHED_LAYER_NORM;
        f->sched.kparams = p;
        fused++;
    }
    if (fused) ir_set_producers(g);
    return 0;
}
