/* pass_fuse_act.c - folds a standalone f32 RELU, RELU6, RELU_N1_TO_1 or
 * RELU_0_TO_1 into the op that writes its input, as the TFLite converter does
 * when it can: the producer's fused-activation clamp becomes the intersection
 * of its own range and the RELU's, the producer writes the RELU's output, and
 * the RELU (a reference pass over the whole tensor) disappears. MediaPipe's
 * converter leaves such RELUs after its convolutions and residual ADDs (face
 * detection: 17 of them; selfie segmentation: 22).
 *
 * Exact: both clamps are x < lo ? lo : (x > hi ? hi : x) or its vector form
 * (max then min), and for overlapping ranges clamping to one range then the
 * other equals clamping to their intersection for every value, infinities
 * and NaN included (NaN passes both forms unchanged); ranges that do not
 * overlap are left alone.
 *
 * Needs: prepare (the producers' params hold act_min / act_max). Runs before
 * schedule, so every later pass sees the producer with its activation, as
 * if the model had been written that way. Producers: CONV_2D,
 * DEPTHWISE_CONV_2D, FULLY_CONNECTED and TRANSPOSE_CONV (MediaPipe's
 * Convolution2DTransposeBias included) with f32 input, weights and output,
 * and f32 ADD, SUB and MUL. Conditions: the producer's output is read only by
 * the RELU, is not a graph output nor state. Not at -O0 (every op as the
 * model has it) nor for --target cuda (its emitter keeps the model's ops). */
#include "ops.h"
#include "passes.h"

static int is_f32(const Graph *g, int t) { return t >= 0 && g->tensors[t].dtype == IR_F32; }

static int is_relu(const IrOp *op) {
    return op->kind == OP_RELU || op->kind == OP_RELU6 || op->kind == OP_RELU_N1_TO_1 || op->kind == OP_RELU_0_TO_1;
}

/* The producer's f32 clamp (its params' act_min / act_max) into *lo / *hi; 0 when it has none this pass may change. */
#define CLAMP(T) (*lo = &((T *)op->params)->act_min, *hi = &((T *)op->params)->act_max, 1)
static int clamp_of(const Graph *g, IrOp *op, float **lo, float **hi) {
    if (op->kind == OP_TRANSPOSE_CONV) /* (output shape, weights, input[, bias]): its clamp runs after the taps */
        return op->params && op->n_out == 1 && op->n_in >= 3 && is_f32(g, op->in[1]) && is_f32(g, op->in[2]) &&
                       is_f32(g, op->out[0])
                   ? CLAMP(rt_tconv_params)
                   : 0;
    if (!op->params || op->n_out != 1 || op->n_in < 2 || !is_f32(g, op->in[0]) || !is_f32(g, op->in[1]) ||
        !is_f32(g, op->out[0]))
        return 0;
    switch (op->kind) {
    case OP_CONV_2D: return CLAMP(rt_conv_params);
    case OP_DEPTHWISE_CONV_2D: return CLAMP(rt_dwconv_params);
    case OP_FULLY_CONNECTED: return CLAMP(rt_fc_params);
    case OP_ADD:
    case OP_SUB:
    case OP_MUL: return op->n_in == 2 ? CLAMP(rt_binary_params) : 0;
    default: return 0;
    }
}
#undef CLAMP

int pass_fuse_act(Graph *g, Diag *d) {
    const Graph *root = g->root ? g->root : g;
    if (g->opt_level < 1 || root->target_cuda) return 0;
    int *readers = pass_count_readers(g), fused = 0;
    if (!readers) return diag_internal(d, "out of memory");
    for (int j = 0; j < g->n_ops; j++) {
        IrOp *relu = &g->ops[j];
        if (relu->dead || !is_relu(relu) || relu->n_in != 1 || relu->n_out != 1 || !relu->params ||
            !is_f32(g, relu->in[0]) || !is_f32(g, relu->out[0]))
            continue;
        const int t = relu->in[0], i = g->tensors[t].producer;
        if (i < 0 || i >= j || g->ops[i].dead || pass_only_reader(g, readers, t) != j || g->tensors[t].is_variable ||
            g->tensors[relu->out[0]].is_variable)
            continue;
        IrOp *prod = &g->ops[i];
        float *plo, *phi;
        if (!clamp_of(g, prod, &plo, &phi)) continue;
        const rt_act_params *a = relu->params;
        const float lo = *plo > a->f_min ? *plo : a->f_min, hi = *phi < a->f_max ? *phi : a->f_max;
        if (!(lo <= hi)) continue;
        *plo = lo, *phi = hi;
        prod->out[0] = relu->out[0];
        g->tensors[relu->out[0]].producer = i; /* a RELU reading the RELU's output folds in too */
        relu->dead = 1;
        pass_add_fused_name(prod, ir_op_name(relu->kind));
        fused = 1;
    }
    if (fused) ir_set_producers(g); /* (t, whose writer now writes the RELU's output) */
    return 0;
}
