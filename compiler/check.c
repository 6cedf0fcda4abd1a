/* check.c - float vs lower-precision errors, tensor by tensor. */
#include "check.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "interp.h"

double check_rel_l2(const TensorErr *e) {
    if (e->sum_err2 == 0) return 0;
    return e->sum_ref2 > 0 ? sqrt(e->sum_err2 / e->sum_ref2) : INFINITY;
}

double check_sqnr(const TensorErr *e) {
    if (e->sum_err2 == 0) return 200;
    double v = 10 * log10(e->sum_ref2 / e->sum_err2);
    return v > 200 ? 200 : v;
}

typedef struct Capture {
    int n0;
    float **vals;      /* ref's values of the current sample, per tensor id */
    int64_t *stamp;    /* sample number the value belongs to */
    int64_t sample;
    TensorErr *err;
    int failed;
} Capture;

static void keep_ref(void *ctx, const IrTensor *t, const void *data) {
    Capture *c = ctx;
    if (t->dtype != IR_F32 || t->id < 0 || t->id >= c->n0) return;
    size_t bytes = (size_t)ir_tensor_bytes(t);
    if (!c->vals[t->id] && !(c->vals[t->id] = malloc(bytes ? bytes : 1))) {
        c->failed = 1;
        return;
    }
    memcpy(c->vals[t->id], data, bytes);
    c->stamp[t->id] = c->sample;
}

static void compare_q(void *ctx, const IrTensor *t, const void *data) {
    Capture *c = ctx;
    if (t->id < 0 || t->id >= c->n0 || c->stamp[t->id] != c->sample) return;
    if (t->dtype != IR_F32 && !(t->dtype == IR_I8 && t->q.count == 1)) return;
    const float *ref = c->vals[t->id];
    TensorErr *e = &c->err[t->id];
    int64_t n = ir_tensor_numel(t);
    float scale = t->dtype == IR_I8 ? t->q.scale[0] : 1.0f;
    int64_t zp = t->dtype == IR_I8 ? t->q.zero_point[0] : 0;
    for (int64_t i = 0; i < n; i++) {
        double v = t->dtype == IR_F32 ? (double)((const float *)data)[i]
                                      : (double)scale * (double)(((const int8_t *)data)[i] - zp);
        double r = ref[i], diff = fabs(v - r);
        if (r != r || v != v) continue;
        e->sum_ref2 += r * r;
        e->sum_err2 += diff * diff;
        if (diff > e->max_abs) e->max_abs = diff;
        e->count++;
    }
}

int check_compare(Graph *ref, Graph *q, const CalibSet *set, TensorErr *err, Diag *d) {
    Capture c = {ref->n_tensors, NULL, NULL, 0, err, 0};
    c.vals = calloc((size_t)c.n0 + 1, sizeof(float *));
    c.stamp = malloc(sizeof(int64_t) * ((size_t)c.n0 + 1));
    void **outs = calloc((size_t)ref->n_outputs + 1, sizeof(void *));
    int rc = !c.vals || !c.stamp || !outs ? diag_internal(d, "out of memory") : 0;
    for (int t = 0; !rc && t < c.n0; t++) c.stamp[t] = -1;
    for (int i = 0; !rc && i < ref->n_outputs; i++)
        if (!(outs[i] = malloc((size_t)ir_tensor_bytes(&ref->tensors[ref->outputs[i]]) + 1)))
            rc = diag_internal(d, "out of memory");
    for (int64_t s = 0; !rc && s < set->n_samples; s++) {
        const void *ins[64];
        calib_sample(set, ref, s, ins);
        c.sample = s;
        interp_observe_ctx = &c;
        interp_observe = keep_ref;
        rc = interp_run(ref, ins, outs, d);
        interp_observe = compare_q;
        if (!rc) rc = interp_run(q, ins, outs, d);
        interp_observe = NULL;
        interp_observe_ctx = NULL;
        if (!rc && c.failed) rc = diag_internal(d, "out of memory");
    }
    for (int t = 0; c.vals && t < c.n0; t++) free(c.vals[t]);
    for (int i = 0; outs && i < ref->n_outputs; i++) free(outs[i]);
    free(c.vals), free(c.stamp), free(outs);
    return rc;
}

double check_output_error(const Graph *ref, const TensorErr *err) {
    double worst = 0;
    for (int i = 0; i < ref->n_outputs; i++) {
        double e = check_rel_l2(&err[ref->outputs[i]]);
        if (e > worst) worst = e;
    }
    return worst;
}

/* The op of q that is ref's operator tfl_index (not an inserted conversion). */
static const IrOp *q_op(const Graph *q, int tfl_index) {
    for (int i = 0; i < q->n_ops; i++) {
        const IrOp *op = &q->ops[i];
        if (!op->dead && op->tfl_index == tfl_index && !(op->prec_note && !strcmp(op->prec_note, "inserted by precision")))
            return op;
    }
    return NULL;
}

int check_report(const Graph *ref, const Graph *q, const TensorErr *err, FILE *f) {
    int worst_op = -1;
    double worst = -1;
    if (f) fprintf(f, "  %-6s %-22s %-5s %10s %9s %12s  %s\n", "op", "kind", "prec", "rel L2", "SQNR dB",
                   "contribution", "why");
    for (int i = 0; i < ref->n_ops; i++) {
        const IrOp *op = &ref->ops[i];
        if (op->dead || op->n_out == 0 || ref->tensors[op->out[0]].dtype != IR_F32) continue;
        const TensorErr *e = &err[op->out[0]];
        if (!e->count) continue;
        double in_worst = 0;
        for (int k = 0; k < op->n_in; k++) {
            int t = op->in[k];
            if (t < 0 || ref->tensors[t].data || !err[t].count) continue;
            double v = check_rel_l2(&err[t]);
            if (v > in_worst) in_worst = v;
        }
        double rel = check_rel_l2(e), contrib = rel - in_worst > 0 ? rel - in_worst : 0;
        const IrOp *qo = q_op(q, op->tfl_index);
        IrDType prec = qo ? qo->prec : IR_F32;
        if (f)
            fprintf(f, "  %-6d %-22s %-5s %10.3g %9.1f %12.3g  %s\n", op->tfl_index, ir_op_name(op->kind),
                    ir_dtype_name(prec), rel, check_sqnr(e), contrib, qo && qo->prec_note ? qo->prec_note : "");
        if (prec == IR_I8 && contrib > worst) worst = contrib, worst_op = op->tfl_index;
    }
    return worst_op;
}
