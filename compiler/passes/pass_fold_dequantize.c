/* pass_fold_dequantize.c - a DEQUANTIZE of a constant (float16 weights, as the
 * TF converter writes them for supported_types = [tf.float16], or int8/int16
 * with scale and zero point) runs once at compile time: its float output
 * becomes a constant tensor and the op is dead. The CONV_2D, FULLY_CONNECTED,
 * ... reading it then sees float weights and is scheduled (weights packed at
 * compile time) exactly like the op of the float32 model, and no DEQUANTIZE
 * runs at inference. Needs: fold_dead.
 *
 * The values are those the op would compute at run time (its own prepare and
 * reference kernel run here), so results are unchanged. The constants are
 * stored in float32, as TFLite's own DEQUANTIZE keeps a constant input's
 * output (computed once, persistent); float16 -> float32 is exact, so
 * --precision fp16 stores the convolution and FC weights in 16 bits again with
 * exactly the model's values (docs/weights-and-ops.md).
 *
 * One exception, at -O1/-O2 on a CPU target (not Cortex-M) without --precision: float16 weights of a
 * FULLY_CONNECTED over few rows (at most KEEP_F16_ROWS) whose float32 copy would take KEEP_F16_BYTES or more
 * stay float16 (the op reads the DEQUANTIZE's input, the DEQUANTIZE is dead). Such a GEMV reads every weight
 * once per row: its time is the weight bytes', so half of them runs up to twice as fast (rt_opt_fc_half: the
 * f32 inputs as they are, times the weights widened exactly, f32 sums; within rounding of the folded
 * weights' results). Kernel A/B, Intel Xeon AVX-512, 1 row: 1024 x 1024 2.5x, 6522 x 1024 1.7x, 4096 x 2048
 * 1.4x; 8 rows 1.2x; below ~1 MiB (weights in L2) 0.95x, hence the size threshold. */
#include "fold_const.h"
#include "passes.h"

#define KEEP_F16_ROWS 8
#define KEEP_F16_BYTES (2 << 20)

/* The FULLY_CONNECTEDs reading DEQUANTIZE dq's float16 constant as their weights may keep it in 16 bits:
 * 1 when every reader of its output is such an FC (float input, few rows, large weights). */
static int keeps_f16(const Graph *g, const IrOp *dq) {
    const Graph *r = g->root ? g->root : g;
    const IrTensor *in = &g->tensors[dq->in[0]], *out = &g->tensors[dq->out[0]];
    int readers = 0;
    if (in->dtype != IR_F16 || g->opt_level < 1 || r->target_cuda || ir_isa_is_mcu(r->isa) ||
        (r->precision && r->precision->mode != IR_PREC_FP32) || out->rank != 2 ||
        ir_tensor_numel(out) * 4 < KEEP_F16_BYTES)
        return 0;
    for (int i = 0; i < g->n_ops; i++) {
        const IrOp *op = &g->ops[i];
        if (op->dead) continue;
        for (int k = 0; k < op->n_in; k++) {
            if (op->in[k] != dq->out[0]) continue;
            if (op->kind != OP_FULLY_CONNECTED || k != 1 || op->in[0] < 0 || g->tensors[op->in[0]].dtype != IR_F32)
                return 0;
            int64_t depth = out->dims[1], x = ir_tensor_numel(&g->tensors[op->in[0]]);
            if (depth <= 0 || x % depth || x / depth > KEEP_F16_ROWS) return 0;
            readers++;
        }
    }
    return readers > 0;
}

static int foldable(const Graph *g, const IrOp *op) {
    if (op->dead || op->kind != OP_DEQUANTIZE || op->n_in != 1 || op->n_out != 1 || op->in[0] < 0) return 0;
    const IrTensor *in = &g->tensors[op->in[0]], *out = &g->tensors[op->out[0]];
    if (!in->data || in->is_variable || in->unknown) return 0;
    /* A graph output keeps its producer: the caller's buffer is written at run time. */
    return !out->is_output && !out->is_variable && !out->unknown;
}

int pass_fold_dequantize(Graph *g, Diag *d) {
    for (int i = 0; i < g->n_ops; i++) {
        IrOp *op = &g->ops[i];
        if (!foldable(g, op)) continue;
        if (keeps_f16(g, op)) { /* the readers take the float16 constant itself */
            for (int j = 0; j < g->n_ops; j++)
                if (!g->ops[j].dead && g->ops[j].n_in > 1 && g->ops[j].in[1] == op->out[0]) g->ops[j].in[1] = op->in[0];
            op->dead = 1;
            continue;
        }
        int rc = fold_const_eval(g, op, d);
        if (rc) return rc;
    }
    return 0;
}
