/* op_util.c - helpers shared by op files (see op_util.h). */
#include "op_util.h"

#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

int op_error_at(Diag *d, const IrOp *op, const char *fmt, ...) {
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    return diag_user(d, "operator %d (%s): %s", op->tfl_index, ir_op_name(op->kind), buf);
}

IrTensor *op_in(Graph *g, const IrOp *op, int k) {
    if (k < 0 || k >= op->n_in || op->in[k] < 0) return NULL;
    return &g->tensors[op->in[k]];
}

const IrTensor *op_cin(const Graph *g, const IrOp *op, int k) {
    if (k < 0 || k >= op->n_in || op->in[k] < 0) return NULL;
    return &g->tensors[op->in[k]];
}

IrTensor *op_out(Graph *g, const IrOp *op, int k) {
    if (k < 0 || k >= op->n_out || op->out[k] < 0) return NULL;
    return &g->tensors[op->out[k]];
}

int op_expect_io(const IrOp *op, int min_in, int max_in, int n_out, Diag *d) {
    if (op->n_in < min_in || op->n_in > max_in) {
        if (min_in == max_in) return op_error(d, op, "expected %d inputs, got %d", min_in, op->n_in);
        return op_error(d, op, "expected %d to %d inputs, got %d", min_in, max_in, op->n_in);
    }
    for (int k = 0; k < min_in; k++)
        if (op->in[k] < 0) return op_error(d, op, "required input %d is missing", k);
    if (n_out >= 0 && op->n_out != n_out) return op_error(d, op, "expected %d outputs, got %d", n_out, op->n_out);
    for (int k = 0; k < op->n_out; k++)
        if (op->out[k] < 0) return op_error(d, op, "output %d is missing", k);
    return 0;
}

static void mask_names(unsigned mask, char *buf, size_t n) {
    buf[0] = '\0';
    size_t len = 0;
    for (int t = 0; t < IR_DTYPE_COUNT; t++) {
        if (!(mask & (1u << t))) continue;
        int w = snprintf(buf + len, n - len, "%s%s", len ? "/" : "", ir_dtype_name((IrDType)t));
        if (w > 0 && (size_t)w < n - len) len += (size_t)w;
    }
}

int op_expect_dtype(const Graph *g, const IrOp *op, int is_output, int k, unsigned mask, Diag *d) {
    const IrTensor *t = is_output ? (k < op->n_out && op->out[k] >= 0 ? &g->tensors[op->out[k]] : NULL)
                                  : op_cin(g, op, k);
    if (!t) return 0;
    if (mask & (1u << t->dtype)) return 0;
    char want[96];
    mask_names(mask, want, sizeof want);
    return op_error(d, op, "%s %d tensor '%s' has dtype %s, expected %s", is_output ? "output" : "input", k,
                    t->name, ir_dtype_name(t->dtype), want);
}

int op_expect_const(const Graph *g, const IrOp *op, int k, Diag *d) {
    const IrTensor *t = op_cin(g, op, k);
    if (t && !t->data)
        return op_error(d, op, "input %d tensor '%s' must be a constant (dynamic values are not supported)", k,
                        t->name);
    return 0;
}

int op_expect_same_dtype(const Graph *g, const IrOp *op, int in_k, Diag *d) {
    const IrTensor *a = op_cin(g, op, in_k);
    const IrTensor *o = &g->tensors[op->out[0]];
    if (a && a->dtype != o->dtype)
        return op_error(d, op, "input %d tensor '%s' is %s but output '%s' is %s", in_k, a->name,
                        ir_dtype_name(a->dtype), o->name, ir_dtype_name(o->dtype));
    return 0;
}

int op_expect_quantized(const Graph *g, const IrOp *op, int is_output, int k, Diag *d) {
    const IrTensor *t = is_output ? &g->tensors[op->out[k]] : op_cin(g, op, k);
    if (!t) return 0;
    if (t->q.count < 1)
        return op_error(d, op, "%s %d tensor '%s' (%s) has no quantization parameters", is_output ? "output" : "input",
                        k, t->name, ir_dtype_name(t->dtype));
    return 0;
}

int op_set_out_shape(Graph *g, const IrOp *op, int k, int rank, const int64_t *dims, Diag *d) {
    IrTensor *t = op_out(g, op, k);
    if (!t) return op_error(d, op, "output %d is missing", k);
    if (rank < 0 || rank > IR_MAX_RANK) return op_error(d, op, "output rank %d out of range", rank);
    int same = t->rank == rank;
    for (int i = 0; same && i < rank; i++) same = t->dims[i] == dims[i];
    if (same) {
        t->infer_shape = 0;
        return 0;
    }
    /* A model may leave an output shape empty (rank 0, unknown); fill it in.
     * With --input-shape every shape downstream of the inputs is inferred. */
    if ((t->rank == 0 && !t->has_signature) || t->infer_shape) {
        t->infer_shape = 0;
        t->rank = rank;
        for (int i = 0; i < rank; i++) t->dims[i] = dims[i];
        return 0;
    }
    char got[160], want[160] = "[";
    ir_tensor_desc(t, got, sizeof got);
    size_t len = 1;
    for (int i = 0; i < rank && len < sizeof want; i++) {
        int w = snprintf(want + len, sizeof want - len, "%s%lld", i ? "," : "", (long long)dims[i]);
        if (w > 0) len += (size_t)w;
    }
    if (len < sizeof want) snprintf(want + len, sizeof want - len, "]");
    return op_error(d, op, "output %d tensor '%s' has shape %s in the model, but the inputs give %s", k, t->name,
                    got, want);
}

void op_rt_shape(rt_shape *s, const IrTensor *t) {
    memset(s, 0, sizeof *s);
    s->rank = t->rank;
    for (int i = 0; i < t->rank && i < RT_MAX_RANK; i++) s->dims[i] = (int32_t)t->dims[i];
}

int op_const_ints(const Graph *g, const IrOp *op, int k, int64_t *vals, int maxn, int *n, Diag *d) {
    const IrTensor *t = op_cin(g, op, k);
    if (!t) return op_error(d, op, "input %d is missing", k);
    if (!t->data) return op_error(d, op, "input %d tensor '%s' must be a constant", k, t->name);
    if (t->dtype != IR_I32 && t->dtype != IR_I64)
        return op_error(d, op, "input %d tensor '%s' must be int32 or int64, got %s", k, t->name,
                        ir_dtype_name(t->dtype));
    int64_t cnt = ir_tensor_numel(t);
    if (cnt < 0 || cnt > maxn)
        return op_error(d, op, "input %d tensor '%s' has %lld values, at most %d supported", k, t->name,
                        (long long)cnt, maxn);
    for (int64_t i = 0; i < cnt; i++) {
        if (t->dtype == IR_I32) {
            int32_t v;
            memcpy(&v, t->data + 4 * i, 4);
            vals[i] = v;
        } else {
            memcpy(&vals[i], t->data + 8 * i, 8);
        }
    }
    *n = (int)cnt;
    return 0;
}

int op_static_shape(const IrTensor *t) {
    if (t->infer_shape || t->unknown) return 0;
    for (int i = 0; t->has_signature && i < t->rank; i++)
        if (t->signature[i] < 0) return 0;
    return 1;
}

int op_shape_input(Graph *g, IrOp *op, int k, const int64_t *declared, int n_declared, int wildcard, int64_t *vals,
                   int maxn, int *n, Diag *d) {
    const IrTensor *t = op_cin(g, op, k);
    if (!t || t->data || !declared) return op_const_ints(g, op, k, vals, maxn, n, d);
    if (t->dtype != IR_I32 && t->dtype != IR_I64)
        return op_error(d, op, "input %d tensor '%s' must be int32 or int64, got %s", k, t->name,
                        ir_dtype_name(t->dtype));
    if (ir_tensor_numel(t) != n_declared || n_declared > maxn)
        return op_error(d, op,
                        "input %d tensor '%s' is computed at run time and holds %lld values, but the output's "
                        "static shape gives %d",
                        k, t->name, (long long)ir_tensor_numel(t), n_declared);
    IrGuard *gd = ir_alloc(g, sizeof *gd);
    int64_t *v = ir_alloc(g, sizeof(int64_t) * (size_t)(n_declared + 1));
    if (!gd || !v) return diag_internal(d, "out of memory");
    for (int i = 0; i < n_declared; i++) vals[i] = v[i] = declared[i];
    gd->input = k;
    gd->n = n_declared;
    gd->values = v;
    gd->wildcard = wildcard;
    op->guard = gd;
    *n = n_declared;
    return 0;
}

void op_emit_guard(CgCtx *cg, const Graph *g, const IrOp *op) {
    const IrGuard *gd = op->guard;
    if (!gd) return;
    int i64 = g->tensors[op->in[gd->input]].dtype == IR_I64;
    char vals[512] = "";
    size_t len = 0;
    for (int i = 0; i < gd->n && len < sizeof vals; i++) {
        int w = snprintf(vals + len, sizeof vals - len, "%s%s%lld%s", i ? ", " : "", i64 ? "INT64_C(" : "",
                         (long long)gd->values[i], i64 ? ")" : "");
        if (w > 0) len += (size_t)w;
    }
    cg_open(cg, "{ /* input %d is computed at run time: it must hold the values compiled for */", gd->input);
    cg_line(cg, "static const %s want[%d] = {%s};", i64 ? "int64_t" : "int32_t", gd->n, vals);
    cg_line(cg, "if (!rt_check_shape_%s(%s, want, %d, %d)) return RT_ERR_SHAPE_INPUT;", i64 ? "i64" : "i32",
            cg_in(cg, op, gd->input), gd->n, gd->wildcard);
    cg_close(cg, "}");
}

int op_check_guard(const Graph *g, const IrOp *op, const void *input, Diag *d) {
    const IrGuard *gd = op->guard;
    if (!gd) return 0;
    const IrTensor *t = &g->tensors[op->in[gd->input]];
    char got[256] = "", want[256] = "";
    size_t lg = 0, lw = 0;
    int ok = 1;
    for (int i = 0; i < gd->n; i++) {
        int64_t v;
        if (t->dtype == IR_I64) {
            memcpy(&v, (const uint8_t *)input + 8 * i, 8);
        } else {
            int32_t v32;
            memcpy(&v32, (const uint8_t *)input + 4 * i, 4);
            v = v32;
        }
        ok &= v == gd->values[i] || (gd->wildcard && v == -1);
        int w = snprintf(got + lg, sizeof got - lg, "%s%lld", i ? "," : "", (long long)v);
        if (w > 0 && (size_t)w < sizeof got - lg) lg += (size_t)w;
        w = snprintf(want + lw, sizeof want - lw, "%s%lld", i ? "," : "", (long long)gd->values[i]);
        if (w > 0 && (size_t)w < sizeof want - lw) lw += (size_t)w;
    }
    if (ok) return 0;
    return op_error(d, op, "input %d '%s' holds [%s] at run time, but the model was compiled for [%s] (its static "
                    "output shape); the generated code returns RT_ERR_SHAPE_INPUT (2) here",
                    gd->input, t->name, got, want);
}

int op_broadcast(const IrOp *op, const IrTensor *a, const IrTensor *b, int *rank, int64_t *dims, Diag *d) {
    int r = a->rank > b->rank ? a->rank : b->rank;
    for (int i = 0; i < r; i++) {
        int ia = i - (r - a->rank), ib = i - (r - b->rank);
        int64_t da = ia >= 0 ? a->dims[ia] : 1, db = ib >= 0 ? b->dims[ib] : 1;
        if (da != db && da != 1 && db != 1)
            return op_error(d, op, "cannot broadcast '%s' and '%s': dimension %d is %lld vs %lld", a->name, b->name,
                            i, (long long)da, (long long)db);
        dims[i] = da == 1 ? db : da;
    }
    *rank = r;
    return 0;
}

int op_parse_act(const IrOp *op, int tfl_act, int *act, Diag *d) {
    switch (tfl_act) {
    case 0: *act = ACT_NONE; return 0;
    case 1: *act = ACT_RELU; return 0;
    case 2: *act = ACT_RELU_N1_TO_1; return 0;
    case 3: *act = ACT_RELU6; return 0;
    case 4: return op_error(d, op, "unsupported fused activation TANH");
    case 5: return op_error(d, op, "unsupported fused activation SIGN_BIT");
    default: return op_error(d, op, "unknown fused activation %d", tfl_act);
    }
}

void op_act_range_f32(int act, float *lo, float *hi) {
    switch (act) {
    case ACT_RELU: *lo = 0.0f; *hi = FLT_MAX; break;
    case ACT_RELU_N1_TO_1: *lo = -1.0f; *hi = 1.0f; break;
    case ACT_RELU6: *lo = 0.0f; *hi = 6.0f; break;
    default: *lo = -FLT_MAX; *hi = FLT_MAX; break;
    }
}

void op_dtype_range(IrDType t, int32_t *lo, int32_t *hi) {
    switch (t) {
    case IR_I8: *lo = -128; *hi = 127; break;
    case IR_U8: *lo = 0; *hi = 255; break;
    case IR_I16: *lo = -32768; *hi = 32767; break;
    default: *lo = INT32_MIN; *hi = INT32_MAX; break;
    }
}

int32_t op_quant_bound(float f, float scale, int32_t zp, int32_t lo, int32_t hi, int32_t if_nan) {
    double q = (double)zp + (double)roundf(f / scale);
    return q != q ? if_nan : q <= lo ? lo : q >= hi ? hi : (int32_t)q;
}

void op_act_range_q(int act, const IrTensor *out, int32_t *lo, int32_t *hi) {
    int32_t qmin, qmax;
    op_dtype_range(out->dtype, &qmin, &qmax);
    float scale = out->q.count ? out->q.scale[0] : 1.0f;
    int32_t zp = op_zp(out);
#define QLO(f) op_quant_bound((f), scale, zp, qmin, qmax, qmin)
#define QHI(f) op_quant_bound((f), scale, zp, qmin, qmax, qmax)
    *lo = qmin;
    *hi = qmax;
    if (act == ACT_RELU) {
        *lo = QLO(0.0f);
    } else if (act == ACT_RELU6) {
        *lo = QLO(0.0f);
        *hi = QHI(6.0f);
    } else if (act == ACT_RELU_N1_TO_1) {
        *lo = QLO(-1.0f);
        *hi = QHI(1.0f);
    }
#undef QLO
#undef QHI
}

void op_quantize_multiplier(double real, int32_t *mult, int *shift) {
    if (real == 0.0 || !isfinite(real)) {
        *mult = 0;
        *shift = 0;
        return;
    }
    int e = 0;
    double q = frexp(real, &e);
    int64_t fixed = (int64_t)round(q * (double)(1LL << 31));
    if (fixed == (1LL << 31)) {
        fixed /= 2;
        e++;
    }
    if (e < -31) {
        e = 0;
        fixed = 0;
    }
    *mult = (int32_t)fixed;
    *shift = e;
}

int op_channel_multipliers(Graph *g, const IrOp *op, const IrTensor *in, const IrTensor *w, const IrTensor *out, int n,
                           const int32_t **mult, const int32_t **shift, Diag *d) {
    int32_t *m = ir_alloc(g, sizeof(int32_t) * (size_t)(n > 0 ? n : 1));
    int32_t *s = ir_alloc(g, sizeof(int32_t) * (size_t)(n > 0 ? n : 1));
    if (!m || !s) return diag_internal(d, "out of memory");
    for (int c = 0; c < n; c++) {
        double w_scale = (double)w->q.scale[w->q.count > 1 ? c : 0];
        double real = (double)in->q.scale[0] * w_scale / (double)out->q.scale[0];
        int sh;
        if (op_checked_multiplier(op, real, &m[c], &sh, d)) return DIAG_USER;
        s[c] = sh;
    }
    *mult = m;
    *shift = s;
    return 0;
}

int op_float_factors(Graph *g, const IrTensor *in, const IrTensor *w, const IrTensor *out, int n, const float **f,
                     Diag *d) {
    float *v = ir_alloc(g, sizeof(float) * (size_t)(n > 0 ? n : 1));
    if (!v) return diag_internal(d, "out of memory");
    for (int c = 0; c < n; c++)
        v[c] = (float)((double)in->q.scale[0] * (double)w->q.scale[w->q.count > 1 ? c : 0] /
                       (out ? (double)out->q.scale[0] : 1.0));
    *f = v;
    return 0;
}

int op_checked_multiplier(const IrOp *op, double real, int32_t *mult, int *shift, Diag *d) {
    op_quantize_multiplier(real, mult, shift);
    /* Kernels shift left by at most 30 (and TFLite's own limits are the same): a larger
     * factor means scales no converter produces, so say so instead of overflowing. */
    if (*shift > 30 || !(real >= 0.0))
        return op_error(d, op, "requantization factor %g is out of range (quantization scales are inconsistent)",
                        real);
    return 0;
}

int op_parse_none(Graph *g, IrOp *op, const FbTable *opts, Diag *d) {
    (void)g, (void)op, (void)opts, (void)d;
    return 0;
}

int64_t op_no_macs(const Graph *g, const IrOp *op) {
    (void)g, (void)op;
    return 0;
}
