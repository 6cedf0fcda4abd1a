/* op_reshape.c - RESHAPE: same bytes, new shape. The shape comes from the
 * constant second input when it is a 1-D int32/int64 tensor, else from the
 * new_shape option (TFLite's rule); one dimension may be -1. A non-constant
 * shape input is accepted only when the model declares a static output
 * shape with the input's element count; it is then checked at run time
 * (op->guard: each value equals that shape's, or is -1). The kernel is a flat copy; the
 * memory planner may alias input and output. */
#include "shape_common.h"

typedef struct ReshapeOptions {
    int has_new_shape;
    int n;
    int64_t new_shape[IR_MAX_RANK];
} ReshapeOptions;

static int parse(Graph *g, IrOp *op, const FbTable *opts, Diag *d) {
    ReshapeOptions *o = ir_alloc(g, sizeof *o);
    if (!o) return diag_internal(d, "out of memory");
    op->options = o;
    if (!opts) return 0;
    FbVec v;
    int present = 0;
    if (fb_vector(opts, TFL_RESHAPE_OPTIONS_NEW_SHAPE, 4, &v, &present, d)) return DIAG_USER;
    if (!present) return 0;
    if (v.len > IR_MAX_RANK) return op_error(d, op, "new_shape has %u dimensions, at most %d supported", v.len, IR_MAX_RANK);
    for (uint32_t i = 0; i < v.len; i++) {
        int32_t x;
        if (fb_vec_i32(&v, i, &x, d)) return DIAG_USER;
        o->new_shape[i] = x;
    }
    o->n = (int)v.len;
    o->has_new_shape = 1;
    return 0;
}

/* Resolves one -1 against the element count. */
static int resolve(const IrOp *op, int n, int64_t *dims, int64_t numel, const char *what, Diag *d) {
    int unknown = -1;
    int64_t known = 1;
    for (int i = 0; i < n; i++) {
        if (dims[i] == -1) {
            if (unknown >= 0) return op_error(d, op, "%s has more than one -1 dimension", what);
            unknown = i;
        } else if (dims[i] < 0) {
            return op_error(d, op, "%s has negative dimension %lld", what, (long long)dims[i]);
        } else if (dims[i] != 0 && known > INT64_MAX / dims[i]) {
            return op_error(d, op, "%s: the product of its dimensions overflows", what);
        } else {
            known *= dims[i];
        }
    }
    if (unknown >= 0) {
        if (known == 0 || numel % known != 0)
            return op_error(d, op, "%s: cannot infer the -1 dimension for %lld elements", what, (long long)numel);
        dims[unknown] = numel / known;
    } else if (known != numel) {
        return op_error(d, op, "%s has %lld elements but the input has %lld", what, (long long)known,
                        (long long)numel);
    }
    return 0;
}

static int check(Graph *g, IrOp *op, Diag *d) {
    const ReshapeOptions *o = op->options;
    if (op_expect_io(op, 1, 2, 1, d) || op_expect_dtype(g, op, 0, 0, SHAPE_FLAT_DTYPE, d) ||
        shape_expect_same_quant(g, op, 0, 0, d))
        return DIAG_USER;
    const IrTensor *in = op_cin(g, op, 0), *shp = op_cin(g, op, 1), *out = op_out(g, op, 0);
    int64_t numel = ir_tensor_numel(in), dims[IR_MAX_RANK];
    int n = 0;
    if (shp && shp->rank == 1 && (shp->dtype == IR_I32 || shp->dtype == IR_I64)) {
        /* A shape computed at run time: the declared static output shape, checked at run time. */
        int static_out = !(out->rank == 0 && shp->dims[0] != 0) && op_static_shape(out);
        if (!shp->data && !static_out)
            return op_error(d, op, "shape input '%s' is not constant and the output '%s' has no static shape",
                            shp->name, out->name);
        if (op_shape_input(g, op, 1, out->dims, out->rank, 1, dims, IR_MAX_RANK, &n, d)) return DIAG_USER;
        if (resolve(op, n, dims, numel, "shape input", d)) return DIAG_USER;
    } else if (o->has_new_shape) {
        n = o->n;
        for (int i = 0; i < n; i++) dims[i] = o->new_shape[i];
        if (resolve(op, n, dims, numel, "new_shape", d)) return DIAG_USER;
    } else if (shp) {
        return op_error(d, op, "shape input '%s' must be a 1-D int32/int64 tensor", shp->name);
    } else {
        return op_error(d, op, "no new_shape option and no shape input");
    }
    return op_set_out_shape(g, op, 0, n, dims, d);
}

const OpDef op_def_reshape = {"RESHAPE", parse, check, shape_flat_prepare, shape_flat_copy_eval, shape_flat_copy_emit,
                               op_no_macs, 0};
