/* tfl_custom.c - CUSTOM operators: binding each to its --custom-op kernel and
 * custom_options bytes, and the message listing those without a kernel. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ops.h"
#include "tfl_import_internal.h"
#include "tfl_schema.h"

/* A CUSTOM operator: its kernel from --custom-op and its custom_options
 * bytes (inline, or after the FlatBuffer for large ones) into *out; without a
 * kernel *out stays NULL and the use is counted for the message. */
int tfl_bind_custom(Importer *im, FbTable *ot, int index, const char *name, IrCustom **out) {
    Graph *g = im->g;
    *out = NULL;
    if (!name) name = "";
    const char *func = NULL;
    for (int k = 0; im->opts && k < im->opts->n_custom_ops; k++)
        if (strcmp(im->opts->custom_ops[k].name, name) == 0) func = im->opts->custom_ops[k].func;
    if (!func) {
        im->info->unsupported++;
        int k = 0;
        while (k < im->n_unbound && strcmp(im->unbound[k].name, name) != 0) k++;
        if (k == im->n_unbound) {
            if (!im->unbound) im->unbound = ir_alloc(g, sizeof(Unbound) * (size_t)(im->n_codes + 1));
            if (!im->unbound) return diag_internal(im->d, "out of memory");
            im->unbound[im->n_unbound++].name = name;
        }
        Unbound *u = &im->unbound[k];
        if (u->count < (int)(sizeof u->first / sizeof u->first[0])) u->first[u->count] = index;
        u->count++;
        return 0;
    }
    IrCustom *c = ir_alloc(g, sizeof *c);
    if (!c) return diag_internal(im->d, "out of memory");
    c->code = name;
    c->func = func;
    FbVec v;
    int present = 0;
    uint64_t off = 0, size = 0;
    if (fb_vector(ot, TFL_OPERATOR_CUSTOM_OPTIONS, 1, &v, &present, im->d) ||
        fb_u64(ot, TFL_OPERATOR_LARGE_CUSTOM_OPTIONS_OFFSET, 0, &off, im->d) ||
        fb_u64(ot, TFL_OPERATOR_LARGE_CUSTOM_OPTIONS_SIZE, 0, &size, im->d))
        return DIAG_USER;
    if (present && v.len > 0) {
        c->options = fb_vec_bytes(&v);
        c->options_len = v.len;
    } else if (off > 1 && size > 0) {
        if (off > im->buf->size || size > im->buf->size - off)
            return diag_user(im->d, "operator %d: custom options at byte %llu + %llu bytes run past the end of the file",
                             index, (unsigned long long)off, (unsigned long long)size);
        c->options = im->buf->data + off;
        c->options_len = (size_t)size;
    }
    if (c->options_len > INT32_MAX)
        return diag_user(im->d, "operator %d: %zu bytes of custom options is too many", index, c->options_len);
    *out = c;
    return 0;
}

/* One message per custom operator name that has no kernel. */
void tfl_report_unbound(Importer *im) {
    for (int k = 0; k < im->n_unbound; k++) {
        const Unbound *u = &im->unbound[k];
        char where[96] = "";
        size_t len = 0;
        int shown = u->count < 6 ? u->count : 6;
        for (int i = 0; i < shown; i++) {
            int w = snprintf(where + len, sizeof where - len, "%s%d", i ? ", " : "", u->first[i]);
            if (w > 0) len += (size_t)w;
        }
        diag_user(im->d,
                  "custom operator '%s': %d use%s (operator%s %s%s) and no kernel for it: give one with "
                  "--custom-op %s=FUNCTION (see mpcc --help)",
                  u->name, u->count, u->count == 1 ? "" : "s", u->count == 1 ? "" : "s", where,
                  u->count > shown ? ", ..." : "", u->name);
    }
    im->n_unbound = 0;
}

/* The model's custom operator names, for messages ("'A', 'B'" or "none"). */
const char *tfl_custom_list(Graph *g, int n_codes, const int *codes, const char **custom) {
    char buf[512] = "";
    size_t len = 0;
    for (int c = 0; c < n_codes && len + 1 < sizeof buf; c++) {
        if (codes[c] != TFL_OP_CUSTOM) continue;
        int w = snprintf(buf + len, sizeof buf - len, "%s'%s'", len ? ", " : "", custom[c] ? custom[c] : "");
        if (w > 0) len += (size_t)w;
    }
    return len ? ir_strdup(g, buf) : "none";
}

int tfl_parse_custom_op(const char *arg, TflCustomOp *out, char *name_buf, size_t cap, Diag *d) {
    const char *eq = strrchr(arg, '=');
    if (!eq || eq == arg || !eq[1])
        return diag_user(d, "--custom-op '%s': expected NAME=FUNCTION (a custom operator name and a C function)", arg);
    const char *f = eq + 1;
    int ok = (*f >= 'a' && *f <= 'z') || (*f >= 'A' && *f <= 'Z') || *f == '_';
    for (const char *p = f; *p; p++)
        ok &= (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '_';
    if (!ok) return diag_user(d, "--custom-op '%s': '%s' is not a C identifier", arg, f);
    if (strncmp(f, "rt_", 3) == 0 || strncmp(f, "mpcc_", 5) == 0)
        return diag_user(d, "--custom-op '%s': names starting with rt_ or mpcc_ belong to mpcc's runtime", arg);
    size_t n = (size_t)(eq - arg);
    if (n >= cap) return diag_user(d, "--custom-op '%s': the name is too long", arg);
    memcpy(name_buf, arg, n);
    name_buf[n] = '\0';
    out->name = name_buf;
    out->func = f;
    return 0;
}

