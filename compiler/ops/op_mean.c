/* op_mean.c - MEAN over constant axes (ReducerOptions.keep_dims).
 * f32; int8 and int16 (int16 zero points 0). Quantized MEAN follows
 * LiteRT's reference reduce.cc, which sends every int8/int16 MEAN (the 4-D
 * height/width case and equal scales included) through the integer
 * QuantizedMeanOrSum; older TFLite versions had a separate 4-D fast path and
 * a float rescale, which round differently. */
#include "conv_common.h"

static int check(Graph *g, IrOp *op, Diag *d) {
    if (reduce_check(g, op, DT(F32) | DT(I8) | DT(I16), d)) return DIAG_USER;
    const IrTensor *in = op_cin(g, op, 0), *out = &g->tensors[op->out[0]];
    if (in->dtype == IR_I16 && (op_zp(in) != 0 || op_zp(out) != 0))
        return op_error(d, op, "int16 input and output must have zero point 0");
    return 0;
}

static int prepare(Graph *g, IrOp *op, Diag *d) {
    const IrTensor *in = op_cin(g, op, 0), *out = &g->tensors[op->out[0]];
    rt_reduce_params *p = reduce_prepare(g, op, d);
    if (!p) return DIAG_INTERNAL;
    if (in->dtype == IR_F32) return 0;
    /* PrepareMeanOrSum: multiplier of (double)in_scale / (double)out_scale;
     * QuantizedMeanOrSum then folds 1/n into it with a shift of floor(log2 n),
     * at most 32 and at most 31 + shift. */
    double real = (double)in->q.scale[0] / (double)out->q.scale[0];
    int32_t mult;
    int shift, n = p->reduce_count;
    if (op_checked_multiplier(op, real, &mult, &shift, d)) return DIAG_USER;
    if (n > 0) {
        int extra = 0;
        while (extra < 62 && ((int64_t)1 << (extra + 1)) <= n) extra++;
        if (extra > 32) extra = 32;
        if (extra > 31 + shift) extra = 31 + shift;
        mult = (int32_t)((((int64_t)mult) << extra) / n);
        shift -= extra;
    }
    p->mult = mult;
    p->shift = shift;
    op->scratch_bytes = (size_t)p->out_count * sizeof(int32_t);
    return 0;
}

static void eval(const Graph *g, const IrOp *op, const void *const *in, void *const *out, void *scratch) {
    const rt_reduce_params *p = op->params;
    switch (g->tensors[op->in[0]].dtype) {
    case IR_I8: rt_mean_i8(p, in[0], out[0], scratch); break;
    case IR_I16: rt_mean_i16(p, in[0], out[0], scratch); break;
    default: rt_mean_f32(p, in[0], out[0]); break;
    }
}

static int emit_c(CgCtx *cg, const Graph *g, const IrOp *op, Diag *d) {
    (void)d;
    IrDType dt = g->tensors[op->in[0]].dtype;
    reduce_emit_params(cg, op->params);
    if (dt == IR_F32)
        cg_line(cg, "rt_mean_f32(&p, %s, %s);", cg_in(cg, op, 0), cg_out(cg, op, 0));
    else
        cg_line(cg, "rt_mean_%s(&p, %s, %s, %s);", dt == IR_I8 ? "i8" : "i16", cg_in(cg, op, 0), cg_out(cg, op, 0),
                cg_scratch(cg, op));
    return 0;
}

static int64_t macs(const Graph *g, const IrOp *op) { return ir_tensor_numel(&g->tensors[op->in[0]]); }

const OpDef op_def_mean = {"MEAN", reduce_parse, check, prepare, eval, emit_c, macs, 0};
