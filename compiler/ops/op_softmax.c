/* op_softmax.c - SOFTMAX over the last dimension: out = exp(beta*x) / sum.
 * f32; int8 -> int8 and int8 -> int16 (TFLite's reference gemmlowp
 * fixed-point algorithm, as OpResolverType.BUILTIN_REF runs it; for int8 ->
 * int8 rows whose sum of exps reaches 512, where that kernel asserts, its
 * optimized float-table kernel); int16 -> int16 (TFLite's exp and 1/(1+x)
 * lookup tables). */
#include "activation_common.h"

#include <math.h>

typedef struct SoftmaxOptions {
    float beta;
} SoftmaxOptions;

static int parse(Graph *g, IrOp *op, const FbTable *opts, Diag *d) {
    SoftmaxOptions *o = ir_alloc(g, sizeof *o);
    if (!o) return diag_internal(d, "out of memory");
    op->options = o;
    /* An absent table or field leaves beta = 0, as TFLite's parser does. */
    if (opts && fb_f32(opts, TFL_SOFTMAX_OPTIONS_BETA, 0.0f, &o->beta, d)) return DIAG_USER;
    return 0;
}

static int check(Graph *g, IrOp *op, Diag *d) {
    if (op_expect_io(op, 1, 1, 1, d) || op_expect_dtype(g, op, 0, 0, DT(F32) | DT(I8) | DT(I16), d))
        return DIAG_USER;
    const IrTensor *in = op_cin(g, op, 0), *out = &g->tensors[op->out[0]];
    if (in->dtype == IR_I8) {
        if (op_expect_dtype(g, op, 1, 0, DT(I8) | DT(I16), d)) return DIAG_USER;
    } else if (op_expect_same_dtype(g, op, 0, d)) {
        return DIAG_USER;
    }
    if (in->rank < 1) return op_error(d, op, "input '%s' must have rank >= 1", in->name);
    if (in->dtype != IR_F32) {
        if (op_expect_quantized(g, op, 0, 0, d) || op_expect_quantized(g, op, 1, 0, d)) return DIAG_USER;
        if (in->dtype == IR_I8 && out->dtype == IR_I8 &&
            (op_zp(out) != -128 || fabsf(out->q.scale[0] - 1.0f / 256) > 0.001f * 1.0f / 256))
            return op_error(d, op, "int8 output '%s' must have scale 1/256 and zero point -128 (got %g, %d)",
                            out->name, (double)out->q.scale[0], op_zp(out));
        if (in->dtype == IR_I16 && (op_zp(in) != 0 || op_zp(out) != 0 ||
                                    fabsf(out->q.scale[0] - 1.0f / 32768) > 0.001f * 1.0f / 32768))
            return op_error(d, op, "int16 softmax needs zero points 0 and output scale 1/32768 ('%s' -> '%s')",
                            in->name, out->name);
    }
    return op_set_out_shape(g, op, 0, in->rank, in->dims, d);
}

static double exp_d(double x) { return exp(x); }
static double one_over_one_plus_x_d(double x) { return 1.0 / (1.0 + x); }

static int prepare(Graph *g, IrOp *op, Diag *d) {
    const SoftmaxOptions *o = op->options;
    const IrTensor *in = op_cin(g, op, 0), *out = &g->tensors[op->out[0]];
    rt_softmax_params *p = op_new_params(g, rt_softmax_params);
    if (!p) return diag_internal(d, "out of memory");
    p->depth = (int32_t)in->dims[in->rank - 1];
    p->outer = p->depth ? (int32_t)(ir_tensor_numel(in) / p->depth) : 0;
    p->beta = o->beta;
    if (in->dtype == IR_I8) {
        /* TFLite PreprocessSoftmaxScaling with 5 integer bits (Q5.26 differences). */
        const int kScaledDiffIntegerBits = 5;
        double real = (double)o->beta * (double)in->q.scale[0] * (double)(1 << (31 - kScaledDiffIntegerBits));
        if (real > (double)((1LL << 31) - 1)) real = (double)((1LL << 31) - 1);
        int32_t mult;
        int shift;
        op_quantize_multiplier(real, &mult, &shift); /* shift may be 31 here, as in TFLite */
        if (real <= 1.0 || shift < 0)
            return op_error(d, op, "beta %g x input scale %g is too small for the int8 kernel", (double)o->beta,
                            (double)in->q.scale[0]);
        p->input_multiplier = mult;
        p->input_left_shift = shift;
        /* -CalculateInputRadius(5, shift): largest |difference| whose
         * rescaled value still fits in Q5.26. */
        double radius = 1.0 * ((1 << kScaledDiffIntegerBits) - 1) *
                        (double)(1LL << (31 - kScaledDiffIntegerBits)) / (double)(1LL << shift);
        p->diff_min = (int32_t)(-1.0 * (double)(int32_t)floor(radius));
        int32_t *exp_q0 = ir_alloc(g, 256 * sizeof(int32_t)); /* made once here, not on every run */
        if (!exp_q0) return diag_internal(d, "out of memory");
        rt_softmax_exp_table_q0(p, exp_q0);
        p->exp_q0 = exp_q0;
        if (out->dtype == IR_I8 && p->depth >= 512) {
            /* A row's sum of exps can reach 512: TFLite's optimized kernel's
             * float table for those rows (see rt_softmax.c), computed as
             * PopulateSoftmaxLookupTable does, in float. */
            float *table = ir_alloc(g, 256 * sizeof(float));
            if (!table) return diag_internal(d, "out of memory");
            const float scale = -in->q.scale[0] * o->beta;
            for (int v = 0; v < 256; v++) table[v] = expf(scale * (float)v);
            p->exp_table = table;
            p->out_scale = out->q.scale[0];
        }
    } else if (in->dtype == IR_I16) {
        int16_t *exp_lut = ir_alloc(g, 513 * sizeof(int16_t)), *recip_lut = ir_alloc(g, 513 * sizeof(int16_t));
        if (!exp_lut || !recip_lut) return diag_internal(d, "out of memory");
        const double range = 65535.0;
        /* exp on [-10, 0] and 1/(1+x) on [0, 1], both into [-1, 1]. */
        act_lut_i16_double(10.0 / range, 32767, 2.0 / range, 0, exp_d, exp_lut);
        act_lut_i16_double(1.0 / range, -32768, 2.0 / range, 0, one_over_one_plus_x_d, recip_lut);
        p->exp_lut = exp_lut;
        p->recip_lut = recip_lut;
        /* scale*beta is a float product in TFLite; [-65535, 0] <-> [-10, 0] */
        float scale_beta = in->q.scale[0] * o->beta;
        double real = (double)scale_beta / (10.0 / 65535.0);
        int shift;
        op_quantize_multiplier(real, &p->input_multiplier, &shift);
        if (shift > 31 || shift < 0)
            return op_error(d, op, "input scale x beta %g is out of range for the int16 kernel", real);
        p->input_left_shift = shift;
    }
    op->params = p;
    return 0;
}

static const char *kernel_name(const Graph *g, const IrOp *op) {
    IrDType it = g->tensors[op->in[0]].dtype, ot = g->tensors[op->out[0]].dtype;
    if (it == IR_I8) return ot == IR_I16 ? "rt_softmax_i8_i16" : "rt_softmax_i8";
    if (it == IR_I16) return "rt_softmax_i16";
    return "rt_softmax_f32";
}

static void eval(const Graph *g, const IrOp *op, const void *const *in, void *const *out, void *scratch) {
    (void)scratch;
    const rt_softmax_params *p = op->params;
    IrDType it = g->tensors[op->in[0]].dtype, ot = g->tensors[op->out[0]].dtype;
    if (it == IR_I8 && ot == IR_I16) rt_softmax_i8_i16(p, in[0], out[0]);
    else if (it == IR_I8) rt_softmax_i8(p, in[0], out[0]);
    else if (it == IR_I16) rt_softmax_i16(p, in[0], out[0]);
    else rt_softmax_f32(p, in[0], out[0]);
}

/* Also the scheduled int8 kernel's (rt_opt_softmax_i8, emit_sched_c.c): the same params. */
void softmax_emit_params(CgCtx *cg, const IrOp *op) {
    const rt_softmax_params *p = op->params;
    if (p->exp_lut) {
        cg_array_i16(cg, "exp_lut", p->exp_lut, 513);
        cg_array_i16(cg, "recip_lut", p->recip_lut, 513);
    }
    if (p->exp_table) cg_array_f32(cg, "exp_table", p->exp_table, 256);
    if (p->exp_q0) cg_array_i32(cg, "exp_q0", p->exp_q0, 256);
    cg_open(cg, "static const rt_softmax_params p = {");
    cg_line(cg, ".outer = %d, .depth = %d,", p->outer, p->depth);
    cg_line(cg, ".beta = %s,", cg_f32(cg, p->beta));
    cg_line(cg, ".input_multiplier = %d, .input_left_shift = %d, .diff_min = %d,", p->input_multiplier,
            p->input_left_shift, p->diff_min);
    cg_line(cg, ".exp_lut = %s, .recip_lut = %s,", p->exp_lut ? "exp_lut" : "NULL",
            p->recip_lut ? "recip_lut" : "NULL");
    cg_line(cg, ".exp_table = %s, .out_scale = %s,", p->exp_table ? "exp_table" : "NULL", cg_f32(cg, p->out_scale));
    cg_line(cg, ".exp_q0 = %s", p->exp_q0 ? "exp_q0" : "NULL");
    cg_close(cg, "};");
}

static int emit_c(CgCtx *cg, const Graph *g, const IrOp *op, Diag *d) {
    (void)d;
    softmax_emit_params(cg, op);
    cg_line(cg, "%s(&p, %s, %s);", kernel_name(g, op), cg_in(cg, op, 0), cg_out(cg, op, 0));
    return 0;
}

static int64_t macs(const Graph *g, const IrOp *op) { return act_numel(g, op); }

const OpDef op_def_softmax = {"SOFTMAX", parse, check, prepare, eval, emit_c, macs, 0};
