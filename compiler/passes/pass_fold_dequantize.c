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
 * exactly the model's values (docs/weights-and-ops.md). */
#include "fold_const.h"
#include "passes.h"

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
        int rc = fold_const_eval(g, op, d);
        if (rc) return rc;
    }
    return 0;
}
