/* pass_plan_memory.c - static memory planning. Needs: alias.
 *
 * Every non-constant tensor that is not a caller buffer (graph inputs and
 * outputs are passed to <prefix>_run) gets an offset in one arena:
 *   [ variable state | activations and per-op scratch ]
 * State persists across runs, so it is never shared. Activations are placed
 * by lifetime (first writer .. last reader, in op order): several greedy
 * orders are tried (by size, lifetime length, size x lifetime, start, end) with first-fit
 * or best-fit placement, and the smallest peak is kept. The lower bound is the largest
 * total size of simultaneously live buffers. */
#include <stdlib.h>
#include <string.h>

#include "passes.h"
#include "text.h"

#define ALIGN 16

typedef struct Buf {
    int tensor;        /* tensor id, or -1 for an op's scratch */
    int op;            /* op index for scratch */
    int64_t size;      /* aligned size */
    int first, last;   /* op index range of the lifetime */
    int64_t offset;    /* relative to the activation region */
} Buf;

static int64_t align_up(int64_t x) { return (x + ALIGN - 1) / ALIGN * ALIGN; }

static int planned_tensor(const IrTensor *t) {
    return !t->data && !t->is_variable && !t->is_input && !t->is_output && t->alias_of < 0;
}

/* Collects buffers and their lifetimes. Returns count or -1 on OOM. */
static int collect(const Graph *g, Buf **out) {
    int nt = g->n_tensors, n = 0;
    Buf *b = calloc((size_t)(nt + g->n_ops + 1), sizeof *b);
    int *slot = malloc(sizeof(int) * (size_t)(nt + 1));
    if (!b || !slot) {
        free(b);
        free(slot);
        return -1;
    }
    for (int i = 0; i < nt; i++) {
        slot[i] = -1;
        const IrTensor *t = &g->tensors[i];
        if (!planned_tensor(t)) continue;
        b[n].tensor = i;
        b[n].size = align_up(ir_tensor_bytes(t));
        b[n].first = INT32_MAX;
        b[n].last = -1;
        slot[i] = n++;
    }
    for (int oi = 0; oi < g->n_ops; oi++) {
        const IrOp *op = &g->ops[oi];
        if (op->dead) continue;
        for (int k = 0; k < op->n_in + op->n_out; k++) {
            int id = k < op->n_in ? op->in[k] : op->out[k - op->n_in];
            if (id < 0) continue;
            int s = slot[ir_storage_root(g, id)];
            if (s < 0) continue;
            if (oi < b[s].first) b[s].first = oi;
            if (oi > b[s].last) b[s].last = oi;
        }
        if (op->scratch_bytes) {
            b[n].tensor = -1;
            b[n].op = oi;
            b[n].size = align_up((int64_t)op->scratch_bytes);
            b[n].first = b[n].last = oi;
            n++;
        }
    }
    /* Tensors never touched by a live op need no storage. */
    int m = 0;
    for (int i = 0; i < n; i++)
        if (b[i].last >= 0) b[m++] = b[i];
    free(slot);
    *out = b;
    return m;
}

static int overlap_time(const Buf *a, const Buf *b) { return a->first <= b->last && b->first <= a->last; }

static int cmp_offset(const void *x, const void *y) {
    const Buf *a = *(const Buf *const *)x, *b = *(const Buf *const *)y;
    return (a->offset > b->offset) - (a->offset < b->offset);
}

/* Places buffers in the given order; returns the peak. Each buffer goes into
 * a gap between the time-overlapping buffers already placed: the lowest one
 * that fits (first fit) or the tightest one (best fit), else on top. */
static int64_t place(Buf *b, int n, const int *order, Buf **tmp, int best_fit) {
    int64_t peak = 0;
    for (int i = 0; i < n; i++) {
        Buf *cur = &b[order[i]];
        int m = 0;
        for (int j = 0; j < i; j++) {
            Buf *o = &b[order[j]];
            if (overlap_time(cur, o)) tmp[m++] = o;
        }
        qsort(tmp, (size_t)m, sizeof *tmp, cmp_offset);
        int64_t off = 0, chosen = -1, chosen_gap = INT64_MAX;
        for (int j = 0; j <= m; j++) {
            int64_t gap_end = j < m ? tmp[j]->offset : INT64_MAX;
            if (gap_end - off >= cur->size) {
                int64_t gap = gap_end - off;
                if (!best_fit) {
                    chosen = off;
                    break;
                }
                if (chosen < 0 || gap < chosen_gap) {
                    chosen_gap = gap;
                    chosen = off;
                }
            }
            if (j < m && tmp[j]->offset + tmp[j]->size > off) off = tmp[j]->offset + tmp[j]->size;
        }
        cur->offset = chosen;
        if (chosen + cur->size > peak) peak = chosen + cur->size;
    }
    return peak;
}

static Buf *sort_base;
static int sort_key;
static int cmp_order(const void *x, const void *y) {
    const Buf *a = &sort_base[*(const int *)x], *b = &sort_base[*(const int *)y];
    int64_t ka, kb;
    switch (sort_key) {
    case 0: ka = a->size; kb = b->size; break;
    case 1: ka = (int64_t)(a->last - a->first); kb = (int64_t)(b->last - b->first); break;
    case 2: ka = a->size * (a->last - a->first + 1); kb = b->size * (b->last - b->first + 1); break;
    case 3: ka = -a->first; kb = -b->first; break;
    default: ka = a->last; kb = b->last; break;
    }
    if (ka != kb) return ka < kb ? 1 : -1; /* descending */
    if (a->size != b->size) return a->size < b->size ? 1 : -1;
    return *(const int *)x - *(const int *)y; /* stable: deterministic output */
}

static int64_t lower_bound(const Buf *b, int n, int n_ops) {
    int64_t best = 0;
    for (int t = 0; t < n_ops; t++) {
        int64_t live = 0;
        for (int i = 0; i < n; i++)
            if (b[i].first <= t && t <= b[i].last) live += b[i].size;
        if (live > best) best = live;
    }
    return best;
}

int pass_plan_memory(Graph *g, Diag *d) {
    int64_t state = 0;
    for (int i = 0; i < g->n_tensors; i++) {
        IrTensor *t = &g->tensors[i];
        t->offset = -1;
        if (t->is_variable && !t->data) {
            t->offset = state;
            state += align_up(ir_tensor_bytes(t));
        }
    }
    Buf *b;
    int n = collect(g, &b);
    if (n < 0) return diag_internal(d, "out of memory");
    int *order = malloc(sizeof(int) * (size_t)(n + 1)), *best_order = malloc(sizeof(int) * (size_t)(n + 1));
    Buf **tmp = malloc(sizeof(Buf *) * (size_t)(n + 1));
    if (!order || !best_order || !tmp) {
        free(b), free(order), free(best_order), free(tmp);
        return diag_internal(d, "out of memory");
    }
    int64_t best = -1;
    int best_fit = 0;
    for (int key = 0; key < 5; key++) {
        for (int i = 0; i < n; i++) order[i] = i;
        sort_base = b;
        sort_key = key;
        qsort(order, (size_t)n, sizeof(int), cmp_order);
        for (int fit = 0; fit < 2; fit++) {
            int64_t peak = place(b, n, order, tmp, fit);
            if (best < 0 || peak < best) {
                best = peak;
                best_fit = fit;
                memcpy(best_order, order, sizeof(int) * (size_t)n);
            }
        }
    }
    place(b, n, best_order, tmp, best_fit);
    for (int i = 0; i < n; i++) {
        if (b[i].tensor >= 0) g->tensors[b[i].tensor].offset = state + b[i].offset;
        else g->ops[b[i].op].scratch_offset = state + b[i].offset;
    }
    for (int i = 0; i < g->n_tensors; i++)
        if (g->tensors[i].alias_of >= 0) g->tensors[i].offset = g->tensors[ir_storage_root(g, i)].offset;
    g->state_bytes = state;
    g->arena_bytes = state + (best > 0 ? best : 0);
    g->arena_lower_bound = state + lower_bound(b, n, g->n_ops);
    free(b), free(order), free(best_order), free(tmp);
    return plan_check_overlaps(g, d);
}

int plan_check_overlaps(const Graph *g, Diag *d) {
    Buf *b;
    int n = collect(g, &b);
    if (n < 0) return diag_internal(d, "out of memory");
    int rc = 0;
    for (int i = 0; i < n && !rc; i++) {
        int64_t oi = b[i].tensor >= 0 ? g->tensors[b[i].tensor].offset : g->ops[b[i].op].scratch_offset;
        if (oi < g->state_bytes || oi + b[i].size > g->arena_bytes || oi % ALIGN)
            rc = diag_internal(d, "memory plan: buffer %d at %lld+%lld outside the arena", i, (long long)oi,
                               (long long)b[i].size);
        for (int j = i + 1; j < n && !rc; j++) {
            if (!overlap_time(&b[i], &b[j])) continue;
            int64_t oj = b[j].tensor >= 0 ? g->tensors[b[j].tensor].offset : g->ops[b[j].op].scratch_offset;
            if (oi < oj + b[j].size && oj < oi + b[i].size)
                rc = diag_internal(d, "memory plan: buffers %d and %d overlap while both live", i, j);
        }
    }
    free(b);
    return rc;
}

void plan_report(const Graph *g, FILE *f) {
    Buf *b;
    int n = collect(g, &b);
    if (n < 0) return;
    char nb[TXT_TERMINAL_CAP];
    fprintf(f, "memory plan: %d buffers\n", n);
    fprintf(f, "  %-10s %-10s %-9s %s\n", "offset", "bytes", "ops", "tensor");
    for (int i = 0; i < g->n_tensors; i++) {
        const IrTensor *t = &g->tensors[i];
        if (t->is_variable && t->offset >= 0)
            fprintf(f, "  %-10lld %-10lld %-9s %s (state)\n", (long long)t->offset, (long long)ir_tensor_bytes(t),
                    "always", txt_terminal(nb, sizeof nb, t->name, 80));
    }
    for (int i = 0; i < n; i++) {
        char life[32];
        snprintf(life, sizeof life, "%d..%d", b[i].first, b[i].last);
        if (b[i].tensor >= 0) {
            const IrTensor *t = &g->tensors[b[i].tensor];
            fprintf(f, "  %-10lld %-10lld %-9s %s\n", (long long)t->offset, (long long)b[i].size, life,
                    txt_terminal(nb, sizeof nb, t->name, 80));
        } else {
            fprintf(f, "  %-10lld %-10lld %-9s (scratch of op %d)\n", (long long)g->ops[b[i].op].scratch_offset,
                    (long long)b[i].size, life, b[i].op);
        }
    }
    double ratio = g->arena_lower_bound > 0 ? (double)g->arena_bytes / (double)g->arena_lower_bound : 1.0;
    fprintf(f, "arena: %lld bytes (state %lld), lower bound %lld bytes, ratio %.3f\n", (long long)g->arena_bytes,
            (long long)g->state_bytes, (long long)g->arena_lower_bound, ratio);
    free(b);
}
