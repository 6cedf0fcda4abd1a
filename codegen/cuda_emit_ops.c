/* cuda_emit_ops.c - --target cuda: the launch machinery (argument structs, kernel wrappers, launches for
 * nvcc and --jit, constants derived here) and the float / tensor-core kernels. */
#include "cuda_internal.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "text.h"


/* Takes ownership of data (malloc'd; NULL: out of memory). */
int cu_xconst_add(CuEmit *e, int op, int slot, void *data, int64_t bytes) {
    if (!data) return -1;
    if (e->n_xc == e->cap_xc) {
        int cap = e->cap_xc ? 2 * e->cap_xc : 16;
        CuXConst *n = realloc(e->xc, sizeof *n * (size_t)cap);
        if (!n) {
            free(data);
            return -1;
        }
        e->xc = n, e->cap_xc = cap;
    }
    CuXConst *x = &e->xc[e->n_xc++];
    x->op = op, x->slot = slot, x->off = e->blob_bytes, x->bytes = bytes, x->data = data;
    e->blob_bytes += (bytes + BLOB_ALIGN - 1) / BLOB_ALIGN * BLOB_ALIGN;
    return 0;
}

int cu_xconst_copy(CuEmit *e, int op, int slot, const void *src, int64_t bytes) {
    void *d = malloc((size_t)(bytes > 0 ? bytes : 1));
    if (d) memcpy(d, src, (size_t)bytes);
    return cu_xconst_add(e, op, slot, d, bytes);
}

/* A device pointer to op's slot-th extra array. */
const char *cu_xptr(CuEmit *e, int op, int slot, const char *type) {
    char *s = cg_pool_str(&e->cg);
    for (int i = 0; i < e->n_xc; i++)
        if (e->xc[i].op == op && e->xc[i].slot == slot) {
            snprintf(s, CG_POOL_LEN, "(%s *)(w + %lld)", type, (long long)e->xc[i].off);
            e->uses_w = 1;
            return s;
        }
    return "NULL";
}

const char *cu_ptr(CuEmit *e, int id, const char *type) {
    char *s = cg_pool_str(&e->cg);
    const Graph *g = e->g;
    if (id < 0) return "NULL";
    const IrTensor *t = &g->tensors[id];
    if (t->data) {
        snprintf(s, CG_POOL_LEN, "(%s *)(w + %lld)", type, (long long)e->woff[id]);
        e->uses_w = 1;
        return s;
    }
    for (int i = 0; t->is_input && i < g->n_inputs; i++)
        if (g->inputs[i] == id) {
            snprintf(s, CG_POOL_LEN, "(%s *)inputs[%d]", type, i);
            return s;
        }
    for (int i = 0; t->is_output && i < g->n_outputs; i++)
        if (g->outputs[i] == id) {
            snprintf(s, CG_POOL_LEN, "(%s *)outputs[%d]", type, i);
            return s;
        }
    snprintf(s, CG_POOL_LEN, "(%s *)(a + %lld)", type, (long long)ir_t((Graph *)g, ir_storage_root(g, id))->offset);
    e->uses_a = 1;
    return s;
}

void cu_use_const(CuEmit *e, int id) {
    if (id < 0 || !e->g->tensors[id].data || e->woff[id] >= 0) return;
    e->woff[id] = e->blob_bytes;
    e->blob_bytes += (ir_tensor_bytes(&e->g->tensors[id]) + BLOB_ALIGN - 1) / BLOB_ALIGN * BLOB_ALIGN;
}

/* int8 GEMM (FULLY_CONNECTED, 1x1 CONV_2D): bias[n] - in_zp * sum_k w[n][k], so the GEMM sums raw
 * int8 products (modulo 2^32, as the reference's wrapping sum). */
int32_t *cu_fold_s8_bias(const Graph *g, int w_id, int b_id, int32_t out_depth, int32_t in_depth, int32_t in_offset) {
    const int8_t *w = (const int8_t *)g->tensors[w_id].data;
    const int32_t *b = b_id >= 0 ? (const int32_t *)g->tensors[b_id].data : NULL;
    int32_t *f = malloc(sizeof(int32_t) * (size_t)(out_depth > 0 ? out_depth : 1));
    if (!f || !w) {
        free(f);
        return NULL;
    }
    for (int32_t n = 0; n < out_depth; n++) {
        int64_t s = 0;
        for (int32_t k = 0; k < in_depth; k++) s += w[(int64_t)n * in_depth + k];
        int32_t bias;
        memcpy(&bias, b ? (const void *)(b + n) : (const void *)"\0\0\0\0", 4);
        f[n] = (int32_t)(uint32_t)((uint64_t)(int64_t)bias + (uint64_t)((int64_t)in_offset * s));
    }
    return f;
}

/* Per-channel requantization arrays of n entries (a per-tensor pair repeated when !per_channel). */
int cu_xconst_requant(CuEmit *e, int op, int slot, const int32_t *mult, const int32_t *shift, int32_t n, int per_channel) {
    int32_t *m = malloc(sizeof(int32_t) * (size_t)(n > 0 ? n : 1)), *s = malloc(sizeof(int32_t) * (size_t)(n > 0 ? n : 1));
    if (!m || !s) {
        free(m), free(s);
        return -1;
    }
    for (int32_t c = 0; c < n; c++) m[c] = mult[per_channel ? c : 0], s[c] = shift[per_channel ? c : 0];
    if (cu_xconst_add(e, op, slot, m, 4 * (int64_t)n)) {
        free(s);
        return -1;
    }
    return cu_xconst_add(e, op, slot + 1, s, 4 * (int64_t)n);
}

/* The extra arrays op i's kernel reads (before any launch is emitted: their offsets appear there). */
int cu_xconsts(CuEmit *e, int i, const IrOp *op, CuKind kind) {
    const Graph *g = e->g;
    switch (kind) {
    case CU_GEMM_S8: { /* slots 0 folded bias, 1 mult, 2 shift */
        const rt_fc_params *p = op->params;
        int32_t *f = cu_fold_s8_bias(g, op->in[1], op->n_in > 2 ? op->in[2] : -1, p->out_depth, p->in_depth, p->in_offset);
        if (cu_xconst_add(e, i, 0, f, 4 * (int64_t)p->out_depth)) return -1;
        return cu_xconst_requant(e, i, 1, p->mult, p->shift, p->out_depth, p->per_channel);
    }
    case CU_CONV_S8_GEMM: {
        const rt_conv_params *p = op->params;
        int32_t *f = cu_fold_s8_bias(g, op->in[1], cu_conv_bias_id(op), p->out_c, p->in_c, p->in_offset);
        if (cu_xconst_add(e, i, 0, f, 4 * (int64_t)p->out_c)) return -1;
        return cu_xconst_requant(e, i, 1, p->mult, p->shift, p->out_c, 1);
    }
    case CU_CONV_S8:
        if (op->kind == OP_DEPTHWISE_CONV_2D) {
            const rt_dwconv_params *p = op->params;
            return cu_xconst_requant(e, i, 1, p->mult, p->shift, p->in_c * p->depth_mult, 1);
        } else {
            const rt_conv_params *p = op->params;
            return cu_xconst_requant(e, i, 1, p->mult, p->shift, p->out_c, 1);
        }
    case CU_LUT_S8:
        if (op->kind == OP_EXP || op->kind == OP_LOG) { /* rt_unary_params: lut[q + 128]; the kernel indexes (uint8_t)q */
            const int8_t *l = ((const rt_unary_params *)op->params)->lut;
            int8_t *t = malloc(256);
            for (int q = -128; t && q < 128; q++) t[(uint8_t)q] = l[q + 128];
            return cu_xconst_add(e, i, 0, t, 256);
        }
        return cu_xconst_copy(e, i, 0, ((const rt_act_params *)op->params)->lut_i8, 256);
    case CU_SOFTMAX_S8: /* exp of each input difference -d, Q0.31 (made by the op's prepare) */
        return cu_xconst_copy(e, i, 0, ((const rt_softmax_params *)op->params)->exp_q0, 4 * 256);
    case CU_LAYOUT: return cu_xconsts_layout(e, i, op);
    case CU_MISC: return cu_xconsts_misc(e, i, op);
    case CU_RNN: return cu_xconsts_rnn(e, i, op);
    case CU_HYBRID: case CU_S16X8: return cu_xconsts_hybrid(e, i, op);
    default: return cu_xconsts_s16(e, i, op, kind);
    }
}

const char *cu_f32(CuEmit *e, float v) { return cg_f32(&e->cg, v); }

/* Launch helpers: the kernel wrapper goes to kb (the kernels section), the
 * launch to the run function (cg). */
void cu_kernel_def(CuEmit *e, CgBuf *kb, int index, const char *args_type, int threads, const char *body) {
    if (threads > 0)
        cgbuf_printf(kb, "extern \"C\" __global__ void __launch_bounds__(%d) %s_k%d(%s p) { %s(p); }\n", threads,
                     e->o->prefix, index, args_type, body);
    else
        cgbuf_printf(kb, "extern \"C\" __global__ void %s_k%d(%s p) { %s(p); }\n", e->o->prefix, index, args_type, body);
}

/* The launch of op `index`'s kernel on stream s with the argument struct p. cfg: NULL for the
 * SIMT kernels (`threads` per block, no dynamic shared memory), else the C++ config type of a
 * templated kernel, whose ::threads and ::smem_bytes configure the cu_launch (and ::block_m, the
 * rows per block, when gx_rows > 0: gx = ceil(gx_rows / block_m)). Under --jit the host cannot
 * evaluate C++, so the kernel source publishes these as `extern "C" __device__ int` globals that
 * PREFIX_cuda_init reads once (ctx->threads[], ctx->smem[], ctx->block_m[]). */
void cu_launch(CuEmit *e, int index, int64_t gx, int64_t gy, int64_t gz, int64_t gx_rows, int threads,
                   const char *cfg) {
    CgCtx *cg = &e->cg;
    const char *P = e->o->prefix;
    int slot = e->n_kernels;
    if (e->o->jit) {
        if (cfg) {
            cgbuf_printf(e->kb, "extern \"C\" __device__ int %s_k%d_threads = %s::threads;\n", P, index, cfg);
            cgbuf_printf(e->kb, "extern \"C\" __device__ int %s_k%d_smem = %s::smem_bytes;\n", P, index, cfg);
            if (gx_rows > 0) cgbuf_printf(e->kb, "extern \"C\" __device__ int %s_k%d_block_m = %s::block_m;\n", P, index, cfg);
            cgbuf_printf(e->attr, "    if (mpcc_jit_global_i32(m, \"%s_k%d_threads\", &ctx->threads[%d]) ||\n"
                                  "        mpcc_jit_global_i32(m, \"%s_k%d_smem\", &ctx->smem[%d]))\n"
                                  "        return %s_fail(ctx, %d);\n", P, index, slot, P, index, slot, P, index);
            if (gx_rows > 0)
                cgbuf_printf(e->attr, "    if (mpcc_jit_global_i32(m, \"%s_k%d_block_m\", &ctx->block_m[%d])) return %s_fail(ctx, %d);\n",
                             P, index, slot, P, index);
        } else {
            cgbuf_printf(e->attr, "    ctx->threads[%d] = %d;\n", slot, threads);
        }
        char gxs[96];
        if (gx_rows > 0) snprintf(gxs, sizeof gxs, "(unsigned)((%lld + ctx->block_m[%d] - 1) / ctx->block_m[%d])", (long long)gx_rows, slot, slot);
        else snprintf(gxs, sizeof gxs, "%lldu", (long long)gx);
        cg_line(cg, "args[0] = &p;");
        cg_line(cg, "if (mpcc_jit_launch(j, (mpcc_jit_fn *)ctx->fn[%d], %s, %lldu, %lldu, (unsigned)ctx->threads[%d], 1, 1, "
                    "(unsigned)ctx->smem[%d], stream, args))", slot, gxs, (long long)gy, (long long)gz, slot, slot);
        cg_line(cg, "    return %s_fail(ctx, %d);", P, index);
        return;
    }
    if (cfg) {
        cg_line(cg, "typedef %s cfg;", cfg);
        if (gx_rows > 0)
            cg_line(cg, "MPCC_LAUNCH(%s_k%d, dim3((%lld + cfg::block_m - 1) / cfg::block_m, %lld, %lld), dim3(cfg::threads), cfg::smem_bytes, s, p);",
                    P, index, (long long)gx_rows, (long long)gy, (long long)gz);
        else
            cg_line(cg, "MPCC_LAUNCH(%s_k%d, dim3(%lld, %lld, %lld), dim3(cfg::threads), cfg::smem_bytes, s, p);", P, index,
                    (long long)gx, (long long)gy, (long long)gz);
        /* Over 48 KiB of dynamic shared memory must be allowed once per kernel. */
        cgbuf_printf(e->attr,
                     "    if ((err = cudaFuncSetAttribute(%s_k%d, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)%s::smem_bytes)) != cudaSuccess)\n"
                     "        return %s_fail(ctx, err, %d);\n", P, index, cfg, P, index);
    } else {
        cg_line(cg, "MPCC_LAUNCH(%s_k%d, dim3(%lld, %lld, %lld), dim3(%d), 0, s, p);", P, index, (long long)gx,
                (long long)gy, (long long)gz, threads);
    }
    cg_line(cg, "if ((err = cudaGetLastError()) != cudaSuccess) return %s_fail(ctx, err, %d);", P, index);
}

int64_t cu_blocks_for(int64_t n) {
    int64_t b = (n + 255) / 256;
    return b < 1 ? 1 : b > 8192 ? 8192 : b;
}

void cu_gemm_common(CuEmit *e, int64_t m, int64_t n, int64_t k, float a1lo, float a1hi) {
    cg_line(&e->cg, "p.m = %lld; p.n = %lld; p.k = %lld;", (long long)m, (long long)n, (long long)k);
    cg_line(&e->cg, "p.act1_min = %s; p.act1_max = %s; p.act2_min = -INFINITY; p.act2_max = INFINITY;", cu_f32(e, a1lo),
            cu_f32(e, a1hi));
}

const GemmTile cu_tile_large = {"128, 128, 32, 2, 4, 3", 128, 128, 256};
const GemmTile cu_tile_small = {"64, 64, 32, 2, 2, 3", 64, 64, 128};
const GemmTile cu_tile_s8 = {"64, 64, 64, 2, 2, 3", 64, 64, 128};

const GemmTile *cu_gemm_tile(int64_t m, int64_t n, int64_t batch) {
    return m * n * batch >= (int64_t)128 * 128 * 132 ? &cu_tile_large : &cu_tile_small;
}

/* The tensor-core mode of a float matmul: the weights' 16-bit dtype (pass precision), else
 * the model's --precision, else 3xTF32 (fp32-level accuracy) or, with --tf32, one TF32 pass. */
const char *cu_model_mma_mode(const CuEmit *e) {
    const Graph *g = e->g;
    return g->precision && g->precision->mode == IR_PREC_BF16   ? "MPCC_MMA_BF16"
           : g->precision && g->precision->mode == IR_PREC_FP16 ? "MPCC_MMA_F16"
           : e->o->tf32                                         ? "MPCC_MMA_TF32"
                                                                : "MPCC_MMA_3XTF32";
}

const char *cu_mma_mode(const CuEmit *e, const IrOp *op) {
    IrDType w = cu_dt_in(e->g, op, 1);
    if (w == IR_BF16) return "MPCC_MMA_BF16";
    if (w == IR_F16) return "MPCC_MMA_F16";
    return cu_model_mma_mode(e);
}

void cu_emit_gemm_launch(CuEmit *e, CgBuf *kb, int index, const char *mode, int b_nk, int64_t m, int64_t n,
                             int64_t batch) {
    const GemmTile *t = cu_gemm_tile(m, n, batch);
    char body[160], cfg[160];
    snprintf(body, sizeof body, "mpcc_gemm_body<%s, %s, %s>", mode, b_nk ? "true" : "false", t->args);
    cu_kernel_def(e, kb, index, "mpcc_gemm_args", t->threads, body);
    snprintf(cfg, sizeof cfg, "mpcc_gemm_cfg<%s, %s, %s>", mode, b_nk ? "true" : "false", t->args);
    cu_launch(e, index, (n + t->bn - 1) / t->bn, (m + t->bm - 1) / t->bm, batch, 0, t->threads, cfg);
}


/* An int8 GEMM on the IMMA kernel: A = input 0 (m x k), B = input 1 (n x k weights), the folded
 * bias and requantization arrays in the op's extra constants 0..2. single_rounding: TFLite's
 * FULLY_CONNECTED rounding (1) or the convolutions' gemmlowp double rounding (0). */
void cu_emit_gemm_s8(CuEmit *e, CgBuf *kb, int index, const IrOp *op, int64_t m, int32_t n, int32_t k,
                     int32_t out_offset, int32_t qmin, int32_t qmax, int single_rounding) {
    CgCtx *cg = &e->cg;
    const GemmTile *t = &cu_tile_s8;
    cg_line(cg, "mpcc_gemm_s8_args p;");
    cg_line(cg, "memset(&p, 0, sizeof p);");
    cg_line(cg, "p.a = %s; p.lda = %d;", cu_ptr(e, op->in[0], "const int8_t"), k);
    cg_line(cg, "p.b = %s; p.ldb = %d;", cu_ptr(e, op->in[1], "const int8_t"), k);
    cg_line(cg, "p.bias = %s; p.mult = %s; p.shift = %s;", cu_xptr(e, index, 0, "const int32_t"),
            cu_xptr(e, index, 1, "const int32_t"), cu_xptr(e, index, 2, "const int32_t"));
    cg_line(cg, "p.c = %s; p.ldc = %d;", cu_ptr(e, op->out[0], "int8_t"), n);
    if (single_rounding)
        cg_line(cg, "p.m = %d; p.n = %d; p.k = %d; p.out_offset = %d; p.qmin = %d; p.qmax = %d;", (int)m, n, k,
                out_offset, qmin, qmax);
    else
        cg_line(cg, "p.m = %lld; p.n = %d; p.k = %d; p.out_offset = %d; p.qmin = %d; p.qmax = %d;", (long long)m, n, k,
                out_offset, qmin, qmax);
    cg_line(cg, "p.single_rounding = %d; /* as TFLite's %s */", single_rounding,
            single_rounding ? "FULLY_CONNECTED" : "CONV_2D");
    char body[96], cfg[96];
    snprintf(body, sizeof body, "mpcc_gemm_s8_body<%s>", t->args);
    snprintf(cfg, sizeof cfg, "mpcc_gemm_s8_cfg<%s>", t->args);
    cu_kernel_def(e, kb, index, "mpcc_gemm_s8_args", t->threads, body);
    cu_launch(e, index, (n + t->bn - 1) / t->bn, (m + t->bm - 1) / t->bm, 1, 0, t->threads, cfg);
}

/* The geometry of a CONV_2D / DEPTHWISE_CONV_2D argument struct (f32 and int8 alike). */
void cu_emit_conv_geometry(CuEmit *e, const IrOp *op) {
    int32_t b, ih, iw, ic, oh, ow, oc, fh, fw, sh, sw, dh, dwl, ph, pw;
    if (op->kind == OP_DEPTHWISE_CONV_2D) {
        const rt_dwconv_params *p = op->params;
        b = p->batches, ih = p->in_h, iw = p->in_w, ic = p->in_c, oh = p->out_h, ow = p->out_w;
        oc = p->in_c * p->depth_mult, fh = p->filter_h, fw = p->filter_w, sh = p->stride_h, sw = p->stride_w;
        dh = p->dil_h, dwl = p->dil_w, ph = p->pad_h, pw = p->pad_w;
    } else {
        const rt_conv_params *p = op->params;
        b = p->batches, ih = p->in_h, iw = p->in_w, ic = p->in_c, oh = p->out_h, ow = p->out_w, oc = p->out_c;
        fh = p->filter_h, fw = p->filter_w, sh = p->stride_h, sw = p->stride_w;
        dh = p->dil_h, dwl = p->dil_w, ph = p->pad_h, pw = p->pad_w;
    }
    cg_line(&e->cg, "p.batches = %d; p.in_h = %d; p.in_w = %d; p.in_c = %d;", b, ih, iw, ic);
    cg_line(&e->cg, "p.out_h = %d; p.out_w = %d; p.out_c = %d; p.filter_h = %d; p.filter_w = %d;", oh, ow, oc, fh, fw);
    cg_line(&e->cg, "p.stride_h = %d; p.stride_w = %d; p.dil_h = %d; p.dil_w = %d; p.pad_h = %d; p.pad_w = %d;", sh, sw,
            dh, dwl, ph, pw);
}

/* The window geometry shared by the f32 and int8 pooling argument structs. */
void cu_emit_pool_geometry(CuEmit *e, const rt_pool_params *p) {
    cg_line(&e->cg, "p.batches = %d; p.in_h = %d; p.in_w = %d; p.channels = %d; p.out_h = %d; p.out_w = %d;",
            p->batches, p->in_h, p->in_w, p->channels, p->out_h, p->out_w);
    cg_line(&e->cg, "p.filter_h = %d; p.filter_w = %d; p.stride_h = %d; p.stride_w = %d; p.pad_h = %d; p.pad_w = %d;",
            p->filter_h, p->filter_w, p->stride_h, p->stride_w, p->pad_h, p->pad_w);
}

/* The element unit (4, 2 or 1 bytes: the widest dividing the run, offsets and strides) and the
 * number of units a strided copy moves. */
void cu_copy_plan(const rt_copy_params *p, int *unit, int64_t *total) {
    int64_t points = 1, all = p->run | p->in_offset | p->out_offset;
    for (int k = 0; k < p->rank; k++) points *= p->dims[k];
    for (int k = 0; k < p->rank; k++) all |= p->in_strides[k] | p->out_strides[k];
    *unit = 4;
    while (*unit > 1 && all % *unit) *unit /= 2;
    *total = p->run ? points * (p->run / *unit) : 0;
}

int cu_emit_op(CuEmit *e, CgBuf *kb, int index, const IrOp *op, CuKind kind, Diag *d) {
    const Graph *g = e->g;
    CgCtx *cg = &e->cg;
    switch (kind) {
    case CU_GEMM: {
        int64_t m, n, k;
        float lo, hi;
        int res = -1;
        if (op->kind == OP_FULLY_CONNECTED) {
            const rt_fc_params *p = op->params;
            m = p->batches, n = p->out_depth, k = p->in_depth, lo = p->act_min, hi = p->act_max;
        } else { /* 1x1 stride-1 unpadded CONV_2D: a GEMM over pixels */
            const rt_conv_params *p = op->params;
            m = (int64_t)p->batches * p->out_h * p->out_w, n = p->out_c, k = p->in_c, lo = p->act_min, hi = p->act_max;
            res = op->sched.post_add >= 0 ? op->sched.post_other : -1;
        }
        int half = cu_dt_in(g, op, 1) == IR_BF16 || cu_dt_in(g, op, 1) == IR_F16;
        cg_line(cg, "mpcc_gemm_args p;");
        cg_line(cg, "memset(&p, 0, sizeof p);");
        cg_line(cg, "p.a = %s; p.lda = %lld;", cu_ptr(e, op->in[0], "const float"), (long long)k);
        cg_line(cg, "p.b = %s; p.ldb = %lld; p.b_half = %d;", cu_ptr(e, op->in[1], "const void"), (long long)k, half);
        cg_line(cg, "p.bias = %s;", op->n_in > 2 ? cu_ptr(e, op->in[2], "const float") : "NULL");
        if (res >= 0) {
            const rt_binary_params *ap = g->ops[op->sched.post_add].params;
            cg_line(cg, "p.res = %s; p.ldr = %lld;", cu_ptr(e, res, "const float"), (long long)n);
            cu_gemm_common(e, m, n, k, lo, hi);
            cg_line(cg, "p.act2_min = %s; p.act2_max = %s;", cu_f32(e, ap->act_min), cu_f32(e, ap->act_max));
        } else {
            cu_gemm_common(e, m, n, k, lo, hi);
        }
        cg_line(cg, "p.c = %s; p.ldc = %lld;", cu_ptr(e, op->out[0], "float"), (long long)n);
        cu_emit_gemm_launch(e, kb, index, cu_mma_mode(e, op), 1, m, n, 1);
        return 0;
    }
    case CU_GEMM_S8: {
        const rt_fc_params *p = op->params;
        cu_emit_gemm_s8(e, kb, index, op, p->batches, p->out_depth, p->in_depth, p->out_offset, p->act_qmin,
                        p->act_qmax, 1);
        return 0;
    }
    case CU_BMM: {
        const rt_bmm_params *p = op->params;
        int64_t sa, sb, batch;
        cu_bmm_flat(p, &sa, &sb, &batch);
        int b_nk = p->rhs_sk == 1 && p->rhs_sj != 1;
        cg_line(cg, "mpcc_gemm_args p;");
        cg_line(cg, "memset(&p, 0, sizeof p);");
        cg_line(cg, "p.a = %s; p.lda = %d; p.sa = %lld;", cu_ptr(e, op->in[0], "const float"), p->lhs_si, (long long)sa);
        cg_line(cg, "p.b = %s; p.ldb = %d; p.sb = %lld;", cu_ptr(e, op->in[1], "const void"), b_nk ? p->rhs_sj : p->rhs_sk,
                (long long)sb);
        cu_gemm_common(e, p->m, p->n, p->k, -INFINITY, INFINITY);
        cg_line(cg, "p.c = %s; p.ldc = %d; p.sc = %lld;", cu_ptr(e, op->out[0], "float"), p->n, (long long)p->m * p->n);
        cu_emit_gemm_launch(e, kb, index, cu_mma_mode(e, op), b_nk, p->m, p->n, batch);
        return 0;
    }
    case CU_CONV: {
        const int dw = op->kind == OP_DEPTHWISE_CONV_2D;
        cg_line(cg, "mpcc_conv_args p;");
        cg_line(cg, "memset(&p, 0, sizeof p);");
        IrDType wdt = cu_dt_in(g, op, 1);
        if (wdt == IR_BF16 || wdt == IR_F16)
            cg_line(cg, "p.in = %s; p.filter16 = %s; p.half = %d; p.bias = %s;", cu_ptr(e, op->in[0], "const float"),
                    cu_ptr(e, op->in[1], "const uint16_t"), wdt == IR_BF16 ? 1 : 2,
                    op->n_in > 2 ? cu_ptr(e, op->in[2], "const float") : "NULL");
        else
            cg_line(cg, "p.in = %s; p.filter = %s; p.bias = %s;", cu_ptr(e, op->in[0], "const float"),
                    cu_ptr(e, op->in[1], "const float"), op->n_in > 2 ? cu_ptr(e, op->in[2], "const float") : "NULL");
        int64_t n;
        if (dw) {
            const rt_dwconv_params *p = op->params;
            cu_emit_conv_geometry(e, op);
            cg_line(cg, "p.depth_mult = %d; p.act1_min = %s; p.act1_max = %s;", p->depth_mult, cu_f32(e, p->act_min),
                    cu_f32(e, p->act_max));
            n = (int64_t)p->batches * p->out_h * p->out_w * p->in_c * p->depth_mult;
        } else {
            const rt_conv_params *p = op->params;
            if (p->filter_c != p->in_c) return diag_user(d, "operator %d (CONV_2D): grouped convolution has no CUDA kernel yet", op->tfl_index);
            cu_emit_conv_geometry(e, op);
            cg_line(cg, "p.act1_min = %s; p.act1_max = %s;", cu_f32(e, p->act_min), cu_f32(e, p->act_max));
            n = (int64_t)p->batches * p->out_h * p->out_w * p->out_c;
        }
        if (!dw && op->sched.post_add >= 0) {
            const rt_binary_params *ap = g->ops[op->sched.post_add].params;
            cg_line(cg, "p.res = %s; p.act2_min = %s; p.act2_max = %s;", cu_ptr(e, op->sched.post_other, "const float"),
                    cu_f32(e, ap->act_min), cu_f32(e, ap->act_max));
        }
        cg_line(cg, "p.out = %s;", cu_ptr(e, op->out[0], "float"));
        cu_kernel_def(e, kb, index, "mpcc_conv_args", 256, "mpcc_conv_body");
        cu_launch(e, index, cu_blocks_for(n), 1, 1, 0, 256, NULL);
        return 0;
    }
    case CU_BINARY: {
        const rt_binary_params *p = op->params;
        const rt_bcast *b = &p->bc;
        int64_t n = ir_tensor_numel(&g->tensors[op->out[0]]);
        cg_line(cg, "mpcc_binary_args p;");
        cg_line(cg, "memset(&p, 0, sizeof p);");
        cg_line(cg, "p.a = %s; p.b = %s; p.out = %s;", cu_ptr(e, op->in[0], "const float"), cu_ptr(e, op->in[1], "const float"),
                cu_ptr(e, op->out[0], "float"));
        cg_line(cg, "p.op = %d; p.rank = %d; p.n = %lld; p.act_min = %s; p.act_max = %s;", cu_binary_code(op->kind), b->rank,
                (long long)n, cu_f32(e, p->act_min), cu_f32(e, p->act_max));
        for (int k = 0; k < b->rank; k++)
            cg_line(cg, "p.dims[%d] = %d; p.s1[%d] = %d; p.s2[%d] = %d;", k, b->dims[k], k, b->stride1[k], k, b->stride2[k]);
        cu_kernel_def(e, kb, index, "mpcc_binary_args", 256, "mpcc_binary_body");
        cu_launch(e, index, cu_blocks_for(n), 1, 1, 0, 256, NULL);
        return 0;
    }
    case CU_UNARY: {
        int64_t n = ir_tensor_numel(&g->tensors[op->out[0]]);
        int code = cu_unary_code(op->kind);
        float lo = -INFINITY, hi = INFINITY, alpha = 0.0f;
        if (op->kind == OP_GELU) code = ((const rt_act_params *)op->params)->approximate ? 10 : 9;
        if (op->kind == OP_RELU || op->kind == OP_RELU6 || op->kind == OP_RELU_N1_TO_1 || op->kind == OP_LEAKY_RELU ||
            op->kind == OP_RELU_0_TO_1) {
            const rt_act_params *p = op->params;
            lo = p->f_min, hi = p->f_max, alpha = p->alpha;
        }
        cg_line(cg, "mpcc_unary_args p;");
        cg_line(cg, "memset(&p, 0, sizeof p);");
        cg_line(cg, "p.in = %s; p.out = %s;", cu_ptr(e, op->in[0], "const float"), cu_ptr(e, op->out[0], "float"));
        cg_line(cg, "p.n = %lld; p.op = %d; p.lo = %s; p.hi = %s; p.alpha = %s;", (long long)n, code, cu_f32(e, lo),
                cu_f32(e, hi), cu_f32(e, alpha));
        cu_kernel_def(e, kb, index, "mpcc_unary_args", 256, "mpcc_unary_body");
        cu_launch(e, index, cu_blocks_for(n), 1, 1, 0, 256, NULL);
        return 0;
    }
    case CU_SOFTMAX:
    case CU_LAYER_NORM:
    case CU_ROW_MEAN: {
        int64_t rows, cols;
        float beta = 1.0f, eps = 0.0f;
        const char *body;
        if (kind == CU_SOFTMAX) {
            const rt_softmax_params *p = op->params;
            rows = p->outer, cols = p->depth, beta = p->beta, body = "mpcc_softmax_body";
        } else if (kind == CU_LAYER_NORM) {
            const rt_opt_ln_params *p = op->sched.kparams;
            rows = p->rows, cols = p->cols, eps = p->eps, body = "mpcc_layer_norm_body";
        } else {
            const rt_reduce_params *p = op->params;
            rows = p->out_count, cols = p->reduce_count, body = "mpcc_row_mean_body";
        }
        cg_line(cg, "mpcc_rows_args p;");
        cg_line(cg, "memset(&p, 0, sizeof p);");
        cg_line(cg, "p.in = %s; p.out = %s;", cu_ptr(e, op->in[0], "const float"), cu_ptr(e, op->out[0], "float"));
        if (kind == CU_LAYER_NORM)
            cg_line(cg, "p.gamma = %s; p.beta_vec = %s;", op->in[1] >= 0 ? cu_ptr(e, op->in[1], "const float") : "NULL",
                    op->in[2] >= 0 ? cu_ptr(e, op->in[2], "const float") : "NULL");
        cg_line(cg, "p.rows = %lld; p.cols = %lld; p.beta = %s; p.eps = %s;", (long long)rows, (long long)cols,
                cu_f32(e, beta), cu_f32(e, eps));
        cu_kernel_def(e, kb, index, "mpcc_rows_args", 256, body);
        cu_launch(e, index, (rows < 1 ? 1 : rows > 65535 ? 65535 : rows), 1, 1, 0, 256, NULL);
        return 0;
    }
    case CU_COPY: {
        const rt_copy_params *p = op->params;
        int unit;
        int64_t total;
        cu_copy_plan(p, &unit, &total);
        cg_line(cg, "mpcc_copy_args p;");
        cg_line(cg, "memset(&p, 0, sizeof p);");
        cg_line(cg, "p.in = %s; p.out = %s;", cu_ptr(e, op->in[0], "const unsigned char"),
                cu_ptr(e, op->out[0], "unsigned char"));
        cg_line(cg, "p.rank = %d; p.unit = %d; p.in_offset = %lld; p.out_offset = %lld; p.run = %lld; p.total_units = %lld;",
                p->rank, unit, (long long)p->in_offset, (long long)p->out_offset, (long long)p->run, (long long)total);
        for (int k = 0; k < p->rank; k++)
            cg_line(cg, "p.dims[%d] = %d; p.in_strides[%d] = %lld; p.out_strides[%d] = %lld;", k, p->dims[k], k,
                    (long long)p->in_strides[k], k, (long long)p->out_strides[k]);
        cu_kernel_def(e, kb, index, "mpcc_copy_args", 256, "mpcc_copy_body");
        cu_launch(e, index, cu_blocks_for(total), 1, 1, 0, 256, NULL);
        return 0;
    }
    case CU_MEAN: {
        const rt_reduce_params *p = op->params;
        cg_line(cg, "mpcc_mean_args p;");
        cg_line(cg, "memset(&p, 0, sizeof p);");
        cg_line(cg, "p.in = %s; p.out = %s;", cu_ptr(e, op->in[0], "const float"), cu_ptr(e, op->out[0], "float"));
        cg_line(cg, "p.rank = %d; p.out_count = %d; p.reduce_count = %d; p.op = %d;", p->rank, p->out_count, p->reduce_count,
                op->kind == OP_SUM ? 1 : op->kind == OP_REDUCE_MAX ? 2 : op->kind == OP_REDUCE_MIN ? 3 : 0);
        for (int q = 0; q < p->rank; q++)
            cg_line(cg, "p.dims[%d] = %d; p.reduced[%d] = %d;", q, p->in_dims[q], q, p->out_stride[q] == 0 && p->in_dims[q] > 1);
        cu_kernel_def(e, kb, index, "mpcc_mean_args", 256, "mpcc_mean_body");
        cu_launch(e, index, cu_blocks_for(p->out_count), 1, 1, 0, 256, NULL);
        return 0;
    }
    case CU_POOL: {
        const rt_pool_params *p = op->params;
        int64_t n = (int64_t)p->batches * p->out_h * p->out_w * p->channels;
        cg_line(cg, "mpcc_pool_args p;");
        cg_line(cg, "memset(&p, 0, sizeof p);");
        cg_line(cg, "p.in = %s; p.out = %s;", cu_ptr(e, op->in[0], "const float"), cu_ptr(e, op->out[0], "float"));
        cu_emit_pool_geometry(e, p);
        cg_line(cg, "p.is_max = %d; p.act_min = %s; p.act_max = %s;", op->kind == OP_MAX_POOL_2D, cu_f32(e, p->act_min),
                cu_f32(e, p->act_max));
        cu_kernel_def(e, kb, index, "mpcc_pool_args", 256, "mpcc_pool_body");
        cu_launch(e, index, cu_blocks_for(n), 1, 1, 0, 256, NULL);
        return 0;
    }
    case CU_CAST: {
        const rt_quant_params *p = op->params;
        cg_line(cg, "mpcc_cast_args p;");
        cg_line(cg, "memset(&p, 0, sizeof p);");
        cg_line(cg, "p.in = %s; p.out = %s;", cu_ptr(e, op->in[0], "const void"), cu_ptr(e, op->out[0], "void"));
        int mode = op->kind == OP_QUANTIZE ? 1 : cu_dt_in(g, op, 0) == IR_F16 ? 2 : 0;
        cg_line(cg, "p.n = %lld; p.mode = %d; p.scale = %s; p.zero_point = %d;", (long long)p->n, mode,
                cu_f32(e, p->scale), p->zero_point);
        cu_kernel_def(e, kb, index, "mpcc_cast_args", 256, "mpcc_cast_body");
        cu_launch(e, index, cu_blocks_for(p->n), 1, 1, 0, 256, NULL);
        return 0;
    }
    case CU_ATTENTION: {
        const rt_opt_attn_params *p = op->sched.kparams;
        const rt_bmm_params *qk = &p->qk, *pv = &p->pv;
        /* Batch dims of the output: the last is the heads, the ones before flatten to the batch. */
        int r = pv->batch_rank;
        int heads = r > 0 ? pv->batch_dims[r - 1] : 1, batch = 1;
        for (int k = 0; k + 1 < r; k++) batch *= pv->batch_dims[k];
        int hd = qk->k <= 16 ? 16 : qk->k <= 32 ? 32 : qk->k <= 64 ? 64 : 128; /* zero-padded from qk->k */
        const char *mode = cu_model_mma_mode(e);
        /* Strides per batch/head (0 when broadcast), rows. */
#define BSTRIDE(arr, k) ((k) >= 0 && (k) < r ? (long long)(arr)[k] : 0LL)
        cg_line(cg, "mpcc_attn_args p;");
        cg_line(cg, "memset(&p, 0, sizeof p);");
        cg_line(cg, "p.q = %s; p.k = %s; p.v = %s; p.o = %s;", cu_ptr(e, op->in[0], "const float"),
                cu_ptr(e, op->in[1], "const float"), cu_ptr(e, op->in[2], "const float"), cu_ptr(e, op->out[0], "float"));
        cg_line(cg, "p.batch = %d; p.heads = %d; p.seq_q = %d; p.seq_k = %d;", batch, heads, qk->m, qk->n);
        cg_line(cg, "p.q_sb = %lld; p.q_sh = %lld; p.q_ss = %d;", r > 1 ? BSTRIDE(qk->lhs_bstride, r - 2) : 0LL,
                BSTRIDE(qk->lhs_bstride, r - 1), qk->lhs_si);
        cg_line(cg, "p.k_sb = %lld; p.k_sh = %lld; p.k_ss = %d;", r > 1 ? BSTRIDE(qk->rhs_bstride, r - 2) : 0LL,
                BSTRIDE(qk->rhs_bstride, r - 1), qk->rhs_sj);
        cg_line(cg, "p.v_sb = %lld; p.v_sh = %lld; p.v_ss = %d;", r > 1 ? BSTRIDE(pv->rhs_bstride, r - 2) : 0LL,
                BSTRIDE(pv->rhs_bstride, r - 1), pv->rhs_sk);
        cg_line(cg, "p.o_sb = %lld; p.o_sh = %lld; p.o_ss = %d;", (long long)heads * pv->m * pv->n,
                (long long)pv->m * pv->n, pv->n);
        if (p->mask == RT_OPT_MASK_ADD)
            cg_line(cg, "p.mask = %s; p.m_sb = %lld; p.m_sh = %lld; p.m_sq = %d; p.m_sk = %d;",
                    cu_ptr(e, op->in[3], "const float"), r > 1 ? BSTRIDE(p->mask_bstride[0], r - 2) : 0LL,
                    BSTRIDE(p->mask_bstride[0], r - 1), p->mask_sq[0], p->mask_sk[0]);
        if (p->mask == RT_OPT_MASK_KEEP || p->mask == RT_OPT_MASK_FILL)
            for (int m = 0; m < 2; m++) {
                int s = m < p->n_mask ? m : 0; /* one mask: bmask1 = bmask0 */
                cg_line(cg, "p.bmask%d = %s; p.b%d_sb = %lld; p.b%d_sh = %lld; p.b%d_sq = %d; p.b%d_sk = %d;", m,
                        cu_ptr(e, op->in[3 + s], "const unsigned char"), m, r > 1 ? BSTRIDE(p->mask_bstride[s], r - 2) : 0LL,
                        m, BSTRIDE(p->mask_bstride[s], r - 1), m, p->mask_sq[s], m, p->mask_sk[s]);
            }
        if (p->mask == RT_OPT_MASK_KEEP || p->mask == RT_OPT_MASK_FILL)
            cg_line(cg, "p.bmode = %d; p.fill = %s;", p->mask == RT_OPT_MASK_KEEP ? 1 : 2, cu_f32(e, p->fill));
#undef BSTRIDE
        cg_line(cg, "p.scale = %s; p.causal = 0; p.hd = %d;", cu_f32(e, p->scale), qk->k);
        char body[96], cfg[96];
        const int bm = p->mask == RT_OPT_MASK_KEEP || p->mask == RT_OPT_MASK_FILL;
        snprintf(body, sizeof body, "mpcc_attn_body<%s, %d%s>", mode, hd,
                 hd != qk->k ? (bm ? ", true, true" : ", false, true") : bm ? ", true" : "");
        snprintf(cfg, sizeof cfg, "mpcc_attn_cfg<%s, %d>", mode, hd);
        cu_kernel_def(e, kb, index, "mpcc_attn_args", 0, body);
        cu_launch(e, index, 0, heads, batch, qk->m, 0, cfg);
        return 0;
    }
    case CU_ELEM: case CU_GATHER: case CU_CONCAT: return cu_emit_more(e, kb, index, op, kind, d);
    case CU_CONV_S8: case CU_CONV_S8_GEMM: case CU_BINARY_S8: case CU_POOL_S8: case CU_MEAN_S8: case CU_LUT_S8:
    case CU_SOFTMAX_S8: case CU_REQUANT_S8:
        return cu_emit_op_s8(e, kb, index, op, kind);
    case CU_LUT_X: case CU_BINARY_S16: case CU_SUM_S8: case CU_BMM_S8:
    case CU_REDUCE_BOOL: case CU_GATHER_ND: case CU_DUS: case CU_REQUANT_I32: case CU_BMM_X:
        return cu_emit_op_s16(e, kb, index, op, kind);
    case CU_LAYOUT: return cu_emit_layout(e, kb, index, op, d);
    case CU_MISC: return cu_emit_misc(e, kb, index, op);
    case CU_RNN: return cu_emit_rnn(e, kb, index, op, d);
    case CU_HYBRID: case CU_S16X8: return cu_emit_hybrid(e, kb, index, op);
    default: return diag_internal(d, "operator %d: no CUDA emitter for kind %d", op->tfl_index, (int)kind);
    }
}

/* ---------------------------------------------------------------------- */

