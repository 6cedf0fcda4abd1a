/* pass_plan_memory.c - static memory planning. Needs: alias.
 *
 * Every non-constant tensor that is not a caller buffer (graph inputs and
 * outputs are passed to <prefix>_run) gets an offset in one arena:
 *   [ variable state | activations and per-op scratch ]
 * State persists across runs, so it is never shared. Activations are placed
 * by lifetime (first writer .. last reader, in op order), by one of two
 * placers, chosen by the number of buffer pairs whose lifetimes overlap
 * (counted in O(buffers + ops)):
 *  - up to PLAN_EXACT_MAX_PAIRS (every model in the test set): several greedy
 *    orders (by size, lifetime length, size x lifetime, start, end) with
 *    first-fit or best-fit placement into the gaps between the time-overlapping
 *    buffers already placed, keeping the smallest peak. Each placement looks
 *    only at its buffer's list of overlapping buffers, so a try costs
 *    O(pairs log pairs), not O(buffers^2).
 *  - beyond that (tens of thousands of buffers live at once): one sweep in op
 *    order that frees buffers after their last reader and places each new one
 *    first-fit into an address-ordered set of free ranges (plan_tree.h):
 *    O(buffers log buffers).
 * The lower bound is the largest total size of simultaneously live buffers.
 * The overlap checker sweeps the plan the same way: O(buffers log buffers). */
#include <stdlib.h>
#include <string.h>

#include "passes.h"
#include "plan_tree.h"
#include "text.h"

#define ALIGN 16
#define PLAN_EXACT_MAX_PAIRS 1000000
/* No arena larger than a 64-bit machine's user address space (x86-64 and
 * AArch64: 2^47 bytes) can ever be allocated; such a model is refused. */
#define PLAN_MAX_ARENA ((int64_t)1 << 47)

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

/* Buffer indices in order of first op (use_last: of last op), ties by index;
 * a counting sort, ops being 0..n_ops-1. NULL on OOM. */
static int *by_time(const Buf *b, int n, int n_ops, int use_last) {
    int *count = calloc((size_t)n_ops + 1, sizeof(int)), *out = malloc(sizeof(int) * (size_t)(n + 1));
    if (!count || !out) {
        free(count);
        free(out);
        return NULL;
    }
    for (int i = 0; i < n; i++) count[use_last ? b[i].last : b[i].first]++;
    int sum = 0;
    for (int t = 0; t < n_ops; t++) {
        int c = count[t];
        count[t] = sum;
        sum += c;
    }
    for (int i = 0; i < n; i++) out[count[use_last ? b[i].last : b[i].first]++] = i;
    free(count);
    return out;
}

/* Number of buffer pairs whose lifetimes overlap, or -1 on OOM. */
static int64_t count_pairs(const Buf *b, int n, int n_ops) {
    int64_t *starts = calloc((size_t)n_ops + 1, sizeof(int64_t)), *ends = calloc((size_t)n_ops + 1, sizeof(int64_t));
    if (!starts || !ends) {
        free(starts);
        free(ends);
        return -1;
    }
    for (int i = 0; i < n; i++) {
        starts[b[i].first]++;
        ends[b[i].last]++;
    }
    /* A buffer starting at op t overlaps every buffer started before t and not
     * ended before t, and every other one starting at t. */
    int64_t pairs = 0, started = 0, ended = 0;
    for (int t = 0; t < n_ops; t++) {
        pairs += starts[t] * (started - ended) + starts[t] * (starts[t] - 1) / 2;
        started += starts[t];
        ended += ends[t];
    }
    free(starts);
    free(ends);
    return pairs;
}

/* Lifetime overlaps as adjacency lists: the buffers overlapping buffer i are
 * adj[start[i] .. start[i + 1]). */
typedef struct Overlaps {
    int *start, *adj;
} Overlaps;

static int build_overlaps(const Buf *b, int n, int n_ops, int64_t pairs, Overlaps *o) {
    int *order = by_time(b, n, n_ops, 0);
    int *fill = calloc((size_t)n + 1, sizeof(int)), *active = malloc(sizeof(int) * (size_t)(n + 1));
    o->start = malloc(sizeof(int) * (size_t)(n + 1));
    o->adj = malloc(sizeof(int) * (size_t)(2 * pairs + 1));
    int rc = order && fill && active && o->start && o->adj ? 0 : -1;
    /* Pass 0 counts each buffer's overlaps, pass 1 fills the lists. */
    for (int pass = 0; pass < 2 && !rc; pass++) {
        if (pass == 1) {
            int sum = 0;
            for (int i = 0; i < n; i++) {
                o->start[i] = sum;
                sum += fill[i];
                fill[i] = 0;
            }
            o->start[n] = sum;
        }
        int n_active = 0;
        for (int k = 0; k < n; k++) {
            int i = order[k];
            for (int a = 0; a < n_active;) {
                int j = active[a];
                if (b[j].last < b[i].first) { /* ended: drop it */
                    active[a] = active[--n_active];
                    continue;
                }
                if (pass == 1) {
                    o->adj[o->start[i] + fill[i]] = j;
                    o->adj[o->start[j] + fill[j]] = i;
                }
                fill[i]++;
                fill[j]++;
                a++;
            }
            active[n_active++] = i;
        }
    }
    free(order);
    free(fill);
    free(active);
    return rc;
}

static int cmp_placed(const void *x, const void *y) {
    const Buf *a = *(const Buf *const *)x, *b = *(const Buf *const *)y;
    if (a->offset != b->offset) return a->offset < b->offset ? -1 : 1;
    return (a > b) - (a < b);
}

/* Places buffers in the given order; returns the peak. Each buffer goes into
 * a gap between the time-overlapping buffers already placed: the lowest one
 * that fits (first fit) or the tightest one (best fit), else on top. */
static int64_t place(Buf *b, int n, const int *order, int *rank, const Overlaps *o, Buf **tmp, int best_fit) {
    int64_t peak = 0;
    for (int i = 0; i < n; i++) rank[order[i]] = i;
    for (int i = 0; i < n; i++) {
        int c = order[i];
        Buf *cur = &b[c];
        int m = 0;
        for (int e = o->start[c]; e < o->start[c + 1]; e++)
            if (rank[o->adj[e]] < i) tmp[m++] = &b[o->adj[e]];
        qsort(tmp, (size_t)m, sizeof *tmp, cmp_placed);
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

/* The exact placer: every greedy order, first and best fit; the best plan is
 * left in b[].offset. Returns its peak, or -1 on OOM. */
static int64_t plan_exact(Buf *b, int n, int n_ops, int64_t pairs) {
    Overlaps o = {NULL, NULL};
    int *order = malloc(sizeof(int) * (size_t)(n + 1)), *best_order = malloc(sizeof(int) * (size_t)(n + 1));
    int *rank = malloc(sizeof(int) * (size_t)(n + 1));
    Buf **tmp = malloc(sizeof(Buf *) * (size_t)(n + 1));
    int64_t best = -1;
    if (order && best_order && rank && tmp && !build_overlaps(b, n, n_ops, pairs, &o)) {
        int best_fit = 0;
        for (int key = 0; key < 5; key++) {
            for (int i = 0; i < n; i++) order[i] = i;
            sort_base = b;
            sort_key = key;
            qsort(order, (size_t)n, sizeof(int), cmp_order);
            for (int fit = 0; fit < 2; fit++) {
                int64_t peak = place(b, n, order, rank, &o, tmp, fit);
                if (best < 0 || peak < best) {
                    best = peak;
                    best_fit = fit;
                    memcpy(best_order, order, sizeof(int) * (size_t)n);
                }
            }
        }
        place(b, n, best_order, rank, &o, tmp, best_fit);
    }
    free(o.start), free(o.adj), free(order), free(best_order), free(rank), free(tmp);
    return best;
}

/* Returns [off, off + len) to the free ranges, merged with its neighbours;
 * a range that reaches the top lowers the top instead. */
static int release_range(PlanTree *t, int64_t off, int64_t len, int64_t *top) {
    if (len == 0) return 0;
    int p = plan_tree_floor(t, off);
    if (p >= 0 && t->node[p].off + t->node[p].len == off) {
        off = t->node[p].off;
        len += t->node[p].len;
        plan_tree_erase(t, off);
    }
    int s = plan_tree_above(t, off);
    if (s >= 0 && t->node[s].off == off + len) {
        len += t->node[s].len;
        plan_tree_erase(t, t->node[s].off);
    }
    if (off + len == *top) {
        *top = off;
        return 0;
    }
    return plan_tree_insert(t, off, len, -1);
}

/* The lowest free range that holds len bytes, else the top. */
static int64_t take_range(PlanTree *t, int64_t len, int64_t *top, int *oom) {
    int x = len > 0 ? plan_tree_first_fit(t, len) : -1;
    if (x < 0) {
        int64_t off = *top;
        *top += len;
        return off;
    }
    int64_t off = t->node[x].off, rest = t->node[x].len - len;
    plan_tree_erase(t, off);
    if (rest > 0 && plan_tree_insert(t, off + len, rest, -1)) *oom = 1;
    return off;
}

typedef struct ScanKey {
    int first;
    int64_t size;
    int idx;
} ScanKey;

static int cmp_scan(const void *x, const void *y) {
    const ScanKey *a = x, *b = y;
    if (a->first != b->first) return a->first < b->first ? -1 : 1;
    if (a->size != b->size) return a->size > b->size ? -1 : 1; /* larger first */
    return a->idx - b->idx;
}

/* The sweep placer for graphs with too many overlapping pairs for the exact
 * one: in op order, buffers whose last reader has run are freed, then the
 * ones first written here are placed, largest first. Returns the peak, or -1
 * on OOM. */
static int64_t plan_sweep(Buf *b, int n, int n_ops) {
    ScanKey *key = malloc(sizeof *key * (size_t)(n + 1));
    int *frees = by_time(b, n, n_ops, 1);
    PlanTree t;
    int oom = plan_tree_init(&t, n + 1) != 0 || !key || !frees;
    int64_t top = 0, peak = 0;
    for (int i = 0; i < n && !oom; i++) key[i] = (ScanKey){b[i].first, b[i].size, i};
    if (!oom) qsort(key, (size_t)n, sizeof *key, cmp_scan);
    for (int a = 0, f = 0; a < n && !oom; a++) {
        Buf *cur = &b[key[a].idx];
        for (; f < n && b[frees[f]].last < cur->first; f++)
            if (release_range(&t, b[frees[f]].offset, b[frees[f]].size, &top)) oom = 1;
        cur->offset = take_range(&t, cur->size, &top, &oom);
        if (top > peak) peak = top;
    }
    plan_tree_free(&t);
    free(key);
    free(frees);
    return oom ? -1 : peak;
}

/* The most bytes live at once and the first op where that happens (-1 on OOM). */
static int64_t live_peak(const Buf *b, int n, int n_ops, int *at) {
    int64_t *delta = calloc((size_t)n_ops + 1, sizeof(int64_t));
    if (!delta) return -1;
    for (int i = 0; i < n; i++) {
        delta[b[i].first] += b[i].size;
        delta[b[i].last + 1] -= b[i].size;
    }
    int64_t live = 0, best = 0;
    *at = -1;
    for (int t = 0; t < n_ops; t++) {
        live += delta[t];
        if (live > best) {
            best = live;
            *at = t;
        }
    }
    free(delta);
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
    int64_t pairs = count_pairs(b, n, g->n_ops), best = -1, bound = -1;
    int peak_at;
    if (pairs >= 0) best = pairs <= PLAN_EXACT_MAX_PAIRS ? plan_exact(b, n, g->n_ops, pairs) : plan_sweep(b, n, g->n_ops);
    if (best >= 0) bound = live_peak(b, n, g->n_ops, &peak_at);
    if (bound < 0) {
        free(b);
        return diag_internal(d, "out of memory");
    }
    for (int i = 0; i < n; i++) {
        if (b[i].tensor >= 0) g->tensors[b[i].tensor].offset = state + b[i].offset;
        else g->ops[b[i].op].scratch_offset = state + b[i].offset;
    }
    for (int i = 0; i < g->n_tensors; i++)
        if (g->tensors[i].alias_of >= 0) {
            const IrTensor *root = &g->tensors[ir_storage_root(g, i)];
            g->tensors[i].offset = root->offset < 0 ? -1 : root->offset + ir_storage_at(g, i);
        }
    g->state_bytes = state;
    g->arena_bytes = state + best;
    g->arena_lower_bound = state + bound;
    free(b);
    int64_t op_bound = plan_live_bytes(g, 0, NULL);
    if (op_bound < 0) return diag_internal(d, "out of memory");
    g->arena_op_bound = state + op_bound;
    if (g->arena_bytes > PLAN_MAX_ARENA) {
        char peak[2048];
        plan_describe_peak(g, 3, peak, sizeof peak);
        return diag_user(d, "the arena would be %lld bytes, more than a 64-bit address space holds (%lld); %s",
                         (long long)g->arena_bytes, (long long)PLAN_MAX_ARENA, peak);
    }
    return plan_check_overlaps(g, d);
}

int64_t plan_live_bytes(const Graph *g, int with_scratch, int64_t *live) {
    Buf *b;
    int n = collect(g, &b);
    int64_t *delta = calloc((size_t)g->n_ops + 1, sizeof(int64_t)), peak = 0, sum = 0;
    if (n < 0 || !delta) {
        if (n >= 0) free(b);
        free(delta);
        return -1;
    }
    for (int i = 0; i < n; i++)
        if (with_scratch || b[i].tensor >= 0) delta[b[i].first] += b[i].size, delta[b[i].last + 1] -= b[i].size;
    for (int i = 0; i < g->n_ops; i++) {
        sum += delta[i];
        if (live) live[i] = sum;
        if (sum > peak) peak = sum;
    }
    free(b);
    free(delta);
    return peak;
}

static int64_t buf_offset(const Graph *g, const Buf *b) {
    return b->tensor >= 0 ? g->tensors[b->tensor].offset : g->ops[b->op].scratch_offset;
}

/* Sweeps the plan in op order with the live buffers in an address-ordered
 * set: a buffer that overlaps a live one overlaps its neighbour in that set.
 * Zero-byte buffers occupy nothing and are only checked against the bounds. */
int plan_check_overlaps(const Graph *g, Diag *d) {
    Buf *b;
    int n = collect(g, &b);
    if (n < 0) return diag_internal(d, "out of memory");
    int rc = 0;
    for (int i = 0; i < n && !rc; i++) {
        int64_t oi = b[i].offset = buf_offset(g, &b[i]);
        if (oi < g->state_bytes || oi + b[i].size > g->arena_bytes || oi % ALIGN)
            rc = diag_internal(d, "memory plan: buffer %d at %lld+%lld outside the arena", i, (long long)oi,
                               (long long)b[i].size);
    }
    int *starts = by_time(b, n, g->n_ops, 0), *ends = by_time(b, n, g->n_ops, 1);
    PlanTree live;
    if (plan_tree_init(&live, n + 1) || !starts || !ends) rc = rc ? rc : diag_internal(d, "out of memory");
    for (int s = 0, e = 0; s < n && !rc; s++) {
        const Buf *cur = &b[starts[s]];
        for (; e < n && b[ends[e]].last < cur->first; e++)
            if (b[ends[e]].size) plan_tree_erase(&live, b[ends[e]].offset);
        if (!cur->size) continue;
        int p = plan_tree_floor(&live, cur->offset), q = plan_tree_above(&live, cur->offset), other = -1;
        if (p >= 0 && live.node[p].off + live.node[p].len > cur->offset) other = live.node[p].id;
        else if (q >= 0 && live.node[q].off < cur->offset + cur->size) other = live.node[q].id;
        if (other >= 0) rc = diag_internal(d, "memory plan: buffers %d and %d overlap while both live", other, starts[s]);
        else if (plan_tree_insert(&live, cur->offset, cur->size, starts[s])) rc = diag_internal(d, "out of memory");
    }
    plan_tree_free(&live);
    free(starts);
    free(ends);
    free(b);
    return rc;
}

static const char *buf_name(const Graph *g, const Buf *b, char *nb, size_t cap) {
    if (b->tensor >= 0) {
        char desc[160], name[TXT_TERMINAL_CAP];
        const IrTensor *t = &g->tensors[b->tensor];
        snprintf(nb, cap, "'%s' %s", txt_terminal(name, sizeof name, t->name, 80), ir_tensor_desc(t, desc, sizeof desc));
    } else {
        const IrOp *op = &g->ops[b->op];
        snprintf(nb, cap, "scratch of operator #%d (%s)", op->tfl_index, ir_op_name(op->kind));
    }
    return nb;
}

static int cmp_size_desc(const void *x, const void *y) {
    const Buf *a = x, *b = y;
    if (a->size != b->size) return a->size > b->size ? -1 : 1;
    return a->first != b->first ? a->first - b->first : a->tensor - b->tensor;
}

void plan_describe_peak(const Graph *g, int max_items, char *out, size_t cap) {
    Buf *b;
    int n = collect(g, &b), at = -1;
    out[0] = '\0';
    if (n < 0) return;
    int64_t live = live_peak(b, n, g->n_ops, &at);
    if (live < 0 || at < 0) {
        if (g->state_bytes) snprintf(out, cap, "all %lld bytes are state", (long long)g->state_bytes);
        free(b);
        return;
    }
    int m = 0;
    for (int i = 0; i < n; i++)
        if (b[i].first <= at && at <= b[i].last) b[m++] = b[i];
    qsort(b, (size_t)m, sizeof *b, cmp_size_desc);
    const IrOp *op = &g->ops[at];
    size_t len = 0;
    int w = snprintf(out, cap, "at TFLite operator #%d (%s), %lld bytes are live in %d buffer%s", op->tfl_index,
                     ir_op_name(op->kind), (long long)live, m, m == 1 ? "" : "s");
    if (g->state_bytes && w > 0) w += snprintf(out + w, cap > (size_t)w ? cap - (size_t)w : 0, " (plus %lld bytes of state)", (long long)g->state_bytes);
    len = w > 0 ? (size_t)w : 0;
    for (int i = 0; i < m && i < max_items && len < cap; i++) {
        char nb[TXT_TERMINAL_CAP + 200];
        w = snprintf(out + len, cap - len, "%s%s %lld bytes (ops %d..%d)", i ? ", " : "; the largest: ",
                     buf_name(g, &b[i], nb, sizeof nb), (long long)b[i].size, b[i].first, b[i].last);
        if (w > 0) len += (size_t)w;
    }
    if (m > max_items && len < cap) snprintf(out + len, cap - len, ", and %d more", m - max_items);
    free(b);
}

int plan_check_budget(const Graph *g, int64_t max_arena, Diag *d) {
    if (g->arena_bytes <= max_arena) return 0;
    char peak[2048];
    plan_describe_peak(g, 5, peak, sizeof peak);
    return diag_user(d, "the arena needs %lld bytes, more than --max-arena %lld (lower bound %lld bytes); %s",
                     (long long)g->arena_bytes, (long long)max_arena, (long long)g->arena_lower_bound, peak);
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
    fprintf(f, "tensor bound: %lld bytes (state + the tensors live at the worst op, without scratch)\n",
            (long long)g->arena_op_bound);
    free(b);
}

int plan_buffers(const Graph *g, PlanBuffer **out) {
    Buf *b;
    *out = NULL;
    int n = collect(g, &b);
    if (n < 0) return -1;
    PlanBuffer *p = malloc(sizeof *p * (size_t)(n + 1));
    if (!p) {
        free(b);
        return -1;
    }
    for (int i = 0; i < n; i++)
        p[i] = (PlanBuffer){b[i].tensor, b[i].tensor >= 0 ? -1 : b[i].op, b[i].size, buf_offset(g, &b[i]),
                            b[i].first, b[i].last};
    free(b);
    *out = p;
    return n;
}
