/* op_resize_nearest_neighbor.c - RESIZE_NEAREST_NEIGHBOR of an NHWC tensor to
 * a constant size, with align_corners / half_pixel_centers. Pure data
 * movement: f32, int8, uint8, int16, int32, int64 (quantized: same scale in
 * and out). */
#include "conv_common.h"

static int parse(Graph *g, IrOp *op, const FbTable *opts, Diag *d) {
    ResizeOptions *o = ir_alloc(g, sizeof *o);
    int align = 0, half = 0;
    if (!o) return diag_internal(d, "out of memory");
    op->options = o;
    if (opts && (fb_bool(opts, TFL_RESIZE_NEAREST_NEIGHBOR_OPTIONS_ALIGN_CORNERS, 0, &align, d) ||
                 fb_bool(opts, TFL_RESIZE_NEAREST_NEIGHBOR_OPTIONS_HALF_PIXEL_CENTERS, 0, &half, d)))
        return DIAG_USER;
    o->align_corners = align;
    o->half_pixel_centers = half;
    return 0;
}

static int check(Graph *g, IrOp *op, Diag *d) {
    return resize_check(g, op, DT(F32) | DT(I8) | DT(U8) | DT(I16) | DT(I32) | DT(I64), d);
}

static void eval(const Graph *g, const IrOp *op, const void *const *in, void *const *out, void *scratch) {
    (void)g, (void)scratch;
    rt_resize_nearest_neighbor(op->params, in[0], out[0]);
}

static int emit_c(CgCtx *cg, const Graph *g, const IrOp *op, Diag *d) {
    (void)g, (void)d;
    resize_emit_params(cg, op->params);
    cg_line(cg, "rt_resize_nearest_neighbor(&p, %s, %s);", cg_in(cg, op, 0), cg_out(cg, op, 0));
    return 0;
}

const OpDef op_def_resize_nearest_neighbor = {"RESIZE_NEAREST_NEIGHBOR", parse, check, resize_prepare, eval, emit_c,
                                              op_no_macs, 0};
