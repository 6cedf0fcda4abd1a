/* op_dynamic_update_slice.c - DYNAMIC_UPDATE_SLICE: the operand with `update`
 * written at run-time start indices (clamped so the update fits, as TFLite).
 * Any dtype (operand, update and output alike); start indices int32/int64,
 * one per operand dim. LLM exports write their KV caches with it. */
#include "shape_common.h"

static int check(Graph *g, IrOp *op, Diag *d) {
    if (op_expect_io(op, 3, 3, 1, d) || op_expect_dtype(g, op, 0, 0, SHAPE_ANY_DTYPE, d) ||
        op_expect_dtype(g, op, 0, 2, DT(I32) | DT(I64), d) || op_expect_same_dtype(g, op, 0, d) ||
        shape_expect_same_quant(g, op, 0, 0, d))
        return DIAG_USER;
    const IrTensor *in = op_cin(g, op, 0), *upd = op_cin(g, op, 1), *start = op_cin(g, op, 2);
    if (upd->dtype != in->dtype)
        return op_error(d, op, "update '%s' is %s but the operand '%s' is %s", upd->name, ir_dtype_name(upd->dtype),
                        in->name, ir_dtype_name(in->dtype));
    if (in->rank < 1 || upd->rank != in->rank)
        return op_error(d, op, "update '%s' has rank %d, the operand '%s' rank %d (both must be equal and >= 1)",
                        upd->name, upd->rank, in->name, in->rank);
    for (int j = 0; j < in->rank; j++)
        if (upd->dims[j] > in->dims[j])
            return op_error(d, op, "update '%s' dimension %d (%lld) is larger than the operand's (%lld)", upd->name, j,
                            (long long)upd->dims[j], (long long)in->dims[j]);
    if (start->rank != 1 || start->dims[0] != in->rank)
        return op_error(d, op, "start indices '%s' must be a vector of %d values (one per operand dimension)",
                        start->name, in->rank);
    return op_set_out_shape(g, op, 0, in->rank, in->dims, d);
}

static int prepare(Graph *g, IrOp *op, Diag *d) {
    const IrTensor *in = op_cin(g, op, 0), *upd = op_cin(g, op, 1);
    rt_dus_params *p = op_new_params(g, rt_dus_params);
    if (!p) return diag_internal(d, "out of memory");
    p->rank = in->rank;
    for (int j = 0; j < in->rank; j++) {
        p->in_dims[j] = in->dims[j];
        p->upd_dims[j] = upd->dims[j];
    }
    p->in_bytes = ir_tensor_bytes(in);
    p->elem_size = (int32_t)ir_dtype_size(in->dtype);
    op->params = p;
    return 0;
}

static void eval(const Graph *g, const IrOp *op, const void *const *in, void *const *out, void *scratch) {
    (void)scratch;
    if (g->tensors[op->in[2]].dtype == IR_I64) rt_dynamic_update_slice_i64(op->params, in[0], in[1], in[2], out[0]);
    else rt_dynamic_update_slice_i32(op->params, in[0], in[1], in[2], out[0]);
}

static void emit_dims(CgCtx *cg, const char *field, const int64_t *dims, int rank, const char *end) {
    char buf[256] = "";
    size_t n = 0;
    for (int j = 0; j < rank; j++) n += (size_t)snprintf(buf + n, sizeof buf - n, "%s%lld", j ? ", " : "", (long long)dims[j]);
    cg_line(cg, ".%s = {%s}%s", field, buf, end);
}

static int emit_c(CgCtx *cg, const Graph *g, const IrOp *op, Diag *d) {
    (void)d;
    const rt_dus_params *p = op->params;
    cg_open(cg, "static const rt_dus_params p = {");
    cg_line(cg, ".rank = %d,", p->rank);
    emit_dims(cg, "in_dims", p->in_dims, p->rank, ",");
    emit_dims(cg, "upd_dims", p->upd_dims, p->rank, ",");
    cg_line(cg, ".in_bytes = %lld, .elem_size = %d", (long long)p->in_bytes, p->elem_size);
    cg_close(cg, "};");
    cg_line(cg, "%s(&p, %s, %s, %s, %s);",
            g->tensors[op->in[2]].dtype == IR_I64 ? "rt_dynamic_update_slice_i64" : "rt_dynamic_update_slice_i32",
            cg_in(cg, op, 0), cg_in(cg, op, 1), cg_in(cg, op, 2), cg_out(cg, op, 0));
    return 0;
}

const OpDef op_def_dynamic_update_slice = {"DYNAMIC_UPDATE_SLICE", op_parse_none, check, prepare, eval, emit_c,
                                           op_no_macs, 0};
