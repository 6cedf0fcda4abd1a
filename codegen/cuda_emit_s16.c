/* cuda_emit_s16.c - --target cuda: int16 ops, compile-time lookup tables (kernels in
 * runtime/cuda/mpcc_cuda_s16.cuh).
 *
 * An elementwise op of one int8 / int16 input (or of two broadcast int8 inputs) becomes a table
 * lookup: the table is the op's own reference kernel (its OpDef eval, the interpreter's code) run
 * here on every input value, so the GPU result is the reference's bit for bit whatever the op's
 * arithmetic. 256 entries for int8, 65536 for int16 or for a pair of int8 inputs. Also SUM and
 * BATCH_MATMUL int8, and f32 where the tiled GEMM has no layout for it (adj_x): one thread per output element. */
#include "cuda_internal.h"

#include <stdlib.h>
#include <string.h>

/* The params struct of an op whose reference kernel is elementwise over `n` (its first field,
 * int64_t) on one input: its size, or 0 when the op has no such kernel. */
static size_t lut_unary_params_bytes(OpKind k) {
    switch (k) {
    case OP_LOGISTIC: case OP_TANH: case OP_LEAKY_RELU: case OP_HARD_SWISH: case OP_RELU_0_TO_1:
    case OP_RELU: case OP_RELU6: case OP_RELU_N1_TO_1:
        return sizeof(rt_act_params);
    case OP_EXP: case OP_LOG: case OP_RSQRT: case OP_SQRT: case OP_ABS: return sizeof(rt_unary_params);
    case OP_QUANTIZE: return sizeof(rt_quant_params);
    default: return 0;
    }
}

/* Broadcast binary int8 ops without an arithmetic kernel: tables of all 65536 input pairs. */
static int lut_binary_op(OpKind k) { return k == OP_DIV; }

static int is_int(IrDType t) { return t == IR_I8 || t == IR_I16; }
static int out_bytes(IrDType t) { return t == IR_I32 ? 4 : t == IR_I16 ? 2 : 1; }

CuKind cu_classify_s16(const Graph *g, const IrOp *op, const char **why, int *mine) {
    if (!op->params || op->n_out < 1 || op->n_in < 1) return CU_NONE;
    IrDType t0 = cu_dt_in(g, op, 0), to = g->tensors[op->out[0]].dtype;
    if (op->kind == OP_QUANTIZE && t0 == IR_I32 && (is_int(to) || to == IR_I32)) {
        *mine = 1;
        if (((const rt_quant_params *)op->params)->channels > 0)
            return *why = "per-channel integer requantization has no CUDA kernel yet", CU_NONE;
        return CU_REQUANT_I32;
    }
    if (lut_unary_params_bytes(op->kind) && op->n_in == 1 && is_int(t0) &&
        (is_int(to) || (to == IR_I32 && op->kind == OP_QUANTIZE)) && !op->scratch_bytes) {
        if (op->kind == OP_QUANTIZE && ((const rt_quant_params *)op->params)->channels > 0) {
            *mine = 1;
            return *why = "per-channel integer requantization has no CUDA kernel yet", CU_NONE;
        }
        *mine = 1;
        return CU_LUT_X;
    }
    if (lut_binary_op(op->kind) && op->n_in == 2 && t0 == IR_I8 && cu_dt_in(g, op, 1) == IR_I8 && to == IR_I8 &&
        !op->scratch_bytes) {
        *mine = 1;
        if (((const rt_binary_params *)op->params)->bc.rank > MPCC_CU_MAX_RANK) return *why = "broadcast rank above 8", CU_NONE;
        return CU_LUT_X;
    }
    if ((op->kind == OP_ADD || op->kind == OP_SUB || op->kind == OP_MUL) && op->n_in == 2 && t0 == IR_I16 &&
        cu_dt_in(g, op, 1) == IR_I16 && to == IR_I16) {
        *mine = 1;
        if (((const rt_binary_params *)op->params)->bc.rank > MPCC_CU_MAX_RANK) return *why = "broadcast rank above 8", CU_NONE;
        return CU_BINARY_S16;
    }
    if (op->kind == OP_SUM && t0 == IR_I8 && to == IR_I8) {
        *mine = 1;
        if (((const rt_reduce_params *)op->params)->rank > MPCC_CU_MAX_RANK) return *why = "rank above 8", CU_NONE;
        return CU_SUM_S8;
    }
    if (op->kind == OP_BATCH_MATMUL && t0 == IR_I8 && cu_dt_in(g, op, 1) == IR_I8 && to == IR_I8) {
        *mine = 1;
        if (((const rt_bmm_params *)op->params)->batch_rank > MPCC_CU_MAX_RANK) return *why = "rank above 8", CU_NONE;
        return CU_BMM_S8;
    }
    if ((op->kind == OP_REDUCE_ANY || op->kind == OP_REDUCE_ALL) && t0 == IR_BOOL) {
        *mine = 1;
        if (((const rt_reduce_params *)op->params)->rank > MPCC_CU_MAX_RANK) return *why = "rank above 8", CU_NONE;
        return CU_REDUCE_BOOL;
    }
    if (op->kind == OP_GATHER_ND) {
        IrDType ti = cu_dt_in(g, op, 1);
        *mine = 1;
        if (ti != IR_I32 && ti != IR_I64) return *why = "GATHER_ND indices must be int32 or int64", CU_NONE;
        if (((const rt_gather_nd_params *)op->params)->depth > MPCC_CU_MAX_RANK) return *why = "index depth above 8", CU_NONE;
        return CU_GATHER_ND;
    }
    if (op->kind == OP_DYNAMIC_UPDATE_SLICE) {
        IrDType ti = cu_dt_in(g, op, 2);
        *mine = 1;
        if (ti != IR_I32 && ti != IR_I64) return *why = "start indices must be int32 or int64", CU_NONE;
        if (((const rt_dus_params *)op->params)->rank > MPCC_CU_MAX_RANK) return *why = "rank above 8", CU_NONE;
        return CU_DUS;
    }
    return CU_NONE;
}

/* The table of a CU_LUT_X op: its reference kernel on every input value (pair). */
static void *lut_table(const Graph *g, const IrOp *op, int64_t *bytes) {
    int in16 = cu_dt_in(g, op, 0) == IR_I16, ob = out_bytes(g->tensors[op->out[0]].dtype);
    int binary = op->n_in == 2;
    int64_t n = binary ? 65536 : in16 ? 65536 : 256;
    size_t pbytes = binary ? sizeof(rt_binary_params) : lut_unary_params_bytes(op->kind);
    void *params = malloc(pbytes), *in = malloc(in16 ? 2 * 65536 : 256), *out = malloc((size_t)n * (size_t)ob);
    if (!params || !in || !out) {
        free(params), free(in), free(out);
        return NULL;
    }
    memcpy(params, op->params, pbytes);
    if (binary) {
        rt_binary_params *p = params;
        memset(&p->bc, 0, sizeof p->bc);
        p->bc.rank = 2, p->bc.dims[0] = p->bc.dims[1] = 256;
        p->bc.stride1[0] = 1, p->bc.stride2[1] = 1; /* out[a * 256 + b] = a[a] op b[b] */
    } else {
        *(int64_t *)params = n; /* every params struct of lut_unary_params_bytes starts with n */
    }
    for (int64_t v = 0; v < (in16 ? 65536 : 256); v++) {
        if (in16) ((int16_t *)in)[v] = (int16_t)(v - 32768);
        else ((int8_t *)in)[v] = (int8_t)(v - 128);
    }
    IrOp tmp = *op;
    tmp.params = params;
    const void *ins[2] = {in, in};
    void *outs[1] = {out};
    op_def(op->kind)->eval(g, &tmp, ins, outs, NULL);
    free(params), free(in);
    *bytes = n * ob;
    return out;
}

int cu_xconsts_s16(CuEmit *e, int i, const IrOp *op, CuKind kind) {
    if (kind != CU_LUT_X) return 0;
    int64_t bytes = 0;
    void *t = lut_table(e->g, op, &bytes);
    return cu_xconst_add(e, i, 0, t, bytes);
}

static void emit_bcast(CuEmit *e, const char *dst, const rt_bcast *b) {
    cg_line(&e->cg, "%srank = %d;", dst, b->rank);
    for (int k = 0; k < b->rank; k++)
        cg_line(&e->cg, "%sdims[%d] = %d; %ss1[%d] = %d; %ss2[%d] = %d;", dst, k, b->dims[k], dst, k, b->stride1[k], dst, k,
                b->stride2[k]);
}

int cu_emit_op_s16(CuEmit *e, CgBuf *kb, int index, const IrOp *op, CuKind kind) {
    const Graph *g = e->g;
    CgCtx *cg = &e->cg;
    const char *body = NULL, *args = NULL;
    int64_t n = ir_tensor_numel(&g->tensors[op->out[0]]);
    switch (kind) {
    case CU_LUT_X: {
        int in16 = cu_dt_in(g, op, 0) == IR_I16, ob = out_bytes(g->tensors[op->out[0]].dtype);
        cg_line(cg, "mpcc_lut_x_args p;");
        cg_line(cg, "memset(&p, 0, sizeof p);");
        cg_line(cg, "p.a = %s; p.out = %s; p.lut = %s; p.n = %lld; p.in16 = %d; p.out_bytes = %d;",
                cu_ptr(e, op->in[0], "const void"), cu_ptr(e, op->out[0], "void"), cu_xptr(e, index, 0, "const void"),
                (long long)n, in16, ob);
        if (op->n_in == 2) {
            cg_line(cg, "p.b = %s;", cu_ptr(e, op->in[1], "const void"));
            emit_bcast(e, "p.", &((const rt_binary_params *)op->params)->bc);
        }
        body = "mpcc_lut_x_body", args = "mpcc_lut_x_args";
        break;
    }
    case CU_BINARY_S16: {
        const rt_binary_params *p = op->params;
        cg_line(cg, "mpcc_binary_s16_args p;");
        cg_line(cg, "memset(&p, 0, sizeof p);");
        cg_line(cg, "p.a = %s; p.b = %s; p.out = %s; p.pot = %d;", cu_ptr(e, op->in[0], "const int16_t"),
                cu_ptr(e, op->in[1], "const int16_t"), cu_ptr(e, op->out[0], "int16_t"), p->pot);
        cg_line(cg, "p.s8.op = %d; p.s8.n = %lld;", cu_s8_binary_code(op->kind), (long long)n);
        emit_bcast(e, "p.s8.", &p->bc);
        cu_emit_addq(e, "p.s8.q", p);
        body = "mpcc_binary_s16_body", args = "mpcc_binary_s16_args";
        break;
    }
    case CU_SUM_S8: {
        const rt_reduce_params *p = op->params;
        float scale = p->in_scale / p->out_scale; /* as rt_sum_i8 */
        float bias = (float)(-p->in_zp) * scale * (float)p->reduce_count;
        n = p->out_count;
        cg_line(cg, "mpcc_sum_s8_args p;");
        cg_line(cg, "memset(&p, 0, sizeof p);");
        cu_emit_reduce_s8(e, "p.m.", op, 0);
        cg_line(cg, "p.scale = %s;", cu_f32(e, scale));
        cg_line(cg, "p.bias = %s;", cu_f32(e, bias));
        body = "mpcc_sum_s8_body", args = "mpcc_sum_s8_args";
        break;
    }
    case CU_BMM_S8: case CU_BMM_X: {
        const rt_bmm_params *p = op->params;
        const int f = kind == CU_BMM_X;
        const char *ty = f ? "float" : "int8_t", *cty = f ? "const float" : "const int8_t";
        cg_line(cg, "mpcc_bmm_%s_args p;", f ? "f32" : "s8");
        cg_line(cg, "memset(&p, 0, sizeof p);");
        cg_line(cg, "p.a = %s; p.b = %s; p.out = %s; p.count = %lld;", cu_ptr(e, op->in[0], cty),
                cu_ptr(e, op->in[1], cty), cu_ptr(e, op->out[0], ty), (long long)n);
        cg_line(cg, "p.batch_rank = %d; p.m = %d; p.n = %d; p.k = %d;", p->batch_rank, p->m, p->n, p->k);
        for (int q = 0; q < p->batch_rank; q++)
            cg_line(cg, "p.batch_dims[%d] = %d; p.a_bs[%d] = %d; p.b_bs[%d] = %d;", q, p->batch_dims[q], q, p->lhs_bstride[q], q,
                    p->rhs_bstride[q]);
        cg_line(cg, "p.a_si = %d; p.a_sk = %d; p.b_sk = %d; p.b_sj = %d;", p->lhs_si, p->lhs_sk, p->rhs_sk, p->rhs_sj);
        if (f) {
            body = "mpcc_bmm_f32_body", args = "mpcc_bmm_f32_args";
            break;
        }
        cg_line(cg, "p.a_off = %d; p.b_off = %d; p.out_off = %d; p.mult = %d; p.shift = %d;", p->lhs_offset, p->rhs_offset,
                p->out_offset, p->mult, p->shift);
        body = "mpcc_bmm_s8_body", args = "mpcc_bmm_s8_args";
        break;
    }
    case CU_REDUCE_BOOL: {
        n = ((const rt_reduce_params *)op->params)->out_count;
        cg_line(cg, "mpcc_mean_s8_args p;");
        cg_line(cg, "memset(&p, 0, sizeof p);");
        cu_emit_reduce_s8(e, "p.", op, op->kind == OP_REDUCE_ANY ? 1 : 2);
        body = "mpcc_reduce_bool_body", args = "mpcc_mean_s8_args";
        break;
    }
    case CU_GATHER_ND: {
        const rt_gather_nd_params *p = op->params;
        n = p->slices * p->slice_bytes;
        cg_line(cg, "mpcc_gather_nd_args p;");
        cg_line(cg, "memset(&p, 0, sizeof p);");
        cg_line(cg, "p.in = %s; p.idx = %s; p.out = %s;", cu_ptr(e, op->in[0], "const unsigned char"),
                cu_ptr(e, op->in[1], "const void"), cu_ptr(e, op->out[0], "unsigned char"));
        cg_line(cg, "p.total = %lld; p.slice_bytes = %lld; p.idx64 = %d; p.depth = %d;", (long long)n,
                (long long)p->slice_bytes, cu_dt_in(g, op, 1) == IR_I64, p->depth);
        for (int j = 0; j < p->depth; j++)
            cg_line(cg, "p.dims[%d] = %d; p.stride_bytes[%d] = %lld;", j, p->dims[j], j, (long long)p->stride_bytes[j]);
        body = "mpcc_gather_nd_body", args = "mpcc_gather_nd_args";
        break;
    }
    case CU_DUS: {
        const rt_dus_params *p = op->params;
        n = p->in_bytes;
        cg_line(cg, "mpcc_dus_args p;");
        cg_line(cg, "memset(&p, 0, sizeof p);");
        cg_line(cg, "p.in = %s; p.upd = %s; p.start = %s; p.out = %s;", cu_ptr(e, op->in[0], "const unsigned char"),
                cu_ptr(e, op->in[1], "const unsigned char"), cu_ptr(e, op->in[2], "const void"),
                cu_ptr(e, op->out[0], "unsigned char"));
        cg_line(cg, "p.total = %lld; p.start64 = %d; p.rank = %d; p.elem_size = %d;", (long long)n, cu_dt_in(g, op, 2) == IR_I64,
                p->rank, p->elem_size);
        for (int j = 0; j < p->rank; j++)
            cg_line(cg, "p.in_dims[%d] = %lld; p.upd_dims[%d] = %lld;", j, (long long)p->in_dims[j], j, (long long)p->upd_dims[j]);
        body = "mpcc_dus_body", args = "mpcc_dus_args";
        break;
    }
    case CU_REQUANT_I32: {
        const rt_quant_params *p = op->params;
        IrDType to = g->tensors[op->out[0]].dtype;
        const char *lo = to == IR_I8 ? "-128" : to == IR_I16 ? "-32768" : "(-2147483647 - 1)";
        const char *hi = to == IR_I8 ? "127" : to == IR_I16 ? "32767" : "2147483647";
        cg_line(cg, "mpcc_requant_i32_args p;");
        cg_line(cg, "memset(&p, 0, sizeof p);");
        cg_line(cg, "p.in = %s; p.out = %s; p.n = %lld; p.out_bytes = %d;", cu_ptr(e, op->in[0], "const int32_t"),
                cu_ptr(e, op->out[0], "void"), (long long)n, out_bytes(to));
        cg_line(cg, "p.in_zp = %d; p.out_zp = %d; p.mult = %d; p.shift = %d; p.qmin = %s; p.qmax = %s;", p->in_zp, p->out_zp,
                p->mult, p->shift, lo, hi);
        body = "mpcc_requant_i32_body", args = "mpcc_requant_i32_args";
        break;
    }
    default: return -1;
    }
    cu_kernel_def(e, kb, index, args, 256, body);
    cu_launch(e, index, cu_blocks_for(n), 1, 1, 0, 256, NULL);
    return 0;
}
