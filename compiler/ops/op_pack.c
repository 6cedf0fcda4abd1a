/* op_pack.c - PACK: values_count inputs of one shape stacked along a new
 * axis (in [-rank-1, rank]). Any dtype; quantized inputs must share the
 * output's quantization. */
#include "shape_common.h"

typedef struct PackOptions {
    int values_count, axis;
} PackOptions;

static int parse(Graph *g, IrOp *op, const FbTable *opts, Diag *d) {
    PackOptions *o = ir_alloc(g, sizeof *o);
    int32_t n = 0, axis = 0;
    if (!o) return diag_internal(d, "out of memory");
    op->options = o;
    if (opts && (fb_i32(opts, TFL_PACK_OPTIONS_VALUES_COUNT, 0, &n, d) || fb_i32(opts, TFL_PACK_OPTIONS_AXIS, 0, &axis, d)))
        return DIAG_USER;
    o->values_count = n;
    o->axis = axis;
    return 0;
}

static int check(Graph *g, IrOp *op, Diag *d) {
    const PackOptions *o = op->options;
    if (op_expect_io(op, 1, 1 << 16, 1, d) || op_expect_dtype(g, op, 0, 0, SHAPE_ANY_DTYPE, d)) return DIAG_USER;
    if (o->values_count != op->n_in)
        return op_error(d, op, "values_count %d does not match the %d inputs", o->values_count, op->n_in);
    const IrTensor *t0 = op_cin(g, op, 0);
    if (t0->rank + 1 > IR_MAX_RANK) return op_error(d, op, "output rank exceeds %d", IR_MAX_RANK);
    int axis = shape_axis(o->axis, t0->rank + 1);
    if (axis < 0) return op_error(d, op, "axis %d is out of range for rank %d", o->axis, t0->rank);
    for (int k = 0; k < op->n_in; k++) {
        const IrTensor *t = op_cin(g, op, k);
        if (!t) return op_error(d, op, "input %d is missing", k);
        int same = t->rank == t0->rank;
        for (int i = 0; same && i < t0->rank; i++) same = t->dims[i] == t0->dims[i];
        if (!same) return op_error(d, op, "input %d tensor '%s' differs in shape from input 0", k, t->name);
        if (shape_expect_same_quant(g, op, k, 0, d)) return DIAG_USER;
    }
    int64_t dims[IR_MAX_RANK];
    for (int i = 0, j = 0; i <= t0->rank; i++) dims[i] = i == axis ? op->n_in : t0->dims[j++];
    return op_set_out_shape(g, op, 0, t0->rank + 1, dims, d);
}

static int prepare(Graph *g, IrOp *op, Diag *d) {
    const PackOptions *o = op->options;
    const IrTensor *out = op_out(g, op, 0);
    int axis = shape_axis(o->axis, out->rank);
    rt_copy_params *parts;
    rt_parts_params *p = shape_new_parts(g, op->n_in, &parts);
    if (!p) return diag_internal(d, "out of memory");
    int64_t box[IR_MAX_RANK], is[IR_MAX_RANK], os[IR_MAX_RANK];
    for (int i = 0; i < out->rank; i++) box[i] = i == axis ? 1 : out->dims[i];
    shape_contig_strides(out->rank, box, is);
    shape_contig_strides(out->rank, out->dims, os);
    for (int k = 0; k < op->n_in; k++)
        if (shape_copy_init(&parts[k], out->rank, box, is, 0, os, k * os[axis], (int64_t)ir_dtype_size(out->dtype)))
            return op_error(d, op, "tensor too large");
    op->params = p;
    return 0;
}

static void eval(const Graph *g, const IrOp *op, const void *const *in, void *const *out, void *scratch) {
    (void)g, (void)scratch;
    shape_parts_eval(op, rt_pack, 0, 0, in, out);
}

static int emit_c(CgCtx *cg, const Graph *g, const IrOp *op, Diag *d) {
    (void)g, (void)d;
    shape_parts_emit(cg, op, "rt_pack", 0, 0);
    return 0;
}

const OpDef op_def_pack = {"PACK", parse, check, prepare, eval, emit_c, op_no_macs, 0};
