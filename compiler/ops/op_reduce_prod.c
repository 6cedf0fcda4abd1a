/* op_reduce_prod.c - REDUCE_PROD over constant axes (ReducerOptions.keep_dims).
 * f32, int32, int64 (converters use it for shape arithmetic: the product of
 * some dimensions); the quantized int8 product is not supported. */
#include "conv_common.h"

static int check(Graph *g, IrOp *op, Diag *d) { return reduce_check(g, op, DT(F32) | DT(I32) | DT(I64), d); }

static int prepare(Graph *g, IrOp *op, Diag *d) { return reduce_prepare(g, op, d) ? 0 : DIAG_INTERNAL; }

static void eval(const Graph *g, const IrOp *op, const void *const *in, void *const *out, void *scratch) {
    (void)scratch;
    const rt_reduce_params *p = op->params;
    switch (g->tensors[op->in[0]].dtype) {
    case IR_I32: rt_reduce_prod_i32(p, in[0], out[0]); break;
    case IR_I64: rt_reduce_prod_i64(p, in[0], out[0]); break;
    default: rt_reduce_prod_f32(p, in[0], out[0]); break;
    }
}

static int emit_c(CgCtx *cg, const Graph *g, const IrOp *op, Diag *d) {
    (void)d;
    reduce_emit_params(cg, op->params);
    cg_line(cg, "rt_reduce_prod_%s(&p, %s, %s);", ir_dtype_name(g->tensors[op->in[0]].dtype), cg_in(cg, op, 0),
            cg_out(cg, op, 0));
    return 0;
}

static int64_t macs(const Graph *g, const IrOp *op) { return ir_tensor_numel(&g->tensors[op->in[0]]); }

const OpDef op_def_reduce_prod = {"REDUCE_PROD", reduce_parse, check, prepare, eval, emit_c, macs, 0};
