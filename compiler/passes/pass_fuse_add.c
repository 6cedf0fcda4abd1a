/* pass_fuse_add.c - fuses a residual ADD into the convolution that feeds it
 * (oneDNN's "post-op"): the convolution adds the other operand to each block
 * of output rows while the block is still in cache, and writes the ADD's
 * output; the ADD and the intermediate tensor disappear.
 *
 * Needs: schedule (only SCHED_CONV_GEMM producers and SCHED_BINARY ADDs are
 * fused; the ADD's own params, requantization included, are applied as they
 * are, so int8 results stay bit-exact). Conditions: the convolution's
 * output has the ADD as its only reader and is not a graph output; the
 * other operand has the output's shape (no broadcast) and is available
 * before the convolution runs. The other operand is appended to the
 * convolution's inputs so the memory planner keeps it alive.
 *
 * The same for an int8 FULLY_CONNECTED with float results (pass precision
 * folded its DEQUANTIZE) and no activation of its own, and a float ADD: the
 * GEMM's epilogue adds the residual in registers, fmaf(sum, factor,
 * residual), then the ADD's clamp (rt_opt_gemm_s8_f32; ViT int8's
 * attention-output and FFN projections).
 *
 * An f32 convolution (f32 weights; not --target cuda) also takes an other
 * operand that is a PAD widening the channels with zeros at their end and
 * read only by the ADD (MediaPipe's BlazeFace / landmark shortcuts, moved
 * before the convolution by pass shortcut): the convolution reads the PAD's
 * input instead (rt_opt_post_add.other_c channels a row), adds 0 to the
 * channels past it, and the PAD disappears too. */
#include <stdlib.h>
#include <string.h>

#include "ops.h"
#include "passes.h"

/* Per tensor: how many live ops read it (a graph output counts 2) and the
 * last of them. Fusing never changes the count of a tensor the pass asks
 * about later (the ADD's other operand moves from the ADD to the convolution). */
static int count_readers(const Graph *g, int *count, int *reader) {
    for (int t = 0; t < g->n_tensors; t++) count[t] = 0, reader[t] = -1;
    for (int i = 0; i < g->n_ops; i++) {
        const IrOp *op = &g->ops[i];
        for (int k = 0; !op->dead && k < op->n_in; k++)
            if (op->in[k] >= 0) count[op->in[k]]++, reader[op->in[k]] = i;
    }
    for (int i = 0; i < g->n_outputs; i++) count[g->outputs[i]] += 2;
    return 0;
}

static int same_dims(const IrTensor *a, const IrTensor *b) {
    if (a->rank != b->rank) return 0;
    for (int k = 0; k < a->rank; k++)
        if (a->dims[k] != b->dims[k]) return 0;
    return 1;
}

/* An int8 FULLY_CONNECTED writing floats (SCHED_GEMM) with no clamp of its own. */
static int fc_f32_out(const Graph *g, const IrOp *op) {
    if (op->kind != OP_FULLY_CONNECTED || op->sched.kind != SCHED_GEMM || !op->float_rq) return 0;
    const rt_fc_params *p = op->params;
    return g->tensors[op->in[0]].dtype == IR_I8 && g->tensors[op->out[0]].dtype == IR_F32 &&
           p->act_min <= -3.40282347e+38f && p->act_max >= 3.40282347e+38f;
}

/* The input of a live PAD writing t that only widens the last axis at its end with zeros (f32), else -1. */
static int channel_pad_input(const Graph *g, int t, const int *count) {
    int p = t >= 0 ? g->tensors[t].producer : -1;
    if (p < 0 || count[t] != 1) return -1;
    const IrOp *pad = &g->ops[p];
    if (pad->dead || pad->kind != OP_PAD || pad->n_in != 2 || pad->in[0] < 0 || pad->in[1] < 0) return -1;
    const IrTensor *x = &g->tensors[pad->in[0]], *y = &g->tensors[t], *pads = &g->tensors[pad->in[1]];
    if (x->dtype != IR_F32 || y->dtype != IR_F32 || x->rank != y->rank || x->rank < 1 || !pads->data ||
        (pads->dtype != IR_I32 && pads->dtype != IR_I64) || ir_tensor_numel(pads) != 2 * x->rank || x->is_variable)
        return -1;
    for (int k = 0; k < x->rank; k++) {
        int64_t lo = pass_pad_amount(pads, 2 * k), hi = pass_pad_amount(pads, 2 * k + 1);
        if (lo != 0 || (k + 1 < x->rank && (hi != 0 || x->dims[k] != y->dims[k])) || hi < 0) return -1;
    }
    return x->dims[x->rank - 1] > 0 && x->dims[x->rank - 1] < y->dims[y->rank - 1] ? pad->in[0] : -1;
}

int pass_fuse_add(Graph *g, Diag *d) {
    if (g->opt_level < 1) return 0;
    const Graph *root = g->root ? g->root : g;
    int *count = malloc(sizeof(int) * (size_t)(g->n_tensors + 1)), *reader = malloc(sizeof(int) * (size_t)(g->n_tensors + 1));
    if (!count || !reader) {
        free(count), free(reader);
        return diag_internal(d, "out of memory");
    }
    count_readers(g, count, reader);
    for (int i = 0; i < g->n_ops; i++) {
        IrOp *conv = &g->ops[i];
        if (conv->dead || (conv->sched.kind != SCHED_CONV_GEMM && !fc_f32_out(g, conv)) || conv->sched.post_add >= 0)
            continue;
        int t = conv->out[0], a = reader[t];
        if (count[t] != 1 || a <= i) continue;
        IrOp *add = &g->ops[a];
        if (add->kind != OP_ADD || add->sched.kind != SCHED_BINARY || add->n_in != 2) continue;
        int lhs = add->in[0] == t, other = lhs ? add->in[1] : add->in[0];
        if (other == t || other < 0) continue;
        const IrTensor *ot = &g->tensors[other], *out = &g->tensors[add->out[0]], *ct = &g->tensors[t];
        if (!same_dims(ot, out) || !same_dims(ct, out) || ot->is_variable || out->is_variable) continue;
        if (conv->kind == OP_FULLY_CONNECTED && (ot->dtype != IR_F32 || out->dtype != IR_F32)) continue;
        if (ot->producer >= i) continue; /* computed after the convolution */
        int narrow = conv->kind == OP_CONV_2D && !root->target_cuda && ct->dtype == IR_F32 &&
                             g->tensors[conv->in[0]].dtype == IR_F32 && g->tensors[conv->in[1]].dtype == IR_F32
                         ? channel_pad_input(g, other, count)
                         : -1;
        if (narrow >= 0) { /* the PAD's input, read in place of its output */
            g->ops[ot->producer].dead = 1;
            count[other]--;
            other = narrow;
        }
        int *in = ir_alloc(g, sizeof(int) * (size_t)(conv->n_in + 1));
        if (!in) {
            free(count), free(reader);
            return diag_internal(d, "out of memory");
        }
        memcpy(in, conv->in, sizeof(int) * (size_t)conv->n_in);
        in[conv->n_in] = other;
        conv->in = in;
        conv->n_in++;
        conv->out[0] = add->out[0];
        conv->sched.post_add = a;
        conv->sched.post_other = other;
        conv->sched.conv_is_lhs = lhs;
        add->dead = 1;
        size_t len = strlen(conv->fused);
        if (len + 6 < sizeof conv->fused) memcpy(conv->fused + len, len ? ", ADD" : "ADD", len ? 6 : 4);
        if (narrow >= 0) pass_add_fused_name(conv, "PAD");
        /* What ir_set_producers would find, without the O(ops) walk per fusion. */
        g->tensors[conv->out[0]].producer = i;
        g->tensors[t].producer = -1;
    }
    free(count), free(reader);
    return 0;
}
