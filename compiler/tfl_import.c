/* tfl_import.c - TFLite FlatBuffer (schema v3) -> Graph.
 * The file is untrusted: the FlatBuffers reader bounds-checks every access,
 * and this file checks indices, counts, dtypes and sizes before use. */
#include "tfl_import.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fb.h"
#include "fold_const.h"
#include "ops.h"
#include "tfl_import_internal.h"
#include "tfl_schema.h"
#include "text.h"

int tfl_read_index_list(Importer *im, FbTable *t, int field, int n_tensors, int allow_absent, int **out, int *n,
                           const char *what) {
    FbVec v;
    int present = 0;
    if (fb_vector(t, field, 4, &v, &present, im->d)) return DIAG_USER;
    *n = present ? (int)v.len : 0;
    if (*n > TFL_MAX_OP_IO) return diag_user(im->d, "%s: %d tensor indices is too many", what, *n);
    *out = ir_alloc(im->g, sizeof(int) * (size_t)(*n > 0 ? *n : 1));
    if (!*out) return diag_internal(im->d, "out of memory");
    for (int i = 0; i < *n; i++) {
        int32_t x;
        if (fb_vec_i32(&v, (uint32_t)i, &x, im->d)) return DIAG_USER;
        if (x == -1 && allow_absent) {
            (*out)[i] = -1;
            continue;
        }
        if (x < 0 || x >= n_tensors)
            return diag_user(im->d, "%s: tensor index %d at position %d is out of range (subgraph has %d tensors)",
                             what, x, i, n_tensors);
        (*out)[i] = x;
    }
    return 0;
}

/* The model's signatures. Pass 0 records every signature's key and subgraph
 * (checking the index); pass 1 gives each compiled subgraph (0, and those of
 * the entry points) the public I/O names of its first signature, checking its
 * tensor indices. */
static int import_signatures(Importer *im, FbTable *model, int n_subgraphs, int pass) {
    FbVec sigs;
    int present = 0;
    Graph *g = im->g;
    char *named = calloc((size_t)n_subgraphs, 1);
    if (!named) return diag_internal(im->d, "out of memory");
    if (fb_vector(model, TFL_MODEL_SIGNATURE_DEFS, 4, &sigs, &present, im->d)) goto user;
    for (uint32_t s = 0; present && s < sigs.len; s++) {
        FbTable st;
        uint32_t sub = 0, klen = 0;
        const char *key = NULL;
        int has_key = 0;
        if (fb_vec_table(&sigs, s, &st, im->d) || fb_u32(&st, TFL_SIGNATURE_DEF_SUBGRAPH_INDEX, 0, &sub, im->d) ||
            fb_string(&st, TFL_SIGNATURE_DEF_SIGNATURE_KEY, &key, &klen, &has_key, im->d))
            goto user;
        if (!has_key) key = "", klen = 0;
        if (sub >= (uint32_t)n_subgraphs) {
            char kb[TXT_TERMINAL_CAP];
            diag_user(im->d, "signature %u '%s': subgraph index %u out of range (model has %d subgraph%s)", s,
                      txt_terminal(kb, sizeof kb, ir_strndup(g, key, klen), TXT_TERMINAL_MAX), sub, n_subgraphs,
                      n_subgraphs == 1 ? "" : "s");
            goto user;
        }
        if (pass == 0) {
            if (s < (uint32_t)im->info->n_signatures) {
                im->info->signature_keys[s] = ir_strndup(g, key, klen);
                im->info->signature_subgraphs[s] = (int)sub;
            }
            continue;
        }
        Graph *sg = sub == 0 ? g : g->sub[sub];
        if (!sg || named[sub]) continue; /* not compiled, or named by an earlier signature */
        for (int io = 0; io < 2; io++) {
            FbVec maps;
            int has = 0;
            if (fb_vector(&st, io ? TFL_SIGNATURE_DEF_OUTPUTS : TFL_SIGNATURE_DEF_INPUTS, 4, &maps, &has, im->d))
                goto user;
            for (uint32_t m = 0; has && m < maps.len; m++) {
                FbTable mt;
                const char *name;
                uint32_t len, ti = 0;
                int has_name = 0;
                if (fb_vec_table(&maps, m, &mt, im->d) ||
                    fb_string(&mt, TFL_TENSOR_MAP_NAME, &name, &len, &has_name, im->d) ||
                    fb_u32(&mt, TFL_TENSOR_MAP_TENSOR_INDEX, 0, &ti, im->d))
                    goto user;
                if (!has_name) continue;
                int found = 0;
                int n = io ? sg->n_outputs : sg->n_inputs;
                for (int k = 0; k < n; k++) {
                    int tid = io ? sg->outputs[k] : sg->inputs[k];
                    if (sg->tensors[tid].tfl_index == (int)ti) {
                        const char **names = io ? sg->output_names : sg->input_names;
                        names[k] = ir_strndup(sg, name, len);
                        found = 1;
                    }
                }
                if (!found && sub == 0 && ti >= (uint32_t)g->n_tensors) {
                    char kb[TXT_TERMINAL_CAP], nb[TXT_TERMINAL_CAP];
                    diag_user(im->d, "signature %u '%s': %s '%s' refers to tensor %u, but subgraph 0 has %d tensors", s,
                              txt_terminal(kb, sizeof kb, im->info->signature_keys[s], TXT_TERMINAL_MAX),
                              io ? "output" : "input",
                              txt_terminal(nb, sizeof nb, ir_strndup(g, name, len), TXT_TERMINAL_MAX), ti, g->n_tensors);
                    goto user;
                }
            }
        }
        named[sub] = 1;
    }
    free(named);
    return 0;
user:
    free(named);
    return DIAG_USER;
}

/* 1 if key is one of the comma-separated names of list. */
static int in_list(const char *list, const char *key) {
    size_t n = strlen(key);
    for (const char *p = list; p;) {
        const char *e = strchr(p, ',');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        if (len == n && strncmp(p, key, n) == 0) return 1;
        p = e ? e + 1 : NULL;
    }
    return 0;
}

static int import_child(Importer *parent, int index);

/* 1 if a and b are the same identifier but for case. */
static int same_ident(const char *a, const char *b) {
    for (; *a && *b; a++, b++)
        if (toupper((unsigned char)*a) != toupper((unsigned char)*b)) return 0;
    return *a == *b;
}


static int import_child(Importer *parent, int index);

/* Imports a signature's subgraph s, the subgraphs it calls first (as for
 * subgraph 0); every one of them even when one fails. */
static int import_entry(Importer *im, int s) {
    int n = 0, rc = 0, *order = malloc(sizeof(int) * (size_t)im->g->n_sub);
    unsigned char *state = calloc((size_t)im->g->n_sub, 1);
    if (!order || !state) rc = diag_internal(im->d, "out of memory");
    if (!rc) rc = tfl_call_order(im, s, 0, state, order, &n);
    for (int i = 0; !rc && i < n; i++) {
        int crc = import_child(im, order[i]);
        if (crc == DIAG_INTERNAL || (crc && order[i] == s)) rc = crc;
    }
    free(order);
    free(state);
    return rc;
}

/* The entry points: every signature (or those --signature names), each with a
 * C identifier made of its key, unique (compared case-insensitively, as the
 * header's macros are upper case: a later duplicate gets _2, _3, ...); the
 * subgraph of each is imported. */
static int select_entries(Importer *im, const char *list) {
    Graph *g = im->g;
    TflInfo *info = im->info;
    int n = info->n_signatures;
    char kb[TXT_TERMINAL_CAP];
    for (const char *p = list; p;) {
        const char *e = strchr(p, ',');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        const char *want = ir_strndup(g, p, len);
        int found = 0;
        for (int s = 0; s < n; s++) found |= info->signature_keys[s] && strcmp(info->signature_keys[s], want) == 0;
        if (!found) {
            char *all = ir_strndup(g, "", 0);
            for (int s = 0; s < n; s++)
                all = ir_sprintf(g, "%s%s'%s'", all, s ? ", " : "",
                                 txt_terminal(kb, sizeof kb, info->signature_keys[s], TXT_TERMINAL_MAX));
            return diag_user(im->d, "--signature %s: the model has no signature of that name (it has %s%s)",
                             txt_terminal(kb, sizeof kb, want, TXT_TERMINAL_MAX), n ? "" : "none", all);
        }
        p = e ? e + 1 : NULL;
    }
    g->entry_key = ir_alloc(g, sizeof(char *) * (size_t)(n + 1));
    g->entry_c = ir_alloc(g, sizeof(char *) * (size_t)(n + 1));
    g->entry_sub = ir_alloc(g, sizeof(int) * (size_t)(n + 1));
    if (!g->entry_key || !g->entry_c || !g->entry_sub) return diag_internal(im->d, "out of memory");
    int rc = 0;
    for (int s = 0; s < n; s++) {
        const char *key = info->signature_keys[s];
        if (!key || (list && !in_list(list, key))) continue;
        char id[TXT_IDENT_MAX + 8];
        txt_c_ident(id, sizeof id, key);
        const char *c = ir_strndup(g, id, strlen(id));
        for (int dup = 2;; dup++) {
            int clash = 0;
            for (int e = 0; e < g->n_entries; e++) clash |= same_ident(g->entry_c[e], c);
            if (!clash) break;
            c = ir_sprintf(g, "%s_%d", id, dup);
        }
        int k = g->n_entries++;
        g->entry_key[k] = key;
        g->entry_c[k] = c;
        g->entry_sub[k] = info->signature_subgraphs[s];
        if (g->entry_sub[k] > 0) {
            int crc = import_entry(im, g->entry_sub[k]);
            if (crc == DIAG_INTERNAL) return crc;
            if (crc && !rc) rc = crc;
        }
    }
    return rc;
}

/* Marks the outputs of an operator that was not imported or not checked as
 * unknown (lenient import): their consumers are then not checked either. */
void tfl_mark_unknown(Graph *g, int n_out, const int *out) {
    for (int k = 0; k < n_out; k++)
        if (out[k] >= 0) g->tensors[out[k]].unknown = 1;
}

static int import_operator(Importer *im, FbTable *ot, int index, int n_tensors) {
    Diag *d = im->d;
    Graph *g = im->g;
    uint32_t oc = 0;
    if (fb_u32(ot, TFL_OPERATOR_OPCODE_INDEX, 0, &oc, d)) return DIAG_USER;
    if (oc >= (uint32_t)im->n_codes)
        return diag_user(d, "operator %d: opcode_index %u out of range (model has %d operator codes)", index, oc,
                         im->n_codes);
    char what[64];
    snprintf(what, sizeof what, "operator %d", index);
    int *in, *out, n_in, n_out;
    if (tfl_read_index_list(im, ot, TFL_OPERATOR_INPUTS, n_tensors, 1, &in, &n_in, what) ||
        tfl_read_index_list(im, ot, TFL_OPERATOR_OUTPUTS, n_tensors, 0, &out, &n_out, what))
        return DIAG_USER;
    int code = im->codes[oc];
    OpKind kind;
    const OpDef *def = NULL;
    IrCustom *custom = NULL;
    if (code == TFL_OP_VAR_HANDLE || code == TFL_OP_READ_VARIABLE || code == TFL_OP_ASSIGN_VARIABLE ||
        code == TFL_OP_CALL_ONCE) {
        int rc = tfl_variable_op(im, ot, index, code, n_in, in, n_out, out);
        if (rc == DIAG_USER) {
            im->info->unsupported++;
            tfl_mark_unknown(g, n_out, out);
            return im->lenient ? 0 : DIAG_USER;
        }
        return rc;
    }
    if (code == TFL_OP_CUSTOM && tfl_is_mediapipe_tconv(im, im->custom[oc]))
        return tfl_import_mediapipe_tconv(im, ot, index, n_in, in, n_out, out);
    if (code == TFL_OP_CUSTOM) {
        int rc = tfl_bind_custom(im, ot, index, im->custom[oc], &custom);
        if (rc) return rc;
        if (!custom) {
            tfl_mark_unknown(g, n_out, out);
            return im->lenient ? 0 : DIAG_USER;
        }
    }
    if (ir_op_from_tfl_code(code, &kind) == 0) def = op_def(kind);
    if (!def || !def->parse) {
        char tn[200] = "";
        if (n_out > 0) snprintf(tn, sizeof tn, ", output tensor '%s'", g->tensors[out[0]].name);
        const char *name = code == TFL_OP_CUSTOM ? im->custom[oc] : tfl_builtin_name(code);
        im->info->unsupported++;
        if (code == TFL_OP_CUSTOM)
            diag_user(d, "operator %d: custom operator '%s' is not supported%s", index, name ? name : "?", tn);
        else if (name)
            diag_user(d, "operator %d: %s is not supported%s", index, name, tn);
        else
            diag_user(d, "operator %d: unknown builtin operator code %d%s", index, code, tn);
        tfl_mark_unknown(g, n_out, out);
        return im->lenient ? 0 : DIAG_USER;
    }
    int idx = ir_add_op(g, kind, n_in, in, n_out, out);
    if (idx < 0) return diag_internal(d, "out of memory");
    IrOp *op = &g->ops[idx];
    op->tfl_index = index;
    op->custom = custom;
    if (tfl_read_index_list(im, ot, TFL_OPERATOR_INTERMEDIATES, n_tensors, 0, &op->intermediates, &op->n_intermediates,
                        what))
        return DIAG_USER;
    FbTable opts;
    int has_opts = 0;
    /* STABLEHLO_COMPOSITE keeps its options in builtin_options_2. */
    int opt_field = code == TFL_OP_STABLEHLO_COMPOSITE ? TFL_OPERATOR_BUILTIN_OPTIONS_2 : TFL_OPERATOR_BUILTIN_OPTIONS;
    if (fb_table(ot, opt_field, &opts, &has_opts, d)) return DIAG_USER;
    if (def->parse(g, op, has_opts ? &opts : NULL, d)) {
        im->info->unsupported++;
        op->dead = 1;
        tfl_mark_unknown(g, n_out, out);
        return im->lenient ? 0 : DIAG_USER;
    }
    return 0;
}

int tfl_parse_input_shape(const char *arg, TflInputShape *out, Diag *d) {
    const char *eq = strrchr(arg, '=');
    memset(out, 0, sizeof *out);
    if (!eq || eq == arg || !eq[1])
        return diag_user(d, "--input-shape '%s': expected NAME_OR_INDEX=d0,d1,... (e.g. input_1=1,16,40)", arg);
    out->name = arg;
    const char *p = eq + 1;
    while (*p) {
        if (out->rank == IR_MAX_RANK)
            return diag_user(d, "--input-shape '%s': more than %d dimensions", arg, IR_MAX_RANK);
        char *end;
        errno = 0;
        long long v = strtoll(p, &end, 10);
        if (end == p || errno || v < 0 || v > INT32_MAX || (*end && *end != ','))
            return diag_user(d, "--input-shape '%s': dimension %d is not a number in 0..%ld", arg, out->rank + 1,
                             (long)INT32_MAX);
        out->dims[out->rank++] = v;
        p = *end ? end + 1 : end;
        if (*end && !*p) return diag_user(d, "--input-shape '%s': trailing comma", arg);
    }
    return 0;
}

/* Names of the graph inputs, for messages ("'x' (0), 'y' (1)"). */
static const char *input_list(Graph *g) {
    char buf[512] = "";
    size_t len = 0;
    for (int i = 0; i < g->n_inputs && len + 1 < sizeof buf; i++) {
        int w = snprintf(buf + len, sizeof buf - len, "%s'%s' (%d)", i ? ", " : "", g->input_names[i], i);
        if (w > 0) len += (size_t)w;
    }
    return g->n_inputs ? ir_strdup(g, buf) : "none";
}

/* The graph input an --input-shape names (public name, tensor name or index), or -1. */
static int find_input(const Graph *g, const TflInputShape *s) {
    size_t n = (size_t)(strrchr(s->name, '=') - s->name);
    for (int i = 0; i < g->n_inputs; i++) {
        const char *pub = g->input_names[i], *tn = g->tensors[g->inputs[i]].name;
        if ((strlen(pub) == n && memcmp(pub, s->name, n) == 0) || (strlen(tn) == n && memcmp(tn, s->name, n) == 0))
            return i;
    }
    char digits[16];
    if (n == 0 || n >= sizeof digits) return -1;
    memcpy(digits, s->name, n);
    digits[n] = '\0';
    char *end;
    long v = strtol(digits, &end, 10);
    return *end == '\0' && digits[0] >= '0' && digits[0] <= '9' && v >= 0 && v < g->n_inputs ? (int)v : -1;
}

/* --input-shape: fixes the named inputs' shapes; every tensor computed from
 * the inputs is then re-inferred by the op checks. Only dimensions that are
 * dynamic in the model (shape_signature -1, or no signature) may change. */
static int apply_input_shapes(Importer *im) {
    Graph *g = im->g;
    const TflImportOptions *o = im->opts;
    int changed = 0, failed = 0;
    for (int k = 0; o && k < o->n_input_shapes; k++) {
        const TflInputShape *s = &o->input_shapes[k];
        int len = (int)(strrchr(s->name, '=') - s->name);
        int i = find_input(g, s);
        if (i < 0) {
            failed = diag_user(im->d, "--input-shape %.*s: the model has no input of that name or index (inputs: %s)", len,
                               s->name, input_list(g));
            continue;
        }
        for (int j = 0; j < k; j++)
            if (find_input(g, &o->input_shapes[j]) == i)
                failed = diag_user(im->d, "--input-shape %.*s: input %d is given twice", len, s->name, i);
        IrTensor *t = &g->tensors[g->inputs[i]];
        char have[160];
        if (s->rank != t->rank) {
            failed = diag_user(im->d, "--input-shape %.*s: input %d '%s' has rank %d (%s), %d dimensions given", len,
                               s->name, i, g->input_names[i], t->rank, ir_tensor_desc(t, have, sizeof have), s->rank);
            continue;
        }
        for (int j = 0; j < t->rank; j++) {
            /* Given for a dynamic dimension, even at the stored placeholder's size: the placeholders
             * downstream (a frame count from RANGE, say) are stale all the same. */
            if (t->has_signature && t->signature[j] < 0) changed = 1;
            if (s->dims[j] == t->dims[j]) continue;
            if (t->has_signature && t->signature[j] >= 0) {
                failed = diag_user(im->d, "--input-shape %.*s: dimension %d of input %d '%s' is static (%lld) in the model",
                                   len, s->name, j, i, g->input_names[i], (long long)t->dims[j]);
                continue;
            }
            t->dims[j] = s->dims[j];
            changed = 1;
        }
    }
    if (failed) return DIAG_USER;
    /* An input with a dynamic dimension and no --input-shape runs at its stored placeholder shape, as TFLite's
     * interpreter runs it until resized; the shapes downstream are inferred from it all the same (TFLite's
     * kernels resize their outputs when prepared), since the converter's stored ones may be placeholders too. */
    for (int i = 0; i < g->n_inputs; i++) {
        const IrTensor *t = &g->tensors[g->inputs[i]];
        for (int j = 0; j < t->rank; j++) changed |= t->has_signature && t->signature[j] < 0;
    }
    /* Every activation downstream of the inputs: its stored shape was made for the old input shapes. */
    for (int i = 0; changed && i < g->n_tensors; i++) {
        IrTensor *t = &g->tensors[i];
        if (!t->data && !t->is_input && !t->is_variable) t->infer_shape = 1;
    }
    return 0;
}

/* A model whose checks fail while an input has a dynamic dimension that
 * --input-shape did not fix: say so first, since the other messages are
 * downstream symptoms of compiling for the stored placeholder size. */
static void dynamic_shape_hint(Importer *im) {
    Graph *g = im->g;
    Diag hint;
    diag_init(&hint);
    for (int i = 0; i < g->n_inputs; i++) {
        const IrTensor *t = &g->tensors[g->inputs[i]];
        int dynamic = 0, given = 0;
        for (int j = 0; j < t->rank; j++) dynamic |= t->has_signature && t->signature[j] < 0;
        for (int k = 0; im->opts && k < im->opts->n_input_shapes; k++)
            given |= find_input(g, &im->opts->input_shapes[k]) == i;
        if (!dynamic || given) continue;
        char sig[160] = "[", have[160], example[160] = "";
        size_t len = 1, elen = 0;
        for (int j = 0; j < t->rank; j++) {
            int w = snprintf(sig + len, sizeof sig - len, "%s%lld", j ? "," : "", (long long)t->signature[j]);
            if (w > 0 && (size_t)w < sizeof sig - len) len += (size_t)w;
            w = snprintf(example + elen, sizeof example - elen, "%s%s", j ? "," : "",
                         t->signature[j] < 0 ? "N" : ir_sprintf(g, "%lld", (long long)t->dims[j]));
            if (w > 0 && (size_t)w < sizeof example - elen) elen += (size_t)w;
        }
        snprintf(sig + len, sizeof sig - len, "]");
        /* Suggest the name when it can be typed as is, else the index. */
        const char *name = g->input_names[i];
        int plain = name[0] != '\0';
        for (const char *p = name; *p; p++)
            plain &= (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
                     *p == '_' || *p == '-' || *p == '.' || *p == ':' || *p == '/';
        diag_user(&hint,
                  "input %d '%s' has dynamic dimensions (shape_signature %s), compiled as the stored placeholder "
                  "%s; give its real shape with --input-shape %s=%s",
                  i, name, sig, ir_tensor_desc(t, have, sizeof have), plain ? name : ir_sprintf(g, "%d", i), example);
    }
    if (!hint.count) return;
    diag_merge(&hint, im->d, "");
    *im->d = hint;
}

/* Imports TFLite subgraph `index` into im->g (tensors, I/O, operators), then
 * checks every operator and infers shapes. */
/* A tensor of zero elements with an empty buffer (converters write shape
 * [0] int32 constants: the new shape of a RESHAPE to a scalar) has no data
 * pointer after import; when no operator writes it and it is no input or
 * state, it is a constant: give it a non-NULL, zero-byte data pointer. */
static void mark_empty_constants(Graph *g) {
    static const uint8_t empty[1];
    for (int i = 0; i < g->n_tensors; i++) {
        IrTensor *t = &g->tensors[i];
        if (t->data || t->is_input || t->is_variable || t->unknown || ir_tensor_numel(t) != 0) continue;
        int written = 0;
        for (int o = 0; o < g->n_ops && !written; o++)
            for (int k = 0; k < g->ops[o].n_out; k++) written |= g->ops[o].out[k] == i;
        if (written) continue;
        t->data = empty;
        t->data_size = 0;
    }
}

static int import_subgraph(Importer *im, int index) {
    Graph *g = im->g;
    Diag *d = im->d;
    FbTable sg;
    FbVec ops_v, tens_v;
    int present = 0;
    g->tfl_subgraph = index;
    if (fb_vec_table(&im->subgraphs, (uint32_t)index, &sg, d)) return DIAG_USER;
    if (fb_vector(&sg, TFL_SUBGRAPH_TENSORS, 4, &tens_v, &present, d)) return DIAG_USER;
    int n_tensors = present ? (int)tens_v.len : 0;
    if (n_tensors > TFL_MAX_TENSORS)
        return diag_user(d, "subgraph %d: %d tensors exceeds the limit of %d", index, n_tensors, TFL_MAX_TENSORS);
    im->res_var = ir_alloc(g, sizeof(int) * (size_t)(n_tensors + 1));
    if (!im->res_var) return diag_internal(d, "out of memory");
    im->block_scales = ir_alloc(g, sizeof(int) * (size_t)(n_tensors + 1));
    if (!im->block_scales) return diag_internal(d, "out of memory");
    for (int i = 0; i < n_tensors; i++) im->res_var[i] = -1, im->block_scales[i] = -1;
    for (int i = 0; i < n_tensors; i++) {
        FbTable tt;
        if (fb_vec_table(&tens_v, (uint32_t)i, &tt, d) || tfl_import_tensor(im, &tt, i)) return DIAG_USER;
    }
    if (tfl_resolve_blockwise(im, n_tensors)) return DIAG_USER;
    char what_in[48], what_out[48];
    snprintf(what_in, sizeof what_in, "subgraph %d inputs", index);
    snprintf(what_out, sizeof what_out, "subgraph %d outputs", index);
    if (tfl_read_index_list(im, &sg, TFL_SUBGRAPH_INPUTS, n_tensors, 0, &g->inputs, &g->n_inputs, what_in) ||
        tfl_read_index_list(im, &sg, TFL_SUBGRAPH_OUTPUTS, n_tensors, 0, &g->outputs, &g->n_outputs, what_out))
        return DIAG_USER;
    g->input_names = ir_alloc(g, sizeof(char *) * (size_t)(g->n_inputs + 1));
    g->output_names = ir_alloc(g, sizeof(char *) * (size_t)(g->n_outputs + 1));
    if (!g->input_names || !g->output_names) return diag_internal(d, "out of memory");
    for (int i = 0; i < g->n_inputs; i++) {
        g->tensors[g->inputs[i]].is_input = 1;
        g->input_names[i] = g->tensors[g->inputs[i]].name;
    }
    for (int i = 0; i < g->n_outputs; i++) {
        g->tensors[g->outputs[i]].is_output = 1;
        g->output_names[i] = g->tensors[g->outputs[i]].name;
    }
    for (int i = 0; i < g->n_inputs + g->n_outputs; i++) {
        const IrTensor *t = &g->tensors[i < g->n_inputs ? g->inputs[i] : g->outputs[i - g->n_inputs]];
        if (t->dtype != IR_C64 || t->unknown) continue;
        /* Callers (and the generated API) would have to pass (re, im) pairs; no model seen needs it. */
        diag_user(d, "subgraph %d %s '%s' is COMPLEX64: complex model inputs and outputs are not supported", index,
                  i < g->n_inputs ? "input" : "output", t->name);
        im->info->unsupported++;
    }
    if (index == 0 && apply_input_shapes(im)) return DIAG_USER;
    if (fb_vector(&sg, TFL_SUBGRAPH_OPERATORS, 4, &ops_v, &present, d)) return DIAG_USER;
    int n_ops = present ? (int)ops_v.len : 0;
    if (n_ops > TFL_MAX_OPERATORS)
        return diag_user(d, "subgraph %d: %d operators exceeds the limit of %d", index, n_ops, TFL_MAX_OPERATORS);
    int failed = 0;
    for (int i = 0; i < n_ops; i++) {
        FbTable ot;
        if (fb_vec_table(&ops_v, (uint32_t)i, &ot, d)) return DIAG_USER;
        int rc = import_operator(im, &ot, i, n_tensors);
        if (rc == DIAG_INTERNAL) return rc;
        if (rc) failed = 1; /* keep going: report every unsupported op at once */
    }
    tfl_report_unbound(im);
    if (failed) return DIAG_USER;
    mark_empty_constants(g);
    if (im->info->unsupported && !im->lenient) return DIAG_USER;
    /* Producers, then per-op checks and shape inference, in execution order. */
    ir_set_producers(g);
    if (ir_verify(g, d)) return DIAG_USER;
    for (int i = 0; i < g->n_ops; i++) {
        IrOp *op = &g->ops[i];
        if (op->dead) continue;
        const OpDef *def = op_def(op->kind);
        /* Lenient: an op reading an unknown tensor cannot be checked; its outputs are unknown too. */
        int unknown_in = 0;
        for (int k = 0; k < op->n_in; k++) unknown_in |= op->in[k] >= 0 && g->tensors[op->in[k]].unknown;
        if (unknown_in) {
            tfl_mark_unknown(g, op->n_out, op->out);
            continue;
        }
        int rc = op_expect_no_complex(g, op, d);
        if (!rc)
            rc = def->check ? def->check(g, op, d)
                            : diag_user(d, "operator %d: %s is not supported (no shape function)", op->tfl_index,
                                        ir_op_name(op->kind));
        /* an inferred output too large for the kernels (fuzzed shapes): the op fails here, by name */
        for (int k = 0; !rc && k < op->n_out; k++)
            if (op->out[k] >= 0) rc = ir_verify_tensor(g, op->out[k], d);
        int folded = 0;
        if (!rc) rc = fold_const_op(g, op, &folded, d);
        if (rc == DIAG_INTERNAL) return rc;
        if (rc) {
            failed = 1;
            im->info->unsupported++;
            tfl_mark_unknown(g, op->n_out, op->out);
        }
    }
    if (failed && index == 0) dynamic_shape_hint(im);
    /* lenient (inspect): report what fails the checks as unsupported, still describe the model. */
    return failed && !im->lenient ? DIAG_USER : 0;
}

/* Imports subgraph `index` (>= 1) into its own Graph, g->sub[index]; its
 * messages go to d prefixed with "subgraph N: ". */
static int import_child(Importer *parent, int index) {
    Graph *root = parent->g;
    if (root->sub[index]) return 0;
    Graph *child = ir_graph_new(root->source);
    if (!child) return diag_internal(parent->d, "out of memory");
    root->sub[index] = child;
    Diag cd;
    diag_init(&cd);
    Importer im = *parent;
    im.g = child;
    im.d = &cd;
    im.unbound = NULL;
    im.n_unbound = 0;
    child->root = root;
    int rc = import_subgraph(&im, index);
    char prefix[40];
    snprintf(prefix, sizeof prefix, "subgraph %d: ", index);
    diag_merge(parent->d, &cd, prefix);
    if (rc && !parent->lenient) {
        /* Its callers see it as missing (and say so) instead of reading a half-imported graph. */
        ir_graph_free(child);
        root->sub[index] = NULL;
    }
    for (int i = 0; !rc && !parent->lenient && i < child->n_tensors; i++)
        if (child->tensors[i].is_variable && !child->tensors[i].data)
            rc = diag_user(parent->d, "subgraph %d: tensor '%s' is a variable: state inside a control-flow "
                           "subgraph is not supported", index, child->tensors[i].name);
    return rc;
}

int tfl_import(Graph *g, const uint8_t *data, size_t size, int lenient, TflInfo *info, Diag *d) {
    TflImportOptions o = {lenient, NULL, 0, NULL, 0, NULL};
    return tfl_import_with(g, data, size, &o, info, d);
}

int tfl_import_with(Graph *g, const uint8_t *data, size_t size, const TflImportOptions *o, TflInfo *info, Diag *d) {
    int lenient = o->lenient;
    TflInfo dummy;
    if (!info) info = &dummy;
    memset(info, 0, sizeof *info);
    FbBuf buf = {data, size, g->source};
    FbTable model;
    if (fb_root(&buf, "TFL3", &model, d)) return DIAG_USER;
    Importer im = {g, NULL, {0}, 0, d, o->lenient, o, info, NULL, NULL, 0, {0}, NULL, 0, NULL, 0, 0, 0, NULL, NULL, NULL, NULL};
    /* The graph keeps pointers into data; buf itself is only used while importing. */
    im.buf = &buf;
    if (fb_u32(&model, TFL_MODEL_VERSION, 0, &info->version, d)) return DIAG_USER;
    if (info->version != 3) return diag_user(d, "%s: schema version %u, only version 3 is supported", g->source, info->version);
    const char *desc;
    uint32_t dlen;
    int has_desc = 0;
    if (fb_string(&model, TFL_MODEL_DESCRIPTION, &desc, &dlen, &has_desc, d)) return DIAG_USER;
    if (has_desc) info->description = ir_strndup(g, desc, dlen);

    FbVec codes_v;
    int present = 0;
    if (fb_vector(&model, TFL_MODEL_OPERATOR_CODES, 4, &codes_v, &present, d)) return DIAG_USER;
    int n_codes = present ? (int)codes_v.len : 0;
    if (n_codes > TFL_MAX_OPERATORS) return diag_user(d, "%s: %d operator codes is too many", g->source, n_codes);
    int *codes = ir_alloc(g, sizeof(int) * (size_t)(n_codes + 1));
    const char **custom = ir_alloc(g, sizeof(char *) * (size_t)(n_codes + 1));
    if (!codes || !custom) return diag_internal(d, "out of memory");
    for (int i = 0; i < n_codes; i++) {
        FbTable ct;
        int8_t dep = 0;
        int32_t bc = 0;
        const char *cname;
        uint32_t clen;
        int has_c = 0;
        if (fb_vec_table(&codes_v, (uint32_t)i, &ct, d) ||
            fb_i8(&ct, TFL_OPERATOR_CODE_DEPRECATED_BUILTIN_CODE, 0, &dep, d) ||
            fb_i32(&ct, TFL_OPERATOR_CODE_BUILTIN_CODE, 0, &bc, d) ||
            fb_string(&ct, TFL_OPERATOR_CODE_CUSTOM_CODE, &cname, &clen, &has_c, d))
            return DIAG_USER;
        /* New files set builtin_code; old ones only the deprecated int8 field. */
        codes[i] = bc > dep ? bc : dep;
        custom[i] = has_c ? ir_strndup(g, cname, clen) : NULL;
    }
    im.codes = codes;
    im.custom = custom;
    im.n_codes = n_codes;
    if (fb_vector(&model, TFL_MODEL_BUFFERS, 4, &im.buffers, &present, d)) return DIAG_USER;
    im.n_buffers = present ? (int)im.buffers.len : 0;
    if (fb_vector(&model, TFL_MODEL_SUBGRAPHS, 4, &im.subgraphs, &present, d)) return DIAG_USER;
    if (!present || im.subgraphs.len == 0) return diag_user(d, "%s: the model has no subgraphs", g->source);
    if (im.subgraphs.len > (uint32_t)TFL_MAX_OPERATORS)
        return diag_user(d, "%s: %u subgraphs is too many", g->source, im.subgraphs.len);
    info->n_subgraphs = (int)im.subgraphs.len;
    info->n_operator_codes = n_codes;
    info->n_buffers = im.n_buffers;
    g->n_sub = info->n_subgraphs;
    g->sub = calloc((size_t)g->n_sub, sizeof(Graph *));
    if (!g->sub) return diag_internal(d, "out of memory");
    im.init_subgraph = ir_alloc(g, (size_t)g->n_sub);
    if (!im.init_subgraph) return diag_internal(d, "out of memory");
    int rc = tfl_variables_new(&im);
    if (!rc) rc = tfl_survey_operators(&im);
    int *order = rc ? NULL : malloc(sizeof(int) * (size_t)g->n_sub);
    unsigned char *state = rc ? NULL : calloc((size_t)g->n_sub, 1);
    int n_order = 0;
    if (!rc && (!order || !state)) rc = diag_internal(d, "out of memory");
    if (!rc && im.n_calls) qsort(im.calls, (size_t)im.n_calls, 2 * sizeof(int), tfl_cmp_edge);
    if (!rc) rc = tfl_call_order(&im, 0, 0, state, order, &n_order);
    /* The edges stay (graph-owned) for the signatures' subgraphs (import_entry). */
    int *calls = !rc && im.n_calls ? ir_alloc(g, sizeof(int) * 2 * (size_t)im.n_calls) : NULL;
    if (calls) memcpy(calls, im.calls, sizeof(int) * 2 * (size_t)im.n_calls);
    else if (!rc && im.n_calls) rc = diag_internal(d, "out of memory");
    free(im.calls);
    im.calls = calls;
    free(state);
    if (rc) {
        free(order);
        tfl_variables_free(&im);
        return rc;
    }
    for (int k = 0; k < o->n_custom_ops; k++) {
        int found = 0;
        for (int c = 0; c < n_codes; c++)
            found |= codes[c] == TFL_OP_CUSTOM && custom[c] && strcmp(custom[c], o->custom_ops[k].name) == 0;
        if (!found) rc = diag_user(d, "--custom-op %s=%s: the model has no custom operator of that name (it has: %s)",
                                   o->custom_ops[k].name, o->custom_ops[k].func, tfl_custom_list(g, n_codes, codes, custom));
    }
    if (rc) return rc;
    info->n_operators = info->subgraph_ops[0];

    /* The subgraphs control flow calls, each into g->sub[k], callees first (a control-flow
     * op's check reads its subgraphs' inputs and outputs); all of them are imported even
     * when one fails, to list every problem at once. */
    for (int i = 0; i < n_order && rc != DIAG_INTERNAL; i++) {
        if (order[i] == 0) continue;
        int crc = import_child(&im, order[i]);
        if (crc && rc != DIAG_INTERNAL) rc = crc;
    }
    free(order);
    if (rc == DIAG_INTERNAL) {
        tfl_variables_free(&im);
        return rc;
    }
    int rc0 = import_subgraph(&im, 0);
    if (!rc0) rc0 = tfl_variables_finish(&im);
    tfl_variables_free(&im);
    if (rc0 == DIAG_INTERNAL) return rc0;
    if (!rc) rc = rc0;
    FbVec sigv;
    if (fb_vector(&model, TFL_MODEL_SIGNATURE_DEFS, 4, &sigv, &present, d)) return DIAG_USER;
    info->n_signatures = present ? (int)sigv.len : 0;
    if (info->n_signatures > TFL_MAX_OPERATORS)
        return diag_user(d, "%s: %d signatures is too many", g->source, info->n_signatures);
    info->signature_keys = ir_alloc(g, sizeof(char *) * (size_t)(info->n_signatures + 1));
    info->signature_subgraphs = ir_alloc(g, sizeof(int) * (size_t)(info->n_signatures + 1));
    if (!info->signature_keys || !info->signature_subgraphs) return diag_internal(d, "out of memory");
    for (int s = 0; s < info->n_signatures; s++) info->signature_keys[s] = NULL, info->signature_subgraphs[s] = -1;
    if (!rc0 && import_signatures(&im, &model, info->n_subgraphs, 0)) return DIAG_USER;
    /* Every signature is an entry point (docs/signatures.md); inspect only lists them. */
    if (!rc0 && !lenient) {
        int src = select_entries(&im, o->signatures);
        if (src == DIAG_INTERNAL) return src;
        if (src && !rc) rc = src;
    }
    if (!rc0 && import_signatures(&im, &model, info->n_subgraphs, 1)) return DIAG_USER;
    /* inspect describes every subgraph, called or not. */
    for (int k = 1; lenient && k < g->n_sub; k++) {
        if (g->sub[k] || im.init_subgraph[k]) continue; /* an init subgraph is read by its CALL_ONCE */
        int crc = import_entry(&im, k);
        if (crc == DIAG_INTERNAL) return crc;
        if (crc && !rc) rc = crc;
    }
    return rc;
}
