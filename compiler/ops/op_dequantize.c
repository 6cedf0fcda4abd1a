/* op_dequantize.c - DEQUANTIZE: int8/uint8/int16 (per tensor, or int8/uint8
 * per channel) -> float, and float16 -> float (float16-weight models). */
#include "elementwise_common.h"

static int check(Graph *g, IrOp *op, Diag *d) {
    if (op_expect_io(op, 1, 1, 1, d) || op_expect_dtype(g, op, 0, 0, DT(I8) | DT(U8) | DT(I16) | DT(F16), d) ||
        op_expect_dtype(g, op, 1, 0, DT(F32), d))
        return DIAG_USER;
    const IrTensor *in = op_cin(g, op, 0);
    if (in->dtype != IR_F16) {
        if (op_expect_quantized(g, op, 0, 0, d)) return DIAG_USER;
        for (int c = 0; c < in->q.count; c++)
            if (!isfinite(in->q.scale[c]))
                return op_error(d, op, "input '%s' has invalid scale %g", in->name, (double)in->q.scale[c]);
        if (in->q.count > 1) {
            if (in->dtype == IR_I16)
                return op_error(d, op, "per-channel int16 input '%s' is not supported (TFLite has no such kernel)",
                                in->name);
            if (in->q.dim < 0 || in->q.dim >= in->rank || in->dims[in->q.dim] != in->q.count)
                return op_error(d, op, "input '%s': %d per-channel scales do not match dimension %d", in->name,
                                in->q.count, in->q.dim);
        }
        if (in->dtype == IR_I16 && op_zp(in) != 0)
            return op_error(d, op, "int16 input '%s' must have zero point 0, got %d", in->name, (int)op_zp(in));
    }
    return op_set_out_shape(g, op, 0, in->rank, in->dims, d);
}

static int prepare(Graph *g, IrOp *op, Diag *d) {
    const IrTensor *in = op_cin(g, op, 0);
    rt_quant_params *p = ew_quant_params(g, op, in->dtype == IR_F16 ? NULL : in, d);
    if (!p) return DIAG_INTERNAL;
    op->params = p;
    return 0;
}

static void eval(const Graph *g, const IrOp *op, const void *const *in, void *const *out, void *scratch) {
    (void)scratch;
    if (g->tensors[op->in[0]].dtype == IR_F16) rt_dequantize_f16(op->params, in[0], out[0]);
    else rt_dequantize_int(op->params, in[0], out[0]);
}

static int emit_c(CgCtx *cg, const Graph *g, const IrOp *op, Diag *d) {
    (void)d;
    return ew_emit_quant(cg, op, op->params,
                         g->tensors[op->in[0]].dtype == IR_F16 ? "rt_dequantize_f16" : "rt_dequantize_int");
}

const OpDef op_def_dequantize = {"DEQUANTIZE", op_parse_none, check, prepare, eval, emit_c, ew_out_numel, 0};
