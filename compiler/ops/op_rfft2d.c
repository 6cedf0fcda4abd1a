/* op_rfft2d.c - RFFT2D: f32 [..., H, W] and a constant int32 fft_length
 * [fft_h, fft_w] -> complex64 [..., fft_h, fft_w / 2 + 1], each [H, W] slice
 * cropped or zero-padded to fft_length first. Power-of-two lengths only, as
 * TFLite (rfft2d.cc). Audio front ends (tf.signal.stft) produce it. */
#include "op_util.h"

static int fft_lengths(const Graph *g, const IrOp *op, int32_t *fft_h, int32_t *fft_w, Diag *d) {
    const IrTensor *len = op_cin(g, op, 1);
    int64_t v[2];
    int n = 0;
    if (len->rank != 1 || len->dims[0] != 2)
        return op_error(d, op, "fft_length '%s' must have shape [2]", len->name);
    if (op_expect_const(g, op, 1, d) || op_const_ints(g, op, 1, v, 2, &n, d)) return DIAG_USER;
    for (int k = 0; k < 2; k++)
        if (v[k] < 1 || v[k] > (1 << 24) || (v[k] & (v[k] - 1)))
            return op_error(d, op, "fft_length[%d] = %lld must be a power of two (at most 2^24)", k, (long long)v[k]);
    *fft_h = (int32_t)v[0];
    *fft_w = (int32_t)v[1];
    return 0;
}

static int check(Graph *g, IrOp *op, Diag *d) {
    if (op_expect_io(op, 2, 2, 1, d) || op_expect_dtype(g, op, 0, 0, DT(F32), d) ||
        op_expect_dtype(g, op, 0, 1, DT(I32), d) || op_expect_dtype(g, op, 1, 0, DT(C64), d))
        return DIAG_USER;
    const IrTensor *in = op_cin(g, op, 0);
    if (in->rank < 2) return op_error(d, op, "input '%s' has rank %d, expected at least 2", in->name, in->rank);
    int32_t fft_h, fft_w;
    if (fft_lengths(g, op, &fft_h, &fft_w, d)) return DIAG_USER;
    int64_t dims[IR_MAX_RANK];
    for (int i = 0; i < in->rank; i++) dims[i] = in->dims[i];
    dims[in->rank - 2] = fft_h;
    dims[in->rank - 1] = fft_w / 2 + 1;
    return op_set_out_shape(g, op, 0, in->rank, dims, d);
}

static int prepare(Graph *g, IrOp *op, Diag *d) {
    const IrTensor *in = op_cin(g, op, 0);
    rt_rfft2d_params *p = op_new_params(g, rt_rfft2d_params);
    if (!p) return diag_internal(d, "out of memory");
    if (fft_lengths(g, op, &p->fft_h, &p->fft_w, d)) return DIAG_USER;
    p->in_h = (int32_t)in->dims[in->rank - 2];
    p->in_w = (int32_t)in->dims[in->rank - 1];
    p->outer = 1;
    for (int i = 0; i < in->rank - 2; i++) p->outer *= in->dims[i];
    op->params = p;
    op->scratch_bytes = rt_rfft2d_scratch_bytes(p);
    return 0;
}

static void eval(const Graph *g, const IrOp *op, const void *const *in, void *const *out, void *scratch) {
    (void)g;
    rt_rfft2d(op->params, in[0], out[0], scratch);
}

static int emit_c(CgCtx *cg, const Graph *g, const IrOp *op, Diag *d) {
    (void)g, (void)d;
    const rt_rfft2d_params *p = op->params;
    cg_line(cg, "static const rt_rfft2d_params p = {.outer = %lld, .in_h = %d, .in_w = %d, .fft_h = %d, .fft_w = %d};",
            (long long)p->outer, p->in_h, p->in_w, p->fft_h, p->fft_w);
    cg_line(cg, "rt_rfft2d(&p, %s, %s, %s);", cg_in(cg, op, 0), cg_out(cg, op, 0), cg_scratch(cg, op));
    return 0;
}

/* Radix-2 butterflies: (n / 2) log2 n of them per transform, 4 multiply-adds each (from the output's
 * shape: inspect asks before prepare). */
static int64_t macs(const Graph *g, const IrOp *op) {
    const IrTensor *out = &g->tensors[op->out[0]];
    if (out->rank < 2) return 0;
    int64_t fft_h = out->dims[out->rank - 2], cols = out->dims[out->rank - 1];
    int64_t fft_w = cols > 1 ? 2 * (cols - 1) : 1, outer = ir_tensor_numel(out) / (fft_h * cols > 0 ? fft_h * cols : 1);
    int64_t lh = 0, lw = 0;
    while (((int64_t)1 << lh) < fft_h) lh++;
    while (((int64_t)1 << lw) < fft_w) lw++;
    return outer * 2 * (fft_h * fft_w * lw + cols * fft_h * lh);
}

const OpDef op_def_rfft2d = {"RFFT2D", op_parse_none, check, prepare, eval, emit_c, macs, 0};
