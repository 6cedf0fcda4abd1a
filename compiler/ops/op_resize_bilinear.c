/* op_resize_bilinear.c - RESIZE_BILINEAR of an NHWC tensor to a constant
 * size, with align_corners / half_pixel_centers. f32 (float interpolation);
 * int8 and int16 (TFLite's integer interpolation, same scale in and out). */
#include "conv_common.h"

static int parse(Graph *g, IrOp *op, const FbTable *opts, Diag *d) {
    ResizeOptions *o = ir_alloc(g, sizeof *o);
    int align = 0, half = 0;
    if (!o) return diag_internal(d, "out of memory");
    op->options = o;
    /* Slots 0 and 1 (new_height, new_width) are deprecated and unused. */
    if (opts && (fb_bool(opts, TFL_RESIZE_BILINEAR_OPTIONS_ALIGN_CORNERS, 0, &align, d) ||
                 fb_bool(opts, TFL_RESIZE_BILINEAR_OPTIONS_HALF_PIXEL_CENTERS, 0, &half, d)))
        return DIAG_USER;
    o->align_corners = align;
    o->half_pixel_centers = half;
    return 0;
}

static int check(Graph *g, IrOp *op, Diag *d) { return resize_check(g, op, DT(F32) | DT(I8) | DT(I16), d); }

static void eval(const Graph *g, const IrOp *op, const void *const *in, void *const *out, void *scratch) {
    (void)scratch;
    switch (g->tensors[op->in[0]].dtype) {
    case IR_I8: rt_resize_bilinear_i8(op->params, in[0], out[0]); break;
    case IR_I16: rt_resize_bilinear_i16(op->params, in[0], out[0]); break;
    default: rt_resize_bilinear_f32(op->params, in[0], out[0]); break;
    }
}

static int emit_c(CgCtx *cg, const Graph *g, const IrOp *op, Diag *d) {
    (void)d;
    resize_emit_params(cg, op->params);
    cg_line(cg, "rt_resize_bilinear_%s(&p, %s, %s);", ir_dtype_name(g->tensors[op->in[0]].dtype), cg_in(cg, op, 0),
            cg_out(cg, op, 0));
    return 0;
}

static int64_t macs(const Graph *g, const IrOp *op) { return 4 * ir_tensor_numel(&g->tensors[op->out[0]]); }

const OpDef op_def_resize_bilinear = {"RESIZE_BILINEAR", parse, check, resize_prepare, eval, emit_c, macs, 0};
