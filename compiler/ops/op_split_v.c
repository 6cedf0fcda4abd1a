/* op_split_v.c - SPLIT_V: input 0 split along the constant axis (input 2)
 * into parts of the constant sizes (input 1; one may be -1). Any dtype. */
#include "shape_common.h"

typedef struct SplitVOptions {
    int num_splits;
} SplitVOptions;

static int parse(Graph *g, IrOp *op, const FbTable *opts, Diag *d) {
    SplitVOptions *o = ir_alloc(g, sizeof *o);
    int32_t n = 0;
    if (!o) return diag_internal(d, "out of memory");
    op->options = o;
    if (opts && fb_i32(opts, TFL_SPLIT_V_OPTIONS_NUM_SPLITS, 0, &n, d)) return DIAG_USER;
    o->num_splits = n;
    return 0;
}

/* Axis and resolved sizes (sizes has room for op->n_out entries). */
static int get_split(Graph *g, const IrOp *op, int *axis, int64_t *sizes, Diag *d) {
    const IrTensor *in = op_cin(g, op, 0);
    int n = 0;
    if (shape_const_axis(g, op, 2, 0, axis, d)) return DIAG_USER;
    if (op_const_ints(g, op, 1, sizes, op->n_out, &n, d)) return DIAG_USER;
    if (n != op->n_out) return op_error(d, op, "size_splits has %d entries for %d outputs", n, op->n_out);
    int unknown = -1;
    int64_t sum = 0;
    for (int k = 0; k < n; k++) {
        if (sizes[k] == -1 && unknown < 0) unknown = k;
        else if (sizes[k] < 0) return op_error(d, op, "size_splits[%d] = %lld is invalid", k, (long long)sizes[k]);
        else sum += sizes[k];
    }
    if (unknown >= 0) {
        if (sum > in->dims[*axis]) return op_error(d, op, "size_splits exceed dimension %d", *axis);
        sizes[unknown] = in->dims[*axis] - sum;
    } else if (sum != in->dims[*axis]) {
        return op_error(d, op, "size_splits sum to %lld but dimension %d has size %lld", (long long)sum, *axis,
                        (long long)in->dims[*axis]);
    }
    return 0;
}

static int check(Graph *g, IrOp *op, Diag *d) {
    const SplitVOptions *o = op->options;
    if (op_expect_io(op, 3, 3, -1, d) || op_expect_dtype(g, op, 0, 0, SHAPE_ANY_DTYPE, d)) return DIAG_USER;
    if (o->num_splits != op->n_out)
        return op_error(d, op, "num_splits %d does not match the %d outputs", o->num_splits, op->n_out);
    const IrTensor *in = op_cin(g, op, 0);
    int axis;
    int64_t *sizes = ir_alloc(g, sizeof(int64_t) * (size_t)(op->n_out + 1));
    if (!sizes) return diag_internal(d, "out of memory");
    if (get_split(g, op, &axis, sizes, d)) return DIAG_USER;
    for (int k = 0; k < op->n_out; k++) {
        int64_t dims[IR_MAX_RANK];
        for (int i = 0; i < in->rank; i++) dims[i] = in->dims[i];
        dims[axis] = sizes[k];
        if (shape_expect_same_quant(g, op, 0, k, d) || op_set_out_shape(g, op, k, in->rank, dims, d))
            return DIAG_USER;
    }
    return 0;
}

static int prepare(Graph *g, IrOp *op, Diag *d) {
    int axis;
    if (shape_const_axis(g, op, 2, 0, &axis, d)) return DIAG_USER;
    return shape_split_prepare(g, op, 0, axis, d);
}

static void eval(const Graph *g, const IrOp *op, const void *const *in, void *const *out, void *scratch) {
    (void)g, (void)scratch;
    shape_parts_eval(op, rt_split_v, 1, 0, in, out);
}

static int emit_c(CgCtx *cg, const Graph *g, const IrOp *op, Diag *d) {
    (void)g, (void)d;
    shape_parts_emit(cg, op, "rt_split_v", 1, 0);
    return 0;
}

const OpDef op_def_split_v = {"SPLIT_V", parse, check, prepare, eval, emit_c, op_no_macs, 0};
