/* pass_fold_pad.c - folds an explicit PAD of the spatial dims into the
 * CONV_2D / DEPTHWISE_CONV_2D that reads it (PyTorch exports write a PAD
 * before every padded convolution): the convolution reads the unpadded
 * tensor with its padding increased by the PAD's top / left amounts, and the
 * padded copy (a full extra pass over the activation) disappears.
 *
 * Exact: PAD fills with 0 (float) or the zero point (int8/int16, PAD keeps
 * its input's quantization), and every convolution kernel treats taps
 * outside the input as contributing exactly what such a value would (0, or
 * x - zero_point = 0). Bottom / right padding needs nothing: the output
 * size is unchanged and taps past the input's end are skipped likewise.
 *
 * Needs: prepare (the convolution params hold in_h/in_w/pad_h/pad_w).
 * Conditions: PAD (not PADV2) with constant paddings that are zero on the
 * batch and channel dims of an NHWC tensor, its output read only by the
 * convolution's input 0 and not a graph output; not for hybrid convolutions
 * (float input, int8 filter), which quantize the whole padded input at run
 * time. Opt level >= 1. */
#include "ops.h"
#include "passes.h"

int pass_fold_pad(Graph *g, Diag *d) {
    if (g->opt_level < 1) return 0;
    int *readers = pass_count_readers(g);
    if (!readers) return diag_internal(d, "out of memory");
    int folded = 0;
    for (int i = 0; i < g->n_ops; i++) {
        IrOp *pad = &g->ops[i];
        if (pad->dead || pad->kind != OP_PAD || pad->n_in < 2) continue;
        const IrTensor *x = &g->tensors[pad->in[0]], *pads = &g->tensors[pad->in[1]];
        if (x->rank != 4 || !pads->data || ir_tensor_numel(pads) != 8 ||
            (pads->dtype != IR_I32 && pads->dtype != IR_I64))
            continue;
        int64_t top = pass_pad_amount(pads, 2), bottom = pass_pad_amount(pads, 3), left = pass_pad_amount(pads, 4),
                right = pass_pad_amount(pads, 5);
        if (pass_pad_amount(pads, 0) || pass_pad_amount(pads, 1) || pass_pad_amount(pads, 6) || pass_pad_amount(pads, 7) || top < 0 ||
            bottom < 0 || left < 0 || right < 0 || top > 1024 || left > 1024)
            continue;
        int c = pass_only_reader(g, readers, pad->out[0]);
        if (c < 0) continue;
        IrOp *conv = &g->ops[c];
        if ((conv->kind != OP_CONV_2D && conv->kind != OP_DEPTHWISE_CONV_2D) || conv->in[0] != pad->out[0] ||
            !conv->params || (g->tensors[conv->in[0]].dtype == IR_F32 && g->tensors[conv->in[1]].dtype == IR_I8))
            continue;
        if (conv->kind == OP_CONV_2D) {
            rt_conv_params *p = conv->params;
            p->in_h = (int32_t)x->dims[1];
            p->in_w = (int32_t)x->dims[2];
            p->pad_h += (int32_t)top;
            p->pad_w += (int32_t)left;
        } else {
            rt_dwconv_params *p = conv->params;
            p->in_h = (int32_t)x->dims[1];
            p->in_w = (int32_t)x->dims[2];
            p->pad_h += (int32_t)top;
            p->pad_w += (int32_t)left;
        }
        readers[pad->out[0]]--;
        pass_add_reader(g, readers, pad->in[0], c);
        conv->in[0] = pad->in[0];
        pad->dead = 1;
        pass_add_fused_name(conv, "PAD");
        folded++;
    }
    if (folded) ir_set_producers(g);
    return 0;
}
