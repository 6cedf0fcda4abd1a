/* shape_common.c - helpers for the data-movement ops (see shape_common.h). */
#include "shape_common.h"

#include <stdio.h>
#include <string.h>

void shape_contig_strides(int rank, const int64_t *dims, int64_t *strides) {
    int64_t s = 1;
    for (int k = rank - 1; k >= 0; k--) {
        strides[k] = s;
        s *= dims[k];
    }
}

static int is_quantized_type(IrDType t) { return t == IR_I8 || t == IR_U8 || t == IR_I16; }

int shape_expect_copy(const Graph *g, const IrOp *op, int n_in, Diag *d) {
    if (op_expect_io(op, n_in, n_in, 1, d) || op_expect_dtype(g, op, 0, 0, SHAPE_ANY_DTYPE, d) ||
        shape_expect_same_quant(g, op, 0, 0, d))
        return DIAG_USER;
    return 0;
}

int shape_expect_same_quant(const Graph *g, const IrOp *op, int in_k, int out_k, Diag *d) {
    const IrTensor *a = op_cin(g, op, in_k), *o = &g->tensors[op->out[out_k]];
    if (!a) return 0;
    if (a->dtype != o->dtype)
        return op_error(d, op, "input %d tensor '%s' is %s but output %d '%s' is %s", in_k, a->name,
                        ir_dtype_name(a->dtype), out_k, o->name, ir_dtype_name(o->dtype));
    if (!is_quantized_type(a->dtype)) return 0;
    int same = a->q.count == o->q.count;
    for (int i = 0; same && i < a->q.count; i++)
        same = a->q.scale[i] == o->q.scale[i] && a->q.zero_point[i] == o->q.zero_point[i];
    if (same) return 0;
    return op_error(d, op,
                    "input %d tensor '%s' (scale %g, zero point %lld) and output %d '%s' (scale %g, zero point "
                    "%lld) must have the same quantization",
                    in_k, a->name, a->q.count ? (double)a->q.scale[0] : 0.0,
                    a->q.count ? (long long)a->q.zero_point[0] : 0LL, out_k, o->name,
                    o->q.count ? (double)o->q.scale[0] : 0.0, o->q.count ? (long long)o->q.zero_point[0] : 0LL);
}

void shape_copy_flat(rt_copy_params *p, int64_t bytes) {
    memset(p, 0, sizeof *p);
    p->run = bytes;
}

int shape_copy_init(rt_copy_params *p, int rank, const int64_t *dims, const int64_t *in_strides, int64_t in_offset,
                    const int64_t *out_strides, int64_t out_offset, int64_t elem_size) {
    int64_t d[IR_MAX_RANK], is[IR_MAX_RANK], os[IR_MAX_RANK];
    int r = 0;
    memset(p, 0, sizeof *p);
    p->in_offset = in_offset * elem_size;
    p->out_offset = out_offset * elem_size;
    for (int k = 0; k < rank; k++) {
        if (dims[k] == 0) { /* empty box: nothing to copy */
            p->rank = 1;
            p->run = elem_size;
            return 0;
        }
        if (dims[k] == 1) continue;
        d[r] = dims[k];
        is[r] = in_strides[k] * elem_size;
        os[r] = out_strides[k] * elem_size;
        r++;
    }
    /* Fold contiguous innermost dims into the run. */
    int64_t run = elem_size;
    while (r > 0 && is[r - 1] == run && os[r - 1] == run) {
        run *= d[r - 1];
        r--;
    }
    /* Merge dim k into k+1 when k steps exactly over all of k+1 on both sides. */
    int m = 0;
    for (int k = 0; k < r; k++) {
        if (m > 0 && is[m - 1] == is[k] * d[k] && os[m - 1] == os[k] * d[k] && d[m - 1] * d[k] <= INT32_MAX) {
            d[m - 1] *= d[k];
            is[m - 1] = is[k];
            os[m - 1] = os[k];
            continue;
        }
        d[m] = d[k];
        is[m] = is[k];
        os[m] = os[k];
        m++;
    }
    for (int k = 0; k < m; k++) {
        if (d[k] > INT32_MAX) return -1;
        p->dims[k] = (int32_t)d[k];
        p->in_strides[k] = is[k];
        p->out_strides[k] = os[k];
    }
    p->rank = m;
    p->run = run;
    return 0;
}

static void fmt_i64s(char *buf, size_t n, const int64_t *v, int count) {
    size_t len = 0;
    buf[0] = '\0';
    if (count == 0) snprintf(buf, n, "0");
    for (int i = 0; i < count && len < n; i++) {
        int w = snprintf(buf + len, n - len, "%s%lld", i ? ", " : "", (long long)v[i]);
        if (w > 0) len += (size_t)w;
    }
}

void shape_emit_copy(CgCtx *cg, const rt_copy_params *p, const char *prefix, const char *suffix) {
    char dims[256], is[320], os[320];
    int64_t d64[RT_MAX_RANK];
    for (int k = 0; k < p->rank; k++) d64[k] = p->dims[k];
    fmt_i64s(dims, sizeof dims, d64, p->rank);
    fmt_i64s(is, sizeof is, p->in_strides, p->rank);
    fmt_i64s(os, sizeof os, p->out_strides, p->rank);
    cg_open(cg, "%s{", prefix);
    cg_line(cg, ".rank = %d, .dims = {%s},", p->rank, dims);
    cg_line(cg, ".in_strides = {%s}, .out_strides = {%s},", is, os);
    cg_line(cg, ".in_offset = %lld, .out_offset = %lld, .run = %lld", (long long)p->in_offset,
            (long long)p->out_offset, (long long)p->run);
    cg_close(cg, "}%s", suffix);
}

void shape_emit_copy_array(CgCtx *cg, const char *name, const rt_copy_params *parts, int count) {
    cg_open(cg, "static const rt_copy_params %s[%d] = {", name, count);
    for (int k = 0; k < count; k++) shape_emit_copy(cg, &parts[k], "", k + 1 < count ? "," : "");
    cg_close(cg, "};");
}

void shape_emit_parts(CgCtx *cg, const rt_parts_params *p) {
    shape_emit_copy_array(cg, "parts", p->parts, p->count);
    cg_line(cg, "static const rt_parts_params p = {.count = %d, .parts = parts};", p->count);
}

int shape_axis(int64_t axis, int rank) {
    if (axis < -rank || axis >= rank) return -1;
    return (int)(axis < 0 ? axis + rank : axis);
}

rt_parts_params *shape_new_parts(Graph *g, int count, rt_copy_params **out_parts) {
    rt_parts_params *p = op_new_params(g, rt_parts_params);
    rt_copy_params *parts = ir_alloc(g, sizeof *parts * (size_t)(count > 0 ? count : 1));
    if (!p || !parts) return NULL;
    *out_parts = parts;
    p->count = count;
    p->parts = parts;
    return p;
}

int shape_copy_prepare(Graph *g, IrOp *op, int rank, const int64_t *dims, const int64_t *in_strides, int64_t in_offset,
                       const int64_t *out_strides, int64_t elem_size, Diag *d) {
    rt_copy_params *p = op_new_params(g, rt_copy_params);
    if (!p) return diag_internal(d, "out of memory");
    if (shape_copy_init(p, rank, dims, in_strides, in_offset, out_strides, 0, elem_size))
        return op_error(d, op, "tensor too large");
    op->params = p;
    return 0;
}

int shape_box_prepare(Graph *g, IrOp *op, int rank, const int64_t *dims, const int64_t *in_strides,
                      int64_t in_offset, Diag *d) {
    int64_t os[IR_MAX_RANK], elem = (int64_t)ir_dtype_size(op_cin(g, op, 0)->dtype);
    shape_contig_strides(rank, dims, os);
    return shape_copy_prepare(g, op, rank, dims, in_strides, in_offset, os, elem, d);
}

int shape_flat_prepare(Graph *g, IrOp *op, Diag *d) {
    rt_copy_params *p = op_new_params(g, rt_copy_params);
    if (!p) return diag_internal(d, "out of memory");
    shape_copy_flat(p, ir_tensor_bytes(op_cin(g, op, 0)));
    op->params = p;
    return 0;
}

void shape_emit_copy_kernel(CgCtx *cg, const IrOp *op, const char *kernel) {
    shape_emit_copy(cg, op->params, "static const rt_copy_params p = ", ";");
    cg_line(cg, "%s(&p, %s, %s);", kernel, cg_in(cg, op, 0), cg_out(cg, op, 0));
}

void shape_flat_copy_eval(const Graph *g, const IrOp *op, const void *const *in, void *const *out, void *scratch) {
    (void)g, (void)scratch;
    rt_reshape(op->params, in[0], out[0]);
}

int shape_flat_copy_emit(CgCtx *cg, const Graph *g, const IrOp *op, Diag *d) {
    (void)g, (void)d;
    shape_emit_copy_kernel(cg, op, "rt_reshape");
    return 0;
}

int shape_block_parse(Graph *g, IrOp *op, const FbTable *opts, int field, Diag *d) {
    BlockOptions *o = ir_alloc(g, sizeof *o);
    int32_t b = 0;
    if (!o) return diag_internal(d, "out of memory");
    op->options = o;
    if (opts && fb_i32(opts, field, 0, &b, d)) return DIAG_USER;
    if (b < 1) return op_error(d, op, "block_size %d must be >= 1", b);
    o->block = b;
    return 0;
}

int shape_const_axis(const Graph *g, const IrOp *op, int axis_k, int data_k, int *axis, Diag *d) {
    const IrTensor *in = op_cin(g, op, data_k);
    int64_t a;
    int n = 0;
    if (op_const_ints(g, op, axis_k, &a, 1, &n, d)) return DIAG_USER;
    if (n != 1) return op_error(d, op, "axis input must hold one value");
    *axis = shape_axis(a, in->rank);
    if (*axis < 0) return op_error(d, op, "axis %lld is out of range for rank %d", (long long)a, in->rank);
    return 0;
}

int shape_split_prepare(Graph *g, IrOp *op, int in_k, int axis, Diag *d) {
    const IrTensor *in = op_cin(g, op, in_k);
    rt_copy_params *parts;
    rt_parts_params *p = shape_new_parts(g, op->n_out, &parts);
    if (!p) return diag_internal(d, "out of memory");
    int64_t is[IR_MAX_RANK], os[IR_MAX_RANK], off = 0;
    shape_contig_strides(in->rank, in->dims, is);
    for (int k = 0; k < op->n_out; k++) {
        const IrTensor *out = op_out(g, op, k);
        shape_contig_strides(out->rank, out->dims, os);
        if (shape_copy_init(&parts[k], out->rank, out->dims, is, off * is[axis], os, 0,
                            (int64_t)ir_dtype_size(in->dtype)))
            return op_error(d, op, "tensor too large");
        off += out->dims[axis];
    }
    op->params = p;
    return 0;
}

void shape_parts_eval(const IrOp *op, ShapePartKernel kernel, int scatter, int in_k, const void *const *in,
                      void *const *out) {
    const rt_parts_params *p = op->params;
    for (int32_t k = 0; k < p->count; k++) {
        if (scatter) kernel(p, k, in[in_k], out[k]);
        else kernel(p, k, in[k], out[0]);
    }
}

void shape_parts_emit(CgCtx *cg, const IrOp *op, const char *kernel, int scatter, int in_k) {
    const rt_parts_params *p = op->params;
    shape_emit_parts(cg, p);
    for (int k = 0; k < p->count; k++) {
        if (scatter) cg_line(cg, "%s(&p, %d, %s, %s);", kernel, k, cg_in(cg, op, in_k), cg_out(cg, op, k));
        else cg_line(cg, "%s(&p, %d, %s, %s);", kernel, k, cg_in(cg, op, k), cg_out(cg, op, 0));
    }
}
