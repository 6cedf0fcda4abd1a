/* op_concatenation.c - CONCATENATION along `axis` (negative counts from the
 * end). Any dtype as a byte copy. int8/uint8 inputs whose quantization
 * differs from the output's are rescaled with TFLite's float formula
 * (ConcatenationWithScaling; TFLite itself only accepts that for uint8 and
 * rejects mismatched int8); int16 must match exactly. A fused activation
 * (which TFLite's kernel rejects) is applied as a clamp for f32/int8/uint8. */
#include "shape_common.h"

typedef struct ConcatOptions {
    int axis;
    int act;
} ConcatOptions;

static int parse(Graph *g, IrOp *op, const FbTable *opts, Diag *d) {
    ConcatOptions *o = ir_alloc(g, sizeof *o);
    int32_t axis = 0;
    int8_t act = 0;
    if (!o) return diag_internal(d, "out of memory");
    op->options = o;
    if (!opts) return 0;
    if (fb_i32(opts, TFL_CONCATENATION_OPTIONS_AXIS, 0, &axis, d) ||
        fb_i8(opts, TFL_CONCATENATION_OPTIONS_FUSED_ACTIVATION_FUNCTION, 0, &act, d))
        return DIAG_USER;
    o->axis = axis;
    return op_parse_act(op, act, &o->act, d);
}

static int same_quant(const IrTensor *a, const IrTensor *b) {
    if (a->q.count != b->q.count) return 0;
    for (int i = 0; i < a->q.count; i++)
        if (a->q.scale[i] != b->q.scale[i] || a->q.zero_point[i] != b->q.zero_point[i]) return 0;
    return 1;
}

static int check(Graph *g, IrOp *op, Diag *d) {
    const ConcatOptions *o = op->options;
    if (op_expect_io(op, 1, 1 << 16, 1, d) || op_expect_dtype(g, op, 0, 0, SHAPE_ANY_DTYPE, d)) return DIAG_USER;
    const IrTensor *t0 = op_cin(g, op, 0), *out = op_out(g, op, 0);
    int axis = shape_axis(o->axis, t0->rank);
    if (axis < 0) return op_error(d, op, "axis %d is out of range for rank %d", o->axis, t0->rank);
    IrDType dt = t0->dtype;
    int q = dt == IR_I8 || dt == IR_U8 || dt == IR_I16;
    if (o->act != ACT_NONE && dt != IR_F32 && dt != IR_I8 && dt != IR_U8)
        return op_error(d, op, "fused activation is not supported for %s", ir_dtype_name(dt));
    if (q && op_expect_quantized(g, op, 1, 0, d)) return DIAG_USER;
    int64_t dims[IR_MAX_RANK];
    for (int i = 0; i < t0->rank; i++) dims[i] = t0->dims[i];
    dims[axis] = 0;
    for (int k = 0; k < op->n_in; k++) {
        const IrTensor *t = op_cin(g, op, k);
        if (!t) return op_error(d, op, "input %d is missing", k);
        if (op_expect_same_dtype(g, op, k, d)) return DIAG_USER;
        if (t->rank != t0->rank)
            return op_error(d, op, "input %d tensor '%s' has rank %d, input 0 has rank %d", k, t->name, t->rank,
                            t0->rank);
        for (int i = 0; i < t0->rank; i++)
            if (i != axis && t->dims[i] != t0->dims[i])
                return op_error(d, op, "input %d tensor '%s': dimension %d is %lld, input 0 has %lld", k, t->name, i,
                                (long long)t->dims[i], (long long)t0->dims[i]);
        dims[axis] += t->dims[axis];
        if (q) {
            if (op_expect_quantized(g, op, 0, k, d)) return DIAG_USER;
            if (t->q.count != 1 || out->q.count != 1)
                return op_error(d, op, "input %d tensor '%s': per-channel quantization is not supported", k, t->name);
            if (dt == IR_I16 && !same_quant(t, out)) return shape_expect_same_quant(g, op, k, 0, d);
        }
    }
    return op_set_out_shape(g, op, 0, t0->rank, dims, d);
}

int concat_is_elementwise(const Graph *g, const IrOp *op) {
    const ConcatOptions *o = op->options;
    const IrTensor *out = &g->tensors[op->out[0]];
    if (o->act != ACT_NONE) return 1;
    if (out->dtype != IR_I8 && out->dtype != IR_U8) return 0;
    for (int k = 0; k < op->n_in; k++)
        if (!same_quant(op_cin(g, op, k), out)) return 1;
    return 0;
}

static int prepare(Graph *g, IrOp *op, Diag *d) {
    const ConcatOptions *o = op->options;
    const IrTensor *out = op_out(g, op, 0);
    int axis = shape_axis(o->axis, out->rank), n = op->n_in;
    int64_t esize = (int64_t)ir_dtype_size(out->dtype), os[IR_MAX_RANK], is[IR_MAX_RANK], off = 0;
    rt_concat_params *p = op_new_params(g, rt_concat_params);
    rt_copy_params *parts = ir_alloc(g, sizeof *parts * (size_t)n);
    if (!p || !parts) return diag_internal(d, "out of memory");
    shape_contig_strides(out->rank, out->dims, os);
    for (int k = 0; k < n; k++) {
        const IrTensor *t = op_cin(g, op, k);
        shape_contig_strides(t->rank, t->dims, is);
        if (shape_copy_init(&parts[k], t->rank, t->dims, is, 0, os, off * os[axis], esize))
            return op_error(d, op, "tensor too large");
        off += t->dims[axis];
    }
    p->count = n;
    p->parts = parts;
    op_act_range_f32(o->act, &p->act_min, &p->act_max);
    if (out->dtype == IR_I8 || out->dtype == IR_U8) {
        int32_t *same = ir_alloc(g, sizeof(int32_t) * (size_t)n);
        float *scale = ir_alloc(g, sizeof(float) * (size_t)n), *bias = ir_alloc(g, sizeof(float) * (size_t)n);
        if (!same || !scale || !bias) return diag_internal(d, "out of memory");
        /* TFLite: inverse_output_scale = 1.f / output_scale; scale = in_scale * inverse; bias = -in_zp * scale. */
        float inverse_output_scale = 1.f / out->q.scale[0];
        for (int k = 0; k < n; k++) {
            const IrTensor *t = op_cin(g, op, k);
            same[k] = same_quant(t, out);
            scale[k] = t->q.scale[0] * inverse_output_scale;
            bias[k] = (float)-op_zp(t) * scale[k];
        }
        p->same = same;
        p->scale = scale;
        p->bias = bias;
        p->out_zp = op_zp(out);
        op_act_range_q(o->act, out, &p->qmin, &p->qmax);
    }
    op->params = p;
    return 0;
}

static void eval(const Graph *g, const IrOp *op, const void *const *in, void *const *out, void *scratch) {
    (void)scratch;
    const rt_concat_params *p = op->params;
    int elementwise = concat_is_elementwise(g, op);
    IrDType dt = g->tensors[op->out[0]].dtype;
    for (int32_t k = 0; k < p->count; k++) {
        if (!elementwise) rt_concatenation(p, k, in[k], out[0]);
        else if (dt == IR_F32) rt_concatenation_f32(p, k, in[k], out[0]);
        else if (dt == IR_I8) rt_concatenation_i8(p, k, in[k], out[0]);
        else rt_concatenation_u8(p, k, in[k], out[0]);
    }
}

int concat_emit_c(CgCtx *cg, const Graph *g, const IrOp *op, const char *kernel) {
    const rt_concat_params *p = op->params;
    IrDType dt = g->tensors[op->out[0]].dtype;
    if (!kernel)
        kernel = !concat_is_elementwise(g, op) ? "rt_concatenation"
                 : dt == IR_F32                ? "rt_concatenation_f32"
                 : dt == IR_I8                 ? "rt_concatenation_i8"
                                               : "rt_concatenation_u8";
    shape_emit_copy_array(cg, "parts", p->parts, p->count);
    if (p->same) {
        cg_array_i32(cg, "same", p->same, p->count);
        cg_array_f32(cg, "scale", p->scale, p->count);
        cg_array_f32(cg, "bias", p->bias, p->count);
    }
    cg_open(cg, "static const rt_concat_params p = {");
    cg_line(cg, ".count = %d, .parts = parts,", p->count);
    cg_line(cg, ".act_min = %s, .act_max = %s,", cg_f32(cg, p->act_min), cg_f32(cg, p->act_max));
    cg_line(cg, "%s,",
            p->same ? ".same = same, .scale = scale, .bias = bias" : ".same = NULL, .scale = NULL, .bias = NULL");
    cg_line(cg, ".out_zp = %d, .qmin = %d, .qmax = %d", p->out_zp, p->qmin, p->qmax);
    cg_close(cg, "};");
    for (int k = 0; k < p->count; k++)
        cg_line(cg, "%s(&p, %d, %s, %s);", kernel, k, cg_in(cg, op, k), cg_out(cg, op, 0));
    return 0;
}

static int emit_c(CgCtx *cg, const Graph *g, const IrOp *op, Diag *d) {
    (void)d;
    return concat_emit_c(cg, g, op, NULL);
}

const OpDef op_def_concatenation = {"CONCATENATION", parse, check, prepare, eval, emit_c, op_no_macs, 0};
