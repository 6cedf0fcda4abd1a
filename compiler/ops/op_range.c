/* op_range.c - RANGE: the vector start, start + delta, ... up to (not
 * including) limit, from three scalars of one dtype (f32, i32, i64). The
 * output's length depends on the values, and shapes are static here: start,
 * limit and delta must be constants at compile time (directly, or folded from
 * shape arithmetic: see fold_const.h); an integer range is then folded
 * itself, a float one fills its output at run time. */
#include "op_util.h"

#include <math.h>
#include <string.h>

/* Input k as a double (f32) or int64 (i32, i64); the caller checked it is a constant scalar. */
static double scalar_f(const IrTensor *t) {
    float f;
    memcpy(&f, t->data, 4);
    return f;
}

static int64_t scalar_i(const IrTensor *t) {
    if (t->dtype == IR_I64) {
        int64_t v;
        memcpy(&v, t->data, 8);
        return v;
    }
    int32_t v;
    memcpy(&v, t->data, 4);
    return v;
}

/* The output's length (TFLite's GetSize), or a user error. */
static int range_length(const Graph *g, const IrOp *op, int64_t *len, Diag *d) {
    const IrTensor *s = op_cin(g, op, 0), *l = op_cin(g, op, 1), *dl = op_cin(g, op, 2);
    if (s->dtype == IR_F32) {
        float start = (float)scalar_f(s), limit = (float)scalar_f(l), delta = (float)scalar_f(dl);
        if (!(delta != 0.0f) || !((start > limit && delta < 0.0f) || (start < limit && delta > 0.0f)))
            return op_error(d, op, "start %g, limit %g, delta %g give no elements (TFLite fails)", (double)start,
                            (double)limit, (double)delta);
        float n = ceilf(fabsf((limit - start) / delta));
        if (!(n <= (float)INT32_MAX)) return op_error(d, op, "the range has %g elements, too many", (double)n);
        *len = (int64_t)n;
        return 0;
    }
    int64_t start = scalar_i(s), limit = scalar_i(l), delta = scalar_i(dl);
    if (delta == 0 || !((start > limit && delta < 0) || (start < limit && delta > 0)))
        return op_error(d, op, "start %lld, limit %lld, delta %lld give no elements (TFLite fails)", (long long)start,
                        (long long)limit, (long long)delta);
    /* In unsigned arithmetic: |limit - start| and |delta| may not fit in int64. */
    uint64_t span = start < limit ? (uint64_t)limit - (uint64_t)start : (uint64_t)start - (uint64_t)limit;
    uint64_t step = delta < 0 ? 0 - (uint64_t)delta : (uint64_t)delta;
    uint64_t n = span / step + (span % step != 0);
    if (n > INT32_MAX) return op_error(d, op, "the range has %llu elements, too many", (unsigned long long)n);
    *len = (int64_t)n;
    return 0;
}

static int check(Graph *g, IrOp *op, Diag *d) {
    if (op_expect_io(op, 3, 3, 1, d) || op_expect_dtype(g, op, 0, 0, DT(F32) | DT(I32) | DT(I64), d) ||
        op_expect_same_dtype(g, op, 0, d) || op_expect_same_dtype(g, op, 1, d) || op_expect_same_dtype(g, op, 2, d))
        return DIAG_USER;
    static const char *const what[3] = {"start", "limit", "delta"};
    for (int k = 0; k < 3; k++) {
        const IrTensor *t = op_cin(g, op, k);
        if (ir_tensor_numel(t) != 1)
            return op_error(d, op, "%s tensor '%s' must be a scalar, got %lld elements", what[k], t->name,
                            (long long)ir_tensor_numel(t));
        if (!t->data)
            return op_error(d, op,
                            "%s tensor '%s' is computed at run time: the output's length depends on it, and "
                            "shapes are static here (only constant start, limit and delta are supported)",
                            what[k], t->name);
    }
    int64_t len;
    if (range_length(g, op, &len, d)) return DIAG_USER;
    /* A converter stores a placeholder length (1) where the signature says -1. */
    IrTensor *out = op_out(g, op, 0);
    if (!op_static_shape(out)) out->infer_shape = 1;
    return op_set_out_shape(g, op, 0, 1, &len, d);
}

static int prepare(Graph *g, IrOp *op, Diag *d) {
    rt_range_params *p = op_new_params(g, rt_range_params);
    if (!p) return diag_internal(d, "out of memory");
    p->n = ir_tensor_numel(op_out(g, op, 0));
    op->params = p;
    return 0;
}

static void eval(const Graph *g, const IrOp *op, const void *const *in, void *const *out, void *scratch) {
    (void)scratch;
    switch (g->tensors[op->out[0]].dtype) {
    case IR_I32: rt_range_i32(op->params, in[0], in[2], out[0]); break;
    case IR_I64: rt_range_i64(op->params, in[0], in[2], out[0]); break;
    default: rt_range_f32(op->params, in[0], in[2], out[0]); break;
    }
}

static int emit_c(CgCtx *cg, const Graph *g, const IrOp *op, Diag *d) {
    (void)d;
    const rt_range_params *p = op->params;
    cg_line(cg, "static const rt_range_params p = {%lld};", (long long)p->n);
    cg_line(cg, "rt_range_%s(&p, %s, %s, %s);", ir_dtype_name(g->tensors[op->out[0]].dtype), cg_in(cg, op, 0),
            cg_in(cg, op, 2), cg_out(cg, op, 0));
    return 0;
}

const OpDef op_def_range = {"RANGE", op_parse_none, check, prepare, eval, emit_c, op_no_macs, 0};
