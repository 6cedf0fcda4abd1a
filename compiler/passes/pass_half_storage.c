/* pass_half_storage.c - 16-bit activation storage for --precision bf16|fp16.
 * Needs: fuse_layer_norm (runs on the scheduled, fused graph, before alias
 * and plan_memory, so the arena is planned at the 16-bit sizes).
 *
 * A float activation is stored in 16 bits (bf16 or fp16, the precision's
 * type) when the op writing it and every op reading it have a kernel that
 * reads and writes 16-bit storage (runtime/rt_opt_typed.c and the 16-bit
 * weight kernels): FULLY_CONNECTED and CONV_2D with 16-bit weights (a fused
 * residual ADD's other input and a fused depthwise convolution included),
 * DEPTHWISE_CONV_2D, the binary elementwise ops, GELU, the fused LayerNorm
 * and the fused attention (Q, K, V, an additive mask, its output; with bf16
 * only where its products are bf16 pairs: one kept in f32 for its few keys
 * reads and writes f32, as widening its operands cost more than it saved:
 * ViT bf16 13.5 -> 12.3 us). With
 * bf16 the binary ops and the LayerNorm read f32 (they write bf16): the
 * residual stream stays f32, as mixed-precision training keeps it, since
 * its rounding to 8 bits would compound layer by layer. RESHAPE,
 * SQUEEZE and EXPAND_DIMS pass it through (their output shares the input's
 * storage, pass alias), and so do the copies of TRANSPOSE, SLICE and the
 * other SCHED_COPY ops (re-prepared for 2-byte elements): both sides of such
 * an op are 16-bit or neither. Those kernels
 * compute in f32 and round what they store, so the only new error is one
 * rounding per stored value. Graph inputs and outputs (the caller's f32
 * buffers), constants, variables, control-flow subgraphs and everything
 * else stay f32.
 *
 * fp16 range guard: with calibration ranges (--calibrate), a tensor whose
 * calibrated values exceed fp16's 65504 stays f32 (stored in fp16 it would
 * be infinity), and --report names it. --no-range-guard stores it anyway.
 * Tensors made by the fusion passes have no calibrated range; without
 * --calibrate nothing is checked and the report says so.
 *
 * --f32-activations turns the pass off: only weights are 16-bit (the arena
 * stays f32-sized; small models skip the conversions and run faster). So does
 * a target without 16-bit arithmetic (precision_cost_arith16: --isa avx2, and
 * --isa generic, the default, which is planned as one), where each 16-bit
 * activation is widened and rounded again around every op for no faster
 * product: measured on AMD EPYC Zen 3 (docs/precision-avx2.md), f32
 * activations took bf16 from 0.62-0.96x to about fp32's speed.
 * --half-activations (or --isa avx512) stores them in 16 bits anyway, for the
 * arena saving. It depends on --isa only, never on the CPU mpcc runs on. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ops.h"
#include "passes.h"
#include "precision_cost.h"
#include "text.h"

static int half_weights(const Graph *g, const IrOp *op) {
    IrDType w = op->n_in > 1 && op->in[1] >= 0 ? g->tensors[op->in[1]].dtype : IR_F32;
    return w == IR_BF16 || w == IR_F16;
}

/* Ops that only move values: the output has the input's storage type. */
#define GELU_F32_IN 32768

static int pass_through(const IrOp *op) {
    return op->kind == OP_RESHAPE || op->kind == OP_SQUEEZE || op->kind == OP_EXPAND_DIMS ||
           (op->sched.kind == SCHED_COPY && op->n_out == 1);
}

/* 1 when op's kernel reads input slot k (k >= 0) or writes its output (k < 0) in 16 bits (bf16: the
 * storage type is bf16, whose residual stream stays f32). */
static int typed_io(const Graph *g, const IrOp *op, int k, int bf16) {
    if (pass_through(op)) return k <= 0;
    if (op->n_in < 1 || op->in[0] < 0 || op->n_out != 1) return 0;
    int f32 = g->tensors[op->in[0]].dtype == IR_F32 || g->tensors[op->in[0]].dtype == IR_BF16 ||
              g->tensors[op->in[0]].dtype == IR_F16;
    switch (op->sched.kind) {
    case SCHED_GEMM: return f32 && half_weights(g, op) && k <= 0;
    case SCHED_CONV_GEMM: /* the input, a fused ADD's other input, the output */
        return half_weights(g, op) && (k <= 0 || (op->sched.post_add >= 0 && op->in[k] == op->sched.post_other));
    case SCHED_DWCONV: return f32 && k <= 0;
    /* With bf16 the elementwise ops and LayerNorm write 16 bits but read f32: what they read is the
     * residual stream (a transformer's x + f(x) before its LayerNorm), and rounding it to bf16's 8 bits
     * at every layer compounds with depth, where a GEMM's input is rounded in the kernel anyway
     * (BERT-base bf16: relative L2 9.2e-3 with those reads 16-bit, 7.2e-3 without, the same speed;
     * fp16's 11 bits keep it within budget: 1.2e-3). */
    case SCHED_BINARY: /* (MAXIMUM / MINIMUM / DIV have no 16-bit kernel) */
        return f32 && op->kind != OP_MAXIMUM && op->kind != OP_MINIMUM && op->kind != OP_DIV &&
               (k < 0 || (k <= 1 && !bf16));
    /* bf16 GELU on a small input (its f32 copy at most GELU_F32_IN bytes, in L1) reads it in f32, as its FC
     * writes it: widening the 16-bit copy cost more than the bytes saved (ViT bf16: 1.47x -> 1.51x its
     * fp32), where a large one (BERT-base's 128 x 3072) would grow the arena by 1.5 MB. */
    case SCHED_ACT:
        return f32 && op->kind == OP_GELU &&
               (k < 0 || (k == 0 && !(bf16 && ir_tensor_numel(&g->tensors[op->in[0]]) * 4 <= GELU_F32_IN)));
    case SCHED_LAYER_NORM: return k < 0 || (k == 0 && !bf16);
    case SCHED_ATTENTION: { /* bf16 storage, f32 products (--keep-fp32): Q, K, V and the output stay f32 */
        const rt_opt_attn_params *p = op->sched.kparams;
        if (bf16 && !p->bf16) return 0;
        return k <= 2 || (k == 3 && p->mask == RT_OPT_MASK_ADD);
    }
    default: return 0;
    }
}

static int32_t rt_type(const Graph *g, int t) {
    IrDType dt = g->tensors[t].dtype;
    return dt == IR_BF16 ? RT_BF16 : dt == IR_F16 ? RT_F16 : RT_F32;
}

/* Scratch and kernel params of an op whose tensors changed type. */
static int retype(Graph *g, IrOp *op, Diag *d) {
    if (op->sched.kind == SCHED_COPY && rt_type(g, op->in[0]) != RT_F32) {
        const OpDef *def = op_def(op->kind); /* its byte strides, for 2-byte elements */
        return def->prepare(g, op, d);
    }
    if (op->sched.kind == SCHED_CONV_GEMM && half_weights(g, op)) {
        const rt_conv_params *p = op->params;
        int32_t w = rt_type(g, op->in[1]), ti = rt_type(g, op->in[0]), tc = rt_type(g, op->out[0]);
        int32_t to = op->sched.post_add >= 0 ? rt_type(g, op->sched.post_other) : RT_F32;
        int32_t k = p->filter_h * p->filter_w * p->in_c, slots = op->sched.slots > 0 ? op->sched.slots : 1;
        if (ti == RT_F32 && tc == RT_F32 && to == RT_F32) return 0;
        if (op->sched.post_dw >= 0) {
            const rt_dwconv_params *dp = g->ops[op->sched.post_dw].params;
            op->scratch_bytes = (size_t)rt_opt_conv_dw_typed_slot_bytes(dp, op->sched.band, w, p->in_c, ti, tc) *
                                (size_t)slots;
            return 0;
        }
        /* blocks of rows whose widened input, output and ADD rows stay near 64 KiB (16 at least) */
        int64_t row = ((int64_t)k + 2 * (int64_t)p->out_c) * 4;
        int32_t per = (int32_t)(65536 / (row > 0 ? row : 1)) / 16 * 16;
        op->sched.rows = op->sched.rows < per ? op->sched.rows : per < 16 ? 16 : per;
        int64_t slot = rt_opt_conv_typed_scratch(w, ti, tc, to, op->sched.direct, p->batches * p->out_h * p->out_w,
                                                 op->sched.rows, p->out_c, k);
        op->scratch_bytes = (size_t)pass_conv_half_slot(p, w, op->sched.direct, slot) * (size_t)slots;
        return 0;
    }
    if (op->sched.kind == SCHED_DWCONV && (rt_type(g, op->in[0]) != RT_F32 || rt_type(g, op->out[0]) != RT_F32)) {
        const rt_dwconv_params *p = op->params;
        op->sched.band = 4;
        op->sched.slots = g->root ? 1 : (g->threads > 1 ? g->threads : 1);
        op->scratch_bytes = (size_t)rt_opt_dwconv_typed_slot_bytes(p, op->sched.band, rt_type(g, op->out[0])) *
                            (size_t)op->sched.slots;
        return 0;
    }
    if (op->sched.kind == SCHED_GEMM) {
        const rt_fc_params *p = op->params;
        int32_t w = rt_type(g, op->in[1]), ta = rt_type(g, op->in[0]), tc = rt_type(g, op->out[0]);
        if (ta != RT_F32 || tc != RT_F32)
            op->scratch_bytes = (size_t)rt_opt_fc_typed_scratch(w, ta, tc, p->batches, p->out_depth, p->in_depth);
    } else if (op->sched.kind == SCHED_LAYER_NORM) {
        const rt_opt_ln_params *p = op->sched.kparams;
        if (rt_type(g, op->in[0]) != RT_F32 || rt_type(g, op->out[0]) != RT_F32)
            op->scratch_bytes = sizeof(float) * (size_t)p->cols;
    } else if (op->sched.kind == SCHED_ATTENTION) {
        rt_opt_attn_params *p = op->sched.kparams;
        p->tq = rt_type(g, op->in[0]);
        p->tk = rt_type(g, op->in[1]);
        p->tv = rt_type(g, op->in[2]);
        p->tmask = p->mask == RT_OPT_MASK_ADD ? rt_type(g, op->in[3]) : RT_F32;
        p->tout = rt_type(g, op->out[0]);
    }
    return 0;
}

int pass_half_storage(Graph *g, Diag *d) {
    const IrPrecision *pr = g->root ? NULL : g->precision;
    if (g->opt_level < 1 || g->target_cuda || !pr || (pr->mode != IR_PREC_BF16 && pr->mode != IR_PREC_FP16) ||
        pr->f32_activations)
        return 0;
    if (precision_cost_arith16(g->isa) == 0 && !pr->half_activations) {
        g->half_report = ir_sprintf(g, "16-bit activations: none, --isa %s %s no 16-bit arithmetic (activations "
                                       "f32, weights 16-bit; --half-activations stores them in 16 bits)\n",
                                    ir_isa_name(g->isa), g->isa == IR_ISA_GENERIC ? "plans for" : "has");
        return g->half_report ? 0 : diag_internal(d, "out of memory");
    }
    IrDType half = pr->mode == IR_PREC_BF16 ? IR_BF16 : IR_F16;
    char *cand = calloc((size_t)g->n_tensors + 1, 1);
    int *readers = pass_count_readers(g); /* graph-owned */
    if (!cand || !readers) {
        free(cand);
        return diag_internal(d, "out of memory");
    }
    for (int t = 0; t < g->n_tensors; t++) { /* live activations: written and read by live ops */
        const IrTensor *x = &g->tensors[t];
        cand[t] = x->dtype == IR_F32 && !x->data && !x->is_variable && !x->is_input && !x->is_output &&
                  x->producer >= 0 && x->producer < g->n_ops && !g->ops[x->producer].dead && readers[t] > 0 &&
                  ir_tensor_numel(x) > 0;
    }
    for (int i = 0; i < g->n_ops; i++) {
        const IrOp *op = &g->ops[i];
        if (op->dead) continue;
        for (int k = 0; k < op->n_in; k++)
            if (op->in[k] >= 0 && !typed_io(g, op, k, half == IR_BF16)) cand[op->in[k]] = 0;
        for (int k = 0; k < op->n_out; k++)
            if (op->out[k] >= 0 && (k > 0 || !typed_io(g, op, -1, half == IR_BF16))) cand[op->out[k]] = 0;
    }
    /* The fp16 range guard, on the calibrated ranges of the tensors as imported. */
    char *report = NULL;
    size_t rlen = 0;
    int guarded = 0;
    for (int t = 0; half == IR_F16 && t < g->n_tensors; t++) {
        if (!cand[t] || t >= pr->n_stats || !(pr->min[t] <= pr->max[t])) continue;
        float reach = fmaxf(fabsf(pr->min[t]), fabsf(pr->max[t]));
        if (reach <= 65504.0f) continue;
        if (pr->no_range_guard) continue;
        cand[t] = 0;
        guarded++;
        char nb[96], line[256];
        int n = snprintf(line, sizeof line, "  '%s' kept f32: calibrated values reach %.3g, beyond fp16's 65504\n",
                         txt_terminal(nb, sizeof nb, g->tensors[t].name, 80), reach);
        char *r = realloc(report, rlen + (size_t)n + 1);
        if (!r) {
            free(report);
            free(cand);
            return diag_internal(d, "out of memory");
        }
        report = r;
        memcpy(report + rlen, line, (size_t)n + 1);
        rlen += (size_t)n;
    }
    /* A pass-through op's two sides are stored alike. */
    for (int changed = 1; changed;) {
        changed = 0;
        for (int i = 0; i < g->n_ops; i++) {
            const IrOp *op = &g->ops[i];
            if (op->dead || !pass_through(op) || op->in[0] < 0 || cand[op->in[0]] == cand[op->out[0]]) continue;
            cand[op->in[0]] = cand[op->out[0]] = 0;
            changed = 1;
        }
    }
    int n = 0;
    int64_t saved = 0;
    for (int t = 0; t < g->n_tensors; t++)
        if (cand[t]) {
            saved += ir_tensor_bytes(&g->tensors[t]) / 2;
            g->tensors[t].dtype = half;
            n++;
        }
    for (int i = 0; i < g->n_ops; i++)
        if (!g->ops[i].dead && retype(g, &g->ops[i], d)) {
            free(report);
            free(cand);
            return diag_internal(d, "operator %d: re-preparing for 16-bit storage failed", g->ops[i].tfl_index);
        }
    g->half_report = ir_sprintf(g, "16-bit activations (%s): %d tensors, %lld bytes fewer than f32%s\n%s",
                                ir_dtype_name(half), n, (long long)saved,
                                half != IR_F16            ? ""
                                : pr->no_range_guard      ? "; fp16 range guard off (--no-range-guard)"
                                : pr->n_stats == 0        ? "; fp16 range guard: no calibration ranges, nothing checked"
                                : guarded                 ? "; fp16 range guard:"
                                                          : "; fp16 range guard: every calibrated tensor within 65504",
                                report ? report : "");
    free(report);
    free(cand);
    return g->half_report ? 0 : diag_internal(d, "out of memory");
}
