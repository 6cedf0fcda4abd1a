/* tfl_custom.c - CUSTOM operators: binding each to its --custom-op kernel and
 * custom_options bytes, and the message listing those without a kernel. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conv_common.h"
#include "ops.h"
#include "tfl_import_internal.h"
#include "tfl_schema.h"

/* Operator ot's custom_options bytes (inline, or after the FlatBuffer for large ones); *len 0 when it has none. */
static int custom_options(Importer *im, FbTable *ot, int index, const uint8_t **bytes, size_t *len) {
    FbVec v;
    int present = 0;
    uint64_t off = 0, size = 0;
    *bytes = NULL;
    *len = 0;
    if (fb_vector(ot, TFL_OPERATOR_CUSTOM_OPTIONS, 1, &v, &present, im->d) ||
        fb_u64(ot, TFL_OPERATOR_LARGE_CUSTOM_OPTIONS_OFFSET, 0, &off, im->d) ||
        fb_u64(ot, TFL_OPERATOR_LARGE_CUSTOM_OPTIONS_SIZE, 0, &size, im->d))
        return DIAG_USER;
    if (present && v.len > 0) {
        *bytes = fb_vec_bytes(&v);
        *len = v.len;
    } else if (off > 1 && size > 0) {
        if (off > im->buf->size || size > im->buf->size - off)
            return diag_user(im->d, "operator %d: custom options at byte %llu + %llu bytes run past the end of the file",
                             index, (unsigned long long)off, (unsigned long long)size);
        *bytes = im->buf->data + off;
        *len = (size_t)size;
    }
    if (*len > INT32_MAX) return diag_user(im->d, "operator %d: %zu bytes of custom options is too many", index, *len);
    return 0;
}

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
    if (custom_options(im, ot, index, &c->options, &c->options_len)) return DIAG_USER;
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


/* ---- MediaPipe's Convolution2DTransposeBias ----
 * MediaPipe's segmentation models (selfie, hair) end in this custom operator, which TFLite runs through its XNNPACK
 * delegate: a transposed convolution with a bias. Inputs: the image NHWC, the weights [out_c, fh, fw, in_c] and
 * the bias [out_c]; custom options: three little-endian int32, padding (1 SAME, 2 VALID), stride_w, stride_h.
 * Imported as a TRANSPOSE_CONV (its output shape a new constant: in x stride for SAME, (in - 1) x stride + filter
 * for VALID), so it is scheduled and checked as one. A --custom-op binding for the name takes precedence. */
int tfl_is_mediapipe_tconv(const Importer *im, const char *name) {
    if (!name || strcmp(name, "Convolution2DTransposeBias") != 0) return 0;
    for (int k = 0; im->opts && k < im->opts->n_custom_ops; k++)
        if (strcmp(im->opts->custom_ops[k].name, name) == 0) return 0;
    return 1;
}

static int32_t le_i32(const uint8_t *b) {
    return (int32_t)((uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24);
}

static int mediapipe_tconv(Importer *im, FbTable *ot, int index, int n_in, const int *in, int n_out, const int *out) {
    Graph *g = im->g;
    Diag *d = im->d;
    const char *what = "custom operator 'Convolution2DTransposeBias'";
    const uint8_t *b;
    size_t len;
    if (custom_options(im, ot, index, &b, &len)) return DIAG_USER;
    if (n_in != 3 || n_out != 1 || in[0] < 0 || in[1] < 0 || in[2] < 0)
        return diag_user(d, "operator %d: %s needs 3 inputs (image, weights, bias) and 1 output, got %d and %d", index,
                         what, n_in, n_out);
    if (len < 12)
        return diag_user(d, "operator %d: %s has %zu bytes of custom options, needs 12 (padding, stride_w, stride_h)",
                         index, what, len);
    const int32_t pad = le_i32(b), sw = le_i32(b + 4), sh = le_i32(b + 8);
    if (pad != 1 && pad != 2)
        return diag_user(d, "operator %d: %s: padding %ld is neither SAME (1) nor VALID (2)", index, what, (long)pad);
    if (sw <= 0 || sh <= 0 || sw > 1024 || sh > 1024)
        return diag_user(d, "operator %d: %s: strides %ld x %ld out of range", index, what, (long)sh, (long)sw);
    const IrTensor *x = &g->tensors[in[0]], *w = &g->tensors[in[1]];
    if (x->rank != 4 || w->rank != 4)
        return diag_user(d, "operator %d: %s: image '%s' and weights '%s' must have rank 4, got %d and %d", index, what,
                         x->name, w->name, x->rank, w->rank);
    int64_t shape[4] = {x->dims[0], 0, 0, w->dims[0]};
    for (int k = 1; k <= 2; k++) {
        const int64_t s = k == 1 ? sh : sw;
        shape[k] = pad == 1 ? x->dims[k] * s : (x->dims[k] - 1) * s + w->dims[k];
        if (x->dims[k] <= 0 || w->dims[k] <= 0 || shape[k] <= 0 || shape[k] > INT32_MAX)
            return diag_user(d, "operator %d: %s: output size %lld from image '%s' out of range", index, what,
                             (long long)shape[k], x->name);
    }
    const int64_t four = 4;
    int sid = ir_add_tensor(g, "Convolution2DTransposeBias_output_shape", IR_I32, 1, &four);
    uint8_t *data = ir_alloc(g, 16);
    if (sid < 0 || !data) return diag_internal(d, "out of memory");
    for (int k = 0; k < 4; k++)
        for (int by = 0; by < 4; by++) data[4 * k + by] = (uint8_t)((uint64_t)shape[k] >> (8 * by));
    g->tensors[sid].data = data;
    g->tensors[sid].data_size = 16;
    g->tensors[sid].tfl_index = -1;
    const int ins[4] = {sid, in[1], in[0], in[2]};
    int idx = ir_add_op(g, OP_TRANSPOSE_CONV, 4, ins, 1, out);
    if (idx < 0) return diag_internal(d, "out of memory");
    IrOp *op = &g->ops[idx];
    op->tfl_index = index;
    return tconv_set_options(g, op, pad == 1 ? TFL_PADDING_SAME : TFL_PADDING_VALID, sw, sh, d);
}

int tfl_import_mediapipe_tconv(Importer *im, FbTable *ot, int index, int n_in, const int *in, int n_out,
                               const int *out) {
    int rc = mediapipe_tconv(im, ot, index, n_in, in, n_out, out);
    if (rc != DIAG_USER) return rc;
    im->info->unsupported++;
    tfl_mark_unknown(im->g, n_out, out);
    return im->lenient ? 0 : DIAG_USER;
}
