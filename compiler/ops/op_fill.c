/* op_fill.c - FILL: a tensor of shape `dims` (input 0, int32/int64) with every
 * element the scalar `value` (input 1; its dtype, any). The dims must be known
 * at compile time: constant, folded shape arithmetic, or computed at run time
 * where the output's shape is static (then checked at run time, as RESHAPE's
 * shape input). A strided byte copy of the value with input strides 0. */
#include "shape_common.h"

static int get_dims(Graph *g, IrOp *op, int *rank, int64_t *dims, Diag *d) {
    IrTensor *out = op_out(g, op, 0);
    int declared = out->rank > 0 && op_static_shape(out);
    if (op_shape_input(g, op, 0, declared ? out->dims : NULL, out->rank, 0, dims, IR_MAX_RANK, rank, d))
        return DIAG_USER;
    for (int i = 0; i < *rank; i++)
        if (dims[i] < 0) return op_error(d, op, "dims has negative dimension %lld", (long long)dims[i]);
    return 0;
}

static int check(Graph *g, IrOp *op, Diag *d) {
    if (op_expect_io(op, 2, 2, 1, d) || op_expect_dtype(g, op, 0, 0, DT(I32) | DT(I64), d) ||
        op_expect_dtype(g, op, 0, 1, SHAPE_ANY_DTYPE, d) || shape_expect_same_quant(g, op, 1, 0, d))
        return DIAG_USER;
    const IrTensor *value = op_cin(g, op, 1);
    if (ir_tensor_numel(value) != 1)
        return op_error(d, op, "value tensor '%s' must be a scalar, got %lld elements", value->name,
                        (long long)ir_tensor_numel(value));
    int64_t dims[IR_MAX_RANK];
    int rank;
    if (get_dims(g, op, &rank, dims, d)) return DIAG_USER;
    /* A converter stores a placeholder shape where the signature says -1. */
    IrTensor *out = op_out(g, op, 0);
    if (!op_static_shape(out)) out->infer_shape = 1;
    return op_set_out_shape(g, op, 0, rank, dims, d);
}

static int prepare(Graph *g, IrOp *op, Diag *d) {
    const IrTensor *out = op_out(g, op, 0);
    int64_t zero[IR_MAX_RANK] = {0}, os[IR_MAX_RANK];
    shape_contig_strides(out->rank, out->dims, os);
    return shape_copy_prepare(g, op, out->rank, out->dims, zero, 0, os, (int64_t)ir_dtype_size(out->dtype), d);
}

static void eval(const Graph *g, const IrOp *op, const void *const *in, void *const *out, void *scratch) {
    (void)g, (void)scratch;
    rt_fill(op->params, in[1], out[0]);
}

static int emit_c(CgCtx *cg, const Graph *g, const IrOp *op, Diag *d) {
    (void)g, (void)d;
    shape_emit_copy(cg, op->params, "static const rt_copy_params p = ", ";");
    cg_line(cg, "rt_fill(&p, %s, %s);", cg_in(cg, op, 1), cg_out(cg, op, 0));
    return 0;
}

const OpDef op_def_fill = {"FILL", op_parse_none, check, prepare, eval, emit_c, op_no_macs, 0};
