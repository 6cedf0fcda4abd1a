/* op_cast.c - CAST between f32 (and f16 or complex64 input), i8, u8, i16,
 * i32, i64 and bool, elementwise with TFLite's conversion rules (see
 * rt_cast.h; complex64 gives its real part, as TFLite's cast.cc). */
#include "elementwise_common.h"

#define CAST_TYPES (DT(F32) | DT(I8) | DT(U8) | DT(I16) | DT(I32) | DT(I64) | DT(BOOL))

typedef struct CastOptions {
    int has_in, has_out;  /* options present */
    int8_t in_type, out_type; /* TFLite TensorType codes */
} CastOptions;

static int parse(Graph *g, IrOp *op, const FbTable *opts, Diag *d) {
    CastOptions *o = ir_alloc(g, sizeof *o);
    if (!o) return diag_internal(d, "out of memory");
    op->options = o;
    if (!opts) return 0;
    o->has_in = fb_has(opts, TFL_CAST_OPTIONS_IN_DATA_TYPE);
    o->has_out = fb_has(opts, TFL_CAST_OPTIONS_OUT_DATA_TYPE);
    if (fb_i8(opts, TFL_CAST_OPTIONS_IN_DATA_TYPE, 0, &o->in_type, d) ||
        fb_i8(opts, TFL_CAST_OPTIONS_OUT_DATA_TYPE, 0, &o->out_type, d))
        return DIAG_USER;
    return 0;
}

/* TFLite TensorType code of an IR dtype. */
static int tfl_type(IrDType t) {
    switch (t) {
    case IR_F32: return TFL_TYPE_FLOAT32;
    case IR_F16: return TFL_TYPE_FLOAT16;
    case IR_BF16: return TFL_TYPE_BFLOAT16;
    case IR_I8: return TFL_TYPE_INT8;
    case IR_U8: return TFL_TYPE_UINT8;
    case IR_I16: return TFL_TYPE_INT16;
    case IR_I32: return TFL_TYPE_INT32;
    case IR_I64: return TFL_TYPE_INT64;
    case IR_C64: return TFL_TYPE_COMPLEX64;
    default: return TFL_TYPE_BOOL;
    }
}

static int check(Graph *g, IrOp *op, Diag *d) {
    if (op_expect_io(op, 1, 1, 1, d) || op_expect_dtype(g, op, 0, 0, CAST_TYPES | DT(F16) | DT(C64), d) ||
        op_expect_dtype(g, op, 1, 0, CAST_TYPES, d))
        return DIAG_USER;
    const IrTensor *in = op_cin(g, op, 0), *out = &g->tensors[op->out[0]];
    const CastOptions *o = op->options;
    /* CastOptions restate the tensors' types; they must agree. */
    if (o && o->has_in && o->in_type != tfl_type(in->dtype))
        return op_error(d, op, "in_data_type %d does not match input '%s' (%s)", o->in_type, in->name,
                        ir_dtype_name(in->dtype));
    if (o && o->has_out && o->out_type != tfl_type(out->dtype))
        return op_error(d, op, "out_data_type %d does not match output '%s' (%s)", o->out_type, out->name,
                        ir_dtype_name(out->dtype));
    return op_set_out_shape(g, op, 0, in->rank, in->dims, d);
}

static int prepare(Graph *g, IrOp *op, Diag *d) {
    rt_quant_params *p = ew_quant_params(g, op, NULL, d);
    if (!p) return DIAG_INTERNAL;
    op->params = p;
    return 0;
}

static void eval(const Graph *g, const IrOp *op, const void *const *in, void *const *out, void *scratch) {
    (void)g, (void)scratch;
    rt_cast(op->params, in[0], out[0]);
}

static int emit_c(CgCtx *cg, const Graph *g, const IrOp *op, Diag *d) {
    (void)g, (void)d;
    return ew_emit_quant(cg, op, op->params, "rt_cast");
}

const OpDef op_def_cast = {"CAST", parse, check, prepare, eval, emit_c, op_no_macs, 0};
