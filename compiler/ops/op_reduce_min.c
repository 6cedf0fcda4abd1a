/* op_reduce_min.c - REDUCE_MIN over constant axes (ReducerOptions.keep_dims).
 * f32, int32, int64; int8/int16 with the same scale and zero point in and
 * out (TFLite requires it). */
#include "conv_common.h"

static int prepare(Graph *g, IrOp *op, Diag *d) { return reduce_prepare(g, op, d) ? 0 : DIAG_INTERNAL; }

static void eval(const Graph *g, const IrOp *op, const void *const *in, void *const *out, void *scratch) {
    (void)scratch;
    const rt_reduce_params *p = op->params;
    switch (g->tensors[op->in[0]].dtype) {
    case IR_I8: rt_reduce_min_i8(p, in[0], out[0]); break;
    case IR_I16: rt_reduce_min_i16(p, in[0], out[0]); break;
    case IR_I32: rt_reduce_min_i32(p, in[0], out[0]); break;
    case IR_I64: rt_reduce_min_i64(p, in[0], out[0]); break;
    default: rt_reduce_min_f32(p, in[0], out[0]); break;
    }
}

static int emit_c(CgCtx *cg, const Graph *g, const IrOp *op, Diag *d) {
    (void)d;
    reduce_emit_params(cg, op->params);
    cg_line(cg, "rt_reduce_min_%s(&p, %s, %s);", ir_dtype_name(g->tensors[op->in[0]].dtype), cg_in(cg, op, 0),
            cg_out(cg, op, 0));
    return 0;
}

static int64_t macs(const Graph *g, const IrOp *op) { return ir_tensor_numel(&g->tensors[op->in[0]]); }

const OpDef op_def_reduce_min = {"REDUCE_MIN", reduce_parse, reduce_minmax_check, prepare, eval, emit_c, macs, 0};
