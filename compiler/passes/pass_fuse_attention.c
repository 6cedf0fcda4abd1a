/* pass_fuse_attention.c - fuses scaled-dot-product attention as the TFLite
 * converter writes it,
 *     S = BATCH_MATMUL(Q, K)            (transposes already folded into strides)
 *     S = MUL(S, c)                     optional, c a scalar constant
 *     S = SELECT_V2(m, S, f) | SELECT_V2(m, f, S) | ADD(S, M)    optional mask;
 *         m may be LOGICAL_AND(a, b), read directly (a && b; a constant b that is
 *         true everywhere is dropped: a && true is a)
 *     P = SOFTMAX(S)
 *     O = BATCH_MATMUL(P, V)
 * into the second BATCH_MATMUL, which then runs rt_opt_attention_f32: an
 * online softmax over blocks of keys, so neither S nor P (nor the mask
 * [.., Lq, Lk] of a LOGICAL_AND) is ever stored and the arena grows linearly
 * with the sequence length instead of quadratically (FlashAttention's
 * scheme on the CPU). The absorbed ops become dead and are listed in the
 * fused op's comment; its inputs become Q, K, V and the mask operands.
 *
 * Needs: schedule (both matmuls SCHED_BMM f32, the softmax SCHED_SOFTMAX).
 * Every intermediate must have the next op as its only reader and not be a
 * graph output; f32 only (int8 attention needs its requantization steps,
 * which an online softmax cannot reproduce exactly). Float Q, K and V that
 * are DEQUANTIZE outputs of int8 tensors (--precision int8 puts them after
 * the int8 projections) are read as stored instead: Q and K together, the
 * scores then exact int32 sums of the bytes (VNNI) scaled by their scales;
 * V dequantized as the kernel packs it (the same floats). */
#include <float.h>
#include <string.h>

#include "ops.h"
#include "passes.h"

#define Q_BLOCK 40   /* query rows per tile: 8 micro-tiles of 5 rows */
#define KV_BLOCK 128 /* keys per tile: 128x64 f32 panels stay in L1 */
#define INT8_BF16_KEYS 64 /* --precision int8: bf16 products from this many keys */

typedef struct Chain {
    int bmm1, mul, mask_op, and_op, softmax, bmm2, scores;
    float scale, fill;
    int mask, n_mask, mask_t[2];
} Chain;

static int scalar_f32(const Graph *g, int t, float *v) {
    const IrTensor *c = &g->tensors[t];
    if (!c->data || c->dtype != IR_F32 || ir_tensor_numel(c) != 1) return 0;
    memcpy(v, c->data, sizeof *v);
    return 1;
}

/* A constant bool tensor that is true everywhere. */
static int all_true(const Graph *g, int t) {
    const IrTensor *x = &g->tensors[t];
    if (!x->data || x->dtype != IR_BOOL) return 0;
    for (int64_t i = 0; i < ir_tensor_numel(x); i++)
        if (!x->data[i]) return 0;
    return 1;
}

static int no_act(const rt_binary_params *p) { return p->act_min <= -FLT_MAX && p->act_max >= FLT_MAX; }

/* Whether tensor t broadcasts into the score shape (right-aligned dims of 1
 * or equal), and its element strides over the score dims. */
static int mask_strides(const IrTensor *t, const IrTensor *s, int32_t *strides) {
    if (t->rank > s->rank) return 0;
    int64_t st = 1;
    for (int i = s->rank - 1; i >= 0; i--) {
        int ti = i - (s->rank - t->rank);
        int64_t d = ti >= 0 ? t->dims[ti] : 1;
        if (d != 1 && d != s->dims[i]) return 0;
        strides[i] = d == 1 ? 0 : (int32_t)st;
        st *= d;
    }
    return 1;
}

/* [MUL by a scalar] <- BATCH_MATMUL, walking back from tensor t that only
 * `reader` reads; fills c->mul, c->scale, c->bmm1. */
static int scores_tail(const Graph *g, const int *readers, int t, int reader, Chain *c) {
    int p;
    c->mul = -1;
    c->scale = 1.0f;
    if (pass_only_reader(g, readers, t) != reader) return 0;
    if ((p = pass_producer(g, t, OP_MUL)) >= 0) {
        const IrOp *mul = &g->ops[p];
        int k = scalar_f32(g, mul->in[1], &c->scale) ? 0 : scalar_f32(g, mul->in[0], &c->scale) ? 1 : -1;
        if (k < 0 || !no_act(mul->params) || mul->sched.kind != SCHED_BINARY) return 0;
        c->mul = p;
        t = mul->in[k];
        if (pass_only_reader(g, readers, t) != p) return 0;
    }
    c->bmm1 = pass_producer(g, t, OP_BATCH_MATMUL);
    c->scores = t;
    return c->bmm1 >= 0 && g->ops[c->bmm1].sched.kind == SCHED_BMM && g->tensors[t].dtype == IR_F32;
}

/* Walks back from a SOFTMAX to the first matmul; fills c. */
static int match(const Graph *g, const int *readers, int sm, Chain *c) {
    memset(c, 0, sizeof *c);
    c->softmax = sm;
    c->mask_op = c->and_op = -1;
    const IrOp *soft = &g->ops[sm];
    if (soft->sched.kind != SCHED_SOFTMAX || ((const rt_softmax_params *)soft->params)->beta <= 0.0f) return 0;
    c->bmm2 = pass_only_reader(g, readers, soft->out[0]);
    if (c->bmm2 < 0) return 0;
    const IrOp *b2 = &g->ops[c->bmm2];
    if (b2->kind != OP_BATCH_MATMUL || b2->sched.kind != SCHED_BMM || b2->in[0] != soft->out[0] ||
        b2->in[1] == soft->out[0] || g->tensors[b2->in[0]].dtype != IR_F32)
        return 0;
    int t = soft->in[0], p;
    if ((p = pass_producer(g, t, OP_SELECT_V2)) >= 0) {
        const IrOp *sel = &g->ops[p];
        int keep = scalar_f32(g, sel->in[2], &c->fill), fill = !keep && scalar_f32(g, sel->in[1], &c->fill);
        if (!keep && !fill) return 0;
        c->mask = keep ? RT_OPT_MASK_KEEP : RT_OPT_MASK_FILL;
        c->mask_op = p;
        int cond = sel->in[0], a = pass_producer(g, cond, OP_LOGICAL_AND);
        if (a >= 0) {
            /* m && true is m: a constant operand that is true everywhere (Keras's attention exports AND
             * the padding mask with such a [B, H, Lq, Lk] one) is not read at all */
            int x = g->ops[a].in[0], y = g->ops[a].in[1], drop_x = all_true(g, x);
            c->and_op = a;
            c->n_mask = drop_x || all_true(g, y) ? 1 : 2;
            c->mask_t[0] = drop_x ? y : x;
            c->mask_t[1] = y;
        } else {
            c->n_mask = 1;
            c->mask_t[0] = cond;
        }
        if (pass_only_reader(g, readers, t) != sm || !scores_tail(g, readers, sel->in[keep ? 1 : 2], p, c)) return 0;
    } else if ((p = pass_producer(g, t, OP_ADD)) >= 0) {
        const IrOp *add = &g->ops[p];
        if (!no_act(add->params) || add->n_in != 2 || pass_only_reader(g, readers, t) != sm) return 0;
        c->mask = RT_OPT_MASK_ADD;
        c->mask_op = p;
        c->n_mask = 1;
        /* The scores are the operand the rest of the chain matches. */
        int k = scores_tail(g, readers, add->in[0], p, c) ? 0 : 1;
        if (k == 1 && !scores_tail(g, readers, add->in[1], p, c)) return 0;
        c->mask_t[0] = add->in[1 - k];
    } else if (!scores_tail(g, readers, t, sm, c)) {
        return 0;
    }
    /* Shapes: scores [batch..., Lq, Lk] with the output's batch dims. */
    const rt_bmm_params *qk = g->ops[c->bmm1].params, *pv = b2->params;
    const IrTensor *s = &g->tensors[c->scores];
    if (qk->batch_rank != pv->batch_rank || s->rank != qk->batch_rank + 2 || qk->n != pv->k || qk->m != pv->m)
        return 0;
    for (int i = 0; i < qk->batch_rank; i++)
        if (qk->batch_dims[i] != pv->batch_dims[i]) return 0;
    /* A shared AND output (one per model, read by every layer) is fine: the
     * fused op reads the AND's inputs and the AND dies with its last reader. */
    for (int m = 0; m < c->n_mask; m++) {
        int32_t st[IR_MAX_RANK];
        const IrTensor *mt = &g->tensors[c->mask_t[m]];
        if (mt->dtype != (c->mask == RT_OPT_MASK_ADD ? IR_F32 : IR_BOOL) || !mask_strides(mt, s, st)) return 0;
    }
    return 1;
}

/* The DEQUANTIZE writing tensor t, when the fused op `reader` is its only reader and it dequantizes an int8
 * tensor with one scale: the fused op can read the int8 values themselves. */
static int dequant_of(const Graph *g, const int *readers, int t, int reader) {
    int p = pass_producer(g, t, OP_DEQUANTIZE);
    if (p < 0 || pass_only_reader(g, readers, t) != reader) return -1;
    const IrTensor *x = &g->tensors[g->ops[p].in[0]];
    return x->dtype == IR_I8 && x->q.count == 1 && x->q.scale && x->q.zero_point ? p : -1;
}

/* Folds the DEQUANTIZE ops in front of Q and K (both or neither: the scores become exact int32 sums of the
 * stored bytes, unless --keep-fp32 names the first BATCH_MATMUL) and of V (dequantized as it is packed, the
 * same floats); returns how many. */
static int fold_dequant(Graph *g, int *readers, const Chain *c, rt_opt_attn_params *p, int *in) {
    const IrPrecision *pr = g->root ? NULL : g->precision;
    int dq[3], n = 0;
    for (int k = 0; k < 3; k++) dq[k] = g->target_cuda ? -1 : dequant_of(g, readers, in[k], c->bmm2);
    if (dq[0] < 0 || dq[1] < 0 || (pr && pass_keep_fp32(g, pr, &g->ops[c->bmm1]))) dq[0] = dq[1] = -1;
    for (int k = 0; k < 3; k++) {
        if (dq[k] < 0) continue;
        IrOp *dop = &g->ops[dq[k]];
        const IrTensor *x = &g->tensors[dop->in[0]];
        p->qscale[k] = x->q.scale[0];
        p->qzero[k] = (int32_t)x->q.zero_point[0];
        *(k == 0 ? &p->tq : k == 1 ? &p->tk : &p->tv) = RT_I8;
        readers[in[k]]--;
        in[k] = dop->in[0];
        pass_add_reader(g, readers, in[k], c->bmm2); /* the fused op reads it where the DEQUANTIZE did */
        readers[in[k]]--;
        dop->dead = 1;
        n++;
    }
    return n;
}

/* The TRANSPOSE that is the attention output's only reader, when it keeps the last axis in place (the heads
 * moved next to Dv: [batch, heads, tokens, Dv] -> [batch, tokens, heads, Dv] before the output projection),
 * folded into the output's strides: each output row is written where the transpose would copy it (ViT bf16:
 * 0.17 us a copy saved). Not for CUDA, whose kernels write dense rows. */
static void fold_out_transpose(Graph *g, int *readers, IrOp *b2, rt_opt_attn_params *p) {
    const int t = b2->out[0], r = pass_only_reader(g, readers, t);
    int perm[IR_MAX_RANK];
    if (r < 0 || g->target_cuda) return;
    IrOp *tr = &g->ops[r];
    const IrTensor *x = &g->tensors[t];
    if (tr->kind != OP_TRANSPOSE || tr->in[0] != t || pass_transpose_perm(g, tr, perm) || x->rank < 2 ||
        perm[x->rank - 1] != x->rank - 1 || p->pv.batch_rank != x->rank - 2)
        return;
    const IrTensor *y = &g->tensors[tr->out[0]];
    if (y->is_variable || y->rank != x->rank || ir_tensor_numel(y) > INT32_MAX) return;
    for (int i = 0; i < p->pv.batch_rank; i++)
        if (p->pv.batch_dims[i] != x->dims[i]) return;
    int64_t ys[IR_MAX_RANK], xs[IR_MAX_RANK];
    ys[y->rank - 1] = 1;
    for (int i = y->rank - 2; i >= 0; i--) ys[i] = ys[i + 1] * y->dims[i + 1];
    for (int i = 0; i < y->rank; i++) xs[perm[i]] = ys[i]; /* x's axis perm[i] lands on y's axis i */
    for (int i = 0; i < p->pv.batch_rank; i++) p->out_bstride[i] = (int32_t)xs[i];
    p->out_sq = (int32_t)xs[x->rank - 2];
    b2->out[0] = tr->out[0];
    tr->dead = 1;
    readers[t]--;
    pass_add_fused_name(b2, "TRANSPOSE");
}

static int fuse(Graph *g, int *readers, const Chain *c, Diag *d) {
    IrOp *b1 = &g->ops[c->bmm1], *b2 = &g->ops[c->bmm2];
    const IrTensor *s = &g->tensors[c->scores];
    rt_opt_attn_params *p = ir_alloc(g, sizeof *p);
    int *in = ir_alloc(g, sizeof(int) * 5);
    if (!p || !in) return diag_internal(d, "out of memory");
    memset(p, 0, sizeof *p);
    p->qk = *(const rt_bmm_params *)b1->params;
    p->pv = *(const rt_bmm_params *)b2->params;
    p->scale = c->scale;
    p->beta = ((const rt_softmax_params *)g->ops[c->softmax].params)->beta;
    p->fill = c->fill;
    p->mask = c->mask;
    p->n_mask = c->n_mask;
    /* tiles no larger than the problem (a 17-token ViT needs no 40 x 128 score tile) */
    p->q_block = p->qk.m < Q_BLOCK ? (p->qk.m > 0 ? p->qk.m : 1) : Q_BLOCK;
    p->kv_block = p->qk.n < KV_BLOCK ? (p->qk.n + RT_OPT_NR - 1) / RT_OPT_NR * RT_OPT_NR : KV_BLOCK;
    if (p->kv_block < RT_OPT_NR) p->kv_block = RT_OPT_NR;
    for (int m = 0; m < c->n_mask; m++) {
        int32_t st[IR_MAX_RANK];
        mask_strides(&g->tensors[c->mask_t[m]], s, st);
        for (int i = 0; i < p->pv.batch_rank; i++) p->mask_bstride[m][i] = st[i];
        p->mask_sq[m] = st[s->rank - 2];
        p->mask_sk[m] = st[s->rank - 1];
    }
    /* Readers: the absorbed ops stop reading their inputs; the fused op
     * reads Q, K, V and the masks. */
    const int absorbed[5] = {c->bmm1, c->mul, c->mask_op, c->softmax, c->bmm2};
    for (int a = 0; a < 5; a++) {
        if (absorbed[a] < 0) continue;
        const IrOp *op = &g->ops[absorbed[a]];
        for (int k = 0; k < op->n_in; k++)
            if (op->in[k] >= 0) readers[op->in[k]]--;
    }
    in[0] = b1->in[0];
    in[1] = b1->in[1];
    in[2] = b2->in[1];
    for (int m = 0; m < c->n_mask; m++) in[3 + m] = c->mask_t[m];
    for (int k = 0; k < 3 + c->n_mask; k++) pass_add_reader(g, readers, in[k], c->bmm2);
    b2->in = in;
    b2->n_in = 3 + c->n_mask;
    b2->fused[0] = '\0';
    pass_add_fused_name(b2, "BATCH_MATMUL");
    if (c->mul >= 0) pass_add_fused_name(b2, "MUL");
    if (c->and_op >= 0) pass_add_fused_name(b2, "LOGICAL_AND");
    if (c->mask_op >= 0) pass_add_fused_name(b2, ir_op_name(g->ops[c->mask_op].kind));
    pass_add_fused_name(b2, "SOFTMAX");
    /* --precision bf16, and int8 (bf16_attention) where the keys are at least INT8_BF16_KEYS: the two
     * products on bf16 operands (the autocast policy: matmuls low, the softmax and its exp in f32), unless
     * --keep-fp32 names either BATCH_MATMUL. Under int8 fewer keys stay on f32 P.V (the scores are exact
     * int32 sums either way): bf16 probabilities there moved ViT's output error from 0.020 to 0.025
     * for 2 % of its time. Under bf16 a short attention gains too since its operands are packed 16 lanes at
     * a time (ViT's 17 keys: 1.36 us a call on f32 products, 1.30 on bf16 ones, 2.2 with the scalar packing). */
    const IrPrecision *pr = g->root ? NULL : g->precision;
    if (pr && (pr->mode == IR_PREC_BF16 || (pr->bf16_attention && p->qk.n >= INT8_BF16_KEYS)) && !g->target_cuda &&
        !pass_keep_fp32(g, pr, b1) && !pass_keep_fp32(g, pr, b2)) {
        p->bf16 = 1;
        b2->prec = IR_BF16;
        b2->prec_note = "bf16 products, softmax f32";
    }
    for (int n = fold_dequant(g, readers, c, p, in); n > 0; n--) pass_add_fused_name(b2, "DEQUANTIZE");
    /* int8 with fewer keys and V int8 too: the probabilities in 8 bits as TFLite's int8 softmax stores them
     * and P.V as exact int32 sums on the int8 kernel (pv_u8). ViT's 17 keys: the attention 1.06 -> 0.92 us a
     * call, the model 1.03-1.05x; its output error against the float model moved either way with the
     * calibration draw (bench inputs, 4 seeds: 0.0149 -> 0.0172, 0.0123 -> 0.0106, 0.0233 -> 0.0173, ...). */
    if (pr && pr->bf16_attention && !p->bf16 && p->tq == RT_I8 && p->tv == RT_I8 && !g->target_cuda &&
        !pass_keep_fp32(g, pr, b1) && !pass_keep_fp32(g, pr, b2))
        p->pv_u8 = 1;
    if (p->tq == RT_I8) {
        b2->prec = IR_I8;
        b2->prec_note = p->bf16    ? "int8 scores (exact int32 sums), bf16 P.V, softmax f32"
                        : p->pv_u8 ? "int8 scores and P.V (exact int32 sums; probabilities in 8 bits), softmax f32"
                                   : "int8 scores (exact int32 sums), f32 P.V and softmax";
    }
    fold_out_transpose(g, readers, b2, p);
    b2->sched.kind = SCHED_ATTENTION;
    b2->sched.kparams = p;
    b2->sched.mr = g->isa == IR_ISA_AVX2 || g->isa == IR_ISA_NEON || g->isa == IR_ISA_ARMV8A || g->isa == IR_ISA_ARMV82A_DOT ? 5 : 8;
    b2->sched.nr = RT_OPT_NR;
    b2->sched.rows = p->q_block;
    p->slots = g->threads > 1 ? g->threads : 1;
    b2->sched.slots = p->slots;
    b2->scratch_bytes = rt_opt_attention_scratch_bytes(p) * (size_t)p->slots;
    for (int a = 0; a < 4; a++)
        if (absorbed[a] >= 0) g->ops[absorbed[a]].dead = 1;
    return 0;
}

int pass_fuse_attention(Graph *g, Diag *d) {
    /* Cortex-M ISAs: the fused kernel's scratch would raise the arena above the op-by-op bound. */
    if (g->opt_level < 1 || ir_isa_is_mcu((g->root ? g->root : g)->isa)) return 0;
    int *readers = pass_count_readers(g);
    if (!readers) return diag_internal(d, "out of memory");
    int fused = 0;
    for (int i = 0; i < g->n_ops; i++) {
        Chain c;
        if (g->ops[i].dead || g->ops[i].kind != OP_SOFTMAX || !match(g, readers, i, &c)) continue;
        int rc = fuse(g, readers, &c, d);
        if (rc) return rc;
        fused++;
    }
    /* A LOGICAL_AND whose every reader was fused away is dead too. */
    for (int i = 0; fused && i < g->n_ops; i++) {
        IrOp *op = &g->ops[i];
        if (!op->dead && op->kind == OP_LOGICAL_AND && readers[op->out[0]] == 0 && !g->tensors[op->out[0]].is_output) {
            op->dead = 1;
            for (int k = 0; k < op->n_in; k++)
                if (op->in[k] >= 0) readers[op->in[k]]--;
        }
    }
    if (fused) ir_set_producers(g);
    return 0;
}
