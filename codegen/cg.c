/* cg.c - the small emitter: indented lines, pointer expressions, literals. */
#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cg_internal.h"

void cgbuf_flush(CgBuf *b) {
    if (!b->sink || b->io_error || b->len == 0) return;
    if (fwrite(b->s, 1, b->len, b->sink) != b->len) b->io_error = 1;
    b->len = 0;
}

void cgbuf_append(CgBuf *b, const char *s, size_t n) {
    if (b->oom || b->io_error || b->discard) return;
    if (b->sink && b->len + n > CG_FLUSH_BYTES) {
        cgbuf_flush(b);
        if (n > CG_FLUSH_BYTES) {
            if (!b->io_error && fwrite(s, 1, n, b->sink) != n) b->io_error = 1;
            return;
        }
    }
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 4096;
        while (b->len + n + 1 > cap) cap *= 2;
        char *p = realloc(b->s, cap);
        if (!p) {
            b->oom = 1;
            return;
        }
        b->s = p;
        b->cap = cap;
    }
    memcpy(b->s + b->len, s, n);
    b->len += n;
    b->s[b->len] = '\0';
}

int64_t cg_blob_offset(CgCtx *cg, int id) {
    if (cg->const_offset[id] < 0) {
        cg->const_offset[id] = cg->blob_bytes;
        cg->blob_bytes += ((int64_t)cg->g->tensors[id].data_size + CG_BLOB_ALIGN - 1) / CG_BLOB_ALIGN * CG_BLOB_ALIGN;
    }
    return cg->const_offset[id];
}

static void cgbuf_vprintf(CgBuf *b, const char *fmt, va_list ap) {
    char small[1024];
    if (b->discard) return;
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(small, sizeof small, fmt, ap);
    if (n < 0) {
        va_end(ap2);
        return;
    }
    if ((size_t)n < sizeof small) {
        cgbuf_append(b, small, (size_t)n);
    } else {
        char *big = malloc((size_t)n + 1);
        if (big) {
            vsnprintf(big, (size_t)n + 1, fmt, ap2);
            cgbuf_append(b, big, (size_t)n);
            free(big);
        } else {
            b->oom = 1;
        }
    }
    va_end(ap2);
}

void cgbuf_printf(CgBuf *b, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    cgbuf_vprintf(b, fmt, ap);
    va_end(ap);
}

static void indent(CgCtx *cg) {
    for (int i = 0; i < cg->depth; i++) cgbuf_append(cg->out, "    ", 4);
}

void cg_line(CgCtx *cg, const char *fmt, ...) {
    va_list ap;
    indent(cg);
    va_start(ap, fmt);
    cgbuf_vprintf(cg->out, fmt, ap);
    va_end(ap);
    cgbuf_append(cg->out, "\n", 1);
}

void cg_open(CgCtx *cg, const char *fmt, ...) {
    va_list ap;
    indent(cg);
    va_start(ap, fmt);
    cgbuf_vprintf(cg->out, fmt, ap);
    va_end(ap);
    cgbuf_append(cg->out, "\n", 1);
    cg->depth++;
}

void cg_close(CgCtx *cg, const char *fmt, ...) {
    va_list ap;
    if (cg->depth > 0) cg->depth--;
    indent(cg);
    va_start(ap, fmt);
    cgbuf_vprintf(cg->out, fmt, ap);
    va_end(ap);
    cgbuf_append(cg->out, "\n", 1);
}

char *cg_pool_str(CgCtx *cg) {
    char *s = cg->pool[cg->pool_next];
    cg->pool_next = (cg->pool_next + 1) % CG_POOL;
    s[0] = '\0';
    return s;
}

const char *cg_subgraph_fn(CgCtx *cg, int k) {
    char *s = cg_pool_str(cg);
    snprintf(s, CG_POOL_LEN, "%s_subgraph%d", cg->prefix, k);
    return s;
}

const char *cg_weights_arg(CgCtx *cg) { return cg->weights_file ? ", weights" : ""; }

const char *cg_sanitize(CgCtx *cg, const char *name, int id) {
    char *s = cg_pool_str(cg);
    /* Subgraphs' constants get their subgraph in the name: tensor ids restart in each. */
    int n = cg->g && cg->g->root ? snprintf(s, CG_POOL_LEN, "%s_s%d_w%d_", cg->prefix, cg->g->tfl_subgraph, id)
                                 : snprintf(s, CG_POOL_LEN, "%s_w%d_", cg->prefix, id);
    for (const char *p = name; *p && n < 56; p++) {
        char c = *p;
        s[n++] = (isalnum((unsigned char)c) && (unsigned char)c < 128) ? c : '_';
    }
    while (n > 0 && s[n - 1] == '_') n--;
    s[n] = '\0';
    return s;
}

/* Pointer expression for tensor id, typed, const-qualified for inputs. */
static const char *tensor_expr(CgCtx *cg, int id, int is_input) {
    if (id < 0) return "NULL";
    const Graph *g = cg->g;
    const IrTensor *t = &g->tensors[id];
    const char *ct = ir_dtype_ctype(t->dtype);
    const char *q = (is_input && !t->is_variable) ? "const " : "";
    char *s = cg_pool_str(cg);
    if (t->data) {
        cg->const_used[id] = 1;
        if (cg->weights_file)
            snprintf(s, CG_POOL_LEN, "(const %s *)(weights + %lld)", ct, (long long)cg_blob_offset(cg, id));
        else
            snprintf(s, CG_POOL_LEN, "%s", cg->const_name[id]);
        return s;
    }
    if (t->alias_of >= 0) { /* a view (pass patch) of a graph input's or output's rows */
        const IrTensor *r = &g->tensors[ir_storage_root(g, id)];
        long long at = (long long)ir_storage_at(g, id);
        for (int i = 0; r->is_input && i < g->n_inputs; i++)
            if (g->inputs[i] == r->id) {
                snprintf(s, CG_POOL_LEN, "(%s%s *)((const char *)inputs[%d] + %lld)", q, ct, i, at);
                return s;
            }
        for (int i = 0; r->is_output && i < g->n_outputs; i++)
            if (g->outputs[i] == r->id) {
                snprintf(s, CG_POOL_LEN, "(%s%s *)((char *)outputs[%d] + %lld)", q, ct, i, at);
                return s;
            }
    }
    for (int i = 0; t->is_input && i < g->n_inputs; i++)
        if (g->inputs[i] == id) {
            snprintf(s, CG_POOL_LEN, "(%s%s *)inputs[%d]", q, ct, i);
            return s;
        }
    for (int i = 0; t->is_output && i < g->n_outputs; i++)
        if (g->outputs[i] == id) {
            snprintf(s, CG_POOL_LEN, "(%s%s *)outputs[%d]", q, ct, i);
            return s;
        }
    snprintf(s, CG_POOL_LEN, "(%s%s *)(a + %lld)", q, ct, (long long)t->offset);
    return s;
}

const char *cg_tensor(CgCtx *cg, int id, int is_input) { return tensor_expr(cg, id, is_input); }

const char *cg_in(CgCtx *cg, const IrOp *op, int k) {
    return k < op->n_in ? tensor_expr(cg, op->in[k], 1) : "NULL";
}

const char *cg_out(CgCtx *cg, const IrOp *op, int k) {
    return k < op->n_out ? tensor_expr(cg, op->out[k], 0) : "NULL";
}

const char *cg_scratch(CgCtx *cg, const IrOp *op) {
    if (!op->scratch_bytes) return "NULL";
    char *s = cg_pool_str(cg);
    snprintf(s, CG_POOL_LEN, "(void *)(a + %lld)", (long long)op->scratch_offset);
    return s;
}

const char *cg_shape(CgCtx *cg, const rt_shape *sh) {
    char *s = cg_pool_str(cg);
    int n = snprintf(s, CG_POOL_LEN, "{%d, {", sh->rank);
    for (int i = 0; i < RT_MAX_RANK && n < CG_POOL_LEN; i++)
        n += snprintf(s + n, (size_t)(CG_POOL_LEN - n), "%s%d", i ? ", " : "", (int)sh->dims[i]);
    if (n < CG_POOL_LEN) snprintf(s + n, (size_t)(CG_POOL_LEN - n), "}}");
    return s;
}

static void f32_literal(char *s, size_t n, float v) {
    if (isnan(v)) {
        snprintf(s, n, "NAN");
        return;
    }
    if (isinf(v)) {
        snprintf(s, n, v > 0 ? "INFINITY" : "-INFINITY");
        return;
    }
    char tmp[48];
    snprintf(tmp, sizeof tmp, "%.9g", (double)v);
    if (!strpbrk(tmp, ".e")) strcat(tmp, ".0");
    snprintf(s, n, "%sf", tmp);
}

const char *cg_f32(CgCtx *cg, float v) {
    char *s = cg_pool_str(cg);
    f32_literal(s, CG_POOL_LEN, v);
    return s;
}

#define ARRAY_EMITTER(fn, T, ctype, per_line, FMT, CAST)                                   \
    void fn(CgCtx *cg, const char *name, const T *v, int64_t n) {                         \
        indent(cg);                                                                          \
        cgbuf_printf(cg->out, "static const %s %s[%lld] MPCC_CONST_ALIGN = {", ctype, name, (long long)(n > 0 ? n : 1)); \
        if (n <= 0) cgbuf_append(cg->out, "0", 1);                                          \
        for (int64_t i = 0; i < n; i++) {                                                    \
            if (i % (per_line) == 0 && n > (per_line)) {                                     \
                cgbuf_append(cg->out, "\n", 1);                                              \
                cg->depth++;                                                                 \
                indent(cg);                                                                  \
                cg->depth--;                                                                 \
            }                                                                                \
            cgbuf_printf(cg->out, FMT "%s", CAST(v[i]), i + 1 < n ? ", " : "");             \
        }                                                                                    \
        if (n > (per_line)) {                                                                \
            cgbuf_append(cg->out, "\n", 1);                                                  \
            indent(cg);                                                                      \
        }                                                                                    \
        cgbuf_append(cg->out, "};\n", 3);                                                   \
    }

#define AS_INT(x) ((int)(x))
#define AS_LONG(x) ((long)(x))
ARRAY_EMITTER(cg_array_i32, int32_t, "int32_t", 8, "%ld", AS_LONG)
ARRAY_EMITTER(cg_array_i16, int16_t, "int16_t", 12, "%d", AS_INT)
ARRAY_EMITTER(cg_array_i8, int8_t, "int8_t", 16, "%d", AS_INT)
ARRAY_EMITTER(cg_array_u8, uint8_t, "uint8_t", 16, "%d", AS_INT)

void cg_array_f32(CgCtx *cg, const char *name, const float *v, int64_t n) {
    char lit[64];
    indent(cg);
    cgbuf_printf(cg->out, "static const float %s[%lld] MPCC_CONST_ALIGN = {", name, (long long)(n > 0 ? n : 1));
    if (n <= 0) cgbuf_append(cg->out, "0.0f", 4);
    for (int64_t i = 0; i < n; i++) {
        if (i % 6 == 0 && n > 6) {
            cgbuf_append(cg->out, "\n", 1);
            cg->depth++;
            indent(cg);
            cg->depth--;
        }
        f32_literal(lit, sizeof lit, v[i]);
        cgbuf_printf(cg->out, "%s%s", lit, i + 1 < n ? ", " : "");
    }
    if (n > 6) {
        cgbuf_append(cg->out, "\n", 1);
        indent(cg);
    }
    cgbuf_append(cg->out, "};\n", 3);
}
