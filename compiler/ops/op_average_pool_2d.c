/* op_average_pool_2d.c - AVERAGE_POOL_2D over an NHWC tensor: f32, int8 and int16 (same scale and
 * zero point in and out), SAME/VALID padding, fused activation. The shared
 * options/shape/params logic is pool_* in conv_common.c. */
#include "conv_common.h"

static void eval(const Graph *g, const IrOp *op, const void *const *in, void *const *out, void *scratch) {
    (void)scratch;
    const rt_pool_params *p = op->params;
    switch (g->tensors[op->in[0]].dtype) {
    case IR_I8: rt_average_pool_2d_i8(p, in[0], out[0]); break;
    case IR_I16: rt_average_pool_2d_i16(p, in[0], out[0]); break;
    default: rt_average_pool_2d_f32(p, in[0], out[0]); break;
    }
}

static int emit_c(CgCtx *cg, const Graph *g, const IrOp *op, Diag *d) {
    (void)d;
    return pool_emit_c(cg, g, op, "rt_average_pool_2d");
}

static int64_t macs(const Graph *g, const IrOp *op) {
    const PoolOptions *o = op->options;
    return ir_tensor_numel(&g->tensors[op->out[0]]) * o->filter_h * o->filter_w;
}

const OpDef op_def_average_pool_2d = {"AVERAGE_POOL_2D", pool_parse, pool_check, pool_prepare, eval, emit_c, macs, 0};
