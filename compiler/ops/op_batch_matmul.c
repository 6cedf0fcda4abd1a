/* op_batch_matmul.c - BATCH_MATMUL: lhs [..., M, K] (or [..., K, M] with
 * adj_x) times rhs [..., K, N] (or [..., N, K] with adj_y), batch dims
 * broadcast numpy-style. f32; int8 (per-tensor scales). Hybrid float/int8
 * is not supported. */
#include "op_util.h"

typedef struct BmmOptions {
    int adj_x, adj_y;
} BmmOptions;

static int parse(Graph *g, IrOp *op, const FbTable *opts, Diag *d) {
    BmmOptions *o = ir_alloc(g, sizeof *o);
    int ax = 0, ay = 0, asym = 0;
    if (!o) return diag_internal(d, "out of memory");
    op->options = o;
    if (opts && (fb_bool(opts, TFL_BATCH_MATMUL_OPTIONS_ADJ_X, 0, &ax, d) ||
                 fb_bool(opts, TFL_BATCH_MATMUL_OPTIONS_ADJ_Y, 0, &ay, d) ||
                 fb_bool(opts, TFL_BATCH_MATMUL_OPTIONS_ASYMMETRIC_QUANTIZE_INPUTS, 0, &asym, d)))
        return DIAG_USER;
    /* asymmetric_quantize_inputs only affects the hybrid kernel, which check() rejects. */
    (void)asym;
    o->adj_x = ax;
    o->adj_y = ay;
    return 0;
}

/* Output shape, or an error. */
static int out_shape(const IrOp *op, const IrTensor *l, const IrTensor *r, const BmmOptions *o, int *rank,
                     int64_t *dims, Diag *d) {
    if (l->rank < 2 || r->rank < 2)
        return op_error(d, op, "inputs '%s' and '%s' must have rank >= 2", l->name, r->name);
    int64_t m = o->adj_x ? l->dims[l->rank - 1] : l->dims[l->rank - 2];
    int64_t kl = o->adj_x ? l->dims[l->rank - 2] : l->dims[l->rank - 1];
    int64_t kr = o->adj_y ? r->dims[r->rank - 1] : r->dims[r->rank - 2];
    int64_t n = o->adj_y ? r->dims[r->rank - 2] : r->dims[r->rank - 1];
    if (kl != kr)
        return op_error(d, op, "inner dimensions differ: '%s' has %lld, '%s' has %lld", l->name, (long long)kl, r->name,
                        (long long)kr);
    int br = (l->rank > r->rank ? l->rank : r->rank) - 2;
    for (int i = 0; i < br; i++) {
        int il = i - (br - (l->rank - 2)), ir = i - (br - (r->rank - 2));
        int64_t dl = il >= 0 ? l->dims[il] : 1, dr = ir >= 0 ? r->dims[ir] : 1;
        if (dl != dr && dl != 1 && dr != 1)
            return op_error(d, op, "batch dimension %d cannot broadcast: %lld vs %lld", i, (long long)dl,
                            (long long)dr);
        dims[i] = dl == 1 ? dr : dl;
    }
    dims[br] = m;
    dims[br + 1] = n;
    *rank = br + 2;
    return 0;
}

static int check(Graph *g, IrOp *op, Diag *d) {
    const BmmOptions *o = op->options;
    if (op_expect_io(op, 2, 2, 1, d)) return DIAG_USER;
    const IrTensor *l = op_cin(g, op, 0), *r = op_cin(g, op, 1);
    if (op_expect_dtype(g, op, 0, 0, DT(F32) | DT(I8), d) || op_expect_same_dtype(g, op, 0, d)) return DIAG_USER;
    if (r->dtype != l->dtype)
        return op_error(d, op, "mixed %s x %s inputs (hybrid) are not supported", ir_dtype_name(l->dtype),
                        ir_dtype_name(r->dtype));
    if (l->dtype == IR_I8 &&
        (op_expect_quantized(g, op, 0, 0, d) || op_expect_quantized(g, op, 0, 1, d) || op_expect_quantized(g, op, 1, 0, d)))
        return DIAG_USER;
    if (l->dtype == IR_I8 && (l->q.count > 1 || r->q.count > 1))
        return op_error(d, op, "per-channel quantized inputs are not supported");
    int rank = 0;
    int64_t dims[IR_MAX_RANK + 2] = {0};
    if (l->rank > IR_MAX_RANK || r->rank > IR_MAX_RANK) return op_error(d, op, "rank too large");
    if (out_shape(op, l, r, o, &rank, dims, d)) return DIAG_USER;
    return op_set_out_shape(g, op, 0, rank, dims, d);
}

static int prepare(Graph *g, IrOp *op, Diag *d) {
    const BmmOptions *o = op->options;
    const IrTensor *l = op_cin(g, op, 0), *r = op_cin(g, op, 1), *out = &g->tensors[op->out[0]];
    rt_bmm_params *p = op_new_params(g, rt_bmm_params);
    if (!p) return diag_internal(d, "out of memory");
    int br = out->rank - 2;
    int64_t lrows = l->dims[l->rank - 2], lcols = l->dims[l->rank - 1];
    int64_t rrows = r->dims[r->rank - 2], rcols = r->dims[r->rank - 1];
    int64_t ls = lrows * lcols, rs = rrows * rcols;
    p->batch_rank = br;
    /* Walk batch dims from the innermost outward, accumulating element strides. */
    for (int i = br - 1; i >= 0; i--) {
        int il = i - (br - (l->rank - 2)), ir = i - (br - (r->rank - 2));
        int64_t dl = il >= 0 ? l->dims[il] : 1, dr = ir >= 0 ? r->dims[ir] : 1;
        p->batch_dims[i] = (int32_t)out->dims[i];
        p->lhs_bstride[i] = dl == 1 ? 0 : (int32_t)ls;
        p->rhs_bstride[i] = dr == 1 ? 0 : (int32_t)rs;
        ls *= dl;
        rs *= dr;
    }
    p->m = (int32_t)out->dims[br];
    p->n = (int32_t)out->dims[br + 1];
    p->k = (int32_t)(o->adj_x ? lrows : lcols);
    p->lhs_si = o->adj_x ? 1 : (int32_t)lcols;
    p->lhs_sk = o->adj_x ? (int32_t)lcols : 1;
    p->rhs_sk = o->adj_y ? 1 : (int32_t)rcols;
    p->rhs_sj = o->adj_y ? (int32_t)rcols : 1;
    if (l->dtype == IR_I8) {
        /* GetQuantizedConvolutionMultipler: float product of the input scales, then double. */
        float prod = l->q.scale[0] * r->q.scale[0];
        double real = (double)prod / (double)out->q.scale[0];
        int sh;
        if (op_checked_multiplier(op, real, &p->mult, &sh, d)) return DIAG_USER;
        p->shift = sh;
        p->lhs_offset = -op_zp(l);
        p->rhs_offset = -op_zp(r);
        p->out_offset = op_zp(out);
    }
    op->params = p;
    return 0;
}

static void eval(const Graph *g, const IrOp *op, const void *const *in, void *const *out, void *scratch) {
    (void)scratch;
    if (g->tensors[op->in[0]].dtype == IR_I8) rt_batch_matmul_i8(op->params, in[0], in[1], out[0]);
    else rt_batch_matmul_f32(op->params, in[0], in[1], out[0]);
}

static void emit_ints(CgCtx *cg, const char *field, const int32_t *v) {
    cg_line(cg, ".%s = {%d, %d, %d, %d, %d, %d, %d, %d},", field, v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7]);
}

void bmm_emit_fields(CgCtx *cg, const rt_bmm_params *p) {
    cg_line(cg, ".batch_rank = %d,", p->batch_rank);
    emit_ints(cg, "batch_dims", p->batch_dims);
    emit_ints(cg, "lhs_bstride", p->lhs_bstride);
    emit_ints(cg, "rhs_bstride", p->rhs_bstride);
    cg_line(cg, ".m = %d, .n = %d, .k = %d,", p->m, p->n, p->k);
    cg_line(cg, ".lhs_si = %d, .lhs_sk = %d, .rhs_sk = %d, .rhs_sj = %d,", p->lhs_si, p->lhs_sk, p->rhs_sk,
            p->rhs_sj);
    cg_line(cg, ".lhs_offset = %d, .rhs_offset = %d, .out_offset = %d,", p->lhs_offset, p->rhs_offset,
            p->out_offset);
    cg_line(cg, ".mult = %d, .shift = %d", p->mult, p->shift);
}

void bmm_emit_params(CgCtx *cg, const rt_bmm_params *p) {
    cg_open(cg, "static const rt_bmm_params p = {");
    bmm_emit_fields(cg, p);
    cg_close(cg, "};");
}

static int emit_c(CgCtx *cg, const Graph *g, const IrOp *op, Diag *d) {
    (void)d;
    bmm_emit_params(cg, op->params);
    cg_line(cg, "rt_batch_matmul_%s(&p, %s, %s, %s);", g->tensors[op->in[0]].dtype == IR_I8 ? "i8" : "f32",
            cg_in(cg, op, 0), cg_in(cg, op, 1), cg_out(cg, op, 0));
    return 0;
}

static int64_t macs(const Graph *g, const IrOp *op) {
    /* From shapes and options, so it also works before prepare (mpcc inspect). */
    const BmmOptions *o = op->options;
    const IrTensor *l = &g->tensors[op->in[0]];
    int64_t k = o->adj_x ? l->dims[l->rank - 2] : l->dims[l->rank - 1];
    return ir_tensor_numel(&g->tensors[op->out[0]]) * k;
}

const OpDef op_def_batch_matmul = {"BATCH_MATMUL", parse, check, prepare, eval, emit_c, macs, 0};
