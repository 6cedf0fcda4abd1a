/* pass_precision.c - precision assignment: sets every op's compute dtype
 * (op->prec) and, with --precision int8, quantizes a float model after
 * training from calibration ranges (post-training static quantization).
 *
 * Needs: sink (runs on the graph as imported, before prepare computes the
 * kernels' parameters from the tensors' dtypes and scales).
 *
 * int8 follows TFLite's full-integer scheme, so the rewritten graph runs on
 * the same bit-exact int8 kernels as a model the converter quantized:
 * weights per output channel, symmetric (zero point 0, values -127..127);
 * biases int32 at input scale x weight scale; activations per tensor,
 * asymmetric, from the calibrated [min, max] widened to hold 0; SOFTMAX and
 * LOGISTIC write at 1/256 (zero point -128), TANH at 1/128 (0), and ops that
 * only move data (pooling, reshapes, PAD, TRANSPOSE) keep their input's
 * scale. Which ops run in int8 (autocast's policy): convolutions and
 * FULLY_CONNECTED with constant weights always (QUANTIZE inserted before them
 * when their input is float); elementwise, activation, pooling and data
 * movement ops only when all their computed inputs were computed in int8 (an
 * int8 island grows through them; a float LayerNorm, softmax or attention
 * stays float and keeps its fusions; a TRANSPOSE read only by matmuls stays
 * float to fold into them). Everything else, the ops named by
 * --keep-fp32 and the control-flow subgraphs stay float, with DEQUANTIZE
 * inserted where they read int8 values. Graph inputs and outputs keep their
 * float dtype, so the generated API does not change. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ops.h"
#include "passes.h"

/* What an op kind needs to run in int8. */
enum { Q_NO, Q_WEIGHTS, Q_ISLAND, Q_MOVE };

static int q_class(OpKind k) {
    switch (k) {
    case OP_CONV_2D: case OP_DEPTHWISE_CONV_2D: case OP_FULLY_CONNECTED: return Q_WEIGHTS;
    case OP_ADD: case OP_SUB: case OP_MUL: case OP_CONCATENATION: case OP_SOFTMAX: case OP_LOGISTIC:
    case OP_TANH: case OP_RELU: case OP_RELU6: case OP_HARD_SWISH: case OP_LEAKY_RELU: case OP_MEAN: case OP_GELU:
        return Q_ISLAND;
    case OP_MAX_POOL_2D: case OP_AVERAGE_POOL_2D: case OP_RESHAPE: case OP_SQUEEZE: case OP_EXPAND_DIMS:
    case OP_TRANSPOSE: case OP_PAD:
        return Q_MOVE;
    default: return Q_NO;
    }
}

typedef struct Ctx {
    Graph *g;
    const IrPrecision *p;
    int n0;          /* tensors as imported: the calibration ranges index these */
    int *q8;         /* per tensor: its int8 twin (the tensor itself once its producer runs in int8), -1 none */
    int *f32;        /* per tensor: a float twin of an int8-stored tensor, -1 none */
    char *from8;     /* per tensor (as imported): written by an op this pass runs in int8 */
    int *seq, n_seq; /* the new op order */
} Ctx;

static int has_range(const Ctx *c, int t) {
    return t >= 0 && t < c->n0 && t < c->p->n_stats && c->p->min[t] <= c->p->max[t];
}

static int set_quant(Graph *g, int t, int count, int dim, const float *scale, const int64_t *zp) {
    float *s = ir_alloc(g, sizeof(float) * (size_t)count);
    int64_t *z = ir_alloc(g, sizeof(int64_t) * (size_t)count);
    if (!s || !z) return -1;
    memcpy(s, scale, sizeof(float) * (size_t)count);
    memcpy(z, zp, sizeof(int64_t) * (size_t)count);
    IrTensor *x = ir_t(g, t);
    x->q.count = count;
    x->q.dim = dim;
    x->q.scale = s;
    x->q.zero_point = z;
    return 0;
}

/* TFLite's asymmetric int8 parameters for a real range (widened to hold 0). */
static void range_quant(float lo, float hi, float *scale, int64_t *zp) {
    double rmin = lo < 0 ? lo : 0, rmax = hi > 0 ? hi : 0;
    if (rmax - rmin < 1e-9) rmax = rmin + 1e-9;
    double s = (rmax - rmin) / 255.0;
    double z = -128.0 - rmin / s;
    z = z < -128 ? -128 : z > 127 ? 127 : z;
    *scale = (float)s;
    *zp = (int64_t)lround(z);
}

/* A new tensor shaped like `like`, of dtype dt, named NAME/suffix. */
static int twin(Graph *g, int like, IrDType dt, const char *suffix) {
    IrTensor l = *ir_t(g, like);
    return ir_add_tensor(g, ir_sprintf(g, "%s/%s", l.name, suffix), dt, l.rank, l.dims);
}

static int emit_op(Ctx *c, OpKind kind, int in, int out, int tfl_index) {
    int id = ir_add_op(c->g, kind, 1, &in, 1, &out);
    if (id < 0) return -1;
    c->g->ops[id].tfl_index = tfl_index;
    c->g->ops[id].prec = kind == OP_QUANTIZE ? IR_I8 : IR_F32;
    c->g->ops[id].prec_note = "inserted by precision";
    /* Its rounding is mpcc's to choose: one multiply-add on the C target (rt_quantize_float). */
    c->g->ops[id].float_rq = kind == OP_QUANTIZE && !(c->g->root ? c->g->root : c->g)->target_cuda;
    c->seq[c->n_seq++] = id;
    return 0;
}

/* The int8 twin of a float activation, quantized from its calibrated range
 * (a QUANTIZE op runs before the current op). */
static int int8_of(Ctx *c, int t, int tfl_index) {
    if (c->q8[t] >= 0) return c->q8[t];
    int q = twin(c->g, t, IR_I8, "int8");
    if (q < 0) return -1;
    float s;
    int64_t z;
    range_quant(c->p->min[t], c->p->max[t], &s, &z);
    if (set_quant(c->g, q, 1, 0, &s, &z) || emit_op(c, OP_QUANTIZE, t, q, tfl_index)) return -1;
    return c->q8[t] = q;
}

/* The float twin of an int8-stored tensor (a DEQUANTIZE op runs first). */
static int float_of(Ctx *c, int t, int tfl_index) {
    if (c->f32[t] >= 0) return c->f32[t];
    int f = twin(c->g, t, IR_F32, "f32");
    if (f < 0 || emit_op(c, OP_DEQUANTIZE, t, f, tfl_index)) return -1;
    return c->f32[t] = f;
}

/* A float constant as int8: symmetric per channel along `dim` (weights), or
 * per tensor asymmetric (dim < 0: the constant operand of an elementwise op). */
static int quantize_const(Graph *g, int t, int dim, const float *range) {
    IrTensor src = *ir_t(g, t);
    int64_t n = ir_tensor_numel(&src);
    int channels = dim >= 0 ? (int)src.dims[dim] : 1;
    int64_t inner = 1;
    for (int k = dim + 1; dim >= 0 && k < src.rank; k++) inner *= src.dims[k];
    int q = twin(g, t, IR_I8, "int8");
    float *scale = malloc(sizeof(float) * (size_t)channels);
    int64_t *zp = calloc((size_t)channels, sizeof(int64_t));
    int8_t *data = q >= 0 ? ir_alloc(g, (size_t)(n > 0 ? n : 1)) : NULL;
    if (!scale || !zp || !data) {
        free(scale), free(zp);
        return -1;
    }
    const float *x = (const float *)src.data;
    if (dim >= 0) {
        for (int ch = 0; ch < channels; ch++) {
            float m = 0;
            for (int64_t i = 0; i < n; i++)
                if ((i / inner) % channels == ch && fabsf(x[i]) > m) m = fabsf(x[i]);
            scale[ch] = m > 0 ? m / 127.0f : 1.0f;
        }
    } else {
        float lo = n ? x[0] : 0, hi = lo;
        for (int64_t i = 1; i < n; i++) lo = x[i] < lo ? x[i] : lo, hi = x[i] > hi ? x[i] : hi;
        if (range) lo = range[0], hi = range[1]; /* a CONCATENATION's part: its output's scale */
        range_quant(lo, hi, &scale[0], &zp[0]);
    }
    for (int64_t i = 0; i < n; i++) {
        int ch = dim >= 0 ? (int)((i / inner) % channels) : 0;
        double v = (double)zp[ch] + nearbyint((double)x[i] / (double)scale[ch]);
        data[i] = (int8_t)(v < -127 && dim >= 0 ? -127 : v < -128 ? -128 : v > 127 ? 127 : v);
    }
    int rc = set_quant(g, q, channels, dim >= 0 ? dim : 0, scale, zp);
    free(scale), free(zp);
    if (rc) return -1;
    IrTensor *qt = ir_t(g, q);
    qt->data = (const uint8_t *)data;
    qt->data_size = (size_t)n;
    return q;
}

/* A float bias as int32 at input scale x weight scale (per channel). */
static int quantize_bias(Graph *g, int t, float in_scale, int w) {
    IrTensor src = *ir_t(g, t);
    const IrQuant wq = ir_t(g, w)->q;
    int64_t n = ir_tensor_numel(&src);
    int q = twin(g, t, IR_I32, "int32");
    int32_t *data = q >= 0 ? ir_alloc(g, sizeof(int32_t) * (size_t)(n > 0 ? n : 1)) : NULL;
    float *scale = malloc(sizeof(float) * (size_t)(n > 0 ? n : 1));
    int64_t *zp = calloc((size_t)(n > 0 ? n : 1), sizeof(int64_t));
    if (!data || !scale || !zp) {
        free(scale), free(zp);
        return -1;
    }
    const float *x = (const float *)src.data;
    for (int64_t i = 0; i < n; i++) {
        scale[i] = in_scale * wq.scale[wq.count > 1 ? i : 0];
        double v = nearbyint((double)x[i] / (double)scale[i]);
        data[i] = (int32_t)(v < -2147483647.0 ? -2147483647.0 : v > 2147483647.0 ? 2147483647.0 : v);
    }
    int rc = set_quant(g, q, (int)n, 0, scale, zp);
    free(scale), free(zp);
    if (rc) return -1;
    IrTensor *qt = ir_t(g, q);
    qt->data = (const uint8_t *)data;
    qt->data_size = sizeof(int32_t) * (size_t)n;
    return q;
}

int pass_keep_fp32(const Graph *g, const IrPrecision *p, const IrOp *op) {
    char idx[24];
    snprintf(idx, sizeof idx, "%d", op->tfl_index);
    for (int i = 0; p && i < p->n_keep; i++) {
        if (strcmp(p->keep[i], idx) == 0) return 1;
        for (int k = 0; k < op->n_out; k++)
            if (strcmp(p->keep[i], g->tensors[op->out[k]].name) == 0) return 1;
    }
    return 0;
}

static int kept_fp32(const Ctx *c, const IrOp *op) { return pass_keep_fp32(c->g, c->p, op); }

/* A float activation this pass already turned into int8 (its producer runs in int8). */
static int converted(const Ctx *c, int t) { return t >= 0 && t < c->n0 && c->q8[t] == t; }

static int is_f32_const(const Graph *g, int t) { return t >= 0 && g->tensors[t].data && g->tensors[t].dtype == IR_F32; }
static int is_f32_act(const Graph *g, int t) { return t >= 0 && !g->tensors[t].data && g->tensors[t].dtype == IR_F32; }

/* MEAN over the last axis (a LayerNorm's statistics): kept float, as autocast
 * keeps reductions; a spatial MEAN (global average pooling) runs in int8. */
static int reduces_channels(const Graph *g, const IrOp *op) {
    const IrTensor *in = &g->tensors[op->in[0]];
    const IrTensor *axes = op->n_in > 1 && op->in[1] >= 0 ? &g->tensors[op->in[1]] : NULL;
    if (!axes || !axes->data || axes->dtype != IR_I32) return 1;
    const int32_t *a = (const int32_t *)axes->data;
    for (int64_t i = 0; i < ir_tensor_numel(axes); i++)
        if (a[i] == in->rank - 1 || a[i] == -1) return 1;
    return 0;
}

/* A TRANSPOSE read only by BATCH_MATMULs (an attention's head split): those stay float, and a float
 * transpose folds into their strides (pass fold_transpose) where an int8 one is a copy and then a
 * DEQUANTIZE of the copy (BERT int8: two such pairs per layer). */
static int feeds_only_matmuls(const Graph *g, const IrOp *op) {
    int n = 0, t = op->out[0];
    for (int i = 0; i < g->n_outputs; i++)
        if (g->outputs[i] == t) return 0;
    for (int i = 0; i < g->n_ops; i++)
        for (int k = 0; k < g->ops[i].n_in; k++)
            if (g->ops[i].in[k] == t) {
                if (g->ops[i].kind != OP_BATCH_MATMUL) return 0;
                n++;
            }
    return n > 0;
}

/* An ADD or SUB whose sum a LayerNorm reads (a MEAN over the last axis among its readers), or reaches one
 * through such ADDs (ViT's position embedding, read by the residual ADD): the residual
 * sum of a transformer block. Its readers run in float (the LayerNorm stays float), so an int8 sum would
 * be rescaled exactly (three fixed-point multiplications a value) only to be dequantized: in float it is
 * one addition of its inputs dequantized, and the sum keeps its precision (ViT int8: 0.29 us -> 0.10). */
static int feeds_layer_norm(const Graph *g, const IrOp *op, int depth) {
    if ((op->kind != OP_ADD && op->kind != OP_SUB) || depth > 8) return 0;
    for (int i = 0; i < g->n_ops; i++) {
        const IrOp *r = &g->ops[i];
        int reads = 0;
        for (int k = 0; k < r->n_in && !r->dead; k++) reads |= r->in[k] == op->out[0];
        if (reads && ((r->kind == OP_MEAN && reduces_channels(g, r)) || feeds_layer_norm(g, r, depth + 1))) return 1;
    }
    return 0;
}

/* Whether op i can run in int8, and the reason when it cannot (for --report). */
static int decide(Ctx *c, const IrOp *op, const char **why) {
    Graph *g = c->g;
    int cls = q_class(op->kind);
    for (int k = 0; k < op->n_out; k++) {
        const IrTensor *t = &g->tensors[op->out[k]];
        if (t->dtype != IR_F32 || t->is_variable) return *why = "not a float op", 0;
    }
    *why = "no int8 policy for this op";
    if (cls == Q_NO || op->n_callee) return 0;
    if (kept_fp32(c, op)) return *why = "--keep-fp32", 0;
    if (op->kind == OP_MEAN && reduces_channels(g, op)) return *why = "reduction over channels (LayerNorm) stays float", 0;
    if (feeds_layer_norm(g, op, 0)) return *why = "a LayerNorm reads it (stays float)", 0;
    if (op->kind == OP_TRANSPOSE && feeds_only_matmuls(g, op))
        return *why = "feeds float BATCH_MATMULs (folds into their strides)", 0;
    for (int k = 0; k < op->n_out; k++)
        if (!has_range(c, op->out[k])) return *why = "no calibration range", 0;
    int n_act = 0;
    for (int k = 0; k < op->n_in; k++) {
        int t = op->in[k];
        if (t < 0 || (g->tensors[t].dtype != IR_F32 && !converted(c, t))) continue;
        if (g->tensors[t].is_variable) return *why = "reads state", 0;
        if (g->tensors[t].data) continue;
        n_act++;
        if (!has_range(c, t)) return *why = "no calibration range", 0;
        /* An island grows only from values computed in int8: an int8 copy made for some other reader
         * (a QUANTIZE) does not count, a float op stays the cheaper and more exact choice there. */
        if (cls != Q_WEIGHTS && !(t < c->n0 && c->from8[t])) return *why = "float inputs (int8 starts at a conv/FC)", 0;
    }
    if (n_act == 0) return *why = "constant inputs only", 0;
    if (cls == Q_WEIGHTS) {
        int x = op->in[0];
        if (g->tensors[op->in[1]].dtype == IR_I8 && g->tensors[op->in[1]].data)
            return *why = "hybrid (int8 weights, float input)", 0;
        if (!(is_f32_act(g, x) || converted(c, x)) || !is_f32_const(g, op->in[1]))
            return *why = "weights are not constant", 0;
        if (op->n_in > 2 && op->in[2] >= 0 && !is_f32_const(g, op->in[2])) return *why = "bias is not constant", 0;
        if (op->kind == OP_FULLY_CONNECTED && g->tensors[op->in[1]].rank != 2) return *why = "weights not 2-D", 0;
    }
    *why = "calibrated";
    return 1;
}

/* The CONCATENATION that t reaches as its only reader, through ops that keep their input's scale (a
 * RESHAPE ...), when that has a calibrated range; else t. A part written at the concatenation's own
 * scale is copied, not rescaled (ViT's patches beside the class token: 0.10 -> 0.0x us), as the TFLite
 * converter arranges it. */
static int concat_range(const Ctx *c, int t) {
    const Graph *g = c->g;
    for (int hops = 0, u = t; hops < 8; hops++) {
        int reader = -1, n = 0;
        for (int i = 0; i < g->n_ops && n < 2; i++) {
            const IrOp *op = &g->ops[i];
            if (op->dead) continue;
            for (int k = 0; k < op->n_in; k++)
                if (op->in[k] == u) n++, reader = i;
        }
        if (n != 1 || g->tensors[u].is_output) return t;
        const IrOp *r = &g->ops[reader];
        if (r->kind == OP_CONCATENATION) return has_range(c, r->out[0]) ? r->out[0] : t;
        if (q_class(r->kind) != Q_MOVE || r->in[0] != u || r->n_out != 1) return t;
        u = r->out[0];
    }
    return t;
}

/* The output scale an int8 op must write, or its calibrated range. */
static int output_quant(Ctx *c, const IrOp *op, int k, float *s, int64_t *z) {
    switch (op->kind) {
    case OP_SOFTMAX: case OP_LOGISTIC: *s = 1.0f / 256.0f, *z = -128; return 0;
    case OP_TANH: *s = 1.0f / 128.0f, *z = 0; return 0;
    default: break;
    }
    if (q_class(op->kind) == Q_MOVE) {
        const IrTensor *in = ir_t(c->g, op->in[0]);
        *s = in->q.scale[0], *z = in->q.zero_point[0];
        return 0;
    }
    int r = concat_range(c, op->out[k]);
    range_quant(c->p->min[r], c->p->max[r], s, z);
    return 0;
}

static int to_int8(Ctx *c, int i) {
    Graph *g = c->g;
    int tfl = g->ops[i].tfl_index;
    int n_in = g->ops[i].n_in;
    OpKind kind = g->ops[i].kind;
    for (int k = 0; k < n_in; k++) {
        int t = g->ops[i].in[k];
        if (t < 0 || g->tensors[t].dtype != IR_F32) continue;
        int q;
        if (!g->tensors[t].data) q = int8_of(c, t, tfl);
        else if (q_class(kind) == Q_WEIGHTS && k == 1)
            q = quantize_const(g, t, kind == OP_DEPTHWISE_CONV_2D ? 3 : 0, NULL);
        else if (q_class(kind) == Q_WEIGHTS && k == 2) {
            int qin = g->ops[i].in[0];
            q = quantize_bias(g, t, g->tensors[qin].q.scale[0], g->ops[i].in[1]);
        } else {
            int ct = kind == OP_CONCATENATION ? g->ops[i].out[0] : -1;
            float r[2] = {ct >= 0 && has_range(c, ct) ? c->p->min[ct] : 0, ct >= 0 && has_range(c, ct) ? c->p->max[ct] : 0};
            q = quantize_const(g, t, -1, ct >= 0 && has_range(c, ct) ? r : NULL);
        }
        if (q < 0) return -1;
        g->ops[i].in[k] = q;
    }
    c->seq[c->n_seq++] = i;
    /* No converter fixed this op's rounding: the C kernels requantize its sums in float (a third of
     * the integer form's instructions); the CUDA kernels keep TFLite's fixed point. */
    g->ops[i].float_rq = (kind == OP_FULLY_CONNECTED || kind == OP_CONV_2D) && !(g->root ? g->root : g)->target_cuda;
    for (int k = 0; k < g->ops[i].n_out; k++) {
        int t = g->ops[i].out[k];
        float s;
        int64_t z;
        c->from8[t] = 1;
        if (output_quant(c, &g->ops[i], k, &s, &z)) return -1;
        if (g->tensors[t].is_output) {
            /* The API keeps the float output: the op writes an int8 twin, dequantized into it. */
            int q = twin(g, t, IR_I8, "int8");
            if (q < 0 || set_quant(g, q, 1, 0, &s, &z)) return -1;
            g->ops[i].out[k] = q;
            c->q8[t] = q;
            if (emit_op(c, OP_DEQUANTIZE, q, t, tfl)) return -1;
        } else {
            g->tensors[t].dtype = IR_I8;
            if (set_quant(g, t, 1, 0, &s, &z)) return -1;
            c->q8[t] = t;
        }
    }
    return 0;
}

static int to_float(Ctx *c, int i) {
    Graph *g = c->g;
    for (int k = 0; k < g->ops[i].n_in; k++) {
        int t = g->ops[i].in[k];
        /* Only tensors this pass turned into int8 (an op's own int8 operands stay as they are). */
        if (!converted(c, t)) continue;
        int f = float_of(c, t, g->ops[i].tfl_index);
        if (f < 0) return -1;
        g->ops[i].in[k] = f;
    }
    c->seq[c->n_seq++] = i;
    return 0;
}

/* An int8 FULLY_CONNECTED with the float requantization whose int8 result only a DEQUANTIZE of this
 * pass reads writes the floats itself: x s_in s_w per column (rt_fully_connected_i8_f32), no int8
 * rounding in between (ViT's attention output and FFN projections, their residual ADDs reading floats);
 * the DEQUANTIZE goes. Returns -1 when out of memory. */
static int fold_dequantize(Graph *g) {
    int *readers = pass_count_readers(g);
    if (!readers) return -1;
    for (int i = 0; i < g->n_ops; i++) {
        IrOp *fc = &g->ops[i];
        if (fc->dead || fc->kind != OP_FULLY_CONNECTED || !fc->float_rq || fc->n_out != 1) continue;
        int dq = pass_only_reader(g, readers, fc->out[0]);
        if (dq < 0 || g->ops[dq].kind != OP_DEQUANTIZE || !g->ops[dq].prec_note ||
            strcmp(g->ops[dq].prec_note, "inserted by precision") != 0)
            continue;
        fc->out[0] = g->ops[dq].out[0];
        g->ops[dq].dead = 1;
    }
    return 0;
}

/* A FULLY_CONNECTED with 2-D weights or a one-group CONV_2D, float, with
 * constant weights: what --precision bf16/fp16 stores in 16 bits. */
static const char *half_candidate(const Graph *g, const IrOp *op) {
    int x = op->in[0], w = op->in[1];
    const char *what = op->kind == OP_CONV_2D ? "not a float conv with constant filter" : "not a float FC with constant weights";
    if (!is_f32_act(g, x) || !is_f32_const(g, w) || g->tensors[op->out[0]].dtype != IR_F32) return what;
    if (op->kind == OP_FULLY_CONNECTED && g->tensors[w].rank != 2) return what;
    if (op->kind == OP_CONV_2D && (g->tensors[w].rank != 4 || g->tensors[x].rank != 4 ||
                                   g->tensors[w].dims[3] != g->tensors[x].dims[3]))
        return "grouped convolution stays float";
    return NULL;
}

/* --precision bf16/fp16: FULLY_CONNECTED and one-group CONV_2D with constant
 * float weights keep their weights in 16 bits (half the bytes) and compute
 * on inputs rounded to them (rt_fully_connected_half, rt_conv_2d_half);
 * everything else stays float for now. The fp16 range guard: with
 * calibration ranges, an op whose input or weights exceed fp16's largest
 * value (65504) runs in bf16 instead, and says so. */
static int to_half(Graph *g, const IrPrecision *p) {
    Ctx c = {g, p, g->n_tensors, NULL, NULL, NULL, NULL, 0};
    for (int i = 0; i < g->n_ops; i++) {
        IrOp *op = &g->ops[i];
        if (op->dead || (op->kind != OP_FULLY_CONNECTED && op->kind != OP_CONV_2D) || op->n_in < 2) continue;
        int x = op->in[0], w = op->in[1];
        const char *not_half = half_candidate(g, op);
        if (not_half) {
            op->prec_note = not_half;
            continue;
        }
        if (kept_fp32(&c, op)) {
            op->prec_note = "--keep-fp32";
            continue;
        }
        IrDType dt = p->mode == IR_PREC_BF16 ? IR_BF16 : IR_F16;
        const IrTensor *wt = &g->tensors[w];
        int64_t n = ir_tensor_numel(wt);
        const float *src = (const float *)wt->data;
        float wmax = 0, xmax = has_range(&c, x) ? fmaxf(fabsf(p->min[x]), fabsf(p->max[x])) : 0;
        for (int64_t k = 0; k < n; k++) wmax = fabsf(src[k]) > wmax ? fabsf(src[k]) : wmax;
        op->prec_note = dt == IR_BF16 ? "bf16 weights" : "fp16 weights";
        if (dt == IR_F16 && !p->no_range_guard && (xmax > 65504.0f || wmax > 65504.0f)) {
            dt = IR_BF16;
            op->prec_note = ir_sprintf(g, "fp16 range guard: %s reaches %.3g, beyond fp16's 65504: bf16",
                                       xmax > 65504.0f ? "input" : "a weight", (double)(xmax > 65504.0f ? xmax : wmax));
        }
        int h = twin(g, w, dt, dt == IR_BF16 ? "bf16" : "fp16");
        uint16_t *data = h >= 0 ? ir_alloc(g, sizeof(uint16_t) * (size_t)(n > 0 ? n : 1)) : NULL;
        if (!data) return -1;
        for (int64_t k = 0; k < n; k++) data[k] = dt == IR_BF16 ? rt_f32_to_bf16(src[k]) : rt_f32_to_f16(src[k]);
        g->tensors[h].data = (const uint8_t *)data;
        g->tensors[h].data_size = sizeof(uint16_t) * (size_t)n;
        g->ops[i].in[1] = h;
        g->ops[i].prec = dt;
    }
    return 0;
}

static IrDType natural_prec(const Graph *g, const IrOp *op) {
    for (int k = 0; k < op->n_in; k++)
        if (op->in[k] >= 0 && !g->tensors[op->in[k]].data) return g->tensors[op->in[k]].dtype;
    return op->n_out ? g->tensors[op->out[0]].dtype : IR_F32;
}

int pass_precision(Graph *g, Diag *d) {
    const IrPrecision *p = g->precision;
    for (int i = 0; i < g->n_ops; i++) {
        IrOp *op = &g->ops[i];
        op->prec = natural_prec(g, op);
        /* float16 weights pass fold_dequantize kept (a memory-bound GEMV): the op computes with them */
        if (op->prec == IR_F32 && ir_f16_weights_as_stored(g, op)) op->prec = IR_F16;
    }
    g->prec_assigned = 1;
    if (!p || p->mode == IR_PREC_FP32 || g->root) return 0;
    for (int k = 0; k < p->n_keep; k++) {
        int found = 0;
        char idx[24];
        for (int i = 0; i < g->n_ops && !found; i++) {
            snprintf(idx, sizeof idx, "%d", g->ops[i].tfl_index);
            found = strcmp(idx, p->keep[k]) == 0;
            for (int j = 0; j < g->ops[i].n_out && !found; j++) found = !strcmp(g->tensors[g->ops[i].out[j]].name, p->keep[k]);
        }
        if (!found) return diag_user(d, "--keep-fp32: the model has no operator index or tensor named '%s'", p->keep[k]);
    }
    if (p->mode == IR_PREC_BF16 || p->mode == IR_PREC_FP16)
        return to_half(g, p) ? diag_internal(d, "out of memory") : 0;
    Ctx c = {g, p, g->n_tensors, NULL, NULL, NULL, NULL, 0};
    int n_ops = g->n_ops;
    /* Worst case every op gains a QUANTIZE/DEQUANTIZE per input and output. */
    size_t extra = 0;
    for (int i = 0; i < n_ops; i++) extra += (size_t)(g->ops[i].n_in + g->ops[i].n_out);
    size_t cap_t = (size_t)g->n_tensors + 4 * extra + 1;
    c.q8 = malloc(sizeof(int) * cap_t);
    c.f32 = malloc(sizeof(int) * cap_t);
    c.seq = malloc(sizeof(int) * ((size_t)n_ops + extra + 1));
    c.from8 = calloc((size_t)g->n_tensors + 1, 1);
    if (!c.q8 || !c.f32 || !c.seq || !c.from8) {
        free(c.q8), free(c.f32), free(c.seq), free(c.from8);
        return diag_internal(d, "out of memory");
    }
    for (size_t t = 0; t < cap_t; t++) c.q8[t] = c.f32[t] = -1;
    int rc = 0;
    for (int i = 0; i < n_ops && !rc; i++) {
        const char *why;
        if (g->ops[i].dead) {
            c.seq[c.n_seq++] = i;
            continue;
        }
        int q = decide(&c, &g->ops[i], &why);
        if (q) rc = to_int8(&c, i);
        else rc = to_float(&c, i);
        if (!rc) {
            g->ops[i].prec = q ? IR_I8 : natural_prec(g, &g->ops[i]);
            g->ops[i].prec_note = why;
        }
    }
    if (!rc) {
        IrOp *order = malloc(sizeof(IrOp) * (size_t)c.n_seq);
        if (!order) rc = -1;
        else {
            for (int i = 0; i < c.n_seq; i++) order[i] = g->ops[c.seq[i]];
            memcpy(g->ops, order, sizeof(IrOp) * (size_t)c.n_seq);
            g->n_ops = c.n_seq;
            free(order);
            rc = fold_dequantize(g);
            ir_set_producers(g);
        }
    }
    free(c.q8), free(c.f32), free(c.seq), free(c.from8);
    if (rc) return diag_internal(d, "out of memory");
    return 0;
}
