/* elementwise_common.c - helpers shared by the elementwise op files. */
#include "elementwise_common.h"

#include "activation_common.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

int ew_parse_options(Graph *g, IrOp *op, const FbTable *opts, int act_field, int pot_field, Diag *d) {
    EwOptions *o = ir_alloc(g, sizeof *o);
    int8_t act = 0;
    int pot = 1; /* schema default: true */
    if (!o) return diag_internal(d, "out of memory");
    op->options = o;
    o->pot_scale_int16 = 1;
    if (!opts) return 0;
    if (fb_i8(opts, act_field, 0, &act, d)) return DIAG_USER;
    if (pot_field >= 0 && fb_bool(opts, pot_field, 1, &pot, d)) return DIAG_USER;
    o->pot_scale_int16 = pot;
    return op_parse_act(op, act, &o->act, d);
}

static int is_quant_dtype(IrDType t) { return t == IR_I8 || t == IR_U8 || t == IR_I16; }

int ew_binary_check(Graph *g, IrOp *op, unsigned mask, int quantized, Diag *d) {
    if (op_expect_io(op, 2, 2, 1, d) || op_expect_dtype(g, op, 0, 0, mask, d) ||
        op_expect_same_dtype(g, op, 0, d) || op_expect_same_dtype(g, op, 1, d))
        return DIAG_USER;
    const IrTensor *a = op_cin(g, op, 0), *b = op_cin(g, op, 1);
    if (quantized && is_quant_dtype(a->dtype)) {
        for (int k = 0; k < 3; k++) {
            const IrTensor *t = k < 2 ? op_cin(g, op, k) : &g->tensors[op->out[0]];
            if (t->q.count < 1)
                return op_error(d, op, "%s tensor '%s' (%s) has no quantization parameters",
                                k < 2 ? "input" : "output", t->name, ir_dtype_name(t->dtype));
            if (t->q.count > 1)
                return op_error(d, op, "%s tensor '%s' is quantized per channel; only per-tensor is supported",
                                k < 2 ? "input" : "output", t->name);
            if (!(t->q.scale[0] > 0.0f) || !isfinite(t->q.scale[0]))
                return op_error(d, op, "tensor '%s' has invalid scale %g", t->name, (double)t->q.scale[0]);
        }
    }
    int rank;
    int64_t dims[IR_MAX_RANK];
    if (op_broadcast(op, a, b, &rank, dims, d)) return DIAG_USER;
    return op_set_out_shape(g, op, 0, rank, dims, d);
}

void ew_bcast_init(rt_bcast *bc, const Graph *g, const IrOp *op) {
    const IrTensor *a = &g->tensors[op->in[0]], *b = &g->tensors[op->in[1]], *o = &g->tensors[op->out[0]];
    memset(bc, 0, sizeof *bc);
    bc->rank = o->rank;
    for (int i = 0; i < o->rank; i++) bc->dims[i] = (int32_t)o->dims[i];
    /* Row-major strides of each input, right-aligned with the output; 0 where
     * the input has extent 1 (or lacks the dimension) and so broadcasts. */
    int64_t sa = 1, sb = 1;
    for (int i = o->rank - 1; i >= 0; i--) {
        int ia = i - (o->rank - a->rank), ib = i - (o->rank - b->rank);
        int64_t da = ia >= 0 ? a->dims[ia] : 1, db = ib >= 0 ? b->dims[ib] : 1;
        bc->stride1[i] = da == 1 ? 0 : (int32_t)sa;
        bc->stride2[i] = db == 1 ? 0 : (int32_t)sb;
        sa *= da;
        sb *= db;
    }
}

rt_binary_params *ew_binary_params(Graph *g, const IrOp *op, int act, Diag *d) {
    rt_binary_params *p = op_new_params(g, rt_binary_params);
    const IrTensor *out = &g->tensors[op->out[0]];
    if (!p) {
        diag_internal(d, "out of memory");
        return NULL;
    }
    ew_bcast_init(&p->bc, g, op);
    op_act_range_f32(act, &p->act_min, &p->act_max);
    if (out->q.count > 0 && is_quant_dtype(out->dtype)) {
        op_act_range_q(act, out, &p->act_qmin, &p->act_qmax);
        p->out_offset = op_zp(out);
    } else {
        /* Plain integers: TFLite's CalculateActivationRange<int32>. */
        p->act_qmin = INT32_MIN;
        p->act_qmax = INT32_MAX;
        if (act == ACT_RELU || act == ACT_RELU6) p->act_qmin = 0;
        if (act == ACT_RELU6) p->act_qmax = 6;
        if (act == ACT_RELU_N1_TO_1) p->act_qmin = -1, p->act_qmax = 1;
    }
    return p;
}

int ew_binary_prepare(Graph *g, IrOp *op, Diag *d) {
    op->params = ew_binary_params(g, op, ACT_NONE, d);
    return op->params ? 0 : DIAG_INTERNAL;
}

static int same_shape(const IrTensor *a, const IrTensor *b) {
    if (a->rank != b->rank) return 0;
    for (int i = 0; i < a->rank; i++)
        if (a->dims[i] != b->dims[i]) return 0;
    return 1;
}

int ew_prepare_addsub(Graph *g, IrOp *op, int is_sub, Diag *d) {
    const EwOptions *o = op->options;
    const IrTensor *a = op_cin(g, op, 0), *b = op_cin(g, op, 1), *out = &g->tensors[op->out[0]];
    rt_binary_params *p = ew_binary_params(g, op, o->act, d);
    if (!p) return DIAG_INTERNAL;
    op->params = p;
    if (out->dtype != IR_I8 && out->dtype != IR_U8 && out->dtype != IR_I16) return 0;
    float s1 = a->q.scale[0], s2 = b->q.scale[0], so = out->q.scale[0];
    if (out->dtype == IR_I16) {
        if (op_zp(a) || op_zp(b) || op_zp(out))
            return op_error(d, op, "int16 tensors must have zero point 0 (got %d, %d, %d)", (int)op_zp(a),
                            (int)op_zp(b), (int)op_zp(out));
        int l1, l2, lo;
        int pot1 = ew_checked_log2(s1, &l1), pot2 = ew_checked_log2(s2, &l2), poto = ew_checked_log2(so, &lo);
        if (o->pot_scale_int16 && pot1 && pot2 && poto) {
            p->pot = 1;
            p->in1_shift = l1 - lo;
            p->in2_shift = l2 - lo;
            if ((p->in1_shift != 0 && p->in2_shift != 0) || p->in1_shift > 0 || p->in2_shift > 0)
                return op_error(d, op,
                                "int16 power-of-two scales: one input must have the output's scale and the "
                                "other a smaller one (input shifts %d, %d)",
                                (int)p->in1_shift, (int)p->in2_shift);
            if (!is_sub && !same_shape(a, b))
                return op_error(d, op, "int16 ADD with power-of-two scales does not support broadcasting "
                                       "(TFLite has no such kernel)");
            return 0;
        }
    }
    p->in1_offset = -op_zp(a);
    p->in2_offset = -op_zp(b);
    p->left_shift = out->dtype == IR_I16 ? 15 : 20;
    /* Same float/double evaluation order as TFLite. */
    const float smax = s1 > s2 ? s1 : s2;
    const double twice_max = (double)(2.0f * smax);
    const double real1 = (double)s1 / twice_max, real2 = (double)s2 / twice_max;
    const double real_out = twice_max / (double)((float)(1 << p->left_shift) * so);
    if (ew_quantize_multiplier_lt1(op, real1, &p->in1_mult, &p->in1_shift, "input 0", d) ||
        ew_quantize_multiplier_lt1(op, real2, &p->in2_mult, &p->in2_shift, "input 1", d) ||
        ew_quantize_multiplier_lt1(op, real_out, &p->out_mult, &p->out_shift, "output", d))
        return DIAG_USER;
    return 0;
}

static void emit_bcast(CgCtx *cg, const rt_bcast *b) {
    char buf[3][256];
    const int32_t *arr[3] = {b->dims, b->stride1, b->stride2};
    for (int k = 0; k < 3; k++) {
        size_t len = 0;
        buf[k][0] = '\0';
        for (int i = 0; i < RT_MAX_RANK; i++)
            len += (size_t)snprintf(buf[k] + len, sizeof buf[k] - len, "%s%ld", i ? ", " : "", (long)arr[k][i]);
    }
    cg_open(cg, ".bc = {");
    cg_line(cg, ".rank = %d, .dims = {%s},", b->rank, buf[0]);
    cg_line(cg, ".stride1 = {%s},", buf[1]);
    cg_line(cg, ".stride2 = {%s}", buf[2]);
    cg_close(cg, "},");
}

static const char *i32_lit(char *buf, size_t n, int32_t v) {
    /* INT32_MIN has no literal form in C; spell it as an expression. */
    if (v == INT32_MIN) snprintf(buf, n, "(-2147483647 - 1)");
    else snprintf(buf, n, "%ld", (long)v);
    return buf;
}

int ew_emit_binary(CgCtx *cg, const IrOp *op, const rt_binary_params *p, const char *kernel) {
    ew_emit_binary_struct(cg, p, "p");
    cg_line(cg, "%s(&p, %s, %s, %s);", kernel, cg_in(cg, op, 0), cg_in(cg, op, 1), cg_out(cg, op, 0));
    return 0;
}

void ew_emit_binary_struct(CgCtx *cg, const rt_binary_params *p, const char *name) {
    char lo[32], hi[32];
    cg_open(cg, "static const rt_binary_params %s = {", name);
    emit_bcast(cg, &p->bc);
    cg_line(cg, ".act_min = %s, .act_max = %s,", cg_f32(cg, p->act_min), cg_f32(cg, p->act_max));
    cg_line(cg, ".act_qmin = %s, .act_qmax = %s,", i32_lit(lo, sizeof lo, p->act_qmin),
            i32_lit(hi, sizeof hi, p->act_qmax));
    cg_line(cg, ".in1_offset = %ld, .in2_offset = %ld, .out_offset = %ld,", (long)p->in1_offset,
            (long)p->in2_offset, (long)p->out_offset);
    cg_line(cg, ".left_shift = %ld,", (long)p->left_shift);
    cg_line(cg, ".in1_mult = %ld, .in1_shift = %ld, .in2_mult = %ld, .in2_shift = %ld,", (long)p->in1_mult,
            (long)p->in1_shift, (long)p->in2_mult, (long)p->in2_shift);
    cg_line(cg, ".out_mult = %ld, .out_shift = %ld,", (long)p->out_mult, (long)p->out_shift);
    cg_line(cg, ".pot = %ld%s", (long)p->pot, p->fq_mode ? "," : "");
    if (p->fq_mode)
        cg_line(cg, ".fq_a = %s, .fq_b = %s, .fq_c = %s, .fq_mode = %ld", cg_f32(cg, p->fq_a), cg_f32(cg, p->fq_b),
                cg_f32(cg, p->fq_c), (long)p->fq_mode);
    cg_close(cg, "};");
}

int ew_emit_unary(CgCtx *cg, const IrOp *op, const rt_unary_params *p, const char *kernel) {
    char lo[32], hi[32];
    if (p->lut) cg_array_i8(cg, "lut", p->lut, 256);
    if (p->lut16) cg_array_i16(cg, "lut16", p->lut16, 513);
    cg_open(cg, "static const rt_unary_params p = {");
    cg_line(cg, ".n = %lld,", (long long)p->n);
    cg_line(cg, ".in_offset = %ld, .out_offset = %ld,", (long)p->in_offset, (long)p->out_offset);
    cg_line(cg, ".mult = %ld, .shift = %ld, .rescale = %ld,", (long)p->mult, (long)p->shift, (long)p->rescale);
    cg_line(cg, ".act_qmin = %s, .act_qmax = %s,", i32_lit(lo, sizeof lo, p->act_qmin),
            i32_lit(hi, sizeof hi, p->act_qmax));
    cg_line(cg, ".in_scale = %s, .out_scale = %s,", cg_f32(cg, p->in_scale), cg_f32(cg, p->out_scale));
    cg_line(cg, ".lut = %s, .lut16 = %s", p->lut ? "lut" : "NULL", p->lut16 ? "lut16" : "NULL");
    cg_close(cg, "};");
    cg_line(cg, "%s(&p, %s, %s);", kernel, cg_in(cg, op, 0), cg_out(cg, op, 0));
    return 0;
}

int ew_unary_check(Graph *g, IrOp *op, unsigned mask, unsigned quant_mask, Diag *d) {
    if (op_expect_io(op, 1, 1, 1, d) || op_expect_dtype(g, op, 0, 0, mask, d) || op_expect_same_dtype(g, op, 0, d))
        return DIAG_USER;
    const IrTensor *in = op_cin(g, op, 0);
    if (quant_mask & (1u << in->dtype)) {
        for (int k = 0; k < 2; k++) {
            const IrTensor *t = k == 0 ? in : &g->tensors[op->out[0]];
            if (t->q.count < 1)
                return op_error(d, op, "%s tensor '%s' (%s) has no quantization parameters",
                                k == 0 ? "input" : "output", t->name, ir_dtype_name(t->dtype));
            if (t->q.count > 1)
                return op_error(d, op, "%s tensor '%s' is quantized per channel; only per-tensor is supported",
                                k == 0 ? "input" : "output", t->name);
            if (!(t->q.scale[0] > 0.0f) || !isfinite(t->q.scale[0]))
                return op_error(d, op, "tensor '%s' has invalid scale %g", t->name, (double)t->q.scale[0]);
        }
    }
    return op_set_out_shape(g, op, 0, in->rank, in->dims, d);
}

int ew_unary_i16_zero_points(const Graph *g, const IrOp *op, Diag *d) {
    if (g->tensors[op->in[0]].dtype != IR_I16) return 0;
    for (int k = 0; k < 2; k++) {
        const IrTensor *t = k == 0 ? &g->tensors[op->in[0]] : &g->tensors[op->out[0]];
        if (op_zp(t) != 0)
            return op_error(d, op, "int16 %s '%s' must have zero point 0, got %d", k == 0 ? "input" : "output",
                            t->name, (int)op_zp(t));
    }
    return 0;
}

rt_unary_params *ew_unary_params(Graph *g, const IrOp *op, Diag *d) {
    const IrTensor *in = &g->tensors[op->in[0]], *out = &g->tensors[op->out[0]];
    rt_unary_params *p = op_new_params(g, rt_unary_params);
    if (!p) {
        diag_internal(d, "out of memory");
        return NULL;
    }
    p->n = ir_tensor_numel(out);
    op_dtype_range(out->dtype, &p->act_qmin, &p->act_qmax);
    if (in->q.count > 0 && out->q.count > 0) {
        p->in_offset = -op_zp(in);
        p->out_offset = op_zp(out);
        p->in_scale = in->q.scale[0];
        p->out_scale = out->q.scale[0];
    }
    return p;
}

int8_t *ew_lut_i8(Graph *g, const rt_unary_params *p, float (*fn)(float, const void *), const void *arg) {
    int8_t *lut = ir_alloc(g, 256);
    if (!lut) return NULL;
    const float inverse_scale = 1 / p->out_scale;
    for (int32_t v = -128; v <= 127; v++) {
        /* TFLite LUTPopulateInt8: float math throughout. */
        const float dequantized = p->in_scale * (float)(v + p->in_offset);
        const float transformed = fn(dequantized, arg);
        const float rescaled = roundf(transformed * inverse_scale);
        float qf = rescaled + (float)p->out_offset;
        int32_t q = qf != qf ? INT32_MIN : (qf >= 2147483648.0f ? INT32_MAX : (qf < -2147483648.0f ? INT32_MIN : (int32_t)qf));
        lut[v + 128] = (int8_t)(q < -128 ? -128 : (q > 127 ? 127 : q));
    }
    return lut;
}

int16_t *ew_lut_i16(Graph *g, const rt_unary_params *p, float (*fn)(float, const void *), const void *arg) {
    int16_t *lut = ir_alloc(g, 513 * sizeof(int16_t));
    if (lut) act_lut_i16_float_arg(p->in_scale, -p->in_offset, p->out_scale, p->out_offset, fn, arg, lut);
    return lut;
}

rt_quant_params *ew_quant_params(Graph *g, const IrOp *op, const IrTensor *t, Diag *d) {
    const IrTensor *in = &g->tensors[op->in[0]], *out = &g->tensors[op->out[0]];
    rt_quant_params *p = op_new_params(g, rt_quant_params);
    if (!p) {
        diag_internal(d, "out of memory");
        return NULL;
    }
    p->n = ir_tensor_numel(out);
    p->in_type = op_rt_dtype(in->dtype);
    p->out_type = op_rt_dtype(out->dtype);
    if (t && t->q.count > 0) {
        p->scale = t->q.scale[0];
        p->zero_point = (int32_t)t->q.zero_point[0];
    }
    if (t && t->q.count > 1) {
        int64_t inner = 1;
        for (int i = t->q.dim + 1; i < t->rank; i++) inner *= t->dims[i];
        float *sc = ir_alloc(g, sizeof(float) * (size_t)t->q.count);
        int32_t *zp = ir_alloc(g, sizeof(int32_t) * (size_t)t->q.count);
        if (!sc || !zp) {
            diag_internal(d, "out of memory");
            return NULL;
        }
        for (int c = 0; c < t->q.count; c++) {
            sc[c] = t->q.scale[c];
            zp[c] = (int32_t)t->q.zero_point[c];
        }
        p->channels = t->q.count;
        p->inner = (int32_t)inner;
        p->scales = sc;
        p->zero_points = zp;
    }
    return p;
}

int ew_emit_quant(CgCtx *cg, const IrOp *op, const rt_quant_params *p, const char *kernel) {
    if (p->channels > 0) {
        cg_array_f32(cg, "scales", p->scales, p->channels);
        cg_array_i32(cg, "zero_points", p->zero_points, p->channels);
    }
    cg_open(cg, "static const rt_quant_params p = {");
    cg_line(cg, ".n = %lld,", (long long)p->n);
    cg_line(cg, ".in_type = %ld, .out_type = %ld,", (long)p->in_type, (long)p->out_type);
    cg_line(cg, ".scale = %s, .zero_point = %ld,", cg_f32(cg, p->scale), (long)p->zero_point);
    cg_line(cg, ".channels = %ld, .inner = %ld,", (long)p->channels, (long)p->inner);
    cg_line(cg, ".scales = %s, .zero_points = %s,", p->channels > 0 ? "scales" : "NULL",
            p->channels > 0 ? "zero_points" : "NULL");
    cg_line(cg, ".in_zp = %ld, .out_zp = %ld, .mult = %ld, .shift = %ld%s", (long)p->in_zp, (long)p->out_zp,
            (long)p->mult, (long)p->shift, p->inv_scale != 0.0f ? "," : "");
    if (p->inv_scale != 0.0f)
        cg_line(cg, ".inv_scale = %s /* float quantization (mpcc --precision int8) */", cg_f32(cg, p->inv_scale));
    cg_close(cg, "};");
    cg_line(cg, "%s(&p, %s, %s);", kernel, cg_in(cg, op, 0), cg_out(cg, op, 0));
    return 0;
}

int ew_check_const_divisor(const Graph *g, const IrOp *op, Diag *d) {
    const IrTensor *b = op_cin(g, op, 1);
    if (!b || !b->data) return 0;
    int64_t n = ir_tensor_numel(b);
    size_t size = ir_dtype_size(b->dtype);
    for (int64_t i = 0; i < n; i++) {
        const uint8_t *v = b->data + (size_t)i * size;
        int zero = 0;
        switch (b->dtype) {
        case IR_F32: { float f; memcpy(&f, v, 4); zero = f == 0.0f; break; }
        case IR_I32: { int32_t x; memcpy(&x, v, 4); zero = x == 0; break; }
        case IR_I64: { int64_t x; memcpy(&x, v, 8); zero = x == 0; break; }
        default: break;
        }
        if (zero)
            return op_error(d, op, "divisor tensor '%s' is a constant holding 0 at element %lld (TFLite fails with "
                            "'Division by 0')", b->name, (long long)i);
    }
    return 0;
}

int64_t ew_out_numel(const Graph *g, const IrOp *op) { return ir_tensor_numel(&g->tensors[op->out[0]]); }

int ew_quantize_multiplier_lt1(const IrOp *op, double real, int32_t *mult, int32_t *shift, const char *what,
                               Diag *d) {
    int sh = 0;
    if (op_checked_multiplier(op, real, mult, &sh, d)) return DIAG_USER;
    if (sh > 0)
        return op_error(d, op, "%s rescale factor %g is >= 1, which TFLite does not support (check the tensors' scales)",
                        what, real);
    *shift = sh;
    return 0;
}

int ew_checked_log2(float x, int *log2_result) {
    const float x_log2 = logf(x) * (1.0f / logf(2.0f));
    const float rounded = roundf(x_log2);
    *log2_result = (int)rounded;
    return fabsf(x_log2 - rounded) < 1e-3f;
}

const char *ew_dtype_suffix(IrDType t) { return ir_dtype_name(t); }
