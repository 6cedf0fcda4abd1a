/* op_embedding_lookup.c - EMBEDDING_LOOKUP: ids (int32, 1-D) select rows of
 * the value table. Same dtype in and out (quantization kept), or the hybrid
 * int8 table -> f32 output (dequantized with the per-tensor or per-row
 * scale). Out-of-range ids: TFLite fails the invocation; the kernel writes a
 * zero row instead. */
#include "shape_common.h"

static int is_hybrid(const Graph *g, const IrOp *op) {
    return g->tensors[op->in[1]].dtype == IR_I8 && g->tensors[op->out[0]].dtype == IR_F32;
}

static int check(Graph *g, IrOp *op, Diag *d) {
    if (op_expect_io(op, 2, 2, 1, d) || op_expect_dtype(g, op, 0, 0, DT(I32), d) ||
        op_expect_dtype(g, op, 0, 1, SHAPE_ANY_DTYPE, d))
        return DIAG_USER;
    const IrTensor *ids = op_cin(g, op, 0), *val = op_cin(g, op, 1);
    if (ids->rank != 1) return op_error(d, op, "ids '%s' must be 1-D", ids->name);
    if (val->rank < 1) return op_error(d, op, "value '%s' must have rank >= 1", val->name);
    if (is_hybrid(g, op)) {
        if (op_expect_quantized(g, op, 0, 1, d)) return DIAG_USER;
        if (!val->q.block && val->q.count > 1 && (val->q.dim != 0 || val->q.count != val->dims[0]))
            return op_error(d, op, "value '%s': per-channel scales must be per row (dimension 0)", val->name);
    } else if (val->q.block) {
        return op_error(d, op, "block-wise quantized table '%s' is supported only with a float output", val->name);
    } else if (shape_expect_same_quant(g, op, 1, 0, d)) {
        return DIAG_USER;
    }
    int64_t dims[IR_MAX_RANK];
    dims[0] = ids->dims[0];
    for (int i = 1; i < val->rank; i++) dims[i] = val->dims[i];
    return op_set_out_shape(g, op, 0, val->rank, dims, d);
}

static int prepare(Graph *g, IrOp *op, Diag *d) {
    const IrTensor *ids = op_cin(g, op, 0), *val = op_cin(g, op, 1);
    rt_embedding_lookup_params *p = op_new_params(g, rt_embedding_lookup_params);
    if (!p) return diag_internal(d, "out of memory");
    if (ids->dims[0] > INT32_MAX || val->dims[0] > INT32_MAX) return op_error(d, op, "tensor too large");
    p->n_ids = (int32_t)ids->dims[0];
    p->rows = (int32_t)val->dims[0];
    p->row_elems = val->dims[0] ? ir_tensor_numel(val) / val->dims[0] : 0;
    p->elem_size = (int32_t)ir_dtype_size(val->dtype);
    if (is_hybrid(g, op)) {
        p->scale = val->q.scale[0];
        if (val->q.count > 1) p->scales = val->q.scale;
        p->block = val->q.block;
    }
    op->params = p;
    return 0;
}

static void eval(const Graph *g, const IrOp *op, const void *const *in, void *const *out, void *scratch) {
    (void)scratch;
    if (is_hybrid(g, op)) rt_embedding_lookup_i8_f32(op->params, in[0], in[1], out[0]);
    else rt_embedding_lookup(op->params, in[0], in[1], out[0]);
}

static int emit_c(CgCtx *cg, const Graph *g, const IrOp *op, Diag *d) {
    (void)d;
    const rt_embedding_lookup_params *p = op->params;
    if (p->scales) cg_array_f32(cg, "scales", p->scales, p->block ? p->rows * (p->row_elems / p->block) : p->rows);
    cg_open(cg, "static const rt_embedding_lookup_params p = {");
    cg_line(cg, ".n_ids = %d, .rows = %d, .row_elems = %lld, .elem_size = %d,", p->n_ids, p->rows,
            (long long)p->row_elems, p->elem_size);
    cg_line(cg, ".scales = %s, .scale = %s, .block = %d", p->scales ? "scales" : "NULL", cg_f32(cg, p->scale),
            p->block);
    cg_close(cg, "};");
    cg_line(cg, "%s(&p, %s, %s, %s);", is_hybrid(g, op) ? "rt_embedding_lookup_i8_f32" : "rt_embedding_lookup",
            cg_in(cg, op, 0), cg_in(cg, op, 1), cg_out(cg, op, 0));
    return 0;
}

const OpDef op_def_embedding_lookup = {"EMBEDDING_LOOKUP", op_parse_none, check, prepare, eval, emit_c, op_no_macs, 0};
