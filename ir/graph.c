/* graph.c - graph construction, the compile-time arena, dtype/op names. */
#include "ir.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct IrArenaBlock {
    IrArenaBlock *next;
    size_t used, cap;
    _Alignas(16) unsigned char data[];
};

Graph *ir_graph_new(const char *source) {
    Graph *g = calloc(1, sizeof *g);
    if (!g) return NULL;
    g->source = source ? source : "<model>";
    g->max_arena = -1;
    return g;
}

void ir_graph_free(Graph *g) {
    if (!g) return;
    for (int k = 0; k < g->n_sub; k++)
        if (g->sub[k] != g) ir_graph_free(g->sub[k]);
    free(g->sub);
    IrArenaBlock *b = g->arena;
    while (b) {
        IrArenaBlock *n = b->next;
        free(b);
        b = n;
    }
    free(g->tensors);
    free(g->ops);
    free(g);
}

void *ir_alloc(Graph *g, size_t bytes) {
    size_t need = (bytes + 15u) & ~(size_t)15u;
    if (need < bytes) return NULL;
    IrArenaBlock *b = g->arena;
    if (!b || b->cap - b->used < need) {
        size_t cap = need > (1u << 20) ? need : (1u << 20);
        b = malloc(sizeof *b + cap);
        if (!b) return NULL;
        b->used = 0;
        b->cap = cap;
        b->next = g->arena;
        g->arena = b;
    }
    void *p = b->data + b->used;
    b->used += need;
    memset(p, 0, bytes);
    return p;
}

char *ir_strndup(Graph *g, const char *s, size_t n) {
    char *p = ir_alloc(g, n + 1);
    if (!p) return NULL;
    memcpy(p, s, n);
    p[n] = '\0';
    return p;
}

char *ir_strdup(Graph *g, const char *s) { return ir_strndup(g, s, strlen(s)); }

char *ir_sprintf(Graph *g, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0) return NULL;
    char *p = ir_alloc(g, (size_t)n + 1);
    if (!p) return NULL;
    va_start(ap, fmt);
    vsnprintf(p, (size_t)n + 1, fmt, ap);
    va_end(ap);
    return p;
}

static const struct { const char *name, *ctype; size_t size; } dtype_info[IR_DTYPE_COUNT] = {
    [IR_F32] = {"f32", "float", 4},      [IR_F16] = {"f16", "uint16_t", 2},
    [IR_BF16] = {"bf16", "uint16_t", 2}, [IR_I8] = {"i8", "int8_t", 1},
    [IR_U8] = {"u8", "uint8_t", 1},      [IR_I16] = {"i16", "int16_t", 2},
    [IR_I32] = {"i32", "int32_t", 4},    [IR_I64] = {"i64", "int64_t", 8},
    [IR_BOOL] = {"bool", "uint8_t", 1},
    [IR_C64] = {"c64", "float", 8}, /* generated code addresses it as its float (re, im) pairs */
};

const char *ir_dtype_name(IrDType t) { return (unsigned)t < IR_DTYPE_COUNT ? dtype_info[t].name : "?"; }
size_t ir_dtype_size(IrDType t) { return (unsigned)t < IR_DTYPE_COUNT ? dtype_info[t].size : 0; }
const char *ir_dtype_ctype(IrDType t) { return (unsigned)t < IR_DTYPE_COUNT ? dtype_info[t].ctype : "void"; }

static const struct { const char *name; int code; } op_info[OP_KIND_COUNT] = {
#define OP(name, code, stem) {#name, code},
#include "op_list.def"
#undef OP
};

const char *ir_op_name(OpKind k) { return (unsigned)k < OP_KIND_COUNT ? op_info[k].name : "?"; }
int ir_op_tfl_code(OpKind k) { return (unsigned)k < OP_KIND_COUNT ? op_info[k].code : -1; }

int ir_op_from_tfl_code(int code, OpKind *out) {
    for (int k = 0; k < OP_KIND_COUNT; k++) {
        if (op_info[k].code == code) {
            *out = (OpKind)k;
            return 0;
        }
    }
    return -1;
}

static int grow(void **arr, int *cap, int need, size_t elem) {
    if (need <= *cap) return 0;
    int nc = *cap ? *cap * 2 : 64;
    while (nc < need) nc *= 2;
    void *p = realloc(*arr, (size_t)nc * elem);
    if (!p) return -1;
    memset((char *)p + (size_t)*cap * elem, 0, (size_t)(nc - *cap) * elem);
    *arr = p;
    *cap = nc;
    return 0;
}

int ir_add_tensor(Graph *g, const char *name, IrDType dt, int rank, const int64_t *dims) {
    if (rank < 0 || rank > IR_MAX_RANK) return -1;
    if (grow((void **)&g->tensors, &g->cap_tensors, g->n_tensors + 1, sizeof(IrTensor))) return -1;
    int id = g->n_tensors++;
    IrTensor *t = &g->tensors[id];
    memset(t, 0, sizeof *t);
    t->id = id;
    t->name = ir_strdup(g, name ? name : "");
    t->dtype = dt;
    t->rank = rank;
    for (int i = 0; i < rank; i++) t->dims[i] = dims[i];
    t->tfl_index = -1;
    t->producer = -1;
    t->offset = -1;
    t->alias_of = -1;
    return t->name ? id : -1;
}

int ir_add_op(Graph *g, OpKind kind, int n_in, const int *in, int n_out, const int *out) {
    if (grow((void **)&g->ops, &g->cap_ops, g->n_ops + 1, sizeof(IrOp))) return -1;
    int idx = g->n_ops;
    IrOp *op = &g->ops[idx];
    memset(op, 0, sizeof *op);
    op->kind = kind;
    op->tfl_index = -1;
    op->scratch_offset = -1;
    op->n_in = n_in;
    op->n_out = n_out;
    op->in = ir_alloc(g, sizeof(int) * (size_t)(n_in > 0 ? n_in : 1));
    op->out = ir_alloc(g, sizeof(int) * (size_t)(n_out > 0 ? n_out : 1));
    if (!op->in || !op->out) return -1;
    if (n_in) memcpy(op->in, in, sizeof(int) * (size_t)n_in);
    if (n_out) memcpy(op->out, out, sizeof(int) * (size_t)n_out);
    g->n_ops++;
    return idx;
}

int64_t ir_tensor_numel(const IrTensor *t) {
    int64_t n = 1;
    for (int i = 0; i < t->rank; i++) {
        int64_t d = t->dims[i];
        if (d < 0) return -1;
        if (d != 0 && n > INT64_MAX / d) return -1;
        n *= d;
    }
    return n;
}

int64_t ir_tensor_bytes(const IrTensor *t) {
    int64_t n = ir_tensor_numel(t);
    int64_t s = (int64_t)ir_dtype_size(t->dtype);
    if (n < 0 || s == 0 || n > INT64_MAX / s) return -1;
    return n * s;
}

int ir_tensor_is_const(const IrTensor *t) { return t->data != NULL; }

int64_t ir_storage_at(const Graph *g, int id) {
    int64_t at = 0;
    for (; g->tensors[id].alias_of >= 0; id = g->tensors[id].alias_of) at += g->tensors[id].alias_at;
    return at;
}

int ir_storage_root(const Graph *g, int id) {
    while (g->tensors[id].alias_of >= 0) id = g->tensors[id].alias_of;
    return id;
}

int ir_variable_reset_value(const IrTensor *t) {
    return t->dtype == IR_I8 && t->q.count ? (int)(int8_t)t->q.zero_point[0] : 0;
}

void ir_drop_data(const Graph *g, const IrTensor *t) {
    if (g->drop_pages && t->data && t->data_size) g->drop_pages(g->drop_pages_ctx, t->data, t->data_size);
}

void ir_set_producers(Graph *g) {
    for (int i = 0; i < g->n_tensors; i++) g->tensors[i].producer = -1;
    for (int i = 0; i < g->n_ops; i++)
        for (int k = 0; k < g->ops[i].n_out; k++)
            if (g->tensors[g->ops[i].out[k]].producer < 0) g->tensors[g->ops[i].out[k]].producer = i;
}

const char *ir_tensor_desc(const IrTensor *t, char *buf, size_t n) {
    size_t len = 0;
    int w = snprintf(buf, n, "[");
    len = w > 0 ? (size_t)w : 0;
    for (int i = 0; i < t->rank && len < n; i++) {
        w = snprintf(buf + len, n - len, "%s%lld", i ? "," : "", (long long)t->dims[i]);
        if (w > 0) len += (size_t)w;
    }
    if (len < n) snprintf(buf + len, n - len, "] %s", ir_dtype_name(t->dtype));
    return buf;
}
