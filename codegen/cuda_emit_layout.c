/* cuda_emit_layout.c - --target cuda: the layout ops (runtime/cuda/mpcc_cuda_layout.cuh): PAD / PADV2,
 * SPLIT / SPLIT_V / PACK / UNPACK (strided copies), PRELU, RESIZE_BILINEAR / RESIZE_NEAREST_NEIGHBOR,
 * TRANSPOSE_CONV, ARG_MAX, L2_NORMALIZATION / LOG_SOFTMAX f32. One kind, CU_LAYOUT: cu_classify_layout decides, cu_emit_layout emits. */
#include "cuda_internal.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The pad value of a PAD/PADV2 as one fill unit (1, 2 or 4 bytes), or -1 when it has none here. */
static int pad_fill(const Graph *g, const IrOp *op, uint32_t *value) {
    const rt_pad_params *p = op->params;
    const uint8_t *v = p->fill;
    if (op->n_in > 2 && op->in[2] >= 0) {
        v = g->tensors[op->in[2]].data;
        if (!v) return -1;
    }
    if (p->elem_size != 1 && p->elem_size != 2 && p->elem_size != 4) return -1;
    *value = 0;
    memcpy(value, v, (size_t)p->elem_size); /* little-endian host and device */
    return p->elem_size;
}

/* The data input of a SPLIT/SPLIT_V/UNPACK (scatter) or -1 for PACK (gather). */
static int parts_source(const IrOp *op) {
    switch (op->kind) {
    case OP_SPLIT: return 1;
    case OP_SPLIT_V: case OP_UNPACK: return 0;
    default: return -1;
    }
}

CuKind cu_classify_layout(const Graph *g, const IrOp *op, const char **why, int *mine) {
    IrDType t = op->n_out > 0 ? g->tensors[op->out[0]].dtype : IR_F32;
    *mine = 0;
    if (!op->params) return CU_NONE;
    switch (op->kind) {
    case OP_PAD: case OP_PADV2: {
        uint32_t v;
        *mine = 1;
        if (pad_fill(g, op, &v) < 0) return *why = "a pad value that is not a constant of 1, 2 or 4 bytes", CU_NONE;
        return CU_LAYOUT;
    }
    case OP_SPLIT: case OP_SPLIT_V: case OP_PACK: case OP_UNPACK: *mine = 1; return CU_LAYOUT;
    case OP_PRELU:
        if (t != IR_F32 && t != IR_I8) return CU_NONE;
        *mine = 1;
        if (cu_dt_in(g, op, 1) != t) return *why = "PRELU with an alpha of another type", CU_NONE;
        return CU_LAYOUT;
    case OP_RESIZE_NEAREST_NEIGHBOR: *mine = 1; return CU_LAYOUT;
    case OP_RESIZE_BILINEAR:
        if (t != IR_F32 && t != IR_I8) return CU_NONE;
        *mine = 1;
        return CU_LAYOUT;
    case OP_TRANSPOSE_CONV: {
        IrDType ti = cu_dt_in(g, op, 2);
        int b = op->n_in > 3 ? op->in[3] : -1;
        if (ti != IR_F32 && ti != IR_I8) return CU_NONE;
        *mine = 1;
        if (cu_dt_in(g, op, 1) != (ti == IR_I8 ? IR_I8 : IR_F32) || !g->tensors[op->in[1]].data)
            return *why = "TRANSPOSE_CONV needs constant weights of its input's type", CU_NONE;
        if (b >= 0 && g->tensors[b].dtype != (ti == IR_I8 ? IR_I32 : IR_F32))
            return *why = "TRANSPOSE_CONV with a bias of an unexpected type", CU_NONE;
        return CU_LAYOUT;
    }
    case OP_ARG_MAX:
        *mine = 1;
        if (cu_rt_code(cu_dt_in(g, op, 0)) < 0 || cu_rt_code(cu_dt_in(g, op, 0)) == 1 || cu_dt_in(g, op, 0) == IR_BOOL)
            return *why = "ARG_MAX of this input type has no CUDA kernel", CU_NONE;
        return CU_LAYOUT;
    case OP_L2_NORMALIZATION: case OP_LOG_SOFTMAX: return t == IR_F32 && cu_dt_in(g, op, 0) == IR_F32 ? (*mine = 1, CU_LAYOUT) : CU_NONE;
    default: return CU_NONE;
    }
}

/* The coordinate tables of a resize: slot 0 rows, slot 1 columns, (lo, hi, frac) each, computed
 * by the reference kernels' functions (rt_conv_common.h) so that the device reads the same. */
static int resize_tables(CuEmit *e, int i, const IrOp *op) {
    const rt_resize_params *p = op->params;
    int s8 = e->g->tensors[op->out[0]].dtype != IR_F32;
    for (int axis = 0; axis < 2; axis++) {
        int32_t in = axis ? p->in_w : p->in_h, out = axis ? p->out_w : p->out_h;
        int32_t *t = malloc(sizeof(int32_t) * 3 * (size_t)(out > 0 ? out : 1));
        if (!t) return -1;
        for (int32_t v = 0; v < out; v++) {
            int32_t lo = 0, hi = 0, frac = 0;
            if (op->kind == OP_RESIZE_NEAREST_NEIGHBOR) {
                lo = rt_resize_nearest(v, in, out, p->align_corners, p->half_pixel_centers);
            } else if (s8) {
                int32_t src;
                rt_resize_coord_10(v, rt_resize_scale_10(in, out, p->align_corners), p->half_pixel_centers, in, &src, &lo, &hi);
                frac = src - (1 << 10) * lo;
            } else {
                float src, d;
                rt_resize_coord_f32(v, rt_resize_scale_f32(in, out, p->align_corners), p->half_pixel_centers, in, &src, &lo, &hi);
                d = src - (float)lo;
                memcpy(&frac, &d, 4);
            }
            t[3 * v] = lo, t[3 * v + 1] = hi, t[3 * v + 2] = frac;
        }
        if (cu_xconst_add(e, i, axis, t, 12 * (int64_t)out)) return -1;
    }
    return 0;
}

int cu_xconsts_layout(CuEmit *e, int i, const IrOp *op) {
    switch (op->kind) {
    case OP_RESIZE_BILINEAR: case OP_RESIZE_NEAREST_NEIGHBOR: return resize_tables(e, i, op);
    case OP_TRANSPOSE_CONV: {
        const rt_tconv_params *p = op->params;
        if (cu_dt_in(e->g, op, 2) != IR_I8) return 0;
        return cu_xconst_requant(e, i, 0, p->mult, p->shift, p->out_c, 1);
    }
    default: return 0;
    }
}

static void copy_args(CuEmit *e, const char *v, const rt_copy_params *p, int64_t *total) {
    CgCtx *cg = &e->cg;
    int unit;
    cu_copy_plan(p, &unit, total);
    cg_line(cg, "%s.rank = %d; %s.unit = %d; %s.in_offset = %lld; %s.out_offset = %lld; %s.run = %lld; %s.total_units = %lld;", v,
            p->rank, v, unit, v, (long long)p->in_offset, v, (long long)p->out_offset, v, (long long)p->run, v, (long long)*total);
    for (int k = 0; k < p->rank; k++)
        cg_line(cg, "%s.dims[%d] = %d; %s.in_strides[%d] = %lld; %s.out_strides[%d] = %lld;", v, k, p->dims[k], v, k,
                (long long)p->in_strides[k], v, k, (long long)p->out_strides[k]);
}

static int emit_pad(CuEmit *e, CgBuf *kb, int index, const IrOp *op) {
    const rt_pad_params *p = op->params;
    CgCtx *cg = &e->cg;
    uint32_t v = 0;
    int unit = pad_fill(e->g, op, &v);
    int64_t total, n = p->out_bytes / unit;
    cg_line(cg, "mpcc_pad_args p;");
    cg_line(cg, "memset(&p, 0, sizeof p);");
    cg_line(cg, "p.fill.out = %s; p.fill.n = %lld; p.fill.unit = %d; p.fill.value = %uu;", cu_ptr(e, op->out[0], "unsigned char"),
            (long long)n, unit, v);
    cg_line(cg, "p.copy.in = %s; p.copy.out = p.fill.out;", cu_ptr(e, op->in[0], "const unsigned char"));
    copy_args(e, "p.copy", &p->interior, &total);
    cu_kernel_def(e, kb, index, "mpcc_pad_args", 256, "mpcc_pad_body");
    if (n > 0) cu_launch(e, index, cu_blocks_for(n), 1, 1, 0, 256, NULL);
    cg_line(cg, "p.phase = 1;");
    if (total > 0) cu_launch(e, index, cu_blocks_for(total), 1, 1, 0, 256, NULL);
    return 0;
}

/* SPLIT / SPLIT_V / UNPACK copy their slots of one input to each output, PACK each input into its slot. */
static int emit_parts(CuEmit *e, CgBuf *kb, int index, const IrOp *op) {
    const rt_parts_params *pp = op->params;
    CgCtx *cg = &e->cg;
    int src = parts_source(op);
    cu_kernel_def(e, kb, index, "mpcc_copy_args", 256, "mpcc_copy_body");
    for (int k = 0; k < pp->count; k++) {
        int in = src >= 0 ? op->in[src] : op->in[k], out = src >= 0 ? op->out[k] : op->out[0];
        int64_t total;
        if (in < 0 || out < 0) continue;
        cg_open(cg, "{");
        cg_line(cg, "mpcc_copy_args p;");
        cg_line(cg, "memset(&p, 0, sizeof p);");
        cg_line(cg, "p.in = %s; p.out = %s;", cu_ptr(e, in, "const unsigned char"), cu_ptr(e, out, "unsigned char"));
        copy_args(e, "p", &pp->parts[k], &total);
        if (total > 0) cu_launch(e, index, cu_blocks_for(total), 1, 1, 0, 256, NULL);
        cg_close(cg, "}");
        e->cg.pool_next = 0;
    }
    return 0;
}

static int emit_prelu(CuEmit *e, CgBuf *kb, int index, const IrOp *op) {
    const rt_prelu_params *p = op->params;
    CgCtx *cg = &e->cg;
    int64_t n = ir_tensor_numel(&e->g->tensors[op->out[0]]);
    int s8 = e->g->tensors[op->out[0]].dtype == IR_I8;
    cg_line(cg, "mpcc_prelu_args p;");
    cg_line(cg, "memset(&p, 0, sizeof p);");
    cg_line(cg, "p.in = %s; p.alpha = %s; p.out = %s; p.n = %lld; p.rank = %d;", cu_ptr(e, op->in[0], "const void"),
            cu_ptr(e, op->in[1], "const void"), cu_ptr(e, op->out[0], "void"), (long long)n, p->shape.rank);
    for (int k = 0; k < p->shape.rank; k++) cg_line(cg, "p.dims[%d] = %d; p.astride[%d] = %d;", k, p->shape.dims[k], k, p->alpha_stride[k]);
    if (s8)
        cg_line(cg, "p.in_offset = %d; p.alpha_offset = %d; p.out_offset = %d; p.mult_1 = %d; p.shift_1 = %d; p.mult_2 = %d; p.shift_2 = %d;",
                p->in_offset, p->alpha_offset, p->out_offset, p->mult_1, p->shift_1, p->mult_2, p->shift_2);
    cu_kernel_def(e, kb, index, "mpcc_prelu_args", 256, s8 ? "mpcc_prelu_s8_body" : "mpcc_prelu_body");
    cu_launch(e, index, cu_blocks_for(n), 1, 1, 0, 256, NULL);
    return 0;
}

static int emit_resize(CuEmit *e, CgBuf *kb, int index, const IrOp *op) {
    const rt_resize_params *p = op->params;
    CgCtx *cg = &e->cg;
    IrDType t = e->g->tensors[op->out[0]].dtype;
    int64_t n = (int64_t)p->batches * p->out_h * p->out_w * p->channels;
    const char *body = op->kind == OP_RESIZE_NEAREST_NEIGHBOR ? "mpcc_resize_nearest_body"
                       : t == IR_F32                         ? "mpcc_resize_bilinear_body"
                                                             : "mpcc_resize_bilinear_s8_body";
    cg_line(cg, "mpcc_resize_args p;");
    cg_line(cg, "memset(&p, 0, sizeof p);");
    cg_line(cg, "p.in = %s; p.out = %s; p.ytab = %s; p.xtab = %s; p.n = %lld;", cu_ptr(e, op->in[0], "const void"),
            cu_ptr(e, op->out[0], "void"), cu_xptr(e, index, 0, "const int32_t"), cu_xptr(e, index, 1, "const int32_t"), (long long)n);
    cg_line(cg, "p.batches = %d; p.in_h = %d; p.in_w = %d; p.channels = %d; p.out_h = %d; p.out_w = %d; p.elem_size = %d;",
            p->batches, p->in_h, p->in_w, p->channels, p->out_h, p->out_w,
            op->kind == OP_RESIZE_NEAREST_NEIGHBOR ? p->elem_size : (int)ir_dtype_size(t));
    cu_kernel_def(e, kb, index, "mpcc_resize_args", 256, body);
    if (n > 0) cu_launch(e, index, cu_blocks_for(n), 1, 1, 0, 256, NULL);
    return 0;
}

static int emit_tconv(CuEmit *e, CgBuf *kb, int index, const IrOp *op) {
    const rt_tconv_params *p = op->params;
    CgCtx *cg = &e->cg;
    int s8 = cu_dt_in(e->g, op, 2) == IR_I8;
    int64_t n = (int64_t)p->batches * p->out_h * p->out_w * p->out_c;
    cg_line(cg, "mpcc_tconv_args p;");
    cg_line(cg, "memset(&p, 0, sizeof p);");
    cg_line(cg, "p.in = %s; p.filter = %s; p.bias = %s; p.out = %s; p.n = %lld;", cu_ptr(e, op->in[2], "const void"),
            cu_ptr(e, op->in[1], "const void"), cu_ptr(e, op->n_in > 3 ? op->in[3] : -1, "const void"),
            cu_ptr(e, op->out[0], "void"), (long long)n);
    cg_line(cg, "p.batches = %d; p.in_h = %d; p.in_w = %d; p.in_c = %d; p.out_h = %d; p.out_w = %d; p.out_c = %d;", p->batches,
            p->in_h, p->in_w, p->in_c, p->out_h, p->out_w, p->out_c);
    cg_line(cg, "p.filter_h = %d; p.filter_w = %d; p.stride_h = %d; p.stride_w = %d; p.pad_h = %d; p.pad_w = %d;", p->filter_h,
            p->filter_w, p->stride_h, p->stride_w, p->pad_h, p->pad_w);
    if (s8)
        cg_line(cg, "p.mult = %s; p.shift = %s; p.in_offset = %d; p.out_offset = %d; p.qmin = %d; p.qmax = %d;",
                cu_xptr(e, index, 0, "const int32_t"), cu_xptr(e, index, 1, "const int32_t"), p->in_offset, p->out_offset,
                p->act_qmin, p->act_qmax);
    else
        cg_line(cg, "p.act_min = %s; p.act_max = %s;", cu_f32(e, p->act_min), cu_f32(e, p->act_max));
    cu_kernel_def(e, kb, index, "mpcc_tconv_args", 256, s8 ? "mpcc_tconv_s8_body" : "mpcc_tconv_body");
    if (n > 0) cu_launch(e, index, cu_blocks_for(n), 1, 1, 0, 256, NULL);
    return 0;
}

static int emit_rowop(CuEmit *e, CgBuf *kb, int index, const IrOp *op) {
    CgCtx *cg = &e->cg;
    int outer, axis, inner = 1, type = 0, out64 = 0;
    const char *body;
    if (op->kind == OP_ARG_MAX) {
        const rt_arg_max_params *p = op->params;
        outer = p->outer, axis = p->axis, inner = p->inner, out64 = p->out_is_64, body = "mpcc_arg_max_body";
        type = cu_rt_code(cu_dt_in(e->g, op, 0));
    } else if (op->kind == OP_L2_NORMALIZATION) {
        const rt_l2norm_params *p = op->params;
        outer = p->outer, axis = p->depth, body = "mpcc_l2_norm_body";
    } else {
        const rt_log_softmax_params *p = op->params;
        outer = p->outer, axis = p->depth, body = "mpcc_log_softmax_body";
    }
    int64_t n = (int64_t)outer * inner;
    cg_line(cg, "mpcc_rowop_args p;");
    cg_line(cg, "memset(&p, 0, sizeof p);");
    cg_line(cg, "p.in = %s; p.out = %s;", cu_ptr(e, op->in[0], "const void"), cu_ptr(e, op->out[0], "void"));
    cg_line(cg, "p.outer = %d; p.axis = %d; p.inner = %d; p.type = %d; p.out64 = %d;", outer, axis, inner, type, out64);
    cu_kernel_def(e, kb, index, "mpcc_rowop_args", 256, body);
    if (n > 0) cu_launch(e, index, cu_blocks_for(n), 1, 1, 0, 256, NULL);
    return 0;
}

int cu_emit_layout(CuEmit *e, CgBuf *kb, int index, const IrOp *op, Diag *d) {
    switch (op->kind) {
    case OP_PAD: case OP_PADV2: return emit_pad(e, kb, index, op);
    case OP_SPLIT: case OP_SPLIT_V: case OP_PACK: case OP_UNPACK: return emit_parts(e, kb, index, op);
    case OP_PRELU: return emit_prelu(e, kb, index, op);
    case OP_RESIZE_BILINEAR: case OP_RESIZE_NEAREST_NEIGHBOR: return emit_resize(e, kb, index, op);
    case OP_TRANSPOSE_CONV: return emit_tconv(e, kb, index, op);
    case OP_ARG_MAX: case OP_L2_NORMALIZATION: case OP_LOG_SOFTMAX: return emit_rowop(e, kb, index, op);
    default: return diag_internal(d, "operator %d: no CUDA layout emitter for %s", op->tfl_index, ir_op_name(op->kind));
    }
}
