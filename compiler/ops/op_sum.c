/* op_sum.c - SUM over constant axes (ReducerOptions.keep_dims).
 * f32, int32, int64; int8 (TFLite's float rescale of the int32 sum, clamped,
 * also when the scales are equal: LiteRT's reference int8 SUM reads the data
 * as uint8, so the interpreter's optimized kernel is the specification here);
 * int16 with the same scale and zero point in and out. */
#include "conv_common.h"

static int check(Graph *g, IrOp *op, Diag *d) {
    if (reduce_check(g, op, DT(F32) | DT(I8) | DT(I16) | DT(I32) | DT(I64), d)) return DIAG_USER;
    const IrTensor *in = op_cin(g, op, 0), *out = &g->tensors[op->out[0]];
    if (in->dtype == IR_I16 && (in->q.scale[0] != out->q.scale[0] || op_zp(in) != op_zp(out)))
        return op_error(d, op, "int16 input '%s' and output '%s' must share scale and zero point", in->name,
                        out->name);
    return 0;
}

static int prepare(Graph *g, IrOp *op, Diag *d) {
    rt_reduce_params *p = reduce_prepare(g, op, d);
    if (!p) return DIAG_INTERNAL;
    if (op_cin(g, op, 0)->dtype == IR_I8) op->scratch_bytes = (size_t)p->out_count * sizeof(int32_t);
    return 0;
}

static void eval(const Graph *g, const IrOp *op, const void *const *in, void *const *out, void *scratch) {
    const rt_reduce_params *p = op->params;
    switch (g->tensors[op->in[0]].dtype) {
    case IR_I8: rt_sum_i8(p, in[0], out[0], scratch); break;
    case IR_I16: rt_sum_i16(p, in[0], out[0]); break;
    case IR_I32: rt_sum_i32(p, in[0], out[0]); break;
    case IR_I64: rt_sum_i64(p, in[0], out[0]); break;
    default: rt_sum_f32(p, in[0], out[0]); break;
    }
}

static int emit_c(CgCtx *cg, const Graph *g, const IrOp *op, Diag *d) {
    (void)d;
    IrDType dt = g->tensors[op->in[0]].dtype;
    reduce_emit_params(cg, op->params);
    if (dt == IR_I8)
        cg_line(cg, "rt_sum_i8(&p, %s, %s, %s);", cg_in(cg, op, 0), cg_out(cg, op, 0), cg_scratch(cg, op));
    else
        cg_line(cg, "rt_sum_%s(&p, %s, %s);", ir_dtype_name(dt), cg_in(cg, op, 0), cg_out(cg, op, 0));
    return 0;
}

static int64_t macs(const Graph *g, const IrOp *op) { return ir_tensor_numel(&g->tensors[op->in[0]]); }

const OpDef op_def_sum = {"SUM", reduce_parse, check, prepare, eval, emit_c, macs, 0};
