/* cuda_emit_s8.c - --target cuda: the int8 (TFLite-quantized) kernels, bit-exact with the reference. */
#include "cuda_internal.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "text.h"

/* The requantization of a quantized ADD / SUB / SQUARED_DIFFERENCE / MUL into an mpcc_s8_addq `dst`. */
void cu_emit_addq(CuEmit *e, const char *dst, const rt_binary_params *p) {
    cg_line(&e->cg, "%s.in1_offset = %d; %s.in2_offset = %d; %s.out_offset = %d; %s.left_shift = %d;", dst, p->in1_offset,
            dst, p->in2_offset, dst, p->out_offset, dst, p->left_shift);
    cg_line(&e->cg, "%s.in1_mult = %d; %s.in1_shift = %d; %s.in2_mult = %d; %s.in2_shift = %d;", dst, p->in1_mult, dst,
            p->in1_shift, dst, p->in2_mult, dst, p->in2_shift);
    cg_line(&e->cg, "%s.out_mult = %d; %s.out_shift = %d; %s.qmin = %d; %s.qmax = %d;", dst, p->out_mult, dst,
            p->out_shift, dst, p->act_qmin, dst, p->act_qmax);
}

int cu_s8_binary_code(OpKind k) {
    switch (k) {
    case OP_ADD: return 0;
    case OP_SUB: return 1;
    case OP_MUL: return 2;
    case OP_SQUARED_DIFFERENCE: return 3;
    case OP_MAXIMUM: return 4;
    default: return 5; /* MINIMUM */
    }
}

/* The mpcc_mean_s8_args `dst` (e.g. "p.") of a reduction over int8 / bool bytes: pointers,
 * shape, which dims are reduced, and `code` (0 sum, 1 maximum, 2 minimum). */
void cu_emit_reduce_s8(CuEmit *e, const char *dst, const IrOp *op, int code) {
    const rt_reduce_params *p = op->params;
    CgCtx *cg = &e->cg;
    cg_line(cg, "%sin = %s; %sout = %s;", dst, cu_ptr(e, op->in[0], "const int8_t"), dst, cu_ptr(e, op->out[0], "int8_t"));
    cg_line(cg, "%srank = %d; %sout_count = %d; %sreduce_count = %d; %sop = %d;", dst, p->rank, dst, p->out_count, dst,
            p->reduce_count, dst, code);
    cg_line(cg, "%sin_zp = %d; %sout_zp = %d; %smult = %d; %sshift = %d;", dst, p->in_zp, dst, p->out_zp, dst, p->mult, dst,
            p->shift);
    for (int q = 0; q < p->rank; q++)
        cg_line(cg, "%sdims[%d] = %d; %sreduced[%d] = %d;", dst, q, p->in_dims[q], dst, q,
                p->out_stride[q] == 0 && p->in_dims[q] > 1);
}

/* The int8 kernels of mpcc_cuda_int8.cuh (and the IMMA GEMM for 1x1 convolutions). */
int cu_emit_op_s8(CuEmit *e, CgBuf *kb, int index, const IrOp *op, CuKind kind) {
    const Graph *g = e->g;
    CgCtx *cg = &e->cg;
    const char *body = NULL, *args = NULL;
    int64_t n = 0;
    switch (kind) {
    case CU_CONV_S8_GEMM: {
        const rt_conv_params *p = op->params;
        cu_emit_gemm_s8(e, kb, index, op, (int64_t)p->batches * p->out_h * p->out_w, p->out_c, p->in_c, p->out_offset,
                        p->act_qmin, p->act_qmax, 0);
        return 0;
    }
    case CU_CONV_S8: {
        int bias = op->kind == OP_CONV_2D ? cu_conv_bias_id(op) : op->n_in > 2 ? op->in[2] : -1;
        cg_line(cg, "mpcc_conv_s8_args p;");
        cg_line(cg, "memset(&p, 0, sizeof p);");
        cg_line(cg, "p.in = %s; p.filter = %s; p.bias = %s;", cu_ptr(e, op->in[0], "const int8_t"),
                cu_ptr(e, op->in[1], "const int8_t"), cu_ptr(e, bias, "const int32_t"));
        cg_line(cg, "p.mult = %s; p.shift = %s;", cu_xptr(e, index, 1, "const int32_t"), cu_xptr(e, index, 2, "const int32_t"));
        if (op->kind == OP_DEPTHWISE_CONV_2D) {
            const rt_dwconv_params *p = op->params;
            cu_emit_conv_geometry(e, op);
            cg_line(cg, "p.depth_mult = %d; p.in_offset = %d; p.out_offset = %d; p.qmin = %d; p.qmax = %d;",
                    p->depth_mult, p->in_offset, p->out_offset, p->act_qmin, p->act_qmax);
            n = (int64_t)p->batches * p->out_h * p->out_w * p->in_c * p->depth_mult;
        } else {
            const rt_conv_params *p = op->params;
            cu_emit_conv_geometry(e, op);
            cg_line(cg, "p.in_offset = %d; p.out_offset = %d; p.qmin = %d; p.qmax = %d;", p->in_offset, p->out_offset,
                    p->act_qmin, p->act_qmax);
            n = (int64_t)p->batches * p->out_h * p->out_w * p->out_c;
            if (op->sched.post_add >= 0) {
                cg_line(cg, "p.res = %s; p.conv_is_lhs = %d; /* the fused residual ADD */",
                        cu_ptr(e, op->sched.post_other, "const int8_t"), op->sched.conv_is_lhs);
                cu_emit_addq(e, "p.add", g->ops[op->sched.post_add].params);
            }
        }
        cg_line(cg, "p.out = %s;", cu_ptr(e, op->out[0], "int8_t"));
        body = "mpcc_conv_s8_body", args = "mpcc_conv_s8_args";
        break;
    }
    case CU_BINARY_S8: {
        const rt_binary_params *p = op->params;
        const rt_bcast *b = &p->bc;
        n = ir_tensor_numel(&g->tensors[op->out[0]]);
        cg_line(cg, "mpcc_binary_s8_args p;");
        cg_line(cg, "memset(&p, 0, sizeof p);");
        cg_line(cg, "p.a = %s; p.b = %s; p.out = %s;", cu_ptr(e, op->in[0], "const int8_t"),
                cu_ptr(e, op->in[1], "const int8_t"), cu_ptr(e, op->out[0], "int8_t"));
        cg_line(cg, "p.op = %d; p.rank = %d; p.n = %lld;", cu_s8_binary_code(op->kind), b->rank, (long long)n);
        for (int k = 0; k < b->rank; k++)
            cg_line(cg, "p.dims[%d] = %d; p.s1[%d] = %d; p.s2[%d] = %d;", k, b->dims[k], k, b->stride1[k], k, b->stride2[k]);
        cu_emit_addq(e, "p.q", p);
        body = "mpcc_binary_s8_body", args = "mpcc_binary_s8_args";
        break;
    }
    case CU_POOL_S8: {
        const rt_pool_params *p = op->params;
        n = (int64_t)p->batches * p->out_h * p->out_w * p->channels;
        cg_line(cg, "mpcc_pool_s8_args p;");
        cg_line(cg, "memset(&p, 0, sizeof p);");
        cg_line(cg, "p.in = %s; p.out = %s;", cu_ptr(e, op->in[0], "const int8_t"), cu_ptr(e, op->out[0], "int8_t"));
        cu_emit_pool_geometry(e, p);
        cg_line(cg, "p.is_max = %d; p.qmin = %d; p.qmax = %d;", op->kind == OP_MAX_POOL_2D, p->act_qmin, p->act_qmax);
        body = "mpcc_pool_s8_body", args = "mpcc_pool_s8_args";
        break;
    }
    case CU_MEAN_S8: {
        const rt_reduce_params *p = op->params;
        n = p->out_count;
        cg_line(cg, "mpcc_mean_s8_args p;");
        cg_line(cg, "memset(&p, 0, sizeof p);");
        cu_emit_reduce_s8(e, "p.", op, op->kind == OP_REDUCE_MAX ? 1 : op->kind == OP_REDUCE_MIN ? 2 : 0);
        body = "mpcc_mean_s8_body", args = "mpcc_mean_s8_args";
        break;
    }
    case CU_LUT_S8: {
        n = ir_tensor_numel(&g->tensors[op->out[0]]);
        cg_line(cg, "mpcc_lut_s8_args p;");
        cg_line(cg, "memset(&p, 0, sizeof p);");
        cg_line(cg, "p.in = %s; p.out = %s; p.lut = %s; p.n = %lld;", cu_ptr(e, op->in[0], "const int8_t"),
                cu_ptr(e, op->out[0], "int8_t"), cu_xptr(e, index, 0, "const int8_t"), (long long)n);
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
        cg_line(cg, "p.in = %s; p.out = %s; p.n = %lld;", cu_ptr(e, op->in[0], "const int8_t"), cu_ptr(e, op->out[0], "int8_t"),
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
        int out16 = g->tensors[op->out[0]].dtype == IR_I16; /* int8 -> int16 (cu_classify_misc) */
        cg_line(cg, "p.in = %s; p.%s = %s; p.exp_q0 = %s;", cu_ptr(e, op->in[0], "const int8_t"), out16 ? "out16" : "out",
                cu_ptr(e, op->out[0], out16 ? "int16_t" : "int8_t"), cu_xptr(e, index, 0, "const int32_t"));
        cg_line(cg, "p.rows = %d; p.depth = %d; p.diff_min = %d;", p->outer, p->depth, p->diff_min);
        body = "mpcc_softmax_s8_body", args = "mpcc_softmax_s8_args";
        break;
    }
    default: return -1;
    }
    cu_kernel_def(e, kb, index, args, 256, body);
    cu_launch(e, index, cu_blocks_for(n), 1, 1, 0, 256, NULL);
    return 0;
}

