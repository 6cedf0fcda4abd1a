/* test_plan.c - the memory planner at scale and its pieces.
 *
 * plan_tree (the ordered set of ranges) against a sorted-array model under
 * random inserts, erases and queries; pass_plan_memory on random graphs in
 * both of its regimes (the exact multi-order search, and the sweep used when
 * more than a million buffer pairs overlap), checked pair by pair against
 * the lifetimes worked out here; the sweep overlap checker catching a planted
 * overlap; the --max-arena message; and the weights hash (one shot equals
 * streamed, any changed byte changes it).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir.h"
#include "mpcc_rt.h"
#include "passes.h"
#include "plan_tree.h"

static int failures, passes;

static void check(int ok, const char *what, const char *detail) {
    if (ok) passes++;
    else failures++;
    printf("%s %s%s%s\n", ok ? "PASS" : "FAIL", what, detail && detail[0] ? ": " : "", detail ? detail : "");
}

static uint32_t rng = 12345u;
static uint32_t next_rand(void) {
    rng ^= rng << 13;
    rng ^= rng >> 17;
    rng ^= rng << 5;
    return rng;
}

/* ---- plan_tree against a sorted array ---- */

typedef struct Range {
    int64_t off, len;
} Range;

static void test_tree(void) {
    enum { CAP = 600, STEPS = 40000 };
    PlanTree t;
    Range model[CAP];
    int n = 0, bad = 0;
    char detail[200] = "";
    if (plan_tree_init(&t, CAP)) {
        check(0, "plan_tree: init", "out of memory");
        return;
    }
    for (int step = 0; step < STEPS && !bad; step++) {
        uint32_t r = next_rand();
        int64_t key = (int64_t)(next_rand() % 5000), len = (int64_t)(next_rand() % 300);
        int at = 0;
        while (at < n && model[at].off < key) at++;
        if (r % 3 == 0 && n < CAP && (at == n || model[at].off != key)) {
            plan_tree_insert(&t, key, len, step);
            memmove(&model[at + 1], &model[at], sizeof model[0] * (size_t)(n - at));
            model[at] = (Range){key, len};
            n++;
        } else if (r % 3 == 1 && n > 0) {
            int victim = (int)(next_rand() % (uint32_t)n);
            plan_tree_erase(&t, model[victim].off);
            memmove(&model[victim], &model[victim + 1], sizeof model[0] * (size_t)(n - victim - 1));
            n--;
        }
        /* floor, above, first fit */
        int fl = -1, ab = -1, ff = -1;
        for (int i = 0; i < n; i++) {
            if (model[i].off <= key) fl = i;
            if (model[i].off > key && ab < 0) ab = i;
            if (model[i].len >= len && ff < 0) ff = i;
        }
        int tf = plan_tree_floor(&t, key), ta = plan_tree_above(&t, key), tff = plan_tree_first_fit(&t, len);
        if ((fl < 0) != (tf < 0) || (fl >= 0 && t.node[tf].off != model[fl].off) || (ab < 0) != (ta < 0) ||
            (ab >= 0 && t.node[ta].off != model[ab].off) || (ff < 0) != (tff < 0) ||
            (ff >= 0 && t.node[tff].off != model[ff].off)) {
            bad = 1;
            snprintf(detail, sizeof detail, "step %d: key %lld len %lld, %d ranges", step, (long long)key,
                     (long long)len, n);
        }
    }
    check(!bad, "plan_tree: floor, above and first fit agree with a sorted array over 40000 random steps", detail);
    plan_tree_free(&t);
}

/* ---- the planner on random graphs ---- */

/* n_ops ops; op i writes tensor i + 1 (f32, 1..max_elems elements) and reads
 * tensor i and `reads` random earlier ones no further back than `reach`;
 * some ops get scratch. Tensor 0 is the input, the last one the output. */
static Graph *random_graph(int n_ops, int reads, int reach, int max_elems) {
    Graph *g = ir_graph_new("unit");
    for (int i = 0; i <= n_ops; i++) {
        char name[32];
        int64_t dims[1] = {1 + (int64_t)(next_rand() % (uint32_t)max_elems)};
        snprintf(name, sizeof name, "t%d", i);
        ir_add_tensor(g, name, IR_F32, 1, dims);
    }
    int in[8];
    for (int i = 0; i < n_ops; i++) {
        int n_in = 0;
        in[n_in++] = i;
        for (int k = 0; k < reads && n_in < 8; k++) {
            int back = 1 + (int)(next_rand() % (uint32_t)reach);
            if (back <= i) in[n_in++] = i - back;
        }
        int out = i + 1, idx = ir_add_op(g, OP_ADD, n_in, in, 1, &out);
        if (next_rand() % 7 == 0) g->ops[idx].scratch_bytes = 1 + next_rand() % 3000;
    }
    g->inputs = ir_alloc(g, sizeof(int));
    g->outputs = ir_alloc(g, sizeof(int));
    g->n_inputs = g->n_outputs = 1;
    g->inputs[0] = 0;
    g->outputs[0] = n_ops;
    g->tensors[0].is_input = 1;
    g->tensors[n_ops].is_output = 1;
    return g;
}

/* Every pair of buffers live at the same op must be disjoint (checked pair by
 * pair); the arena must cover every buffer and be at least the live maximum. */
static void check_plan(Graph *g, const char *what, int sweep) {
    int n_ops = g->n_ops, nb = 0;
    int64_t *off = malloc(sizeof(int64_t) * (size_t)(2 * n_ops + 2)), *size = malloc(sizeof(int64_t) * (size_t)(2 * n_ops + 2));
    int *first = malloc(sizeof(int) * (size_t)(2 * n_ops + 2)), *last = malloc(sizeof(int) * (size_t)(2 * n_ops + 2));
    int64_t *live = calloc((size_t)n_ops + 1, sizeof(int64_t));
    /* tensors 1..n_ops-1 (t_i written by op i-1, last read by the highest op reading it), then scratch */
    for (int t = 1; t < n_ops; t++) {
        int l = -1;
        for (int i = 0; i < n_ops; i++)
            for (int k = 0; k < g->ops[i].n_in; k++)
                if (g->ops[i].in[k] == t && i > l) l = i;
        off[nb] = g->tensors[t].offset;
        size[nb] = (int64_t)(ir_tensor_bytes(&g->tensors[t]) + 15) / 16 * 16;
        first[nb] = t - 1;
        last[nb] = l < 0 ? t - 1 : l;
        nb++;
    }
    for (int i = 0; i < n_ops; i++)
        if (g->ops[i].scratch_bytes) {
            off[nb] = g->ops[i].scratch_offset;
            size[nb] = (int64_t)(g->ops[i].scratch_bytes + 15) / 16 * 16;
            first[nb] = last[nb] = i;
            nb++;
        }
    int bad = 0;
    int64_t pairs = 0;
    char detail[256] = "";
    for (int a = 0; a < nb; a++)
        for (int b = a + 1; b < nb; b++) pairs += first[a] <= last[b] && first[b] <= last[a];
    snprintf(detail, sizeof detail, "%lld overlapping pairs", (long long)pairs);
    check(sweep == (pairs > 1000000), sweep ? "random graph: over a million overlapping pairs (the sweep regime)"
                                            : "random graph: under a million overlapping pairs (the exact regime)",
          detail);
    detail[0] = '\0';
    for (int a = 0; a < nb && !bad; a++) {
        if (off[a] < 0 || off[a] + size[a] > g->arena_bytes || off[a] % 16) {
            bad = 1;
            snprintf(detail, sizeof detail, "buffer %d at %lld+%lld, arena %lld", a, (long long)off[a],
                     (long long)size[a], (long long)g->arena_bytes);
        }
        for (int t = first[a]; t <= last[a]; t++) live[t] += size[a];
        for (int b = a + 1; b < nb && !bad; b++)
            if (first[a] <= last[b] && first[b] <= last[a] && off[a] < off[b] + size[b] && off[b] < off[a] + size[a]) {
                bad = 1;
                snprintf(detail, sizeof detail, "buffers %d and %d overlap", a, b);
            }
    }
    int64_t peak = 0;
    for (int t = 0; t < n_ops; t++)
        if (live[t] > peak) peak = live[t];
    char what2[160];
    snprintf(what2, sizeof what2, "%s: no two live buffers overlap, all inside the arena", what);
    check(!bad, what2, detail);
    snprintf(detail, sizeof detail, "arena %lld, lower bound %lld (here %lld), ratio %.3f", (long long)g->arena_bytes,
             (long long)g->arena_lower_bound, (long long)peak, (double)g->arena_bytes / (double)(peak ? peak : 1));
    snprintf(what2, sizeof what2, "%s: lower bound = the live maximum, arena <= 1.5 x it", what);
    check(g->arena_lower_bound == peak && g->arena_bytes >= peak && g->arena_bytes * 2 <= peak * 3, what2, detail);
    free(off), free(size), free(first), free(last), free(live);
}

static void test_planner(void) {
    Diag d;
    /* Exact regime: short lifetimes, few overlapping pairs. Sweep regime:
     * reads reach back across the whole graph, so about 1500 buffers are live
     * at once (over a million overlapping pairs). */
    for (int round = 0; round < 5; round++) {
        int sweep = round >= 3;
        const char *what = sweep ? "plan (sweep regime)" : "plan (exact regime)";
        diag_init(&d);
        Graph *g = sweep ? random_graph(2000, 3, 2000, 300) : random_graph(400, 2, 12, 500);
        int rc = pass_plan_memory(g, &d);
        check(rc == 0, what, d.msg);
        if (!rc) check_plan(g, what, sweep);
        /* A planted overlap: a live buffer moved onto another one live at the same op. */
        if (!rc && sweep) {
            int a = 2, b = 3; /* t2 (op 1..) and t3 (op 2..) are both live at op 2 */
            int64_t keep = g->tensors[b].offset;
            g->tensors[b].offset = g->tensors[a].offset;
            diag_init(&d);
            check(plan_check_overlaps(g, &d) == DIAG_INTERNAL && strstr(d.msg, "overlap"),
                  "plan: the sweep overlap checker finds a planted overlap", d.msg);
            g->tensors[b].offset = keep;
            diag_init(&d);
            check(plan_check_overlaps(g, &d) == 0, "plan: and accepts the plan once it is undone", d.msg);
        }
        ir_graph_free(g);
    }
    /* --max-arena: the message names the biggest buffer live at the peak. */
    diag_init(&d);
    Graph *g = random_graph(50, 1, 3, 100);
    int64_t big[1] = {100000};
    g->tensors[25].dims[0] = big[0];
    int rc = pass_plan_memory(g, &d);
    if (!rc) rc = plan_check_budget(g, g->arena_bytes, &d);
    check(rc == 0, "plan: an arena exactly at --max-arena is accepted", d.msg);
    diag_init(&d);
    rc = plan_check_budget(g, g->arena_bytes - 1, &d);
    check(rc == DIAG_USER && strstr(d.msg, "more than --max-arena") && strstr(d.msg, "the largest: 't25' [100000] f32"),
          "plan: one byte less fails, naming the largest live tensor first", d.msg);
    ir_graph_free(g);
}

/* ---- the weights hash ---- */

static void test_hash(void) {
    unsigned char buf[1000];
    for (size_t i = 0; i < sizeof buf; i++) buf[i] = (unsigned char)(next_rand() >> 7);
    uint64_t one = rt_hash(buf, 992);
    uint64_t h = RT_HASH_SEED;
    for (size_t at = 0; at < 992; at += 8 * (1 + at % 5)) {
        size_t n = 8 * (1 + at % 5);
        if (at + n > 992) n = 992 - at;
        h = rt_hash_update(h, buf + at, n);
    }
    check(rt_hash_final(h, 992) == one, "hash: streamed in 8-byte multiples equals one shot", "");
    int all_differ = 1;
    for (size_t i = 0; i < 992; i += 37) {
        buf[i] ^= 1;
        all_differ &= rt_hash(buf, 992) != one;
        buf[i] ^= 1;
    }
    check(all_differ, "hash: flipping any one bit changes it", "");
    check(rt_hash(buf, 999) != rt_hash(buf, 998) && rt_hash(buf, 0) != rt_hash(buf, 8),
          "hash: the length counts (tails, empty input)", "");
    unsigned char blob[RT_WEIGHTS_HEADER_BYTES + 64];
    memcpy(blob + RT_WEIGHTS_HEADER_BYTES, buf, 64);
    uint64_t want = rt_hash(buf, 64);
    rt_weights_header(blob, want);
    check(rt_weights_check(blob, sizeof blob, sizeof blob, want) == RT_OK &&
              rt_weights_check(blob, sizeof blob - 1, sizeof blob, want) == RT_ERR_WEIGHTS_SIZE &&
              rt_weights_check(NULL, sizeof blob, sizeof blob, want) == RT_ERR_NULL_ARG &&
              rt_weights_check(blob, sizeof blob, sizeof blob, want ^ 1) == RT_ERR_WEIGHTS_HASH,
          "weights check: right blob 0, short 2, NULL 1, other hash 3", "");
    blob[RT_WEIGHTS_HEADER_BYTES + 5] ^= 0x40;
    check(rt_weights_header_ok(blob, want) && rt_weights_check(blob, sizeof blob, sizeof blob, want) == RT_ERR_WEIGHTS_HASH,
          "weights check: a damaged payload passes the header check but not the full check", "");
}

int main(void) {
    test_tree();
    test_planner();
    test_hash();
    printf("%d passed, %d failed\n", passes, failures);
    return failures != 0;
}
