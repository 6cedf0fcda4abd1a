/* conv_common.c - see conv_common.h. */
#include "conv_common.h"

#include <stdio.h>

int conv_parse_padding(const IrOp *op, int tfl_padding, Diag *d) {
    if (tfl_padding == TFL_PADDING_SAME || tfl_padding == TFL_PADDING_VALID) return 0;
    return op_error(d, op, "unsupported padding %d (only SAME and VALID)", tfl_padding);
}

int64_t conv_out_size(int padding, int64_t in, int64_t filter, int stride, int dilation) {
    int64_t effective = (filter - 1) * dilation + 1;
    if (stride <= 0) return 0;
    if (padding == TFL_PADDING_SAME) return (in + stride - 1) / stride;
    return (in + stride - effective) / stride;
}

int32_t conv_pad(int stride, int dilation, int64_t in, int64_t filter, int64_t out) {
    int64_t effective = (filter - 1) * dilation + 1;
    int64_t total = (out - 1) * stride + effective - in;
    if (total < 0) total = 0;
    return (int32_t)(total / 2);
}

int conv_check_filter_quant(const IrOp *op, const IrTensor *w, int dim, int64_t n, Diag *d) {
    if (w->q.count < 1) return op_error(d, op, "filter '%s' has no quantization parameters", w->name);
    if (w->q.count > 1 && (w->q.dim != dim || w->q.count != n))
        return op_error(d, op, "filter '%s': per-channel quantization must be along dimension %d with %lld scales, got "
                        "%d scales along dimension %d", w->name, dim, (long long)n, w->q.count, w->q.dim);
    for (int c = 0; c < w->q.count; c++)
        if (w->q.zero_point[c] != 0)
            return op_error(d, op, "filter '%s' has non-zero zero point %lld (symmetric filters only)", w->name,
                            (long long)w->q.zero_point[c]);
    return 0;
}

#define CONV_MAX_FACTOR 1024

int conv_check_factors(const IrOp *op, int stride_h, int stride_w, int dil_h, int dil_w, Diag *d) {
    if (stride_h <= 0 || stride_w <= 0)
        return op_error(d, op, "strides must be positive, got %d x %d", stride_h, stride_w);
    if (dil_h <= 0 || dil_w <= 0)
        return op_error(d, op, "dilation factors must be positive, got %d x %d", dil_h, dil_w);
    /* Far beyond any real model; keeps the kernels' index arithmetic in range. */
    if (stride_h > CONV_MAX_FACTOR || stride_w > CONV_MAX_FACTOR || dil_h > CONV_MAX_FACTOR || dil_w > CONV_MAX_FACTOR)
        return op_error(d, op, "strides %d x %d / dilations %d x %d exceed the supported maximum %d", stride_h,
                        stride_w, dil_h, dil_w, CONV_MAX_FACTOR);
    return 0;
}

int conv_check_quantized(Graph *g, IrOp *op, int in_k, int w_k, int b_k, int filter_dim, int64_t n, Diag *d) {
    const IrTensor *in = op_cin(g, op, in_k), *w = op_cin(g, op, w_k);
    if (op_expect_dtype(g, op, 0, w_k, DT(I8), d) ||
        op_expect_dtype(g, op, 0, b_k, in->dtype == IR_I8 ? DT(I32) : DT(I64), d) ||
        op_expect_quantized(g, op, 0, in_k, d) || op_expect_quantized(g, op, 1, 0, d) ||
        conv_check_filter_quant(op, w, filter_dim, n, d))
        return DIAG_USER;
    if (in->dtype == IR_I16 && (op_zp(in) != 0 || op_zp(&g->tensors[op->out[0]]) != 0))
        return op_error(d, op, "int16 activations must have zero point 0");
    return 0;
}

/* ---- CONV_2D, DEPTHWISE_CONV_2D ----------------------------------------- */

int conv_check_types(Graph *g, IrOp *op, int filter_dim, int64_t out_c, Diag *d) {
    const IrTensor *in = op_cin(g, op, 0), *w = op_cin(g, op, 1);
    if (in->dtype != IR_F32) return conv_check_quantized(g, op, 0, 1, 2, filter_dim, out_c, d);
    if (w->dtype != IR_F32 && w->dtype != IR_I8)
        return op_error(d, op, "hybrid float input with %s filter '%s' is not supported (only int8 filters)",
                        ir_dtype_name(w->dtype), w->name);
    if (op_expect_dtype(g, op, 0, 2, DT(F32), d)) return DIAG_USER;
    if (w->dtype == IR_I8 &&
        (op_expect_quantized(g, op, 0, 1, d) || conv_check_filter_quant(op, w, filter_dim, out_c, d)))
        return DIAG_USER;
    return 0;
}

int conv_is_hybrid(const Graph *g, const IrOp *op) {
    return g->tensors[op->in[0]].dtype == IR_F32 && g->tensors[op->in[1]].dtype == IR_I8;
}

const float *conv_distinct_scales(const IrTensor *w) {
    for (int c = 1; c < w->q.count; c++)
        if (w->q.scale[c] != w->q.scale[0]) return w->q.scale;
    return NULL;
}

int conv_set_out_shape(Graph *g, IrOp *op, const ConvOptions *o, int64_t out_c, Diag *d) {
    const IrTensor *in = op_cin(g, op, 0), *w = op_cin(g, op, 1);
    int64_t dims[4];
    dims[0] = in->dims[0];
    dims[1] = conv_out_size(o->padding, in->dims[1], w->dims[1], o->stride_h, o->dil_h);
    dims[2] = conv_out_size(o->padding, in->dims[2], w->dims[2], o->stride_w, o->dil_w);
    dims[3] = out_c;
    if (dims[1] <= 0 || dims[2] <= 0)
        return op_error(d, op, "filter %lldx%lld (dilation %dx%d) does not fit the %lldx%lld input with VALID padding",
                        (long long)w->dims[1], (long long)w->dims[2], o->dil_h, o->dil_w, (long long)in->dims[1],
                        (long long)in->dims[2]);
    return op_set_out_shape(g, op, 0, 4, dims, d);
}

/* ---- 2-D pooling -------------------------------------------------------- */

int pool_parse(Graph *g, IrOp *op, const FbTable *opts, Diag *d) {
    PoolOptions *o = ir_alloc(g, sizeof *o);
    int8_t padding = 0, act = 0;
    int32_t sw = 0, sh = 0, fw = 0, fh = 0;
    if (!o) return diag_internal(d, "out of memory");
    op->options = o;
    if (!opts) return op_error(d, op, "missing Pool2DOptions");
    if (fb_i8(opts, TFL_POOL2D_OPTIONS_PADDING, 0, &padding, d) ||
        fb_i32(opts, TFL_POOL2D_OPTIONS_STRIDE_W, 0, &sw, d) || fb_i32(opts, TFL_POOL2D_OPTIONS_STRIDE_H, 0, &sh, d) ||
        fb_i32(opts, TFL_POOL2D_OPTIONS_FILTER_WIDTH, 0, &fw, d) ||
        fb_i32(opts, TFL_POOL2D_OPTIONS_FILTER_HEIGHT, 0, &fh, d) ||
        fb_i8(opts, TFL_POOL2D_OPTIONS_FUSED_ACTIVATION_FUNCTION, 0, &act, d))
        return DIAG_USER;
    if (conv_parse_padding(op, padding, d) || conv_check_factors(op, sh, sw, 1, 1, d)) return DIAG_USER;
    if (fw <= 0 || fh <= 0) return op_error(d, op, "filter size must be positive, got %d x %d", fh, fw);
    o->padding = padding;
    o->stride_w = sw;
    o->stride_h = sh;
    o->filter_w = fw;
    o->filter_h = fh;
    return op_parse_act(op, act, &o->act, d);
}

int pool_check(Graph *g, IrOp *op, Diag *d) {
    const PoolOptions *o = op->options;
    if (op_expect_io(op, 1, 1, 1, d)) return DIAG_USER;
    const IrTensor *in = op_cin(g, op, 0), *out = &g->tensors[op->out[0]];
    if (op_expect_dtype(g, op, 0, 0, DT(F32) | DT(I8) | DT(I16), d) || op_expect_same_dtype(g, op, 0, d))
        return DIAG_USER;
    if (in->rank != 4) return op_error(d, op, "input '%s' must have rank 4 (NHWC), got %d", in->name, in->rank);
    if (in->dtype != IR_F32) {
        if (op_expect_quantized(g, op, 0, 0, d) || op_expect_quantized(g, op, 1, 0, d)) return DIAG_USER;
        if (in->q.scale[0] != out->q.scale[0] || op_zp(in) != op_zp(out))
            return op_error(d, op, "input '%s' and output '%s' must share scale and zero point", in->name, out->name);
    }
    int64_t dims[4];
    dims[0] = in->dims[0];
    dims[1] = conv_out_size(o->padding, in->dims[1], o->filter_h, o->stride_h, 1);
    dims[2] = conv_out_size(o->padding, in->dims[2], o->filter_w, o->stride_w, 1);
    dims[3] = in->dims[3];
    if (dims[1] <= 0 || dims[2] <= 0)
        return op_error(d, op, "filter %dx%d does not fit the %lldx%lld input with VALID padding", o->filter_h,
                        o->filter_w, (long long)in->dims[1], (long long)in->dims[2]);
    return op_set_out_shape(g, op, 0, 4, dims, d);
}

int pool_prepare(Graph *g, IrOp *op, Diag *d) {
    const PoolOptions *o = op->options;
    const IrTensor *in = op_cin(g, op, 0), *out = &g->tensors[op->out[0]];
    rt_pool_params *p = op_new_params(g, rt_pool_params);
    if (!p) return diag_internal(d, "out of memory");
    p->batches = (int32_t)in->dims[0];
    p->in_h = (int32_t)in->dims[1];
    p->in_w = (int32_t)in->dims[2];
    p->channels = (int32_t)in->dims[3];
    p->out_h = (int32_t)out->dims[1];
    p->out_w = (int32_t)out->dims[2];
    p->filter_h = o->filter_h;
    p->filter_w = o->filter_w;
    p->stride_h = o->stride_h;
    p->stride_w = o->stride_w;
    p->pad_h = conv_pad(o->stride_h, 1, in->dims[1], o->filter_h, out->dims[1]);
    p->pad_w = conv_pad(o->stride_w, 1, in->dims[2], o->filter_w, out->dims[2]);
    op_act_range_f32(o->act, &p->act_min, &p->act_max);
    if (in->dtype != IR_F32) op_act_range_q(o->act, out, &p->act_qmin, &p->act_qmax);
    op->params = p;
    return 0;
}

int pool_emit_c(CgCtx *cg, const Graph *g, const IrOp *op, const char *kernel) {
    const rt_pool_params *p = op->params;
    IrDType dt = g->tensors[op->in[0]].dtype;
    cg_open(cg, "static const rt_pool_params p = {");
    cg_line(cg, ".batches = %d, .in_h = %d, .in_w = %d, .channels = %d,", p->batches, p->in_h, p->in_w,
            p->channels);
    cg_line(cg, ".out_h = %d, .out_w = %d,", p->out_h, p->out_w);
    cg_line(cg, ".filter_h = %d, .filter_w = %d, .stride_h = %d, .stride_w = %d, .pad_h = %d, .pad_w = %d,",
            p->filter_h, p->filter_w, p->stride_h, p->stride_w, p->pad_h, p->pad_w);
    cg_line(cg, ".act_min = %s, .act_max = %s,", cg_f32(cg, p->act_min), cg_f32(cg, p->act_max));
    cg_line(cg, ".act_qmin = %d, .act_qmax = %d", p->act_qmin, p->act_qmax);
    cg_close(cg, "};");
    cg_line(cg, "%s_%s(&p, %s, %s);", kernel, dt == IR_I8 ? "i8" : dt == IR_I16 ? "i16" : "f32", cg_in(cg, op, 0),
            cg_out(cg, op, 0));
    return 0;
}

/* ---- reductions --------------------------------------------------------- */

int reduce_parse(Graph *g, IrOp *op, const FbTable *opts, Diag *d) {
    ReduceOptions *o = ir_alloc(g, sizeof *o);
    int keep = 0;
    if (!o) return diag_internal(d, "out of memory");
    op->options = o;
    if (opts && fb_bool(opts, TFL_REDUCER_OPTIONS_KEEP_DIMS, 0, &keep, d)) return DIAG_USER;
    o->keep_dims = keep;
    return 0;
}

int reduce_check(Graph *g, IrOp *op, unsigned dtypes, Diag *d) {
    ReduceOptions *o = op->options;
    int64_t axes[64];
    int n = 0;
    if (op_expect_io(op, 2, 2, 1, d)) return DIAG_USER;
    const IrTensor *in = op_cin(g, op, 0);
    if (op_expect_dtype(g, op, 0, 0, dtypes, d) || op_expect_same_dtype(g, op, 0, d) ||
        op_expect_dtype(g, op, 0, 1, DT(I32), d) || op_const_ints(g, op, 1, axes, 64, &n, d))
        return DIAG_USER;
    for (int i = 0; i < IR_MAX_RANK; i++) o->reduced[i] = 0;
    for (int i = 0; i < n; i++) {
        int64_t a = axes[i] < 0 ? axes[i] + in->rank : axes[i];
        if (a < 0 || a >= in->rank)
            return op_error(d, op, "axis %lld is out of range for input '%s' of rank %d", (long long)axes[i],
                            in->name, in->rank);
        o->reduced[a] = 1;
    }
    int64_t dims[IR_MAX_RANK];
    int r = 0;
    for (int i = 0; i < in->rank; i++) {
        if (!o->reduced[i]) dims[r++] = in->dims[i];
        else if (o->keep_dims) dims[r++] = 1;
    }
    if (in->dtype != IR_F32 && in->dtype != IR_I32 && in->dtype != IR_I64 && in->dtype != IR_BOOL &&
        (op_expect_quantized(g, op, 0, 0, d) || op_expect_quantized(g, op, 1, 0, d)))
        return DIAG_USER;
    return op_set_out_shape(g, op, 0, r, dims, d);
}

int reduce_minmax_check(Graph *g, IrOp *op, Diag *d) {
    if (reduce_check(g, op, DT(F32) | DT(I8) | DT(I16) | DT(I32) | DT(I64), d)) return DIAG_USER;
    const IrTensor *in = op_cin(g, op, 0), *out = &g->tensors[op->out[0]];
    if ((in->dtype == IR_I8 || in->dtype == IR_I16) &&
        (in->q.scale[0] != out->q.scale[0] || op_zp(in) != op_zp(out)))
        return op_error(d, op, "input '%s' and output '%s' must share scale and zero point", in->name, out->name);
    return 0;
}

rt_reduce_params *reduce_prepare(Graph *g, IrOp *op, Diag *d) {
    const ReduceOptions *o = op->options;
    const IrTensor *in = op_cin(g, op, 0), *out = &g->tensors[op->out[0]];
    rt_reduce_params *p = op_new_params(g, rt_reduce_params);
    if (!p) {
        diag_internal(d, "out of memory");
        return NULL;
    }
    p->rank = in->rank;
    int64_t stride = 1;
    for (int i = in->rank - 1; i >= 0; i--) {
        p->in_dims[i] = (int32_t)in->dims[i];
        p->out_stride[i] = o->reduced[i] ? 0 : (int32_t)stride;
        if (!o->reduced[i]) stride *= in->dims[i];
    }
    p->in_count = (int32_t)ir_tensor_numel(in);
    p->out_count = (int32_t)ir_tensor_numel(out);
    p->reduce_count = p->out_count > 0 ? p->in_count / p->out_count : 0;
    p->in_zp = op_zp(in);
    p->out_zp = op_zp(out);
    p->in_scale = in->q.count ? in->q.scale[0] : 1.0f;
    p->out_scale = out->q.count ? out->q.scale[0] : 1.0f;
    op->params = p;
    return p;
}

/* ".field = {v0, v1, ...}," over RT_MAX_RANK entries (n given, the rest 0). */
static void emit_ints(CgCtx *cg, const char *field, const int32_t *v, int n) {
    char buf[256];
    size_t len = 0;
    buf[0] = '\0';
    for (int i = 0; i < RT_MAX_RANK && len < sizeof buf; i++) {
        int w = snprintf(buf + len, sizeof buf - len, "%s%d", i ? ", " : "", i < n ? v[i] : 0);
        if (w > 0) len += (size_t)w;
    }
    cg_line(cg, ".%s = {%s},", field, buf);
}

void reduce_emit_params(CgCtx *cg, const rt_reduce_params *p) {
    cg_open(cg, "static const rt_reduce_params p = {");
    cg_line(cg, ".rank = %d,", p->rank);
    emit_ints(cg, "in_dims", p->in_dims, p->rank);
    emit_ints(cg, "out_stride", p->out_stride, p->rank);
    cg_line(cg, ".in_count = %d, .out_count = %d, .reduce_count = %d,", p->in_count, p->out_count, p->reduce_count);
    cg_line(cg, ".in_zp = %d, .out_zp = %d,", p->in_zp, p->out_zp);
    cg_line(cg, ".in_scale = %s, .out_scale = %s,", cg_f32(cg, p->in_scale), cg_f32(cg, p->out_scale));
    cg_line(cg, ".mult = %d, .shift = %d", p->mult, p->shift);
    cg_close(cg, "};");
}

/* ---- resizing ----------------------------------------------------------- */

int resize_check(Graph *g, IrOp *op, unsigned dtypes, Diag *d) {
    const ResizeOptions *o = op->options;
    int64_t size[4];
    int n = 0;
    if (op_expect_io(op, 2, 2, 1, d)) return DIAG_USER;
    const IrTensor *in = op_cin(g, op, 0), *out = &g->tensors[op->out[0]];
    /* A size computed at run time: the static output's height and width, checked at run time. */
    int declared = out->rank == 4 && op_static_shape(out);
    if (op_expect_dtype(g, op, 0, 0, dtypes, d) || op_expect_same_dtype(g, op, 0, d) ||
        op_expect_dtype(g, op, 0, 1, DT(I32), d) ||
        op_shape_input(g, op, 1, declared ? out->dims + 1 : NULL, 2, 0, size, 4, &n, d))
        return DIAG_USER;
    if (o->align_corners && o->half_pixel_centers)
        return op_error(d, op, "align_corners and half_pixel_centers cannot both be set");
    if (in->rank != 4) return op_error(d, op, "input '%s' must have rank 4 (NHWC), got %d", in->name, in->rank);
    if (n != 2 || size[0] <= 0 || size[1] <= 0) return op_error(d, op, "size must hold two positive values");
    if (in->dtype == IR_I8 || in->dtype == IR_I16) {
        if (op_expect_quantized(g, op, 0, 0, d) || op_expect_quantized(g, op, 1, 0, d)) return DIAG_USER;
        if (in->q.scale[0] != out->q.scale[0] || op_zp(in) != op_zp(out))
            return op_error(d, op, "input '%s' and output '%s' must share scale and zero point", in->name, out->name);
    }
    int64_t dims[4] = {in->dims[0], size[0], size[1], in->dims[3]};
    return op_set_out_shape(g, op, 0, 4, dims, d);
}

int resize_prepare(Graph *g, IrOp *op, Diag *d) {
    const ResizeOptions *o = op->options;
    const IrTensor *in = op_cin(g, op, 0), *out = &g->tensors[op->out[0]];
    rt_resize_params *p = op_new_params(g, rt_resize_params);
    if (!p) return diag_internal(d, "out of memory");
    p->batches = (int32_t)in->dims[0];
    p->in_h = (int32_t)in->dims[1];
    p->in_w = (int32_t)in->dims[2];
    p->channels = (int32_t)in->dims[3];
    p->out_h = (int32_t)out->dims[1];
    p->out_w = (int32_t)out->dims[2];
    p->align_corners = o->align_corners;
    p->half_pixel_centers = o->half_pixel_centers;
    p->elem_size = (int32_t)ir_dtype_size(in->dtype);
    op->params = p;
    return 0;
}

void resize_emit_params(CgCtx *cg, const rt_resize_params *p) {
    cg_open(cg, "static const rt_resize_params p = {");
    cg_line(cg, ".batches = %d, .in_h = %d, .in_w = %d, .channels = %d,", p->batches, p->in_h, p->in_w,
            p->channels);
    cg_line(cg, ".out_h = %d, .out_w = %d,", p->out_h, p->out_w);
    cg_line(cg, ".align_corners = %d, .half_pixel_centers = %d,", p->align_corners, p->half_pixel_centers);
    cg_line(cg, ".elem_size = %d", p->elem_size);
    cg_close(cg, "};");
}
