/* emit_c.c - emits a prepared, planned Graph as standalone C99:
 *   <name>.h  the documented public API (arena size, I/O names, shapes,
 *             dtypes, quantization, <prefix>_init / <prefix>_run)
 *   <name>.c  constants, then one block per kernel, each preceded by a
 *             comment naming the TFLite operator index, op and shapes.
 * Output depends only on the graph and options: same input, same bytes. */
#include "emit_c.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cg_internal.h"
#include "emit_sched_c.h"
#include "ops.h"
#include "text.h"

static const char *q_desc(const IrTensor *t, char *buf, size_t n) {
    if (t->q.count == 0) snprintf(buf, n, "not quantized");
    else if (t->q.count == 1)
        snprintf(buf, n, "scale %.9g, zero point %lld", (double)t->q.scale[0], (long long)t->q.zero_point[0]);
    else snprintf(buf, n, "per-channel (%d scales, dim %d)", t->q.count, t->q.dim);
    return buf;
}

static void emit_const_array(CgCtx *cg, const IrTensor *t, const char *name) {
    int64_t n = ir_tensor_numel(t);
    const uint8_t *p = t->data;
    CgBuf *b = cg->out;
    switch (t->dtype) {
    case IR_F32: {
        float *v = malloc(sizeof(float) * (size_t)(n > 0 ? n : 1));
        if (!v) {
            b->oom = 1;
            return;
        }
        memcpy(v, p, sizeof(float) * (size_t)n);
        cg_array_f32(cg, name, v, n);
        free(v);
        return;
    }
    case IR_I8: cg_array_i8(cg, name, (const int8_t *)p, n); return;
    case IR_U8:
    case IR_BOOL: cg_array_u8(cg, name, p, n); return;
    default: break;
    }
    /* 16/32/64-bit integers and f16/bf16 bit patterns: decode little-endian. */
    size_t es = ir_dtype_size(t->dtype);
    cgbuf_printf(b, "static const %s %s[%lld] = {", ir_dtype_ctype(t->dtype), name, (long long)(n > 0 ? n : 1));
    if (n <= 0) cgbuf_append(b, "0", 1);
    for (int64_t i = 0; i < n; i++) {
        if (i % 8 == 0 && n > 8) cgbuf_append(b, "\n    ", 5);
        uint64_t u = 0;
        for (size_t k = 0; k < es; k++) u |= (uint64_t)p[i * (int64_t)es + (int64_t)k] << (8 * k);
        char lit[40];
        if (t->dtype == IR_I16) snprintf(lit, sizeof lit, "%d", (int)(int16_t)u);
        else if (t->dtype == IR_I32) snprintf(lit, sizeof lit, "%ld", (long)(int32_t)u);
        else if (t->dtype == IR_I64) {
            int64_t v = (int64_t)u;
            if (v == INT64_MIN) snprintf(lit, sizeof lit, "INT64_MIN");
            else snprintf(lit, sizeof lit, "INT64_C(%lld)", (long long)v);
        } else snprintf(lit, sizeof lit, "0x%04x", (unsigned)u);
        cgbuf_printf(b, "%s%s", lit, i + 1 < n ? ", " : "");
    }
    cgbuf_append(b, n > 8 ? "\n};\n" : "};\n", n > 8 ? 4 : 3);
}

static void op_comment(CgCtx *cg, const Graph *g, const IrOp *op, int index) {
    char buf[160], nb[TXT_COMMENT_CAP];
    cg_line(cg, "/* op %d: TFLite operator #%d %s%s%s%s */", index, op->tfl_index, ir_op_name(op->kind),
            op->fused[0] ? " (fused: " : "", op->fused, op->fused[0] ? ")" : "");
    for (int k = 0; k < op->n_in; k++) {
        if (op->in[k] < 0) continue;
        const IrTensor *t = &g->tensors[op->in[k]];
        cg_line(cg, "/*   in%d  %-24s %s */", k, ir_tensor_desc(t, buf, sizeof buf), txt_comment(nb, sizeof nb, t->name));
    }
    for (int k = 0; k < op->n_out; k++) {
        const IrTensor *t = &g->tensors[op->out[k]];
        cg_line(cg, "/*   out%d %-24s %s */", k, ir_tensor_desc(t, buf, sizeof buf), txt_comment(nb, sizeof nb, t->name));
    }
    if (op->sched.kind != SCHED_REF) cg_sched_comment(cg, g, op);
}

static char *dup_str(const char *s) {
    size_t n = strlen(s) + 1;
    char *p = malloc(n);
    if (p) memcpy(p, s, n);
    return p;
}

static void emit_io_macros(CgBuf *h, const Graph *g, const char *P, int is_out) {
    int n = is_out ? g->n_outputs : g->n_inputs;
    const char *kind = is_out ? "OUTPUT" : "INPUT";
    for (int i = 0; i < n; i++) {
        const IrTensor *t = &g->tensors[is_out ? g->outputs[i] : g->inputs[i]];
        const char *name = is_out ? g->output_names[i] : g->input_names[i];
        char buf[160], qb[128], safe[TXT_COMMENT_CAP], lit[TXT_LITERAL_CAP];
        cgbuf_printf(h, "\n/* %s %d: %s, %s, %s */\n", is_out ? "output" : "input", i,
                     txt_comment(safe, sizeof safe, name), ir_tensor_desc(t, buf, sizeof buf),
                     q_desc(t, qb, sizeof qb));
        cgbuf_printf(h, "#define %s_%s%d_NAME %s", P, kind, i, txt_c_string(lit, sizeof lit, name));
        cgbuf_printf(h, "\n#define %s_%s%d_DTYPE %d /* %s */\n", P, kind, i, (int)t->dtype,
                     ir_dtype_name(t->dtype));
        cgbuf_printf(h, "typedef %s %s_%s%d_t;\n", ir_dtype_ctype(t->dtype), P, kind, i);
        cgbuf_printf(h, "#define %s_%s%d_RANK %d\n#define %s_%s%d_DIMS {", P, kind, i, t->rank, P, kind, i);
        for (int k = 0; k < t->rank; k++) cgbuf_printf(h, "%s%lld", k ? ", " : "", (long long)t->dims[k]);
        if (t->rank == 0) cgbuf_printf(h, "1");
        cgbuf_printf(h, "}\n#define %s_%s%d_SIZE %lld /* elements */\n", P, kind, i, (long long)ir_tensor_numel(t));
        cgbuf_printf(h, "#define %s_%s%d_BYTES %lld\n", P, kind, i, (long long)ir_tensor_bytes(t));
        if (t->q.count == 1) {
            char lit[48];
            snprintf(lit, sizeof lit, "%.9g", (double)t->q.scale[0]);
            if (!strpbrk(lit, ".e")) strcat(lit, ".0");
            cgbuf_printf(h, "#define %s_%s%d_SCALE %sf\n#define %s_%s%d_ZERO_POINT %lld\n", P, kind, i, lit, P, kind,
                         i, (long long)t->q.zero_point[0]);
        }
    }
}

/* 1 if a live op of the model (any of its subgraphs) satisfies pred. */
static int model_has(const Graph *g, int (*pred)(const IrOp *)) {
    for (int k = 0; k < (g->n_sub > 1 ? g->n_sub : 1); k++) {
        const Graph *sg = k == 0 ? g : g->sub[k];
        for (int i = 0; sg && i < sg->n_ops; i++)
            if (!sg->ops[i].dead && pred(&sg->ops[i])) return 1;
    }
    return 0;
}

static int is_custom(const IrOp *op) { return op->kind == OP_CUSTOM; }
static int has_guard(const IrOp *op) { return op->guard != NULL; }

static void emit_header(CgBuf *h, const Graph *g, const EmitOptions *o, const char *P, size_t blob_len) {
    char guard[128];
    size_t j = 0;
    for (const char *s = o->prefix; *s && j + 1 < sizeof guard; s++) guard[j++] = (char)toupper((unsigned char)*s);
    guard[j] = '\0';
    char hn[TXT_COMMENT_CAP], sn[TXT_COMMENT_CAP];
    cgbuf_printf(h, "/* %s - generated by mpcc %s from %s. Do not edit.\n", txt_comment(hn, sizeof hn, o->header_name),
                 MPCC_VERSION, txt_comment(sn, sizeof sn, o->source_name));
    cgbuf_printf(h,
                 " *\n"
                 " * Usage:\n"
                 " *   static double arena[%s_ARENA_BYTES / 8 + 1];  (never zero-sized; 8-byte aligned, 64 is better)\n"
                 " *   %s_init(arena);                  once, resets the model's state\n"
                 " *   const void *in[%s_NUM_INPUTS] = {...};  void *out[%s_NUM_OUTPUTS] = {...};\n"
                 " *   int rc = %s_run(in, out, arena%s);  0 on success\n"
                 " * Inputs and outputs are caller buffers in model order, dense row-major,\n"
                 " * of the dtypes and shapes below. The arena holds all intermediate values\n"
                 " * (and the state of stateful models at its start); the code uses no other\n"
                 " * mutable memory, so threads may run the model concurrently with separate\n"
                 " * arenas. Link with mpcc's runtime/ sources and libm.\n */\n",
                 P, o->prefix, P, P, o->prefix, o->weights_file ? ", weights" : "");
    int scheduled = 0;
    for (int i = 0; i < g->n_ops; i++) scheduled += !g->ops[i].dead && g->ops[i].sched.kind != SCHED_REF;
    if (scheduled)
        cgbuf_printf(h,
                     "/* Kernels: %d ops run mpcc's optimized kernels (runtime/rt_opt*.c), the rest its\n"
                     " * reference kernels. Vector paths: x86 AVX2+FMA, compiled in when the compiler\n"
                     " * targets them (-mavx2 -mfma, or -march=native); otherwise portable C99 with the\n"
                     " * same integer results. Build with -O3 -march=native for speed. */\n",
                     scheduled);
    else
        cgbuf_printf(h, "/* Kernels: mpcc's reference kernels (runtime/kernels). */\n");
    cgbuf_printf(h, "#ifndef %s_MODEL_H\n#define %s_MODEL_H\n\n#include <stddef.h>\n#include <stdint.h>\n\n", guard,
                 guard);
    cgbuf_printf(h, "#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n");
    cgbuf_printf(h, "/* Bytes of working memory %s_run needs (state %lld + activations). */\n", o->prefix,
                 (long long)g->state_bytes);
    cgbuf_printf(h, "#define %s_ARENA_BYTES %lld\n", P, (long long)g->arena_bytes);
    cgbuf_printf(h, "#define %s_STATE_BYTES %lld\n", P, (long long)g->state_bytes);
    cgbuf_printf(h, "#define %s_NUM_INPUTS %d\n#define %s_NUM_OUTPUTS %d\n", P, g->n_inputs, P, g->n_outputs);
    cgbuf_printf(h, "/* dtype codes: 0 f32, 1 f16, 2 bf16, 3 i8, 4 u8, 5 i16, 6 i32, 7 i64, 8 bool */\n");
    emit_io_macros(h, g, P, 0);
    emit_io_macros(h, g, P, 1);
    cgbuf_printf(h, "\n/* Resets the state part of the arena (stateful ops such as SVDF/LSTM);\n"
                    " * call once before the first run. */\n");
    cgbuf_printf(h, "void %s_init(void *arena);\n\n", o->prefix);
    cgbuf_printf(h, "/* Runs the model. Returns 0, or 1 if an argument is NULL%s%s. */\n",
                 model_has(g, has_guard) ? ",\n * or 2 if a shape input differs from the shape the model was compiled for" : "",
                 model_has(g, is_custom) ? ",\n * or 3 if a custom operator's kernel returned non-zero" : "");
    if (o->weights_file)
        cgbuf_printf(h,
                     "/* weights: the contents of the .weights.bin file written with the model,\n"
                     " * %s_WEIGHTS_BYTES bytes, 16-byte aligned. */\n"
                     "#define %s_WEIGHTS_BYTES %lld\n"
                     "int %s_run(const void *const *inputs, void *const *outputs, void *arena, const void *weights);\n",
                     P, P, (long long)blob_len, o->prefix);
    else
        cgbuf_printf(h, "int %s_run(const void *const *inputs, void *const *outputs, void *arena);\n", o->prefix);
    cgbuf_printf(h, "\n#ifdef __cplusplus\n}\n#endif\n\n#endif\n");
}

/* What the emitter keeps per graph: the model's, and each control-flow
 * subgraph's (a static function <prefix>_subgraph<k>). Tensor ids are per
 * graph, so are the constant names and blob offsets. */
typedef struct GraphCode {
    const Graph *g;
    const char **names;     /* per tensor: C name of its constant */
    int64_t *woff;          /* per tensor: offset in the weights blob */
    char **owned;
    char *const_used;       /* per tensor: referenced by the emitted code */
    CgBuf body;
} GraphCode;

static void graph_code_free(GraphCode *gc) {
    if (gc->owned)
        for (int i = 0; i < gc->g->n_tensors; i++) free(gc->owned[i]);
    free(gc->owned);
    free(gc->names);
    free(gc->woff);
    free(gc->const_used);
    free(gc->body.s);
}

/* Makes cg emit for graph gc->g. */
static void use_graph(CgCtx *cg, GraphCode *gc) {
    cg->g = gc->g;
    cg->const_name = gc->names;
    cg->const_offset = gc->woff;
    cg->const_used = gc->const_used;
}

/* Names and blob offsets (from *blob_len on) for every constant a live op may
 * read; only the ones the emitted kernels actually reference are written out. */
static int graph_code_init(CgCtx *cg, GraphCode *gc, const Graph *g, size_t *blob_len, Diag *d) {
    gc->g = g;
    gc->names = calloc((size_t)g->n_tensors + 1, sizeof(char *));
    gc->woff = calloc((size_t)g->n_tensors + 1, sizeof(int64_t));
    gc->owned = calloc((size_t)g->n_tensors + 1, sizeof(char *));
    gc->const_used = calloc((size_t)g->n_tensors + 1, 1);
    char *used = calloc((size_t)g->n_tensors + 1, 1);
    if (!gc->names || !gc->woff || !gc->owned || !gc->const_used || !used) {
        free(used);
        return diag_internal(d, "out of memory");
    }
    use_graph(cg, gc);
    for (int i = 0; i < g->n_ops; i++) {
        const IrOp *op = &g->ops[i];
        if (op->dead || op->elided) continue;
        for (int k = 0; k < op->n_in; k++)
            if (op->in[k] >= 0 && g->tensors[op->in[k]].data) used[op->in[k]] = 1;
        if (op->sched.kind != SCHED_REF) {
            if (op->sched.packed_w >= 0) used[op->sched.packed_w] = 1;
            if (op->sched.packed_b >= 0) used[op->sched.packed_b] = 1;
        }
    }
    for (int i = 0; i < g->n_outputs; i++)
        if (g->tensors[g->outputs[i]].data) used[g->outputs[i]] = 1;
    for (int i = 0; i < g->n_tensors; i++) {
        if (!used[i]) continue;
        const IrTensor *t = &g->tensors[i];
        gc->woff[i] = (int64_t)*blob_len;
        *blob_len += (t->data_size + 15) / 16 * 16;
        gc->owned[i] = dup_str(cg_sanitize(cg, t->name, i));
        if (!gc->owned[i]) {
            free(used);
            return diag_internal(d, "out of memory");
        }
        gc->names[i] = gc->owned[i];
    }
    free(used);
    return 0;
}

/* The operators of a graph, one block each, then the copies of outputs that
 * are inputs or constants, and `return 0;`, into cg's current buffer. */
static int emit_ops(CgCtx *cg, const Graph *g, Diag *d) {
    int rc = 0, index = 0;
    for (int i = 0; i < g->n_ops && !rc; i++) {
        const IrOp *op = &g->ops[i];
        if (op->dead) continue;
        cgbuf_append(cg->out, "\n", 1);
        op_comment(cg, g, op, index++);
        op_emit_guard(cg, g, op);
        if (op->elided) {
            cg_line(cg, "/* in place: the output shares the input's memory, nothing to do */");
            continue;
        }
        const OpDef *def = op_def(op->kind);
        if (!def || !def->emit_c) {
            rc = diag_user(d, "operator %d (%s): the C backend has no emitter for it", op->tfl_index,
                           ir_op_name(op->kind));
            break;
        }
        cg_open(cg, "{");
        rc = op->sched.kind != SCHED_REF ? cg_emit_sched(cg, g, op, d) : def->emit_c(cg, g, op, d);
        cg_close(cg, "}");
    }
    /* A graph output that is also an input or a constant needs a copy. */
    for (int i = 0; i < g->n_outputs && !rc; i++) {
        const IrTensor *t = &g->tensors[g->outputs[i]];
        if (!t->data && !t->is_input) continue;
        int from = -1;
        for (int k = 0; k < g->n_inputs; k++)
            if (g->inputs[k] == t->id) from = k;
        if (from >= 0) {
            cg_line(cg, "memcpy(outputs[%d], inputs[%d], %lld);", i, from, (long long)ir_tensor_bytes(t));
        } else {
            cg->const_used[t->id] = 1;
            if (cg->weights_file)
                cg_line(cg, "memcpy(outputs[%d], weights + %lld, %lld);", i, (long long)cg->const_offset[t->id],
                        (long long)ir_tensor_bytes(t));
            else
                cg_line(cg, "memcpy(outputs[%d], %s, %lld);", i, cg->const_name[t->id], (long long)ir_tensor_bytes(t));
        }
    }
    cg_line(cg, "return 0;");
    return rc;
}

/* The constants gc's code references: static const arrays, or copied into the blob. */
static void emit_constants(CgCtx *cg, GraphCode *gc, CgBuf *c, unsigned char *blob) {
    const Graph *g = gc->g;
    use_graph(cg, gc);
    cg->out = c;
    for (int i = 0; i < g->n_tensors; i++) {
        if (!gc->const_used[i]) continue;
        const IrTensor *t = &g->tensors[i];
        if (blob) {
            memcpy(blob + gc->woff[i], t->data, t->data_size);
            continue;
        }
        char buf[160], qb[128], safe[TXT_COMMENT_CAP];
        if (g->root) cgbuf_printf(c, "/* subgraph %d ", g->tfl_subgraph);
        else cgbuf_printf(c, "/* ");
        cgbuf_printf(c, "tensor %d %s %s, %s */\n", i, txt_comment(safe, sizeof safe, t->name),
                     ir_tensor_desc(t, buf, sizeof buf), q_desc(t, qb, sizeof qb));
        emit_const_array(cg, t, gc->names[i]);
    }
}

static void subgraph_signature(CgBuf *c, const EmitOptions *o, int k) {
    cgbuf_printf(c, "static int %s_subgraph%d(const void *const *inputs, void *const *outputs, unsigned char *a%s)",
                 o->prefix, k, o->weights_file ? ", const unsigned char *weights" : "");
}

int cg_emit_model(const Graph *g, const EmitOptions *o, char **c_src, char **h_src, unsigned char **weights,
                  size_t *weights_len, Diag *d) {
    CgBuf c = {0}, h = {0};
    CgCtx *cg = calloc(1, sizeof *cg);
    int n_gc = g->n_sub > 1 ? g->n_sub : 1;
    GraphCode *gcs = calloc((size_t)n_gc, sizeof *gcs);
    unsigned char *blob = NULL;
    size_t blob_len = 0;
    int rc = 0;
    if (!cg || !gcs) {
        rc = diag_internal(d, "out of memory");
        goto done;
    }
    char P[128];
    size_t j = 0;
    for (const char *s = o->prefix; *s && j + 1 < sizeof P; s++) P[j++] = (char)toupper((unsigned char)*s);
    P[j] = '\0';
    cg->prefix = o->prefix;
    cg->weights_file = o->weights_file;
    /* gcs[0]: the model (TFLite subgraph 0); gcs[k]: control-flow subgraph k, if compiled. */
    for (int k = 0; k < n_gc && !rc; k++) {
        const Graph *sg = k == 0 ? g : g->sub[k];
        if (sg) rc = graph_code_init(cg, &gcs[k], sg, &blob_len, d);
    }
    /* The bodies first, into their own buffers: they decide which constants are used. */
    for (int k = 0; k < n_gc && !rc; k++) {
        if (!gcs[k].g) continue;
        use_graph(cg, &gcs[k]);
        cg->out = &gcs[k].body;
        cg->depth = 1;
        if (k == 0) {
            cg_line(cg, "unsigned char *a = (unsigned char *)arena;");
            if (o->weights_file) {
                cg_line(cg, "const unsigned char *weights = (const unsigned char *)weights_blob;");
                cg_line(cg, "if (!weights) return 1;");
            }
            cg_line(cg, "if (!inputs || !outputs || !arena) return 1;");
            cg_line(cg, "(void)a;");
        } else {
            cg_line(cg, "(void)inputs, (void)outputs, (void)a%s;", o->weights_file ? ", (void)weights" : "");
        }
        rc = emit_ops(cg, gcs[k].g, d);
        cg->depth = 0;
        cg_line(cg, "}");
    }
    if (rc) goto done;

    cg->out = &c;
    char hn[TXT_COMMENT_CAP], sn[TXT_COMMENT_CAP];
    cgbuf_printf(&c, "/* %s.c - generated by mpcc %s from %s. Do not edit.\n", o->prefix, MPCC_VERSION,
                 txt_comment(sn, sizeof sn, o->source_name));
    cgbuf_printf(&c, " * See %s for the API. Each kernel block below names the TFLite operator\n"
                     " * it implements; kernels are from mpcc's runtime (runtime/kernels). */\n",
                 txt_comment(hn, sizeof hn, o->header_name));
    cgbuf_printf(&c, "#include \"%s\"\n\n#include <string.h>\n\n#include \"mpcc_rt.h\"\n\n", o->header_name);
    if (o->weights_file) {
        blob = calloc(blob_len ? blob_len : 1, 1);
        if (!blob) {
            rc = diag_internal(d, "out of memory");
            goto done;
        }
    }
    for (int k = 0; k < n_gc; k++)
        if (gcs[k].g) emit_constants(cg, &gcs[k], &c, blob);
    /* Control-flow subgraphs: prototypes first (they may call each other), then the functions. */
    if (n_gc > 1) cgbuf_printf(&c, "\n");
    for (int k = 1; k < n_gc; k++) {
        if (!gcs[k].g) continue;
        subgraph_signature(&c, o, k);
        cgbuf_printf(&c, ";\n");
    }
    for (int k = 1; k < n_gc; k++) {
        if (!gcs[k].g) continue;
        cgbuf_printf(&c, "\n/* TFLite subgraph %d, run by control flow: inputs and outputs as for %s_run, a: its arena. */\n",
                     k, o->prefix);
        subgraph_signature(&c, o, k);
        cgbuf_printf(&c, " {\n");
        cgbuf_append(&c, gcs[k].body.s ? gcs[k].body.s : "", gcs[k].body.len);
    }

    cgbuf_printf(&c, "\nvoid %s_init(void *arena) {\n", o->prefix);
    cgbuf_printf(&c, "    unsigned char *a = (unsigned char *)arena;\n    (void)a;\n");
    for (int i = 0; i < g->n_tensors; i++) {
        const IrTensor *t = &g->tensors[i];
        if (!t->is_variable || t->offset < 0) continue;
        int fill = ir_variable_reset_value(t);
        char safe[TXT_COMMENT_CAP];
        if (t->init) {
            /* A resource variable's initial value (CALL_ONCE), embedded even with --weights file:
             * <prefix>_init takes no weights. */
            char name[64];
            snprintf(name, sizeof name, "init%d", i);
            cgbuf_printf(&c, "    {\n");
            cg->out = &c;
            cg->depth = 2;
            cg_array_u8(cg, name, t->init, ir_tensor_bytes(t));
            cgbuf_printf(&c, "        memcpy(a + %lld, %s, %lld); /* state %s */\n    }\n", (long long)t->offset, name,
                         (long long)ir_tensor_bytes(t), txt_comment(safe, sizeof safe, t->name));
            continue;
        }
        cgbuf_printf(&c, "    memset(a + %lld, %d, %lld); /* state %s */\n", (long long)t->offset, fill,
                     (long long)ir_tensor_bytes(t), txt_comment(safe, sizeof safe, t->name));
    }
    cgbuf_printf(&c, "}\n\n");
    if (o->weights_file)
        cgbuf_printf(&c, "int %s_run(const void *const *inputs, void *const *outputs, void *arena, const void *weights_blob) {\n",
                     o->prefix);
    else
        cgbuf_printf(&c, "int %s_run(const void *const *inputs, void *const *outputs, void *arena) {\n", o->prefix);
    cgbuf_append(&c, gcs[0].body.s ? gcs[0].body.s : "", gcs[0].body.len);
    emit_header(&h, g, o, P, blob_len);
    if (c.oom || h.oom) {
        rc = diag_internal(d, "out of memory while emitting C");
        goto done;
    }
    *c_src = c.s;
    *h_src = h.s;
    c.s = h.s = NULL;
    if (weights) {
        *weights = blob;
        *weights_len = blob ? blob_len : 0;
        blob = NULL;
    }
done:
    free(c.s);
    free(h.s);
    free(blob);
    for (int k = 0; gcs && k < n_gc; k++)
        if (gcs[k].g) graph_code_free(&gcs[k]);
    free(gcs);
    free(cg);
    return rc;
}
