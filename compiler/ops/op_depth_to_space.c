/* op_depth_to_space.c - DEPTH_TO_SPACE (NHWC, block_size >= 1) as a 6-D strided copy;
 * any dtype, quantization kept. */
#include "shape_common.h"

static int parse(Graph *g, IrOp *op, const FbTable *opts, Diag *d) {
    return shape_block_parse(g, op, opts, TFL_DEPTH_TO_SPACE_OPTIONS_BLOCK_SIZE, d);
}

static int check(Graph *g, IrOp *op, Diag *d) {
    const BlockOptions *o = op->options;
    if (op_expect_io(op, 1, 1, 1, d) || op_expect_dtype(g, op, 0, 0, SHAPE_ANY_DTYPE, d) ||
        shape_expect_same_quant(g, op, 0, 0, d))
        return DIAG_USER;
    const IrTensor *in = op_cin(g, op, 0);
    int64_t b = o->block;
    if (in->rank != 4) return op_error(d, op, "input '%s' must have rank 4 (NHWC)", in->name);
    if (in->dims[3] % (b * b) != 0)
        return op_error(d, op, "depth %lld is not divisible by block_size^2 = %lld", (long long)in->dims[3],
                        (long long)(b * b));
    int64_t dims[4] = {in->dims[0], in->dims[1] * b, in->dims[2] * b, in->dims[3] / (b * b)};
    return op_set_out_shape(g, op, 0, 4, dims, d);
}

static int prepare(Graph *g, IrOp *op, Diag *d) {
    const BlockOptions *o = op->options;
    const IrTensor *in = op_cin(g, op, 0);
    int64_t b = o->block, H = in->dims[1], W = in->dims[2], C = in->dims[3], oc = C / (b * b);
    /* Box in output order [N, H, dy, W, dx, oc]; out[n, h*b+dy, w*b+dx, c] = in[n, h, w, (dy*b+dx)*oc + c]. */
    int64_t box[6] = {in->dims[0], H, b, W, b, oc};
    int64_t is[6] = {H * W * C, W * C, b * oc, C, oc, 1};
    return shape_box_prepare(g, op, 6, box, is, 0, d);
}

static void eval(const Graph *g, const IrOp *op, const void *const *in, void *const *out, void *scratch) {
    (void)g, (void)scratch;
    rt_depth_to_space(op->params, in[0], out[0]);
}

static int emit_c(CgCtx *cg, const Graph *g, const IrOp *op, Diag *d) {
    (void)g, (void)d;
    shape_emit_copy_kernel(cg, op, "rt_depth_to_space");
    return 0;
}

const OpDef op_def_depth_to_space = {"DEPTH_TO_SPACE", parse, check, prepare, eval, emit_c, op_no_macs, 0};
