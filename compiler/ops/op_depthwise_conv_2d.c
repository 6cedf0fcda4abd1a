/* op_depthwise_conv_2d.c - DEPTHWISE_CONV_2D: per-channel 2-D convolution,
 * NHWC input, filter [1, fh, fw, in_c * depth_multiplier], optional bias,
 * SAME/VALID padding with strides and dilation, fused activation.
 * f32; int8 (int8 filter per-tensor or per-channel along dim 3, int32 bias);
 * 16x8 (int16 activations, int8 filter, int64 bias); hybrid: f32 input,
 * output and bias with an int8 filter quantized per channel, the input
 * quantized per batch at run time (dynamic-range quantized models). */
#include "conv_common.h"

static int parse(Graph *g, IrOp *op, const FbTable *opts, Diag *d) {
    ConvOptions *o = ir_alloc(g, sizeof *o);
    int8_t padding = 0, act = 0;
    int32_t sw = 1, sh = 1, dm = 0, dw = 1, dh = 1;
    if (!o) return diag_internal(d, "out of memory");
    op->options = o;
    if (!opts) return op_error(d, op, "missing DepthwiseConv2DOptions");
    if (fb_i8(opts, TFL_DEPTHWISE_CONV2D_OPTIONS_PADDING, 0, &padding, d) ||
        fb_i32(opts, TFL_DEPTHWISE_CONV2D_OPTIONS_STRIDE_W, 0, &sw, d) ||
        fb_i32(opts, TFL_DEPTHWISE_CONV2D_OPTIONS_STRIDE_H, 0, &sh, d) ||
        fb_i32(opts, TFL_DEPTHWISE_CONV2D_OPTIONS_DEPTH_MULTIPLIER, 0, &dm, d) ||
        fb_i8(opts, TFL_DEPTHWISE_CONV2D_OPTIONS_FUSED_ACTIVATION_FUNCTION, 0, &act, d) ||
        fb_i32(opts, TFL_DEPTHWISE_CONV2D_OPTIONS_DILATION_W_FACTOR, 1, &dw, d) ||
        fb_i32(opts, TFL_DEPTHWISE_CONV2D_OPTIONS_DILATION_H_FACTOR, 1, &dh, d))
        return DIAG_USER;
    if (conv_parse_padding(op, padding, d) || conv_check_factors(op, sh, sw, dh, dw, d)) return DIAG_USER;
    o->padding = padding;
    o->stride_w = sw;
    o->stride_h = sh;
    o->depth_mult = dm;
    o->dil_w = dw;
    o->dil_h = dh;
    return op_parse_act(op, act, &o->act, d);
}

static int check(Graph *g, IrOp *op, Diag *d) {
    const ConvOptions *o = op->options;
    if (op_expect_io(op, 2, 3, 1, d)) return DIAG_USER;
    const IrTensor *in = op_cin(g, op, 0), *w = op_cin(g, op, 1), *b = op_cin(g, op, 2);
    if (op_expect_dtype(g, op, 0, 0, DT(F32) | DT(I8) | DT(I16), d) || op_expect_same_dtype(g, op, 0, d))
        return DIAG_USER;
    if (in->rank != 4) return op_error(d, op, "input '%s' must have rank 4 (NHWC), got %d", in->name, in->rank);
    if (w->rank != 4 || w->dims[0] != 1)
        return op_error(d, op, "filter '%s' must have shape [1, h, w, channels]", w->name);
    int64_t out_c = w->dims[3], in_c = in->dims[3];
    /* TFLite derives the multiplier from the shapes (filter channels / input
     * channels); the option must agree when it is set. */
    if (in_c <= 0 || out_c % in_c != 0)
        return op_error(d, op, "filter channels %lld are not a multiple of the input depth %lld", (long long)out_c,
                        (long long)in_c);
    if (o->depth_mult != 0 && o->depth_mult * in_c != out_c)
        return op_error(d, op, "depth_multiplier %d times input depth %lld does not match the filter's %lld channels",
                        o->depth_mult, (long long)in_c, (long long)out_c);
    if (b && (b->rank != 1 || b->dims[0] != out_c))
        return op_error(d, op, "bias '%s' must have shape [%lld]", b->name, (long long)out_c);
    if (conv_check_types(g, op, 3, out_c, d)) return DIAG_USER;
    /* TFLite's hybrid kernel reads one filter scale per output channel. */
    if (conv_is_hybrid(g, op) && w->q.count != out_c)
        return op_error(d, op, "hybrid filter '%s' has %d scales; one per output channel (%lld) is required", w->name,
                        w->q.count, (long long)out_c);
    return conv_set_out_shape(g, op, o, out_c, d);
}

static int prepare(Graph *g, IrOp *op, Diag *d) {
    const ConvOptions *o = op->options;
    const IrTensor *in = op_cin(g, op, 0), *w = op_cin(g, op, 1), *out = &g->tensors[op->out[0]];
    rt_dwconv_params *p = op_new_params(g, rt_dwconv_params);
    if (!p) return diag_internal(d, "out of memory");
    p->batches = (int32_t)in->dims[0];
    p->in_h = (int32_t)in->dims[1];
    p->in_w = (int32_t)in->dims[2];
    p->in_c = (int32_t)in->dims[3];
    p->out_h = (int32_t)out->dims[1];
    p->out_w = (int32_t)out->dims[2];
    p->depth_mult = (int32_t)(w->dims[3] / in->dims[3]);
    p->filter_h = (int32_t)w->dims[1];
    p->filter_w = (int32_t)w->dims[2];
    p->stride_h = o->stride_h;
    p->stride_w = o->stride_w;
    p->dil_h = o->dil_h;
    p->dil_w = o->dil_w;
    p->pad_h = conv_pad(o->stride_h, o->dil_h, in->dims[1], w->dims[1], out->dims[1]);
    p->pad_w = conv_pad(o->stride_w, o->dil_w, in->dims[2], w->dims[2], out->dims[2]);
    op_act_range_f32(o->act, &p->act_min, &p->act_max);
    if (conv_is_hybrid(g, op)) {
        p->w_scales = w->q.scale;
        op->scratch_bytes = (size_t)ir_tensor_numel(in) / (size_t)p->batches; /* one quantized batch */
    } else if (in->dtype != IR_F32) {
        int rc = op_channel_multipliers(g, op, in, w, out, (int)w->dims[3], &p->mult, &p->shift, d);
        if (rc) return rc;
        p->in_offset = -op_zp(in);
        p->out_offset = op_zp(out);
        op_act_range_q(o->act, out, &p->act_qmin, &p->act_qmax);
    }
    op->params = p;
    return 0;
}

static void eval(const Graph *g, const IrOp *op, const void *const *in, void *const *out, void *scratch) {
    const rt_dwconv_params *p = op->params;
    if (conv_is_hybrid(g, op)) {
        rt_depthwise_conv_2d_hybrid(p, in[0], in[1], in[2], out[0], scratch);
        return;
    }
    switch (g->tensors[op->in[0]].dtype) {
    case IR_I8: rt_depthwise_conv_2d_i8(p, in[0], in[1], in[2], out[0]); break;
    case IR_I16: rt_depthwise_conv_2d_i16(p, in[0], in[1], in[2], out[0]); break;
    default: rt_depthwise_conv_2d_f32(p, in[0], in[1], in[2], out[0]); break;
    }
}

static int emit_c(CgCtx *cg, const Graph *g, const IrOp *op, Diag *d) {
    (void)d;
    const rt_dwconv_params *p = op->params;
    IrDType dt = g->tensors[op->in[0]].dtype;
    if (p->mult) {
        cg_array_i32(cg, "mult", p->mult, (int64_t)p->in_c * p->depth_mult);
        cg_array_i32(cg, "shift", p->shift, (int64_t)p->in_c * p->depth_mult);
    }
    if (p->w_scales) cg_array_f32(cg, "w_scales", p->w_scales, (int64_t)p->in_c * p->depth_mult);
    cg_open(cg, "static const rt_dwconv_params p = {");
    cg_line(cg, ".batches = %d, .in_h = %d, .in_w = %d, .in_c = %d,", p->batches, p->in_h, p->in_w, p->in_c);
    cg_line(cg, ".out_h = %d, .out_w = %d, .depth_mult = %d,", p->out_h, p->out_w, p->depth_mult);
    cg_line(cg, ".filter_h = %d, .filter_w = %d,", p->filter_h, p->filter_w);
    cg_line(cg, ".stride_h = %d, .stride_w = %d, .dil_h = %d, .dil_w = %d, .pad_h = %d, .pad_w = %d,", p->stride_h,
            p->stride_w, p->dil_h, p->dil_w, p->pad_h, p->pad_w);
    cg_line(cg, ".act_min = %s, .act_max = %s,", cg_f32(cg, p->act_min), cg_f32(cg, p->act_max));
    cg_line(cg, ".in_offset = %d, .out_offset = %d,", p->in_offset, p->out_offset);
    cg_line(cg, ".mult = %s, .shift = %s,", p->mult ? "mult" : "NULL", p->mult ? "shift" : "NULL");
    cg_line(cg, ".act_qmin = %d, .act_qmax = %d,", p->act_qmin, p->act_qmax);
    cg_line(cg, ".w_scales = %s", p->w_scales ? "w_scales" : "NULL");
    cg_close(cg, "};");
    if (conv_is_hybrid(g, op))
        cg_line(cg, "rt_depthwise_conv_2d_hybrid(&p, %s, %s, %s, %s, (int8_t *)%s);", cg_in(cg, op, 0),
                cg_in(cg, op, 1), cg_in(cg, op, 2), cg_out(cg, op, 0), cg_scratch(cg, op));
    else
        cg_line(cg, "%s(&p, %s, %s, %s, %s);",
                dt == IR_I8    ? "rt_depthwise_conv_2d_i8"
                : dt == IR_I16 ? "rt_depthwise_conv_2d_i16"
                               : "rt_depthwise_conv_2d_f32",
                cg_in(cg, op, 0), cg_in(cg, op, 1), cg_in(cg, op, 2), cg_out(cg, op, 0));
    return 0;
}

static int64_t macs(const Graph *g, const IrOp *op) {
    const IrTensor *w = &g->tensors[op->in[1]], *out = &g->tensors[op->out[0]];
    return ir_tensor_numel(out) * w->dims[1] * w->dims[2];
}

const OpDef op_def_depthwise_conv_2d = {"DEPTHWISE_CONV_2D", parse, check, prepare, eval, emit_c, macs, 16};
