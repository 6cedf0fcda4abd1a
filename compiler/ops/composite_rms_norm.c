/* composite_rms_norm.c - whether a STABLEHLO_COMPOSITE is litert-torch's odml.rms_norm in the form its
 * decomposition computes, so that pass schedule may run it as one kernel (SCHED_RMS_NORM,
 * rt_opt_rms_norm_f32) with the same results, bit for bit. The decomposition must be exactly
 *     sq = MUL(x, x)             x: the subgraph's input 0, f32, normalized over its last axis
 *     m  = MEAN(sq)              over the last axis only
 *     v  = ADD(m, eps)           eps: an f32 scalar constant of the subgraph
 *     v  = RESHAPE(v)            (any number, rows kept) to x's shape with a last dim of 1
 *     r  = RSQRT(v)
 *     n  = MUL(x, r)
 *     y  = MUL(n, w)             w: the subgraph's input 1, f32, the last axis' size; y its output
 * (either operand order in the MULs and the ADD, no fused activation), each value read only by the
 * next op. Anything else (another eps form, a weight constant inside the subgraph, 1 + w, another
 * axis) is not matched and the composite calls its decomposition as before. */
#include "control_flow_common.h"

#include <float.h>
#include <string.h>

static int plain_binary(const IrOp *s, OpKind kind) {
    const rt_binary_params *p = s->params;
    return s->kind == kind && s->n_in == 2 && s->n_out == 1 && p && p->act_min <= -FLT_MAX && p->act_max >= FLT_MAX &&
           !s->fused[0];
}

/* The one live op reading t (-1 if none or several, or t is an output of the subgraph). */
static int only_reader(const Graph *sub, int t) {
    int found = -1;
    for (int k = 0; k < sub->n_outputs; k++)
        if (sub->outputs[k] == t) return -1;
    for (int i = 0; i < sub->n_ops; i++) {
        const IrOp *s = &sub->ops[i];
        if (s->dead) continue;
        for (int k = 0; k < s->n_in; k++)
            if (s->in[k] == t) {
                if (found >= 0 && found != i) return -1;
                found = i;
            }
    }
    return found;
}

static int other(const IrOp *s, int t) { return s->in[0] == t ? s->in[1] : s->in[1] == t ? s->in[0] : -2; }

static int f32(const IrTensor *t) { return t->dtype == IR_F32; }

int composite_rms_norm(const Graph *g, const IrOp *op, rt_rms_norm_params *p) {
    const CompositeOptions *o = op->options;
    if (!o || !o->name || strcmp(o->name, "odml.rms_norm") != 0 || op->n_in != 2 || op->n_out != 1) return 0;
    const Graph *sub = ir_subgraph(g, op->callee[0]);
    if (!sub || sub->n_inputs != 2 || sub->n_outputs != 1) return 0;
    const int x = sub->inputs[0], w = sub->inputs[1];
    const IrTensor *xt = &sub->tensors[x], *wt = &sub->tensors[w], *yt = &sub->tensors[sub->outputs[0]];
    if (!f32(xt) || !f32(wt) || !f32(yt) || xt->rank < 1 || xt->dims[xt->rank - 1] <= 0) return 0;
    const int64_t cols = xt->dims[xt->rank - 1], rows = ir_tensor_numel(xt) / cols;
    if (ir_tensor_numel(wt) != cols || wt->dims[wt->rank - 1] != cols || yt->rank != xt->rank) return 0;
    for (int k = 0; k < xt->rank; k++)
        if (yt->dims[k] != xt->dims[k]) return 0;
    if (rows > INT32_MAX || cols > INT32_MAX) return 0;
    int live = 0;
    for (int i = 0; i < sub->n_ops; i++) live += !sub->ops[i].dead;

    /* x's readers: the squaring MUL and the MUL by r. */
    int sq_op = -1, xr_op = -1;
    for (int i = 0; i < sub->n_ops; i++) {
        const IrOp *s = &sub->ops[i];
        if (s->dead) continue;
        int reads = 0;
        for (int k = 0; k < s->n_in; k++) reads += s->in[k] == x;
        if (!reads) continue;
        if (reads == 2 && sq_op < 0 && plain_binary(s, OP_MUL)) sq_op = i;
        else if (reads == 1 && xr_op < 0 && plain_binary(s, OP_MUL)) xr_op = i;
        else return 0;
    }
    if (sq_op < 0 || xr_op < 0) return 0;
    const IrOp *sq = &sub->ops[sq_op];
    const IrTensor *sqt = &sub->tensors[sq->out[0]];
    if (!f32(sqt) || ir_tensor_numel(sqt) != rows * cols) return 0;

    int at = only_reader(sub, sq->out[0]);
    if (at < 0 || sub->ops[at].kind != OP_MEAN || sub->ops[at].fused[0]) return 0;
    const IrOp *mean = &sub->ops[at];
    const rt_reduce_params *rp = mean->params;
    if (!rp || mean->in[0] != sq->out[0] || rp->rank != xt->rank || rp->reduce_count != cols ||
        rp->out_count != rows || rp->out_stride[rp->rank - 1] != 0 || !f32(&sub->tensors[mean->out[0]]))
        return 0;

    at = only_reader(sub, mean->out[0]);
    if (at < 0 || !plain_binary(&sub->ops[at], OP_ADD)) return 0;
    const IrOp *add = &sub->ops[at];
    const int eps_t = other(add, mean->out[0]);
    if (eps_t < 0 || !sub->tensors[eps_t].data || !f32(&sub->tensors[eps_t]) || ir_tensor_numel(&sub->tensors[eps_t]) != 1 ||
        ir_tensor_numel(&sub->tensors[add->out[0]]) != rows)
        return 0;
    int v = add->out[0], n_ops = 5;
    for (at = only_reader(sub, v); at >= 0 && sub->ops[at].kind == OP_RESHAPE; at = only_reader(sub, v)) {
        if (sub->ops[at].in[0] != v) return 0;
        v = sub->ops[at].out[0];
        n_ops++;
    }
    if (at < 0 || sub->ops[at].kind != OP_RSQRT || sub->ops[at].fused[0] || sub->ops[at].in[0] != v) return 0;
    const int r = sub->ops[at].out[0];
    const IrTensor *rt = &sub->tensors[r];
    if (!f32(rt) || rt->rank != xt->rank || rt->dims[rt->rank - 1] != 1) return 0;
    for (int k = 0; k + 1 < xt->rank; k++)
        if (rt->dims[k] != xt->dims[k]) return 0;
    if (only_reader(sub, r) != xr_op || other(&sub->ops[xr_op], r) != x) return 0;

    const int nt = sub->ops[xr_op].out[0];
    at = only_reader(sub, nt);
    if (at < 0 || !plain_binary(&sub->ops[at], OP_MUL) || other(&sub->ops[at], nt) != w ||
        sub->ops[at].out[0] != sub->outputs[0] || ir_tensor_numel(&sub->tensors[nt]) != rows * cols)
        return 0;
    /* w read only there; nothing else in the subgraph. */
    for (int i = 0; i < sub->n_ops; i++)
        for (int k = 0; !sub->ops[i].dead && k < sub->ops[i].n_in; k++)
            if (sub->ops[i].in[k] == w && i != at) return 0;
    if (live != n_ops + 1) return 0;
    memset(p, 0, sizeof *p);
    p->rows = (int32_t)rows;
    p->cols = (int32_t)cols;
    memcpy(&p->eps, sub->tensors[eps_t].data, sizeof p->eps);
    return 1;
}
