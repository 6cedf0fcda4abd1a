/* pass_fuse_dw.c - fuses a 1x1 expansion convolution into the depthwise
 * convolution that reads it (MobileNet's inverted residual block): the
 * fused kernel makes the expanded rows a band of depthwise output rows needs
 * in a per-thread scratch buffer and runs the depthwise rows on them there,
 * so the expanded tensor, the largest of such a block (MobileNetV2 224's
 * first one is 112x112x96 floats, 4.8 MB: more than L2, so writing it and
 * reading it back went to L3), is never stored whole.
 *
 * Needs: schedule (the convolution must be SCHED_CONV_GEMM direct f32 with
 * f32 or (--precision bf16/fp16) 16-bit weights and no fused ADD; the depthwise SCHED_DWCONV f32 with depth
 * multiplier 1). Conditions: the convolution's output has the depthwise
 * convolution as its only reader and is not a graph output. The convolution
 * op runs the fused kernel: it writes the depthwise output, the depthwise
 * filter and bias are appended to its inputs, and the depthwise op is
 * marked dead (its index is kept in sched.post_dw for its params). Not for
 * --target cuda, whose emitter runs the two ops as they are.
 *
 * An f32 HARD_SWISH between the two (MediaPipe's pose blocks: expansion,
 * HARD_SWISH, depthwise, HARD_SWISH), the convolution's only reader and
 * the depthwise's only input, fuses too, and so does one after the
 * depthwise that is its output's only reader (sched.post_dw_hswish: the
 * kernel applies the reference's expression to the expanded rows in scratch
 * and to the depthwise output rows; identical results). Both HARD_SWISH ops
 * are marked dead. Without this the pose blocks ran unfused: the 128x128x72
 * expansion (4.7 MB) went through L3 twice, plus two reference passes. */
#include <stdlib.h>
#include <string.h>

#include "ops.h"
#include "passes.h"

/* Depthwise output rows per band: the band's expansion rows fill about this many bytes of scratch (L2-resident). */
#define BAND_BYTES (384 * 1024)

/* conv -> HARD_SWISH -> depthwise fuses only when the expansion is at least this large: smaller ones stay in
 * L2 between the ops anyway, and there the fused kernel's bands cost more than they save (MobileNetV3-small at
 * 64x64, expansions of 16x16x72 and less: 5-8 % slower fused). */
#define HSWISH_MIN_BYTES (512 * 1024)

static int is_f32(const Graph *g, int t) { return t >= 0 && g->tensors[t].dtype == IR_F32; }

/* f32 weights, or --precision bf16/fp16's 16-bit ones. */
static int is_float_w(const Graph *g, int t) {
    return t >= 0 && (g->tensors[t].dtype == IR_F32 || g->tensors[t].dtype == IR_BF16 || g->tensors[t].dtype == IR_F16);
}

/* op is an f32 HARD_SWISH of tensor t alone, writing one f32 tensor that is no graph state. */
static int only_hswish(const Graph *g, const IrOp *op, int t) {
    return !op->dead && op->kind == OP_HARD_SWISH && op->n_in == 1 && op->in[0] == t && op->n_out == 1 &&
           is_f32(g, t) && is_f32(g, op->out[0]) && !g->tensors[op->out[0]].is_variable;
}

int pass_fuse_dw(Graph *g, Diag *d) {
    const Graph *root = g->root ? g->root : g;
    /* Cortex-M ISAs: no band scratch above the op-by-op bound of the arena. */
    if (g->opt_level < 1 || root->target_cuda || ir_isa_is_mcu(root->isa)) return 0;
    int *count = calloc((size_t)g->n_tensors + 1, sizeof(int)), *reader = malloc(sizeof(int) * (size_t)(g->n_tensors + 1));
    if (!count || !reader) {
        free(count), free(reader);
        return diag_internal(d, "out of memory");
    }
    for (int i = 0; i < g->n_ops; i++) {
        const IrOp *op = &g->ops[i];
        for (int k = 0; !op->dead && k < op->n_in; k++)
            if (op->in[k] >= 0) count[op->in[k]]++, reader[op->in[k]] = i;
    }
    for (int i = 0; i < g->n_outputs; i++) count[g->outputs[i]] += 2;
    for (int i = 0; i < g->n_ops; i++) {
        IrOp *conv = &g->ops[i];
        if (conv->dead || conv->kind != OP_CONV_2D || conv->sched.kind != SCHED_CONV_GEMM || !conv->sched.direct ||
            conv->sched.post_add >= 0 || conv->sched.post_dw >= 0 || conv->n_in < 2 || !is_f32(g, conv->in[0]) ||
            !is_float_w(g, conv->in[1]) || !is_f32(g, conv->out[0]))
            continue;
        int t = conv->out[0], j = reader[t], hs_in = -1, hs_out = -1;
        if (count[t] != 1 || j <= i || g->tensors[t].is_variable) continue;
        if (only_hswish(g, &g->ops[j], t)) { /* conv -> HARD_SWISH -> depthwise */
            if (ir_tensor_numel(&g->tensors[t]) * 4 < HSWISH_MIN_BYTES) continue;
            hs_in = j;
            t = g->ops[j].out[0];
            j = reader[t];
            if (count[t] != 1 || j <= hs_in || g->tensors[t].is_variable) continue;
        }
        IrOp *dw = &g->ops[j];
        const rt_dwconv_params *p = dw->params;
        if (dw->kind != OP_DEPTHWISE_CONV_2D || dw->sched.kind != SCHED_DWCONV || dw->in[0] != t || !p ||
            p->depth_mult != 1 || dw->n_in < 2 || !is_f32(g, dw->in[1]) || !is_f32(g, dw->out[0]) ||
            (dw->n_in > 2 && dw->in[2] >= 0 && !is_f32(g, dw->in[2])))
            continue;
        int u = dw->out[0];
        if (count[u] == 1 && reader[u] > j && !g->tensors[u].is_variable && only_hswish(g, &g->ops[reader[u]], u))
            hs_out = reader[u]; /* depthwise -> HARD_SWISH */
        int *in = ir_alloc(g, sizeof(int) * (size_t)(conv->n_in + 2));
        if (!in) {
            free(count), free(reader);
            return diag_internal(d, "out of memory");
        }
        memcpy(in, conv->in, sizeof(int) * (size_t)conv->n_in);
        in[conv->n_in] = dw->in[1];
        in[conv->n_in + 1] = dw->n_in > 2 ? dw->in[2] : -1;
        conv->in = in;
        conv->n_in += 2;
        conv->out[0] = hs_out >= 0 ? g->ops[hs_out].out[0] : dw->out[0];
        int64_t row = (int64_t)p->in_w * p->in_c * 4, band = 1;
        while (band < p->out_h && (band * p->stride_h + (p->filter_h - 1) * p->dil_h + 1) * row <= BAND_BYTES) band++;
        conv->sched.post_dw = j;
        conv->sched.band = (int)band;
        IrDType wdt = g->tensors[conv->in[1]].dtype;
        int32_t type = wdt == IR_BF16 ? RT_BF16 : wdt == IR_F16 ? RT_F16 : RT_F32;
        const rt_conv_params *cp = conv->params;
        conv->scratch_bytes = (size_t)rt_opt_conv_dw_slot_bytes(p, (int32_t)band, type, cp->in_c) * (size_t)conv->sched.slots;
        dw->dead = 1;
        conv->sched.post_dw_hswish = (hs_in >= 0 ? RT_OPT_DW_HSWISH_IN : 0) | (hs_out >= 0 ? RT_OPT_DW_HSWISH_OUT : 0);
        if (hs_in >= 0) {
            g->ops[hs_in].dead = 1;
            g->tensors[g->ops[hs_in].in[0]].producer = -1;
            pass_add_fused_name(conv, "HARD_SWISH");
        }
        pass_add_fused_name(conv, "DEPTHWISE_CONV_2D");
        if (hs_out >= 0) {
            g->ops[hs_out].dead = 1;
            g->tensors[u].producer = -1;
            pass_add_fused_name(conv, "HARD_SWISH");
        }
        g->tensors[conv->out[0]].producer = i;
        g->tensors[t].producer = -1;
    }
    free(count), free(reader);
    return 0;
}
