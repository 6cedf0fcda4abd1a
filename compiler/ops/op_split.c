/* op_split.c - SPLIT: input 1 split into num_splits equal parts along the
 * constant axis (input 0, a scalar). Any dtype. */
#include "shape_common.h"

typedef struct SplitOptions {
    int num_splits;
} SplitOptions;

static int parse(Graph *g, IrOp *op, const FbTable *opts, Diag *d) {
    SplitOptions *o = ir_alloc(g, sizeof *o);
    int32_t n = 0;
    if (!o) return diag_internal(d, "out of memory");
    op->options = o;
    if (opts && fb_i32(opts, TFL_SPLIT_OPTIONS_NUM_SPLITS, 0, &n, d)) return DIAG_USER;
    o->num_splits = n;
    return 0;
}

static int check(Graph *g, IrOp *op, Diag *d) {
    const SplitOptions *o = op->options;
    if (op_expect_io(op, 2, 2, -1, d) || op_expect_dtype(g, op, 0, 1, SHAPE_ANY_DTYPE, d)) return DIAG_USER;
    const IrTensor *in = op_cin(g, op, 1);
    int axis;
    if (shape_const_axis(g, op, 0, 1, &axis, d)) return DIAG_USER;
    if (o->num_splits <= 0 || o->num_splits != op->n_out)
        return op_error(d, op, "num_splits %d does not match the %d outputs", o->num_splits, op->n_out);
    if (in->dims[axis] % o->num_splits != 0)
        return op_error(d, op, "dimension %d (size %lld) is not divisible by num_splits %d", axis,
                        (long long)in->dims[axis], o->num_splits);
    int64_t dims[IR_MAX_RANK];
    for (int i = 0; i < in->rank; i++) dims[i] = in->dims[i];
    dims[axis] /= o->num_splits;
    for (int k = 0; k < op->n_out; k++)
        if (shape_expect_same_quant(g, op, 1, k, d) || op_set_out_shape(g, op, k, in->rank, dims, d))
            return DIAG_USER;
    return 0;
}

static int prepare(Graph *g, IrOp *op, Diag *d) {
    int axis;
    if (shape_const_axis(g, op, 0, 1, &axis, d)) return DIAG_USER;
    return shape_split_prepare(g, op, 1, axis, d);
}

static void eval(const Graph *g, const IrOp *op, const void *const *in, void *const *out, void *scratch) {
    (void)g, (void)scratch;
    shape_parts_eval(op, rt_split, 1, 1, in, out);
}

static int emit_c(CgCtx *cg, const Graph *g, const IrOp *op, Diag *d) {
    (void)g, (void)d;
    shape_parts_emit(cg, op, "rt_split", 1, 1);
    return 0;
}

const OpDef op_def_split = {"SPLIT", parse, check, prepare, eval, emit_c, op_no_macs, 0};
