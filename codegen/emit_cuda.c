/* emit_cuda.c - `mpcc --target cuda`: a prepared, scheduled, planned Graph
 * as <name>.cu + <name>.h.
 *
 * The CUDA emitter reads the same IR decisions as the C emitters: the kernel
 * class pass schedule chose (op->sched.kind), the fused groups (attention,
 * LayerNorm, residual ADD in a convolution's epilogue), op->prec / the
 * weights' dtype (bf16/fp16 from pass precision) and the arena offsets of
 * pass plan_memory. Each kernel class maps to one device body of
 * runtime/cuda/ (tensor-core GEMM with a fused epilogue, flash attention,
 * SIMT rows/elementwise/convolution/copy), so op files stay single: no op
 * file has a CUDA emitter of its own. The generated code wraps each op's
 * body in its own `extern "C" __global__` kernel (named PREFIX_k<op>, the
 * same names the NVRTC JIT looks up), fills an argument struct and launches
 * it on the caller's stream; constants live in one blob uploaded once by
 * PREFIX_cuda_init.
 *
 * Ops without a CUDA kernel are reported all at once, each with its
 * operator index, op and dtype (user error): no silent fallback. */
#include "emit_cuda.h"

#include <ctype.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cg_internal.h"
#include "emit_c.h"
#include "ops.h"
#include "rt_opt.h"
#include "text.h"

#define MPCC_CU_MAX_RANK 8 /* MPCC_MAX_RANK of runtime/cuda/mpcc_cuda_args.h */

/* What one op becomes on the GPU. */
typedef enum CuKind {
    CU_NONE = 0, CU_SKIP, CU_GEMM, CU_GEMM_S8, CU_CONV, CU_BMM, CU_BINARY, CU_UNARY, CU_SOFTMAX, CU_LAYER_NORM,
    CU_ROW_MEAN, CU_COPY, CU_POOL, CU_CAST, CU_ATTENTION, CU_MEAN,
    CU_ELEM, CU_GATHER, CU_CONCAT,
    /* int8 (runtime/cuda/mpcc_cuda_int8.cuh) */
    CU_CONV_S8, CU_CONV_S8_GEMM, CU_BINARY_S8, CU_POOL_S8, CU_MEAN_S8, CU_LUT_S8, CU_SOFTMAX_S8, CU_REQUANT_S8
} CuKind;

static const char *const cu_kind_name[] = {"none",    "-",          "gemm",     "gemm-s8", "conv",  "bmm",  "binary",
                                           "unary",   "softmax",    "layer-norm", "row-mean", "copy", "pool", "cast",
                                           "attention", "mean", "elementwise", "gather", "concat",
                                           "conv-s8", "gemm-s8 (1x1 conv)", "binary-s8", "pool-s8", "mean-s8", "lut-s8",
                                           "softmax-s8", "requant-s8"};

static IrDType dt_in(const Graph *g, const IrOp *op, int k) {
    return k < op->n_in && op->in[k] >= 0 ? g->tensors[op->in[k]].dtype : IR_F32;
}

static int unary_code(OpKind k) {
    switch (k) {
    case OP_RELU: case OP_RELU6: case OP_RELU_N1_TO_1: return 0;
    case OP_LOGISTIC: return 1;
    case OP_TANH: return 2;
    case OP_EXP: return 3;
    case OP_LOG: return 4;
    case OP_RSQRT: return 5;
    case OP_SQRT: return 6;
    case OP_ABS: return 7;
    case OP_NEG: return 8;
    case OP_HARD_SWISH: return 11;
    case OP_LEAKY_RELU: return 12;
    default: return -1;
    }
}

static int binary_code(OpKind k) {
    switch (k) {
    case OP_ADD: return 0;
    case OP_SUB: return 1;
    case OP_MUL: return 2;
    case OP_DIV: return 3;
    case OP_SQUARED_DIFFERENCE: return 4;
    case OP_MAXIMUM: return 5;
    case OP_MINIMUM: return 6;
    case OP_POW: return 7;
    default: return -1;
    }
}

/* Can a BATCH_MATMUL's batch dims be walked with one stride per operand? */
static int bmm_flat(const rt_bmm_params *p, int64_t *sa, int64_t *sb, int64_t *batch) {
    int64_t n = 1;
    for (int d = 0; d < p->batch_rank; d++) n *= p->batch_dims[d];
    *batch = n;
    *sa = *sb = 0;
    int64_t inner = 1;
    int first_a = 1, first_b = 1;
    for (int d = p->batch_rank - 1; d >= 0; d--) {
        if (p->batch_dims[d] != 1) {
            /* Each operand's stride must be a multiple chain, or 0 everywhere. */
            if (first_a) *sa = p->lhs_bstride[d] / (inner ? inner : 1), first_a = 0;
            if (first_b) *sb = p->rhs_bstride[d] / (inner ? inner : 1), first_b = 0;
            if ((int64_t)p->lhs_bstride[d] != *sa * inner || (int64_t)p->rhs_bstride[d] != *sb * inner) return 0;
        }
        inner *= p->batch_dims[d];
    }
    return 1;
}

/* ---- integer / bool elementwise, GATHER, CONCATENATION ---- */

static int elem_code(OpKind k) {
    switch (k) {
    case OP_CAST: return 0;
    case OP_ADD: return 1;
    case OP_SUB: return 2;
    case OP_MUL: return 3;
    case OP_LESS: return 4;
    case OP_GREATER: return 5;
    case OP_GREATER_EQUAL: return 6;
    case OP_LESS_EQUAL: return 7;
    case OP_EQUAL: return 8;
    case OP_NOT_EQUAL: return 9;
    case OP_LOGICAL_AND: return 10;
    case OP_LOGICAL_OR: return 11;
    case OP_LOGICAL_NOT: return 12;
    case OP_SELECT: case OP_SELECT_V2: return 13;
    default: return -1;
    }
}

/* Concatenation as plain byte copies: no activation clamp, no requantization. */
static int concat_is_copy(const Graph *g, const IrOp *op) {
    const rt_concat_params *p = op->params;
    IrDType dt = g->tensors[op->out[0]].dtype;
    if (dt == IR_I8 || dt == IR_U8) {
        int lo = dt == IR_I8 ? -128 : 0, hi = dt == IR_I8 ? 127 : 255;
        for (int k = 0; k < p->count; k++)
            if (!p->same || !p->same[k]) return 0;
        return p->qmin <= lo && p->qmax >= hi;
    }
    return p->act_min == -FLT_MAX && p->act_max == FLT_MAX;
}

/* The kernels of the ops the f32 SIMT classes do not cover, or CU_NONE (then cu_classify goes on). */
static CuKind cu_classify_more(const Graph *g, const IrOp *op, const char **why) {
    IrDType t0 = dt_in(g, op, 0);
    int code = elem_code(op->kind);
    if (code == 0) {
        const rt_quant_params *p = op->params;
        if (p->in_type == 2 || p->out_type == 2 || p->out_type == 1) return CU_NONE; /* bf16, f16 out */
        return CU_ELEM;
    }
    if (code >= 1 && code <= 3) return (t0 == IR_I32 || t0 == IR_I64) && op->n_in == 2 ? CU_ELEM : CU_NONE;
    if (code >= 4) return CU_ELEM;
    if ((op->kind == OP_SUM || op->kind == OP_REDUCE_MAX || op->kind == OP_REDUCE_MIN) && t0 == IR_F32 &&
        g->tensors[op->out[0]].dtype == IR_F32)
        return CU_MEAN;
    if (op->kind == OP_GATHER) {
        const rt_gather_params *p = op->params;
        IrDType ti = dt_in(g, op, 1);
        if (ti != IR_I32 && ti != IR_I64) {
            *why = "GATHER indices must be int32 or int64";
            return CU_NONE;
        }
        return p ? CU_GATHER : CU_NONE;
    }
    if (op->kind == OP_CONCATENATION) {
        if (!concat_is_copy(g, op)) {
            *why = "a concatenation with an activation or requantization has no CUDA kernel yet";
            return CU_NONE;
        }
        return CU_CONCAT;
    }
    return CU_NONE;
}

/* ---- int8 ops (runtime/cuda/mpcc_cuda_int8.cuh) ---- */

/* The bias of an int8 convolution: in[2] unless pass fuse_add appended the residual there. */
static int conv_bias_id(const IrOp *op) {
    int n = op->n_in - (op->sched.post_add >= 0 ? 1 : 0);
    return n > 2 ? op->in[2] : -1;
}

/* May the 1x1 stride-1 unpadded int8 CONV_2D run on the IMMA GEMM (whose epilogue shifts
 * left with wrapping, where the reference saturates: only right shifts go there)? */
static int conv_s8_gemm_ok(const IrOp *op) {
    const rt_conv_params *p = op->params;
    if (op->sched.post_add >= 0 || p->filter_h != 1 || p->filter_w != 1 || p->stride_h != 1 || p->stride_w != 1 ||
        p->pad_h != 0 || p->pad_w != 0 || p->in_h != p->out_h || p->in_w != p->out_w || p->filter_c != p->in_c)
        return 0;
    for (int32_t c = 0; c < p->out_c; c++)
        if (p->shift[c] > 0) return 0;
    return 1;
}

/* int8 -> int8 ops with a kernel in mpcc_cuda_int8.cuh. *mine = 1 when this function
 * decides (a kernel, or CU_NONE with the reason in *why). */
static CuKind cu_classify_s8(const Graph *g, const IrOp *op, const char **why, int *mine) {
    if (!op->params || op->n_out < 1 || g->tensors[op->out[0]].dtype != IR_I8) return CU_NONE;
    switch (op->kind) {
    case OP_CONV_2D: {
        const rt_conv_params *p = op->params;
        int b = conv_bias_id(op);
        if (dt_in(g, op, 1) != IR_I8) return CU_NONE;
        *mine = 1;
        if (!p->mult || !p->shift) return *why = "int8 convolution without requantization multipliers", CU_NONE;
        if (p->filter_c != p->in_c) return *why = "grouped int8 convolution has no CUDA kernel yet", CU_NONE;
        if (b >= 0 && g->tensors[b].dtype != IR_I32) return *why = "int8 convolution with a non-int32 bias", CU_NONE;
        if (op->sched.post_add >= 0 && g->tensors[op->sched.post_other].dtype != IR_I8)
            return *why = "fused residual ADD of a non-int8 tensor", CU_NONE;
        return conv_s8_gemm_ok(op) ? CU_CONV_S8_GEMM : CU_CONV_S8;
    }
    case OP_DEPTHWISE_CONV_2D: {
        const rt_dwconv_params *p = op->params;
        int b = op->n_in > 2 ? op->in[2] : -1;
        if (dt_in(g, op, 1) != IR_I8) return CU_NONE;
        *mine = 1;
        if (!p->mult || !p->shift) return *why = "int8 convolution without requantization multipliers", CU_NONE;
        if (b >= 0 && g->tensors[b].dtype != IR_I32) return *why = "int8 convolution with a non-int32 bias", CU_NONE;
        return CU_CONV_S8;
    }
    case OP_ADD: case OP_SUB: case OP_MUL: case OP_SQUARED_DIFFERENCE: case OP_MAXIMUM: case OP_MINIMUM: {
        const rt_binary_params *p = op->params;
        if (op->n_in != 2 || dt_in(g, op, 1) != IR_I8) return CU_NONE;
        *mine = 1;
        if (p->pot) return *why = "power-of-two-scale ADD/SUB has no int8 CUDA kernel", CU_NONE;
        if (p->bc.rank > MPCC_CU_MAX_RANK) return *why = "broadcast rank above 8", CU_NONE;
        return CU_BINARY_S8;
    }
    case OP_AVERAGE_POOL_2D: case OP_MAX_POOL_2D: *mine = 1; return CU_POOL_S8;
    case OP_MEAN: case OP_REDUCE_MAX: case OP_REDUCE_MIN: {
        const rt_reduce_params *p = op->params;
        *mine = 1;
        if (p->rank > MPCC_CU_MAX_RANK) return *why = "rank above 8", CU_NONE;
        return CU_MEAN_S8;
    }
    case OP_SOFTMAX:
        *mine = 1;
        if (((const rt_softmax_params *)op->params)->exp_table)
            return *why = "int8 SOFTMAX over 512 or more classes (float table path) has no CUDA kernel yet", CU_NONE;
        return CU_SOFTMAX_S8;
    case OP_RELU: case OP_RELU6: case OP_RELU_N1_TO_1: *mine = 1; return CU_REQUANT_S8;
    case OP_QUANTIZE: {
        const rt_quant_params *p = op->params;
        if (p->in_type != RT_I8 || p->out_type != RT_I8) return CU_NONE;
        *mine = 1;
        if (p->channels > 0) return *why = "per-channel int8 requantization has no CUDA kernel yet", CU_NONE;
        return CU_REQUANT_S8;
    }
    case OP_LOGISTIC: case OP_TANH: case OP_GELU:
        if (!((const rt_act_params *)op->params)->lut_i8) return CU_NONE;
        *mine = 1;
        return CU_LUT_S8;
    case OP_EXP: case OP_LOG:
        if (!((const rt_unary_params *)op->params)->lut) return CU_NONE;
        *mine = 1;
        return CU_LUT_S8;
    default: return CU_NONE;
    }
}

/* The CUDA kernel for op, or CU_NONE (with why in `why`). */
static CuKind cu_classify(const Graph *g, const IrOp *op, const char **why) {
    IrDType t0 = dt_in(g, op, 0);
    *why = "no CUDA kernel for it yet";
    if (op->dead) return CU_SKIP;
    if (op->elided) return CU_SKIP;
    if (op->guard) {
        *why = "its shape input is checked at run time (not on the GPU yet)";
        return CU_NONE;
    }
    CuKind more = cu_classify_more(g, op, why);
    if (more != CU_NONE) return more;
    if (t0 == IR_I8) {
        int mine = 0;
        CuKind k8 = cu_classify_s8(g, op, why, &mine);
        if (mine) return k8;
    }
    switch (op->sched.kind) {
    case SCHED_GEMM:
        if (t0 == IR_I8) return CU_GEMM_S8;
        return t0 == IR_F32 ? CU_GEMM : CU_NONE;
    case SCHED_CONV_GEMM:
    case SCHED_DWCONV:
        if (t0 != IR_F32) {
            *why = "integer convolutions have no CUDA kernel yet";
            return CU_NONE;
        }
        if (op->sched.kind == SCHED_CONV_GEMM && op->sched.direct) return CU_GEMM;
        return CU_CONV;
    case SCHED_BMM: {
        const rt_bmm_params *p = op->params;
        int64_t sa, sb, b;
        if (t0 != IR_F32) return CU_NONE;
        if (p->lhs_sk != 1 || (p->rhs_sj != 1 && p->rhs_sk != 1)) {
            *why = "a transposed left operand (adj_x) has no CUDA GEMM layout yet";
            return CU_NONE;
        }
        if (!bmm_flat(p, &sa, &sb, &b)) {
            *why = "its broadcast batch dims need more than one stride per operand";
            return CU_NONE;
        }
        return CU_BMM;
    }
    case SCHED_BINARY: return t0 == IR_F32 ? CU_BINARY : CU_NONE;
    case SCHED_ROW_MEAN: return CU_ROW_MEAN;
    case SCHED_COPY: return CU_COPY;
    case SCHED_ACT: return CU_UNARY;
    case SCHED_SOFTMAX: return CU_SOFTMAX;
    case SCHED_LAYER_NORM: return CU_LAYER_NORM;
    case SCHED_CAST: return CU_CAST;
    case SCHED_ATTENTION: {
        const rt_opt_attn_params *p = op->sched.kparams;
        int d = p->qk.k;
        if (d != 16 && d != 32 && d != 64 && d != 128) {
            *why = "attention head dimension must be 16, 32, 64 or 128";
            return CU_NONE;
        }
        if (p->qk.lhs_sk != 1 || p->qk.rhs_sk != 1 || p->pv.rhs_sj != 1 || p->beta != 1.0f) {
            *why = "attention operand layout not supported on CUDA yet";
            return CU_NONE;
        }
        return CU_ATTENTION;
    }
    case SCHED_REF:
    default: break;
    }
    if (op->kind == OP_DEQUANTIZE && t0 == IR_F16 && g->tensors[op->out[0]].dtype == IR_F32) return CU_CAST;
    if (t0 != IR_F32 && op->kind != OP_RESHAPE && op->kind != OP_SQUEEZE && op->kind != OP_EXPAND_DIMS) {
        *why = "only f32 has CUDA kernels for this op";
        return CU_NONE;
    }
    switch (op->kind) {
    case OP_RESHAPE: case OP_SQUEEZE: case OP_EXPAND_DIMS: return CU_COPY;
    case OP_CONV_2D: case OP_DEPTHWISE_CONV_2D:
        if (dt_in(g, op, 1) != IR_F32) return CU_NONE;
        return CU_CONV;
    case OP_FULLY_CONNECTED: return dt_in(g, op, 1) == IR_F32 ? CU_GEMM : CU_NONE;
    case OP_MEAN: return CU_MEAN;
    case OP_AVERAGE_POOL_2D: case OP_MAX_POOL_2D: return CU_POOL;
    case OP_SOFTMAX: return CU_SOFTMAX;
    case OP_GELU: return CU_UNARY;
    default: break;
    }
    if (unary_code(op->kind) >= 0) return CU_UNARY;
    if (binary_code(op->kind) >= 0 && op->n_in == 2) return CU_BINARY;
    return CU_NONE;
}

int cu_check_graph(const Graph *g, Diag *d) {
    char list[1536];
    size_t len = 0;
    int bad = 0;
    list[0] = '\0';
    if (g->n_sub > 1)
        return diag_user(d, "%s: control flow (IF/WHILE/CALL_ONCE subgraphs) cannot run on --target cuda (no CUDA "
                            "code for subgraphs yet; --target c runs them)", g->source);
    for (int i = 0; i < g->n_ops; i++) {
        const IrOp *op = &g->ops[i];
        const char *why;
        if (cu_classify(g, op, &why) != CU_NONE) continue;
        if (bad++ < 8 && len + 200 < sizeof list)
            len += (size_t)snprintf(list + len, sizeof list - len, "%s operator %d (%s, %s input): %s", bad > 1 ? ";" : "", op->tfl_index,
                                    ir_op_name(op->kind), ir_dtype_name(dt_in(g, op, 0)), why);
    }
    if (!bad) return 0;
    return diag_user(d, "%s: %d operator%s cannot run on --target cuda (no CUDA kernel yet; --target c runs them):%s%s",
                     g->source, bad, bad == 1 ? "" : "s", list, bad > 8 ? "; ..." : "");
}

/* ---------------------------------------------------------------------- */

typedef struct CuEmit {
    CgCtx cg;
    const Graph *g;
    const CudaEmitOptions *o;
    int64_t *woff;        /* per tensor: offset in the weights blob, -1 if not uploaded */
    int64_t blob_bytes;
    struct CuXConst *xc;  /* extra constant arrays computed here (int8 folded bias, requant arrays, LUTs) */
    int n_xc, cap_xc;
    int n_kernels;
    CgBuf *attr;          /* PREFIX_cuda_init's cudaFuncSetAttribute calls */
    int uses_a, uses_w;   /* the run function reads the arena / the weights */
    CgBuf *kb;            /* the kernels (device source) */
} CuEmit;

#define BLOB_ALIGN 256

/* An array the emitter derives from an op's params (not a graph tensor), uploaded with the
 * weights: op's `slot`-th array, `bytes` long at blob offset `off`. */
typedef struct CuXConst {
    int op, slot;
    int64_t off, bytes;
    void *data; /* owned */
} CuXConst;

/* Takes ownership of data (malloc'd; NULL: out of memory). */
static int xconst_add(CuEmit *e, int op, int slot, void *data, int64_t bytes) {
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

static int xconst_copy(CuEmit *e, int op, int slot, const void *src, int64_t bytes) {
    void *d = malloc((size_t)(bytes > 0 ? bytes : 1));
    if (d) memcpy(d, src, (size_t)bytes);
    return xconst_add(e, op, slot, d, bytes);
}

/* A device pointer to op's slot-th extra array. */
static const char *xptr(CuEmit *e, int op, int slot, const char *type) {
    char *s = cg_pool_str(&e->cg);
    for (int i = 0; i < e->n_xc; i++)
        if (e->xc[i].op == op && e->xc[i].slot == slot) {
            snprintf(s, CG_POOL_LEN, "(%s *)(w + %lld)", type, (long long)e->xc[i].off);
            e->uses_w = 1;
            return s;
        }
    return "NULL";
}

static const char *ptr(CuEmit *e, int id, const char *type) {
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

static void use_const(CuEmit *e, int id) {
    if (id < 0 || !e->g->tensors[id].data || e->woff[id] >= 0) return;
    e->woff[id] = e->blob_bytes;
    e->blob_bytes += (ir_tensor_bytes(&e->g->tensors[id]) + BLOB_ALIGN - 1) / BLOB_ALIGN * BLOB_ALIGN;
}

/* int8 GEMM (FULLY_CONNECTED, 1x1 CONV_2D): bias[n] - in_zp * sum_k w[n][k], so the GEMM sums raw
 * int8 products (modulo 2^32, as the reference's wrapping sum). */
static int32_t *fold_s8_bias(const Graph *g, int w_id, int b_id, int32_t out_depth, int32_t in_depth, int32_t in_offset) {
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
static int xconst_requant(CuEmit *e, int op, int slot, const int32_t *mult, const int32_t *shift, int32_t n, int per_channel) {
    int32_t *m = malloc(sizeof(int32_t) * (size_t)(n > 0 ? n : 1)), *s = malloc(sizeof(int32_t) * (size_t)(n > 0 ? n : 1));
    if (!m || !s) {
        free(m), free(s);
        return -1;
    }
    for (int32_t c = 0; c < n; c++) m[c] = mult[per_channel ? c : 0], s[c] = shift[per_channel ? c : 0];
    if (xconst_add(e, op, slot, m, 4 * (int64_t)n)) {
        free(s);
        return -1;
    }
    return xconst_add(e, op, slot + 1, s, 4 * (int64_t)n);
}

/* The extra arrays op i's kernel reads (before any launch is emitted: their offsets appear there). */
static int cu_xconsts(CuEmit *e, int i, const IrOp *op, CuKind kind) {
    const Graph *g = e->g;
    switch (kind) {
    case CU_GEMM_S8: { /* slots 0 folded bias, 1 mult, 2 shift */
        const rt_fc_params *p = op->params;
        int32_t *f = fold_s8_bias(g, op->in[1], op->n_in > 2 ? op->in[2] : -1, p->out_depth, p->in_depth, p->in_offset);
        if (xconst_add(e, i, 0, f, 4 * (int64_t)p->out_depth)) return -1;
        return xconst_requant(e, i, 1, p->mult, p->shift, p->out_depth, p->per_channel);
    }
    case CU_CONV_S8_GEMM: {
        const rt_conv_params *p = op->params;
        int32_t *f = fold_s8_bias(g, op->in[1], conv_bias_id(op), p->out_c, p->in_c, p->in_offset);
        if (xconst_add(e, i, 0, f, 4 * (int64_t)p->out_c)) return -1;
        return xconst_requant(e, i, 1, p->mult, p->shift, p->out_c, 1);
    }
    case CU_CONV_S8:
        if (op->kind == OP_DEPTHWISE_CONV_2D) {
            const rt_dwconv_params *p = op->params;
            return xconst_requant(e, i, 1, p->mult, p->shift, p->in_c * p->depth_mult, 1);
        } else {
            const rt_conv_params *p = op->params;
            return xconst_requant(e, i, 1, p->mult, p->shift, p->out_c, 1);
        }
    case CU_LUT_S8:
        if (op->kind == OP_EXP || op->kind == OP_LOG) { /* rt_unary_params: lut[q + 128]; the kernel indexes (uint8_t)q */
            const int8_t *l = ((const rt_unary_params *)op->params)->lut;
            int8_t *t = malloc(256);
            for (int q = -128; t && q < 128; q++) t[(uint8_t)q] = l[q + 128];
            return xconst_add(e, i, 0, t, 256);
        }
        return xconst_copy(e, i, 0, ((const rt_act_params *)op->params)->lut_i8, 256);
    case CU_SOFTMAX_S8: { /* exp of each input difference -d, Q0.31, as rt_softmax.c's exp_table_q0 */
        const rt_softmax_params *p = op->params;
        int32_t *t = malloc(sizeof(int32_t) * 256);
        for (int32_t dd = 0; t && dd < 256; dd++)
            t[dd] = -dd >= p->diff_min
                        ? rt_fp_exp_on_negative_values(rt_mul_by_qm_gt_one(-dd, p->input_multiplier, p->input_left_shift), 5)
                        : 0;
        return xconst_add(e, i, 0, t, 4 * 256);
    }
    default: return 0;
    }
}

static const char *f32(CuEmit *e, float v) { return cg_f32(&e->cg, v); }

/* Launch helpers: the kernel wrapper goes to kb (the kernels section), the
 * launch to the run function (cg). */
static void kernel_def(CuEmit *e, CgBuf *kb, int index, const char *args_type, int threads, const char *body) {
    if (threads > 0)
        cgbuf_printf(kb, "extern \"C\" __global__ void __launch_bounds__(%d) %s_k%d(%s p) { %s(p); }\n", threads,
                     e->o->prefix, index, args_type, body);
    else
        cgbuf_printf(kb, "extern \"C\" __global__ void %s_k%d(%s p) { %s(p); }\n", e->o->prefix, index, args_type, body);
}

/* The launch of op `index`'s kernel on stream s with the argument struct p. cfg: NULL for the
 * SIMT kernels (`threads` per block, no dynamic shared memory), else the C++ config type of a
 * templated kernel, whose ::threads and ::smem_bytes configure the launch (and ::block_m, the
 * rows per block, when gx_rows > 0: gx = ceil(gx_rows / block_m)). Under --jit the host cannot
 * evaluate C++, so the kernel source publishes these as `extern "C" __device__ int` globals that
 * PREFIX_cuda_init reads once (ctx->threads[], ctx->smem[], ctx->block_m[]). */
static void launch(CuEmit *e, int index, int64_t gx, int64_t gy, int64_t gz, int64_t gx_rows, int threads,
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

static int64_t blocks_for(int64_t n) {
    int64_t b = (n + 255) / 256;
    return b < 1 ? 1 : b > 8192 ? 8192 : b;
}

static void gemm_common(CuEmit *e, int64_t m, int64_t n, int64_t k, float a1lo, float a1hi) {
    cg_line(&e->cg, "p.m = %lld; p.n = %lld; p.k = %lld;", (long long)m, (long long)n, (long long)k);
    cg_line(&e->cg, "p.act1_min = %s; p.act1_max = %s; p.act2_min = -INFINITY; p.act2_max = INFINITY;", f32(e, a1lo),
            f32(e, a1hi));
}

/* The GEMM tile configs of runtime/cuda/mpcc_cuda_gemm.cuh (template
 * arguments BM, BN, BK, WARPS_M, WARPS_N, STAGES): 128x128 when there are
 * enough tiles to fill a GPU (132 SMs on an H100), else 64x64. */
typedef struct GemmTile {
    const char *args;
    int bm, bn, threads;
} GemmTile;
static const GemmTile tile_large = {"128, 128, 32, 2, 4, 3", 128, 128, 256};
static const GemmTile tile_small = {"64, 64, 32, 2, 2, 3", 64, 64, 128};
static const GemmTile tile_s8 = {"64, 64, 64, 2, 2, 3", 64, 64, 128};

static const GemmTile *gemm_tile(int64_t m, int64_t n, int64_t batch) {
    return m * n * batch >= (int64_t)128 * 128 * 132 ? &tile_large : &tile_small;
}

/* The tensor-core mode of a float matmul: the weights' 16-bit dtype (pass precision), else
 * the model's --precision, else 3xTF32 (fp32-level accuracy) or, with --tf32, one TF32 pass. */
static const char *model_mma_mode(const CuEmit *e) {
    const Graph *g = e->g;
    return g->precision && g->precision->mode == IR_PREC_BF16   ? "MPCC_MMA_BF16"
           : g->precision && g->precision->mode == IR_PREC_FP16 ? "MPCC_MMA_F16"
           : e->o->tf32                                         ? "MPCC_MMA_TF32"
                                                                : "MPCC_MMA_3XTF32";
}

static const char *mma_mode(const CuEmit *e, const IrOp *op) {
    IrDType w = dt_in(e->g, op, 1);
    if (w == IR_BF16) return "MPCC_MMA_BF16";
    if (w == IR_F16) return "MPCC_MMA_F16";
    return model_mma_mode(e);
}

static void emit_gemm_launch(CuEmit *e, CgBuf *kb, int index, const char *mode, int b_nk, int64_t m, int64_t n,
                             int64_t batch) {
    const GemmTile *t = gemm_tile(m, n, batch);
    char body[160], cfg[160];
    snprintf(body, sizeof body, "mpcc_gemm_body<%s, %s, %s>", mode, b_nk ? "true" : "false", t->args);
    kernel_def(e, kb, index, "mpcc_gemm_args", t->threads, body);
    snprintf(cfg, sizeof cfg, "mpcc_gemm_cfg<%s, %s, %s>", mode, b_nk ? "true" : "false", t->args);
    launch(e, index, (n + t->bn - 1) / t->bn, (m + t->bm - 1) / t->bm, batch, 0, t->threads, cfg);
}

/* Emission of the kinds of cu_classify_more. */
static void elem_strides(CuEmit *e, int which, const int32_t *st, int rank) {
    for (int k = 0; k < rank; k++) cg_line(&e->cg, "p.s%d[%d] = %d;", which, k, st[k]);
}

static const char *i64_lit(char *buf, size_t n, long long v) {
    if (v == (-9223372036854775807LL - 1)) snprintf(buf, n, "(-9223372036854775807LL - 1)");
    else snprintf(buf, n, "%lldLL", v);
    return buf;
}

static int rt_code(IrDType t) {
    switch (t) {
    case IR_F32: return 0;
    case IR_F16: return 1;
    case IR_I8: return 3;
    case IR_U8: return 4;
    case IR_I16: return 5;
    case IR_I32: return 6;
    case IR_I64: return 7;
    case IR_BOOL: return 8;
    default: return -1;
    }
}

static int emit_more(CuEmit *e, CgBuf *kb, int index, const IrOp *op, CuKind kind, Diag *d) {
    const Graph *g = e->g;
    CgCtx *cg = &e->cg;
    switch (kind) {
    case CU_ELEM: {
        int code = elem_code(op->kind);
        int64_t n = ir_tensor_numel(&g->tensors[op->out[0]]);
        cg_line(cg, "mpcc_elem_args p;");
        cg_line(cg, "memset(&p, 0, sizeof p);");
        cg_line(cg, "p.in0 = %s;", ptr(e, op->in[0], "const void"));
        if (op->n_in > 1) cg_line(cg, "p.in1 = %s;", ptr(e, op->in[1], "const void"));
        if (op->n_in > 2) cg_line(cg, "p.in2 = %s;", ptr(e, op->in[2], "const void"));
        cg_line(cg, "p.out = %s; p.op = %d; p.n = %lld;", ptr(e, op->out[0], "void"), code, (long long)n);
        if (code == 0) {
            const rt_quant_params *q = op->params;
            cg_line(cg, "p.type = %d; p.out_type = %d; p.rank = 1; p.dims[0] = %lld; p.s0[0] = 1;", q->in_type,
                    q->out_type, (long long)q->n);
            n = q->n;
        } else if (code <= 3) {
            const rt_binary_params *q = op->params;
            int i64 = dt_in(g, op, 0) == IR_I64;
            long long lo = q->act_qmin, hi = q->act_qmax;
            char a[48], b[48];
            if (i64 && q->act_qmin == INT32_MIN) lo = -9223372036854775807LL - 1;
            if (i64 && q->act_qmax == INT32_MAX) hi = 9223372036854775807LL;
            cg_line(cg, "p.type = %d; p.rank = %d; p.lo = %s; p.hi = %s;", rt_code(dt_in(g, op, 0)), q->bc.rank,
                    i64_lit(a, sizeof a, lo), i64_lit(b, sizeof b, hi));
            for (int k = 0; k < q->bc.rank; k++) cg_line(cg, "p.dims[%d] = %d;", k, q->bc.dims[k]);
            elem_strides(e, 0, q->bc.stride1, q->bc.rank);
            elem_strides(e, 1, q->bc.stride2, q->bc.rank);
        } else {
            const rt_bcast3 *bc;
            int type = rt_code(dt_in(g, op, 0)), size = 0;
            if (code <= 9) bc = &((const rt_compare_params *)op->params)->bc, type = ((const rt_compare_params *)op->params)->dtype;
            else if (code <= 12) bc = &((const rt_logical_params *)op->params)->bc;
            else bc = &((const rt_select_params *)op->params)->bc, size = ((const rt_select_params *)op->params)->elem_size;
            cg_line(cg, "p.type = %d; p.size = %d; p.rank = %d;", type, size, bc->rank);
            for (int k = 0; k < bc->rank; k++) cg_line(cg, "p.dims[%d] = %d;", k, bc->dims[k]);
            for (int w = 0; w < op->n_in && w < 3; w++) elem_strides(e, w, bc->stride[w], bc->rank);
        }
        kernel_def(e, kb, index, "mpcc_elem_args", 256, "mpcc_elem_body");
        launch(e, index, blocks_for(n), 1, 1, 0, 256, NULL);
        return 0;
    }
    case CU_GATHER: {
        const rt_gather_params *p = op->params;
        int unit = p->inner_bytes % 4 == 0 ? 4 : p->inner_bytes % 2 == 0 ? 2 : 1;
        long long inner = (long long)(p->inner_bytes / unit);
        long long total = (long long)p->batch * p->outer * p->coords * inner;
        cg_line(cg, "mpcc_gather_args p;");
        cg_line(cg, "memset(&p, 0, sizeof p);");
        cg_line(cg, "p.in = %s; p.idx = %s; p.out = %s;", ptr(e, op->in[0], "const unsigned char"),
                ptr(e, op->in[1], "const void"), ptr(e, op->out[0], "unsigned char"));
        cg_line(cg, "p.idx64 = %d; p.unit = %d; p.batch = %d; p.outer = %d; p.axis_size = %d; p.coords = %d;",
                dt_in(g, op, 1) == IR_I64, unit, p->batch, p->outer, p->axis_size, p->coords);
        cg_line(cg, "p.inner_units = %lld; p.total_units = %lld;", inner, total);
        kernel_def(e, kb, index, "mpcc_gather_args", 256, "mpcc_gather_body");
        launch(e, index, blocks_for(total), 1, 1, 0, 256, NULL);
        return 0;
    }
    case CU_CONCAT: {
        /* one launch of the copy kernel per input, into its slot of the output */
        const rt_concat_params *cp = op->params;
        kernel_def(e, kb, index, "mpcc_copy_args", 256, "mpcc_copy_body");
        for (int q = 0; q < cp->count; q++) {
            const rt_copy_params *p = &cp->parts[q];
            int64_t points = 1;
            for (int k = 0; k < p->rank; k++) points *= p->dims[k];
            int unit = 4;
            int64_t all = p->run | p->in_offset | p->out_offset;
            for (int k = 0; k < p->rank; k++) all |= p->in_strides[k] | p->out_strides[k];
            while (unit > 1 && all % unit) unit /= 2;
            int64_t total = p->run ? points * (p->run / unit) : 0;
            if (total == 0) continue;
            cg_open(cg, "{");
            cg_line(cg, "mpcc_copy_args p;");
            cg_line(cg, "memset(&p, 0, sizeof p);");
            cg_line(cg, "p.in = %s; p.out = %s;", ptr(e, op->in[q], "const unsigned char"), ptr(e, op->out[0], "unsigned char"));
            cg_line(cg, "p.rank = %d; p.unit = %d; p.in_offset = %lld; p.out_offset = %lld; p.run = %lld; p.total_units = %lld;",
                    p->rank, unit, (long long)p->in_offset, (long long)p->out_offset, (long long)p->run, (long long)total);
            for (int k = 0; k < p->rank; k++)
                cg_line(cg, "p.dims[%d] = %d; p.in_strides[%d] = %lld; p.out_strides[%d] = %lld;", k, p->dims[k], k,
                        (long long)p->in_strides[k], k, (long long)p->out_strides[k]);
            launch(e, index, blocks_for(total), 1, 1, 0, 256, NULL);
            cg_close(cg, "}");
            e->cg.pool_next = 0;
        }
        return 0;
    }
    default: return diag_internal(d, "operator %d: no CUDA emitter for kind %d", op->tfl_index, (int)kind);
    }
}

/* The requantization of a quantized ADD / SUB / SQUARED_DIFFERENCE / MUL into an mpcc_s8_addq `dst`. */
static void emit_addq(CuEmit *e, const char *dst, const rt_binary_params *p) {
    cg_line(&e->cg, "%s.in1_offset = %d; %s.in2_offset = %d; %s.out_offset = %d; %s.left_shift = %d;", dst, p->in1_offset,
            dst, p->in2_offset, dst, p->out_offset, dst, p->left_shift);
    cg_line(&e->cg, "%s.in1_mult = %d; %s.in1_shift = %d; %s.in2_mult = %d; %s.in2_shift = %d;", dst, p->in1_mult, dst,
            p->in1_shift, dst, p->in2_mult, dst, p->in2_shift);
    cg_line(&e->cg, "%s.out_mult = %d; %s.out_shift = %d; %s.qmin = %d; %s.qmax = %d;", dst, p->out_mult, dst,
            p->out_shift, dst, p->act_qmin, dst, p->act_qmax);
}

static int s8_binary_code(OpKind k) {
    switch (k) {
    case OP_ADD: return 0;
    case OP_SUB: return 1;
    case OP_MUL: return 2;
    case OP_SQUARED_DIFFERENCE: return 3;
    case OP_MAXIMUM: return 4;
    default: return 5; /* MINIMUM */
    }
}

/* The int8 kernels of mpcc_cuda_int8.cuh (and the IMMA GEMM for 1x1 convolutions). */
static int emit_op_s8(CuEmit *e, CgBuf *kb, int index, const IrOp *op, CuKind kind) {
    const Graph *g = e->g;
    CgCtx *cg = &e->cg;
    const char *body = NULL, *args = NULL;
    int64_t n = 0;
    switch (kind) {
    case CU_CONV_S8_GEMM: {
        const rt_conv_params *p = op->params;
        int64_t m = (int64_t)p->batches * p->out_h * p->out_w;
        cg_line(cg, "mpcc_gemm_s8_args p;");
        cg_line(cg, "memset(&p, 0, sizeof p);");
        cg_line(cg, "p.a = %s; p.lda = %d;", ptr(e, op->in[0], "const int8_t"), p->in_c);
        cg_line(cg, "p.b = %s; p.ldb = %d;", ptr(e, op->in[1], "const int8_t"), p->in_c);
        cg_line(cg, "p.bias = %s; p.mult = %s; p.shift = %s;", xptr(e, index, 0, "const int32_t"),
                xptr(e, index, 1, "const int32_t"), xptr(e, index, 2, "const int32_t"));
        cg_line(cg, "p.c = %s; p.ldc = %d;", ptr(e, op->out[0], "int8_t"), p->out_c);
        cg_line(cg, "p.m = %lld; p.n = %d; p.k = %d; p.out_offset = %d; p.qmin = %d; p.qmax = %d;", (long long)m, p->out_c,
                p->in_c, p->out_offset, p->act_qmin, p->act_qmax);
        cg_line(cg, "p.single_rounding = 0; /* as TFLite's CONV_2D */");
        char b[96], cfg[96];
        snprintf(b, sizeof b, "mpcc_gemm_s8_body<%s>", tile_s8.args);
        snprintf(cfg, sizeof cfg, "mpcc_gemm_s8_cfg<%s>", tile_s8.args);
        kernel_def(e, kb, index, "mpcc_gemm_s8_args", tile_s8.threads, b);
        launch(e, index, (p->out_c + tile_s8.bn - 1) / tile_s8.bn, (m + tile_s8.bm - 1) / tile_s8.bm, 1, 0, tile_s8.threads,
               cfg);
        return 0;
    }
    case CU_CONV_S8: {
        int bias = op->kind == OP_CONV_2D ? conv_bias_id(op) : op->n_in > 2 ? op->in[2] : -1;
        cg_line(cg, "mpcc_conv_s8_args p;");
        cg_line(cg, "memset(&p, 0, sizeof p);");
        cg_line(cg, "p.in = %s; p.filter = %s; p.bias = %s;", ptr(e, op->in[0], "const int8_t"),
                ptr(e, op->in[1], "const int8_t"), ptr(e, bias, "const int32_t"));
        cg_line(cg, "p.mult = %s; p.shift = %s;", xptr(e, index, 1, "const int32_t"), xptr(e, index, 2, "const int32_t"));
        if (op->kind == OP_DEPTHWISE_CONV_2D) {
            const rt_dwconv_params *p = op->params;
            cg_line(cg, "p.batches = %d; p.in_h = %d; p.in_w = %d; p.in_c = %d;", p->batches, p->in_h, p->in_w, p->in_c);
            cg_line(cg, "p.out_h = %d; p.out_w = %d; p.out_c = %d; p.filter_h = %d; p.filter_w = %d;", p->out_h,
                    p->out_w, p->in_c * p->depth_mult, p->filter_h, p->filter_w);
            cg_line(cg, "p.stride_h = %d; p.stride_w = %d; p.dil_h = %d; p.dil_w = %d; p.pad_h = %d; p.pad_w = %d;",
                    p->stride_h, p->stride_w, p->dil_h, p->dil_w, p->pad_h, p->pad_w);
            cg_line(cg, "p.depth_mult = %d; p.in_offset = %d; p.out_offset = %d; p.qmin = %d; p.qmax = %d;",
                    p->depth_mult, p->in_offset, p->out_offset, p->act_qmin, p->act_qmax);
            n = (int64_t)p->batches * p->out_h * p->out_w * p->in_c * p->depth_mult;
        } else {
            const rt_conv_params *p = op->params;
            cg_line(cg, "p.batches = %d; p.in_h = %d; p.in_w = %d; p.in_c = %d;", p->batches, p->in_h, p->in_w, p->in_c);
            cg_line(cg, "p.out_h = %d; p.out_w = %d; p.out_c = %d; p.filter_h = %d; p.filter_w = %d;", p->out_h,
                    p->out_w, p->out_c, p->filter_h, p->filter_w);
            cg_line(cg, "p.stride_h = %d; p.stride_w = %d; p.dil_h = %d; p.dil_w = %d; p.pad_h = %d; p.pad_w = %d;",
                    p->stride_h, p->stride_w, p->dil_h, p->dil_w, p->pad_h, p->pad_w);
            cg_line(cg, "p.in_offset = %d; p.out_offset = %d; p.qmin = %d; p.qmax = %d;", p->in_offset, p->out_offset,
                    p->act_qmin, p->act_qmax);
            n = (int64_t)p->batches * p->out_h * p->out_w * p->out_c;
            if (op->sched.post_add >= 0) {
                cg_line(cg, "p.res = %s; p.conv_is_lhs = %d; /* the fused residual ADD */",
                        ptr(e, op->sched.post_other, "const int8_t"), op->sched.conv_is_lhs);
                emit_addq(e, "p.add", g->ops[op->sched.post_add].params);
            }
        }
        cg_line(cg, "p.out = %s;", ptr(e, op->out[0], "int8_t"));
        body = "mpcc_conv_s8_body", args = "mpcc_conv_s8_args";
        break;
    }
    case CU_BINARY_S8: {
        const rt_binary_params *p = op->params;
        const rt_bcast *b = &p->bc;
        n = ir_tensor_numel(&g->tensors[op->out[0]]);
        cg_line(cg, "mpcc_binary_s8_args p;");
        cg_line(cg, "memset(&p, 0, sizeof p);");
        cg_line(cg, "p.a = %s; p.b = %s; p.out = %s;", ptr(e, op->in[0], "const int8_t"),
                ptr(e, op->in[1], "const int8_t"), ptr(e, op->out[0], "int8_t"));
        cg_line(cg, "p.op = %d; p.rank = %d; p.n = %lld;", s8_binary_code(op->kind), b->rank, (long long)n);
        for (int k = 0; k < b->rank; k++)
            cg_line(cg, "p.dims[%d] = %d; p.s1[%d] = %d; p.s2[%d] = %d;", k, b->dims[k], k, b->stride1[k], k, b->stride2[k]);
        emit_addq(e, "p.q", p);
        body = "mpcc_binary_s8_body", args = "mpcc_binary_s8_args";
        break;
    }
    case CU_POOL_S8: {
        const rt_pool_params *p = op->params;
        n = (int64_t)p->batches * p->out_h * p->out_w * p->channels;
        cg_line(cg, "mpcc_pool_s8_args p;");
        cg_line(cg, "memset(&p, 0, sizeof p);");
        cg_line(cg, "p.in = %s; p.out = %s;", ptr(e, op->in[0], "const int8_t"), ptr(e, op->out[0], "int8_t"));
        cg_line(cg, "p.batches = %d; p.in_h = %d; p.in_w = %d; p.channels = %d; p.out_h = %d; p.out_w = %d;", p->batches,
                p->in_h, p->in_w, p->channels, p->out_h, p->out_w);
        cg_line(cg, "p.filter_h = %d; p.filter_w = %d; p.stride_h = %d; p.stride_w = %d; p.pad_h = %d; p.pad_w = %d;",
                p->filter_h, p->filter_w, p->stride_h, p->stride_w, p->pad_h, p->pad_w);
        cg_line(cg, "p.is_max = %d; p.qmin = %d; p.qmax = %d;", op->kind == OP_MAX_POOL_2D, p->act_qmin, p->act_qmax);
        body = "mpcc_pool_s8_body", args = "mpcc_pool_s8_args";
        break;
    }
    case CU_MEAN_S8: {
        const rt_reduce_params *p = op->params;
        n = p->out_count;
        cg_line(cg, "mpcc_mean_s8_args p;");
        cg_line(cg, "memset(&p, 0, sizeof p);");
        cg_line(cg, "p.in = %s; p.out = %s;", ptr(e, op->in[0], "const int8_t"), ptr(e, op->out[0], "int8_t"));
        cg_line(cg, "p.rank = %d; p.out_count = %d; p.reduce_count = %d;", p->rank, p->out_count, p->reduce_count);
        cg_line(cg, "p.in_zp = %d; p.out_zp = %d; p.mult = %d; p.shift = %d; p.op = %d;", p->in_zp, p->out_zp, p->mult,
                p->shift, op->kind == OP_REDUCE_MAX ? 1 : op->kind == OP_REDUCE_MIN ? 2 : 0);
        for (int q = 0; q < p->rank; q++)
            cg_line(cg, "p.dims[%d] = %d; p.reduced[%d] = %d;", q, p->in_dims[q], q, p->out_stride[q] == 0 && p->in_dims[q] > 1);
        body = "mpcc_mean_s8_body", args = "mpcc_mean_s8_args";
        break;
    }
    case CU_LUT_S8: {
        n = ir_tensor_numel(&g->tensors[op->out[0]]);
        cg_line(cg, "mpcc_lut_s8_args p;");
        cg_line(cg, "memset(&p, 0, sizeof p);");
        cg_line(cg, "p.in = %s; p.out = %s; p.lut = %s; p.n = %lld;", ptr(e, op->in[0], "const int8_t"),
                ptr(e, op->out[0], "int8_t"), xptr(e, index, 0, "const int8_t"), (long long)n);
        body = "mpcc_lut_s8_body", args = "mpcc_lut_s8_args";
        break;
    }
    case CU_REQUANT_S8: {
        int32_t in_zp, out_zp, mult, shift, lo, hi;
        if (op->kind == OP_QUANTIZE) {
            const rt_quant_params *p = op->params;
            in_zp = p->in_zp, out_zp = p->out_zp, mult = p->mult, shift = p->shift, lo = -128, hi = 127;
        } else {
            const rt_act_params *p = op->params;
            in_zp = p->in_zp, out_zp = p->out_zp, mult = p->mult_a, shift = p->shift_a, lo = p->q_min, hi = p->q_max;
        }
        n = ir_tensor_numel(&g->tensors[op->out[0]]);
        cg_line(cg, "mpcc_requant_s8_args p;");
        cg_line(cg, "memset(&p, 0, sizeof p);");
        cg_line(cg, "p.in = %s; p.out = %s; p.n = %lld;", ptr(e, op->in[0], "const int8_t"), ptr(e, op->out[0], "int8_t"),
                (long long)n);
        cg_line(cg, "p.in_zp = %d; p.out_zp = %d; p.mult = %d; p.shift = %d; p.qmin = %d; p.qmax = %d;", in_zp, out_zp, mult,
                shift, lo, hi);
        body = "mpcc_requant_s8_body", args = "mpcc_requant_s8_args";
        break;
    }
    case CU_SOFTMAX_S8: { /* one thread per row */
        const rt_softmax_params *p = op->params;
        n = p->outer;
        cg_line(cg, "mpcc_softmax_s8_args p;");
        cg_line(cg, "memset(&p, 0, sizeof p);");
        cg_line(cg, "p.in = %s; p.out = %s; p.exp_q0 = %s;", ptr(e, op->in[0], "const int8_t"),
                ptr(e, op->out[0], "int8_t"), xptr(e, index, 0, "const int32_t"));
        cg_line(cg, "p.rows = %d; p.depth = %d; p.diff_min = %d;", p->outer, p->depth, p->diff_min);
        body = "mpcc_softmax_s8_body", args = "mpcc_softmax_s8_args";
        break;
    }
    default: return -1;
    }
    kernel_def(e, kb, index, args, 256, body);
    launch(e, index, blocks_for(n), 1, 1, 0, 256, NULL);
    return 0;
}

static int emit_op(CuEmit *e, CgBuf *kb, int index, const IrOp *op, CuKind kind, Diag *d) {
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
        int half = dt_in(g, op, 1) == IR_BF16 || dt_in(g, op, 1) == IR_F16;
        cg_line(cg, "mpcc_gemm_args p;");
        cg_line(cg, "memset(&p, 0, sizeof p);");
        cg_line(cg, "p.a = %s; p.lda = %lld;", ptr(e, op->in[0], "const float"), (long long)k);
        cg_line(cg, "p.b = %s; p.ldb = %lld; p.b_half = %d;", ptr(e, op->in[1], "const void"), (long long)k, half);
        cg_line(cg, "p.bias = %s;", op->n_in > 2 ? ptr(e, op->in[2], "const float") : "NULL");
        if (res >= 0) {
            const rt_binary_params *ap = g->ops[op->sched.post_add].params;
            cg_line(cg, "p.res = %s; p.ldr = %lld;", ptr(e, res, "const float"), (long long)n);
            gemm_common(e, m, n, k, lo, hi);
            cg_line(cg, "p.act2_min = %s; p.act2_max = %s;", f32(e, ap->act_min), f32(e, ap->act_max));
        } else {
            gemm_common(e, m, n, k, lo, hi);
        }
        cg_line(cg, "p.c = %s; p.ldc = %lld;", ptr(e, op->out[0], "float"), (long long)n);
        emit_gemm_launch(e, kb, index, mma_mode(e, op), 1, m, n, 1);
        return 0;
    }
    case CU_GEMM_S8: {
        const rt_fc_params *p = op->params;
        cg_line(cg, "mpcc_gemm_s8_args p;");
        cg_line(cg, "memset(&p, 0, sizeof p);");
        cg_line(cg, "p.a = %s; p.lda = %d;", ptr(e, op->in[0], "const int8_t"), p->in_depth);
        cg_line(cg, "p.b = %s; p.ldb = %d;", ptr(e, op->in[1], "const int8_t"), p->in_depth);
        cg_line(cg, "p.bias = %s; p.mult = %s; p.shift = %s;", xptr(e, index, 0, "const int32_t"),
                xptr(e, index, 1, "const int32_t"), xptr(e, index, 2, "const int32_t"));
        cg_line(cg, "p.c = %s; p.ldc = %d;", ptr(e, op->out[0], "int8_t"), p->out_depth);
        cg_line(cg, "p.m = %d; p.n = %d; p.k = %d; p.out_offset = %d; p.qmin = %d; p.qmax = %d;", p->batches,
                p->out_depth, p->in_depth, p->out_offset, p->act_qmin, p->act_qmax);
        cg_line(cg, "p.single_rounding = 1; /* as TFLite's FULLY_CONNECTED */");
        char body[96], cfg[96];
        snprintf(body, sizeof body, "mpcc_gemm_s8_body<%s>", tile_s8.args);
        snprintf(cfg, sizeof cfg, "mpcc_gemm_s8_cfg<%s>", tile_s8.args);
        kernel_def(e, kb, index, "mpcc_gemm_s8_args", tile_s8.threads, body);
        launch(e, index, (p->out_depth + tile_s8.bn - 1) / tile_s8.bn, (p->batches + tile_s8.bm - 1) / tile_s8.bm, 1, 0,
               tile_s8.threads, cfg);
        return 0;
    }
    case CU_BMM: {
        const rt_bmm_params *p = op->params;
        int64_t sa, sb, batch;
        bmm_flat(p, &sa, &sb, &batch);
        int b_nk = p->rhs_sk == 1 && p->rhs_sj != 1;
        cg_line(cg, "mpcc_gemm_args p;");
        cg_line(cg, "memset(&p, 0, sizeof p);");
        cg_line(cg, "p.a = %s; p.lda = %d; p.sa = %lld;", ptr(e, op->in[0], "const float"), p->lhs_si, (long long)sa);
        cg_line(cg, "p.b = %s; p.ldb = %d; p.sb = %lld;", ptr(e, op->in[1], "const void"), b_nk ? p->rhs_sj : p->rhs_sk,
                (long long)sb);
        gemm_common(e, p->m, p->n, p->k, -INFINITY, INFINITY);
        cg_line(cg, "p.c = %s; p.ldc = %d; p.sc = %lld;", ptr(e, op->out[0], "float"), p->n, (long long)p->m * p->n);
        emit_gemm_launch(e, kb, index, mma_mode(e, op), b_nk, p->m, p->n, batch);
        return 0;
    }
    case CU_CONV: {
        const int dw = op->kind == OP_DEPTHWISE_CONV_2D;
        cg_line(cg, "mpcc_conv_args p;");
        cg_line(cg, "memset(&p, 0, sizeof p);");
        cg_line(cg, "p.in = %s; p.filter = %s; p.bias = %s;", ptr(e, op->in[0], "const float"),
                ptr(e, op->in[1], "const float"), op->n_in > 2 ? ptr(e, op->in[2], "const float") : "NULL");
        int64_t n;
        if (dw) {
            const rt_dwconv_params *p = op->params;
            cg_line(cg, "p.batches = %d; p.in_h = %d; p.in_w = %d; p.in_c = %d;", p->batches, p->in_h, p->in_w, p->in_c);
            cg_line(cg, "p.out_h = %d; p.out_w = %d; p.out_c = %d; p.filter_h = %d; p.filter_w = %d;", p->out_h,
                    p->out_w, p->in_c * p->depth_mult, p->filter_h, p->filter_w);
            cg_line(cg, "p.stride_h = %d; p.stride_w = %d; p.dil_h = %d; p.dil_w = %d; p.pad_h = %d; p.pad_w = %d;",
                    p->stride_h, p->stride_w, p->dil_h, p->dil_w, p->pad_h, p->pad_w);
            cg_line(cg, "p.depth_mult = %d; p.act1_min = %s; p.act1_max = %s;", p->depth_mult, f32(e, p->act_min),
                    f32(e, p->act_max));
            n = (int64_t)p->batches * p->out_h * p->out_w * p->in_c * p->depth_mult;
        } else {
            const rt_conv_params *p = op->params;
            if (p->filter_c != p->in_c) return diag_user(d, "operator %d (CONV_2D): grouped convolution has no CUDA kernel yet", op->tfl_index);
            cg_line(cg, "p.batches = %d; p.in_h = %d; p.in_w = %d; p.in_c = %d;", p->batches, p->in_h, p->in_w, p->in_c);
            cg_line(cg, "p.out_h = %d; p.out_w = %d; p.out_c = %d; p.filter_h = %d; p.filter_w = %d;", p->out_h,
                    p->out_w, p->out_c, p->filter_h, p->filter_w);
            cg_line(cg, "p.stride_h = %d; p.stride_w = %d; p.dil_h = %d; p.dil_w = %d; p.pad_h = %d; p.pad_w = %d;",
                    p->stride_h, p->stride_w, p->dil_h, p->dil_w, p->pad_h, p->pad_w);
            cg_line(cg, "p.act1_min = %s; p.act1_max = %s;", f32(e, p->act_min), f32(e, p->act_max));
            n = (int64_t)p->batches * p->out_h * p->out_w * p->out_c;
        }
        if (!dw && op->sched.post_add >= 0) {
            const rt_binary_params *ap = g->ops[op->sched.post_add].params;
            cg_line(cg, "p.res = %s; p.act2_min = %s; p.act2_max = %s;", ptr(e, op->sched.post_other, "const float"),
                    f32(e, ap->act_min), f32(e, ap->act_max));
        }
        cg_line(cg, "p.out = %s;", ptr(e, op->out[0], "float"));
        kernel_def(e, kb, index, "mpcc_conv_args", 256, "mpcc_conv_body");
        launch(e, index, blocks_for(n), 1, 1, 0, 256, NULL);
        return 0;
    }
    case CU_BINARY: {
        const rt_binary_params *p = op->params;
        const rt_bcast *b = &p->bc;
        int64_t n = ir_tensor_numel(&g->tensors[op->out[0]]);
        cg_line(cg, "mpcc_binary_args p;");
        cg_line(cg, "memset(&p, 0, sizeof p);");
        cg_line(cg, "p.a = %s; p.b = %s; p.out = %s;", ptr(e, op->in[0], "const float"), ptr(e, op->in[1], "const float"),
                ptr(e, op->out[0], "float"));
        cg_line(cg, "p.op = %d; p.rank = %d; p.n = %lld; p.act_min = %s; p.act_max = %s;", binary_code(op->kind), b->rank,
                (long long)n, f32(e, p->act_min), f32(e, p->act_max));
        for (int k = 0; k < b->rank; k++)
            cg_line(cg, "p.dims[%d] = %d; p.s1[%d] = %d; p.s2[%d] = %d;", k, b->dims[k], k, b->stride1[k], k, b->stride2[k]);
        kernel_def(e, kb, index, "mpcc_binary_args", 256, "mpcc_binary_body");
        launch(e, index, blocks_for(n), 1, 1, 0, 256, NULL);
        return 0;
    }
    case CU_UNARY: {
        int64_t n = ir_tensor_numel(&g->tensors[op->out[0]]);
        int code = unary_code(op->kind);
        float lo = -INFINITY, hi = INFINITY, alpha = 0.0f;
        if (op->kind == OP_GELU) code = ((const rt_act_params *)op->params)->approximate ? 10 : 9;
        if (op->kind == OP_RELU || op->kind == OP_RELU6 || op->kind == OP_RELU_N1_TO_1 || op->kind == OP_LEAKY_RELU) {
            const rt_act_params *p = op->params;
            lo = p->f_min, hi = p->f_max, alpha = p->alpha;
        }
        cg_line(cg, "mpcc_unary_args p;");
        cg_line(cg, "memset(&p, 0, sizeof p);");
        cg_line(cg, "p.in = %s; p.out = %s;", ptr(e, op->in[0], "const float"), ptr(e, op->out[0], "float"));
        cg_line(cg, "p.n = %lld; p.op = %d; p.lo = %s; p.hi = %s; p.alpha = %s;", (long long)n, code, f32(e, lo),
                f32(e, hi), f32(e, alpha));
        kernel_def(e, kb, index, "mpcc_unary_args", 256, "mpcc_unary_body");
        launch(e, index, blocks_for(n), 1, 1, 0, 256, NULL);
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
        cg_line(cg, "p.in = %s; p.out = %s;", ptr(e, op->in[0], "const float"), ptr(e, op->out[0], "float"));
        if (kind == CU_LAYER_NORM)
            cg_line(cg, "p.gamma = %s; p.beta_vec = %s;", op->in[1] >= 0 ? ptr(e, op->in[1], "const float") : "NULL",
                    op->in[2] >= 0 ? ptr(e, op->in[2], "const float") : "NULL");
        cg_line(cg, "p.rows = %lld; p.cols = %lld; p.beta = %s; p.eps = %s;", (long long)rows, (long long)cols,
                f32(e, beta), f32(e, eps));
        kernel_def(e, kb, index, "mpcc_rows_args", 256, body);
        launch(e, index, (rows < 1 ? 1 : rows > 65535 ? 65535 : rows), 1, 1, 0, 256, NULL);
        return 0;
    }
    case CU_COPY: {
        const rt_copy_params *p = op->params;
        int64_t points = 1;
        for (int k = 0; k < p->rank; k++) points *= p->dims[k];
        int unit = 4;
        int64_t all = p->run | p->in_offset | p->out_offset;
        for (int k = 0; k < p->rank; k++) all |= p->in_strides[k] | p->out_strides[k];
        while (unit > 1 && all % unit) unit /= 2;
        int64_t total = p->run ? points * (p->run / unit) : 0;
        cg_line(cg, "mpcc_copy_args p;");
        cg_line(cg, "memset(&p, 0, sizeof p);");
        cg_line(cg, "p.in = %s; p.out = %s;", ptr(e, op->in[0], "const unsigned char"),
                ptr(e, op->out[0], "unsigned char"));
        cg_line(cg, "p.rank = %d; p.unit = %d; p.in_offset = %lld; p.out_offset = %lld; p.run = %lld; p.total_units = %lld;",
                p->rank, unit, (long long)p->in_offset, (long long)p->out_offset, (long long)p->run, (long long)total);
        for (int k = 0; k < p->rank; k++)
            cg_line(cg, "p.dims[%d] = %d; p.in_strides[%d] = %lld; p.out_strides[%d] = %lld;", k, p->dims[k], k,
                    (long long)p->in_strides[k], k, (long long)p->out_strides[k]);
        kernel_def(e, kb, index, "mpcc_copy_args", 256, "mpcc_copy_body");
        launch(e, index, blocks_for(total), 1, 1, 0, 256, NULL);
        return 0;
    }
    case CU_MEAN: {
        const rt_reduce_params *p = op->params;
        cg_line(cg, "mpcc_mean_args p;");
        cg_line(cg, "memset(&p, 0, sizeof p);");
        cg_line(cg, "p.in = %s; p.out = %s;", ptr(e, op->in[0], "const float"), ptr(e, op->out[0], "float"));
        cg_line(cg, "p.rank = %d; p.out_count = %d; p.reduce_count = %d; p.op = %d;", p->rank, p->out_count, p->reduce_count,
                op->kind == OP_SUM ? 1 : op->kind == OP_REDUCE_MAX ? 2 : op->kind == OP_REDUCE_MIN ? 3 : 0);
        for (int q = 0; q < p->rank; q++)
            cg_line(cg, "p.dims[%d] = %d; p.reduced[%d] = %d;", q, p->in_dims[q], q, p->out_stride[q] == 0 && p->in_dims[q] > 1);
        kernel_def(e, kb, index, "mpcc_mean_args", 256, "mpcc_mean_body");
        launch(e, index, blocks_for(p->out_count), 1, 1, 0, 256, NULL);
        return 0;
    }
    case CU_POOL: {
        const rt_pool_params *p = op->params;
        int64_t n = (int64_t)p->batches * p->out_h * p->out_w * p->channels;
        cg_line(cg, "mpcc_pool_args p;");
        cg_line(cg, "memset(&p, 0, sizeof p);");
        cg_line(cg, "p.in = %s; p.out = %s;", ptr(e, op->in[0], "const float"), ptr(e, op->out[0], "float"));
        cg_line(cg, "p.batches = %d; p.in_h = %d; p.in_w = %d; p.channels = %d; p.out_h = %d; p.out_w = %d;", p->batches,
                p->in_h, p->in_w, p->channels, p->out_h, p->out_w);
        cg_line(cg, "p.filter_h = %d; p.filter_w = %d; p.stride_h = %d; p.stride_w = %d; p.pad_h = %d; p.pad_w = %d;",
                p->filter_h, p->filter_w, p->stride_h, p->stride_w, p->pad_h, p->pad_w);
        cg_line(cg, "p.is_max = %d; p.act_min = %s; p.act_max = %s;", op->kind == OP_MAX_POOL_2D, f32(e, p->act_min),
                f32(e, p->act_max));
        kernel_def(e, kb, index, "mpcc_pool_args", 256, "mpcc_pool_body");
        launch(e, index, blocks_for(n), 1, 1, 0, 256, NULL);
        return 0;
    }
    case CU_CAST: {
        const rt_quant_params *p = op->params;
        cg_line(cg, "mpcc_cast_args p;");
        cg_line(cg, "memset(&p, 0, sizeof p);");
        cg_line(cg, "p.in = %s; p.out = %s;", ptr(e, op->in[0], "const void"), ptr(e, op->out[0], "void"));
        int mode = op->kind == OP_QUANTIZE ? 1 : dt_in(g, op, 0) == IR_F16 ? 2 : 0;
        cg_line(cg, "p.n = %lld; p.mode = %d; p.scale = %s; p.zero_point = %d;", (long long)p->n, mode,
                f32(e, p->scale), p->zero_point);
        kernel_def(e, kb, index, "mpcc_cast_args", 256, "mpcc_cast_body");
        launch(e, index, blocks_for(p->n), 1, 1, 0, 256, NULL);
        return 0;
    }
    case CU_ATTENTION: {
        const rt_opt_attn_params *p = op->sched.kparams;
        const rt_bmm_params *qk = &p->qk, *pv = &p->pv;
        /* Batch dims of the output: the last is the heads, the ones before flatten to the batch. */
        int r = pv->batch_rank;
        int heads = r > 0 ? pv->batch_dims[r - 1] : 1, batch = 1;
        for (int k = 0; k + 1 < r; k++) batch *= pv->batch_dims[k];
        int hd = qk->k;
        const char *mode = model_mma_mode(e);
        /* Strides per batch/head (0 when broadcast), rows. */
#define BSTRIDE(arr, k) ((k) >= 0 && (k) < r ? (long long)(arr)[k] : 0LL)
        cg_line(cg, "mpcc_attn_args p;");
        cg_line(cg, "memset(&p, 0, sizeof p);");
        cg_line(cg, "p.q = %s; p.k = %s; p.v = %s; p.o = %s;", ptr(e, op->in[0], "const float"),
                ptr(e, op->in[1], "const float"), ptr(e, op->in[2], "const float"), ptr(e, op->out[0], "float"));
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
                    ptr(e, op->in[3], "const float"), r > 1 ? BSTRIDE(p->mask_bstride[0], r - 2) : 0LL,
                    BSTRIDE(p->mask_bstride[0], r - 1), p->mask_sq[0], p->mask_sk[0]);
        if (p->mask == RT_OPT_MASK_KEEP || p->mask == RT_OPT_MASK_FILL)
            for (int m = 0; m < 2; m++) {
                int s = m < p->n_mask ? m : 0; /* one mask: bmask1 = bmask0 */
                cg_line(cg, "p.bmask%d = %s; p.b%d_sb = %lld; p.b%d_sh = %lld; p.b%d_sq = %d; p.b%d_sk = %d;", m,
                        ptr(e, op->in[3 + s], "const unsigned char"), m, r > 1 ? BSTRIDE(p->mask_bstride[s], r - 2) : 0LL,
                        m, BSTRIDE(p->mask_bstride[s], r - 1), m, p->mask_sq[s], m, p->mask_sk[s]);
            }
        if (p->mask == RT_OPT_MASK_KEEP || p->mask == RT_OPT_MASK_FILL)
            cg_line(cg, "p.bmode = %d; p.fill = %s;", p->mask == RT_OPT_MASK_KEEP ? 1 : 2, f32(e, p->fill));
#undef BSTRIDE
        cg_line(cg, "p.scale = %s; p.causal = 0;", f32(e, p->scale));
        char body[96], cfg[96];
        snprintf(body, sizeof body, "mpcc_attn_body<%s, %d%s>", mode, hd,
                 p->mask == RT_OPT_MASK_KEEP || p->mask == RT_OPT_MASK_FILL ? ", true" : "");
        snprintf(cfg, sizeof cfg, "mpcc_attn_cfg<%s, %d>", mode, hd);
        kernel_def(e, kb, index, "mpcc_attn_args", 0, body);
        launch(e, index, 0, heads, batch, qk->m, 0, cfg);
        return 0;
    }
    case CU_ELEM: case CU_GATHER: case CU_CONCAT: return emit_more(e, kb, index, op, kind, d);
    case CU_CONV_S8: case CU_CONV_S8_GEMM: case CU_BINARY_S8: case CU_POOL_S8: case CU_MEAN_S8: case CU_LUT_S8:
    case CU_SOFTMAX_S8: case CU_REQUANT_S8:
        return emit_op_s8(e, kb, index, op, kind);
    default: return diag_internal(d, "operator %d: no CUDA emitter for kind %d", op->tfl_index, (int)kind);
    }
}

/* ---------------------------------------------------------------------- */

static void emit_cuda_header(CgBuf *h, const Graph *g, const CudaEmitOptions *o, const char *P, int n_kernels) {
    char hn[TXT_COMMENT_CAP], sn[TXT_COMMENT_CAP];
    const char *pf = o->prefix;
    cgbuf_printf(h, "/* %s - generated by mpcc %s from %s (--target cuda). Do not edit.\n", txt_comment(hn, sizeof hn, o->header_name),
                 MPCC_VERSION, txt_comment(sn, sizeof sn, o->source_name));
    cgbuf_printf(h,
                 " *\n"
                 " * Usage (C or C++; no CUDA header needed here):\n"
                 " *   %s_cuda_ctx ctx;\n"
                 " *   if (%s_cuda_init(&ctx) != 0) puts(%s_cuda_error(&ctx));   uploads the weights once,\n"
                 " *                                      allocates the device arena (%s_ARENA_BYTES)\n"
                 " *   const void *in[%s_NUM_INPUTS] = {...};  void *out[%s_NUM_OUTPUTS] = {...};   DEVICE pointers\n"
                 " *   int rc = %s_cuda_run(&ctx, stream, in, out);   enqueues the model on `stream`\n"
                 " *                                      (a cudaStream_t, or NULL for the default stream)\n"
                 " *   rc = %s_cuda_run_graph(&ctx, stream, in, out);  the same through a CUDA graph: captured on\n"
                 " *                                      the first call (and again when the pointers change);\n"
                 " *                                      needs a stream of your own (cudaStreamCreate), not NULL\n"
                 " *   %s_cuda_free(&ctx);\n"
                 " * Build: nvcc -arch=sm_80 (or sm_90) -I<mpcc>/runtime/cuda -c %s.cu. Inputs and outputs are\n"
                 " * dense row-major device buffers of the dtypes and shapes below. Functions return 0, or\n"
                 " * 1 for a NULL argument, or -1 when a CUDA call failed: %s_cuda_error() then names the\n"
                 " * call, the operator and CUDA's message. A context serves one stream at a time.\n */\n",
                 pf, pf, pf, P, P, P, pf, pf, pf, pf, pf);
    cgbuf_printf(h, "#ifndef %s_CUDA_MODEL_H\n#define %s_CUDA_MODEL_H\n\n#include <stddef.h>\n#include <stdint.h>\n\n", P, P);
    cgbuf_printf(h, "#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n");
    cgbuf_printf(h, "/* Bytes of device memory for the activations (the same static plan as the C target). */\n");
    cgbuf_printf(h, "#define %s_ARENA_BYTES %lld\n", P, (long long)g->arena_bytes);
    cgbuf_printf(h, "#define %s_NUM_INPUTS %d\n#define %s_NUM_OUTPUTS %d\n", P, g->n_inputs, P, g->n_outputs);
    cgbuf_printf(h, "/* dtype codes: 0 f32, 1 f16, 2 bf16, 3 i8, 4 u8, 5 i16, 6 i32, 7 i64, 8 bool */\n");
    cg_emit_io_macros(h, g, P, 0);
    cg_emit_io_macros(h, g, P, 1);
    if (o->jit) {
        cgbuf_printf(h,
                     "\n/* --jit: the kernels are compiled at the first %s_cuda_init by NVRTC for the GPU in\n"
                     " * use (runtime/cuda/mpcc_jit.c: dlopens libnvrtc and libcuda, caches the cubin in\n"
                     " * $MPCC_JIT_CACHE, else $XDG_CACHE_HOME/mpcc or ~/.cache/mpcc; device 0). This file is C99:\n"
                     " * build %s.c and runtime/cuda/mpcc_jit.c with any C compiler, link -ldl; no CUDA toolkit\n"
                     " * is needed to build it. %s_cuda_run_graph is not available. */\n"
                     "typedef struct %s_cuda_ctx {\n"
                     "    void *jit, *module;  /* mpcc_jit handles */\n"
                     "    void *fn[%d];        /* the kernels */\n"
                     "    int threads[%d], smem[%d], block_m[%d]; /* their launch configuration */\n"
                     "    void *arena;         /* device: activations */\n"
                     "    void *weights;       /* device: the constants */\n"
                     "    char error[512];\n"
                     "} %s_cuda_ctx;\n\n",
                     pf, pf, pf, pf, n_kernels + 1, n_kernels + 1, n_kernels + 1, n_kernels + 1, pf);
        cgbuf_printf(h, "int %s_cuda_init(%s_cuda_ctx *ctx);\n", pf, pf);
        cgbuf_printf(h, "int %s_cuda_run(%s_cuda_ctx *ctx, void *stream, const void *const *inputs, void *const *outputs);\n", pf, pf);
        cgbuf_printf(h, "void %s_cuda_free(%s_cuda_ctx *ctx);\n", pf, pf);
        cgbuf_printf(h, "const char *%s_cuda_error(const %s_cuda_ctx *ctx);\n", pf, pf);
        cgbuf_printf(h, "\n#ifdef __cplusplus\n}\n#endif\n\n#endif\n");
        return;
    }
    cgbuf_printf(h,
                 "\ntypedef struct %s_cuda_ctx {\n"
                 "    void *arena;         /* device: activations */\n"
                 "    void *weights;       /* device: the constants, uploaded by %s_cuda_init */\n"
                 "    void *graph, *graph_exec;            /* CUDA graph of %s_cuda_run_graph, or NULL */\n"
                 "    const void *graph_io[%d];            /* the pointers it was captured with */\n"
                 "    char error[256];\n"
                 "} %s_cuda_ctx;\n\n",
                 pf, pf, pf, g->n_inputs + g->n_outputs, pf);
    cgbuf_printf(h, "int %s_cuda_init(%s_cuda_ctx *ctx);\n", pf, pf);
    cgbuf_printf(h, "int %s_cuda_run(%s_cuda_ctx *ctx, void *stream, const void *const *inputs, void *const *outputs);\n", pf, pf);
    cgbuf_printf(h, "int %s_cuda_run_graph(%s_cuda_ctx *ctx, void *stream, const void *const *inputs, void *const *outputs);\n", pf, pf);
    cgbuf_printf(h, "void %s_cuda_free(%s_cuda_ctx *ctx);\n", pf, pf);
    cgbuf_printf(h, "const char *%s_cuda_error(const %s_cuda_ctx *ctx);\n", pf, pf);
    cgbuf_printf(h, "\n#ifdef __cplusplus\n}\n#endif\n\n#endif\n");
}

static void emit_blob(CuEmit *e, CgBuf *c) {
    const Graph *g = e->g;
    unsigned char *blob = calloc(1, (size_t)(e->blob_bytes > 0 ? e->blob_bytes : 1));
    if (!blob) {
        c->oom = 1;
        return;
    }
    for (int id = 0; id < g->n_tensors; id++)
        if (e->woff[id] >= 0) memcpy(blob + e->woff[id], g->tensors[id].data, (size_t)ir_tensor_bytes(&g->tensors[id]));
    for (int i = 0; i < e->n_xc; i++) memcpy(blob + e->xc[i].off, e->xc[i].data, (size_t)e->xc[i].bytes);
    cgbuf_printf(c, "\n/* The constants (%lld bytes, each at a %d-byte aligned offset): uploaded once by %s_cuda_init. */\n",
                 (long long)e->blob_bytes, BLOB_ALIGN, e->o->prefix);
    cgbuf_printf(c, "%sstatic const unsigned char %s_blob[%lld] = {", e->o->jit ? "" : "alignas(16) ", e->o->prefix,
                 (long long)(e->blob_bytes > 0 ? e->blob_bytes : 1));
    for (int64_t i = 0; i < (e->blob_bytes > 0 ? e->blob_bytes : 1); i++) {
        if (i % 24 == 0) cgbuf_append(c, "\n    ", 5);
        cgbuf_printf(c, "%u,", blob[i]);
    }
    cgbuf_printf(c, "\n};\n");
    free(blob);
}

/* The kernel source as C string lines: runtime/cuda's headers (embedded in mpcc at build time),
 * then the kernels of this model. */
static void emit_source_lines(CgBuf *c, const CgBuf *k) {
    static const char *const order[] = {"mpcc_cuda.cuh", "mpcc_cuda_args.h", "mpcc_cuda_ops.cuh", "mpcc_cuda_gemm.cuh",
                                        "mpcc_cuda_attention.cuh", "mpcc_cuda_int8.cuh"};
    for (size_t n = 0; n < sizeof order / sizeof order[0]; n++)
        for (const CuHeaderText *h = cu_headers; h->name; h++) {
            if (strcmp(h->name, order[n]) != 0) continue;
            for (const char *const *l = h->lines; *l; l++) {
                if (strncmp(*l, "#include \"mpcc_", 15) == 0) continue; /* pasted in order instead */
                char lit[TXT_LITERAL_CAP];
                cgbuf_printf(c, "    %s,\n", txt_c_string(lit, sizeof lit, *l));
            }
        }
    const char *at = k->s ? k->s : "";
    while (*at) {
        const char *nl = strchr(at, '\n');
        size_t n = nl ? (size_t)(nl - at) + 1 : strlen(at);
        char line[1024], lit[TXT_LITERAL_CAP];
        snprintf(line, sizeof line, "%.*s", (int)(n < sizeof line ? n : sizeof line - 1), at);
        cgbuf_printf(c, "    %s,\n", txt_c_string(lit, sizeof lit, line));
        at += n;
    }
}

static void assemble_jit(CuEmit *e, CgBuf *c, const CgBuf *k, const CgBuf *run, const CgBuf *init, const char *P) {
    const char *pf = e->o->prefix;
    char hn[TXT_COMMENT_CAP], sn[TXT_COMMENT_CAP], inc[TXT_LITERAL_CAP];
    cgbuf_printf(c, "/* %s.c - generated by mpcc %s from %s (--target cuda --jit). Do not edit.\n", pf, MPCC_VERSION,
                 txt_comment(sn, sizeof sn, e->o->source_name));
    cgbuf_printf(c, " * API: %s. C99 host code; %d kernels, one per operator, compiled by NVRTC at\n"
                    " * %s_cuda_init (runtime/cuda/mpcc_jit.h) from the source below. */\n",
                 txt_comment(hn, sizeof hn, e->o->header_name), e->n_kernels, pf);
    cgbuf_printf(c, "#include %s\n", txt_c_string(inc, sizeof inc, e->o->header_name));
    cgbuf_printf(c, "#include <math.h>\n#include <stdio.h>\n#include <string.h>\n#include \"mpcc_cuda_args.h\"\n#include \"mpcc_jit.h\"\n");
    emit_blob(e, c);
    cgbuf_printf(c, "\n/* ---- the kernel source (NVRTC) ---- */\nstatic const char *const %s_source[] = {\n", pf);
    emit_source_lines(c, k);
    cgbuf_printf(c, "};\n\nstatic const char *const %s_kernels[%d] = {", pf, e->n_kernels + 1);
    for (int i = 0, n = 0; i < e->g->n_ops; i++) {
        const char *why;
        CuKind kind = cu_classify(e->g, &e->g->ops[i], &why);
        if (kind == CU_SKIP) continue;
        cgbuf_printf(c, "%s\"%s_k%d\",", n++ % 6 ? " " : "\n    ", pf, i);
    }
    cgbuf_printf(c, "\n    \"\"};\n\n");
    cgbuf_printf(c,
                 "static int %s_fail(%s_cuda_ctx *ctx, int op) {\n"
                 "    const char *why = mpcc_jit_error((const mpcc_jit *)ctx->jit);\n"
                 "    if (op >= 0) snprintf(ctx->error, sizeof ctx->error, \"%s: op %%d: %%s\", op, why);\n"
                 "    else snprintf(ctx->error, sizeof ctx->error, \"%s: %%s\", why);\n"
                 "    return -1;\n}\n\n",
                 pf, pf, pf, pf);
    cgbuf_printf(c,
                 "static int %s_enqueue(%s_cuda_ctx *ctx, void *stream, const void *const *inputs, void *const *outputs) {\n"
                 "    mpcc_jit *j = (mpcc_jit *)ctx->jit;\n"
                 "    void *args[1];\n"
                 "    (void)j, (void)stream, (void)inputs, (void)outputs, (void)args;\n",
                 pf, pf);
    if (e->uses_a) cgbuf_printf(c, "    unsigned char *a = (unsigned char *)ctx->arena;\n");
    if (e->uses_w) cgbuf_printf(c, "    const unsigned char *w = (const unsigned char *)ctx->weights;\n");
    cgbuf_append(c, run->s ? run->s : "", run->len);
    cgbuf_printf(c, "    return 0;\n}\n\n");
    cgbuf_printf(c,
                 "int %s_cuda_init(%s_cuda_ctx *ctx) {\n"
                 "    mpcc_jit *j;\n"
                 "    mpcc_jit_module *m;\n"
                 "    int i;\n"
                 "    if (!ctx) return 1;\n"
                 "    memset(ctx, 0, sizeof *ctx);\n"
                 "    i = mpcc_jit_open(&j, NULL, 0);\n"
                 "    ctx->jit = j;\n"
                 "    if (i) return %s_fail(ctx, -1);\n"
                 "    if (mpcc_jit_load_lines(j, %s_source, (int)(sizeof %s_source / sizeof %s_source[0]), \"%s.cu\", NULL, 0, &m))\n"
                 "        return %s_fail(ctx, -1);\n"
                 "    ctx->module = m;\n"
                 "    for (i = 0; i < %d; i++)\n"
                 "        if (mpcc_jit_function(m, %s_kernels[i], (mpcc_jit_fn **)&ctx->fn[i])) return %s_fail(ctx, -1);\n",
                 pf, pf, pf, pf, pf, pf, pf, pf, e->n_kernels, pf, pf);
    cgbuf_append(c, init->s ? init->s : "", init->len);
    cgbuf_printf(c,
                 "    if (mpcc_jit_alloc(j, %s_ARENA_BYTES > 0 ? %s_ARENA_BYTES : 1, &ctx->arena) ||\n"
                 "        mpcc_jit_alloc(j, sizeof %s_blob, &ctx->weights) ||\n"
                 "        mpcc_jit_copy(j, ctx->weights, %s_blob, sizeof %s_blob, MPCC_JIT_H2D, NULL) || mpcc_jit_sync(j, NULL))\n"
                 "        return %s_fail(ctx, -1);\n"
                 "    return 0;\n}\n\n",
                 P, P, pf, pf, pf, pf);
    cgbuf_printf(c,
                 "int %s_cuda_run(%s_cuda_ctx *ctx, void *stream, const void *const *inputs, void *const *outputs) {\n"
                 "    if (!ctx || !inputs || !outputs || !ctx->arena) return 1;\n"
                 "    return %s_enqueue(ctx, stream, inputs, outputs);\n}\n\n",
                 pf, pf, pf);
    cgbuf_printf(c,
                 "void %s_cuda_free(%s_cuda_ctx *ctx) {\n"
                 "    if (!ctx) return;\n"
                 "    mpcc_jit_free((mpcc_jit *)ctx->jit, ctx->arena);\n"
                 "    mpcc_jit_free((mpcc_jit *)ctx->jit, ctx->weights);\n"
                 "    mpcc_jit_close((mpcc_jit *)ctx->jit); /* unloads the module */\n"
                 "    ctx->jit = ctx->module = ctx->arena = ctx->weights = NULL;\n}\n\n"
                 "const char *%s_cuda_error(const %s_cuda_ctx *ctx) { return ctx ? ctx->error : \"NULL context\"; }\n",
                 pf, pf, pf, pf);
}

int cg_emit_cuda(const Graph *g, const CudaEmitOptions *o, FILE *cu_out, FILE *h_out, Diag *d) {
    int rc = cu_check_graph(g, d);
    if (rc) return rc;
    CgBuf c = {0}, h = {0}, k = {0}, run = {0}, attr = {0};
    CuEmit e;
    memset(&e, 0, sizeof e);
    e.g = g;
    e.o = o;
    e.attr = &attr;
    e.kb = &k;
    e.woff = malloc(sizeof(int64_t) * (size_t)(g->n_tensors + 1));
    if (!e.woff) return diag_internal(d, "out of memory");
    for (int i = 0; i < g->n_tensors; i++) e.woff[i] = -1;
    char P[128];
    size_t j = 0;
    for (const char *s = o->prefix; *s && j + 1 < sizeof P; s++) P[j++] = (char)toupper((unsigned char)*s);
    P[j] = '\0';
    /* Constants first (their offsets appear in the launches). */
    for (int i = 0; i < g->n_ops && !rc; i++) {
        const IrOp *op = &g->ops[i];
        const char *why;
        CuKind kind = cu_classify(g, op, &why);
        if (kind == CU_SKIP) continue;
        for (int q = 0; q < op->n_in; q++) use_const(&e, op->in[q]);
        if (cu_xconsts(&e, i, op, kind)) rc = diag_internal(d, "out of memory");
    }
    for (int i = 0; i < g->n_outputs; i++) use_const(&e, g->outputs[i]);
    if (!rc && e.blob_bytes > CG_MAX_EMBED_BYTES)
        rc = diag_user(d, "%s: %lld bytes of constants, more than the %lld that --target cuda embeds", g->source,
                       (long long)e.blob_bytes, (long long)CG_MAX_EMBED_BYTES);
    /* Kernels and their launches. */
    e.cg.out = &run;
    e.cg.g = g;
    e.cg.prefix = o->prefix;
    e.cg.depth = 1;
    for (int i = 0, index = 0; i < g->n_ops && !rc; i++) {
        const IrOp *op = &g->ops[i];
        const char *why;
        CuKind kind = cu_classify(g, op, &why);
        if (op->dead) continue;
        cgbuf_append(&run, "\n", 1);
        char buf[160], nb[TXT_COMMENT_CAP];
        cg_line(&e.cg, "/* op %d: TFLite operator #%d %s%s%s%s -> %s */", i, op->tfl_index, ir_op_name(op->kind),
                op->fused[0] ? " (fused: " : "", op->fused, op->fused[0] ? ")" : "", cu_kind_name[kind]);
        for (int q = 0; q < op->n_in; q++)
            if (op->in[q] >= 0)
                cg_line(&e.cg, "/*   in%d  %-24s %s */", q, ir_tensor_desc(&g->tensors[op->in[q]], buf, sizeof buf),
                        txt_comment(nb, sizeof nb, g->tensors[op->in[q]].name));
        cg_line(&e.cg, "/*   out0 %-24s %s */", ir_tensor_desc(&g->tensors[op->out[0]], buf, sizeof buf),
                txt_comment(nb, sizeof nb, g->tensors[op->out[0]].name));
        if (kind == CU_SKIP) {
            cg_line(&e.cg, "/* in place: the output shares the input's memory, nothing to do */");
            continue;
        }
        cg_open(&e.cg, "{");
        cgbuf_printf(&k, "/* op %d: TFLite operator #%d %s */\n", i, op->tfl_index, ir_op_name(op->kind));
        rc = emit_op(&e, &k, i, op, kind, d);
        cg_close(&e.cg, "}");
        e.n_kernels++;
        index++;
        e.cg.pool_next = 0;
    }
    /* Graph outputs that are inputs or constants are copies. */
    for (int i = 0; i < g->n_outputs && !rc; i++) {
        const IrTensor *t = &g->tensors[g->outputs[i]];
        if (!t->data && !t->is_input) continue;
        for (int q = 0; q < g->n_inputs && o->jit; q++)
            if (g->inputs[q] == t->id)
                cg_line(&e.cg, "if (mpcc_jit_copy(j, outputs[%d], inputs[%d], %lld, MPCC_JIT_D2D, stream)) return %s_fail(ctx, -1);",
                        i, q, (long long)ir_tensor_bytes(t), o->prefix);
        if (t->data && o->jit)
            cg_line(&e.cg, "if (mpcc_jit_copy(j, outputs[%d], w + %lld, %lld, MPCC_JIT_D2D, stream)) return %s_fail(ctx, -1);",
                    i, (long long)e.woff[t->id], (long long)ir_tensor_bytes(t), o->prefix);
        for (int q = 0; q < g->n_inputs && !o->jit; q++)
            if (g->inputs[q] == t->id)
                cg_line(&e.cg, "if ((err = cudaMemcpyAsync(outputs[%d], inputs[%d], %lld, cudaMemcpyDeviceToDevice, s)) != cudaSuccess) return %s_fail(ctx, err, -1);",
                        i, q, (long long)ir_tensor_bytes(t), o->prefix);
        if (t->data && !o->jit)
            cg_line(&e.cg, "if ((err = cudaMemcpyAsync(outputs[%d], w + %lld, %lld, cudaMemcpyDeviceToDevice, s)) != cudaSuccess) return %s_fail(ctx, err, -1);",
                    i, (long long)e.woff[t->id], (long long)ir_tensor_bytes(t), o->prefix);
        e.uses_w |= t->data != NULL;
    }
    if (!rc && o->jit) {
        assemble_jit(&e, &c, &k, &run, &attr, P);
        emit_cuda_header(&h, g, o, P, e.n_kernels);
    } else if (!rc) {
        char hn[TXT_COMMENT_CAP], sn[TXT_COMMENT_CAP], inc[TXT_LITERAL_CAP];
        const char *pf = o->prefix;
        cgbuf_printf(&c, "/* %s.cu - generated by mpcc %s from %s (--target cuda). Do not edit.\n", pf, MPCC_VERSION,
                     txt_comment(sn, sizeof sn, o->source_name));
        cgbuf_printf(&c, " * API: %s. %d kernels, one per operator, each naming the TFLite operator;\n"
                         " * device bodies from mpcc's runtime/cuda. */\n",
                     txt_comment(hn, sizeof hn, o->header_name), e.n_kernels);
        cgbuf_printf(&c, "#include %s\n", txt_c_string(inc, sizeof inc, o->header_name));
        cgbuf_printf(&c, "#include \"mpcc_cuda_ops.cuh\"\n#include \"mpcc_cuda_gemm.cuh\"\n#include \"mpcc_cuda_attention.cuh\"\n"
                        "#include \"mpcc_cuda_int8.cuh\"\n");
        cgbuf_printf(&c, "#ifndef MPCC_CUDA_EMU\n#include <cuda_runtime.h>\n#endif\n#include <stdio.h>\n#include <string.h>\n");
        emit_blob(&e, &c);
        cgbuf_printf(&c, "\n/* ---- kernels ---- */\n");
        cgbuf_append(&c, k.s ? k.s : "", k.len);
        cgbuf_printf(&c,
                     "\n/* ---- host ---- */\n"
                     "static int %s_fail(%s_cuda_ctx *ctx, cudaError_t err, int op) {\n"
                     "    if (op >= 0)\n"
                     "        snprintf(ctx->error, sizeof ctx->error, \"%s: op %%d: %%s: %%s\", op, cudaGetErrorName(err), cudaGetErrorString(err));\n"
                     "    else\n"
                     "        snprintf(ctx->error, sizeof ctx->error, \"%s: %%s: %%s\", cudaGetErrorName(err), cudaGetErrorString(err));\n"
                     "    return -1;\n}\n\n",
                     pf, pf, pf, pf);
        cgbuf_printf(&c,
                     "static int %s_enqueue(%s_cuda_ctx *ctx, cudaStream_t s, const void *const *inputs, void *const *outputs) {\n"
                     "    cudaError_t err;\n"
                     "    (void)ctx, (void)s, (void)inputs, (void)outputs, (void)err;\n",
                     pf, pf);
        if (e.uses_a) cgbuf_printf(&c, "    unsigned char *a = (unsigned char *)ctx->arena;\n");
        if (e.uses_w) cgbuf_printf(&c, "    const unsigned char *w = (const unsigned char *)ctx->weights;\n");
        cgbuf_append(&c, run.s ? run.s : "", run.len);
        cgbuf_printf(&c, "    return 0;\n}\n\n");
        cgbuf_printf(&c,
                     "int %s_cuda_init(%s_cuda_ctx *ctx) {\n"
                     "    cudaError_t err;\n"
                     "    if (!ctx) return 1;\n"
                     "    memset(ctx, 0, sizeof *ctx);\n"
                     "    if ((err = cudaMalloc(&ctx->arena, %s_ARENA_BYTES > 0 ? %s_ARENA_BYTES : 1)) != cudaSuccess) return %s_fail(ctx, err, -1);\n"
                     "    if ((err = cudaMalloc(&ctx->weights, sizeof %s_blob)) != cudaSuccess) return %s_fail(ctx, err, -1);\n"
                     "    if ((err = cudaMemcpy(ctx->weights, %s_blob, sizeof %s_blob, cudaMemcpyHostToDevice)) != cudaSuccess)\n"
                     "        return %s_fail(ctx, err, -1);\n",
                     pf, pf, P, P, pf, pf, pf, pf, pf, pf);
        cgbuf_append(&c, attr.s ? attr.s : "", attr.len);
        cgbuf_printf(&c, "    return 0;\n}\n\n");
        cgbuf_printf(&c,
                     "int %s_cuda_run(%s_cuda_ctx *ctx, void *stream, const void *const *inputs, void *const *outputs) {\n"
                     "    if (!ctx || !inputs || !outputs || !ctx->arena) return 1;\n"
                     "    return %s_enqueue(ctx, (cudaStream_t)stream, inputs, outputs);\n}\n\n",
                     pf, pf, pf);
        int nio = g->n_inputs + g->n_outputs;
        cgbuf_printf(&c,
                     "int %s_cuda_run_graph(%s_cuda_ctx *ctx, void *stream, const void *const *inputs, void *const *outputs) {\n"
                     "    cudaError_t err;\n"
                     "    int same = ctx && ctx->graph_exec != NULL, i, rc;\n"
                     "    if (!ctx || !inputs || !outputs || !ctx->arena) return 1;\n"
                     "    for (i = 0; i < %d; i++)\n"
                     "        same = same && ctx->graph_io[i] == (i < %d ? inputs[i] : (const void *)outputs[i - %d]);\n"
                     "    if (!same) {\n"
                     "        cudaGraph_t graph;\n"
                     "        cudaGraphExec_t exec;\n"
                     "        if (ctx->graph_exec) cudaGraphExecDestroy((cudaGraphExec_t)ctx->graph_exec);\n"
                     "        if (ctx->graph) cudaGraphDestroy((cudaGraph_t)ctx->graph);\n"
                     "        ctx->graph = ctx->graph_exec = NULL;\n"
                     "        if ((err = cudaStreamBeginCapture((cudaStream_t)stream, cudaStreamCaptureModeThreadLocal)) != cudaSuccess)\n"
                     "            return %s_fail(ctx, err, -1);\n"
                     "        rc = %s_enqueue(ctx, (cudaStream_t)stream, inputs, outputs);\n"
                     "        err = cudaStreamEndCapture((cudaStream_t)stream, &graph);\n"
                     "        if (rc) return rc;\n"
                     "        if (err != cudaSuccess) return %s_fail(ctx, err, -1);\n"
                     "        ctx->graph = graph;\n"
                     "        if ((err = cudaGraphInstantiate(&exec, graph, 0)) != cudaSuccess) return %s_fail(ctx, err, -1);\n"
                     "        ctx->graph_exec = exec;\n"
                     "        for (i = 0; i < %d; i++) ctx->graph_io[i] = i < %d ? inputs[i] : (const void *)outputs[i - %d];\n"
                     "    }\n"
                     "    if ((err = cudaGraphLaunch((cudaGraphExec_t)ctx->graph_exec, (cudaStream_t)stream)) != cudaSuccess)\n"
                     "        return %s_fail(ctx, err, -1);\n"
                     "    return 0;\n}\n\n",
                     pf, pf, nio, g->n_inputs, g->n_inputs, pf, pf, pf, pf, nio, g->n_inputs, g->n_inputs, pf);
        cgbuf_printf(&c,
                     "void %s_cuda_free(%s_cuda_ctx *ctx) {\n"
                     "    if (!ctx) return;\n"
                     "    if (ctx->graph_exec) cudaGraphExecDestroy((cudaGraphExec_t)ctx->graph_exec);\n"
                     "    if (ctx->graph) cudaGraphDestroy((cudaGraph_t)ctx->graph);\n"
                     "    cudaFree(ctx->arena);\n"
                     "    cudaFree(ctx->weights);\n"
                     "    ctx->arena = ctx->weights = ctx->graph = ctx->graph_exec = NULL;\n}\n\n"
                     "const char *%s_cuda_error(const %s_cuda_ctx *ctx) { return ctx ? ctx->error : \"NULL context\"; }\n",
                     pf, pf, pf, pf);
        emit_cuda_header(&h, g, o, P, e.n_kernels);
    }
    for (int i = 0; i < e.n_xc; i++) free(e.xc[i].data);
    free(e.xc);
    free(e.woff);
    if (!rc && (c.oom || h.oom || k.oom || run.oom || attr.oom)) rc = diag_internal(d, "out of memory");
    if (!rc && (fwrite(c.s, 1, c.len, cu_out) != c.len || fwrite(h.s, 1, h.len, h_out) != h.len))
        rc = diag_user(d, "cannot write the CUDA output");
    free(c.s), free(h.s), free(k.s), free(run.s), free(attr.s);
    return rc;
}

void cu_report(const Graph *g, const CudaEmitOptions *o, FILE *f) {
    int n = 0, none = 0;
    fprintf(f, "CUDA kernels (--target cuda%s):\n", o->tf32 ? ", --tf32" : "");
    for (int i = 0; i < g->n_ops; i++) {
        const IrOp *op = &g->ops[i];
        const char *why;
        CuKind kind = cu_classify(g, op, &why);
        if (op->dead) continue;
        const char *mode = "";
        if (kind == CU_GEMM || kind == CU_BMM || kind == CU_ATTENTION) {
            CuEmit e;
            memset(&e, 0, sizeof e);
            e.g = g;
            e.o = o;
            mode = kind == CU_ATTENTION ? model_mma_mode(&e) : mma_mode(&e, op);
            mode += strlen("MPCC_MMA_");
        }
        fprintf(f, "  op %-4d %-22s %-11s %s%s\n", i, ir_op_name(op->kind), kind == CU_NONE ? "(none)" : cu_kind_name[kind],
                mode, kind == CU_NONE ? why : "");
        n += kind != CU_SKIP && kind != CU_NONE;
        none += kind == CU_NONE;
    }
    fprintf(f, "  %d kernels, %d ops without a CUDA kernel\n", n, none);
}
