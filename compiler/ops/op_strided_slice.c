/* op_strided_slice.c - STRIDED_SLICE with constant begin/end/strides and
 * all of TFLite's options: begin/end masks, ellipsis_mask, new_axis_mask,
 * shrink_axis_mask and `offset` (end is relative to begin). The masks are
 * first expanded to one entry per "effective" dimension (input dims plus
 * new axes) as TFLite's BuildStridedSliceParams does; then each dimension
 * gets TFLite's clamped start/end (StridedSliceStartForAxis/EndForAxis).
 * Negative strides become negative byte strides of the copy. */
#include "shape_common.h"

typedef struct StridedSliceOptions {
    int32_t begin_mask, end_mask, ellipsis_mask, new_axis_mask, shrink_axis_mask;
    int offset;
} StridedSliceOptions;

static int parse(Graph *g, IrOp *op, const FbTable *opts, Diag *d) {
    StridedSliceOptions *o = ir_alloc(g, sizeof *o);
    if (!o) return diag_internal(d, "out of memory");
    op->options = o;
    if (!opts) return 0;
    if (fb_i32(opts, TFL_STRIDED_SLICE_OPTIONS_BEGIN_MASK, 0, &o->begin_mask, d) ||
        fb_i32(opts, TFL_STRIDED_SLICE_OPTIONS_END_MASK, 0, &o->end_mask, d) ||
        fb_i32(opts, TFL_STRIDED_SLICE_OPTIONS_ELLIPSIS_MASK, 0, &o->ellipsis_mask, d) ||
        fb_i32(opts, TFL_STRIDED_SLICE_OPTIONS_NEW_AXIS_MASK, 0, &o->new_axis_mask, d) ||
        fb_i32(opts, TFL_STRIDED_SLICE_OPTIONS_SHRINK_AXIS_MASK, 0, &o->shrink_axis_mask, d) ||
        fb_bool(opts, TFL_STRIDED_SLICE_OPTIONS_OFFSET, 0, &o->offset, d))
        return DIAG_USER;
    return 0;
}

/* The slice per effective dimension. */
typedef struct Plan {
    int rank;                    /* effective dims */
    int64_t in_dims[IR_MAX_RANK]; /* effective input shape (new axes are 1) */
    int64_t start[IR_MAX_RANK], count[IR_MAX_RANK], stride[IR_MAX_RANK];
    int shrink[IR_MAX_RANK];
} Plan;

static int64_t clamp64(int64_t v, int64_t lo, int64_t hi) { return v < lo ? lo : (v > hi ? hi : v); }

static int plan(const Graph *g, const IrOp *op, Plan *pl, Diag *d) {
    const StridedSliceOptions *o = op->options;
    const IrTensor *in = op_cin(g, op, 0);
    int64_t b[IR_MAX_RANK], e[IR_MAX_RANK], s[IR_MAX_RANK];
    int nb = 0, ne = 0, ns = 0;
    if (op_const_ints(g, op, 1, b, IR_MAX_RANK, &nb, d) || op_const_ints(g, op, 2, e, IR_MAX_RANK, &ne, d) ||
        op_const_ints(g, op, 3, s, IR_MAX_RANK, &ns, d))
        return DIAG_USER;
    if (nb != ne || nb != ns) return op_error(d, op, "begin, end and strides differ in length (%d, %d, %d)", nb, ne, ns);
    int num_add_axis = 0;
    for (int i = 0; i < nb; i++)
        if (!((1 << i) & o->ellipsis_mask) && ((1 << i) & o->new_axis_mask)) num_add_axis++;
    int ed = in->rank + num_add_axis;
    if (ed > IR_MAX_RANK) return op_error(d, op, "%d effective dimensions, at most %d supported", ed, IR_MAX_RANK);
    if (nb > ed) return op_error(d, op, "begin has %d entries for %d dimensions", nb, ed);
    /* Expand the ellipsis (over the dimensions begin does not cover) and locate new axes. */
    int ell_mask = 0, new_mask = 0, ell_start = ed, expanded = 0;
    for (int i = 0; i < ed;) {
        if ((1 << i) & o->ellipsis_mask) {
            ell_start = i;
            int end = i + 1 + num_add_axis + in->rank - nb;
            if (end > ed) end = ed;
            if (end < i + 1) end = i + 1;
            expanded = end - ell_start - 1;
            for (; i < end; i++) ell_mask |= 1 << i;
            continue;
        }
        if ((1 << (i - expanded)) & o->new_axis_mask) new_mask |= 1 << i;
        i++;
    }
    int added_ell = 0, added_axes = 0;
    int64_t start_idx[IR_MAX_RANK], stop_idx[IR_MAX_RANK];
    int bmask = 0, emask = 0, smask = 0;
    for (int i = 0; i < ed; i++) {
        pl->stride[i] = 1;
        start_idx[i] = stop_idx[i] = 0;
        if ((1 << i) & ell_mask) {
            added_ell = i - ell_start > 0 ? i - ell_start : 0;
            bmask |= 1 << i;
            emask |= 1 << i;
            pl->in_dims[i] = in->dims[i - added_axes];
        } else if ((1 << i) & new_mask) {
            stop_idx[i] = 1;
            pl->in_dims[i] = 1;
            added_axes++;
        } else if (i >= nb + expanded) {
            bmask |= 1 << i;
            emask |= 1 << i;
            pl->in_dims[i] = in->dims[i - added_axes];
        } else {
            int k = i - added_ell;
            start_idx[i] = b[k];
            stop_idx[i] = e[k];
            pl->stride[i] = s[k];
            if (o->begin_mask & (1 << k)) bmask |= 1 << i;
            if (o->end_mask & (1 << k)) emask |= 1 << i;
            if (o->shrink_axis_mask & (1 << k)) smask |= 1 << i;
            pl->in_dims[i] = in->dims[i - added_axes];
        }
        if (i - added_axes >= in->rank && !((1 << i) & new_mask))
            return op_error(d, op, "slice spec does not fit the input rank %d", in->rank);
    }
    pl->rank = ed;
    for (int i = 0; i < ed; i++) {
        int64_t n = pl->in_dims[i], st = pl->stride[i], start = start_idx[i], end;
        if (st == 0) return op_error(d, op, "stride %d is zero", i);
        /* TFLite StridedSliceStartForAxis. */
        if (start < 0) start += n;
        start = st > 0 ? clamp64(start, 0, n) : clamp64(start, -1, n - 1);
        if (bmask & (1 << i)) start = st > 0 ? 0 : n - 1;
        /* TFLite StridedSliceEndForAxis. */
        pl->shrink[i] = (smask >> i) & 1;
        if (pl->shrink[i]) {
            end = start >= n ? start : start + 1;
        } else {
            end = stop_idx[i];
            if (o->offset) end += start;
            if (end < 0) end += n;
            end = st > 0 ? clamp64(end, 0, n) : clamp64(end, -1, n - 1);
            if (emask & (1 << i)) end = st > 0 ? n : -1;
        }
        int64_t cnt = st > 0 ? (end - start + st - 1) / st : (start - end + (-st) - 1) / (-st);
        pl->start[i] = start;
        pl->count[i] = cnt > 0 ? cnt : 0;
    }
    return 0;
}

static int check(Graph *g, IrOp *op, Diag *d) {
    if (op_expect_io(op, 4, 4, 1, d) || op_expect_dtype(g, op, 0, 0, SHAPE_ANY_DTYPE, d) ||
        shape_expect_same_quant(g, op, 0, 0, d))
        return DIAG_USER;
    Plan pl;
    if (plan(g, op, &pl, d)) return DIAG_USER;
    int64_t dims[IR_MAX_RANK];
    int n = 0;
    for (int i = 0; i < pl.rank; i++)
        if (!pl.shrink[i]) dims[n++] = pl.count[i];
    return op_set_out_shape(g, op, 0, n, dims, d);
}

static int prepare(Graph *g, IrOp *op, Diag *d) {
    Plan pl;
    if (plan(g, op, &pl, d)) return DIAG_USER;
    int64_t is[IR_MAX_RANK], es[IR_MAX_RANK], off = 0;
    shape_contig_strides(pl.rank, pl.in_dims, es);
    for (int i = 0; i < pl.rank; i++) {
        /* A shrunk axis whose start was clamped to the end has count 0: nothing is read. */
        if (pl.count[i] > 0) off += pl.start[i] * es[i];
        is[i] = pl.stride[i] * es[i];
    }
    return shape_box_prepare(g, op, pl.rank, pl.count, is, off, d);
}

static void eval(const Graph *g, const IrOp *op, const void *const *in, void *const *out, void *scratch) {
    (void)g, (void)scratch;
    rt_strided_slice(op->params, in[0], out[0]);
}

static int emit_c(CgCtx *cg, const Graph *g, const IrOp *op, Diag *d) {
    (void)g, (void)d;
    shape_emit_copy_kernel(cg, op, "rt_strided_slice");
    return 0;
}

const OpDef op_def_strided_slice = {"STRIDED_SLICE", parse, check, prepare, eval, emit_c, op_no_macs, 0};
