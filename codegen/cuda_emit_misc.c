/* cuda_emit_misc.c - --target cuda: the remaining single ops (runtime/cuda/mpcc_cuda_misc.cuh): ABS int32,
 * REDUCE_PROD f32 / int32, EMBEDDING_LOOKUP (also int8 -> f32), SHAPE, L2_NORMALIZATION and LOG_SOFTMAX int8. One kind,
 * CU_MISC: cu_classify_misc decides, cu_emit_misc emits. (COS, SIN and RELU_0_TO_1 f32 are codes of
 * the f32 unary kernel: cu_unary_code.) */
#include "cuda_internal.h"

#include <stdlib.h>
#include <string.h>

CuKind cu_classify_misc(const Graph *g, const IrOp *op, const char **why, int *mine) {
    *mine = 0;
    if (!op->params || op->n_out < 1 || op->n_in < 1) return CU_NONE;
    IrDType t0 = cu_dt_in(g, op, 0), to = g->tensors[op->out[0]].dtype;
    switch (op->kind) {
    case OP_ABS: return t0 == IR_I32 && to == IR_I32 ? (*mine = 1, CU_MISC) : CU_NONE;
    case OP_REDUCE_PROD:
        if ((t0 != IR_F32 && t0 != IR_I32) || to != t0) return CU_NONE;
        *mine = 1;
        if (((const rt_reduce_params *)op->params)->rank > MPCC_CU_MAX_RANK) return *why = "rank above 8", CU_NONE;
        return CU_MISC;
    case OP_EMBEDDING_LOOKUP: /* same dtype in and out, or the hybrid int8 table -> f32 */
        return op->n_in == 2 && t0 == IR_I32 && (cu_dt_in(g, op, 1) == to || (cu_dt_in(g, op, 1) == IR_I8 && to == IR_F32))
                   ? (*mine = 1, CU_MISC)
                   : CU_NONE;
    case OP_SHAPE: *mine = 1; return CU_MISC;
    case OP_SOFTMAX: /* int8 -> int16: the int8 kernel's int16 output */
        return t0 == IR_I8 && to == IR_I16 && ((const rt_softmax_params *)op->params)->exp_q0 ? (*mine = 1, CU_SOFTMAX_S8)
                                                                                              : CU_NONE;
    case OP_L2_NORMALIZATION: case OP_LOG_SOFTMAX: return t0 == IR_I8 && to == IR_I8 ? (*mine = 1, CU_MISC) : CU_NONE;
    default: return CU_NONE;
    }
}

/* 1 if op is the hybrid EMBEDDING_LOOKUP (int8 table, f32 output). */
static int hybrid_lookup(const Graph *g, const IrOp *op) {
    return op->kind == OP_EMBEDDING_LOOKUP && cu_dt_in(g, op, 1) == IR_I8 && g->tensors[op->out[0]].dtype == IR_F32;
}

/* SHAPE: its output, made here by the op's own reference kernel (the values are compile-time
 * dims). LOG_SOFTMAX int8: the reference's exp term of each input difference -d (Q12.19). The
 * hybrid EMBEDDING_LOOKUP: its per-row scales. */
int cu_xconsts_misc(CuEmit *e, int i, const IrOp *op) {
    const Graph *g = e->g;
    if (op->kind == OP_SHAPE) {
        int64_t bytes = ir_tensor_bytes(&g->tensors[op->out[0]]);
        void *out = calloc(1, (size_t)(bytes > 0 ? bytes : 1));
        void *outs[1] = {out};
        if (out) op_def(op->kind)->eval(g, op, NULL, outs, NULL);
        return cu_xconst_add(e, i, 0, out, bytes);
    }
    if (op->kind == OP_LOG_SOFTMAX) {
        const rt_log_softmax_params *p = op->params;
        int32_t *t = calloc(256, sizeof *t);
        if (t)
            for (int d = 0; d < 256; d++) {
                if (-d < p->diff_min) continue;
                int32_t scaled = rt_mul_by_quantized_multiplier(-d, p->input_multiplier, p->input_left_shift);
                t[d] = rt_fp_rescale(rt_fp_exp_on_negative_values(scaled, 5), 0, 12);
            }
        return cu_xconst_add(e, i, 0, t, 4 * 256);
    }
    if (hybrid_lookup(g, op)) {
        const rt_embedding_lookup_params *p = op->params;
        if (p->scales) return cu_xconst_copy(e, i, 0, p->scales, 4 * (int64_t)p->rows);
    }
    return 0;
}

int cu_emit_misc(CuEmit *e, CgBuf *kb, int index, const IrOp *op) {
    const Graph *g = e->g;
    CgCtx *cg = &e->cg;
    const char *body = NULL, *args = NULL;
    int64_t n = ir_tensor_numel(&g->tensors[op->out[0]]);
    switch (op->kind) {
    case OP_ABS: case OP_SHAPE: {
        int shape = op->kind == OP_SHAPE;
        if (shape) n = ir_tensor_bytes(&g->tensors[op->out[0]]);
        cg_line(cg, "mpcc_misc_elem_args p;");
        cg_line(cg, "memset(&p, 0, sizeof p);");
        cg_line(cg, "p.in = %s; p.out = %s; p.n = %lld; p.op = %d;",
                shape ? cu_xptr(e, index, 0, "const void") : cu_ptr(e, op->in[0], "const void"), cu_ptr(e, op->out[0], "void"),
                (long long)n, shape);
        body = "mpcc_misc_elem_body", args = "mpcc_misc_elem_args";
        break;
    }
    case OP_REDUCE_PROD: {
        const rt_reduce_params *p = op->params;
        n = p->out_count;
        cg_line(cg, "mpcc_reduce_prod_args p;");
        cg_line(cg, "memset(&p, 0, sizeof p);");
        cg_line(cg, "p.in = %s; p.out = %s; p.i32 = %d;", cu_ptr(e, op->in[0], "const void"), cu_ptr(e, op->out[0], "void"),
                cu_dt_in(g, op, 0) == IR_I32);
        cg_line(cg, "p.rank = %d; p.out_count = %d; p.reduce_count = %d;", p->rank, p->out_count, p->reduce_count);
        for (int q = 0; q < p->rank; q++)
            cg_line(cg, "p.dims[%d] = %d; p.reduced[%d] = %d;", q, p->in_dims[q], q, p->out_stride[q] == 0 && p->in_dims[q] > 1);
        body = "mpcc_reduce_prod_body", args = "mpcc_reduce_prod_args";
        break;
    }
    case OP_EMBEDDING_LOOKUP: {
        const rt_embedding_lookup_params *p = op->params;
        long long row_bytes = (long long)p->row_elems * p->elem_size;
        n = (int64_t)p->n_ids * row_bytes;
        cg_line(cg, "mpcc_embedding_args p;");
        cg_line(cg, "memset(&p, 0, sizeof p);");
        cg_line(cg, "p.ids = %s; p.value = %s; p.out = %s;", cu_ptr(e, op->in[0], "const int32_t"),
                cu_ptr(e, op->in[1], "const unsigned char"), cu_ptr(e, op->out[0], "unsigned char"));
        if (hybrid_lookup(g, op)) { /* per element: q * the row's (or the tensor's) scale */
            row_bytes = (long long)p->row_elems;
            n = (int64_t)p->n_ids * row_bytes;
            cg_line(cg, "p.hybrid = 1; p.scale = %s; p.scales = %s;", cu_f32(e, p->scale), cu_xptr(e, index, 0, "const float"));
        }
        cg_line(cg, "p.total = %lld; p.row_bytes = %lld; p.rows = %d;", (long long)n, row_bytes, p->rows);
        if (row_bytes == 0) n = 0; /* nothing to write (and p.row_bytes divides) */
        body = "mpcc_embedding_body", args = "mpcc_embedding_args";
        break;
    }
    case OP_L2_NORMALIZATION: {
        const rt_l2norm_params *p = op->params;
        n = p->outer;
        cg_line(cg, "mpcc_rows_s8_args p;");
        cg_line(cg, "memset(&p, 0, sizeof p);");
        cg_line(cg, "p.in = %s; p.out = %s;", cu_ptr(e, op->in[0], "const int8_t"), cu_ptr(e, op->out[0], "int8_t"));
        cg_line(cg, "p.rows = %d; p.depth = %d; p.in_zp = %d;", p->outer, p->depth, p->in_zp);
        body = "mpcc_l2norm_s8_body", args = "mpcc_rows_s8_args";
        break;
    }
    case OP_LOG_SOFTMAX: {
        const rt_log_softmax_params *p = op->params;
        n = p->outer;
        cg_line(cg, "mpcc_rows_s8_args p;");
        cg_line(cg, "memset(&p, 0, sizeof p);");
        cg_line(cg, "p.in = %s; p.out = %s; p.exp_q12 = %s;", cu_ptr(e, op->in[0], "const int8_t"),
                cu_ptr(e, op->out[0], "int8_t"), cu_xptr(e, index, 0, "const int32_t"));
        cg_line(cg, "p.rows = %d; p.depth = %d; p.diff_min = %d;", p->outer, p->depth, p->diff_min);
        cg_line(cg, "p.in_mult = %d; p.in_shift = %d; p.rev_mult = %d; p.rev_rshift = %d;", p->input_multiplier,
                p->input_left_shift, p->reverse_multiplier, p->reverse_right_shift);
        body = "mpcc_log_softmax_s8_body", args = "mpcc_rows_s8_args";
        break;
    }
    default: return -1;
    }
    cu_kernel_def(e, kb, index, args, 256, body);
    if (n > 0) cu_launch(e, index, cu_blocks_for(n), 1, 1, 0, 256, NULL);
    return 0;
}
