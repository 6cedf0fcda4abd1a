/* op_conv_2d.c - CONV_2D: 2-D convolution, NHWC input, OHWI filter
 * [out_c, fh, fw, in_c / groups], optional bias [out_c], SAME/VALID padding
 * with strides and dilation, fused activation.
 * f32; int8 (int8 filter per-tensor or per-channel along dim 0, int32 bias);
 * 16x8 (int16 activations, int8 filter, int64 bias); hybrid: f32 input,
 * output and bias with an int8 filter, the input quantized per batch at run
 * time (dynamic-range quantized models); bf16/fp16 filter with float input,
 * output and bias (what pass precision makes of a float conv under
 * --precision bf16/fp16). */
#include "conv_common.h"

static int is_half(const Graph *g, const IrOp *op) {
    IrDType w = g->tensors[op->in[1]].dtype;
    return g->tensors[op->in[0]].dtype == IR_F32 && (w == IR_BF16 || w == IR_F16);
}

static int parse(Graph *g, IrOp *op, const FbTable *opts, Diag *d) {
    ConvOptions *o = ir_alloc(g, sizeof *o);
    int8_t padding = 0, act = 0, bias_type = 0;
    int32_t sw = 1, sh = 1, dw = 1, dh = 1;
    if (!o) return diag_internal(d, "out of memory");
    op->options = o;
    if (opts && (fb_i8(opts, TFL_CONV2D_OPTIONS_PADDING, 0, &padding, d) ||
                 fb_i32(opts, TFL_CONV2D_OPTIONS_STRIDE_W, 0, &sw, d) ||
                 fb_i32(opts, TFL_CONV2D_OPTIONS_STRIDE_H, 0, &sh, d) ||
                 fb_i8(opts, TFL_CONV2D_OPTIONS_FUSED_ACTIVATION_FUNCTION, 0, &act, d) ||
                 fb_i32(opts, TFL_CONV2D_OPTIONS_DILATION_W_FACTOR, 1, &dw, d) ||
                 fb_i32(opts, TFL_CONV2D_OPTIONS_DILATION_H_FACTOR, 1, &dh, d) ||
                 fb_i8(opts, TFL_CONV2D_OPTIONS_QUANTIZED_BIAS_TYPE, 0, &bias_type, d)))
        return DIAG_USER;
    if (!opts) return op_error(d, op, "missing Conv2DOptions");
    if (conv_parse_padding(op, padding, d) || conv_check_factors(op, sh, sw, dh, dw, d)) return DIAG_USER;
    /* quantized_bias_type only restates the bias tensor's own type, which check() validates. */
    (void)bias_type;
    o->padding = padding;
    o->stride_w = sw;
    o->stride_h = sh;
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
    if (w->rank != 4) return op_error(d, op, "filter '%s' must have rank 4 (OHWI), got %d", w->name, w->rank);
    int64_t out_c = w->dims[0], filter_c = w->dims[3];
    if (filter_c <= 0 || in->dims[3] % filter_c != 0)
        return op_error(d, op, "input depth %lld is not a multiple of the filter depth %lld", (long long)in->dims[3],
                        (long long)filter_c);
    int64_t groups = in->dims[3] / filter_c;
    if (groups <= 0 || out_c % groups != 0)
        return op_error(d, op, "output depth %lld is not a multiple of the group count %lld", (long long)out_c,
                        (long long)groups);
    if (b && (b->rank != 1 || b->dims[0] != out_c))
        return op_error(d, op, "bias '%s' must have shape [%lld]", b->name, (long long)out_c);
    if (is_half(g, op) ? op_expect_dtype(g, op, 0, 2, DT(F32), d) : conv_check_types(g, op, 0, out_c, d))
        return DIAG_USER;
    /* TFLite runs grouped hybrid convolutions with its per-channel kernel, which
     * reads one scale per output channel and an input offset it only allocates
     * for distinct per-channel scales. */
    if (conv_is_hybrid(g, op) && groups != 1 && !conv_distinct_scales(w))
        return op_error(d, op, "grouped hybrid convolution with filter '%s' needs distinct per-channel scales",
                        w->name);
    return conv_set_out_shape(g, op, o, out_c, d);
}

static int prepare(Graph *g, IrOp *op, Diag *d) {
    const ConvOptions *o = op->options;
    const IrTensor *in = op_cin(g, op, 0), *w = op_cin(g, op, 1), *out = &g->tensors[op->out[0]];
    rt_conv_params *p = op_new_params(g, rt_conv_params);
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
    p->filter_c = (int32_t)w->dims[3];
    p->stride_h = o->stride_h;
    p->stride_w = o->stride_w;
    p->dil_h = o->dil_h;
    p->dil_w = o->dil_w;
    p->pad_h = conv_pad(o->stride_h, o->dil_h, in->dims[1], w->dims[1], out->dims[1]);
    p->pad_w = conv_pad(o->stride_w, o->dil_w, in->dims[2], w->dims[2], out->dims[2]);
    op_act_range_f32(o->act, &p->act_min, &p->act_max);
    if (is_half(g, op)) {
        p->half_type = w->dtype == IR_BF16 ? RT_BF16 : RT_F16;
    } else if (conv_is_hybrid(g, op)) {
        p->w_scale = w->q.scale[0];
        p->w_scales = conv_distinct_scales(w);
        op->scratch_bytes = (size_t)ir_tensor_numel(in) / (size_t)p->batches; /* one quantized batch */
    } else if (in->dtype != IR_F32) {
        int rc = op_channel_multipliers(g, op, in, w, out, p->out_c, &p->mult, &p->shift, d);
        if (rc) return rc;
        if (op->float_rq && in->dtype == IR_I8 && op_float_factors(g, in, w, out, p->out_c, &p->fscale, d))
            return DIAG_INTERNAL;
        p->in_offset = -op_zp(in);
        p->out_offset = op_zp(out);
        op_act_range_q(o->act, out, &p->act_qmin, &p->act_qmax);
    }
    op->params = p;
    return 0;
}

static void eval(const Graph *g, const IrOp *op, const void *const *in, void *const *out, void *scratch) {
    const rt_conv_params *p = op->params;
    if (conv_is_hybrid(g, op)) {
        rt_conv_2d_hybrid(p, in[0], in[1], in[2], out[0], scratch);
        return;
    }
    if (is_half(g, op)) {
        rt_conv_2d_half(p, in[0], in[1], in[2], out[0]);
        return;
    }
    switch (g->tensors[op->in[0]].dtype) {
    case IR_I8: rt_conv_2d_i8(p, in[0], in[1], in[2], out[0]); break;
    case IR_I16: rt_conv_2d_i16(p, in[0], in[1], in[2], out[0]); break;
    default: rt_conv_2d_f32(p, in[0], in[1], in[2], out[0]); break;
    }
}

static int emit_c(CgCtx *cg, const Graph *g, const IrOp *op, Diag *d) {
    (void)d;
    const rt_conv_params *p = op->params;
    IrDType dt = g->tensors[op->in[0]].dtype;
    if (p->mult) {
        cg_array_i32(cg, "mult", p->mult, p->out_c);
        cg_array_i32(cg, "shift", p->shift, p->out_c);
    }
    if (p->w_scales) cg_array_f32(cg, "w_scales", p->w_scales, p->out_c);
    if (p->fscale) cg_array_f32(cg, "fscale", p->fscale, p->out_c);
    cg_open(cg, "static const rt_conv_params p = {");
    cg_line(cg, ".batches = %d, .in_h = %d, .in_w = %d, .in_c = %d,", p->batches, p->in_h, p->in_w, p->in_c);
    cg_line(cg, ".out_h = %d, .out_w = %d, .out_c = %d,", p->out_h, p->out_w, p->out_c);
    cg_line(cg, ".filter_h = %d, .filter_w = %d, .filter_c = %d,", p->filter_h, p->filter_w, p->filter_c);
    cg_line(cg, ".stride_h = %d, .stride_w = %d, .dil_h = %d, .dil_w = %d, .pad_h = %d, .pad_w = %d,", p->stride_h,
            p->stride_w, p->dil_h, p->dil_w, p->pad_h, p->pad_w);
    cg_line(cg, ".act_min = %s, .act_max = %s,", cg_f32(cg, p->act_min), cg_f32(cg, p->act_max));
    cg_line(cg, ".in_offset = %d, .out_offset = %d,", p->in_offset, p->out_offset);
    cg_line(cg, ".mult = %s, .shift = %s,", p->mult ? "mult" : "NULL", p->mult ? "shift" : "NULL");
    cg_line(cg, ".act_qmin = %d, .act_qmax = %d,", p->act_qmin, p->act_qmax);
    cg_line(cg, ".w_scale = %s, .w_scales = %s%s", cg_f32(cg, p->w_scale), p->w_scales ? "w_scales" : "NULL",
            is_half(g, op) || p->fscale ? "," : "");
    if (p->fscale) cg_line(cg, ".fscale = fscale /* float requantization (mpcc --precision int8) */");
    if (is_half(g, op)) cg_line(cg, ".half_type = %s", p->half_type == RT_BF16 ? "RT_BF16" : "RT_F16");
    cg_close(cg, "};");
    if (conv_is_hybrid(g, op))
        cg_line(cg, "rt_conv_2d_hybrid(&p, %s, %s, %s, %s, (int8_t *)%s);", cg_in(cg, op, 0), cg_in(cg, op, 1),
                cg_in(cg, op, 2), cg_out(cg, op, 0), cg_scratch(cg, op));
    else
        cg_line(cg, "%s(&p, %s, %s, %s, %s);",
                is_half(g, op) ? "rt_conv_2d_half" : dt == IR_I8 ? "rt_conv_2d_i8" : dt == IR_I16 ? "rt_conv_2d_i16"
                                                                                      : "rt_conv_2d_f32",
                cg_in(cg, op, 0),
                cg_in(cg, op, 1), cg_in(cg, op, 2), cg_out(cg, op, 0));
    return 0;
}

static int64_t macs(const Graph *g, const IrOp *op) {
    const IrTensor *w = &g->tensors[op->in[1]], *out = &g->tensors[op->out[0]];
    return ir_tensor_numel(out) * w->dims[1] * w->dims[2] * w->dims[3];
}

const OpDef op_def_conv_2d = {"CONV_2D", parse, check, prepare, eval, emit_c, macs, 0};
