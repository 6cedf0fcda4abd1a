/* pass_shortcut.c - scheduling: the shortcut of a residual block runs before
 * the convolution whose output it is added to. MediaPipe's BlazeFace and
 * landmark blocks that halve the image add conv(dw(x)) to PAD(MAX_POOL(x))
 * (the PAD widens the channels with zeros), and the converter writes the
 * MAX_POOL_2D and the PAD after the convolution; with them first, the ADD's
 * other operand exists when the convolution runs, so pass fuse_add can fuse
 * the ADD (and the PAD) into the convolution's epilogue.
 *
 * Needs: fold_pad (a spatial PAD folded into a convolution is gone). Moves
 * at most two ops, a PAD and the MAX_POOL_2D / AVERAGE_POOL_2D it reads (or
 * either alone), when each output is read only by the next op of the chain
 * (the last one's by the ADD), none is a graph output, and whatever else the
 * chain reads is computed before the convolution; f32 ADDs only (the int8
 * epilogue cannot drop the PAD: landmark_int8 and blazeface_int8 ran 0.99x
 * with only their ADDs fused). Results are unchanged: the moved ops read
 * nothing the ops they move past write. Opt level >= 1. */
#include <string.h>

#include "passes.h"

static int movable_kind(OpKind k) { return k == OP_PAD || k == OP_MAX_POOL_2D || k == OP_AVERAGE_POOL_2D; }

/* 1 when every input of op that is computed at run time is written by an op before `before`. */
static int inputs_before(const Graph *g, const IrOp *op, int before) {
    for (int k = 0; k < op->n_in; k++) {
        int t = op->in[k];
        if (t >= 0 && !g->tensors[t].data && g->tensors[t].producer >= before) return 0;
    }
    return 1;
}

/* Moves the chain ops (n of them, ascending indices after at) to just before ops[at], the ops in between
 * keeping their order. */
static void move_before(Graph *g, int at, const int *chain, int n) {
    IrOp keep[2];
    int w = chain[n - 1], q = n - 1;
    for (int k = 0; k < n; k++) keep[k] = g->ops[chain[k]];
    for (int j = chain[n - 1]; j >= at; j--) {
        if (q >= 0 && j == chain[q]) {
            q--;
            continue;
        }
        g->ops[w--] = g->ops[j];
    }
    for (int k = 0; k < n; k++) g->ops[at + k] = keep[k];
}

int pass_shortcut(Graph *g, Diag *d) {
    if (g->opt_level < 1) return 0;
    int *readers = pass_count_readers(g);
    if (!readers) return diag_internal(d, "out of memory");
    for (int i = 0; i < g->n_ops; i++) {
        IrOp *add = &g->ops[i];
        if (add->dead || add->kind != OP_ADD || add->n_in != 2 || add->in[0] < 0 || add->in[1] < 0 ||
            g->tensors[add->out[0]].dtype != IR_F32)
            continue;
        int p0 = g->tensors[add->in[0]].producer, p1 = g->tensors[add->in[1]].producer;
        int c = p0 < p1 ? p0 : p1, late = p0 < p1 ? 1 : 0, last = p0 < p1 ? p1 : p0;
        if (c < 0 || g->ops[c].kind != OP_CONV_2D || g->ops[c].dead) continue;
        /* the chain ending at the ADD's later operand, read only along the chain */
        int chain[2], n = 0, t = add->in[late], ok = 1;
        while (ok && n < 2) {
            const IrOp *op = &g->ops[last];
            if (op->dead || !movable_kind(op->kind) || op->n_out != 1 || op->n_in < 1 || op->in[0] < 0 ||
                pass_only_reader(g, readers, t) < 0) {
                ok = 0;
                break;
            }
            chain[n++] = last;
            int up = g->tensors[op->in[0]].producer;
            if (inputs_before(g, op, c)) break;
            if (n == 2 || up <= c) ok = 0; /* the chain's start still waits for an op after the convolution */
            t = op->in[0];
            last = up;
        }
        if (!ok || n == 0 || !inputs_before(g, &g->ops[chain[n - 1]], c)) continue;
        if (n == 2) { /* in op order: producer first */
            int s = chain[0];
            chain[0] = chain[1];
            chain[1] = s;
        }
        move_before(g, c, chain, n);
        ir_set_producers(g);
        readers = pass_count_readers(g); /* op indices moved */
        if (!readers) return diag_internal(d, "out of memory");
    }
    return 0;
}
