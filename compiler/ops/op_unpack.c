/* op_unpack.c - UNPACK: the input split into `num` outputs along `axis`,
 * which is removed. Any dtype; quantization kept. */
#include "shape_common.h"

typedef struct UnpackOptions {
    int num, axis;
} UnpackOptions;

static int parse(Graph *g, IrOp *op, const FbTable *opts, Diag *d) {
    UnpackOptions *o = ir_alloc(g, sizeof *o);
    int32_t n = 0, axis = 0;
    if (!o) return diag_internal(d, "out of memory");
    op->options = o;
    if (opts && (fb_i32(opts, TFL_UNPACK_OPTIONS_NUM, 0, &n, d) || fb_i32(opts, TFL_UNPACK_OPTIONS_AXIS, 0, &axis, d)))
        return DIAG_USER;
    o->num = n;
    o->axis = axis;
    return 0;
}

static int check(Graph *g, IrOp *op, Diag *d) {
    const UnpackOptions *o = op->options;
    if (op_expect_io(op, 1, 1, -1, d) || op_expect_dtype(g, op, 0, 0, SHAPE_ANY_DTYPE, d)) return DIAG_USER;
    const IrTensor *in = op_cin(g, op, 0);
    int axis = shape_axis(o->axis, in->rank);
    if (axis < 0) return op_error(d, op, "axis %d is out of range for rank %d", o->axis, in->rank);
    if (o->num != op->n_out || in->dims[axis] != o->num)
        return op_error(d, op, "num %d must equal the %d outputs and dimension %d (size %lld)", o->num, op->n_out,
                        axis, (long long)in->dims[axis]);
    int64_t dims[IR_MAX_RANK];
    for (int i = 0, j = 0; i < in->rank; i++)
        if (i != axis) dims[j++] = in->dims[i];
    for (int k = 0; k < op->n_out; k++)
        if (shape_expect_same_quant(g, op, 0, k, d) || op_set_out_shape(g, op, k, in->rank - 1, dims, d))
            return DIAG_USER;
    return 0;
}

static int prepare(Graph *g, IrOp *op, Diag *d) {
    const UnpackOptions *o = op->options;
    const IrTensor *in = op_cin(g, op, 0);
    int axis = shape_axis(o->axis, in->rank);
    rt_copy_params *parts;
    rt_parts_params *p = shape_new_parts(g, op->n_out, &parts);
    if (!p) return diag_internal(d, "out of memory");
    int64_t box[IR_MAX_RANK], is[IR_MAX_RANK], os[IR_MAX_RANK];
    for (int i = 0; i < in->rank; i++) box[i] = i == axis ? 1 : in->dims[i];
    shape_contig_strides(in->rank, in->dims, is);
    shape_contig_strides(in->rank, box, os);
    for (int k = 0; k < op->n_out; k++)
        if (shape_copy_init(&parts[k], in->rank, box, is, k * is[axis], os, 0, (int64_t)ir_dtype_size(in->dtype)))
            return op_error(d, op, "tensor too large");
    op->params = p;
    return 0;
}

static void eval(const Graph *g, const IrOp *op, const void *const *in, void *const *out, void *scratch) {
    (void)g, (void)scratch;
    shape_parts_eval(op, rt_unpack, 1, 0, in, out);
}

static int emit_c(CgCtx *cg, const Graph *g, const IrOp *op, Diag *d) {
    (void)g, (void)d;
    shape_parts_emit(cg, op, "rt_unpack", 1, 0);
    return 0;
}

const OpDef op_def_unpack = {"UNPACK", parse, check, prepare, eval, emit_c, op_no_macs, 0};
