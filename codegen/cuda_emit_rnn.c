/* cuda_emit_rnn.c - --target cuda: the recurrent ops (runtime/cuda/mpcc_cuda_rnn.cuh):
 * UNIDIRECTIONAL_SEQUENCE_LSTM and SVDF, f32 and int8. One kind, CU_RNN: cu_classify_rnn decides,
 * cu_emit_rnn emits one launch per op (a block per batch row walks the time steps), and
 * cu_emit_rnn_state_init makes --jit's PREFIX_cuda_init reset the ops' state tensors (variable inputs, in the
 * arena) to the values the C target's PREFIX_init gives them. */
#include "cuda_internal.h"

#include <stdlib.h>
#include <string.h>

enum { LSTM_OUT_STATE = 18, LSTM_CELL_STATE = 19, SVDF_STATE = 4 };
enum { SLOT_PROJ_BIAS = 8, SLOT_STATE = 16 }; /* xconst slots: 2 * gate (+1) the int8 folded biases */

/* The scratch bytes the kernel uses (the reference kernels' layout). */
static int64_t rnn_scratch_needed(const Graph *g, const IrOp *op) {
    if (op->kind == OP_SVDF) {
        const rt_svdf_params *p = op->params;
        return 4 * (int64_t)p->batches * p->num_filters;
    }
    if (g->tensors[op->in[0]].dtype == IR_I8) {
        const rt_lstm_q_params *p = op->params;
        return 9 * (int64_t)p->n_batch * p->n_cell;
    }
    const rt_lstm_params *p = op->params;
    return 20 * (int64_t)p->n_batch * p->n_cell;
}

CuKind cu_classify_rnn(const Graph *g, const IrOp *op, const char **why, int *mine) {
    *mine = 0;
    if (op->kind != OP_UNIDIRECTIONAL_SEQUENCE_LSTM && op->kind != OP_SVDF) return CU_NONE;
    IrDType t = cu_dt_in(g, op, 0);
    if (!op->params || (t != IR_F32 && t != IR_I8)) return CU_NONE;
    *mine = 1;
    if (op->kind == OP_UNIDIRECTIONAL_SEQUENCE_LSTM && t == IR_F32)
        for (int k = 1; k < op->n_in; k++)
            if (k != LSTM_OUT_STATE && k != LSTM_CELL_STATE && op->in[k] >= 0 && g->tensors[op->in[k]].dtype != IR_F32)
                return *why = "an f32 LSTM with non-f32 weights (hybrid or 16-bit) has no CUDA kernel", CU_NONE;
    if ((int64_t)op->scratch_bytes < rnn_scratch_needed(g, op))
        return *why = "its scratch is smaller than the CUDA kernel's layout needs", CU_NONE;
    return CU_RNN;
}

/* The state inputs of op, -1 past the end. */
static int state_input(const IrOp *op, int n) {
    if (op->kind == OP_SVDF) return n == 0 ? SVDF_STATE : -1;
    return n == 0 ? LSTM_OUT_STATE : n == 1 ? LSTM_CELL_STATE : -1;
}

/* The bytes every state tensor holds after PREFIX_cuda_init: its initial value, else the reset value. */
static int state_xconst(CuEmit *e, int i, const IrOp *op, int n) {
    const IrTensor *t = &e->g->tensors[op->in[state_input(op, n)]];
    int64_t bytes = ir_tensor_bytes(t);
    if (t->init) return cu_xconst_copy(e, i, SLOT_STATE + n, t->init, bytes);
    void *v = malloc((size_t)(bytes > 0 ? bytes : 1));
    if (v) memset(v, ir_variable_reset_value(t), (size_t)bytes);
    return cu_xconst_add(e, i, SLOT_STATE + n, v, bytes);
}

int cu_xconsts_rnn(CuEmit *e, int i, const IrOp *op) {
    for (int n = 0; e->o->jit && state_input(op, n) >= 0; n++) /* --jit's reset values (nvcc: cuda_emit_cf.c) */
        if (state_xconst(e, i, op, n)) return -1;
    if (op->kind != OP_UNIDIRECTIONAL_SEQUENCE_LSTM || cu_dt_in(e->g, op, 0) != IR_I8) return 0;
    const rt_lstm_q_params *p = op->params;
    for (int k = 0; k < 4; k++) {
        if (p->gate[k].in_bias && cu_xconst_copy(e, i, 2 * k, p->gate[k].in_bias, 4 * (int64_t)p->n_cell)) return -1;
        if (p->gate[k].rec_bias && cu_xconst_copy(e, i, 2 * k + 1, p->gate[k].rec_bias, 4 * (int64_t)p->n_cell)) return -1;
    }
    if (p->proj_bias && cu_xconst_copy(e, i, SLOT_PROJ_BIAS, p->proj_bias, 4 * (int64_t)p->n_output)) return -1;
    return 0;
}

void cu_emit_rnn_state_init(CuEmit *e, CgBuf *c) {
    const Graph *g = e->g;
    const char *pf = e->o->prefix;
    for (int x = 0; x < e->n_xc; x++) {
        const CuXConst *xc = &e->xc[x];
        if (xc->slot < SLOT_STATE || xc->op < 0 || xc->op >= g->n_ops) continue;
        const IrOp *op = &g->ops[xc->op];
        if (op->kind != OP_UNIDIRECTIONAL_SEQUENCE_LSTM && op->kind != OP_SVDF) continue;
        const IrTensor *t = &g->tensors[op->in[state_input(op, xc->slot - SLOT_STATE)]];
        if (t->offset < 0) continue;
        cgbuf_printf(c, "    /* op %d: reset its state (a variable tensor) */\n", xc->op);
        cgbuf_printf(c, "    if (mpcc_jit_copy(j, (unsigned char *)ctx->arena + %lld, %s_blob + %lld, %lld, MPCC_JIT_H2D, NULL) ||\n"
                        "        mpcc_jit_sync(j, NULL))\n        return %s_fail(ctx, -1);\n",
                     (long long)t->offset, pf, (long long)xc->off, (long long)xc->bytes, pf);
    }
}

/* Threads per block: enough for the widest phase, a multiple of 32, at most 256. */
static int rnn_threads(int64_t width) {
    int64_t t = (width + 31) / 32 * 32;
    return t < 32 ? 32 : t > 256 ? 256 : (int)t;
}

static int emit_lstm(CuEmit *e, CgBuf *kb, int index, const IrOp *op) {
    CgCtx *cg = &e->cg;
    int s8 = cu_dt_in(e->g, op, 0) == IR_I8;
    static const int peep_input[4] = {9, 10, -1, 11};
    int32_t nb, nc;
    cg_line(cg, "mpcc_lstm_args p;");
    cg_line(cg, "memset(&p, 0, sizeof p);");
    cg_line(cg, "p.in = %s; p.out = %s;", cu_ptr(e, op->in[0], "const void"), cu_ptr(e, op->out[0], "void"));
    cg_line(cg, "p.h = %s; p.c = %s;", cu_ptr(e, op->in[LSTM_OUT_STATE], "void"), cu_ptr(e, op->in[LSTM_CELL_STATE], "void"));
    cg_line(cg, "p.scratch = (void *)(a + %lld);", (long long)op->scratch_offset);
    e->uses_a = 1;
    cg_line(cg, "p.proj_w = %s;", cu_ptr(e, op->in[16], "const void"));
    for (int k = 0; k < 4; k++) {
        cg_line(cg, "p.gate[%d].w = %s; p.gate[%d].r = %s;", k, cu_ptr(e, op->in[1 + k], "const void"), k,
                cu_ptr(e, op->in[5 + k], "const void"));
        cg_line(cg, "p.gate[%d].peep = %s; p.gate[%d].ln = %s; p.gate[%d].bias = %s;", k,
                cu_ptr(e, peep_input[k] >= 0 ? op->in[peep_input[k]] : -1, "const void"), k, cu_ptr(e, op->in[20 + k], "const void"),
                k, cu_ptr(e, op->in[12 + k], "const void"));
    }
    if (s8) {
        const rt_lstm_q_params *p = op->params;
        nb = p->n_batch, nc = p->n_cell;
        cg_line(cg, "p.n_batch = %d; p.max_time = %d; p.n_input = %d; p.n_cell = %d; p.n_output = %d; p.time_major = %d;",
                p->n_batch, p->max_time, p->n_input, p->n_cell, p->n_output, p->time_major);
        cg_line(cg, "p.cell_scale = %d; p.cell_clip_q = %d; p.proj_clip_q = %d;", p->cell_scale, p->cell_clip, p->proj_clip);
        cg_line(cg, "p.hidden_mult = %d; p.hidden_shift = %d; p.hidden_zp = %d;", p->hidden_mult, p->hidden_shift, p->hidden_zp);
        cg_line(cg, "p.proj_mult = %d; p.proj_shift = %d; p.output_state_zp = %d; p.proj_bias_q = %s;", p->proj_mult, p->proj_shift,
                p->output_state_zp, cu_xptr(e, index, SLOT_PROJ_BIAS, "const int32_t"));
        for (int k = 0; k < 4; k++) {
            const rt_lstm_q_gate *q = &p->gate[k];
            cg_line(cg, "p.gate[%d].in_bias = %s; p.gate[%d].rec_bias = %s;", k, cu_xptr(e, index, 2 * k, "const int32_t"), k,
                    cu_xptr(e, index, 2 * k + 1, "const int32_t"));
            cg_line(cg, "p.gate[%d].in_mult = %d; p.gate[%d].in_shift = %d; p.gate[%d].rec_mult = %d; p.gate[%d].rec_shift = %d;", k,
                    q->in_mult, k, q->in_shift, k, q->rec_mult, k, q->rec_shift);
            cg_line(cg, "p.gate[%d].cell_mult = %d; p.gate[%d].cell_shift = %d; p.gate[%d].ln_mult = %d; p.gate[%d].ln_shift = %d;", k,
                    q->cell_mult, k, q->cell_shift, k, q->ln_mult, k, q->ln_shift);
            cg_line(cg, "p.gate[%d].variance_guard = %d;", k, q->variance_guard);
        }
    } else {
        const rt_lstm_params *p = op->params;
        nb = p->n_batch, nc = p->n_cell;
        cg_line(cg, "p.proj_b = %s;", cu_ptr(e, op->in[17], "const void"));
        cg_line(cg, "p.n_batch = %d; p.max_time = %d; p.n_input = %d; p.n_cell = %d; p.n_output = %d; p.time_major = %d; p.act = %d;",
                p->n_batch, p->max_time, p->n_input, p->n_cell, p->n_output, p->time_major, p->act);
        cg_line(cg, "p.cell_clip = %s; p.proj_clip = %s;", cu_f32(e, p->cell_clip), cu_f32(e, p->proj_clip));
    }
    int threads = rnn_threads(4 * (int64_t)nc);
    cu_kernel_def(e, kb, index, "mpcc_lstm_args", threads, s8 ? "mpcc_lstm_s8_body" : "mpcc_lstm_f32_body");
    if (nb > 0) cu_launch(e, index, nb, 1, 1, 0, threads, NULL);
    return 0;
}

static int emit_svdf(CuEmit *e, CgBuf *kb, int index, const IrOp *op) {
    const rt_svdf_params *p = op->params;
    CgCtx *cg = &e->cg;
    IrDType t = cu_dt_in(e->g, op, 0), st = cu_dt_in(e->g, op, SVDF_STATE);
    int type = t == IR_F32 ? 0 : st == IR_I16 ? 1 : 2;
    cg_line(cg, "mpcc_svdf_args p;");
    cg_line(cg, "memset(&p, 0, sizeof p);");
    cg_line(cg, "p.in = %s; p.wf = %s; p.wt = %s; p.bias = %s;", cu_ptr(e, op->in[0], "const void"), cu_ptr(e, op->in[1], "const void"),
            cu_ptr(e, op->in[2], "const void"), cu_ptr(e, op->in[3], "const void"));
    cg_line(cg, "p.state = %s; p.out = %s; p.scratch = (void *)(a + %lld);", cu_ptr(e, op->in[SVDF_STATE], "void"),
            cu_ptr(e, op->out[0], "void"), (long long)op->scratch_offset);
    e->uses_a = 1;
    cg_line(cg, "p.batches = %d; p.input_size = %d; p.num_filters = %d; p.num_units = %d; p.rank = %d; p.memory_size = %d; p.type = %d;",
            p->batches, p->input_size, p->num_filters, p->num_units, p->rank, p->memory_size, type);
    if (type == 0)
        cg_line(cg, "p.act_min = %s; p.act_max = %s;", cu_f32(e, p->act_min), cu_f32(e, p->act_max));
    else
        cg_line(cg, "p.in_zp = %d; p.out_zp = %d; p.state_zp = %d; p.mult1 = %d; p.shift1 = %d; p.mult2 = %d; p.shift2 = %d;", p->in_zp,
                p->out_zp, p->state_zp, p->mult1, p->shift1, p->mult2, p->shift2);
    int threads = rnn_threads(p->num_filters);
    cu_kernel_def(e, kb, index, "mpcc_svdf_args", threads, "mpcc_svdf_body");
    if (p->batches > 0) cu_launch(e, index, p->batches, 1, 1, 0, threads, NULL);
    return 0;
}

int cu_emit_rnn(CuEmit *e, CgBuf *kb, int index, const IrOp *op, Diag *d) {
    switch (op->kind) {
    case OP_UNIDIRECTIONAL_SEQUENCE_LSTM: return emit_lstm(e, kb, index, op);
    case OP_SVDF: return emit_svdf(e, kb, index, op);
    default: return diag_internal(d, "operator %d: no CUDA recurrent emitter for %s", op->tfl_index, ir_op_name(op->kind));
    }
}
