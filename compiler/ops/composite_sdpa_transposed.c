/* composite_sdpa_transposed.c - whether a STABLEHLO_COMPOSITE is odml.sdpa_transposed in the form
 * litert-torch's Hugging Face export writes with its GPU composites (use_sdpa_composite), so that
 * pass schedule may run it as the SDPA kernel (SCHED_SDPA, rt_opt_sdpa_f32 with `transposed`) on the
 * caches as they lie. Operands: q [B, N, T, H] (already scaled), k [B, G, S, H], v transposed
 * [B, G, H, S], a boolean mask [B or 1, 1, T or 1, S] (true: attend), and optionally an int32
 * param_tensor (LiteRT-LM's GPU parameters) that the decomposition must not read; out [B, N, T, H].
 * The decomposition must be
 *     qp = RESHAPE(q) (and MULs by f32 scalar constants: the scale)  the N/G query heads of a KV group
 *                                                                     packed into its rows
 *     the mask through CAST, CONCATENATION of copies of one tensor (not along its last axis),
 *     NOT_EQUAL with a zero scalar constant and RESHAPEs              each packed row reads its row t
 *     l  = BATCH_MATMUL(qp, k)     k the subgraph's input 1 as it is, read as [S, H] rows (adj_y)
 *     l  = SELECT_V2(mask, l, c)   c an f32 scalar constant: a masked key's score
 *     pr = SOFTMAX(l)              beta 1
 *     o  = BATCH_MATMUL(pr, v)     v the subgraph's input 2 as it is, read as [H, S] (adj_y)
 *     out = RESHAPE(o)
 * or the same with the last four ops fused by pass fuse_attention (which runs on the decomposition
 * first): one SCHED_ATTENTION op on (qp, k, v, mask) that keeps the scores where the mask is true,
 * f32 throughout, K and V read with the strides above, its output dense.
 * Anything else is not matched and the composite calls its decomposition. */
#include "control_flow_common.h"

#include <string.h>

/* Whether constant t is one element equal to zero (any dtype up to 8 bytes). */
static int zero_scalar(const Graph *g, const IrTensor *t) {
    static const unsigned char zero[8];
    size_t sz = ir_dtype_size(t->dtype);
    (void)g;
    return t->data && ir_tensor_numel(t) == 1 && sz <= sizeof zero && !memcmp(t->data, zero, sz);
}

int composite_sdpa_transposed(const Graph *g, const IrOp *op, rt_opt_sdpa_params *p) {
    if ((op->n_in != 4 && op->n_in != 5) || op->n_out != 1) return 0;
    const IrTensor *q = op_cin(g, op, 0), *k = op_cin(g, op, 1), *v = op_cin(g, op, 2), *m = op_cin(g, op, 3);
    const IrTensor *out = &g->tensors[op->out[0]];
    if (q->dtype != IR_F32 || k->dtype != IR_F32 || v->dtype != IR_F32 || out->dtype != IR_F32 || m->dtype != IR_BOOL)
        return 0;
    if (q->rank != 4 || k->rank != 4 || v->rank != 4 || out->rank != 4 || m->rank != 4) return 0;
    for (int i = 0; i < 4; i++)
        if (out->dims[i] != q->dims[i]) return 0;
    const int64_t B = q->dims[0], N = q->dims[1], T = q->dims[2], H = q->dims[3], G = k->dims[1], S = k->dims[2];
    if (k->dims[0] != B || k->dims[3] != H || v->dims[0] != B || v->dims[1] != G || v->dims[2] != H || v->dims[3] != S)
        return 0;
    if (G <= 0 || N % G || (m->dims[0] != 1 && m->dims[0] != B) || m->dims[1] != 1 || (m->dims[2] != 1 && m->dims[2] != T) ||
        m->dims[3] != S)
        return 0;
    const Graph *sub = ir_subgraph(g, op->callee[0]);
    if (sub->n_inputs != op->n_in || sub->n_outputs != 1) return 0;
    const int in_k = sub->inputs[1], in_v = sub->inputs[2];
    const IrOp *bmm1 = NULL, *bmm2 = NULL, *sel = NULL, *soft = NULL, *att = NULL;
    int n_ne = 0;
    float scale = 1.0f, fill = 0.0f;
    for (int i = 0; i < sub->n_ops; i++) {
        const IrOp *s = &sub->ops[i];
        float c;
        if (s->dead) continue;
        if (op->n_in == 5)
            for (int j = 0; j < s->n_in; j++)
                if (s->in[j] == sub->inputs[4]) return 0; /* the param tensor is read */
        switch (s->kind) {
        case OP_RESHAPE: case OP_CAST: break;
        case OP_CONCATENATION: {
            const IrTensor *a = &sub->tensors[s->in[0]], *o = &sub->tensors[s->out[0]];
            for (int j = 1; j < s->n_in; j++)
                if (s->in[j] != s->in[0]) return 0;
            if (a->rank < 1 || o->rank != a->rank || o->dims[o->rank - 1] != a->dims[a->rank - 1]) return 0;
            break;
        }
        case OP_NOT_EQUAL:
            if (!zero_scalar(sub, &sub->tensors[s->in[1]]) && !zero_scalar(sub, &sub->tensors[s->in[0]])) return 0;
            n_ne++;
            break;
        case OP_MUL:
            if (!composite_f32_scalar(&sub->tensors[s->in[1]], &c) && !composite_f32_scalar(&sub->tensors[s->in[0]], &c)) return 0;
            scale *= c;
            break;
        case OP_BATCH_MATMUL:
            if (s->sched.kind == SCHED_ATTENTION) { /* pass fuse_attention ran on the decomposition */
                if (att) return 0;
                att = s;
                break;
            }
            if (bmm2) return 0;
            if (bmm1) bmm2 = s;
            else bmm1 = s;
            break;
        case OP_SELECT_V2:
            if (sel || s->n_in != 3 || !composite_f32_scalar(&sub->tensors[s->in[2]], &fill)) return 0;
            sel = s;
            break;
        case OP_SOFTMAX: {
            const rt_softmax_params *sp = s->params;
            if (soft || !sp || sp->beta != 1.0f) return 0;
            soft = s;
            break;
        }
        default: return 0;
        }
    }
    if (n_ne != 1) return 0;
    const rt_bmm_params *b1, *b2;
    if (att) { /* the chain below as one fused op: Q, K, V and the mask its inputs, SELECT_V2(m, s, fill) */
        const rt_opt_attn_params *a = att->sched.kparams;
        if (bmm1 || bmm2 || sel || soft || !a || att->n_in != 4 || att->in[1] != in_k || att->in[2] != in_v) return 0;
        if (a->mask != RT_OPT_MASK_KEEP || a->n_mask != 1 || a->beta != 1.0f || a->tq || a->tk || a->tv || a->tout ||
            a->bf16 || a->pv_u8 || a->out_sq)
            return 0;
        b1 = &a->qk, b2 = &a->pv;
        scale *= a->scale;
        fill = a->fill;
    } else {
        if (!bmm1 || !bmm2 || !sel || !soft) return 0;
        b1 = bmm1->params, b2 = bmm2->params;
        if (!b1 || !b2 || bmm1->in[1] != in_k || bmm2->in[1] != in_v) return 0;
        if (sel->in[1] != bmm1->out[0] || soft->in[0] != sel->out[0] || bmm2->in[0] != soft->out[0]) return 0;
        if (bmm1->fused[0] || bmm2->fused[0]) return 0;
    }
    /* K's rows [S, H] as the product's columns, V [H, S] as its transpose: adj_y, no strides folded in. */
    if (b1->rhs_sk != 1 || b1->rhs_sj != H || b1->n != S || b1->k != H) return 0;
    if (b2->rhs_sk != 1 || b2->rhs_sj != S || b2->n != H || b2->k != S) return 0;
    memset(p, 0, sizeof *p);
    p->batch = (int32_t)B, p->q_len = (int32_t)T, p->heads = (int32_t)N;
    p->kv_len = (int32_t)S, p->kv_heads = (int32_t)G, p->head_dim = (int32_t)H;
    p->mask_st = m->dims[2] == 1 ? 0 : (int32_t)S;
    p->mask_sb = m->dims[0] == 1 ? 0 : (int32_t)(m->dims[2] * S);
    p->scale = scale;
    p->transposed = 1;
    p->mask_fill = fill;
    return 1;
}
