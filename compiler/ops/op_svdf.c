/* op_svdf.c - SVDF: inputs (input [batch, input_size], weights_feature
 * [num_filters, input_size], weights_time [num_filters, memory_size],
 * optional bias [num_units], variable state [batch, memory_size *
 * num_filters]); output [batch, num_units], num_units = num_filters / rank.
 * f32; int8 in/out with int8 weights_feature, int32 bias and either int16
 * weights_time and state (TFLite's full-integer SVDF) or int8 weights_time
 * and state, the state with a zero point (TFLite Micro's 8-bit SVDF). Hybrid
 * (float input, int8 weights) is not supported. */
#include "op_util.h"

typedef struct SvdfOptions {
    int rank, act;
} SvdfOptions;

static int parse(Graph *g, IrOp *op, const FbTable *opts, Diag *d) {
    SvdfOptions *o = ir_alloc(g, sizeof *o);
    int32_t rank = 0;
    int8_t act = 0;
    int asym = 0;
    if (!o) return diag_internal(d, "out of memory");
    op->options = o;
    if (!opts) return op_error(d, op, "missing SVDFOptions");
    if (fb_i32(opts, TFL_SVDF_OPTIONS_RANK, 0, &rank, d) ||
        fb_i8(opts, TFL_SVDF_OPTIONS_FUSED_ACTIVATION_FUNCTION, 0, &act, d) ||
        fb_bool(opts, TFL_SVDF_OPTIONS_ASYMMETRIC_QUANTIZE_INPUTS, 0, &asym, d))
        return DIAG_USER;
    if (rank <= 0) return op_error(d, op, "rank must be positive, got %d", rank);
    /* asymmetric_quantize_inputs only affects the hybrid kernel, which check() rejects. */
    (void)asym;
    o->rank = rank;
    return op_parse_act(op, act, &o->act, d);
}

static int check(Graph *g, IrOp *op, Diag *d) {
    const SvdfOptions *o = op->options;
    if (op_expect_io(op, 5, 5, 1, d)) return DIAG_USER;
    if (op->in[4] < 0) return op_error(d, op, "the state input (4) is missing");
    const IrTensor *in = op_cin(g, op, 0), *wf = op_cin(g, op, 1), *wt = op_cin(g, op, 2), *b = op_cin(g, op, 3),
                   *st = op_cin(g, op, 4), *out = &g->tensors[op->out[0]];
    if (op_expect_dtype(g, op, 0, 0, DT(F32) | DT(I8), d) || op_expect_same_dtype(g, op, 0, d)) return DIAG_USER;
    if (in->rank != 2 || wf->rank != 2 || wt->rank != 2 || st->rank != 2)
        return op_error(d, op, "input, weights and state must have rank 2");
    int64_t batch = in->dims[0], nf = wf->dims[0], mem = wt->dims[1];
    if (wf->dims[1] != in->dims[1])
        return op_error(d, op, "weights_feature '%s' has %lld columns, the input has %lld features", wf->name,
                        (long long)wf->dims[1], (long long)in->dims[1]);
    if (wt->dims[0] != nf)
        return op_error(d, op, "weights_time '%s' has %lld rows, expected %lld filters", wt->name,
                        (long long)wt->dims[0], (long long)nf);
    if (nf % o->rank != 0)
        return op_error(d, op, "%lld filters are not a multiple of rank %d", (long long)nf, o->rank);
    int64_t units = nf / o->rank;
    if (b && (b->rank != 1 || b->dims[0] != units))
        return op_error(d, op, "bias '%s' must have shape [%lld]", b->name, (long long)units);
    if (st->dims[0] != batch || st->dims[1] != mem * nf)
        return op_error(d, op, "state '%s' must have shape [%lld, %lld]", st->name, (long long)batch,
                        (long long)(mem * nf));
    if (!st->is_variable || st->data)
        return op_error(d, op, "state '%s' must be a variable tensor", st->name);
    if (in->dtype == IR_F32) {
        if (wf->dtype != IR_F32)
            return op_error(d, op, "hybrid float input with %s weights '%s' is not supported", ir_dtype_name(wf->dtype),
                            wf->name);
        if (op_expect_dtype(g, op, 0, 2, DT(F32), d) || op_expect_dtype(g, op, 0, 3, DT(F32), d) ||
            op_expect_dtype(g, op, 0, 4, DT(F32), d))
            return DIAG_USER;
    } else {
        /* weights_time and state: both int16 (TFLite) or both int8 (TFLite Micro's 8-bit SVDF). */
        if (op_expect_dtype(g, op, 0, 1, DT(I8), d) || op_expect_dtype(g, op, 0, 2, DT(I16) | DT(I8), d) ||
            op_expect_dtype(g, op, 0, 3, DT(I32), d) || op_expect_dtype(g, op, 0, 4, DT(I16) | DT(I8), d))
            return DIAG_USER;
        if (wt->dtype != st->dtype)
            return op_error(d, op, "weights_time '%s' (%s) and state '%s' (%s) must have the same dtype", wt->name,
                            ir_dtype_name(wt->dtype), st->name, ir_dtype_name(st->dtype));
        for (int k = 0; k < 5; k++)
            if (k != 3 && op_expect_quantized(g, op, 0, k, d)) return DIAG_USER;
        if (op_expect_quantized(g, op, 1, 0, d)) return DIAG_USER;
        if (st->dtype == IR_I16) {
            if (op_zp(st) != 0) return op_error(d, op, "int16 state '%s' must have zero point 0", st->name);
            /* TFLite's integer SVDF only accepts RELU (and then applies just the int8 clamp). */
            if (o->act != ACT_RELU)
                return op_error(d, op, "int8 SVDF with int16 state supports only the RELU activation (as TFLite)");
        }
        /* The 8-bit variant is TFLite Micro's: it applies only the int8 clamp, whatever the activation. */
    }
    (void)out;
    int64_t dims[2] = {batch, units};
    return op_set_out_shape(g, op, 0, 2, dims, d);
}

static int prepare(Graph *g, IrOp *op, Diag *d) {
    const SvdfOptions *o = op->options;
    const IrTensor *in = op_cin(g, op, 0), *wf = op_cin(g, op, 1), *wt = op_cin(g, op, 2), *st = op_cin(g, op, 4),
                   *out = &g->tensors[op->out[0]];
    rt_svdf_params *p = op_new_params(g, rt_svdf_params);
    if (!p) return diag_internal(d, "out of memory");
    p->batches = (int32_t)in->dims[0];
    p->input_size = (int32_t)in->dims[1];
    p->num_filters = (int32_t)wf->dims[0];
    p->rank = o->rank;
    p->num_units = p->num_filters / o->rank;
    p->memory_size = (int32_t)wt->dims[1];
    op_act_range_f32(o->act, &p->act_min, &p->act_max);
    if (in->dtype == IR_I8) {
        /* TFLite's and TFLite Micro's Prepare multiply and divide the tensors' float scales in
         * float arithmetic and only then widen to double; doing it in double rounds differently
         * (a different multiplier, rarely a different output). The volatile stores round each
         * step to float even where the compiler would keep more precision. */
        volatile float p1 = in->q.scale[0] * wf->q.scale[0], q1 = p1 / st->q.scale[0];
        volatile float p2 = st->q.scale[0] * wt->q.scale[0], q2 = p2 / out->q.scale[0];
        double s1 = q1, s2 = q2;
        int sh1, sh2;
        if (op_checked_multiplier(op, s1, &p->mult1, &sh1, d)) return DIAG_USER;
        if (op_checked_multiplier(op, s2, &p->mult2, &sh2, d)) return DIAG_USER;
        p->shift1 = sh1;
        p->shift2 = sh2;
        p->in_zp = op_zp(in);
        p->out_zp = op_zp(out);
        p->state_zp = op_zp(st);
        op->scratch_bytes = (size_t)p->batches * (size_t)(p->num_filters + p->num_units) * sizeof(int32_t);
    } else {
        op->scratch_bytes = (size_t)p->batches * (size_t)p->num_filters * sizeof(float);
    }
    op->params = p;
    return 0;
}

static void eval(const Graph *g, const IrOp *op, const void *const *in, void *const *out, void *scratch) {
    const rt_svdf_params *p = op->params;
    /* The state is a variable tensor: the kernel updates it in place. */
    if (g->tensors[op->in[0]].dtype == IR_I8 && g->tensors[op->in[4]].dtype == IR_I8)
        rt_svdf_i8_s8(p, in[0], in[1], in[2], in[3], (int8_t *)(uintptr_t)in[4], out[0], scratch);
    else if (g->tensors[op->in[0]].dtype == IR_I8)
        rt_svdf_i8(p, in[0], in[1], in[2], in[3], (int16_t *)(uintptr_t)in[4], out[0], scratch);
    else
        rt_svdf_f32(p, in[0], in[1], in[2], in[3], (float *)(uintptr_t)in[4], out[0], scratch);
}

static int emit_c(CgCtx *cg, const Graph *g, const IrOp *op, Diag *d) {
    (void)d;
    const rt_svdf_params *p = op->params;
    int i8 = g->tensors[op->in[0]].dtype == IR_I8, s8 = i8 && g->tensors[op->in[4]].dtype == IR_I8;
    cg_open(cg, "static const rt_svdf_params p = {");
    cg_line(cg, ".batches = %d, .input_size = %d, .num_filters = %d,", p->batches, p->input_size, p->num_filters);
    cg_line(cg, ".num_units = %d, .rank = %d, .memory_size = %d,", p->num_units, p->rank, p->memory_size);
    cg_line(cg, ".act_min = %s, .act_max = %s,", cg_f32(cg, p->act_min), cg_f32(cg, p->act_max));
    cg_line(cg, ".in_zp = %d, .out_zp = %d, .state_zp = %d,", p->in_zp, p->out_zp, p->state_zp);
    cg_line(cg, ".mult1 = %d, .shift1 = %d,", p->mult1, p->shift1);
    cg_line(cg, ".mult2 = %d, .shift2 = %d", p->mult2, p->shift2);
    cg_close(cg, "};");
    cg_line(cg, "%s(&p, %s, %s, %s, %s, (%s *)%s, %s, %s);", s8 ? "rt_svdf_i8_s8" : i8 ? "rt_svdf_i8" : "rt_svdf_f32",
            cg_in(cg, op, 0), cg_in(cg, op, 1), cg_in(cg, op, 2), cg_in(cg, op, 3),
            s8 ? "int8_t" : i8 ? "int16_t" : "float", cg_in(cg, op, 4), cg_out(cg, op, 0), cg_scratch(cg, op));
    return 0;
}

static int64_t macs(const Graph *g, const IrOp *op) {
    /* From shapes (works before prepare): input [batches, input_size],
     * weights_feature [num_filters, input_size], weights_time [num_filters, memory_size]. */
    const IrTensor *in = &g->tensors[op->in[0]], *wf = &g->tensors[op->in[1]], *wt = &g->tensors[op->in[2]];
    return in->dims[0] * wf->dims[0] * (wf->dims[1] + wt->dims[1]);
}

const OpDef op_def_svdf = {"SVDF", parse, check, prepare, eval, emit_c, macs, 0};
