/* op_arg_max.c - ARG_MAX: index of the maximum along a constant axis (the
 * axis dimension is removed). Input f32/int8/uint8/int16/int32/int64
 * (quantized inputs compare their raw values: scales are positive); output
 * int32 or int64 (ArgMaxOptions.output_type). */
#include "op_util.h"

typedef struct ArgMaxOptions {
    int out_is_64;
} ArgMaxOptions;

static int parse(Graph *g, IrOp *op, const FbTable *opts, Diag *d) {
    ArgMaxOptions *o = ir_alloc(g, sizeof *o);
    int8_t type = TFL_TYPE_INT64;
    if (!o) return diag_internal(d, "out of memory");
    op->options = o;
    if (opts && fb_i8(opts, TFL_ARG_MAX_OPTIONS_OUTPUT_TYPE, TFL_TYPE_INT64, &type, d)) return DIAG_USER;
    if (type != TFL_TYPE_INT32 && type != TFL_TYPE_INT64)
        return op_error(d, op, "unsupported output_type %d (only int32 and int64)", type);
    o->out_is_64 = type == TFL_TYPE_INT64;
    return 0;
}

static int axis_of(const Graph *g, const IrOp *op, int *axis, Diag *d) {
    int64_t v[1];
    int n = 0;
    const IrTensor *in = op_cin(g, op, 0);
    if (op_const_ints(g, op, 1, v, 1, &n, d)) return DIAG_USER;
    if (n != 1) return op_error(d, op, "axis must hold exactly one value");
    int64_t a = v[0] < 0 ? v[0] + in->rank : v[0];
    if (a < 0 || a >= in->rank)
        return op_error(d, op, "axis %lld is out of range for input '%s' of rank %d", (long long)v[0], in->name,
                        in->rank);
    *axis = (int)a;
    return 0;
}

static int check(Graph *g, IrOp *op, Diag *d) {
    const ArgMaxOptions *o = op->options;
    int axis;
    if (op_expect_io(op, 2, 2, 1, d) ||
        op_expect_dtype(g, op, 0, 0, DT(F32) | DT(I8) | DT(U8) | DT(I16) | DT(I32) | DT(I64), d) ||
        op_expect_dtype(g, op, 1, 0, o->out_is_64 ? DT(I64) : DT(I32), d) || axis_of(g, op, &axis, d))
        return DIAG_USER;
    const IrTensor *in = op_cin(g, op, 0);
    if (in->dims[axis] <= 0) return op_error(d, op, "the reduced axis of '%s' is empty", in->name);
    int64_t dims[IR_MAX_RANK];
    int r = 0;
    for (int i = 0; i < in->rank; i++)
        if (i != axis) dims[r++] = in->dims[i];
    return op_set_out_shape(g, op, 0, r, dims, d);
}

static int prepare(Graph *g, IrOp *op, Diag *d) {
    const ArgMaxOptions *o = op->options;
    const IrTensor *in = op_cin(g, op, 0);
    int axis;
    if (axis_of(g, op, &axis, d)) return DIAG_USER;
    rt_arg_max_params *p = op_new_params(g, rt_arg_max_params);
    if (!p) return diag_internal(d, "out of memory");
    int64_t outer = 1, inner = 1;
    for (int i = 0; i < axis; i++) outer *= in->dims[i];
    for (int i = axis + 1; i < in->rank; i++) inner *= in->dims[i];
    p->outer = (int32_t)outer;
    p->axis = (int32_t)in->dims[axis];
    p->inner = (int32_t)inner;
    p->out_is_64 = o->out_is_64;
    op->params = p;
    return 0;
}

static void eval(const Graph *g, const IrOp *op, const void *const *in, void *const *out, void *scratch) {
    (void)scratch;
    const rt_arg_max_params *p = op->params;
    switch (g->tensors[op->in[0]].dtype) {
    case IR_I8: rt_arg_max_i8(p, in[0], out[0]); break;
    case IR_U8: rt_arg_max_u8(p, in[0], out[0]); break;
    case IR_I16: rt_arg_max_i16(p, in[0], out[0]); break;
    case IR_I32: rt_arg_max_i32(p, in[0], out[0]); break;
    case IR_I64: rt_arg_max_i64(p, in[0], out[0]); break;
    default: rt_arg_max_f32(p, in[0], out[0]); break;
    }
}

static int emit_c(CgCtx *cg, const Graph *g, const IrOp *op, Diag *d) {
    (void)d;
    const rt_arg_max_params *p = op->params;
    cg_line(cg, "static const rt_arg_max_params p = {.outer = %d, .axis = %d, .inner = %d, .out_is_64 = %d};",
            p->outer, p->axis, p->inner, p->out_is_64);
    cg_line(cg, "rt_arg_max_%s(&p, %s, %s);", ir_dtype_name(g->tensors[op->in[0]].dtype), cg_in(cg, op, 0),
            cg_out(cg, op, 0));
    return 0;
}

static int64_t macs(const Graph *g, const IrOp *op) { return ir_tensor_numel(&g->tensors[op->in[0]]); }

const OpDef op_def_arg_max = {"ARG_MAX", parse, check, prepare, eval, emit_c, macs, 0};
