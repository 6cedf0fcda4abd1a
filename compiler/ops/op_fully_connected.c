/* op_fully_connected.c - FULLY_CONNECTED: out = act(in . W^T + bias).
 * input [..., K] is treated as [batches, K]; weights [N, K]; bias [N].
 * f32; int8 (weights int8, bias int32, per-tensor or per-channel scales);
 * int16 activations with int8 weights and int64 bias (16x8); hybrid: f32
 * input/output and bias with int8 weights (per-tensor or per-channel scales),
 * the input quantized per row at run time (dynamic-range quantized models);
 * INT4 weights are int8 here (unpacked at import, tfl_import.c). */
#include "conv_common.h"
#include "op_util.h"

typedef struct FcOptions {
    int act;
    int keep_num_dims;
    int asymmetric; /* asymmetric_quantize_inputs: only the hybrid kernel reads it */
} FcOptions;

static int is_hybrid(const Graph *g, const IrOp *op) {
    return g->tensors[op->in[0]].dtype == IR_F32 && g->tensors[op->in[1]].dtype == IR_I8;
}

/* bf16/f16 weights with float activations: what pass precision makes of a float FC under --precision
 * bf16/fp16 (TFLite itself widens such weights with a DEQUANTIZE first). */
static int is_half(const Graph *g, const IrOp *op) {
    IrDType w = g->tensors[op->in[1]].dtype;
    return g->tensors[op->in[0]].dtype == IR_F32 && (w == IR_BF16 || w == IR_F16);
}

/* int8 input and weights with a float output: an int8 FC that pass precision let write floats, its
 * DEQUANTIZE folded in (op->float_rq; a model file cannot ask for it). */
static int is_i8_f32(const Graph *g, const IrOp *op) {
    return op->float_rq && g->tensors[op->in[0]].dtype == IR_I8 && g->tensors[op->out[0]].dtype == IR_F32;
}

static int parse(Graph *g, IrOp *op, const FbTable *opts, Diag *d) {
    FcOptions *o = ir_alloc(g, sizeof *o);
    int8_t act = 0, fmt = 0;
    int keep = 0, asym = 0;
    if (!o) return diag_internal(d, "out of memory");
    op->options = o;
    if (!opts) return 0;
    if (fb_i8(opts, TFL_FULLY_CONNECTED_OPTIONS_FUSED_ACTIVATION_FUNCTION, 0, &act, d) ||
        fb_i8(opts, TFL_FULLY_CONNECTED_OPTIONS_WEIGHTS_FORMAT, 0, &fmt, d) ||
        fb_bool(opts, TFL_FULLY_CONNECTED_OPTIONS_KEEP_NUM_DIMS, 0, &keep, d) ||
        fb_bool(opts, TFL_FULLY_CONNECTED_OPTIONS_ASYMMETRIC_QUANTIZE_INPUTS, 0, &asym, d))
        return DIAG_USER;
    if (fmt != 0) return op_error(d, op, "unsupported weights_format %d (only DEFAULT)", fmt);
    o->keep_num_dims = keep;
    o->asymmetric = asym;
    return op_parse_act(op, act, &o->act, d);
}

static int check(Graph *g, IrOp *op, Diag *d) {
    const FcOptions *o = op->options;
    if (op_expect_io(op, 2, 3, 1, d)) return DIAG_USER;
    const IrTensor *in = op_cin(g, op, 0), *w = op_cin(g, op, 1), *b = op_cin(g, op, 2);
    if (op_expect_dtype(g, op, 0, 0, DT(F32) | DT(I8) | DT(I16), d) || (!is_i8_f32(g, op) && op_expect_same_dtype(g, op, 0, d)))
        return DIAG_USER;
    if (in->dtype == IR_F32) {
        if (w->dtype != IR_F32 && w->dtype != IR_I8 && !is_half(g, op))
            return op_error(d, op, "hybrid float/%s weights '%s' are not supported (only int8 weights)",
                            ir_dtype_name(w->dtype), w->name);
        if (op_expect_dtype(g, op, 0, 2, DT(F32), d)) return DIAG_USER;
        if (is_hybrid(g, op) && op_expect_quantized(g, op, 0, 1, d)) return DIAG_USER;
    } else {
        if (op_expect_dtype(g, op, 0, 1, DT(I8), d) ||
            op_expect_dtype(g, op, 0, 2, in->dtype == IR_I8 ? DT(I32) : DT(I64), d) ||
            op_expect_quantized(g, op, 0, 0, d) || op_expect_quantized(g, op, 0, 1, d) ||
            (!is_i8_f32(g, op) && op_expect_quantized(g, op, 1, 0, d)))
            return DIAG_USER;
    }
    if (w->q.block && !is_hybrid(g, op))
        return op_error(d, op, "block-wise quantized weights '%s' are supported only with float input and output "
                        "(the hybrid kernel)", w->name);
    if (w->dtype == IR_I8 && !w->q.block && w->q.count > 1 && (w->q.dim != 0 || w->q.count != w->dims[0]))
        return op_error(d, op, "weights '%s': per-channel quantization must be along dimension 0", w->name);
    if (w->rank != 2) return op_error(d, op, "weights '%s' must have rank 2, got %d", w->name, w->rank);
    int64_t k = w->dims[1], n = w->dims[0];
    int64_t numel = ir_tensor_numel(in);
    if (in->rank < 1 || k <= 0 || numel % k != 0)
        return op_error(d, op, "input '%s' has %lld elements, not a multiple of the weights' depth %lld", in->name,
                        (long long)numel, (long long)k);
    if (b && (b->rank != 1 || b->dims[0] != n))
        return op_error(d, op, "bias '%s' must have shape [%lld]", b->name, (long long)n);
    int64_t dims[IR_MAX_RANK];
    if (o->keep_num_dims) {
        for (int i = 0; i < in->rank; i++) dims[i] = in->dims[i];
        dims[in->rank - 1] = n;
        return op_set_out_shape(g, op, 0, in->rank, dims, d);
    }
    dims[0] = numel / k;
    dims[1] = n;
    return op_set_out_shape(g, op, 0, 2, dims, d);
}

static int prepare(Graph *g, IrOp *op, Diag *d) {
    const FcOptions *o = op->options;
    const IrTensor *in = op_cin(g, op, 0), *w = op_cin(g, op, 1), *out = &g->tensors[op->out[0]];
    rt_fc_params *p = op_new_params(g, rt_fc_params);
    if (!p) return diag_internal(d, "out of memory");
    p->in_depth = (int32_t)w->dims[1];
    p->out_depth = (int32_t)w->dims[0];
    p->batches = (int32_t)(ir_tensor_numel(in) / w->dims[1]);
    op_act_range_f32(o->act, &p->act_min, &p->act_max);
    if (is_half(g, op)) {
        p->half_type = w->dtype == IR_BF16 ? RT_BF16 : RT_F16;
    } else if (is_hybrid(g, op)) {
        p->asymmetric = o->asymmetric;
        p->w_scale = w->q.scale[0];
        if (w->q.count > 1) p->w_scales = w->q.scale;
        if (w->q.block) {
            /* TFLite's block-wise kernel quantizes every input row asymmetrically, whatever the option says
             * (measured on ai-edge-litert: docs/int4.md). */
            p->block = w->q.block;
            p->asymmetric = 1;
        }
        op->scratch_bytes = (size_t)p->in_depth; /* one quantized input row */
    } else if (is_i8_f32(g, op)) { /* float results: sum x s_in x s_w per channel, no output scale */
        int nm = w->q.count > 1 ? w->q.count : 1;
        if (op_float_factors(g, in, w, NULL, nm, &p->fscale, d)) return DIAG_INTERNAL;
        p->per_channel = nm > 1;
        p->in_offset = -op_zp(in);
        p->w_offset = -op_zp(w);
    } else if (in->dtype != IR_F32) {
        int nm = w->q.count > 1 ? w->q.count : 1;
        int rc = op_channel_multipliers(g, op, in, w, out, nm, &p->mult, &p->shift, d);
        if (rc) return rc;
        p->per_channel = nm > 1;
        if (op->float_rq && op_float_factors(g, in, w, out, nm, &p->fscale, d)) return DIAG_INTERNAL;
        p->in_offset = -op_zp(in);
        p->w_offset = -op_zp(w);
        p->out_offset = op_zp(out);
        op_act_range_q(o->act, out, &p->act_qmin, &p->act_qmax);
    }
    op->params = p;
    return 0;
}

static void eval(const Graph *g, const IrOp *op, const void *const *in, void *const *out, void *scratch) {
    const rt_fc_params *p = op->params;
    if (is_hybrid(g, op)) {
        rt_fully_connected_hybrid(p, in[0], in[1], in[2], out[0], scratch);
        return;
    }
    if (is_half(g, op)) {
        rt_fully_connected_half(p, in[0], in[1], in[2], out[0]);
        return;
    }
    if (is_i8_f32(g, op)) {
        rt_fully_connected_i8_f32(p, in[0], in[1], in[2], out[0]);
        return;
    }
    switch (g->tensors[op->in[0]].dtype) {
    case IR_I8: rt_fully_connected_i8(p, in[0], in[1], in[2], out[0]); break;
    case IR_I16: rt_fully_connected_i16(p, in[0], in[1], in[2], out[0]); break;
    default: rt_fully_connected_f32(p, in[0], in[1], in[2], out[0]); break;
    }
}

static const char *kernel_name(const Graph *g, const IrOp *op) {
    if (is_hybrid(g, op)) return "rt_fully_connected_hybrid";
    if (is_half(g, op)) return "rt_fully_connected_half";
    if (is_i8_f32(g, op)) return "rt_fully_connected_i8_f32";
    switch (g->tensors[op->in[0]].dtype) {
    case IR_I8: return "rt_fully_connected_i8";
    case IR_I16: return "rt_fully_connected_i16";
    default: return "rt_fully_connected_f32";
    }
}

/* The params and the call of `kernel` (the reference kernel_name(), or rt_opt_fc_hybrid / rt_opt_fc_hybrid_w4:
 * SCHED_FC_HYBRID, the latter on the 4-bit weights packed by pass schedule). */
static void fc_emit_params(CgCtx *cg, const Graph *g, const IrOp *op) {
    const rt_fc_params *p = op->params;
    int nm = p->per_channel ? p->out_depth : 1;
    if (p->mult) {
        cg_array_i32(cg, "mult", p->mult, nm);
        cg_array_i32(cg, "shift", p->shift, nm);
    }
    if (p->w_scales) cg_array_f32(cg, "w_scales", p->w_scales, p->block ? p->out_depth * (p->in_depth / p->block)
                                                                         : p->out_depth);
    if (p->fscale) cg_array_f32(cg, "fscale", p->fscale, nm);
    cg_open(cg, "static const rt_fc_params p = {");
    cg_line(cg, ".batches = %d, .in_depth = %d, .out_depth = %d,", p->batches, p->in_depth, p->out_depth);
    cg_line(cg, ".act_min = %s, .act_max = %s,", cg_f32(cg, p->act_min), cg_f32(cg, p->act_max));
    cg_line(cg, ".in_offset = %d, .w_offset = %d, .out_offset = %d,", p->in_offset, p->w_offset, p->out_offset);
    cg_line(cg, ".per_channel = %d, .mult = %s, .shift = %s,", p->per_channel, p->mult ? "mult" : "NULL",
            p->mult ? "shift" : "NULL");
    cg_line(cg, ".act_qmin = %d, .act_qmax = %d%s", p->act_qmin, p->act_qmax,
            is_hybrid(g, op) || is_half(g, op) || p->fscale ? "," : "");
    if (p->fscale) cg_line(cg, ".fscale = fscale /* float requantization (mpcc --precision int8) */");
    if (is_half(g, op)) cg_line(cg, ".half_type = %s", p->half_type == RT_BF16 ? "RT_BF16" : "RT_F16");
    if (is_hybrid(g, op))
        cg_line(cg, ".asymmetric = %d, .w_scale = %s, .w_scales = %s%s", p->asymmetric, cg_f32(cg, p->w_scale),
                p->w_scales ? "w_scales" : "NULL", p->block ? "," : "");
    if (p->block) cg_line(cg, ".block = %d /* block-wise scales: out_depth x (in_depth / block) */", p->block);
    cg_close(cg, "};");
}

int fc_emit_c(CgCtx *cg, const Graph *g, const IrOp *op, const char *kernel) {
    fc_emit_params(cg, g, op);
    if (is_hybrid(g, op))
        cg_line(cg, "%s(&p, %s, %s, %s, %s, (int8_t *)%s);", kernel, cg_in(cg, op, 0),
                op->sched.kind == SCHED_FC_HYBRID && op->sched.packed_w >= 0 ? cg_tensor(cg, op->sched.packed_w, 1)
                                                                             : cg_in(cg, op, 1),
                cg_in(cg, op, 2), cg_out(cg, op, 0), cg_scratch(cg, op));
    else
        cg_line(cg, "%s(&p, %s, %s, %s, %s);", kernel, cg_in(cg, op, 0), cg_in(cg, op, 1), cg_in(cg, op, 2),
                cg_out(cg, op, 0));
    return 0;
}

/* SCHED_FC_HYBRID compiled for threads: rt_opt_fc_hybrid_par (int8 weights) or rt_opt_fc_hybrid_w4_par (4-bit
 * weights kept packed) on `par` (the run's parallel-for, or NULL where the op is too small to split). */
int fc_emit_c_par(CgCtx *cg, const Graph *g, const IrOp *op, const char *par) {
    const int w4 = op->sched.packed_w >= 0;
    fc_emit_params(cg, g, op);
    cg_line(cg, "rt_opt_fc_hybrid%s_par(&p, %s, %s, %s, %s, (int8_t *)%s, %d, %s);", w4 ? "_w4" : "", cg_in(cg, op, 0),
            w4 ? cg_tensor(cg, op->sched.packed_w, 1) : cg_in(cg, op, 1), cg_in(cg, op, 2), cg_out(cg, op, 0),
            cg_scratch(cg, op), op->sched.slots, par);
    return 0;
}

static int emit_c(CgCtx *cg, const Graph *g, const IrOp *op, Diag *d) {
    (void)d;
    return fc_emit_c(cg, g, op, kernel_name(g, op));
}

static int64_t macs(const Graph *g, const IrOp *op) {
    const IrTensor *in = &g->tensors[op->in[0]], *w = &g->tensors[op->in[1]];
    return ir_tensor_numel(in) / w->dims[1] * w->dims[0] * w->dims[1];
}

const OpDef op_def_fully_connected = {"FULLY_CONNECTED", parse, check, prepare, eval, emit_c, macs, 0};
