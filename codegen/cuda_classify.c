/* cuda_classify.c - --target cuda: the kernel class of every op (CuKind), or why it has none (cu_check_graph
 * lists every such op at once, with its operator index and dtype). */
#include "cuda_internal.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "text.h"


const char *const cu_kind_name[] = {"none",    "-",          "gemm",     "gemm-s8", "conv",  "bmm",  "binary",
                                           "unary",   "softmax",    "layer-norm", "row-mean", "copy", "pool", "cast",
                                           "attention", "mean", "elementwise", "gather", "concat",
                                           "conv-s8", "gemm-s8 (1x1 conv)", "binary-s8", "pool-s8", "mean-s8", "lut-s8",
                                           "softmax-s8", "requant-s8", "lut", "binary-s16", "sum-s8", "bmm-s8", "reduce-bool", "gather-nd", "update-slice", "requant-i32",
                                           "layout", "misc", "control (host)", "rnn", "hybrid", "int16x8", "bmm (strided)"};

IrDType cu_dt_in(const Graph *g, const IrOp *op, int k) {
    return k < op->n_in && op->in[k] >= 0 ? g->tensors[op->in[k]].dtype : IR_F32;
}

int cu_unary_code(OpKind k) {
    switch (k) {
    case OP_RELU: case OP_RELU6: case OP_RELU_N1_TO_1: case OP_RELU_0_TO_1: return 0;
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
    case OP_COS: return 13;
    case OP_SIN: return 14;
    default: return -1;
    }
}

int cu_binary_code(OpKind k) {
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
int cu_bmm_flat(const rt_bmm_params *p, int64_t *sa, int64_t *sb, int64_t *batch) {
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

int cu_elem_code(OpKind k) {
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
int cu_concat_is_copy(const Graph *g, const IrOp *op) {
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
CuKind cu_classify_more(const Graph *g, const IrOp *op, const char **why) {
    IrDType t0 = cu_dt_in(g, op, 0);
    int code = cu_elem_code(op->kind);
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
        IrDType ti = cu_dt_in(g, op, 1);
        if (ti != IR_I32 && ti != IR_I64) {
            *why = "GATHER indices must be int32 or int64";
            return CU_NONE;
        }
        return p ? CU_GATHER : CU_NONE;
    }
    if (op->kind == OP_CONCATENATION) {
        if (!cu_concat_is_copy(g, op)) {
            *why = "a concatenation with an activation or requantization has no CUDA kernel yet";
            return CU_NONE;
        }
        return CU_CONCAT;
    }
    return CU_NONE;
}

/* ---- int8 ops (runtime/cuda/mpcc_cuda_int8.cuh) ---- */

/* The bias of an int8 convolution: in[2] unless pass fuse_add appended the residual there. */
int cu_conv_bias_id(const IrOp *op) {
    int n = op->n_in - (op->sched.post_add >= 0 ? 1 : 0);
    return n > 2 ? op->in[2] : -1;
}

/* May the 1x1 stride-1 unpadded int8 CONV_2D run on the IMMA GEMM (whose epilogue shifts
 * left with wrapping, where the reference saturates: only right shifts go there)? */
int cu_conv_s8_gemm_ok(const IrOp *op) {
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
CuKind cu_classify_s8(const Graph *g, const IrOp *op, const char **why, int *mine) {
    if (!op->params || op->n_out < 1 || g->tensors[op->out[0]].dtype != IR_I8) return CU_NONE;
    switch (op->kind) {
    case OP_CONV_2D: {
        const rt_conv_params *p = op->params;
        int b = cu_conv_bias_id(op);
        if (cu_dt_in(g, op, 1) != IR_I8) return CU_NONE;
        *mine = 1;
        if (!p->mult || !p->shift) return *why = "int8 convolution without requantization multipliers", CU_NONE;
        if (p->filter_c != p->in_c) return *why = "grouped int8 convolution has no CUDA kernel yet", CU_NONE;
        if (b >= 0 && g->tensors[b].dtype != IR_I32) return *why = "int8 convolution with a non-int32 bias", CU_NONE;
        if (op->sched.post_add >= 0 && g->tensors[op->sched.post_other].dtype != IR_I8)
            return *why = "fused residual ADD of a non-int8 tensor", CU_NONE;
        return cu_conv_s8_gemm_ok(op) ? CU_CONV_S8_GEMM : CU_CONV_S8;
    }
    case OP_DEPTHWISE_CONV_2D: {
        const rt_dwconv_params *p = op->params;
        int b = op->n_in > 2 ? op->in[2] : -1;
        if (cu_dt_in(g, op, 1) != IR_I8) return CU_NONE;
        *mine = 1;
        if (!p->mult || !p->shift) return *why = "int8 convolution without requantization multipliers", CU_NONE;
        if (b >= 0 && g->tensors[b].dtype != IR_I32) return *why = "int8 convolution with a non-int32 bias", CU_NONE;
        return CU_CONV_S8;
    }
    case OP_ADD: case OP_SUB: case OP_MUL: case OP_SQUARED_DIFFERENCE: case OP_MAXIMUM: case OP_MINIMUM: {
        const rt_binary_params *p = op->params;
        if (op->n_in != 2 || cu_dt_in(g, op, 1) != IR_I8) return CU_NONE;
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
CuKind cu_classify(const Graph *g, const IrOp *op, const char **why) {
    IrDType t0 = cu_dt_in(g, op, 0);
    *why = "no CUDA kernel for it yet";
    if (op->dead) return CU_SKIP;
    if (op->elided) return CU_SKIP;
    for (int k = 0; k < op->n_in + op->n_out; k++) {
        int id = k < op->n_in ? op->in[k] : op->out[k - op->n_in];
        if (id >= 0 && g->tensors[id].dtype == IR_C64) {
            *why = "complex64 tensors (RFFT2D and its consumers) have no CUDA kernels";
            return CU_NONE;
        }
    }
    CuKind more = cu_classify_more(g, op, why);
    if (more != CU_NONE) return more;
    int mine = 0;
    CuKind kc = cu_classify_cf(g, op, why, &mine);
    if (mine) return kc;
    CuKind kh = cu_classify_hybrid(g, op, why, &mine);
    if (mine) return kh;
    CuKind kl = cu_classify_layout(g, op, why, &mine);
    if (mine) return kl;
    CuKind km = cu_classify_misc(g, op, why, &mine);
    if (mine) return km;
    CuKind kr = cu_classify_rnn(g, op, why, &mine);
    if (mine) return kr;
    if (t0 == IR_I8) {
        CuKind k8 = cu_classify_s8(g, op, why, &mine);
        if (mine) return k8;
    }
    CuKind k16 = cu_classify_s16(g, op, why, &mine);
    if (mine) return k16;
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
        /* the tiled GEMM reads A as M x K with one batch stride per operand; other layouts run strided */
        if (p->lhs_sk != 1 || (p->rhs_sj != 1 && p->rhs_sk != 1) || !cu_bmm_flat(p, &sa, &sb, &b))
            return p->batch_rank > MPCC_CU_MAX_RANK ? (*why = "rank above 8", CU_NONE) : CU_BMM_X;
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
        if (d < 1 || d > 128) { /* other sizes run padded with zero columns to 16, 32, 64 or 128 */
            *why = "attention head dimension above 128 (the fused kernel's largest)";
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
        if (cu_dt_in(g, op, 1) != IR_F32) return CU_NONE;
        return CU_CONV;
    case OP_FULLY_CONNECTED: return cu_dt_in(g, op, 1) == IR_F32 ? CU_GEMM : CU_NONE;
    case OP_MEAN: return CU_MEAN;
    case OP_AVERAGE_POOL_2D: case OP_MAX_POOL_2D: return CU_POOL;
    case OP_SOFTMAX: return CU_SOFTMAX;
    case OP_GELU: return CU_UNARY;
    default: break;
    }
    if (cu_unary_code(op->kind) >= 0) return CU_UNARY;
    if (cu_binary_code(op->kind) >= 0 && op->n_in == 2) return CU_BINARY;
    return CU_NONE;
}

int cu_check_graph(const Graph *g, Diag *d) {
    char list[1536];
    size_t len = 0;
    int bad = 0, n_g = g->n_sub > 1 ? g->n_sub : 1;
    unsigned char *need = malloc((size_t)n_g);
    if (!need) return diag_internal(d, "out of memory");
    list[0] = '\0';
    cu_cf_reach(g, need); /* subgraph 0 and every subgraph it or a signature runs */
    for (int k = 0; k < n_g; k++) {
        const Graph *sg = k == 0 ? g : g->sub[k];
        for (int i = 0; need[k] && sg && i < sg->n_ops; i++) {
            const IrOp *op = &sg->ops[i];
            const char *why;
            char where[32] = "";
            if (cu_classify(sg, op, &why) != CU_NONE) continue;
            if (k) snprintf(where, sizeof where, "subgraph %d ", k);
            if (bad++ < 8 && len + 200 < sizeof list)
                len += (size_t)snprintf(list + len, sizeof list - len, "%s %soperator %d (%s, %s input): %s", bad > 1 ? ";" : "",
                                        where, op->tfl_index, ir_op_name(op->kind), ir_dtype_name(cu_dt_in(sg, op, 0)), why);
        }
    }
    free(need);
    if (!bad) return 0;
    return diag_user(d, "%s: %d operator%s cannot run on --target cuda (--target c runs them):%s%s",
                     g->source, bad, bad == 1 ? "" : "s", list, bad > 8 ? "; ..." : "");
}

/* ---------------------------------------------------------------------- */

