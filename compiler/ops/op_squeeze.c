/* op_squeeze.c - SQUEEZE: drops size-1 dimensions (the listed squeeze_dims,
 * or all of them when the list is empty). A flat copy. */
#include "shape_common.h"

typedef struct SqueezeOptions {
    int n;
    int32_t dims[IR_MAX_RANK];
} SqueezeOptions;

static int parse(Graph *g, IrOp *op, const FbTable *opts, Diag *d) {
    SqueezeOptions *o = ir_alloc(g, sizeof *o);
    if (!o) return diag_internal(d, "out of memory");
    op->options = o;
    if (!opts) return 0;
    FbVec v;
    int present = 0;
    if (fb_vector(opts, TFL_SQUEEZE_OPTIONS_SQUEEZE_DIMS, 4, &v, &present, d)) return DIAG_USER;
    if (!present) return 0;
    if (v.len > IR_MAX_RANK) return op_error(d, op, "squeeze_dims has %u entries, at most %d", v.len, IR_MAX_RANK);
    for (uint32_t i = 0; i < v.len; i++)
        if (fb_vec_i32(&v, i, &o->dims[i], d)) return DIAG_USER;
    o->n = (int)v.len;
    return 0;
}

static int check(Graph *g, IrOp *op, Diag *d) {
    const SqueezeOptions *o = op->options;
    if (op_expect_io(op, 1, 1, 1, d) || op_expect_dtype(g, op, 0, 0, SHAPE_FLAT_DTYPE, d) ||
        shape_expect_same_quant(g, op, 0, 0, d))
        return DIAG_USER;
    const IrTensor *in = op_cin(g, op, 0);
    int drop[IR_MAX_RANK] = {0};
    for (int i = 0; i < o->n; i++) {
        int a = shape_axis(o->dims[i], in->rank);
        if (a < 0) return op_error(d, op, "squeeze_dims[%d] = %d is out of range for rank %d", i, o->dims[i], in->rank);
        if (in->dims[a] != 1)
            return op_error(d, op, "cannot squeeze dimension %d of '%s': its size is %lld, not 1", a, in->name,
                            (long long)in->dims[a]);
        drop[a] = 1;
    }
    if (o->n == 0)
        for (int a = 0; a < in->rank; a++) drop[a] = in->dims[a] == 1;
    int64_t dims[IR_MAX_RANK];
    int n = 0;
    for (int a = 0; a < in->rank; a++)
        if (!drop[a]) dims[n++] = in->dims[a];
    return op_set_out_shape(g, op, 0, n, dims, d);
}

static void eval(const Graph *g, const IrOp *op, const void *const *in, void *const *out, void *scratch) {
    (void)g, (void)scratch;
    rt_squeeze(op->params, in[0], out[0]);
}

static int emit_c(CgCtx *cg, const Graph *g, const IrOp *op, Diag *d) {
    (void)g, (void)d;
    shape_emit_copy_kernel(cg, op, "rt_squeeze");
    return 0;
}

const OpDef op_def_squeeze = {"SQUEEZE", parse, check, shape_flat_prepare, eval, emit_c, op_no_macs, 0};
