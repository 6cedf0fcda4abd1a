/* emit_weights.c - the model's constants for emit_c.c: which ones the emitted code reads, the budgets
 * (--max-weights, the embedding limit), the --weights file blob (layout shared across graphs, streamed and
 * hashed as rt_hash does) and constants shared between graphs. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emit_weights.h"
#include "text.h"

typedef struct ConstRef {
    int64_t key;  /* blob offset, or size (largest first) */
    int k, id;    /* graph, tensor */
} ConstRef;

static int cmp_ref(const void *x, const void *y) {
    const ConstRef *a = x, *b = y;
    if (a->key != b->key) return a->key < b->key ? -1 : 1;
    if (a->k != b->k) return a->k - b->k;
    return a->id - b->id;
}

/* The constants the emitted code reads, over all graphs, sorted by key
 * (by_size: largest first, else by blob offset). NULL on OOM. */
static ConstRef *used_constants(const GraphCode *gcs, int n_gc, int by_size, int *n) {
    size_t total = 1;
    for (int k = 0; k < n_gc; k++)
        if (gcs[k].g) total += (size_t)gcs[k].g->n_tensors;
    ConstRef *r = malloc(sizeof *r * total);
    if (!r) return NULL;
    *n = 0;
    for (int k = 0; k < n_gc; k++) {
        const Graph *g = gcs[k].g;
        for (int i = 0; g && i < g->n_tensors; i++)
            if (gcs[k].const_used[i])
                r[(*n)++] = (ConstRef){by_size ? -(int64_t)g->tensors[i].data_size : gcs[k].woff[i], k, i};
    }
    qsort(r, (size_t)*n, sizeof *r, cmp_ref);
    return r;
}

/* The weights budgets: --max-weights, and the size above which constants
 * are not embedded as C arrays. */
int cg_check_weights_size(const GraphCode *gcs, int n_gc, const EmitOptions *o, int64_t bytes, Diag *d) {
    int over_budget = o->max_weights > 0 && bytes > o->max_weights;
    int over_embed = !o->weights_file && o->max_embed > 0 && bytes > o->max_embed;
    if (!over_budget && !over_embed) return 0;
    int n;
    ConstRef *r = used_constants(gcs, n_gc, 1, &n);
    if (!r) return diag_internal(d, "out of memory");
    char list[1600];
    size_t len = 0;
    for (int i = 0; i < n && i < 5 && len < sizeof list; i++) {
        const IrTensor *t = &gcs[r[i].k].g->tensors[r[i].id];
        char desc[160], nb[TXT_TERMINAL_CAP];
        int w = snprintf(list + len, sizeof list - len, "%s'%s' %s %zu bytes", i ? ", " : "",
                         txt_terminal(nb, sizeof nb, t->name, 80), ir_tensor_desc(t, desc, sizeof desc), t->data_size);
        if (w > 0) len += (size_t)w;
    }
    if (n > 5 && len < sizeof list) snprintf(list + len, sizeof list - len, ", and %d more", n - 5);
    free(r);
    if (over_budget)
        return diag_user(d, "the weights take %lld bytes, more than --max-weights %lld; the largest constants: %s",
                         (long long)bytes, (long long)o->max_weights, list);
    return diag_user(d,
                     "the model has %lld bytes of constants, more than the %lld bytes that --weights embed (the "
                     "default) writes as C arrays (C compilers need minutes and gigabytes for initializers that "
                     "large): use --weights file, which writes them to OUT.weights.bin; the largest constants: %s",
                     (long long)bytes, (long long)o->max_embed, list);
}

/* Hashes a byte stream the way rt_hash does, in whole 8-byte words. */
typedef struct StreamHash {
    uint64_t h, total;
    unsigned char carry[8];
    size_t n_carry;
} StreamHash;

static void stream_hash(StreamHash *s, const unsigned char *p, size_t n) {
    s->total += n;
    while (s->n_carry && n) {
        s->carry[s->n_carry++] = *p++;
        n--;
        if (s->n_carry == 8) {
            s->h = rt_hash_update(s->h, s->carry, 8);
            s->n_carry = 0;
        }
    }
    size_t whole = n / 8 * 8;
    s->h = rt_hash_update(s->h, p, whole);
    for (size_t i = whole; i < n; i++) s->carry[s->n_carry++] = p[i];
}

/* Streams the weights blob to f: the header and zeros up to CG_BLOB_ALIGN, then each constant the code
 * of any graph reads at its offset (zero-padded to CG_BLOB_ALIGN bytes), hashing as it goes; the header
 * is written last, when the hash is known. Pages of the model file are dropped once written. */
int cg_write_weights(const CgCtx *cg, const GraphCode *gcs, int n_gc, FILE *f, uint64_t *hash, Diag *d) {
    static const unsigned char zeros[CG_BLOB_ALIGN];
    unsigned char header[RT_WEIGHTS_HEADER_BYTES] = {0};
    int n;
    ConstRef *r = used_constants(gcs, n_gc, 0, &n);
    if (!r) return diag_internal(d, "out of memory");
    StreamHash s = {RT_HASH_SEED, 0, {0}, 0};
    const size_t head_pad = CG_BLOB_ALIGN - RT_WEIGHTS_HEADER_BYTES;
    int ok = fwrite(header, 1, sizeof header, f) == sizeof header && fwrite(zeros, 1, head_pad, f) == head_pad;
    int64_t pos = CG_BLOB_ALIGN;
    stream_hash(&s, zeros, head_pad);
    for (int i = 0; i < n && ok; i++) {
        const Graph *g = gcs[r[i].k].g;
        const IrTensor *t = &g->tensors[r[i].id];
        if (r[i].key < pos) continue; /* another graph's same constant (cg_share_blob_constants) */
        if (r[i].key != pos) {
            int rc = diag_internal(d, "weights blob: tensor %d of subgraph %d at %lld, expected %lld", r[i].id,
                                   r[i].k, (long long)r[i].key, (long long)pos);
            free(r);
            return rc;
        }
        size_t pad = (CG_BLOB_ALIGN - t->data_size % CG_BLOB_ALIGN) % CG_BLOB_ALIGN;
        ok = fwrite(t->data, 1, t->data_size, f) == t->data_size && fwrite(zeros, 1, pad, f) == pad;
        stream_hash(&s, t->data, t->data_size);
        stream_hash(&s, zeros, pad);
        ir_drop_data(g, t);
        pos += (int64_t)(t->data_size + pad);
    }
    free(r);
    if (pos != cg->blob_bytes) return diag_internal(d, "weights blob: %lld bytes written, %lld laid out", (long long)pos, (long long)cg->blob_bytes);
    *hash = rt_hash_final(s.h, s.total);
    rt_weights_header(header, *hash);
    if (ok) ok = fseek(f, 0, SEEK_SET) == 0 && fwrite(header, 1, sizeof header, f) == sizeof header && fflush(f) == 0;
    return ok ? 0 : diag_user(d, "writing the weights file failed");
}

/* The C name of a constant of an earlier graph (gcs[0 .. k-1]) with t's dtype and bytes, or
 * NULL: a weight that several signatures' (or control-flow) subgraphs read is emitted once. */
const char *cg_same_constant(const GraphCode *gcs, int k, const IrTensor *t) {
    for (int j = 0; j < k; j++)
        for (int i = 0; gcs[j].g && i < gcs[j].g->n_tensors; i++) {
            const IrTensor *u = &gcs[j].g->tensors[i];
            if (gcs[j].const_used[i] && u->dtype == t->dtype && u->data_size == t->data_size && u->data && t->data &&
                memcmp(u->data, t->data, t->data_size) == 0)
                return gcs[j].names[i];
        }
    return NULL;
}

/* With --weights file, lays the blob out again (after the dry run gave every
 * constant an offset) so that a constant with the same dtype and bytes as one
 * of another graph placed before it takes that one's offset: stored once.
 * -1 on OOM. */
int cg_share_blob_constants(CgCtx *cg, GraphCode *gcs, int n_gc) {
    int n;
    ConstRef *r = used_constants(gcs, n_gc, 0, &n);
    if (!r) return -1;
    int64_t pos = CG_BLOB_ALIGN;
    for (int i = 0; i < n; i++) {
        const IrTensor *t = &gcs[r[i].k].g->tensors[r[i].id];
        int64_t at = -1;
        for (int j = 0; j < i && at < 0; j++) {
            const IrTensor *u = &gcs[r[j].k].g->tensors[r[j].id];
            if (r[j].k != r[i].k && u->dtype == t->dtype && u->data_size == t->data_size && u->data && t->data &&
                memcmp(u->data, t->data, t->data_size) == 0)
                at = gcs[r[j].k].woff[r[j].id];
        }
        if (at < 0) {
            at = pos;
            pos += ((int64_t)t->data_size + CG_BLOB_ALIGN - 1) / CG_BLOB_ALIGN * CG_BLOB_ALIGN;
        }
        gcs[r[i].k].woff[r[i].id] = at;
    }
    cg->blob_bytes = pos;
    free(r);
    return 0;
}
