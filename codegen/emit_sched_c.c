/* emit_sched_c.c - the C emitter for scheduled ops (op->sched.kind != SCHED_REF).
 *
 * One emitter per kernel class, not per op: the scheduler has already lowered
 * FULLY_CONNECTED / CONV_2D / DEPTHWISE_CONV_2D to GEMM, conv-as-GEMM or
 * depthwise, so this file writes a designated-initializer params struct and
 * one call into runtime/rt_opt.h. The op files keep only their reference
 * emitters. */
#include "emit_sched_c.h"

#include "activation_common.h"
#include "conv_common.h"
#include "elementwise_common.h"
#include "logic_common.h"
#include "shape_common.h"
#include "ops.h"
#include "cortex_m/helium/rt_mve.h"

#include <stdio.h>

/* The parallel-for argument of a threaded kernel: the run's `par` when the
 * code was compiled for threads (--threads) and the op has enough work to
 * be worth a fork-join (~1 us at 1 thread: 200k GEMM MACs, each MAC weighted
 * by the op table's mac_cost; mpcc --threads-min-macs N sets another bound), else NULL. */
static int64_t par_min_macs(const Graph *g) {
    const Graph *root = g->root ? g->root : g;
    return root->par_min_macs > 0 ? root->par_min_macs : 200000;
}

static const char *par_arg(const Graph *g, const IrOp *op) {
    const OpDef *def = op_def(op->kind);
    int64_t macs = def && def->macs ? def->macs(g, op) * (def->mac_cost ? def->mac_cost : 1) : 0;
    return g->threads > 1 && macs >= par_min_macs(g) ? "par" : "NULL";
}

/* The same for the SDPA kernel: its work with every cache row unmasked (scores and weighted sums). */
static const char *sdpa_par_arg(const Graph *g, const rt_opt_sdpa_params *p) {
    int64_t macs = 2 * (int64_t)p->batch * p->q_len * p->heads * p->kv_len * p->head_dim;
    return g->threads > 1 && p->slots > 1 && macs >= par_min_macs(g) ? "par" : "NULL";
}

/* The runtime's storage type constant of tensor t (16-bit activations: pass half_storage). */
static const char *st(const Graph *g, int t) {
    IrDType dt = t >= 0 ? g->tensors[t].dtype : IR_F32;
    return dt == IR_BF16 ? "RT_BF16" : dt == IR_F16 ? "RT_F16" : dt == IR_I8 ? "RT_I8" : "RT_F32";
}

static int half_act(const Graph *g, int t) {
    return t >= 0 && !g->tensors[t].data && (g->tensors[t].dtype == IR_BF16 || g->tensors[t].dtype == IR_F16);
}

/* 1 when any activation op reads (first n inputs) or writes is stored in 16 bits. */
static int typed_op(const Graph *g, const IrOp *op, int n) {
    int any = op->n_out > 0 && half_act(g, op->out[0]);
    for (int k = 0; k < n && k < op->n_in; k++) any |= half_act(g, op->in[k]);
    return any;
}

static void emit_gemm_fields(CgCtx *cg, const Graph *g, const IrOp *op, int32_t m, int32_t n, int32_t k,
                             int32_t lda, int32_t ldc, float act_min, float act_max, int32_t out_offset,
                             int32_t qmin, int32_t qmax, int single_rounding) {
    int s8 = g->tensors[op->in[0]].dtype == IR_I8;
    cg_line(cg, ".m = %d, .n = %d, .k = %d, .lda = %d, .ldc = %d,", m, n, k, lda, ldc);
    if (ir_f16_weights_as_stored(g, op))
        cg_line(cg, ".f32_inputs = 1, /* the model's float16 weights, kept 16-bit: its f32 inputs as they are */");
    if (s8 && g->tensors[op->out[0]].dtype == IR_F32) { /* float results (pass precision folded the DEQUANTIZE) */
        cg_line(cg, ".act_min = %s, .act_max = %s,", cg_f32(cg, act_min), cg_f32(cg, act_max));
        cg_line(cg, ".rounding = RT_OPT_ROUND_FLOAT, .fscale = fscale, .out_f32 = 1, .rows = %d,", op->sched.rows);
        cg_line(cg, ".slots = %d, .slot_bytes = %lld%s", op->sched.slots,
                (long long)(op->scratch_bytes / (size_t)(op->sched.slots > 0 ? op->sched.slots : 1)),
                op->sched.a64_init ? ", .a64_init = 1" : "");
    } else if (s8) {
        cg_line(cg, ".out_offset = %d, .act_qmin = %d, .act_qmax = %d,", out_offset, qmin, qmax);
        if (op->sched.fscale)
            cg_line(cg, ".rounding = RT_OPT_ROUND_FLOAT, .mult = mult, .shift = shift, .fscale = fscale, .rows = %d,",
                    op->sched.rows);
        else
            cg_line(cg, ".rounding = %s, .mult = mult, .shift = shift, .rows = %d,",
                    single_rounding ? "RT_OPT_ROUND_SINGLE" : "RT_OPT_ROUND_DOUBLE", op->sched.rows);
        cg_line(cg, ".slots = %d, .slot_bytes = %lld%s", op->sched.slots,
                (long long)(op->scratch_bytes / (size_t)(op->sched.slots > 0 ? op->sched.slots : 1)),
                op->sched.a64_init ? ", .a64_init = 1" : "");
    } else if (op->scratch_bytes) {
        cg_line(cg, ".act_min = %s, .act_max = %s,", cg_f32(cg, act_min), cg_f32(cg, act_max));
        cg_line(cg, ".slots = %d, .slot_bytes = %lld", op->sched.slots,
                (long long)(op->scratch_bytes / (size_t)(op->sched.slots > 0 ? op->sched.slots : 1)));
    } else {
        cg_line(cg, ".act_min = %s, .act_max = %s", cg_f32(cg, act_min), cg_f32(cg, act_max));
    }
}

static void emit_requant_arrays(CgCtx *cg, const Graph *g, const IrOp *op) {
    if (g->tensors[op->in[0]].dtype != IR_I8) return;
    if (g->tensors[op->out[0]].dtype != IR_F32) {
        cg_array_i32(cg, "mult", op->sched.mult, op->sched.n_padded);
        cg_array_i32(cg, "shift", op->sched.shift, op->sched.n_padded);
    }
    if (op->sched.fscale) cg_array_f32(cg, "fscale", op->sched.fscale, op->sched.n_padded);
}

static int emit_gemm(CgCtx *cg, const Graph *g, const IrOp *op) {
    const rt_fc_params *p = op->params;
    int s8 = g->tensors[op->in[0]].dtype == IR_I8;
    /* a fused ADD (pass fuse_add, float results): its clamp after the residual */
    const rt_binary_params *add = op->sched.post_add >= 0 ? g->ops[op->sched.post_add].params : NULL;
    emit_requant_arrays(cg, g, op);
    cg_open(cg, "static const rt_opt_gemm_params p = {");
    emit_gemm_fields(cg, g, op, p->batches, p->out_depth, p->in_depth, p->in_depth, p->out_depth,
                     add ? add->act_min : p->act_min, add ? add->act_max : p->act_max, p->out_offset, p->act_qmin,
                     p->act_qmax, 1);
    cg_close(cg, "};");
    IrDType wdt = g->tensors[op->in[1]].dtype;
    if (typed_op(g, op, 1))
        cg_line(cg, "rt_opt_fc_typed(&p, %s, %s, %s, %s, %s, %s, %s, %s);", st(g, op->in[1]), st(g, op->in[0]),
                cg_in(cg, op, 0), cg_tensor(cg, op->sched.packed_w, 1), cg_tensor(cg, op->sched.packed_b, 1),
                st(g, op->out[0]), cg_out(cg, op, 0), cg_scratch(cg, op));
    else if (wdt == IR_BF16 || wdt == IR_F16)
        cg_line(cg, "rt_opt_fc_half(&p, %s, %s, %s, %s, %s, %s);", wdt == IR_BF16 ? "RT_BF16" : "RT_F16",
                cg_in(cg, op, 0), cg_tensor(cg, op->sched.packed_w, 1), cg_tensor(cg, op->sched.packed_b, 1),
                cg_out(cg, op, 0), cg_scratch(cg, op));
    else if (s8 && g->tensors[op->out[0]].dtype == IR_F32)
        cg_line(cg, "rt_opt_gemm_s8_f32(&p, %s, %s, %s, %s, %s, %s, %s);", cg_in(cg, op, 0),
                cg_tensor(cg, op->sched.packed_w, 1), cg_tensor(cg, op->sched.packed_b, 1), cg_out(cg, op, 0),
                op->sched.post_add >= 0 ? cg_in(cg, op, op->n_in - 1) : "NULL", cg_scratch(cg, op), par_arg(g, op));
    else if (s8)
        cg_line(cg, "rt_opt_gemm_s8(&p, %s, %s, %s, %s, %s, %s);", cg_in(cg, op, 0),
                cg_tensor(cg, op->sched.packed_w, 1), cg_tensor(cg, op->sched.packed_b, 1), cg_out(cg, op, 0),
                cg_scratch(cg, op), par_arg(g, op));
    else
        cg_line(cg, "rt_opt_fc_f32(&p, %s, %s, %s, %s, %s);", cg_in(cg, op, 0), cg_tensor(cg, op->sched.packed_w, 1),
                cg_tensor(cg, op->sched.packed_b, 1), cg_out(cg, op, 0), par_arg(g, op));
    return 0;
}

static void dwconv_emit_params(CgCtx *cg, const rt_dwconv_params *p, int s8, const char *name);

static int emit_conv(CgCtx *cg, const Graph *g, const IrOp *op) {
    const rt_conv_params *p = op->params;
    int s8 = g->tensors[op->in[0]].dtype == IR_I8;
    int32_t k = p->filter_h * p->filter_w * p->in_c;
    emit_requant_arrays(cg, g, op);
    cg_open(cg, "static const rt_opt_conv_params p = {");
    cg_open(cg, ".gemm = {");
    emit_gemm_fields(cg, g, op, p->out_h * p->out_w, p->out_c, k, op->sched.direct ? p->in_c : k, p->out_c,
                     p->act_min, p->act_max, p->out_offset, p->act_qmin, p->act_qmax, 0);
    cg_close(cg, "},");
    cg_line(cg, ".batches = %d, .in_h = %d, .in_w = %d, .in_c = %d, .out_h = %d, .out_w = %d,", p->batches, p->in_h,
            p->in_w, p->in_c, p->out_h, p->out_w);
    cg_line(cg, ".filter_h = %d, .filter_w = %d, .stride_h = %d, .stride_w = %d,", p->filter_h, p->filter_w,
            p->stride_h, p->stride_w);
    cg_line(cg, ".dil_h = %d, .dil_w = %d, .pad_h = %d, .pad_w = %d,", p->dil_h, p->dil_w, p->pad_h, p->pad_w);
    if (typed_op(g, op, op->n_in))
        cg_line(cg, ".in_type = %s, .out_type = %s, .other_type = %s,", st(g, op->in[0]), st(g, op->out[0]),
                op->sched.post_add >= 0 ? st(g, op->sched.post_other) : "RT_F32");
    cg_line(cg, ".direct = %d, .rows = %d, .pad_value = %d", op->sched.direct, op->sched.rows, -p->in_offset);
    cg_close(cg, "};");
    if (op->sched.post_add >= 0) ew_emit_binary_struct(cg, g->ops[op->sched.post_add].params, "add");
    /* pass fuse_add took a channel PAD's input as the other operand: its rows are narrower */
    char narrow[48] = "";
    if (op->sched.post_add >= 0) {
        const IrTensor *ot = &g->tensors[op->sched.post_other];
        int32_t oc = ot->rank > 0 ? (int32_t)ot->dims[ot->rank - 1] : p->out_c;
        if (oc != p->out_c) snprintf(narrow, sizeof narrow, ", .other_c = %d", oc);
    }
    if (op->sched.post_hswish) /* pass fuse_prelu: a HARD_SWISH */
        cg_line(cg, "static const rt_opt_post_add post = {.add = %s, .conv_is_lhs = %d, .hard_swish = 1%s};",
                op->sched.post_add >= 0 ? "&add" : "NULL", op->sched.conv_is_lhs, narrow);
    else if (op->sched.post_alpha) /* pass fuse_prelu: the slopes (a weight: not a constant expression with --weights file) */
        cg_line(cg, "const rt_opt_post_add post = {.add = %s, .conv_is_lhs = %d, .alpha = %s%s};",
                op->sched.post_add >= 0 ? "&add" : "NULL", op->sched.conv_is_lhs,
                cg_tensor(cg, op->sched.post_alpha - 1, 1), narrow);
    else if (op->sched.post_add >= 0)
        cg_line(cg, "static const rt_opt_post_add post = {.add = &add, .conv_is_lhs = %d%s};", op->sched.conv_is_lhs,
                narrow);
    const int post = op->sched.post_add >= 0 || op->sched.post_alpha || op->sched.post_hswish;
    IrDType wdt = g->tensors[op->in[1]].dtype;
    if (op->sched.post_dw >= 0) { /* pass fuse_dw: inputs x, w, b, dw filter, dw bias */
        dwconv_emit_params(cg, g->ops[op->sched.post_dw].params, 0, "dw");
        const char *wt = wdt == IR_BF16 ? "RT_BF16" : wdt == IR_F16 ? "RT_F16" : "RT_F32";
        if (op->sched.post_dw_hswish) /* pass fuse_dw also took HARD_SWISHes (RT_OPT_DW_HSWISH_IN 1, _OUT 2) */
            cg_line(cg, "rt_opt_conv_dw_hswish(&p, %s, %s, %s, %s, &dw, %s, %s, %d, %d, %s, %s, %s);", wt, cg_in(cg, op, 0),
                    cg_tensor(cg, op->sched.packed_w, 1), cg_tensor(cg, op->sched.packed_b, 1),
                    cg_in(cg, op, op->n_in - 2), cg_in(cg, op, op->n_in - 1), op->sched.band, op->sched.post_dw_hswish,
                    cg_out(cg, op, 0), cg_scratch(cg, op), par_arg(g, op));
        else
            cg_line(cg, "rt_opt_conv_dw(&p, %s, %s, %s, %s, &dw, %s, %s, %d, %s, %s, %s);", wt, cg_in(cg, op, 0),
                    cg_tensor(cg, op->sched.packed_w, 1), cg_tensor(cg, op->sched.packed_b, 1),
                    cg_in(cg, op, op->n_in - 2), cg_in(cg, op, op->n_in - 1), op->sched.band, cg_out(cg, op, 0),
                    cg_scratch(cg, op), par_arg(g, op));
        return 0;
    }
    /* Cortex-M with the DSP extension: runtime/cortex_m's int8 convolution (same contract); its DSP
     * GEMM alone where it takes the op, so the portable kernel is linked only if some op needs it. */
    IrIsa isa = (g->root ? g->root : g)->isa;
    int cm = s8 && (isa == IR_ISA_ARMV7EM || isa == IR_ISA_ARMV8M || isa == IR_ISA_ARMV81M);
    int out_f32 = g->tensors[op->out[0]].dtype == IR_F32;
    if (cm && op->sched.nr == 1) { /* pass schedule chose Helium's kernel (sched_pack_mve_s8, runtime/cortex_m/helium) */
        cg_line(cg, "rt_mve_conv_s8(&p, %s, %s, %s, %s, %s, %s);", cg_in(cg, op, 0),
                cg_tensor(cg, op->sched.packed_w, 1), cg_tensor(cg, op->sched.packed_b, 1), cg_out(cg, op, 0),
                post ? "&post" : "NULL", op->sched.post_add >= 0 ? cg_tensor(cg, op->sched.post_other, 1) : "NULL");
        return 0;
    }
    if (cm && !post &&
        rt_cm_conv_dsp_ok(op->sched.direct, p->batches, k, op->sched.fscale ? RT_OPT_ROUND_FLOAT : RT_OPT_ROUND_DOUBLE,
                          out_f32)) {
        cg_line(cg, "rt_cm_conv_s8_dsp(&p, %s, %s, %s, %s);", cg_in(cg, op, 0), cg_tensor(cg, op->sched.packed_w, 1),
                cg_tensor(cg, op->sched.packed_b, 1), cg_out(cg, op, 0));
        return 0;
    }
    cg_line(cg, "%s_conv_%s(&p, %s%s, %s, %s, %s, %s, %s, %s, %s);", cm ? "rt_cm" : "rt_opt",
            s8 ? "s8" : wdt == IR_BF16 || wdt == IR_F16 ? "half" : "f32",
            wdt == IR_BF16 ? "RT_BF16, " : wdt == IR_F16 ? "RT_F16, " : "", cg_in(cg, op, 0),
            cg_tensor(cg, op->sched.packed_w, 1), cg_tensor(cg, op->sched.packed_b, 1), cg_out(cg, op, 0),
            cg_scratch(cg, op), post ? "&post" : "NULL",
            op->sched.post_add >= 0 ? cg_tensor(cg, op->sched.post_other, 1) : "NULL", par_arg(g, op));
    return 0;
}

/* The reference's depthwise params as `static const rt_dwconv_params NAME` (int8: with mult/shift arrays). */
static void dwconv_emit_params(CgCtx *cg, const rt_dwconv_params *p, int s8, const char *name) {
    if (s8) {
        cg_array_i32(cg, "mult", p->mult, (int64_t)p->in_c * p->depth_mult);
        cg_array_i32(cg, "shift", p->shift, (int64_t)p->in_c * p->depth_mult);
    }
    cg_open(cg, "static const rt_dwconv_params %s = {", name);
    cg_line(cg, ".batches = %d, .in_h = %d, .in_w = %d, .in_c = %d,", p->batches, p->in_h, p->in_w, p->in_c);
    cg_line(cg, ".out_h = %d, .out_w = %d, .depth_mult = %d, .filter_h = %d, .filter_w = %d,", p->out_h, p->out_w,
            p->depth_mult, p->filter_h, p->filter_w);
    cg_line(cg, ".stride_h = %d, .stride_w = %d, .dil_h = %d, .dil_w = %d, .pad_h = %d, .pad_w = %d,", p->stride_h,
            p->stride_w, p->dil_h, p->dil_w, p->pad_h, p->pad_w);
    if (s8)
        cg_line(cg, ".in_offset = %d, .out_offset = %d, .mult = mult, .shift = shift, .act_qmin = %d, .act_qmax = %d",
                p->in_offset, p->out_offset, p->act_qmin, p->act_qmax);
    else
        cg_line(cg, ".act_min = %s, .act_max = %s", cg_f32(cg, p->act_min), cg_f32(cg, p->act_max));
    cg_close(cg, "};");
}

static int emit_dwconv(CgCtx *cg, const Graph *g, const IrOp *op) {
    int s8 = g->tensors[op->in[0]].dtype == IR_I8;
    dwconv_emit_params(cg, op->params, s8, "p");
    if (typed_op(g, op, 1)) {
        cg_line(cg, "rt_opt_dwconv_typed%s(&p, %s, %s, %s, %s, %s, %s, %s, %d, %d, %s);",
                op->sched.post_hswish ? "_hswish" : "", st(g, op->in[0]),
                cg_in(cg, op, 0), cg_in(cg, op, 1), cg_in(cg, op, 2), st(g, op->out[0]), cg_out(cg, op, 0),
                cg_scratch(cg, op), op->sched.band, op->sched.slots, par_arg(g, op));
        return 0;
    }
    IrIsa isa = (g->root ? g->root : g)->isa; /* Cortex-M with DSP: runtime/cortex_m's kernel (same contract) */
    int cm = s8 && (isa == IR_ISA_ARMV7EM || isa == IR_ISA_ARMV8M || isa == IR_ISA_ARMV81M);
    if (cm && isa == IR_ISA_ARMV81M && rt_mve_dwconv_ok(op->params)) /* Helium: runtime/cortex_m/helium */
        cg_line(cg, "rt_mve_dwconv_s8(&p, %s, %s, %s, %s);", cg_in(cg, op, 0), cg_in(cg, op, 1), cg_in(cg, op, 2),
                cg_out(cg, op, 0));
    else if (cm && rt_cm_dw3x3_ok(op->params)) /* its 3x3 assembly kernel alone: nothing else linked for it */
        cg_line(cg, "rt_cm_dwconv_s8_3x3(&p, %s, %s, %s, %s);", cg_in(cg, op, 0), cg_in(cg, op, 1), cg_in(cg, op, 2),
                cg_out(cg, op, 0));
    else if (s8)
        cg_line(cg, "%s_dwconv_s8(&p, %s, %s, %s, %s, %s, %s);", cm ? "rt_cm" : "rt_opt", cg_in(cg, op, 0),
                cg_in(cg, op, 1), cg_in(cg, op, 2), cg_out(cg, op, 0), cg_scratch(cg, op), par_arg(g, op));
    else
        cg_line(cg, "rt_opt_dwconv_f32%s(&p, %s, %s, %s, %s, %s);", op->sched.post_hswish ? "_hswish" : "",
                cg_in(cg, op, 0), cg_in(cg, op, 1),
                cg_in(cg, op, 2), cg_out(cg, op, 0), par_arg(g, op));
    return 0;
}

static int emit_bmm(CgCtx *cg, const Graph *g, const IrOp *op) {
    int s8 = g->tensors[op->in[0]].dtype == IR_I8;
    bmm_emit_params(cg, op->params);
    cg_line(cg, "rt_opt_bmm_%s(&p, %s, %s, %s, %s);", s8 ? "s8" : "f32", cg_in(cg, op, 0), cg_in(cg, op, 1),
            cg_out(cg, op, 0), cg_scratch(cg, op));
    return 0;
}

static int emit_act(CgCtx *cg, const Graph *g, const IrOp *op) {
    const rt_act_params *p = op->params;
    if (op->kind != OP_GELU) /* LOGISTIC, TANH f32 */
        return act_emit_unary(cg, op, p, op->kind == OP_LOGISTIC ? "rt_opt_logistic_f32" : "rt_opt_tanh_f32");
    cg_line(cg, "static const rt_act_params p = {.n = %lld, .approximate = %d};", (long long)p->n, p->approximate);
    if (typed_op(g, op, 1))
        cg_line(cg, "rt_opt_gelu_typed(&p, %s, %s, %s, %s);", st(g, op->in[0]), cg_in(cg, op, 0), st(g, op->out[0]),
                cg_out(cg, op, 0));
    else
        cg_line(cg, "rt_opt_gelu_f32(&p, %s, %s);", cg_in(cg, op, 0), cg_out(cg, op, 0));
    return 0;
}

static int emit_softmax(CgCtx *cg, const Graph *g, const IrOp *op) {
    const rt_softmax_params *p = op->params;
    if (g->tensors[op->in[0]].dtype == IR_I8) { /* int8 -> int8: the reference's params and tables */
        softmax_emit_params(cg, op);
        cg_line(cg, "rt_opt_softmax_i8(&p, %s, %s);", cg_in(cg, op, 0), cg_out(cg, op, 0));
        return 0;
    }
    cg_line(cg, "static const rt_softmax_params p = {.outer = %d, .depth = %d, .beta = %s};", p->outer, p->depth,
            cg_f32(cg, p->beta));
    cg_line(cg, "rt_opt_softmax_f32(&p, %s, %s);", cg_in(cg, op, 0), cg_out(cg, op, 0));
    return 0;
}

/* "{v0, v1, ...}" into buf. */
static const char *int_list(char *buf, size_t size, const int32_t *v, int n) {
    size_t len = 1;
    buf[0] = '{';
    for (int i = 0; i < n && len + 16 < size; i++) len += (size_t)snprintf(buf + len, size - len, "%s%d", i ? ", " : "", v[i]);
    snprintf(buf + len, size - len, "}");
    return buf;
}

static int emit_attention(CgCtx *cg, const Graph *g, const IrOp *op) {
    const rt_opt_attn_params *p = op->sched.kparams;
    cg_open(cg, "static const rt_opt_attn_params p = {");
    cg_open(cg, ".qk = {");
    bmm_emit_fields(cg, &p->qk);
    cg_close(cg, "},");
    cg_open(cg, ".pv = {");
    bmm_emit_fields(cg, &p->pv);
    cg_close(cg, "},");
    cg_line(cg, ".scale = %s, .beta = %s, .fill = %s,", cg_f32(cg, p->scale), cg_f32(cg, p->beta), cg_f32(cg, p->fill));
    cg_line(cg, ".mask = %d, .n_mask = %d,", p->mask, p->n_mask);
    char b0[160], b1[160];
    cg_line(cg, ".mask_bstride = {%s, %s},", int_list(b0, sizeof b0, p->mask_bstride[0], RT_MAX_RANK),
            int_list(b1, sizeof b1, p->mask_bstride[1], RT_MAX_RANK));
    cg_line(cg, ".mask_sq = %s, .mask_sk = %s,", int_list(b0, sizeof b0, p->mask_sq, 2),
            int_list(b1, sizeof b1, p->mask_sk, 2));
    if (typed_op(g, op, op->n_in) || p->tq == RT_I8 || p->tv == RT_I8)
        cg_line(cg, ".tq = %s, .tk = %s, .tv = %s, .tmask = %s, .tout = %s,", st(g, op->in[0]), st(g, op->in[1]),
                st(g, op->in[2]), p->mask == RT_OPT_MASK_ADD ? st(g, op->in[3]) : "RT_F32", st(g, op->out[0]));
    if (p->tq == RT_I8 || p->tv == RT_I8)
        cg_line(cg, ".qscale = {%s, %s, %s}, .qzero = {%d, %d, %d},", cg_f32(cg, p->qscale[0]), cg_f32(cg, p->qscale[1]),
                cg_f32(cg, p->qscale[2]), p->qzero[0], p->qzero[1], p->qzero[2]);
    if (p->bf16) cg_line(cg, ".bf16 = 1,");
    if (p->pv_u8) cg_line(cg, ".pv_u8 = 1,");
    if (p->out_sq > 0)
        cg_line(cg, ".out_bstride = %s, .out_sq = %d,", int_list(b0, sizeof b0, p->out_bstride, RT_MAX_RANK), p->out_sq);
    cg_line(cg, ".q_block = %d, .kv_block = %d, .slots = %d", p->q_block, p->kv_block, p->slots);
    cg_close(cg, "};");
    cg_line(cg, "rt_opt_attention_f32(&p, %s, %s, %s, %s, %s, %s, %s, %s);", cg_in(cg, op, 0), cg_in(cg, op, 1),
            cg_in(cg, op, 2), p->n_mask > 0 ? cg_in(cg, op, 3) : "NULL", p->n_mask > 1 ? cg_in(cg, op, 4) : "NULL",
            cg_out(cg, op, 0), cg_scratch(cg, op), par_arg(g, op));
    return 0;
}

static int emit_layer_norm(CgCtx *cg, const Graph *g, const IrOp *op) {
    const rt_opt_ln_params *p = op->sched.kparams;
    cg_line(cg, "static const rt_opt_ln_params p = {.rows = %d, .cols = %d, .eps = %s};", p->rows, p->cols,
            cg_f32(cg, p->eps));
    if (typed_op(g, op, 1)) {
        cg_line(cg, "rt_opt_layer_norm_typed(&p, %s, %s, %s, %s, %s, %s, (float *)%s);", st(g, op->in[0]),
                cg_in(cg, op, 0), op->in[1] >= 0 ? cg_in(cg, op, 1) : "NULL", op->in[2] >= 0 ? cg_in(cg, op, 2) : "NULL",
                st(g, op->out[0]), cg_out(cg, op, 0), cg_scratch(cg, op));
        return 0;
    }
    cg_line(cg, "rt_opt_layer_norm_f32(&p, %s, %s, %s, %s);", cg_in(cg, op, 0), op->in[1] >= 0 ? cg_in(cg, op, 1) : "NULL",
            op->in[2] >= 0 ? cg_in(cg, op, 2) : "NULL", cg_out(cg, op, 0));
    return 0;
}

static int emit_binary(CgCtx *cg, const Graph *g, const IrOp *op) {
    const char *name = op->kind == OP_ADD ? "add" : op->kind == OP_SUB ? "sub" : op->kind == OP_MUL ? "mul"
                     : op->kind == OP_MAXIMUM ? "maximum" : op->kind == OP_MINIMUM ? "minimum"
                     : op->kind == OP_DIV     ? "div"
                                              : "squared_difference";
    if (typed_op(g, op, 2)) {
        ew_emit_binary_struct(cg, op->params, "p");
        cg_line(cg, "rt_opt_binary_typed(&p, RT_OPT_BIN_%s, %s, %s, %s, %s, %s, %s);",
                op->kind == OP_ADD ? "ADD" : op->kind == OP_SUB ? "SUB" : op->kind == OP_MUL ? "MUL" : "SQDIFF",
                st(g, op->in[0]), cg_in(cg, op, 0), st(g, op->in[1]), cg_in(cg, op, 1), st(g, op->out[0]),
                cg_out(cg, op, 0));
        return 0;
    }
    char kernel[64];
    snprintf(kernel, sizeof kernel, "rt_opt_%s_%s", name,
             g->tensors[op->in[0]].dtype == IR_I8 ? "i8" : "f32");
    return ew_emit_binary(cg, op, op->params, kernel);
}

static int emit_row_mean(CgCtx *cg, const IrOp *op) {
    reduce_emit_params(cg, op->params);
    cg_line(cg, "rt_opt_mean_f32(&p, %s, %s);", cg_in(cg, op, 0), cg_out(cg, op, 0));
    return 0;
}

/* An int8 ADD/SUB requantized in float (sched_float_rq.c): how it was proven exact. */
static void float_rq_note(CgCtx *cg, const IrOp *op) {
    const rt_binary_params *p = (op->kind == OP_ADD || op->kind == OP_SUB) ? op->params : NULL;
    if (!p || !p->fq_mode) return;
    if (p->fq_mode == 2)
        cg_line(cg, "/*   requantized in float: a fq_a + b fq_b + fq_c, equal to TFLite's integer result on all 65536 "
                    "input pairs */");
    else
        cg_line(cg, "/*   requantized in float: a fq_a + b fq_b + fq_c, equal to TFLite's integer result on all 65536 "
                    "input pairs but %d near-ties, which take the integer path */",
                op->sched.near_ties);
}

void cg_sched_comment(CgCtx *cg, const Graph *g, const IrOp *op) {
    const IrSched *s = &op->sched;
    IrDType wdt = op->n_in > 1 && op->in[1] >= 0 ? g->tensors[op->in[1]].dtype : IR_F32;
    const char *dt = g->tensors[op->in[0]].dtype == IR_I8 ? "int8"
                     : wdt == IR_BF16                     ? "bf16 weights (f32 sums)"
                     : wdt == IR_F16                      ? "fp16 weights (f32 sums)"
                                                          : "f32";
    if (typed_op(g, op, op->n_in)) {
        char buf[160];
        int n = snprintf(buf, sizeof buf, "/*   16-bit storage:");
        for (int k = 0; k < op->n_in && n < (int)sizeof buf - 40; k++)
            if (half_act(g, op->in[k])) n += snprintf(buf + n, sizeof buf - (size_t)n, " input %d %s,", k,
                                                      ir_dtype_name(g->tensors[op->in[k]].dtype));
        if (n < (int)sizeof buf - 40)
            snprintf(buf + n, sizeof buf - (size_t)n, " output %s (computed in f32) */",
                     ir_dtype_name(g->tensors[op->out[0]].dtype));
        cg_line(cg, "%s", buf);
    }
    switch (s->kind) {
    case SCHED_GEMM:
        cg_line(cg, "/*   schedule: gemm %s, %dx%d micro-tile, weights packed at compile time */", dt, s->mr, s->nr);
        break;
    case SCHED_CONV_GEMM:
        if (s->direct)
            cg_line(cg, "/*   schedule: conv-gemm %s, 1x1 direct, %dx%d micro-tile, packed weights */", dt, s->mr,
                    s->nr);
        else if (s->runs)
            cg_line(cg, "/*   schedule: conv-gemm %s, patches read in place as filter-row runs with AVX512-VNNI (else im2col "
                        "%d rows per block), %dx%d micro-tile, packed weights */",
                    dt, s->rows, s->mr, s->nr);
        else
            cg_line(cg, "/*   schedule: conv-gemm %s, im2col %d rows per block, %dx%d micro-tile, packed weights */",
                    dt, s->rows, s->mr, s->nr);
        if (s->post_dw >= 0) {
            const rt_dwconv_params *q = g->ops[s->post_dw].params;
            cg_line(cg, "/*   fused: DEPTHWISE_CONV_2D (TFLite operator #%d, %dx%d stride %d) on bands of %d output rows: */",
                    g->ops[s->post_dw].tfl_index, q->filter_h, q->filter_w, q->stride_h, s->band);
            cg_line(cg, "/*   the %dx%dx%d expansion is made band by band in scratch, never stored whole */", q->in_h,
                    q->in_w, q->in_c);
            if (s->post_dw_hswish)
                cg_line(cg, "/*   fused: HARD_SWISH on the %s */",
                        s->post_dw_hswish == 3 ? "expansion and on the depthwise output"
                        : s->post_dw_hswish == 1 ? "expansion" : "depthwise output");
        }
        if (s->post_add >= 0) {
            cg_line(cg, "/*   fused: residual ADD (TFLite operator #%d) applied per block of output rows */",
                    g->ops[s->post_add].tfl_index);
            float_rq_note(cg, &g->ops[s->post_add]);
        }
        break;
    case SCHED_DWCONV:
        if (op->scratch_bytes)
            cg_line(cg, "/*   schedule: dwconv %s, vectorized over channels; with AVX512-VNNI (3x3) or AVX2 the image is "
                        "copied inside its padding (%zu bytes of scratch) so every pixel takes the interior path */",
                    dt, op->scratch_bytes);
        else
            cg_line(cg, "/*   schedule: dwconv %s, vectorized over channels */", dt);
        break;
    case SCHED_COPY: cg_line(cg, "/*   schedule: copy, memcpy per contiguous run */"); break;
    case SCHED_REDUCE: cg_line(cg, "/*   schedule: reduce f32, running extremes on lanes */"); break;
    case SCHED_GATHER_ROWS: cg_line(cg, "/*   schedule: gather-rows, the compile-time indices as one memcpy per row */"); break;
    case SCHED_ROW_MEAN: cg_line(cg, "/*   schedule: row-mean f32, one contiguous row per output */"); break;
    case SCHED_BINARY:
        cg_line(cg, "/*   schedule: binary %s, broadcast walked as contiguous runs */", dt);
        float_rq_note(cg, op);
        break;
    case SCHED_ACT: cg_line(cg, "/*   schedule: act f32, vectorized exp/erfc */"); break;
    case SCHED_SELECT: cg_line(cg, "/*   schedule: select, broadcast walked as contiguous runs */"); break;
    case SCHED_SOFTMAX:
        cg_line(cg, "/*   schedule: softmax %s */", g->tensors[op->in[0]].dtype == IR_I8
                                                      ? "int8, the reference's fixed point on 16 lanes"
                                                      : "f32, vectorized exp");
        break;
    case SCHED_CAST: cg_line(cg, "/*   schedule: cast, vectorizable, per tensor */"); break;
    case SCHED_POOL: cg_line(cg, "/*   schedule: pool %s, vectorized over channels */", dt); break;
    case SCHED_LSTM:
        if (g->tensors[op->in[0]].dtype == IR_I8)
            cg_line(cg, "/*   schedule: lstm int8, input products hoisted, vector dots and fixed-point sigmoid/tanh */");
        else
            cg_line(cg, "/*   schedule: lstm f32, 8-lane dot products, vectorized sigmoid/tanh */");
        break;
    case SCHED_MEAN_BLOCKS: cg_line(cg, "/*   schedule: mean-blocks, adjacent reduced axes summed with the kept axis vectorized */"); break;
    case SCHED_CONCAT:
        cg_line(cg, concat_is_elementwise(g, op) ? "/*   schedule: concat int8, rescale rounded without libm, vectorizable */"
                                                 : "/*   schedule: concat, each part an optimized strided copy */");
        break;
    case SCHED_LUT: cg_line(cg, "/*   schedule: lut int8, the 256-entry table looked up 64 lanes a step */"); break;
    case SCHED_RESIZE:
        if (op->kind == OP_RESIZE_BILINEAR)
            cg_line(cg, "/*   schedule: resize %s, source rows interpolated along x once each (scratch), blended per "
                        "output row */", dt);
        else
            cg_line(cg, "/*   schedule: resize nearest, repeated output rows copied whole, a column table */");
        break;
    case SCHED_PRELU: cg_line(cg, "/*   schedule: prelu %s, innermost dim vectorized */", dt); break;
    case SCHED_FFT:
        cg_line(cg, "/*   schedule: fft, each row as N/2 complex values, eight rows side by side, radix-2 in double */");
        break;
    case SCHED_SDPA:
        cg_line(cg, "/*   schedule: sdpa f32%s, one pass over the cache rows the mask leaves per head (query head n on KV "
                    "head n / %d); the decomposition (subgraph %d) is not called */",
                ((const rt_opt_sdpa_params *)s->kparams)->transposed ? " (K [B,G,S,H], V transposed [B,G,H,S] read in place)"
                                                                      : "",
                ((const rt_opt_sdpa_params *)s->kparams)->heads / ((const rt_opt_sdpa_params *)s->kparams)->kv_heads,
                op->callee[0]);
        break;
    case SCHED_RMS_NORM:
        cg_line(cg, "/*   schedule: rms-norm f32, one row kernel (the decomposition's float operations, its bits); the "
                    "decomposition (subgraph %d) is not called */",
                op->callee[0]);
        break;
    case SCHED_FC_HYBRID:
        if (s->packed_w >= 0)
            cg_line(cg, "/*   schedule: fc-hybrid int4, 4-bit weight rows (packed) streamed 4 at a time, exact int32 dots */");
        else
            cg_line(cg, "/*   schedule: fc-hybrid, int8 weight rows streamed 4 at a time, exact int32 dots (16-bit products) */");
        break;
    case SCHED_PAD: cg_line(cg, "/*   schedule: pad, interior rows memcpy'd, borders filled */"); break;
    case SCHED_TCONV:
        if (op->n_in > 2 && g->tensors[op->in[2]].dtype == IR_I8)
            cg_line(cg, "/*   schedule: tconv int8, filter packed [fy][fx][ic][oc], int32 sums per output, then requantized */");
        else
            cg_line(cg, "/*   schedule: tconv f32, GEMM of %d input pixels to per-tap columns, added onto the output */",
                    s->rows);
        break;
    case SCHED_LAYER_NORM:
        cg_line(cg, "/*   schedule: layer-norm f32, one pass for the statistics and one for the output per row */");
        break;
    case SCHED_ATTENTION: {
        const rt_opt_attn_params *p = s->kparams;
        const char *what = p->tq == RT_I8 ? (p->bf16    ? "int8 scores (exact int32 sums; products of the dequantized values "
                                                         "where built without AVX512-VNNI), bf16 P.V (f32 where built "
                                                         "without AVX512-BF16), softmax f32"
                                             : p->pv_u8 ? "int8 scores and P.V (exact int32 sums, the probabilities in 8 "
                                                          "bits; f32 products of the dequantized values where built "
                                                          "without AVX512-VNNI), softmax f32"
                                                        : "int8 scores (exact int32 sums; f32 products of the dequantized "
                                                          "values where built without AVX512-VNNI), f32 P.V and softmax")
                           : p->bf16 ? "bf16 products (f32 where built without AVX512-BF16), softmax f32"
                                     : "f32";
        cg_line(cg, "/*   schedule: attention %s, online softmax over %d-key blocks, %d query rows per tile; */", what,
                p->kv_block, p->q_block);
        cg_line(cg, "/*   the [%d x %d] score matrix is never stored (scratch %zu bytes) */", p->qk.m, p->qk.n,
                op->scratch_bytes);
        break;
    }
    case SCHED_BMM:
        cg_line(cg, "/*   schedule: bmm %s, %dx%d micro-tile, right operand packed per batch in scratch */", dt, s->mr,
                s->nr);
        break;
    default: break;
    }
}

int cg_emit_sched(CgCtx *cg, const Graph *g, const IrOp *op, Diag *d) {
    switch (op->sched.kind) {
    case SCHED_GEMM: return emit_gemm(cg, g, op);
    case SCHED_CONV_GEMM: return emit_conv(cg, g, op);
    case SCHED_DWCONV: return emit_dwconv(cg, g, op);
    case SCHED_BMM: return emit_bmm(cg, g, op);
    case SCHED_BINARY: return emit_binary(cg, g, op);
    case SCHED_ROW_MEAN: return emit_row_mean(cg, op);
    case SCHED_MEAN_BLOCKS:
        if (g->tensors[op->in[0]].dtype == IR_F32) return emit_row_mean(cg, op);
        reduce_emit_params(cg, op->params);
        cg_line(cg, "rt_opt_mean_i8(&p, %s, %s, %s);", cg_in(cg, op, 0), cg_out(cg, op, 0), cg_scratch(cg, op));
        return 0;
    case SCHED_ACT: return emit_act(cg, g, op);
    case SCHED_SOFTMAX: return emit_softmax(cg, g, op);
    case SCHED_SELECT:
        if (op->kind == OP_SELECT || op->kind == OP_SELECT_V2) lg_select_emit_call(cg, op, "rt_opt_select");
        else lg_logical_emit_call(cg, op, "rt_opt_logical");
        return 0;
    case SCHED_CAST:
        return ew_emit_quant(cg, op, op->params,
                             op->kind == OP_CAST       ? "rt_opt_cast_c64_f32"
                             : op->kind == OP_QUANTIZE ? "rt_opt_quantize_f32_s8"
                                                       : "rt_opt_dequantize_s8_f32");
    case SCHED_REDUCE:
        reduce_emit_params(cg, op->params);
        cg_line(cg, "rt_opt_reduce_%s_f32(&p, %s, %s);", op->kind == OP_REDUCE_MAX ? "max" : "min", cg_in(cg, op, 0),
                cg_out(cg, op, 0));
        return 0;
    case SCHED_ATTENTION: return emit_attention(cg, g, op);
    case SCHED_LAYER_NORM: return emit_layer_norm(cg, g, op);
    case SCHED_COPY: shape_emit_copy_kernel(cg, op, "rt_opt_copy"); return 0;
    case SCHED_GATHER_ROWS: /* the indices (a constant no kernel reads) are not emitted */
        shape_emit_copy(cg, op->sched.kparams, "static const rt_copy_params p = ", ";");
        cg_line(cg, "rt_opt_copy(&p, %s, %s);", cg_in(cg, op, 0), cg_out(cg, op, 0));
        return 0;
    case SCHED_POOL:
        return pool_emit_c(cg, g, op, op->kind == OP_AVERAGE_POOL_2D ? "rt_opt_average_pool_2d" : "rt_opt_max_pool_2d");
    case SCHED_LSTM:
        if (g->tensors[op->in[0]].dtype == IR_I8) return lstm_emit_i8(cg, op, "rt_opt_lstm_i8");
        return lstm_emit_f32(cg, op, "rt_opt_lstm_f32");
    case SCHED_CONCAT:
        return concat_emit_c(cg, g, op, concat_is_elementwise(g, op) ? "rt_opt_concatenation_i8" : "rt_opt_concatenation");
    case SCHED_PRELU: return prelu_emit_c(cg, g, op, "rt_opt_prelu");
    case SCHED_FC_HYBRID:
        if (op->sched.slots > 1) return fc_emit_c_par(cg, g, op, par_arg(g, op));
        return fc_emit_c(cg, g, op, op->sched.packed_w >= 0 ? "rt_opt_fc_hybrid_w4" : "rt_opt_fc_hybrid");
    case SCHED_SDPA: {
        const rt_opt_sdpa_params *p = op->sched.kparams;
        cg_open(cg, "static const rt_opt_sdpa_params p = {");
        cg_line(cg, ".batch = %d, .q_len = %d, .heads = %d, .kv_heads = %d, .kv_len = %d, .head_dim = %d,", p->batch,
                p->q_len, p->heads, p->kv_heads, p->kv_len, p->head_dim);
        cg_line(cg, ".scale = %s, .mask_sb = %d, .mask_st = %d, .slots = %d%s", cg_f32(cg, p->scale), p->mask_sb,
                p->mask_st, p->slots, p->transposed ? "," : "");
        if (p->transposed) cg_line(cg, ".transposed = 1, .mask_fill = %s", cg_f32(cg, p->mask_fill));
        cg_close(cg, "};");
        cg_line(cg, "(void)%s; /* the decomposition, for the reference interpreter only */", cg_subgraph_fn(cg, op->callee[0]));
        cg_line(cg, "rt_opt_sdpa_f32(&p, %s, %s, %s, %s, %s, %s, %s);", cg_in(cg, op, 0), cg_in(cg, op, 1), cg_in(cg, op, 2),
                op->n_in > 3 ? cg_in(cg, op, 3) : "NULL", cg_out(cg, op, 0), cg_scratch(cg, op), sdpa_par_arg(g, p));
        return 0;
    }
    case SCHED_RMS_NORM: {
        const rt_rms_norm_params *p = op->sched.kparams;
        cg_line(cg, "static const rt_rms_norm_params p = {%d, %d, %s};", p->rows, p->cols, cg_f32(cg, p->eps));
        cg_line(cg, "(void)%s; /* the decomposition, for the reference interpreter only */", cg_subgraph_fn(cg, op->callee[0]));
        cg_line(cg, "rt_opt_rms_norm_f32(&p, %s, %s, %s);", cg_in(cg, op, 0), cg_in(cg, op, 1), cg_out(cg, op, 0));
        return 0;
    }
    case SCHED_PAD: return shape_pad_emit_kernel(cg, op, "rt_opt_pad");
    case SCHED_TCONV: {
        const char *bias = op->n_in > 3 && op->in[3] >= 0 ? cg_in(cg, op, 3) : "NULL";
        tconv_emit_params(cg, op);
        if (g->tensors[op->in[2]].dtype == IR_I8)
            cg_line(cg, "rt_opt_transpose_conv_i8(&p, %s, %s, %s, %s, %s);", cg_tensor(cg, op->sched.packed_w, 1), bias,
                    cg_in(cg, op, 2), cg_out(cg, op, 0), cg_scratch(cg, op));
        else
            cg_line(cg, "rt_opt_transpose_conv_f32(&p, %d, %s, %s, %s, %s, %s, %s);", op->sched.rows,
                    cg_tensor(cg, op->sched.packed_w, 1), cg_tensor(cg, op->sched.packed_b, 1), bias, cg_in(cg, op, 2),
                    cg_out(cg, op, 0), cg_scratch(cg, op));
        return 0;
    }
    case SCHED_LUT: {
        const rt_act_params *p = op->params;
        cg_array_i8(cg, "lut", p->lut_i8, 256);
        cg_line(cg, "rt_opt_lut_i8(lut, %lld, %s, %s);", (long long)p->n, cg_in(cg, op, 0), cg_out(cg, op, 0));
        return 0;
    }
    case SCHED_FFT: {
        const rt_rfft2d_params *p = op->params;
        cg_line(cg, "static const rt_rfft2d_params p = {.outer = %lld, .in_h = %d, .in_w = %d, .fft_h = %d, .fft_w = %d};",
                (long long)p->outer, p->in_h, p->in_w, p->fft_h, p->fft_w);
        cg_line(cg, "rt_opt_rfft2d(&p, %s, %s, %s);", cg_in(cg, op, 0), cg_out(cg, op, 0), cg_scratch(cg, op));
        return 0;
    }
    case SCHED_RESIZE:
        resize_emit_params(cg, op->params);
        if (op->kind == OP_RESIZE_NEAREST_NEIGHBOR)
            cg_line(cg, "rt_opt_resize_nearest(&p, %s, %s, %s);", cg_in(cg, op, 0), cg_out(cg, op, 0), cg_scratch(cg, op));
        else
            cg_line(cg, "rt_opt_resize_bilinear_%s(&p, %s, %s, %s);", g->tensors[op->in[0]].dtype == IR_I8 ? "i8" : "f32",
                    cg_in(cg, op, 0), cg_out(cg, op, 0), cg_scratch(cg, op));
        return 0;
    default: return diag_internal(d, "operator %d: no C emitter for schedule %s", op->tfl_index,
                                  ir_sched_name(op->sched.kind));
    }
}
