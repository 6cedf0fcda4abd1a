/* npy.c - .npy reader/writer (format version 1.0-3.0, C order, little endian).
 *
 * The reader accepts what numpy.load accepts for the dtypes mpcc has, and no
 * more: the header must be one Python dict literal with exactly the keys
 * 'descr', 'fortran_order' and 'shape' (each once), 'fortran_order' a bool,
 * 'shape' a tuple of non-negative ints; the data must be exactly shape x
 * itemsize bytes, and that is checked against the file size before anything
 * is allocated. */
#include "npy.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* numpy refuses longer headers unless the file is fully trusted. */
#define NPY_MAX_HEADER 10000
/* Largest array `mpcc run` reads (16 GiB). */
#define NPY_MAX_BYTES ((int64_t)1 << 34)

static const struct { const char *descr; IrDType dt; } descr_map[] = {
    {"<f4", IR_F32}, {"<f2", IR_F16}, {"|i1", IR_I8}, {"|u1", IR_U8}, {"<i2", IR_I16},
    {"<i4", IR_I32}, {"<i8", IR_I64}, {"|b1", IR_BOOL},
    {"<c8", IR_C64}, /* numpy's complex64: the same interleaved (re, im) float32 pairs */
};

static const char *descr_of(IrDType dt) {
    /* bf16 has no numpy dtype: its raw bits are written as uint16 (--dump-tensors);
     * the reader does not take uint16 back as bf16. */
    if (dt == IR_BF16) return "<u2";
    for (size_t i = 0; i < sizeof descr_map / sizeof descr_map[0]; i++)
        if (descr_map[i].dt == dt) return descr_map[i].descr;
    return NULL;
}

void npy_free(NpyArray *a) {
    free(a->data);
    a->data = NULL;
}

/* ---- the header dict ----------------------------------------------------- */

typedef struct HeaderLex {
    const char *path;
    const char *start, *p, *end;
    long base;                  /* file offset of start, for messages */
    Diag *d;
} HeaderLex;

static int lex_error(HeaderLex *lx, const char *what) {
    return diag_user(lx->d, "%s: bad .npy header at byte %ld: %s", lx->path, lx->base + (long)(lx->p - lx->start),
                     what);
}

static void skip_space(HeaderLex *lx) {
    while (lx->p < lx->end && (*lx->p == ' ' || *lx->p == '\t' || *lx->p == '\n' || *lx->p == '\r')) lx->p++;
}

static int expect_char(HeaderLex *lx, char c, const char *what) {
    skip_space(lx);
    if (lx->p >= lx->end || *lx->p != c) return lex_error(lx, what);
    lx->p++;
    return 0;
}

/* A quoted string without escapes into buf (NUL-terminated). */
static int read_string(HeaderLex *lx, char *buf, size_t n) {
    skip_space(lx);
    if (lx->p >= lx->end || (*lx->p != '\'' && *lx->p != '"')) return lex_error(lx, "expected a quoted string");
    char quote = *lx->p++;
    size_t len = 0;
    while (lx->p < lx->end && *lx->p != quote) {
        unsigned char c = (unsigned char)*lx->p;
        if (c == '\\' || c < 0x20 || c >= 0x7F) return lex_error(lx, "unsupported character in a string");
        if (len + 1 >= n) return lex_error(lx, "string too long");
        buf[len++] = (char)c;
        lx->p++;
    }
    if (lx->p >= lx->end) return lex_error(lx, "unterminated string");
    lx->p++;
    buf[len] = '\0';
    return 0;
}

static int is_ident_char(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

static int read_bool(HeaderLex *lx, int *out) {
    skip_space(lx);
    const char *q = lx->p;
    while (q < lx->end && is_ident_char(*q)) q++;
    size_t n = (size_t)(q - lx->p);
    if (n == 4 && memcmp(lx->p, "True", 4) == 0) *out = 1;
    else if (n == 5 && memcmp(lx->p, "False", 5) == 0) *out = 0;
    else return lex_error(lx, "'fortran_order' must be True or False");
    lx->p = q;
    return 0;
}

/* A tuple of non-negative decimal ints: (), (n,), (a, b), (a, b,). */
static int read_shape(HeaderLex *lx, NpyArray *out) {
    if (expect_char(lx, '(', "'shape' must be a tuple")) return DIAG_USER;
    int trailing_comma = 0;
    out->rank = 0;
    for (;;) {
        skip_space(lx);
        if (lx->p < lx->end && *lx->p == ')') break;
        if (lx->p >= lx->end || *lx->p < '0' || *lx->p > '9')
            return lex_error(lx, "'shape' must hold non-negative integers");
        if (out->rank == IR_MAX_RANK) return lex_error(lx, "'shape' has more than 8 dimensions");
        if (*lx->p == '0' && lx->p + 1 < lx->end && lx->p[1] >= '0' && lx->p[1] <= '9')
            return lex_error(lx, "integer with a leading zero");
        int64_t v = 0;
        int digits = 0;
        while (lx->p < lx->end && *lx->p >= '0' && *lx->p <= '9') {
            if (++digits > 18) return lex_error(lx, "dimension too large");
            v = v * 10 + (*lx->p++ - '0');
        }
        if (lx->p < lx->end && is_ident_char(*lx->p)) return lex_error(lx, "'shape' must hold plain integers");
        out->dims[out->rank++] = v;
        skip_space(lx);
        trailing_comma = 0;
        if (lx->p < lx->end && *lx->p == ',') {
            lx->p++;
            trailing_comma = 1;
        } else if (lx->p >= lx->end || *lx->p != ')') {
            return lex_error(lx, "expected ',' or ')' in 'shape'");
        }
    }
    /* (5) is an int in Python, not a tuple. */
    if (out->rank == 1 && !trailing_comma) return lex_error(lx, "'shape' (n) is not a tuple; write (n,)");
    lx->p++;
    return 0;
}

static int parse_header(HeaderLex *lx, NpyArray *out) {
    int seen_descr = 0, seen_fortran = 0, seen_shape = 0, fortran = 0;
    char descr[16] = "";
    if (expect_char(lx, '{', "expected '{' (the header is a Python dict)")) return DIAG_USER;
    for (;;) {
        skip_space(lx);
        if (lx->p < lx->end && *lx->p == '}') break;
        char key[32];
        const char *key_at = lx->p;
        if (read_string(lx, key, sizeof key)) return DIAG_USER;
        if (expect_char(lx, ':', "expected ':' after a key")) return DIAG_USER;
        int *seen = strcmp(key, "descr") == 0           ? &seen_descr
                    : strcmp(key, "fortran_order") == 0 ? &seen_fortran
                    : strcmp(key, "shape") == 0         ? &seen_shape
                                                        : NULL;
        if (!seen) {
            lx->p = key_at;
            return diag_user(lx->d,
                             "%s: bad .npy header at byte %ld: unexpected key '%s' (the keys are 'descr', "
                             "'fortran_order' and 'shape')",
                             lx->path, lx->base + (long)(key_at - lx->start), key);
        }
        if (*seen)
            return diag_user(lx->d, "%s: bad .npy header at byte %ld: key '%s' appears twice", lx->path,
                             lx->base + (long)(key_at - lx->start), key);
        *seen = 1;
        int rc = seen == &seen_descr ? read_string(lx, descr, sizeof descr)
                 : seen == &seen_fortran ? read_bool(lx, &fortran)
                                         : read_shape(lx, out);
        if (rc) return rc;
        skip_space(lx);
        if (lx->p < lx->end && *lx->p == ',') lx->p++;
        else if (lx->p >= lx->end || *lx->p != '}') return lex_error(lx, "expected ',' or '}'");
    }
    lx->p++;
    skip_space(lx);
    if (lx->p != lx->end) return lex_error(lx, "text after the header dict");
    if (!seen_descr || !seen_fortran || !seen_shape)
        return diag_user(lx->d, "%s: .npy header lacks %s", lx->path,
                         !seen_descr ? "'descr'" : !seen_fortran ? "'fortran_order'" : "'shape'");
    if (fortran) return diag_user(lx->d, "%s: Fortran-order .npy arrays are not supported", lx->path);
    for (size_t i = 0; i < sizeof descr_map / sizeof descr_map[0]; i++) {
        if (strcmp(descr, descr_map[i].descr) == 0) {
            out->dtype = descr_map[i].dt;
            return 0;
        }
    }
    return diag_user(lx->d,
                     "%s: unsupported .npy dtype '%s' (need little-endian f4/f2/i1/u1/i2/i4/i8/b1; "
                     "mpcc has no uint16 tensors and does not read bf16 from .npy)",
                     lx->path, descr);
}

/* ---- reading ---------------------------------------------------------- */

int npy_read(const char *path, NpyArray *out, Diag *d) {
    memset(out, 0, sizeof *out);
    FILE *f = fopen(path, "rb");
    if (!f) return diag_user(d, "%s: cannot open .npy file", path);
    unsigned char pre[12];
    int rc = 0;
    char *header = NULL;
    if (fread(pre, 1, 10, f) != 10 || memcmp(pre, "\x93NUMPY", 6) != 0) {
        rc = diag_user(d, "%s: not a .npy file (bad magic)", path);
        goto done;
    }
    uint32_t hlen;
    long hstart;
    if (pre[7] != 0 || pre[6] < 1 || pre[6] > 3) {
        rc = diag_user(d, "%s: unsupported .npy version %d.%d", path, pre[6], pre[7]);
        goto done;
    }
    if (pre[6] == 1) {
        hlen = (uint32_t)pre[8] | ((uint32_t)pre[9] << 8);
        hstart = 10;
    } else {
        if (fread(pre + 10, 1, 2, f) != 2) {
            rc = diag_user(d, "%s: truncated .npy header", path);
            goto done;
        }
        hlen = (uint32_t)pre[8] | ((uint32_t)pre[9] << 8) | ((uint32_t)pre[10] << 16) | ((uint32_t)pre[11] << 24);
        hstart = 12;
    }
    if (hlen > NPY_MAX_HEADER) {
        rc = diag_user(d, "%s: .npy header of %u bytes is too large (numpy's limit is %d)", path, hlen,
                       NPY_MAX_HEADER);
        goto done;
    }
    header = malloc(hlen + 1);
    if (!header || fread(header, 1, hlen, f) != hlen) {
        rc = diag_user(d, "%s: truncated .npy header", path);
        goto done;
    }
    header[hlen] = '\0';
    HeaderLex lx = {path, header, header, header + hlen, hstart, d};
    if ((rc = parse_header(&lx, out))) goto done;

    IrTensor tmp = {0};
    tmp.dtype = out->dtype;
    tmp.rank = out->rank;
    memcpy(tmp.dims, out->dims, sizeof tmp.dims);
    int64_t bytes = ir_tensor_bytes(&tmp);
    if (bytes < 0 || bytes > NPY_MAX_BYTES) {
        rc = diag_user(d, "%s: .npy array is too large (more than %lld bytes)", path, (long long)NPY_MAX_BYTES);
        goto done;
    }
    /* The data must be exactly what the header declares: compare with the file
     * size before allocating anything. */
    long data_at = hstart + (long)hlen, file_size;
    if (fseek(f, 0, SEEK_END) != 0 || (file_size = ftell(f)) < 0 || fseek(f, data_at, SEEK_SET) != 0) {
        rc = diag_user(d, "%s: cannot determine the size of the .npy file (not a regular file?)", path);
        goto done;
    }
    if ((int64_t)file_size - data_at != bytes) {
        rc = diag_user(d, "%s: .npy data is %lld bytes, the header's shape and dtype need %lld%s", path,
                       (long long)file_size - data_at, (long long)bytes,
                       (int64_t)file_size - data_at > bytes ? " (trailing bytes)" : " (truncated)");
        goto done;
    }
    out->bytes = (size_t)bytes;
    out->data = malloc(out->bytes ? out->bytes : 1);
    if (!out->data) {
        rc = diag_user(d, "%s: cannot allocate %zu bytes for the .npy data", path, out->bytes);
        goto done;
    }
    if (fread(out->data, 1, out->bytes, f) != out->bytes) {
        rc = diag_user(d, "%s: .npy data is truncated (expected %zu bytes)", path, out->bytes);
        npy_free(out);
        goto done;
    }
done:
    free(header);
    fclose(f);
    return rc;
}

/* ---- writing ---------------------------------------------------------- */

int npy_write(const char *path, IrDType dt, int rank, const int64_t *dims, const void *data, Diag *d) {
    const char *descr = descr_of(dt);
    if (!descr) return diag_user(d, "%s: dtype %s cannot be written as .npy", path, ir_dtype_name(dt));
    char shape[256] = "";
    size_t len = 0;
    for (int i = 0; i < rank; i++) {
        int w = snprintf(shape + len, sizeof shape - len, "%lld,%s", (long long)dims[i], i + 1 < rank ? " " : "");
        if (w > 0) len += (size_t)w;
    }
    if (rank > 1 && len > 0) shape[len - 1] = '\0'; /* "(1, 2)" not "(1, 2,)" */
    char header[512];
    int n = snprintf(header, sizeof header, "{'descr': '%s', 'fortran_order': False, 'shape': (%s), }", descr, shape);
    int total = 10 + n + 1;
    int pad = (64 - total % 64) % 64;
    FILE *f = fopen(path, "wb");
    if (!f) return diag_user(d, "%s: cannot create file", path);
    unsigned short hl = (unsigned short)(n + pad + 1);
    unsigned char pre[10] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, (unsigned char)(hl & 0xFF), (unsigned char)(hl >> 8)};
    IrTensor tmp = {0};
    tmp.dtype = dt;
    tmp.rank = rank;
    for (int i = 0; i < rank; i++) tmp.dims[i] = dims[i];
    size_t bytes = (size_t)ir_tensor_bytes(&tmp);
    int ok = fwrite(pre, 1, 10, f) == 10 && fwrite(header, 1, (size_t)n, f) == (size_t)n;
    for (int i = 0; ok && i < pad; i++) ok = fputc(' ', f) != EOF;
    ok = ok && fputc('\n', f) != EOF && fwrite(data, 1, bytes, f) == bytes;
    if (fclose(f) != 0) ok = 0;
    return ok ? 0 : diag_user(d, "%s: write failed", path);
}
