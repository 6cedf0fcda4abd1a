/* op_complex.c - REAL, IMAG and COMPLEX_ABS (three rows of the op table, one
 * file: they differ only in the kernel): complex64 in, float32 out of the
 * same shape, as TFLite (complex_support.cc); complex128 does not exist here. */
#include "elementwise_common.h"

static int check(Graph *g, IrOp *op, Diag *d) {
    if (op_expect_io(op, 1, 1, 1, d) || op_expect_dtype(g, op, 0, 0, DT(C64), d) ||
        op_expect_dtype(g, op, 1, 0, DT(F32), d))
        return DIAG_USER;
    const IrTensor *in = op_cin(g, op, 0);
    return op_set_out_shape(g, op, 0, in->rank, in->dims, d);
}

static int prepare(Graph *g, IrOp *op, Diag *d) {
    op->params = ew_unary_params(g, op, d);
    return op->params ? 0 : DIAG_INTERNAL;
}

static const char *kernel(OpKind k) {
    return k == OP_REAL ? "rt_real_c64" : k == OP_IMAG ? "rt_imag_c64" : "rt_complex_abs_c64";
}

static void eval(const Graph *g, const IrOp *op, const void *const *in, void *const *out, void *scratch) {
    (void)g, (void)scratch;
    switch (op->kind) {
    case OP_REAL: rt_real_c64(op->params, in[0], out[0]); break;
    case OP_IMAG: rt_imag_c64(op->params, in[0], out[0]); break;
    default: rt_complex_abs_c64(op->params, in[0], out[0]); break;
    }
}

static int emit_c(CgCtx *cg, const Graph *g, const IrOp *op, Diag *d) {
    (void)g, (void)d;
    return ew_emit_unary(cg, op, op->params, kernel(op->kind));
}

const OpDef op_def_real = {"REAL", op_parse_none, check, prepare, eval, emit_c, op_no_macs, 0};
const OpDef op_def_imag = {"IMAG", op_parse_none, check, prepare, eval, emit_c, op_no_macs, 0};
const OpDef op_def_complex_abs = {"COMPLEX_ABS", op_parse_none, check, prepare, eval, emit_c, ew_out_numel, 0};
