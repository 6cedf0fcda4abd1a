/* op_zeros_like.c - ZEROS_LIKE: zeros of the input's shape and dtype (f32,
 * i32, i64 in TFLite; any here). The input's values are not read. */
#include "shape_common.h"

static int check(Graph *g, IrOp *op, Diag *d) {
    if (op_expect_io(op, 1, 1, 1, d) || op_expect_dtype(g, op, 0, 0, SHAPE_ANY_DTYPE, d) ||
        op_expect_same_dtype(g, op, 0, d))
        return DIAG_USER;
    const IrTensor *in = op_cin(g, op, 0);
    return op_set_out_shape(g, op, 0, in->rank, in->dims, d);
}

static int prepare(Graph *g, IrOp *op, Diag *d) {
    rt_zeros_like_params *p = op_new_params(g, rt_zeros_like_params);
    if (!p) return diag_internal(d, "out of memory");
    p->bytes = ir_tensor_bytes(op_out(g, op, 0));
    op->params = p;
    return 0;
}

static void eval(const Graph *g, const IrOp *op, const void *const *in, void *const *out, void *scratch) {
    (void)g, (void)in, (void)scratch;
    rt_zeros_like(op->params, out[0]);
}

static int emit_c(CgCtx *cg, const Graph *g, const IrOp *op, Diag *d) {
    (void)g, (void)d;
    const rt_zeros_like_params *p = op->params;
    cg_line(cg, "static const rt_zeros_like_params p = {%lld};", (long long)p->bytes);
    cg_line(cg, "rt_zeros_like(&p, %s);", cg_out(cg, op, 0));
    return 0;
}

const OpDef op_def_zeros_like = {"ZEROS_LIKE", op_parse_none, check, prepare, eval, emit_c, op_no_macs, 0};
