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

static int model_has_custom_ops(const Graph *g) {
    for (int i = 0; i < g->n_ops; i++)
        if (!g->ops[i].dead && g->ops[i].kind == OP_CUSTOM) return 1;
    return 0;
}

static int model_has_guards(const Graph *g) {
    for (int i = 0; i < g->n_ops; i++)
        if (!g->ops[i].dead && g->ops[i].guard) return 1;
    return 0;
}

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
                 model_has_guards(g) ? ",\n * or 2 if a shape input differs from the shape the model was compiled for" : "",
                 model_has_custom_ops(g) ? ",\n * or 3 if a custom operator's kernel returned non-zero" : "");
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

int cg_emit_model(const Graph *g, const EmitOptions *o, char **c_src, char **h_src, unsigned char **weights,
                  size_t *weights_len, Diag *d) {
    CgBuf c = {0}, h = {0};
    CgCtx *cg = calloc(1, sizeof *cg);
    const char **names = calloc((size_t)g->n_tensors + 1, sizeof(char *));
    int64_t *woff = calloc((size_t)g->n_tensors + 1, sizeof(int64_t));
    char **owned = calloc((size_t)g->n_tensors + 1, sizeof(char *));
    unsigned char *blob = NULL;
    int rc = 0;
    if (!cg || !names || !woff || !owned) {
        rc = diag_internal(d, "out of memory");
        goto done;
    }
    char P[128];
    size_t j = 0;
    for (const char *s = o->prefix; *s && j + 1 < sizeof P; s++) P[j++] = (char)toupper((unsigned char)*s);
    P[j] = '\0';
    cg->out = &c;
    cg->g = g;
    cg->prefix = o->prefix;
    cg->weights_file = o->weights_file;
    cg->const_name = names;
    cg->const_offset = woff;

    /* Which constants are used by live ops. */
    char *used = calloc((size_t)g->n_tensors + 1, 1);
    if (!used) {
        rc = diag_internal(d, "out of memory");
        goto done;
    }
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

    /* Names and blob offsets for every constant a live op may read; only
     * the ones the emitted kernels actually reference are written out. */
    size_t blob_len = 0;
    for (int i = 0; i < g->n_tensors; i++) {
        if (!used[i]) continue;
        const IrTensor *t = &g->tensors[i];
        woff[i] = (int64_t)blob_len;
        blob_len += (t->data_size + 15) / 16 * 16;
        owned[i] = dup_str(cg_sanitize(cg, t->name, i));
        if (!owned[i]) {
            rc = diag_internal(d, "out of memory");
            free(used);
            goto done;
        }
        names[i] = owned[i];
    }
    cg->const_used = calloc((size_t)g->n_tensors + 1, 1);
    if (!cg->const_used) {
        rc = diag_internal(d, "out of memory");
        free(used);
        goto done;
    }
    free(used);

    /* The body of <prefix>_run first, into its own buffer. */
    CgBuf body = {0};
    cg->out = &body;
    cg->depth = 1;
    cg_line(cg, "unsigned char *a = (unsigned char *)arena;");
    if (o->weights_file) {
        cg_line(cg, "const unsigned char *weights = (const unsigned char *)weights_blob;");
        cg_line(cg, "if (!weights) return 1;");
    }
    cg_line(cg, "if (!inputs || !outputs || !arena) return 1;");
    cg_line(cg, "(void)a;");
    int index = 0;
    for (int i = 0; i < g->n_ops && !rc; i++) {
        const IrOp *op = &g->ops[i];
        if (op->dead) continue;
        cgbuf_append(&body, "\n", 1);
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
            if (o->weights_file)
                cg_line(cg, "memcpy(outputs[%d], weights + %lld, %lld);", i, (long long)woff[t->id],
                        (long long)ir_tensor_bytes(t));
            else
                cg_line(cg, "memcpy(outputs[%d], %s, %lld);", i, names[t->id], (long long)ir_tensor_bytes(t));
        }
    }
    cg_line(cg, "return 0;");
    cg->depth = 0;
    cg_line(cg, "}");
    if (rc) {
        free(body.s);
        goto done;
    }

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
            free(body.s);
            rc = diag_internal(d, "out of memory");
            goto done;
        }
    }
    for (int i = 0; i < g->n_tensors; i++) {
        if (!cg->const_used[i]) continue;
        const IrTensor *t = &g->tensors[i];
        if (o->weights_file) {
            memcpy(blob + woff[i], t->data, t->data_size);
            continue;
        }
        char buf[160], qb[128], safe[TXT_COMMENT_CAP];
        cgbuf_printf(&c, "/* tensor %d %s %s, %s */\n", i, txt_comment(safe, sizeof safe, t->name),
                     ir_tensor_desc(t, buf, sizeof buf), q_desc(t, qb, sizeof qb));
        emit_const_array(cg, t, names[i]);
    }

    cgbuf_printf(&c, "\nvoid %s_init(void *arena) {\n", o->prefix);
    cgbuf_printf(&c, "    unsigned char *a = (unsigned char *)arena;\n    (void)a;\n");
    for (int i = 0; i < g->n_tensors; i++) {
        const IrTensor *t = &g->tensors[i];
        if (!t->is_variable || t->offset < 0) continue;
        int fill = ir_variable_reset_value(t);
        char safe[TXT_COMMENT_CAP];
        cgbuf_printf(&c, "    memset(a + %lld, %d, %lld); /* state %s */\n", (long long)t->offset, fill,
                     (long long)ir_tensor_bytes(t), txt_comment(safe, sizeof safe, t->name));
    }
    cgbuf_printf(&c, "}\n\n");
    if (o->weights_file)
        cgbuf_printf(&c, "int %s_run(const void *const *inputs, void *const *outputs, void *arena, const void *weights_blob) {\n",
                     o->prefix);
    else
        cgbuf_printf(&c, "int %s_run(const void *const *inputs, void *const *outputs, void *arena) {\n", o->prefix);
    cgbuf_append(&c, body.s ? body.s : "", body.len);
    free(body.s);
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
    if (owned)
        for (int i = 0; i < g->n_tensors; i++) free(owned[i]);
    free(owned);
    free(names);
    free(woff);
    if (cg) free(cg->const_used);
    free(cg);
    return rc;
}
