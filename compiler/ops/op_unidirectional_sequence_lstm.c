/* op_unidirectional_sequence_lstm.c - UNIDIRECTIONAL_SEQUENCE_LSTM, float32.
 * 24 inputs (TFLite order): input, 4 input weights (input gate optional:
 * CIFG), 4 recurrent weights, 3 peephole weights (optional), 4 biases,
 * projection weights/bias (optional), the output and cell state (variable
 * tensors, updated in place), 4 layer-norm coefficients (optional).
 * Options: fused activation (NONE/RELU/RELU_N1_TO_1/RELU6/TANH, applied to
 * the cell input and the cell output), cell_clip, proj_clip, time_major.
 * float32, and fully quantized int8 (TFLite's 8x8->16 integer kernel: int8
 * input/weights/output state, int16 cell state with a power-of-two scale,
 * int16 peephole and layer-norm weights, int32 biases; the operator's 5
 * `intermediates` tensors carry the hidden scale and, with layer norm, the
 * gate matmul scales). Hybrid LSTMs (float input, int8 weights) are not
 * supported. */
#include <math.h>
#include <stdio.h>

#include "op_util.h"

typedef struct LstmOptions {
    int act;
    float cell_clip, proj_clip;
    int time_major;
} LstmOptions;

enum { N_IN = 24, IN_OUT_STATE = 18, IN_CELL_STATE = 19 };

static int parse(Graph *g, IrOp *op, const FbTable *opts, Diag *d) {
    LstmOptions *o = ir_alloc(g, sizeof *o);
    int8_t act = 0;
    int tm = 0, asym = 0, diag_rec = 0;
    if (!o) return diag_internal(d, "out of memory");
    op->options = o;
    if (!opts) return 0;
    if (fb_i8(opts, TFL_UNIDIRECTIONAL_SEQUENCE_LSTM_OPTIONS_FUSED_ACTIVATION_FUNCTION, 0, &act, d) ||
        fb_f32(opts, TFL_UNIDIRECTIONAL_SEQUENCE_LSTM_OPTIONS_CELL_CLIP, 0.0f, &o->cell_clip, d) ||
        fb_f32(opts, TFL_UNIDIRECTIONAL_SEQUENCE_LSTM_OPTIONS_PROJ_CLIP, 0.0f, &o->proj_clip, d) ||
        fb_bool(opts, TFL_UNIDIRECTIONAL_SEQUENCE_LSTM_OPTIONS_TIME_MAJOR, 0, &tm, d) ||
        fb_bool(opts, TFL_UNIDIRECTIONAL_SEQUENCE_LSTM_OPTIONS_ASYMMETRIC_QUANTIZE_INPUTS, 0, &asym, d) ||
        fb_bool(opts, TFL_UNIDIRECTIONAL_SEQUENCE_LSTM_OPTIONS_DIAGONAL_RECURRENT_TENSORS, 0, &diag_rec, d))
        return DIAG_USER;
    /* asymmetric_quantize_inputs only affects hybrid kernels, which are rejected in check. */
    if (diag_rec) return op_error(d, op, "unsupported option diagonal_recurrent_tensors");
    if (act < 0 || act > 4) return op_error(d, op, "unsupported fused activation %d", act);
    if (o->cell_clip < 0.0f || o->proj_clip < 0.0f) return op_error(d, op, "cell_clip/proj_clip must be >= 0");
    o->act = act; /* ActivationFunctionType 0..4 == RT_LSTM_ACT_* */
    o->time_major = tm;
    return 0;
}

/* The dtype input k must have: all float32, or the integer kernel's types. */
static IrDType input_dtype(int k, int quant) {
    if (!quant) return IR_F32;
    if ((k >= 9 && k <= 11) || k >= 20 || k == IN_CELL_STATE) return IR_I16; /* peephole, layer norm, cell state */
    if ((k >= 12 && k <= 15) || k == 17) return IR_I32;                     /* biases */
    return IR_I8;
}

/* Optional input k must be absent or have the given 1-D/2-D shape. */
static int expect_shape(const Graph *g, const IrOp *op, int k, int required, int64_t d0, int64_t d1, Diag *d) {
    const IrTensor *t = op_cin(g, op, k);
    int quant = op_cin(g, op, 0)->dtype == IR_I8;
    if (!t) return required ? op_error(d, op, "required input %d is missing", k) : 0;
    if (t->dtype != input_dtype(k, quant))
        return op_error(d, op, "input %d tensor '%s' is %s; a %s LSTM needs %s here%s", k, t->name,
                        ir_dtype_name(t->dtype), quant ? "int8" : "float32",
                        ir_dtype_name(input_dtype(k, quant)),
                        quant ? "" : " (hybrid LSTMs with quantized weights are not supported)");
    int ok = d1 < 0 ? (t->rank == 1 && t->dims[0] == d0) : (t->rank == 2 && t->dims[0] == d0 && t->dims[1] == d1);
    if (!ok) {
        if (d1 < 0) return op_error(d, op, "input %d tensor '%s' must have shape [%lld]", k, t->name, (long long)d0);
        return op_error(d, op, "input %d tensor '%s' must have shape [%lld,%lld]", k, t->name, (long long)d0,
                        (long long)d1);
    }
    return 0;
}

/* ---- int8 (8x8->16) LSTM: TFLite unidirectional_sequence_lstm.cc Prepare
 * (PopulateQuantizedLstmParams8x8_16, PopulatePrecomputedZPTimesWeightsWithBias). */

static int per_tensor_quant(const Graph *g, const IrOp *op, const IrTensor *t, const char *what, Diag *d) {
    (void)g;
    if (t->q.count != 1 || !(t->q.scale[0] > 0.0f))
        return op_error(d, op, "%s tensor '%s' needs per-tensor quantization with a positive scale", what, t->name);
    return 0;
}

/* TFLite CheckedLog2: log2 of a power-of-two float. */
static int checked_log2(float x, int *out) {
    float l = logf(x) * (1.0f / logf(2.0f)), r = roundf(l);
    *out = (int)r;
    return fabsf(l - r) < 1e-3f;
}

static const IrTensor *intermediate(const Graph *g, const IrOp *op, int k) {
    return &g->tensors[op->intermediates[k]];
}

static int lstm_q_check(const Graph *g, const IrOp *op, int64_t n_cell, int64_t n_output, Diag *d) {
    const LstmOptions *o = op->options;
    int ln = op_cin(g, op, 21) != NULL, cell_scale = 0;
    if (o->act != RT_LSTM_ACT_TANH)
        return op_error(d, op, "int8 LSTM: fused activation %d not supported (TFLite's integer kernel always uses tanh)",
                        o->act);
    for (int k = 0; k < N_IN; k++) {
        const IrTensor *t = op_cin(g, op, k);
        if (!t || (k >= 12 && k <= 15) || k == 17) continue; /* int32 biases: scale unused */
        char what[32];
        snprintf(what, sizeof what, "input %d", k);
        if (per_tensor_quant(g, op, t, what, d)) return DIAG_USER;
    }
    if (per_tensor_quant(g, op, op_cin(g, op, 0), "input", d) ||
        per_tensor_quant(g, op, &g->tensors[op->out[0]], "output", d))
        return DIAG_USER;
    if (op->n_intermediates != 5)
        return op_error(d, op, "int8 LSTM needs 5 intermediate tensors (gate and hidden scales), the model has %d",
                        op->n_intermediates);
    for (int k = ln ? 0 : 4; k < 5; k++) {
        const IrTensor *t = intermediate(g, op, k);
        if (t->q.count < 1)
            return op_error(d, op, "intermediate %d tensor '%s' is not quantized", k, t->name);
    }
    if (!checked_log2(op_cin(g, op, IN_CELL_STATE)->q.scale[0], &cell_scale))
        return op_error(d, op, "cell state '%s' scale %g is not a power of two", op_cin(g, op, IN_CELL_STATE)->name,
                        (double)op_cin(g, op, IN_CELL_STATE)->q.scale[0]);
    /* tanh(c) runs in Q(15+cell_scale) fixed point; TFLite handles 0..6 integer bits only. */
    if (15 + cell_scale < 0 || 15 + cell_scale > 6)
        return op_error(d, op, "cell state scale 2^%d not supported (need 2^-15 .. 2^-9)", cell_scale);
    /* TFLite's integer peephole product uses n_output as the vector length. */
    if (op_cin(g, op, 10) && n_output != n_cell)
        return op_error(d, op, "int8 LSTM with peephole weights needs n_output == n_cell (%lld != %lld)",
                        (long long)n_output, (long long)n_cell);
    return 0;
}

static int qm(const IrOp *op, float v, int32_t *mult, int32_t *shift, Diag *d) {
    int sh = 0;
    if (op_checked_multiplier(op, (double)v, mult, &sh, d)) return DIAG_USER;
    *shift = sh;
    return 0;
}

static float tscale(const Graph *g, const IrOp *op, int k) { return op_cin(g, op, k)->q.scale[0]; }

/* bias (or 0) + zp * row sums of the [rows, cols] int8 weights; NULL without weights. */
static const int32_t *zp_times_weights(Graph *g, const IrOp *op, int w_k, int bias_k, int32_t zp, int *oom) {
    const IrTensor *w = op_cin(g, op, w_k), *b = bias_k >= 0 ? op_cin(g, op, bias_k) : NULL;
    if (!w) return NULL;
    int64_t rows = w->dims[0], cols = w->dims[1];
    int32_t *out = ir_alloc(g, sizeof(int32_t) * (size_t)rows);
    if (!out) {
        *oom = 1;
        return NULL;
    }
    for (int64_t r = 0; r < rows; r++) {
        uint32_t v = b ? (uint32_t)((const int32_t *)b->data)[r] : 0;
        int32_t row_sum = 0;
        for (int64_t c = 0; c < cols; c++) row_sum += ((const int8_t *)w->data)[r * cols + c];
        if (zp != 0) v += (uint32_t)row_sum * (uint32_t)zp; /* int32 arithmetic in TFLite */
        out[r] = (int32_t)v;
    }
    return out;
}

static int lstm_q_prepare(Graph *g, IrOp *op, Diag *d) {
    const LstmOptions *o = op->options;
    const IrTensor *in = op_cin(g, op, 0), *cell = op_cin(g, op, IN_CELL_STATE), *ost = op_cin(g, op, IN_OUT_STATE);
    rt_lstm_q_params *p = op_new_params(g, rt_lstm_q_params);
    if (!p) return diag_internal(d, "out of memory");
    int cifg = op_cin(g, op, 1) == NULL, peep = op_cin(g, op, 11) != NULL, ln = op_cin(g, op, 21) != NULL;
    int proj = op_cin(g, op, 16) != NULL, cell_scale = 0, oom = 0;
    p->time_major = o->time_major;
    p->max_time = (int32_t)(o->time_major ? in->dims[0] : in->dims[1]);
    p->n_batch = (int32_t)(o->time_major ? in->dims[1] : in->dims[0]);
    p->n_input = (int32_t)in->dims[2];
    p->n_cell = (int32_t)op_cin(g, op, 4)->dims[0];
    p->n_output = (int32_t)op_cin(g, op, 8)->dims[1];
    p->cell_clip = o->cell_clip > 0.0f
                       ? (int16_t)fminf(fmaxf(o->cell_clip / cell->q.scale[0], -32768.0f), 32767.0f) : 0;
    p->proj_clip = o->proj_clip > 0.0f
                       ? (int8_t)fminf(fmaxf(o->proj_clip / g->tensors[op->out[0]].q.scale[0], -128.0f), 127.0f) : 0;
    checked_log2(cell->q.scale[0], &cell_scale);
    p->cell_scale = cell_scale;

    /* Gate intermediate scales: from the model with layer norm, else Q3.12. */
    float inter[5];
    for (int k = 0; k < 4; k++) inter[k] = ln ? intermediate(g, op, k)->q.scale[0] : (float)pow(2.0, -12.0);
    inter[4] = intermediate(g, op, 4)->q.scale[0];
    /* The zero point CalculateLstmOutputInteger8x8_16 adds to o .* tanh(c):
     * the hidden intermediate's own without projection (the result is the
     * output state), its negation with projection, whose bias then adds
     * hidden_zp * row sums back (TFLite's "b/246629213" convention; checked
     * against the interpreter, where the two differ once the int8 clamp bites). */
    int32_t hidden_zp = (int32_t)intermediate(g, op, 4)->q.zero_point[0];
    p->hidden_zp = proj ? -hidden_zp : hidden_zp;
    float in_s = in->q.scale[0], os_s = ost->q.scale[0];
    /* Effective scales in float, as TFLite computes them (double where it uses std::pow). */
    float eff_hidden = (float)(pow(2.0, -15.0) / (double)inter[4] * pow(2.0, -15.0));
    float eff_proj = (proj ? tscale(g, op, 16) : 1.0f) * inter[4] / os_s;
    if (qm(op, eff_hidden, &p->hidden_mult, &p->hidden_shift, d)) return DIAG_USER;
    if (qm(op, eff_proj, &p->proj_mult, &p->proj_shift, d)) return DIAG_USER;
    p->output_state_zp = (int32_t)ost->q.zero_point[0];
    for (int gi = 0; gi < 4; gi++) {
        rt_lstm_q_gate *q = &p->gate[gi];
        int w_k = 1 + gi, r_k = 5 + gi, b_k = 12 + gi, ln_k = 20 + gi;
        int p_k = gi == 0 ? 9 : gi == 1 ? 10 : gi == 3 ? 11 : -1; /* the cell gate has no peephole */
        int present = !(gi == 0 && cifg);
        float eff_in = 1.0f, eff_rec = 1.0f, eff_cell = 1.0f, ln_scale = 1.0f;
        if (present) {
            eff_in = tscale(g, op, w_k) * in_s / inter[gi];
            eff_rec = tscale(g, op, r_k) * os_s / inter[gi];
            if (peep && p_k >= 0) eff_cell = (float)(pow(2.0, cell_scale) * (double)tscale(g, op, p_k) / (double)inter[gi]);
            if (ln) ln_scale = tscale(g, op, ln_k);
            q->in_bias = zp_times_weights(g, op, w_k, ln ? -1 : b_k, -(int32_t)in->q.zero_point[0], &oom);
            q->rec_bias = zp_times_weights(g, op, r_k, -1, -(int32_t)ost->q.zero_point[0], &oom);
        }
        if (qm(op, eff_in, &q->in_mult, &q->in_shift, d)) return DIAG_USER;
        if (qm(op, eff_rec, &q->rec_mult, &q->rec_shift, d)) return DIAG_USER;
        if (qm(op, eff_cell, &q->cell_mult, &q->cell_shift, d)) return DIAG_USER;
        if (qm(op, ln_scale, &q->ln_mult, &q->ln_shift, d)) return DIAG_USER;
        {
            int32_t guard = (int32_t)(10000.0f * ln_scale);
            q->variance_guard = guard > 1 ? guard : 1;
        }
    }
    if (proj) p->proj_bias = zp_times_weights(g, op, 16, 17, hidden_zp, &oom);
    if (oom) return diag_internal(d, "out of memory");
    op->scratch_bytes = (size_t)p->n_batch * (size_t)p->n_cell * (4 * sizeof(int16_t) + 1);
    op->params = p;
    return 0;
}

static void emit_gate_bias(CgCtx *cg, const char *name, int gi, const int32_t *v, int32_t n) {
    char buf[32];
    if (!v) return;
    snprintf(buf, sizeof buf, "%s%d", name, gi);
    cg_array_i32(cg, buf, v, n);
}

int lstm_emit_i8(CgCtx *cg, const IrOp *op, const char *kernel) {
    const rt_lstm_q_params *p = op->params;
    for (int gi = 0; gi < 4; gi++) {
        emit_gate_bias(cg, "in_bias", gi, p->gate[gi].in_bias, p->n_cell);
        emit_gate_bias(cg, "rec_bias", gi, p->gate[gi].rec_bias, p->n_cell);
    }
    if (p->proj_bias) cg_array_i32(cg, "proj_bias", p->proj_bias, p->n_output);
    cg_open(cg, "static const rt_lstm_q_params p = {");
    cg_line(cg, ".n_batch = %d, .max_time = %d, .n_input = %d, .n_cell = %d, .n_output = %d,", p->n_batch,
            p->max_time, p->n_input, p->n_cell, p->n_output);
    cg_line(cg, ".time_major = %d, .cell_scale = %d, .cell_clip = %d, .proj_clip = %d,", p->time_major,
            p->cell_scale, p->cell_clip, p->proj_clip);
    cg_line(cg, ".hidden_mult = %d, .hidden_shift = %d, .hidden_zp = %d,", p->hidden_mult, p->hidden_shift,
            p->hidden_zp);
    cg_line(cg, ".proj_mult = %d, .proj_shift = %d, .output_state_zp = %d,", p->proj_mult, p->proj_shift,
            p->output_state_zp);
    cg_line(cg, ".proj_bias = %s,", p->proj_bias ? "proj_bias" : "NULL");
    cg_open(cg, ".gate = {");
    static const char *const gate_names[4] = {"input", "forget", "cell", "output"};
    for (int gi = 0; gi < 4; gi++) {
        const rt_lstm_q_gate *q = &p->gate[gi];
        char ib[32] = "NULL", rb[32] = "NULL";
        if (q->in_bias) snprintf(ib, sizeof ib, "in_bias%d", gi);
        if (q->rec_bias) snprintf(rb, sizeof rb, "rec_bias%d", gi);
        cg_open(cg, "[%d] = { /* %s gate */", gi, gate_names[gi]);
        cg_line(cg, ".in_mult = %d, .in_shift = %d, .rec_mult = %d, .rec_shift = %d,", q->in_mult, q->in_shift,
                q->rec_mult, q->rec_shift);
        cg_line(cg, ".cell_mult = %d, .cell_shift = %d, .ln_mult = %d, .ln_shift = %d,", q->cell_mult,
                q->cell_shift, q->ln_mult, q->ln_shift);
        cg_line(cg, ".variance_guard = %d, .in_bias = %s, .rec_bias = %s", q->variance_guard, ib, rb);
        cg_close(cg, "},");
    }
    cg_close(cg, "}");
    cg_close(cg, "};");
    cg_open(cg, "const void *const t[%d] = {", N_IN);
    for (int k = 0; k < N_IN; k++)
        cg_line(cg, "%s%s /* input %d */", (k == IN_OUT_STATE || k == IN_CELL_STATE) ? "NULL" : cg_in(cg, op, k),
                k + 1 < N_IN ? "," : "", k);
    cg_close(cg, "};");
    cg_line(cg, "%s(&p, t, %s, %s, %s, %s);", kernel, cg_in(cg, op, IN_OUT_STATE),
            cg_in(cg, op, IN_CELL_STATE), cg_out(cg, op, 0), cg_scratch(cg, op));
    return 0;
}

static int check(Graph *g, IrOp *op, Diag *d) {
    const LstmOptions *o = op->options;
    if (op_expect_io(op, 1, N_IN, 1, d) || op_expect_dtype(g, op, 0, 0, DT(F32) | DT(I8), d) ||
        op_expect_same_dtype(g, op, 0, d))
        return DIAG_USER;
    if (op->n_in != N_IN) return op_error(d, op, "expected %d inputs, got %d", N_IN, op->n_in);
    const IrTensor *in = op_cin(g, op, 0), *w_o = op_cin(g, op, 4), *r_o = op_cin(g, op, 8);
    if (in->rank != 3) return op_error(d, op, "input '%s' must have rank 3", in->name);
    if (!w_o || !r_o || w_o->rank != 2 || r_o->rank != 2)
        return op_error(d, op, "input_to_output and recurrent_to_output weights must be 2-D");
    int64_t T = o->time_major ? in->dims[0] : in->dims[1], B = o->time_major ? in->dims[1] : in->dims[0];
    int64_t n_input = in->dims[2], n_cell = w_o->dims[0], n_output = r_o->dims[1];
    int cifg = op_cin(g, op, 1) == NULL;
    for (int k = 1; k <= 4; k++)
        if (expect_shape(g, op, k, k > 1, n_cell, n_input, d)) return DIAG_USER;
    for (int k = 5; k <= 8; k++)
        if (expect_shape(g, op, k, k > 5, n_cell, n_output, d)) return DIAG_USER;
    if (cifg != (op_cin(g, op, 5) == NULL) || cifg != (op_cin(g, op, 12) == NULL))
        return op_error(d, op, "input gate weights, recurrent weights and bias must be all present or all absent");
    int peep = op_cin(g, op, 10) != NULL;
    if (peep != (op_cin(g, op, 11) != NULL) || (!cifg && peep != (op_cin(g, op, 9) != NULL)) ||
        (cifg && op_cin(g, op, 9)))
        return op_error(d, op, "peephole weights must be all present or all absent");
    for (int k = 9; k <= 15; k++)
        if (expect_shape(g, op, k, k >= 13, n_cell, -1, d)) return DIAG_USER;
    if (expect_shape(g, op, 16, 0, n_output, n_cell, d) || expect_shape(g, op, 17, 0, n_output, -1, d))
        return DIAG_USER;
    if (!op_cin(g, op, 16) && (op_cin(g, op, 17) || n_output != n_cell))
        return op_error(d, op, "without projection weights, the output size must equal the cell size");
    int ln = op_cin(g, op, 21) != NULL;
    for (int k = 20; k <= 23; k++) {
        if (expect_shape(g, op, k, 0, n_cell, -1, d)) return DIAG_USER;
        if (k != 20 && (op_cin(g, op, k) != NULL) != ln)
            return op_error(d, op, "layer norm coefficients must be all present or all absent");
    }
    if ((op_cin(g, op, 20) != NULL) != (ln && !cifg))
        return op_error(d, op, "input layer norm coefficients must match the input gate's presence");
    if (expect_shape(g, op, IN_OUT_STATE, 1, B, n_output, d) || expect_shape(g, op, IN_CELL_STATE, 1, B, n_cell, d))
        return DIAG_USER;
    for (int k = IN_OUT_STATE; k <= IN_CELL_STATE; k++) {
        const IrTensor *s = op_cin(g, op, k);
        if (!s->is_variable) return op_error(d, op, "state input %d tensor '%s' must be a variable tensor", k, s->name);
    }
    if (in->dtype == IR_I8 && lstm_q_check(g, op, n_cell, n_output, d)) return DIAG_USER;
    int64_t dims[3] = {o->time_major ? T : B, o->time_major ? B : T, n_output};
    return op_set_out_shape(g, op, 0, 3, dims, d);
}

static int prepare(Graph *g, IrOp *op, Diag *d) {
    const LstmOptions *o = op->options;
    const IrTensor *in = op_cin(g, op, 0);
    if (in->dtype == IR_I8) return lstm_q_prepare(g, op, d);
    rt_lstm_params *p = op_new_params(g, rt_lstm_params);
    if (!p) return diag_internal(d, "out of memory");
    p->time_major = o->time_major;
    p->max_time = (int32_t)(o->time_major ? in->dims[0] : in->dims[1]);
    p->n_batch = (int32_t)(o->time_major ? in->dims[1] : in->dims[0]);
    p->n_input = (int32_t)in->dims[2];
    p->n_cell = (int32_t)op_cin(g, op, 4)->dims[0];
    p->n_output = (int32_t)op_cin(g, op, 8)->dims[1];
    p->act = o->act;
    p->cell_clip = o->cell_clip;
    p->proj_clip = o->proj_clip;
    op->scratch_bytes = sizeof(float) * 5 * (size_t)p->n_batch * (size_t)p->n_cell;
    op->params = p;
    return 0;
}

static void eval(const Graph *g, const IrOp *op, const void *const *in, void *const *out, void *scratch) {
    if (g->tensors[op->in[0]].dtype == IR_I8) {
        rt_unidirectional_sequence_lstm_i8(op->params, in, (int8_t *)in[IN_OUT_STATE], (int16_t *)in[IN_CELL_STATE],
                                           out[0], scratch);
        return;
    }
    const float *t[N_IN];
    for (int k = 0; k < N_IN; k++) t[k] = in[k];
    rt_unidirectional_sequence_lstm_f32(op->params, t, (float *)in[IN_OUT_STATE], (float *)in[IN_CELL_STATE], out[0],
                                        scratch);
}

int lstm_emit_f32(CgCtx *cg, const IrOp *op, const char *kernel) {
    const rt_lstm_params *p = op->params;
    cg_open(cg, "static const rt_lstm_params p = {");
    cg_line(cg, ".n_batch = %d, .max_time = %d, .n_input = %d, .n_cell = %d, .n_output = %d,", p->n_batch,
            p->max_time, p->n_input, p->n_cell, p->n_output);
    cg_line(cg, ".time_major = %d, .act = %d,", p->time_major, p->act);
    cg_line(cg, ".cell_clip = %s, .proj_clip = %s", cg_f32(cg, p->cell_clip), cg_f32(cg, p->proj_clip));
    cg_close(cg, "};");
    cg_open(cg, "const float *const t[%d] = {", N_IN);
    for (int k = 0; k < N_IN; k++)
        cg_line(cg, "%s%s /* input %d */", (k == IN_OUT_STATE || k == IN_CELL_STATE) ? "NULL" : cg_in(cg, op, k),
                k + 1 < N_IN ? "," : "", k);
    cg_close(cg, "};");
    cg_line(cg, "%s(&p, t, %s, %s, %s, (float *)%s);", kernel, cg_in(cg, op, IN_OUT_STATE),
            cg_in(cg, op, IN_CELL_STATE), cg_out(cg, op, 0), cg_scratch(cg, op));
    return 0;
}

static int emit_c(CgCtx *cg, const Graph *g, const IrOp *op, Diag *d) {
    (void)d;
    if (g->tensors[op->in[0]].dtype == IR_I8) return lstm_emit_i8(cg, op, "rt_unidirectional_sequence_lstm_i8");
    return lstm_emit_f32(cg, op, "rt_unidirectional_sequence_lstm_f32");
}

static int64_t macs(const Graph *g, const IrOp *op) {
    const LstmOptions *o = op->options;
    const IrTensor *in = op_cin(g, op, 0), *w_o = op_cin(g, op, 4), *r_o = op_cin(g, op, 8);
    if (!o || !in || !w_o || !r_o || in->rank != 3) return 0;
    int64_t n_cell = w_o->dims[0], n_output = r_o->dims[1], gates = op_cin(g, op, 1) ? 4 : 3;
    int64_t per_step = gates * n_cell * (in->dims[2] + n_output);
    if (op_cin(g, op, 16)) per_step += n_output * n_cell;
    return per_step * in->dims[0] * in->dims[1];
}

const OpDef op_def_unidirectional_sequence_lstm = {"UNIDIRECTIONAL_SEQUENCE_LSTM", parse, check, prepare, eval,
                                                   emit_c, macs, 0};
