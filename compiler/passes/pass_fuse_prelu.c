/* pass_fuse_prelu.c - fuses a PRELU with one slope per channel into the f32
 * convolution that feeds it (MediaPipe's landmark and face models follow
 * most convolutions with one): the convolution applies x >= 0 ? x : alpha * x
 * to each block of output rows while the block is still in cache, after its
 * own clamp and a fused residual ADD, and writes the PRELU's output; the
 * PRELU and the intermediate tensor disappear. Results equal the two ops'
 * (the same comparison and product per element).
 *
 * Needs: fuse_dw (a convolution that runs the fused depthwise kernel is
 * left alone). Conditions: the convolution is SCHED_CONV_GEMM with f32
 * input, weights and output (so no 16-bit kernel of --precision bf16/fp16
 * takes it); its output has the PRELU (SCHED_PRELU, f32) as its only reader
 * and is not a graph output; the slopes are a constant with one value per
 * output channel (broadcast over every other dimension). The slopes are
 * appended to the convolution's inputs, their tensor id + 1 kept in
 * sched.post_alpha. Not for --target cuda (its emitter runs the ops as they
 * are) nor Cortex-M (int8 convolutions only there).
 *
 * An f32 LEAKY_RELU with a slope >= 0 (a wake-word CNN's activation) fuses
 * the same way: its slope becomes a constant vector of out_c equal values.
 * The reference computes x > 0 ? x : x * alpha; the epilogue's x >= 0 ? x :
 * alpha * x differs only at x = +-0, where both give x's own bits when
 * alpha >= 0 (+0 * alpha = +0, -0 * alpha = -0); NaN gives NaN in both.
 * An f32 HARD_SWISH fuses too (sched.post_hswish, no slopes): the epilogue
 * computes the reference's expression, identical results. So does one after
 * a float depthwise convolution (SCHED_DWCONV; MediaPipe pose's first block,
 * whose depthwise reads a 3x3 convolution, not a 1x1 one pass fuse_dw takes). */
#include <string.h>

#include "ops.h"
#include "passes.h"

static int is_f32(const Graph *g, int t) { return t >= 0 && g->tensors[t].dtype == IR_F32; }

/* The PRELU's slopes when they are a constant f32 vector of c values along the output's last dimension. */
static int channel_alpha(const Graph *g, const IrOp *pr, int32_t c) {
    const rt_prelu_params *p = pr->params;
    if (!p || pr->n_in < 2 || !is_f32(g, pr->in[1]) || !g->tensors[pr->in[1]].data) return -1;
    const IrTensor *a = &g->tensors[pr->in[1]], *o = &g->tensors[pr->out[0]];
    int r = p->shape.rank;
    if (r < 1 || r != o->rank || o->dims[r - 1] != c || ir_tensor_numel(a) != c) return -1;
    for (int k = 0; k < r; k++)
        if (k < r - 1 ? p->alpha_stride[k] != 0 : c > 1 && p->alpha_stride[k] != 1) return -1;
    return pr->in[1];
}

/* Moves the activation op j (its slopes: tensor alpha) into convolution i. */
static int fuse(Graph *g, int i, int j, int alpha, Diag *d) {
    IrOp *conv = &g->ops[i], *pr = &g->ops[j];
    int t = conv->out[0];
    int *in = ir_alloc(g, sizeof(int) * (size_t)(conv->n_in + 1));
    if (!in) return diag_internal(d, "out of memory");
    memcpy(in, conv->in, sizeof(int) * (size_t)conv->n_in);
    in[conv->n_in] = alpha;
    conv->in = in;
    conv->n_in++;
    conv->out[0] = pr->out[0];
    conv->sched.post_alpha = alpha + 1;
    pr->dead = 1;
    pass_add_fused_name(conv, pr->kind == OP_LEAKY_RELU ? "LEAKY_RELU" : "PRELU");
    g->tensors[conv->out[0]].producer = i;
    g->tensors[t].producer = -1;
    return 0;
}

/* Op i (a convolution) takes the f32 HARD_SWISH hs that reads its output t: its kernel applies it
 * (sched.post_hswish) and writes hs's output. */
static void take_hswish(Graph *g, int i, IrOp *hs) {
    IrOp *op = &g->ops[i];
    const int t = op->out[0];
    op->out[0] = hs->out[0];
    op->sched.post_hswish = 1;
    hs->dead = 1;
    pass_add_fused_name(op, "HARD_SWISH");
    g->tensors[op->out[0]].producer = i;
    g->tensors[t].producer = -1;
}

/* A float depthwise convolution (SCHED_DWCONV) whose only reader is an f32 HARD_SWISH: the kernel applies it
 * to each output row (sched.post_hswish; rt_opt_dwconv_f32_hswish). Returns 1 when op i was fused. */
static int fuse_dw_hswish(Graph *g, const int *readers, int i) {
    IrOp *dw = &g->ops[i];
    if (dw->dead || dw->kind != OP_DEPTHWISE_CONV_2D || dw->sched.kind != SCHED_DWCONV || dw->sched.post_hswish ||
        dw->n_in < 2 || !is_f32(g, dw->in[0]) || !is_f32(g, dw->in[1]) || !is_f32(g, dw->out[0]) ||
        (dw->n_in > 2 && dw->in[2] >= 0 && !is_f32(g, dw->in[2])))
        return 0;
    int t = dw->out[0], j = pass_only_reader(g, readers, t);
    if (j <= i || g->tensors[t].is_variable) return 0;
    IrOp *hs = &g->ops[j];
    if (hs->kind != OP_HARD_SWISH || hs->n_in != 1 || hs->in[0] != t || hs->n_out != 1 || !is_f32(g, hs->out[0]) ||
        g->tensors[hs->out[0]].is_variable)
        return 0;
    take_hswish(g, i, hs);
    return 1;
}

int pass_fuse_prelu(Graph *g, Diag *d) {
    const Graph *root = g->root ? g->root : g;
    if (g->opt_level < 1 || root->target_cuda || ir_isa_is_mcu(root->isa)) return 0;
    int *readers = pass_count_readers(g);
    /* LEAKY_RELU pairs (conv, op) are fused after the scan: their slope vectors are new tensors,
     * and readers[] is laid out by the tensor count. */
    int *leaky = ir_alloc(g, sizeof(int) * 2 * (size_t)(g->n_ops > 0 ? g->n_ops : 1)), n_leaky = 0;
    if (!readers || !leaky) return diag_internal(d, "out of memory");
    for (int i = 0; i < g->n_ops; i++) {
        IrOp *conv = &g->ops[i];
        if (fuse_dw_hswish(g, readers, i)) continue;
        if (conv->dead || conv->kind != OP_CONV_2D || conv->sched.kind != SCHED_CONV_GEMM || conv->sched.post_dw >= 0 ||
            conv->sched.post_alpha || conv->sched.post_hswish || conv->n_in < 2 || !is_f32(g, conv->in[0]) || !is_f32(g, conv->in[1]) ||
            !is_f32(g, conv->out[0]))
            continue;
        int t = conv->out[0], j = pass_only_reader(g, readers, t);
        if (j <= i || g->tensors[t].is_variable) continue;
        IrOp *pr = &g->ops[j];
        if (pr->in[0] != t || pr->n_out != 1 || !is_f32(g, pr->out[0]) || g->tensors[pr->out[0]].is_variable) continue;
        if (pr->kind == OP_HARD_SWISH) { /* no slopes: the flag alone */
            if (!is_f32(g, pr->in[0])) continue;
            take_hswish(g, i, pr);
            continue;
        }
        if (pr->kind == OP_LEAKY_RELU) {
            const rt_act_params *p = pr->params;
            if (p && is_f32(g, pr->in[0]) && p->alpha >= 0.0f) {
                leaky[2 * n_leaky] = i;
                leaky[2 * n_leaky++ + 1] = j;
            }
            continue;
        }
        if (pr->kind != OP_PRELU || pr->sched.kind != SCHED_PRELU) continue;
        const rt_conv_params *cp = conv->params;
        int alpha = channel_alpha(g, pr, cp->out_c);
        if (alpha < 0) continue;
        pass_add_reader(g, readers, alpha, i);
        if (fuse(g, i, j, alpha, d)) return DIAG_INTERNAL;
    }
    for (int k = 0; k < n_leaky; k++) {
        int i = leaky[2 * k], j = leaky[2 * k + 1];
        const rt_conv_params *cp = g->ops[i].params;
        int32_t c = cp->out_c;
        float slope = ((const rt_act_params *)g->ops[j].params)->alpha;
        int64_t dims[1] = {c};
        int id = ir_add_tensor(g, ir_sprintf(g, "%s/alpha", g->tensors[g->ops[j].out[0]].name), IR_F32, 1, dims);
        float *a = id < 0 ? NULL : ir_alloc(g, sizeof(float) * (size_t)c);
        if (!a) return diag_internal(d, "out of memory");
        for (int32_t m = 0; m < c; m++) a[m] = slope;
        g->tensors[id].data = (const uint8_t *)a;
        g->tensors[id].data_size = sizeof(float) * (size_t)c;
        if (fuse(g, i, j, id, d)) return DIAG_INTERNAL;
    }
    return 0;
}
