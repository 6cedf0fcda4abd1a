/* op_pad.c - PAD (and the shared part of PADV2): constant paddings
 * (input 1, int32/int64 [rank, 2], non-negative). PAD pads with 0, or with
 * the output zero point for quantized tensors; PADV2 pads with its scalar
 * input 2, which for quantized tensors must share the output's quantization
 * (TFLite's rule). Any dtype. */
#include "shape_common.h"

#include <string.h>

static int get_paddings(const Graph *g, const IrOp *op, int64_t *lo, int64_t *hi, Diag *d) {
    const IrTensor *in = op_cin(g, op, 0), *pt = op_cin(g, op, 1);
    int64_t v[2 * IR_MAX_RANK];
    int n = 0;
    if (op_const_ints(g, op, 1, v, 2 * IR_MAX_RANK, &n, d)) return DIAG_USER;
    if (pt->rank != 2 || pt->dims[0] != in->rank || pt->dims[1] != 2)
        return op_error(d, op, "paddings '%s' must have shape [%d, 2]", pt->name, in->rank);
    for (int k = 0; k < in->rank; k++) {
        lo[k] = v[2 * k];
        hi[k] = v[2 * k + 1];
        if (lo[k] < 0 || hi[k] < 0)
            return op_error(d, op, "paddings for dimension %d are negative (%lld, %lld)", k, (long long)lo[k],
                            (long long)hi[k]);
    }
    return 0;
}

int shape_pad_check(Graph *g, IrOp *op, Diag *d) {
    if (op_expect_io(op, 2, 3, 1, d) || op_expect_dtype(g, op, 0, 0, SHAPE_ANY_DTYPE, d) ||
        shape_expect_same_quant(g, op, 0, 0, d))
        return DIAG_USER;
    const IrTensor *in = op_cin(g, op, 0), *val = op_cin(g, op, 2), *out = op_out(g, op, 0);
    if (val) {
        if (val->dtype != in->dtype)
            return op_error(d, op, "constant_values '%s' is %s but the input is %s", val->name,
                            ir_dtype_name(val->dtype), ir_dtype_name(in->dtype));
        if (ir_tensor_numel(val) != 1)
            return op_error(d, op, "constant_values '%s' must hold one value", val->name);
        if (in->q.count && (val->q.count != 1 || val->q.scale[0] != out->q.scale[0] ||
                            val->q.zero_point[0] != out->q.zero_point[0]))
            return op_error(d, op, "constant_values '%s' must have the output's quantization", val->name);
    }
    int64_t lo[IR_MAX_RANK], hi[IR_MAX_RANK], dims[IR_MAX_RANK];
    if (get_paddings(g, op, lo, hi, d)) return DIAG_USER;
    for (int k = 0; k < in->rank; k++) dims[k] = in->dims[k] + lo[k] + hi[k];
    return op_set_out_shape(g, op, 0, in->rank, dims, d);
}

int shape_pad_prepare(Graph *g, IrOp *op, Diag *d) {
    const IrTensor *in = op_cin(g, op, 0), *out = op_out(g, op, 0);
    int64_t lo[IR_MAX_RANK], hi[IR_MAX_RANK], is[IR_MAX_RANK], os[IR_MAX_RANK], off = 0;
    int64_t esize = (int64_t)ir_dtype_size(in->dtype);
    if (get_paddings(g, op, lo, hi, d)) return DIAG_USER;
    rt_pad_params *p = op_new_params(g, rt_pad_params);
    if (!p) return diag_internal(d, "out of memory");
    shape_contig_strides(in->rank, in->dims, is);
    shape_contig_strides(out->rank, out->dims, os);
    for (int k = 0; k < in->rank; k++) off += lo[k] * os[k];
    if (shape_copy_init(&p->interior, in->rank, in->dims, is, 0, os, off, esize))
        return op_error(d, op, "tensor too large");
    p->out_bytes = ir_tensor_bytes(out);
    p->elem_size = (int32_t)esize;
    if (out->q.count && (out->dtype == IR_I8 || out->dtype == IR_U8 || out->dtype == IR_I16)) {
        int64_t zp = out->q.zero_point[0];
        int32_t lo_q, hi_q;
        op_dtype_range(out->dtype, &lo_q, &hi_q);
        if (zp < lo_q || zp > hi_q) return op_error(d, op, "output zero point %lld out of range", (long long)zp);
        if (out->dtype == IR_I16) {
            int16_t z = (int16_t)zp;
            memcpy(p->fill, &z, 2);
        } else {
            p->fill[0] = (uint8_t)(zp & 0xFF);
        }
    }
    op->params = p;
    return 0;
}

static void eval(const Graph *g, const IrOp *op, const void *const *in, void *const *out, void *scratch) {
    (void)g, (void)scratch;
    rt_pad(op->params, in[0], op->n_in > 2 ? in[2] : NULL, out[0]);
}

int shape_pad_emit_kernel(CgCtx *cg, const IrOp *op, const char *kernel) {
    const rt_pad_params *p = op->params;
    cg_open(cg, "static const rt_pad_params p = {");
    cg_line(cg, ".out_bytes = %lld, .elem_size = %d,", (long long)p->out_bytes, p->elem_size);
    cg_line(cg, ".fill = {%u, %u, %u, %u, %u, %u, %u, %u},", p->fill[0], p->fill[1], p->fill[2], p->fill[3],
            p->fill[4], p->fill[5], p->fill[6], p->fill[7]);
    shape_emit_copy(cg, &p->interior, ".interior = ", "");
    cg_close(cg, "};");
    cg_line(cg, "%s(&p, %s, %s, %s);", kernel, cg_in(cg, op, 0), op->n_in > 2 ? cg_in(cg, op, 2) : "NULL",
            cg_out(cg, op, 0));
    return 0;
}

int shape_pad_emit_c(CgCtx *cg, const Graph *g, const IrOp *op, Diag *d) {
    (void)g, (void)d;
    return shape_pad_emit_kernel(cg, op, "rt_pad");
}

void shape_pad_eval(const Graph *g, const IrOp *op, const void *const *in, void *const *out, void *scratch) {
    eval(g, op, in, out, scratch);
}

static int check(Graph *g, IrOp *op, Diag *d) {
    if (op->n_in != 2) return op_error(d, op, "expected 2 inputs, got %d", op->n_in);
    return shape_pad_check(g, op, d);
}

const OpDef op_def_pad = {"PAD", op_parse_none, check, shape_pad_prepare, eval, shape_pad_emit_c, op_no_macs, 0};
