/* op_transpose_conv.c - TRANSPOSE_CONV: inputs (output_shape [4]: a constant, or
 * computed at run time with the output's static shape then checked at run time,
 * weights [out_c, fh, fw, in_c], input NHWC, optional bias [out_c]), SAME/VALID
 * padding, strides, fused activation.
 * f32; int8 (int8 weights per-tensor or per-channel along dim 0, int32 bias);
 * 16x8 (int16 activations, int8 weights, int64 bias). */
#include "conv_common.h"

typedef struct TconvOptions {
    int padding, stride_w, stride_h, act;
} TconvOptions;

static int parse(Graph *g, IrOp *op, const FbTable *opts, Diag *d) {
    TconvOptions *o = ir_alloc(g, sizeof *o);
    int8_t padding = 0, act = 0, bias_type = 0;
    int32_t sw = 0, sh = 0;
    if (!o) return diag_internal(d, "out of memory");
    op->options = o;
    if (!opts) return op_error(d, op, "missing TransposeConvOptions");
    if (fb_i8(opts, TFL_TRANSPOSE_CONV_OPTIONS_PADDING, 0, &padding, d) ||
        fb_i32(opts, TFL_TRANSPOSE_CONV_OPTIONS_STRIDE_W, 0, &sw, d) ||
        fb_i32(opts, TFL_TRANSPOSE_CONV_OPTIONS_STRIDE_H, 0, &sh, d) ||
        fb_i8(opts, TFL_TRANSPOSE_CONV_OPTIONS_FUSED_ACTIVATION_FUNCTION, 0, &act, d) ||
        fb_i8(opts, TFL_TRANSPOSE_CONV_OPTIONS_QUANTIZED_BIAS_TYPE, 0, &bias_type, d))
        return DIAG_USER;
    /* quantized_bias_type only restates the bias tensor's own type, which check() validates. */
    (void)bias_type;
    if (tconv_set_options(g, op, padding, sw, sh, d)) return DIAG_USER;
    return op_parse_act(op, act, &((TconvOptions *)op->options)->act, d);
}

int tconv_set_options(Graph *g, IrOp *op, int padding, int32_t stride_w, int32_t stride_h, Diag *d) {
    TconvOptions *o = op->options;
    if (!o) {
        if (!(o = ir_alloc(g, sizeof *o))) return diag_internal(d, "out of memory"); /* (zeroed: no activation) */
        op->options = o;
    }
    if (conv_parse_padding(op, padding, d) || conv_check_factors(op, stride_h, stride_w, 1, 1, d)) return DIAG_USER;
    o->padding = padding;
    o->stride_w = stride_w;
    o->stride_h = stride_h;
    return 0;
}

static int check(Graph *g, IrOp *op, Diag *d) {
    if (op_expect_io(op, 3, 4, 1, d)) return DIAG_USER;
    const IrTensor *w = op_cin(g, op, 1), *in = op_cin(g, op, 2), *b = op_cin(g, op, 3);
    int64_t shape[8];
    int n = 0;
    const IrTensor *out = &g->tensors[op->out[0]];
    /* Streaming models feed output_shape as a graph input: compile for the static output shape. */
    int declared = out->rank == 4 && op_static_shape(out);
    if (op_expect_dtype(g, op, 0, 2, DT(F32) | DT(I8) | DT(I16), d) ||
        op_shape_input(g, op, 0, declared ? out->dims : NULL, 4, 0, shape, 8, &n, d))
        return DIAG_USER;
    if (out->dtype != in->dtype)
        return op_error(d, op, "input '%s' is %s but output '%s' is %s", in->name, ir_dtype_name(in->dtype),
                        out->name, ir_dtype_name(out->dtype));
    if (n != 4) return op_error(d, op, "output_shape must hold 4 values, got %d", n);
    if (in->rank != 4) return op_error(d, op, "input '%s' must have rank 4 (NHWC), got %d", in->name, in->rank);
    if (w->rank != 4) return op_error(d, op, "weights '%s' must have rank 4 (OHWI), got %d", w->name, w->rank);
    if (w->dims[3] != in->dims[3])
        return op_error(d, op, "weights depth %lld does not match the input depth %lld", (long long)w->dims[3],
                        (long long)in->dims[3]);
    if (shape[0] != in->dims[0] || shape[3] != w->dims[0] || shape[1] <= 0 || shape[2] <= 0)
        return op_error(d, op, "output_shape [%lld,%lld,%lld,%lld] does not fit batch %lld and %lld filters",
                        (long long)shape[0], (long long)shape[1], (long long)shape[2], (long long)shape[3],
                        (long long)in->dims[0], (long long)w->dims[0]);
    if (b && (b->rank != 1 || b->dims[0] != w->dims[0]))
        return op_error(d, op, "bias '%s' must have shape [%lld]", b->name, (long long)w->dims[0]);
    if (in->dtype == IR_F32) {
        if (w->dtype != IR_F32)
            return op_error(d, op, "hybrid float input with %s weights '%s' is not supported", ir_dtype_name(w->dtype),
                            w->name);
        if (op_expect_dtype(g, op, 0, 3, DT(F32), d)) return DIAG_USER;
    } else {
        if (conv_check_quantized(g, op, 2, 1, 3, 0, w->dims[0], d)) return DIAG_USER;
    }
    return op_set_out_shape(g, op, 0, 4, shape, d);
}

static int prepare(Graph *g, IrOp *op, Diag *d) {
    const TconvOptions *o = op->options;
    const IrTensor *w = op_cin(g, op, 1), *in = op_cin(g, op, 2), *out = &g->tensors[op->out[0]];
    rt_tconv_params *p = op_new_params(g, rt_tconv_params);
    if (!p) return diag_internal(d, "out of memory");
    p->batches = (int32_t)in->dims[0];
    p->in_h = (int32_t)in->dims[1];
    p->in_w = (int32_t)in->dims[2];
    p->in_c = (int32_t)in->dims[3];
    p->out_h = (int32_t)out->dims[1];
    p->out_w = (int32_t)out->dims[2];
    p->out_c = (int32_t)out->dims[3];
    p->filter_h = (int32_t)w->dims[1];
    p->filter_w = (int32_t)w->dims[2];
    p->stride_h = o->stride_h;
    p->stride_w = o->stride_w;
    /* As TFLite: the padding of a forward conv whose input is this op's output. */
    int64_t conv_h = conv_out_size(o->padding, out->dims[1], w->dims[1], o->stride_h, 1);
    int64_t conv_w = conv_out_size(o->padding, out->dims[2], w->dims[2], o->stride_w, 1);
    p->pad_h = conv_pad(o->stride_h, 1, out->dims[1], w->dims[1], conv_h);
    p->pad_w = conv_pad(o->stride_w, 1, out->dims[2], w->dims[2], conv_w);
    op_act_range_f32(o->act, &p->act_min, &p->act_max);
    if (in->dtype != IR_F32) {
        int rc = op_channel_multipliers(g, op, in, w, out, p->out_c, &p->mult, &p->shift, d);
        if (rc) return rc;
        p->in_offset = -op_zp(in);
        p->out_offset = op_zp(out);
        op_act_range_q(o->act, out, &p->act_qmin, &p->act_qmax);
        op->scratch_bytes = (size_t)ir_tensor_numel(out) * (in->dtype == IR_I8 ? sizeof(int32_t) : sizeof(int64_t));
    }
    op->params = p;
    return 0;
}

static void eval(const Graph *g, const IrOp *op, const void *const *in, void *const *out, void *scratch) {
    const rt_tconv_params *p = op->params;
    const void *bias = op->n_in > 3 ? in[3] : NULL;
    switch (g->tensors[op->in[2]].dtype) {
    case IR_I8: rt_transpose_conv_i8(p, in[1], in[2], bias, out[0], scratch); break;
    case IR_I16: rt_transpose_conv_i16(p, in[1], in[2], bias, out[0], scratch); break;
    default: rt_transpose_conv_f32(p, in[1], in[2], bias, out[0]); break;
    }
}

/* Also the scheduled kernels' (rt_opt_transpose_conv_*): the same params. */
void tconv_emit_params(CgCtx *cg, const IrOp *op) {
    const rt_tconv_params *p = op->params;
    if (p->mult) {
        cg_array_i32(cg, "mult", p->mult, p->out_c);
        cg_array_i32(cg, "shift", p->shift, p->out_c);
    }
    cg_open(cg, "static const rt_tconv_params p = {");
    cg_line(cg, ".batches = %d, .in_h = %d, .in_w = %d, .in_c = %d,", p->batches, p->in_h, p->in_w, p->in_c);
    cg_line(cg, ".out_h = %d, .out_w = %d, .out_c = %d,", p->out_h, p->out_w, p->out_c);
    cg_line(cg, ".filter_h = %d, .filter_w = %d,", p->filter_h, p->filter_w);
    cg_line(cg, ".stride_h = %d, .stride_w = %d, .pad_h = %d, .pad_w = %d,", p->stride_h, p->stride_w, p->pad_h,
            p->pad_w);
    cg_line(cg, ".act_min = %s, .act_max = %s,", cg_f32(cg, p->act_min), cg_f32(cg, p->act_max));
    cg_line(cg, ".in_offset = %d, .out_offset = %d,", p->in_offset, p->out_offset);
    cg_line(cg, ".mult = %s, .shift = %s,", p->mult ? "mult" : "NULL", p->mult ? "shift" : "NULL");
    cg_line(cg, ".act_qmin = %d, .act_qmax = %d", p->act_qmin, p->act_qmax);
    cg_close(cg, "};");
}

static int emit_c(CgCtx *cg, const Graph *g, const IrOp *op, Diag *d) {
    (void)d;
    IrDType dt = g->tensors[op->in[2]].dtype;
    tconv_emit_params(cg, op);
    const char *bias = op->n_in > 3 ? cg_in(cg, op, 3) : "NULL";
    if (dt == IR_F32)
        cg_line(cg, "rt_transpose_conv_f32(&p, %s, %s, %s, %s);", cg_in(cg, op, 1), cg_in(cg, op, 2), bias,
                cg_out(cg, op, 0));
    else
        cg_line(cg, "rt_transpose_conv_%s(&p, %s, %s, %s, %s, %s);", dt == IR_I8 ? "i8" : "i16", cg_in(cg, op, 1),
                cg_in(cg, op, 2), bias, cg_out(cg, op, 0), cg_scratch(cg, op));
    return 0;
}

static int64_t macs(const Graph *g, const IrOp *op) {
    const IrTensor *w = &g->tensors[op->in[1]], *in = &g->tensors[op->in[2]];
    return ir_tensor_numel(in) * w->dims[0] * w->dims[1] * w->dims[2];
}

const OpDef op_def_transpose_conv = {"TRANSPOSE_CONV", parse, check, prepare, eval, emit_c, macs, 0};
