/* op_broadcast_to.c - BROADCAST_TO the constant shape (input 1): numpy
 * rules, right-aligned; broadcast dimensions read with stride 0. */
#include "shape_common.h"

static int get_shape(Graph *g, IrOp *op, int *rank, int64_t *dims, Diag *d) {
    const IrTensor *in = op_cin(g, op, 0), *out = &g->tensors[op->out[0]];
    /* A shape computed at run time: the static output shape, checked at run time. */
    int declared = out->rank > 0 && op_static_shape(out);
    if (op_shape_input(g, op, 1, declared ? out->dims : NULL, out->rank, 0, dims, IR_MAX_RANK, rank, d))
        return DIAG_USER;
    if (*rank < in->rank)
        return op_error(d, op, "shape has rank %d, lower than the input's %d", *rank, in->rank);
    for (int i = 0; i < in->rank; i++) {
        int64_t di = in->dims[i], dout = dims[*rank - in->rank + i];
        if (di != 1 && di != dout)
            return op_error(d, op, "input dimension %d (size %lld) cannot broadcast to %lld", i, (long long)di,
                            (long long)dout);
    }
    for (int i = 0; i < *rank; i++)
        if (dims[i] < 0) return op_error(d, op, "shape has negative dimension %lld", (long long)dims[i]);
    return 0;
}

static int check(Graph *g, IrOp *op, Diag *d) {
    if (op_expect_io(op, 2, 2, 1, d) || op_expect_dtype(g, op, 0, 0, SHAPE_ANY_DTYPE, d) ||
        shape_expect_same_quant(g, op, 0, 0, d))
        return DIAG_USER;
    int64_t dims[IR_MAX_RANK];
    int rank;
    if (get_shape(g, op, &rank, dims, d)) return DIAG_USER;
    return op_set_out_shape(g, op, 0, rank, dims, d);
}

static int prepare(Graph *g, IrOp *op, Diag *d) {
    const IrTensor *in = op_cin(g, op, 0);
    int64_t dims[IR_MAX_RANK], in_str[IR_MAX_RANK], is[IR_MAX_RANK];
    int rank;
    if (get_shape(g, op, &rank, dims, d)) return DIAG_USER;
    shape_contig_strides(in->rank, in->dims, in_str);
    for (int i = 0; i < rank; i++) {
        int k = i - (rank - in->rank);
        is[i] = k < 0 || in->dims[k] == 1 ? 0 : in_str[k];
    }
    return shape_box_prepare(g, op, rank, dims, is, 0, d);
}

static void eval(const Graph *g, const IrOp *op, const void *const *in, void *const *out, void *scratch) {
    (void)g, (void)scratch;
    rt_broadcast_to(op->params, in[0], out[0]);
}

static int emit_c(CgCtx *cg, const Graph *g, const IrOp *op, Diag *d) {
    (void)g, (void)d;
    shape_emit_copy_kernel(cg, op, "rt_broadcast_to");
    return 0;
}

const OpDef op_def_broadcast_to = {"BROADCAST_TO", op_parse_none, check, prepare, eval, emit_c, op_no_macs, 0};
