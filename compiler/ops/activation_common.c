/* activation_common.c - see activation_common.h. */
#include "activation_common.h"

#include <math.h>

#include "kernels/rt_activation_common.h"

int act_check_unary(Graph *g, IrOp *op, unsigned mask, Diag *d) {
    if (op_expect_io(op, 1, 1, 1, d) || op_expect_dtype(g, op, 0, 0, mask, d) || op_expect_same_dtype(g, op, 0, d))
        return DIAG_USER;
    const IrTensor *in = op_cin(g, op, 0);
    if (in->dtype != IR_F32 && (op_expect_quantized(g, op, 0, 0, d) || op_expect_quantized(g, op, 1, 0, d)))
        return DIAG_USER;
    return op_set_out_shape(g, op, 0, in->rank, in->dims, d);
}

void act_lut_i8(float in_scale, int32_t in_zp, float out_scale, int32_t out_zp, float (*f)(float), int8_t *lut) {
    const float inverse_scale = 1 / out_scale;
    for (int32_t v = -128; v <= 127; v++) {
        const float dequantized = in_scale * (float)(v - in_zp);
        const float transformed = f(dequantized);
        const float rescaled = roundf(transformed * inverse_scale);
        const float shifted = rescaled + (float)out_zp;
        int32_t q = shifted >= 127.0f ? 127 : shifted <= -128.0f ? -128 : (int32_t)shifted;
        if (shifted != shifted) q = 0; /* NaN: undefined in TFLite; pick something stable */
        lut[(uint8_t)(int8_t)v] = (int8_t)q;
    }
}

/* The table: 512 samples of f over the int16 input range, each nudged by
 * half the interpolation error at the midpoint, plus the end point. F(x)
 * calls the transform. A NaN entry (f overflowing to infinity on both sides
 * of a sample: inf - inf) becomes 0, as TFLite's float-to-int16 cast gives
 * on x86 (cvttss2si's 0x80000000, low 16 bits). */
#define LUT_I16_ENTRY(r) \
    ((r) != (r) ? (int16_t)0 : (int16_t)((r) < table_min ? table_min : (r) > table_max ? table_max : (r)))
#define LUT_I16_BODY(T, ROUND, F)                                                                            \
    const T input_min = in_scale * (T)(-32768 - in_zp);                                                     \
    const T input_max = in_scale * (T)(32767 - in_zp);                                                      \
    const T output_min = out_scale * (T)(-32768 - out_zp);                                                  \
    const T output_max = out_scale * (T)(32767 - out_zp);                                                   \
    const int nb_steps = 512;                                                                               \
    const T step = (input_max - input_min) / (T)nb_steps;                                                   \
    const T half_step = step / (T)2;                                                                        \
    const T output_scaling_inv = (T)65536 / (output_max - output_min);                                      \
    const T table_min = (T)-32768, table_max = (T)32767;                                                    \
    for (int i = 0; i < nb_steps; i++) {                                                                    \
        const T val = F(input_min + (T)i * step);                                                           \
        const T val_midpoint = F(input_min + (T)i * step + half_step);                                      \
        const T val_next = F(input_min + (T)(i + 1) * step);                                                \
        const T sample_val = ROUND(val * output_scaling_inv);                                               \
        const T midpoint_interp_val = ROUND((val_next * output_scaling_inv + ROUND(val * output_scaling_inv)) / \
                                            (T)2);                                                          \
        const T midpoint_val = ROUND(val_midpoint * output_scaling_inv);                                    \
        const T midpoint_err = midpoint_interp_val - midpoint_val;                                          \
        const T bias = ROUND(midpoint_err / (T)2);                                                          \
        const T r = sample_val - bias;                                                                      \
        lut[i] = LUT_I16_ENTRY(r);                                                                       \
    }                                                                                                       \
    {                                                                                                       \
        const T r = ROUND(F(input_max) * output_scaling_inv);                                               \
        lut[nb_steps] = LUT_I16_ENTRY(r);                                                                \
    }

#define LUT_I16_CALL(x) f(x)
#define LUT_I16_CALL_ARG(x) f(x, arg)

void act_lut_i16_double(double in_scale, int32_t in_zp, double out_scale, int32_t out_zp, double (*f)(double),
                        int16_t *lut) {
    LUT_I16_BODY(double, round, LUT_I16_CALL)
}

void act_lut_i16_float(float in_scale, int32_t in_zp, float out_scale, int32_t out_zp, float (*f)(float),
                       int16_t *lut) {
    LUT_I16_BODY(float, roundf, LUT_I16_CALL)
}

void act_lut_i16_float_arg(float in_scale, int32_t in_zp, float out_scale, int32_t out_zp,
                           float (*f)(float, const void *), const void *arg, int16_t *lut) {
    LUT_I16_BODY(float, roundf, LUT_I16_CALL_ARG)
}

rt_act_params *act_new_params(Graph *g, const IrOp *op) {
    rt_act_params *p = op_new_params(g, rt_act_params);
    if (p) p->n = ir_tensor_numel(op_cin(g, op, 0));
    return p;
}

/* log2(x) when x is (within 1e-3 in the exponent) a power of two, in float
 * arithmetic as TFLite's CheckedLog2. */
static int checked_log2(float x, int *out) {
    const float l = logf(x) * (1.0f / logf(2.0f));
    const float r = roundf(l);
    *out = (int)r;
    return fabsf(l - r) < 1e-3f;
}

int act_sigmoid16_check(const IrOp *op, const IrTensor *in, const IrTensor *out, Diag *d) {
    int log2_out;
    if (op_zp(in) != 0 || op_zp(out) != 0)
        return op_error(d, op, "int16 input '%s' and output '%s' must have zero point 0", in->name, out->name);
    if (!checked_log2(out->q.scale[0], &log2_out) || log2_out != -15)
        return op_error(d, op, "int16 output '%s' must have scale 1/32768, got %g", out->name, (double)out->q.scale[0]);
    return 0;
}

int act_sigmoid16_prepare(Graph *g, IrOp *op, int tanh_op, rt_act_params *p, Diag *d) {
    const IrTensor *in = op_cin(g, op, 0);
    int32_t *table = ir_alloc(g, sizeof(int32_t) * 256);
    if (!table) return diag_internal(d, "out of memory");
    /* The interpolation table of both kernels: sigmoid(i/24) in Q0.16, each sample moved by
     * half the linear interpolation's error at the middle of its interval (so the error is
     * spread evenly), the last entry saturated. Checked on all 65536 inputs against TFLite
     * (tests/test_int16_activations.py). */
    const double h = 1.0 / 24.0;
    for (int i = 0; i < 255; i++) {
        double v = 65536.0 / (1.0 + exp(-i * h)), next = 65536.0 / (1.0 + exp(-(i + 1) * h));
        double mid = 65536.0 / (1.0 + exp(-(i + 0.5) * h));
        double err = (v + next) / 2.0 - mid;
        table[i] = (int32_t)round(v - err / 2.0);
    }
    table[255] = 65535;
    p->sigmoid_q16 = table;
    /* The input rescaling: a power-of-two scale (3 integer bits) runs unscaled (TANH also one
     * bit finer); any other scale gets a multiplier to 1/(3*4096), with its left shift, both as
     * TFLite's Prepare computes them. */
    int log2_in;
    int pot = checked_log2(in->q.scale[0], &log2_in);
    int shift = 12 + log2_in;
    pot = pot && (shift == 0 || (tanh_op && shift == 1));
    if (pot) {
        p->mult_a = 0;
        p->shift_a = shift;
        return 0;
    }
    double multiplier = (double)in->q.scale[0] * 4096.0 * 3.0;
    shift = 0;
    while (multiplier <= 32767.0 / 2.0 && shift <= 30) {
        shift++;
        multiplier *= 2.0;
    }
    if (!(multiplier < 2147483648.0))
        return op_error(d, op, "int16 input scale %g is too large", (double)in->q.scale[0]);
    p->mult_a = (int32_t)multiplier;
    p->shift_a = shift;
    return 0;
}

int act_lut_prepare(Graph *g, IrOp *op, float (*f)(float), Diag *d) {
    const IrTensor *in = op_cin(g, op, 0), *out = &g->tensors[op->out[0]];
    rt_act_params *p = act_new_params(g, op);
    if (!p) return diag_internal(d, "out of memory");
    if (in->dtype == IR_I8) {
        int8_t *lut = ir_alloc(g, 256);
        if (!lut) return diag_internal(d, "out of memory");
        act_lut_i8(in->q.scale[0], op_zp(in), out->q.scale[0], op_zp(out), f, lut);
        p->lut_i8 = lut;
    }
    op->params = p;
    return 0;
}

int64_t act_numel(const Graph *g, const IrOp *op) { return ir_tensor_numel(op_cin(g, op, 0)); }

int act_emit_unary(CgCtx *cg, const IrOp *op, const rt_act_params *p, const char *kernel) {
    if (p->lut_i8) cg_array_i8(cg, "lut", p->lut_i8, 256);
    if (p->lut_i16) cg_array_i16(cg, "lut16", p->lut_i16, 513);
    if (p->sigmoid_q16) cg_array_i32(cg, "sigmoid_q16", p->sigmoid_q16, 256);
    cg_open(cg, "static const rt_act_params p = {");
    cg_line(cg, ".n = %lld,", (long long)p->n);
    cg_line(cg, ".alpha = %s, .f_min = %s, .f_max = %s,", cg_f32(cg, p->alpha), cg_f32(cg, p->f_min),
            cg_f32(cg, p->f_max));
    cg_line(cg, ".in_zp = %d, .out_zp = %d,", p->in_zp, p->out_zp);
    cg_line(cg, ".mult_a = %d, .shift_a = %d,", p->mult_a, p->shift_a);
    cg_line(cg, ".mult_b = %d, .shift_b = %d, .neg_b = %d,", p->mult_b, p->shift_b, p->neg_b);
    cg_line(cg, ".q_min = %d, .q_max = %d,", p->q_min, p->q_max);
    cg_line(cg, ".approximate = %d,", p->approximate);
    cg_line(cg, ".lut_i8 = %s, .lut_i16 = %s,", p->lut_i8 ? "lut" : "NULL", p->lut_i16 ? "lut16" : "NULL");
    cg_line(cg, ".sigmoid_q16 = %s", p->sigmoid_q16 ? "sigmoid_q16" : "NULL");
    cg_close(cg, "};");
    cg_line(cg, "%s(&p, %s, %s);", kernel, cg_in(cg, op, 0), cg_out(cg, op, 0));
    return 0;
}

int act_relu_prepare(Graph *g, IrOp *op, float lo, float hi, Diag *d) {
    const IrTensor *in = op_cin(g, op, 0), *out = &g->tensors[op->out[0]];
    rt_act_params *p = act_new_params(g, op);
    if (!p) return diag_internal(d, "out of memory");
    p->f_min = lo;
    p->f_max = hi;
    if (in->dtype != IR_F32) {
        int32_t tmin, tmax, zp = op_zp(out);
        float scale = out->q.scale[0];
        int shift;
        if (in->dtype == IR_I16 && (op_zp(in) != 0 || zp != 0))
            return op_error(d, op, "int16 input '%s' and output '%s' must have zero point 0", in->name, out->name);
        if (op_checked_multiplier(op, (double)(in->q.scale[0] / out->q.scale[0]), &p->mult_a, &shift, d)) return DIAG_USER;
        p->shift_a = shift;
        p->in_zp = op_zp(in);
        p->out_zp = zp;
        op_dtype_range(out->dtype, &tmin, &tmax);
        p->q_min = op_quant_bound(lo, scale, zp, tmin, tmax, tmin);
        p->q_max = isinf(hi) ? tmax : op_quant_bound(hi, scale, zp, tmin, tmax, tmax);
        if (in->dtype == IR_I8) { /* the 256 results of TFLite's ReluX, exact: the optimized build looks them up */
            int8_t *lut = ir_alloc(g, 256);
            if (!lut) return diag_internal(d, "out of memory");
            for (int32_t v = -128; v <= 127; v++) lut[(uint8_t)(int8_t)v] = (int8_t)rt_act_relux_q(p, v);
            p->lut_i8 = lut;
        }
    }
    op->params = p;
    return 0;
}

const char *act_suffix(const Graph *g, const IrOp *op) {
    switch (g->tensors[op->in[0]].dtype) {
    case IR_I8: return "i8";
    case IR_I16: return "i16";
    default: return "f32";
    }
}
