/* op_tile.c - TILE: the input repeated multiples[k] times along each
 * dimension k (multiples: input 1, a constant int32/int64 vector, or folded
 * shape arithmetic). Any dtype (a byte copy; quantized tensors keep their
 * parameters). Each tiled dimension becomes two loops of a strided copy: the
 * copy (input stride 0) and the element. */
#include "shape_common.h"

static int get_multiples(const Graph *g, const IrOp *op, int64_t *m, Diag *d) {
    const IrTensor *in = op_cin(g, op, 0);
    int n = 0;
    if (op_const_ints(g, op, 1, m, IR_MAX_RANK, &n, d)) return DIAG_USER;
    if (n != in->rank) return op_error(d, op, "multiples has %d entries but the input has rank %d", n, in->rank);
    for (int k = 0; k < n; k++)
        if (m[k] < 0) return op_error(d, op, "multiples[%d] = %lld is negative", k, (long long)m[k]);
    return 0;
}

static int check(Graph *g, IrOp *op, Diag *d) {
    if (shape_expect_copy(g, op, 2, d)) return DIAG_USER;
    const IrTensor *in = op_cin(g, op, 0);
    int64_t m[IR_MAX_RANK], dims[IR_MAX_RANK];
    if (get_multiples(g, op, m, d)) return DIAG_USER;
    for (int k = 0; k < in->rank; k++) {
        if (m[k] && in->dims[k] > INT64_MAX / m[k]) return op_error(d, op, "dimension %d overflows", k);
        dims[k] = in->dims[k] * m[k];
    }
    return op_set_out_shape(g, op, 0, in->rank, dims, d);
}

static int prepare(Graph *g, IrOp *op, Diag *d) {
    const IrTensor *in = op_cin(g, op, 0), *out = op_out(g, op, 0);
    int64_t m[IR_MAX_RANK], in_str[IR_MAX_RANK], out_str[IR_MAX_RANK];
    int64_t box[IR_MAX_RANK], is[IR_MAX_RANK], os[IR_MAX_RANK];
    int r = 0;
    if (get_multiples(g, op, m, d)) return DIAG_USER;
    shape_contig_strides(in->rank, in->dims, in_str);
    shape_contig_strides(out->rank, out->dims, out_str);
    for (int k = 0; k < in->rank; k++) {
        /* (copy, element) loops; extent-1 ones are left out, the rest must fit the box */
        const int64_t ext[2] = {m[k], in->dims[k]}, istr[2] = {0, in_str[k]};
        const int64_t ostr[2] = {in->dims[k] * out_str[k], out_str[k]};
        for (int j = 0; j < 2; j++) {
            if (ext[j] == 1) continue;
            if (r == IR_MAX_RANK)
                return op_error(d, op, "tiling %d dimensions of rank %d needs more than %d copy loops", in->rank,
                                in->rank, IR_MAX_RANK);
            box[r] = ext[j], is[r] = istr[j], os[r] = ostr[j];
            r++;
        }
    }
    return shape_copy_prepare(g, op, r, box, is, 0, os, (int64_t)ir_dtype_size(in->dtype), d);
}

static void eval(const Graph *g, const IrOp *op, const void *const *in, void *const *out, void *scratch) {
    (void)g, (void)scratch;
    rt_tile(op->params, in[0], out[0]);
}

static int emit_c(CgCtx *cg, const Graph *g, const IrOp *op, Diag *d) {
    (void)g, (void)d;
    shape_emit_copy_kernel(cg, op, "rt_tile");
    return 0;
}

const OpDef op_def_tile = {"TILE", op_parse_none, check, prepare, eval, emit_c, op_no_macs, 0};
