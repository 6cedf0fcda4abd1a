/* op_slice.c - SLICE with constant begin and size (input 1, 2; int32 or
 * int64); size -1 means "to the end". A strided copy of the box. */
#include "shape_common.h"

static int get_box(const Graph *g, const IrOp *op, int64_t *begin, int64_t *size, Diag *d) {
    const IrTensor *in = op_cin(g, op, 0);
    int nb = 0, ns = 0;
    if (op_const_ints(g, op, 1, begin, IR_MAX_RANK, &nb, d) || op_const_ints(g, op, 2, size, IR_MAX_RANK, &ns, d))
        return DIAG_USER;
    if (nb != in->rank || ns != in->rank)
        return op_error(d, op, "begin and size must have %d entries (the input rank), got %d and %d", in->rank, nb,
                        ns);
    for (int k = 0; k < in->rank; k++) {
        if (size[k] == -1) size[k] = in->dims[k] - begin[k];
        if (begin[k] < 0 || size[k] < 0 || begin[k] + size[k] > in->dims[k])
            return op_error(d, op, "slice [%lld, +%lld) is out of range for dimension %d of size %lld",
                            (long long)begin[k], (long long)size[k], k, (long long)in->dims[k]);
    }
    return 0;
}

static int check(Graph *g, IrOp *op, Diag *d) {
    if (op_expect_io(op, 3, 3, 1, d) || op_expect_dtype(g, op, 0, 0, SHAPE_ANY_DTYPE, d) ||
        shape_expect_same_quant(g, op, 0, 0, d))
        return DIAG_USER;
    int64_t begin[IR_MAX_RANK], size[IR_MAX_RANK];
    if (get_box(g, op, begin, size, d)) return DIAG_USER;
    return op_set_out_shape(g, op, 0, op_cin(g, op, 0)->rank, size, d);
}

static int prepare(Graph *g, IrOp *op, Diag *d) {
    const IrTensor *in = op_cin(g, op, 0);
    int64_t begin[IR_MAX_RANK], size[IR_MAX_RANK], is[IR_MAX_RANK], off = 0;
    if (get_box(g, op, begin, size, d)) return DIAG_USER;
    shape_contig_strides(in->rank, in->dims, is);
    for (int k = 0; k < in->rank; k++) off += begin[k] * is[k];
    return shape_box_prepare(g, op, in->rank, size, is, off, d);
}

static void eval(const Graph *g, const IrOp *op, const void *const *in, void *const *out, void *scratch) {
    (void)g, (void)scratch;
    rt_slice(op->params, in[0], out[0]);
}

static int emit_c(CgCtx *cg, const Graph *g, const IrOp *op, Diag *d) {
    (void)g, (void)d;
    shape_emit_copy_kernel(cg, op, "rt_slice");
    return 0;
}

const OpDef op_def_slice = {"SLICE", op_parse_none, check, prepare, eval, emit_c, op_no_macs, 0};
