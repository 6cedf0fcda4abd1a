/* cuda_emit_hybrid.c - --target cuda: TFLite's hybrid ops (float activations, int8 constant
 * weights: dynamic-range quantized FULLY_CONNECTED, CONV_2D, DEPTHWISE_CONV_2D; kernels in
 * runtime/cuda/mpcc_cuda_hybrid.cuh). One kind, CU_HYBRID.
 *
 * Each op's kernel is launched twice: phase 0 quantizes every batch row of the float input to
 * int8 (its scale and zero point computed on the device, as rt_hybrid_quantize_row does), phase
 * 1 computes the outputs from the quantized rows. The quantized rows and their scales and zero
 * points live past the end of the static plan: the CUDA arena is the C target's plus
 * e->arena_extra bytes (the largest hybrid op's need over every subgraph the model runs; ops run
 * one after another on one stream, so they share it). A subgraph's arena (control flow,
 * composites, signatures) is a slice of the model's, so its hybrid ops address this one tail,
 * past the model's whole plan, through ctx->arena. The weights' row sums (FULLY_CONNECTED's zero-point term) are computed
 * here and uploaded with the weights.
 *
 * Also the other mixed-width ops, kind CU_S16X8: int16 activations with int8 weights
 * (FULLY_CONNECTED 16x8 with its int64 bias, PRELU with an int8 alpha), bit-exact with
 * rt_fully_connected_i16 / rt_prelu_i16. */
#include "cuda_internal.h"

#include <stdlib.h>
#include <string.h>

static int64_t align256(int64_t n) { return (n + 255) / 256 * 256; }

/* Batch rows and values per row that phase 0 quantizes. */
static void hybrid_rows(const IrOp *op, int64_t *rows, int64_t *len) {
    if (op->kind == OP_FULLY_CONNECTED) {
        const rt_fc_params *p = op->params;
        *rows = p->batches, *len = p->in_depth;
    } else if (op->kind == OP_CONV_2D) {
        const rt_conv_params *p = op->params;
        *rows = p->batches, *len = (int64_t)p->in_h * p->in_w * p->in_c;
    } else {
        const rt_dwconv_params *p = op->params;
        *rows = p->batches, *len = (int64_t)p->in_h * p->in_w * p->in_c;
    }
}

/* The arena tail's layout: q [rows * len] at 0, scales [rows] at *scales, zero points at *zps. */
static int64_t hybrid_tail(const IrOp *op, int64_t *scales, int64_t *zps) {
    int64_t rows, len;
    hybrid_rows(op, &rows, &len);
    *scales = align256(rows * len);
    *zps = *scales + (4 * rows + 15) / 16 * 16;
    return *zps + 4 * rows;
}

/* Did pass fuse_add give op a residual ADD (its dead ADD op)? Read so, not as post_add >= 0:
 * without pass schedule (-O0) the sched fields are never set to -1. */
static int has_fused_add(const Graph *g, const IrOp *op) {
    int a = op->sched.post_add;
    return a >= 0 && a < g->n_ops && &g->ops[a] != op && g->ops[a].kind == OP_ADD && g->ops[a].dead;
}

/* int16 activations, int8 weights: FULLY_CONNECTED and PRELU (16x8). */
static CuKind classify_s16x8(const Graph *g, const IrOp *op, const char **why, int *mine) {
    if (!op->params || op->n_in < 2 || op->n_out < 1 || cu_dt_in(g, op, 0) != IR_I16 || cu_dt_in(g, op, 1) != IR_I8 ||
        g->tensors[op->out[0]].dtype != IR_I16)
        return CU_NONE;
    *mine = 1;
    if (op->kind == OP_PRELU) {
        if (((const rt_prelu_params *)op->params)->shape.rank > MPCC_CU_MAX_RANK) return *why = "rank above 8", CU_NONE;
        return CU_S16X8;
    }
    const rt_fc_params *p = op->params;
    if (op->n_in > 2 && op->in[2] >= 0 && g->tensors[op->in[2]].dtype != IR_I64)
        return *why = "int16 FULLY_CONNECTED with a non-int64 bias", CU_NONE;
    if (!p->mult || !p->shift) return *why = "int16 FULLY_CONNECTED without requantization multipliers", CU_NONE;
    return CU_S16X8;
}

CuKind cu_classify_hybrid(const Graph *g, const IrOp *op, const char **why, int *mine) {
    if (op->kind == OP_PRELU || op->kind == OP_FULLY_CONNECTED) {
        CuKind k = classify_s16x8(g, op, why, mine);
        if (*mine) return k;
    }
    if (op->kind != OP_FULLY_CONNECTED && op->kind != OP_CONV_2D && op->kind != OP_DEPTHWISE_CONV_2D) return CU_NONE;
    if (!op->params || op->n_in < 2 || cu_dt_in(g, op, 0) != IR_F32 ||
        (cu_dt_in(g, op, 1) != IR_I8 && cu_dt_in(g, op, 1) != IR_U8))
        return CU_NONE;
    *mine = 1;
    const IrTensor *w = &g->tensors[op->in[1]];
    int b = op->n_in > 2 ? op->in[2] : -1;
    if (w->dtype != IR_I8) return *why = "hybrid float input with uint8 weights (TFLite's hybrid kernels take int8)", CU_NONE;
    if (!w->data) return *why = "hybrid float input with int8 weights that are not constant", CU_NONE;
    if (b >= 0 && g->tensors[b].dtype != IR_F32) return *why = "hybrid op with a non-float bias", CU_NONE;
    if (g->tensors[op->out[0]].dtype != IR_F32) return *why = "hybrid op with a non-float output", CU_NONE;
    if (has_fused_add(g, op)) return *why = "hybrid op with a fused residual ADD (no CUDA epilogue for it)", CU_NONE;
    if (w->q.block) return *why = "hybrid op with block-wise weight scales (no CUDA kernel for them)", CU_NONE;
    if (op->kind == OP_CONV_2D) {
        const rt_conv_params *p = op->params;
        if (p->w_scales && w->q.count != p->out_c)
            return *why = "hybrid convolution whose filter scales are not one per output channel", CU_NONE;
        if (p->filter_c <= 0 || p->in_c % p->filter_c || p->out_c % (p->in_c / p->filter_c))
            return *why = "hybrid convolution whose groups do not divide the channels", CU_NONE;
    }
    int64_t rows, len;
    hybrid_rows(op, &rows, &len);
    if (rows > 65535) return *why = "hybrid op with more than 65535 batch rows (one CUDA block each)", CU_NONE;
    return CU_HYBRID;
}

int cu_xconsts_hybrid(CuEmit *e, int i, const IrOp *op) {
    const Graph *g = e->g;
    if (cu_dt_in(g, op, 0) == IR_I16) { /* CU_S16X8 */
        const rt_fc_params *p = op->params;
        if (op->kind != OP_FULLY_CONNECTED) return 0;
        return cu_xconst_requant(e, i, 0, p->mult, p->shift, p->out_depth, p->per_channel);
    }
    const IrTensor *w = &g->tensors[op->in[1]];
    const int8_t *wd = (const int8_t *)w->data;
    int64_t sc, zp, need = hybrid_tail(op, &sc, &zp);
    if (need > e->arena_extra) e->arena_extra = need;
    if (op->kind == OP_FULLY_CONNECTED) {
        const rt_fc_params *p = op->params;
        int32_t *sums = malloc(sizeof(int32_t) * (size_t)(p->out_depth > 0 ? p->out_depth : 1));
        if (!sums) return -1;
        for (int32_t n = 0; n < p->out_depth; n++) { /* as the reference's row_sum (plain int32 adds) */
            int32_t s = 0;
            for (int32_t k = 0; k < p->in_depth; k++) s += wd[(int64_t)n * p->in_depth + k];
            sums[n] = s;
        }
        if (cu_xconst_add(e, i, 0, sums, 4 * (int64_t)p->out_depth)) return -1;
        return p->w_scales ? cu_xconst_copy(e, i, 1, p->w_scales, 4 * (int64_t)p->out_depth) : 0;
    }
    if (op->kind == OP_CONV_2D) {
        const rt_conv_params *p = op->params;
        return p->w_scales ? cu_xconst_copy(e, i, 1, p->w_scales, 4 * (int64_t)p->out_c) : 0;
    }
    const rt_dwconv_params *p = op->params;
    return cu_xconst_copy(e, i, 1, p->w_scales, 4 * (int64_t)p->in_c * p->depth_mult);
}

static int emit_s16x8(CuEmit *e, CgBuf *kb, int index, const IrOp *op) {
    CgCtx *cg = &e->cg;
    int64_t n = ir_tensor_numel(&e->g->tensors[op->out[0]]);
    if (op->kind == OP_PRELU) {
        const rt_prelu_params *p = op->params;
        cg_line(cg, "mpcc_prelu_args p;");
        cg_line(cg, "memset(&p, 0, sizeof p);");
        cg_line(cg, "p.in = %s; p.alpha = %s; p.out = %s; p.n = %lld; p.rank = %d;", cu_ptr(e, op->in[0], "const void"),
                cu_ptr(e, op->in[1], "const void"), cu_ptr(e, op->out[0], "void"), (long long)n, p->shape.rank);
        for (int k = 0; k < p->shape.rank; k++)
            cg_line(cg, "p.dims[%d] = %d; p.astride[%d] = %d;", k, p->shape.dims[k], k, p->alpha_stride[k]);
        cg_line(cg, "p.in_offset = %d; p.alpha_offset = %d; p.out_offset = %d;", p->in_offset, p->alpha_offset, p->out_offset);
        cg_line(cg, "p.mult_1 = %d; p.shift_1 = %d; p.mult_2 = %d; p.shift_2 = %d;", p->mult_1, p->shift_1, p->mult_2, p->shift_2);
        cu_kernel_def(e, kb, index, "mpcc_prelu_args", 256, "mpcc_prelu_s16_body");
        cu_launch(e, index, cu_blocks_for(n), 1, 1, 0, 256, NULL);
        return 0;
    }
    const rt_fc_params *p = op->params;
    cg_line(cg, "mpcc_fc_s16_args p;");
    cg_line(cg, "memset(&p, 0, sizeof p);");
    cg_line(cg, "p.in = %s; p.w = %s; p.bias = %s; p.out = %s;", cu_ptr(e, op->in[0], "const int16_t"),
            cu_ptr(e, op->in[1], "const int8_t"), cu_ptr(e, op->n_in > 2 ? op->in[2] : -1, "const long long"),
            cu_ptr(e, op->out[0], "int16_t"));
    cg_line(cg, "p.mult = %s; p.shift = %s;", cu_xptr(e, index, 0, "const int32_t"), cu_xptr(e, index, 1, "const int32_t"));
    cg_line(cg, "p.count = %lld; p.in_depth = %d; p.out_depth = %d;", (long long)n, p->in_depth, p->out_depth);
    cg_line(cg, "p.in_offset = %d; p.w_offset = %d; p.out_offset = %d; p.qmin = %d; p.qmax = %d;", p->in_offset, p->w_offset,
            p->out_offset, p->act_qmin, p->act_qmax);
    cu_kernel_def(e, kb, index, "mpcc_fc_s16_args", 256, "mpcc_fc_s16_body");
    cu_launch(e, index, cu_blocks_for(n * 32), 1, 1, 0, 256, NULL);
    return 0;
}

int cu_emit_hybrid(CuEmit *e, CgBuf *kb, int index, const IrOp *op) {
    const Graph *g = e->g;
    CgCtx *cg = &e->cg;
    if (cu_dt_in(g, op, 0) == IR_I16) return emit_s16x8(e, kb, index, op);
    /* The tail follows the whole model's arena (subgraph 0's plan holds every subgraph's slice),
     * so a subgraph's hybrid op (its `a` is a slice) reaches it through ctx->arena. */
    const Graph *root = g->root ? g->root : g;
    int64_t rows, len, sc, zp, base = align256(root->arena_bytes), count = ir_tensor_numel(&g->tensors[op->out[0]]);
    int kind = op->kind == OP_FULLY_CONNECTED ? 0 : op->kind == OP_CONV_2D ? 1 : 2;
    const char *arena = g->root ? "((unsigned char *)ctx->arena)" : "a";
    hybrid_rows(op, &rows, &len);
    hybrid_tail(op, &sc, &zp);
    if (!g->root) e->uses_a = 1;
    cg_line(cg, "mpcc_hybrid_args p;");
    cg_line(cg, "memset(&p, 0, sizeof p);");
    cg_line(cg, "p.in = %s; p.w = %s; p.bias = %s; p.out = %s;", cu_ptr(e, op->in[0], "const float"),
            cu_ptr(e, op->in[1], "const int8_t"), cu_ptr(e, op->n_in > 2 ? op->in[2] : -1, "const float"),
            cu_ptr(e, op->out[0], "float"));
    cg_line(cg, "p.w_scales = %s; p.row_sums = %s;", cu_xptr(e, index, 1, "const float"), cu_xptr(e, index, 0, "const int32_t"));
    cg_line(cg, "/* the run-time quantized input, past the static plan (%s_ARENA_BYTES counts it) */", e->o->prefix);
    cg_line(cg, "p.q = (int8_t *)(%s + %lld); p.scales = (float *)(%s + %lld); p.zps = (int32_t *)(%s + %lld);", arena,
            (long long)base, arena, (long long)(base + sc), arena, (long long)(base + zp));
    cg_line(cg, "p.row_len = %lld; p.count = %lld; p.kind = %d; p.batches = %lld;", (long long)len, (long long)count, kind,
            (long long)rows);
    if (kind == 0) {
        const rt_fc_params *p = op->params;
        cg_line(cg, "p.asymmetric = %d; p.in_c = %d; p.out_c = %d;", p->asymmetric != 0, p->in_depth, p->out_depth);
        cg_line(cg, "p.w_scale = %s; p.act_min = %s;", cu_f32(e, p->w_scale), cu_f32(e, p->act_min));
        cg_line(cg, "p.act_max = %s;", cu_f32(e, p->act_max));
    } else {
        float lo, hi, ws = 0.0f;
        int asym = 1, filter_c = 0, mult = 1;
        cu_emit_conv_geometry(e, op);
        if (kind == 1) {
            const rt_conv_params *p = op->params;
            lo = p->act_min, hi = p->act_max, ws = p->w_scale, asym = p->w_scales != NULL, filter_c = p->filter_c;
        } else {
            const rt_dwconv_params *p = op->params;
            lo = p->act_min, hi = p->act_max, mult = p->depth_mult;
        }
        cg_line(cg, "p.asymmetric = %d; p.filter_c = %d; p.depth_mult = %d;", asym, filter_c, mult);
        cg_line(cg, "p.w_scale = %s; p.act_min = %s;", cu_f32(e, ws), cu_f32(e, lo));
        cg_line(cg, "p.act_max = %s;", cu_f32(e, hi));
    }
    cu_kernel_def(e, kb, index, "mpcc_hybrid_args", 256, "mpcc_hybrid_body");
    cg_line(cg, "p.phase = 0; /* quantize each batch row: one block per row */");
    cu_launch(e, index, rows, 1, 1, 0, 256, NULL);
    cg_line(cg, "p.phase = 1; /* the outputs */");
    cu_launch(e, index, kind == 0 ? cu_blocks_for(count * 32) : cu_blocks_for(count), 1, 1, 0, 256, NULL);
    return 0;
}
