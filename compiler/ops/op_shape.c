/* op_shape.c - SHAPE: the input's dimensions as an int32 or int64 vector
 * (out_type). Shapes are static here, so the values are the compiled
 * dimensions (a dynamic batch of the original model is compiled as its
 * declared size). */
#include "shape_common.h"

#include <stdio.h>

typedef struct ShapeOptions {
    int out_type; /* TFLite TensorType */
} ShapeOptions;

static int parse(Graph *g, IrOp *op, const FbTable *opts, Diag *d) {
    ShapeOptions *o = ir_alloc(g, sizeof *o);
    int8_t t = TFL_TYPE_INT32;
    if (!o) return diag_internal(d, "out of memory");
    op->options = o;
    if (opts && fb_i8(opts, TFL_SHAPE_OPTIONS_OUT_TYPE, TFL_TYPE_INT32, &t, d)) return DIAG_USER;
    if (t != TFL_TYPE_INT32 && t != TFL_TYPE_INT64)
        return op_error(d, op, "unsupported out_type %d (only int32 and int64)", t);
    o->out_type = t;
    return 0;
}

static int check(Graph *g, IrOp *op, Diag *d) {
    const ShapeOptions *o = op->options;
    if (op_expect_io(op, 1, 1, 1, d) || op_expect_dtype(g, op, 1, 0, DT(I32) | DT(I64), d)) return DIAG_USER;
    const IrTensor *in = op_cin(g, op, 0), *out = op_out(g, op, 0);
    if ((o->out_type == TFL_TYPE_INT64) != (out->dtype == IR_I64))
        return op_error(d, op, "out_type does not match output '%s' dtype %s", out->name, ir_dtype_name(out->dtype));
    for (int i = 0; i < in->rank; i++)
        if (in->dims[i] > INT32_MAX && out->dtype == IR_I32)
            return op_error(d, op, "dimension %d does not fit in int32", i);
    int64_t dims[1] = {in->rank};
    return op_set_out_shape(g, op, 0, 1, dims, d);
}

static int prepare(Graph *g, IrOp *op, Diag *d) {
    const IrTensor *in = op_cin(g, op, 0);
    rt_shape_params *p = op_new_params(g, rt_shape_params);
    if (!p) return diag_internal(d, "out of memory");
    p->rank = in->rank;
    for (int i = 0; i < in->rank; i++) p->dims[i] = (int32_t)in->dims[i];
    op->params = p;
    return 0;
}

static void eval(const Graph *g, const IrOp *op, const void *const *in, void *const *out, void *scratch) {
    (void)in, (void)scratch;
    if (g->tensors[op->out[0]].dtype == IR_I64) rt_shape_i64(op->params, out[0]);
    else rt_shape_i32(op->params, out[0]);
}

static int emit_c(CgCtx *cg, const Graph *g, const IrOp *op, Diag *d) {
    (void)d;
    const rt_shape_params *p = op->params;
    char buf[256] = "0";
    size_t len = 0;
    for (int i = 0; i < p->rank && len < sizeof buf; i++) {
        int w = snprintf(buf + len, sizeof buf - len, "%s%d", i ? ", " : "", p->dims[i]);
        if (w > 0) len += (size_t)w;
    }
    cg_line(cg, "static const rt_shape_params p = {.rank = %d, .dims = {%s}};", p->rank, buf);
    cg_line(cg, "%s(&p, %s);", g->tensors[op->out[0]].dtype == IR_I64 ? "rt_shape_i64" : "rt_shape_i32",
            cg_out(cg, op, 0));
    return 0;
}

const OpDef op_def_shape = {"SHAPE", parse, check, prepare, eval, emit_c, op_no_macs, 0};
