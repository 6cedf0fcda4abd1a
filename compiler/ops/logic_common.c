/* logic_common.c - comparison, logical and select ops (see logic_common.h). */
#include "logic_common.h"

#include <stdio.h>
#include <string.h>

/* Input shape as seen by the broadcast: a SELECT v1 condition vector over
 * x's first dimension becomes [n, 1, ..., 1]. */
static void view_dims(const IrTensor *t, int as_rows_of_rank, int *rank, int64_t *dims) {
    if (as_rows_of_rank > 1) {
        *rank = as_rows_of_rank;
        dims[0] = t->dims[0];
        for (int i = 1; i < as_rows_of_rank; i++) dims[i] = 1;
        return;
    }
    *rank = t->rank;
    for (int i = 0; i < t->rank; i++) dims[i] = t->dims[i];
}

static void bcast3_init(rt_bcast3 *bc, const Graph *g, const IrOp *op, int n_in, int rows_of_rank) {
    const IrTensor *o = &g->tensors[op->out[0]];
    memset(bc, 0, sizeof *bc);
    bc->rank = o->rank;
    for (int i = 0; i < o->rank; i++) bc->dims[i] = (int32_t)o->dims[i];
    for (int k = 0; k < n_in; k++) {
        int rank;
        int64_t dims[IR_MAX_RANK];
        view_dims(&g->tensors[op->in[k]], k == 0 ? rows_of_rank : 0, &rank, dims);
        int64_t s = 1;
        for (int i = o->rank - 1; i >= 0; i--) {
            int ik = i - (o->rank - rank);
            int64_t dk = ik >= 0 ? dims[ik] : 1;
            bc->stride[k][i] = dk == 1 ? 0 : (int32_t)s;
            s *= dk;
        }
    }
}

static int broadcast_n(const IrOp *op, const Graph *g, int n, int rows_of_rank, int *rank, int64_t *dims, Diag *d) {
    *rank = 0;
    for (int k = 0; k < n; k++) {
        int r;
        int64_t kd[IR_MAX_RANK];
        view_dims(&g->tensors[op->in[k]], k == 0 ? rows_of_rank : 0, &r, kd);
        int nr = r > *rank ? r : *rank;
        int64_t out[IR_MAX_RANK];
        for (int i = 0; i < nr; i++) {
            int ia = i - (nr - *rank), ib = i - (nr - r);
            int64_t da = ia >= 0 ? dims[ia] : 1, db = ib >= 0 ? kd[ib] : 1;
            if (da != db && da != 1 && db != 1)
                return op_error(d, op, "cannot broadcast input %d '%s' (dimension %d is %lld vs %lld)", k,
                                g->tensors[op->in[k]].name, i, (long long)db, (long long)da);
            out[i] = da == 1 ? db : da;
        }
        *rank = nr;
        memcpy(dims, out, sizeof(int64_t) * (size_t)nr);
    }
    return 0;
}

static void emit_bcast3(CgCtx *cg, const rt_bcast3 *bc) {
    char line[512];
    int n = 0;
    for (int i = 0; i < RT_MAX_RANK; i++) n += snprintf(line + n, sizeof line - (size_t)n, "%s%d", i ? ", " : "", bc->dims[i]);
    cg_open(cg, ".bc = {");
    cg_line(cg, ".rank = %d, .dims = {%s}, /* output dims */", bc->rank, line);
    cg_open(cg, ".stride = {");
    for (int k = 0; k < 3; k++) {
        n = 0;
        for (int i = 0; i < RT_MAX_RANK; i++)
            n += snprintf(line + n, sizeof line - (size_t)n, "%s%d", i ? ", " : "", bc->stride[k][i]);
        cg_line(cg, "[%d] = {%s},", k, line);
    }
    cg_close(cg, "},");
    cg_close(cg, "},");
}

/* `static const TYPE p = {.bc = {...}, FIELDS};` then `KERNEL(&p, <the op's inputs>, <its output>);`: the
 * broadcasting comparison, logical and select ops' calls, reference or scheduled. */
static void emit_bcast3_call(CgCtx *cg, const IrOp *op, const char *type, const rt_bcast3 *bc, const char *fields,
                             const char *kernel) {
    char args[2048]; /* (at most 3 operands, each under cg_in's 512 characters) */
    int n = 0;
    cg_open(cg, "static const %s p = {", type);
    emit_bcast3(cg, bc);
    cg_line(cg, "%s", fields);
    cg_close(cg, "};");
    for (int k = 0; k < op->n_in && n < (int)sizeof args; k++)
        n += snprintf(args + n, sizeof args - (size_t)n, "%s, ", cg_in(cg, op, k)); /* (copied: cg_in's pool rotates) */
    cg_line(cg, "%s(&p, %s%s);", kernel, args, cg_out(cg, op, 0));
}

int64_t lg_out_numel(const Graph *g, const IrOp *op) { return ir_tensor_numel(&g->tensors[op->out[0]]); }

/* ---- comparisons ---- */

int lg_compare_check(Graph *g, IrOp *op, Diag *d) {
    if (op_expect_io(op, 2, 2, 1, d) ||
        op_expect_dtype(g, op, 0, 0, DT(F32) | DT(I32) | DT(I64) | DT(I8) | DT(U8) | DT(I16) | DT(BOOL), d) ||
        op_expect_dtype(g, op, 1, 0, DT(BOOL), d))
        return DIAG_USER;
    const IrTensor *a = op_cin(g, op, 0), *b = op_cin(g, op, 1);
    if (a->dtype != b->dtype)
        return op_error(d, op, "inputs '%s' (%s) and '%s' (%s) must have the same dtype", a->name,
                        ir_dtype_name(a->dtype), b->name, ir_dtype_name(b->dtype));
    if (a->dtype == IR_I8 || a->dtype == IR_U8 || a->dtype == IR_I16) {
        /* Equal quantization compares raw values; other cases need TFLite's rescaling. */
        if (a->q.count > 1 || b->q.count > 1 || op_scale(a) != op_scale(b) || op_zp(a) != op_zp(b))
            return op_error(d, op, "comparing %s tensors '%s' and '%s' with different quantization is not supported",
                            ir_dtype_name(a->dtype), a->name, b->name);
    }
    int rank;
    int64_t dims[IR_MAX_RANK];
    if (broadcast_n(op, g, 2, 0, &rank, dims, d)) return DIAG_USER;
    return op_set_out_shape(g, op, 0, rank, dims, d);
}

int lg_compare_prepare(Graph *g, IrOp *op, int cmp, Diag *d) {
    rt_compare_params *p = op_new_params(g, rt_compare_params);
    if (!p) return diag_internal(d, "out of memory");
    bcast3_init(&p->bc, g, op, 2, 0);
    p->cmp = cmp;
    p->dtype = op_rt_dtype(g->tensors[op->in[0]].dtype);
    op->params = p;
    return 0;
}

void lg_compare_eval(const Graph *g, const IrOp *op, const void *const *in, void *const *out, void *scratch) {
    (void)g, (void)scratch;
    rt_compare(op->params, in[0], in[1], out[0]);
}

int lg_compare_emit(CgCtx *cg, const Graph *g, const IrOp *op, Diag *d) {
    (void)g, (void)d;
    const rt_compare_params *p = op->params;
    char fields[64];
    snprintf(fields, sizeof fields, ".cmp = %d, .dtype = %d", p->cmp, p->dtype);
    emit_bcast3_call(cg, op, "rt_compare_params", &p->bc, fields, "rt_compare");
    return 0;
}

/* ---- logical ---- */

int lg_logical_check(Graph *g, IrOp *op, Diag *d) {
    int n_in = op->kind == OP_LOGICAL_NOT ? 1 : 2;
    if (op_expect_io(op, n_in, n_in, 1, d) || op_expect_dtype(g, op, 0, 0, DT(BOOL), d) ||
        op_expect_dtype(g, op, 0, 1, DT(BOOL), d) || op_expect_dtype(g, op, 1, 0, DT(BOOL), d))
        return DIAG_USER;
    int rank;
    int64_t dims[IR_MAX_RANK];
    if (broadcast_n(op, g, n_in, 0, &rank, dims, d)) return DIAG_USER;
    return op_set_out_shape(g, op, 0, rank, dims, d);
}

int lg_logical_prepare(Graph *g, IrOp *op, int which, Diag *d) {
    rt_logical_params *p = op_new_params(g, rt_logical_params);
    if (!p) return diag_internal(d, "out of memory");
    bcast3_init(&p->bc, g, op, op->kind == OP_LOGICAL_NOT ? 1 : 2, 0);
    p->op = which;
    op->params = p;
    return 0;
}

void lg_logical_eval(const Graph *g, const IrOp *op, const void *const *in, void *const *out, void *scratch) {
    (void)scratch;
    if (op->kind == OP_LOGICAL_NOT) rt_logical_not(lg_out_numel(g, op), in[0], out[0]);
    else rt_logical(op->params, in[0], in[1], out[0]);
}

/* LOGICAL_AND / OR's params and the call of `kernel` (rt_logical, or pass schedule's rt_opt_logical). */
void lg_logical_emit_call(CgCtx *cg, const IrOp *op, const char *kernel) {
    const rt_logical_params *p = op->params;
    char fields[64];
    snprintf(fields, sizeof fields, ".op = %d /* 0 and, 1 or */", p->op);
    emit_bcast3_call(cg, op, "rt_logical_params", &p->bc, fields, kernel);
}

int lg_logical_emit(CgCtx *cg, const Graph *g, const IrOp *op, Diag *d) {
    (void)d;
    if (op->kind == OP_LOGICAL_NOT) {
        cg_line(cg, "rt_logical_not(%lld, %s, %s);", (long long)lg_out_numel(g, op), cg_in(cg, op, 0),
                cg_out(cg, op, 0));
        return 0;
    }
    lg_logical_emit_call(cg, op, "rt_logical");
    return 0;
}

/* ---- select ---- */

static int rows_of_rank(const Graph *g, const IrOp *op) {
    const IrTensor *c = &g->tensors[op->in[0]], *x = &g->tensors[op->in[1]];
    return (op->kind == OP_SELECT && c->rank == 1 && x->rank > 1) ? x->rank : 0;
}

int lg_select_check(Graph *g, IrOp *op, int v2, Diag *d) {
    if (op_expect_io(op, 3, 3, 1, d) || op_expect_dtype(g, op, 0, 0, DT(BOOL), d)) return DIAG_USER;
    const IrTensor *c = op_cin(g, op, 0), *x = op_cin(g, op, 1), *y = op_cin(g, op, 2);
    const IrTensor *o = &g->tensors[op->out[0]];
    if (x->dtype != y->dtype || x->dtype != o->dtype)
        return op_error(d, op, "x '%s', y '%s' and output '%s' must have one dtype (%s, %s, %s)", x->name, y->name,
                        o->name, ir_dtype_name(x->dtype), ir_dtype_name(y->dtype), ir_dtype_name(o->dtype));
    if (x->q.count || y->q.count || o->q.count) {
        if (x->q.count > 1 || y->q.count > 1 || o->q.count > 1 || op_scale(x) != op_scale(o) ||
            op_scale(y) != op_scale(o) || op_zp(x) != op_zp(o) || op_zp(y) != op_zp(o))
            return op_error(d, op, "x, y and output must share one per-tensor quantization");
    }
    if (!v2) {
        int same = c->rank == x->rank;
        for (int i = 0; same && i < c->rank; i++) same = c->dims[i] == x->dims[i];
        int rows = c->rank == 1 && x->rank >= 1 && c->dims[0] == x->dims[0];
        int same_xy = x->rank == y->rank;
        for (int i = 0; same_xy && i < x->rank; i++) same_xy = x->dims[i] == y->dims[i];
        if (!(same || rows) || !same_xy)
            return op_error(d, op, "SELECT needs x and y of one shape and a condition of that shape or of its first "
                                   "dimension ('%s', '%s', '%s')", c->name, x->name, y->name);
    }
    int rank;
    int64_t dims[IR_MAX_RANK];
    if (broadcast_n(op, g, 3, rows_of_rank(g, op), &rank, dims, d)) return DIAG_USER;
    return op_set_out_shape(g, op, 0, rank, dims, d);
}

int lg_select_prepare(Graph *g, IrOp *op, Diag *d) {
    rt_select_params *p = op_new_params(g, rt_select_params);
    if (!p) return diag_internal(d, "out of memory");
    bcast3_init(&p->bc, g, op, 3, rows_of_rank(g, op));
    p->elem_size = (int32_t)ir_dtype_size(g->tensors[op->out[0]].dtype);
    op->params = p;
    return 0;
}

void lg_select_eval(const Graph *g, const IrOp *op, const void *const *in, void *const *out, void *scratch) {
    (void)g, (void)scratch;
    rt_select(op->params, in[0], in[1], in[2], out[0]);
}

/* SELECT / SELECT_V2's params and the call of `kernel` (rt_select, or pass schedule's rt_opt_select). */
void lg_select_emit_call(CgCtx *cg, const IrOp *op, const char *kernel) {
    const rt_select_params *p = op->params;
    char fields[32];
    snprintf(fields, sizeof fields, ".elem_size = %d", p->elem_size);
    emit_bcast3_call(cg, op, "rt_select_params", &p->bc, fields, kernel);
}

int lg_select_emit(CgCtx *cg, const Graph *g, const IrOp *op, Diag *d) {
    (void)g, (void)d;
    lg_select_emit_call(cg, op, "rt_select");
    return 0;
}
