/* op_gather_nd.c - GATHER_ND: slices of params addressed by the index tuples
 * in the last dim of indices. Any data dtype (quantized tensors keep their
 * quantization), indices int32/int64. Out-of-range tuples: TFLite fails the
 * invocation; our kernel cannot fail, so it writes zero bytes instead. */
#include "shape_common.h"

static int check(Graph *g, IrOp *op, Diag *d) {
    if (op_expect_io(op, 2, 2, 1, d) || op_expect_dtype(g, op, 0, 0, SHAPE_ANY_DTYPE, d) ||
        op_expect_dtype(g, op, 0, 1, DT(I32) | DT(I64), d) || shape_expect_same_quant(g, op, 0, 0, d))
        return DIAG_USER;
    const IrTensor *in = op_cin(g, op, 0), *idx = op_cin(g, op, 1);
    if (idx->rank < 1) return op_error(d, op, "indices '%s' must have rank 1 or more", idx->name);
    int64_t depth = idx->dims[idx->rank - 1];
    if (depth < 1 || depth > in->rank)
        return op_error(d, op, "indices' last dimension %lld must be in [1, %d] (the rank of params '%s')",
                        (long long)depth, in->rank, in->name);
    int64_t dims[IR_MAX_RANK];
    int n = 0;
    if (idx->rank - 1 + in->rank - depth > IR_MAX_RANK) return op_error(d, op, "output rank exceeds %d", IR_MAX_RANK);
    for (int i = 0; i < idx->rank - 1; i++) dims[n++] = idx->dims[i];
    for (int i = (int)depth; i < in->rank; i++) dims[n++] = in->dims[i];
    if (op_expect_same_dtype(g, op, 0, d)) return DIAG_USER;
    return op_set_out_shape(g, op, 0, n, dims, d);
}

static int prepare(Graph *g, IrOp *op, Diag *d) {
    const IrTensor *in = op_cin(g, op, 0), *idx = op_cin(g, op, 1);
    rt_gather_nd_params *p = op_new_params(g, rt_gather_nd_params);
    if (!p) return diag_internal(d, "out of memory");
    int depth = (int)idx->dims[idx->rank - 1];
    int64_t slices = 1, stride = ir_dtype_size(in->dtype);
    for (int i = 0; i < idx->rank - 1; i++) slices *= idx->dims[i];
    for (int i = in->rank - 1; i >= depth; i--) stride *= in->dims[i];
    p->slices = slices;
    p->depth = depth;
    p->slice_bytes = stride;
    for (int j = depth - 1; j >= 0; j--) {
        if (in->dims[j] > INT32_MAX) return op_error(d, op, "tensor too large");
        p->dims[j] = (int32_t)in->dims[j];
        p->stride_bytes[j] = stride;
        stride *= in->dims[j];
    }
    op->params = p;
    return 0;
}

static void eval(const Graph *g, const IrOp *op, const void *const *in, void *const *out, void *scratch) {
    (void)scratch;
    if (g->tensors[op->in[1]].dtype == IR_I64) rt_gather_nd_i64(op->params, in[0], in[1], out[0]);
    else rt_gather_nd_i32(op->params, in[0], in[1], out[0]);
}

static int emit_c(CgCtx *cg, const Graph *g, const IrOp *op, Diag *d) {
    (void)d;
    const rt_gather_nd_params *p = op->params;
    char dims[160] = "", strides[320] = "";
    size_t dl = 0, sl = 0;
    for (int j = 0; j < p->depth; j++) {
        dl += (size_t)snprintf(dims + dl, sizeof dims - dl, "%s%d", j ? ", " : "", p->dims[j]);
        sl += (size_t)snprintf(strides + sl, sizeof strides - sl, "%s%lld", j ? ", " : "", (long long)p->stride_bytes[j]);
    }
    cg_open(cg, "static const rt_gather_nd_params p = {");
    cg_line(cg, ".slices = %lld, .depth = %d, .dims = {%s},", (long long)p->slices, p->depth, dims);
    cg_line(cg, ".stride_bytes = {%s}, .slice_bytes = %lld", strides, (long long)p->slice_bytes);
    cg_close(cg, "};");
    cg_line(cg, "%s(&p, %s, %s, %s);", g->tensors[op->in[1]].dtype == IR_I64 ? "rt_gather_nd_i64" : "rt_gather_nd_i32",
            cg_in(cg, op, 0), cg_in(cg, op, 1), cg_out(cg, op, 0));
    return 0;
}

const OpDef op_def_gather_nd = {"GATHER_ND", op_parse_none, check, prepare, eval, emit_c, op_no_macs, 0};
