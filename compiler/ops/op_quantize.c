/* op_quantize.c - QUANTIZE: float -> int8/uint8/int16 (per tensor or per
 * channel), and requantization between integer types as TFLite allows:
 * int8/uint8 -> int8/uint8/int16, int16 -> int8/int16/int32,
 * int32 -> int8/int16. */
#include "elementwise_common.h"

static int check(Graph *g, IrOp *op, Diag *d) {
    if (op_expect_io(op, 1, 1, 1, d) || op_expect_dtype(g, op, 0, 0, DT(F32) | DT(I8) | DT(U8) | DT(I16) | DT(I32), d) ||
        op_expect_dtype(g, op, 1, 0, DT(I8) | DT(U8) | DT(I16) | DT(I32), d) || op_expect_quantized(g, op, 1, 0, d))
        return DIAG_USER;
    const IrTensor *in = op_cin(g, op, 0), *out = &g->tensors[op->out[0]];
    IrDType ti = in->dtype, to = out->dtype;
    int ok = (ti == IR_F32 && to != IR_I32) || ((ti == IR_I8 || ti == IR_U8) && to != IR_I32) ||
             (ti == IR_I16 && to != IR_U8) || (ti == IR_I32 && (to == IR_I8 || to == IR_I16));
    if (!ok)
        return op_error(d, op, "quantizing %s to %s is not supported (TFLite has no such kernel)", ir_dtype_name(ti),
                        ir_dtype_name(to));
    for (int c = 0; c < out->q.count; c++)
        if (!(out->q.scale[c] > 0.0f) || !isfinite(out->q.scale[c]))
            return op_error(d, op, "output '%s' has invalid scale %g", out->name, (double)out->q.scale[c]);
    if (out->q.count > 1) {
        if (ti != IR_F32)
            return op_error(d, op, "per-channel output quantization needs a float input, got %s", ir_dtype_name(ti));
        if (out->q.dim < 0 || out->q.dim >= out->rank || out->dims[out->q.dim] != out->q.count)
            return op_error(d, op, "output '%s': %d per-channel scales do not match dimension %d", out->name,
                            out->q.count, out->q.dim);
    }
    if (ti != IR_F32) {
        if (op_expect_quantized(g, op, 0, 0, d)) return DIAG_USER;
        if (in->q.count > 1)
            return op_error(d, op, "input '%s' is quantized per channel; only per-tensor is supported", in->name);
        if (!(in->q.scale[0] > 0.0f) || !isfinite(in->q.scale[0]))
            return op_error(d, op, "input '%s' has invalid scale %g", in->name, (double)in->q.scale[0]);
        if (ti == IR_I16 && to == IR_I16 && (op_zp(in) || op_zp(out)))
            return op_error(d, op, "int16 -> int16 requantization needs zero points 0 (got %d, %d)", (int)op_zp(in),
                            (int)op_zp(out));
    }
    return op_set_out_shape(g, op, 0, in->rank, in->dims, d);
}

static int prepare(Graph *g, IrOp *op, Diag *d) {
    const IrTensor *in = op_cin(g, op, 0), *out = &g->tensors[op->out[0]];
    rt_quant_params *p = ew_quant_params(g, op, out, d);
    if (!p) return DIAG_INTERNAL;
    op->params = p;
    if (op->float_rq && in->dtype == IR_F32 && out->dtype == IR_I8 && p->channels <= 0)
        p->inv_scale = (float)(1.0 / (double)p->scale);
    if (in->dtype != IR_F32) {
        int shift;
        if (op_checked_multiplier(op, (double)in->q.scale[0] / (double)out->q.scale[0], &p->mult, &shift, d)) return DIAG_USER;
        p->shift = shift;
        p->in_zp = op_zp(in);
        p->out_zp = op_zp(out);
    }
    return 0;
}

static void eval(const Graph *g, const IrOp *op, const void *const *in, void *const *out, void *scratch) {
    (void)scratch;
    if (g->tensors[op->in[0]].dtype == IR_F32) rt_quantize_f32(op->params, in[0], out[0]);
    else rt_quantize_requant(op->params, in[0], out[0]);
}

static int emit_c(CgCtx *cg, const Graph *g, const IrOp *op, Diag *d) {
    (void)d;
    return ew_emit_quant(cg, op, op->params,
                         g->tensors[op->in[0]].dtype == IR_F32 ? "rt_quantize_f32" : "rt_quantize_requant");
}

const OpDef op_def_quantize = {"QUANTIZE", op_parse_none, check, prepare, eval, emit_c, ew_out_numel, 0};
