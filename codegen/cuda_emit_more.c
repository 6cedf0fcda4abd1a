/* cuda_emit_more.c - --target cuda: integer/bool elementwise ops, GATHER and CONCATENATION. */
#include "cuda_internal.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "text.h"

/* Emission of the kinds of cu_classify_more. */
static void elem_strides(CuEmit *e, int which, const int32_t *st, int rank) {
    for (int k = 0; k < rank; k++) cg_line(&e->cg, "p.s%d[%d] = %d;", which, k, st[k]);
}

const char *cu_i64_lit(char *buf, size_t n, long long v) {
    if (v == (-9223372036854775807LL - 1)) snprintf(buf, n, "(-9223372036854775807LL - 1)");
    else snprintf(buf, n, "%lldLL", v);
    return buf;
}

int cu_rt_code(IrDType t) {
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

int cu_emit_more(CuEmit *e, CgBuf *kb, int index, const IrOp *op, CuKind kind, Diag *d) {
    const Graph *g = e->g;
    CgCtx *cg = &e->cg;
    switch (kind) {
    case CU_ELEM: {
        int code = cu_elem_code(op->kind);
        int64_t n = ir_tensor_numel(&g->tensors[op->out[0]]);
        cg_line(cg, "mpcc_elem_args p;");
        cg_line(cg, "memset(&p, 0, sizeof p);");
        cg_line(cg, "p.in0 = %s;", cu_ptr(e, op->in[0], "const void"));
        if (op->n_in > 1) cg_line(cg, "p.in1 = %s;", cu_ptr(e, op->in[1], "const void"));
        if (op->n_in > 2) cg_line(cg, "p.in2 = %s;", cu_ptr(e, op->in[2], "const void"));
        cg_line(cg, "p.out = %s; p.op = %d; p.n = %lld;", cu_ptr(e, op->out[0], "void"), code, (long long)n);
        if (code == 0) {
            const rt_quant_params *q = op->params;
            cg_line(cg, "p.type = %d; p.out_type = %d; p.rank = 1; p.dims[0] = %lld; p.s0[0] = 1;", q->in_type,
                    q->out_type, (long long)q->n);
            n = q->n;
        } else if (code <= 3) {
            const rt_binary_params *q = op->params;
            int i64 = cu_dt_in(g, op, 0) == IR_I64;
            long long lo = q->act_qmin, hi = q->act_qmax;
            char a[48], b[48];
            if (i64 && q->act_qmin == INT32_MIN) lo = -9223372036854775807LL - 1;
            if (i64 && q->act_qmax == INT32_MAX) hi = 9223372036854775807LL;
            cg_line(cg, "p.type = %d; p.rank = %d; p.lo = %s; p.hi = %s;", cu_rt_code(cu_dt_in(g, op, 0)), q->bc.rank,
                    cu_i64_lit(a, sizeof a, lo), cu_i64_lit(b, sizeof b, hi));
            for (int k = 0; k < q->bc.rank; k++) cg_line(cg, "p.dims[%d] = %d;", k, q->bc.dims[k]);
            elem_strides(e, 0, q->bc.stride1, q->bc.rank);
            elem_strides(e, 1, q->bc.stride2, q->bc.rank);
        } else {
            const rt_bcast3 *bc;
            int type = cu_rt_code(cu_dt_in(g, op, 0)), size = 0;
            if (code <= 9) bc = &((const rt_compare_params *)op->params)->bc, type = ((const rt_compare_params *)op->params)->dtype;
            else if (code <= 12) bc = &((const rt_logical_params *)op->params)->bc;
            else bc = &((const rt_select_params *)op->params)->bc, size = ((const rt_select_params *)op->params)->elem_size;
            cg_line(cg, "p.type = %d; p.size = %d; p.rank = %d;", type, size, bc->rank);
            for (int k = 0; k < bc->rank; k++) cg_line(cg, "p.dims[%d] = %d;", k, bc->dims[k]);
            for (int w = 0; w < op->n_in && w < 3; w++) elem_strides(e, w, bc->stride[w], bc->rank);
        }
        cu_kernel_def(e, kb, index, "mpcc_elem_args", 256, "mpcc_elem_body");
        cu_launch(e, index, cu_blocks_for(n), 1, 1, 0, 256, NULL);
        return 0;
    }
    case CU_GATHER: {
        const rt_gather_params *p = op->params;
        int unit = p->inner_bytes % 4 == 0 ? 4 : p->inner_bytes % 2 == 0 ? 2 : 1;
        long long inner = (long long)(p->inner_bytes / unit);
        long long total = (long long)p->batch * p->outer * p->coords * inner;
        cg_line(cg, "mpcc_gather_args p;");
        cg_line(cg, "memset(&p, 0, sizeof p);");
        cg_line(cg, "p.in = %s; p.idx = %s; p.out = %s;", cu_ptr(e, op->in[0], "const unsigned char"),
                cu_ptr(e, op->in[1], "const void"), cu_ptr(e, op->out[0], "unsigned char"));
        cg_line(cg, "p.idx64 = %d; p.unit = %d; p.batch = %d; p.outer = %d; p.axis_size = %d; p.coords = %d;",
                cu_dt_in(g, op, 1) == IR_I64, unit, p->batch, p->outer, p->axis_size, p->coords);
        cg_line(cg, "p.inner_units = %lld; p.total_units = %lld;", inner, total);
        cu_kernel_def(e, kb, index, "mpcc_gather_args", 256, "mpcc_gather_body");
        cu_launch(e, index, cu_blocks_for(total), 1, 1, 0, 256, NULL);
        return 0;
    }
    case CU_CONCAT: {
        /* one launch of the copy kernel per input, into its slot of the output */
        const rt_concat_params *cp = op->params;
        cu_kernel_def(e, kb, index, "mpcc_copy_args", 256, "mpcc_copy_body");
        for (int q = 0; q < cp->count; q++) {
            const rt_copy_params *p = &cp->parts[q];
            int unit;
            int64_t total;
            cu_copy_plan(p, &unit, &total);
            if (total == 0) continue;
            cg_open(cg, "{");
            cg_line(cg, "mpcc_copy_args p;");
            cg_line(cg, "memset(&p, 0, sizeof p);");
            cg_line(cg, "p.in = %s; p.out = %s;", cu_ptr(e, op->in[q], "const unsigned char"), cu_ptr(e, op->out[0], "unsigned char"));
            cg_line(cg, "p.rank = %d; p.unit = %d; p.in_offset = %lld; p.out_offset = %lld; p.run = %lld; p.total_units = %lld;",
                    p->rank, unit, (long long)p->in_offset, (long long)p->out_offset, (long long)p->run, (long long)total);
            for (int k = 0; k < p->rank; k++)
                cg_line(cg, "p.dims[%d] = %d; p.in_strides[%d] = %lld; p.out_strides[%d] = %lld;", k, p->dims[k], k,
                        (long long)p->in_strides[k], k, (long long)p->out_strides[k]);
            cu_launch(e, index, cu_blocks_for(total), 1, 1, 0, 256, NULL);
            cg_close(cg, "}");
            e->cg.pool_next = 0;
        }
        return 0;
    }
    default: return diag_internal(d, "operator %d: no CUDA emitter for kind %d", op->tfl_index, (int)kind);
    }
}

