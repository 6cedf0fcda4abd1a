/* test_passes.c - the verifier and the passes on tiny hand-built graphs.
 *
 * Each graph is built the way the importer builds one (tensors, ops with
 * their default options parsed and their shape check run, graph inputs and
 * outputs flagged, producers set); each pass is then run on its own and its
 * effect checked: fold_dead (which ops die), sink (where constant-only ops
 * move), prepare (params for live ops only), alias (which outputs share
 * storage, and which must not), plan_memory (no live overlap, caller buffers
 * unplanned, arena near its lower bound), and the whole pipeline plus the
 * reference interpreter on numbers worked out by hand.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "interp.h"
#include "ir.h"
#include "ops.h"
#include "passes.h"

static int failures, passes;

static void check(int ok, const char *what, const char *detail) {
    if (ok) passes++;
    else failures++;
    printf("%s %s%s%s\n", ok ? "PASS" : "FAIL", what, detail && detail[0] ? ": " : "", detail ? detail : "");
}

/* ---- graph building ---- */

static int f32(Graph *g, const char *name, int64_t n) {
    int64_t dims[2] = {1, n};
    return ir_add_tensor(g, name, IR_F32, 2, dims);
}

static int f32_const(Graph *g, const char *name, int64_t n, const float *v) {
    int id = f32(g, name, n);
    float *data = ir_alloc(g, sizeof(float) * (size_t)n);
    memcpy(data, v, sizeof(float) * (size_t)n);
    g->tensors[id].data = (const uint8_t *)data;
    g->tensors[id].data_size = sizeof(float) * (size_t)n;
    return id;
}

static int i32_const(Graph *g, const char *name, int n, const int32_t *v) {
    int64_t dims[1] = {n};
    int id = ir_add_tensor(g, name, IR_I32, 1, dims);
    int32_t *data = ir_alloc(g, sizeof(int32_t) * (size_t)n);
    memcpy(data, v, sizeof(int32_t) * (size_t)n);
    g->tensors[id].data = (const uint8_t *)data;
    g->tensors[id].data_size = sizeof(int32_t) * (size_t)n;
    return id;
}

/* An op with its default options (no options table) and its shape check, as imported. */
static int add_op(Graph *g, OpKind kind, int n_in, const int *in, int out, Diag *d) {
    int idx = ir_add_op(g, kind, n_in, in, 1, &out);
    if (idx < 0) return -1;
    IrOp *op = &g->ops[idx];
    op->tfl_index = idx;
    const OpDef *def = op_def(kind);
    if (def->parse && def->parse(g, op, NULL, d)) return -1;
    if (def->check(g, op, d)) return -1;
    return idx;
}

static int op1(Graph *g, OpKind kind, int a, int out, Diag *d) { return add_op(g, kind, 1, &a, out, d); }

static int op2(Graph *g, OpKind kind, int a, int b, int out, Diag *d) {
    int in[2] = {a, b};
    return add_op(g, kind, 2, in, out, d);
}

static void set_io(Graph *g, int n_in, const int *in, int n_out, const int *out) {
    g->inputs = ir_alloc(g, sizeof(int) * (size_t)(n_in + 1));
    g->outputs = ir_alloc(g, sizeof(int) * (size_t)(n_out + 1));
    g->input_names = ir_alloc(g, sizeof(char *) * (size_t)(n_in + 1));
    g->output_names = ir_alloc(g, sizeof(char *) * (size_t)(n_out + 1));
    g->n_inputs = n_in;
    g->n_outputs = n_out;
    for (int i = 0; i < n_in; i++) {
        g->inputs[i] = in[i];
        g->tensors[in[i]].is_input = 1;
        g->input_names[i] = g->tensors[in[i]].name;
    }
    for (int i = 0; i < n_out; i++) {
        g->outputs[i] = out[i];
        g->tensors[out[i]].is_output = 1;
        g->output_names[i] = g->tensors[out[i]].name;
    }
    ir_set_producers(g);
}

static int find_tensor(const Graph *g, const char *name) {
    for (int i = 0; i < g->n_tensors; i++)
        if (strcmp(g->tensors[i].name, name) == 0) return i;
    return -1;
}

/* Index in g->ops of the (live or dead) op writing tensor `name`. */
static int op_writing(const Graph *g, const char *name) {
    int id = find_tensor(g, name);
    for (int i = 0; i < g->n_ops; i++)
        if (g->ops[i].n_out > 0 && g->ops[i].out[0] == id) return i;
    return -1;
}

static int built_ok(const char *what, int ok, const Diag *d) {
    check(ok, what, ok ? "" : d->msg);
    return ok;
}

/* x [1,4] -> RELU -> a -> RELU -> y, plus extras by the caller. */
static Graph *relu_chain(Diag *d) {
    Graph *g = ir_graph_new("unit");
    int x = f32(g, "x", 4), a = f32(g, "a", 4), y = f32(g, "y", 4);
    if (op1(g, OP_RELU, x, a, d) < 0 || op1(g, OP_RELU, a, y, d) < 0) return g;
    set_io(g, 1, &x, 1, &y);
    return g;
}

/* ---- the verifier ---- */

static void expect_verify_error(Graph *g, const char *what, const char *substring) {
    Diag d;
    diag_init(&d);
    int rc = ir_verify(g, &d);
    char detail[4200];
    snprintf(detail, sizeof detail, "rc %d, message '%s'", rc, d.msg);
    check(rc == DIAG_USER && strstr(d.msg, substring) != NULL, what, detail);
    ir_graph_free(g);
}

static void test_verify(void) {
    Diag d;
    diag_init(&d);
    Graph *g = relu_chain(&d);
    int rc = ir_verify(g, &d);
    check(rc == 0, "verify: a well-formed chain passes", d.msg);
    ir_graph_free(g);

    /* y = RELU(a) placed before a = RELU(x): a is read before it is written. */
    diag_init(&d);
    g = ir_graph_new("unit");
    int x = f32(g, "x", 4), a = f32(g, "a", 4), y = f32(g, "y", 4);
    op1(g, OP_RELU, a, y, &d);
    op1(g, OP_RELU, x, a, &d);
    set_io(g, 1, &x, 1, &y);
    expect_verify_error(g, "verify: use before definition", "input 0 tensor 'a' is used before it is defined");

    g = ir_graph_new("unit");
    x = f32(g, "x", 4), y = f32(g, "y", 4);
    op1(g, OP_RELU, x, y, &d);
    op1(g, OP_RELU, x, y, &d);
    set_io(g, 1, &x, 1, &y);
    expect_verify_error(g, "verify: a tensor written twice", "output 0 tensor 'y' is already written");

    static const float c[4] = {1, 2, 3, 4};
    g = ir_graph_new("unit");
    x = f32_const(g, "x", 4, c), y = f32(g, "y", 4);
    op1(g, OP_RELU, x, y, &d);
    set_io(g, 1, &x, 1, &y);
    expect_verify_error(g, "verify: a graph input with constant data", "graph input 0: tensor 'x' has constant data");

    g = ir_graph_new("unit");
    x = f32(g, "x", 4), y = f32(g, "y", 4);
    op1(g, OP_RELU, x, y, &d);
    set_io(g, 1, &x, 0, NULL);
    expect_verify_error(g, "verify: no graph outputs", "the graph has no outputs");

    g = ir_graph_new("unit");
    int64_t big[2] = {65536, 32769};
    x = ir_add_tensor(g, "x", IR_I8, 2, big);
    set_io(g, 1, &x, 1, &x);
    expect_verify_error(g, "verify: more than 2^31-1 elements", "tensor 0 'x': 2147549184 elements, more than");

    g = ir_graph_new("unit");
    x = f32(g, "x", 4), y = f32(g, "y", 4);
    op1(g, OP_RELU, x, y, &d);
    set_io(g, 1, &x, 1, &y);
    g->tensors[x].dims[1] = -4;
    expect_verify_error(g, "verify: a negative dimension", "tensor 0 'x': dimension 1 is -4 (negative)");
}

/* ---- fold_dead ---- */

static void test_fold_dead(void) {
    Diag d;
    diag_init(&d);
    Graph *g = ir_graph_new("unit");
    int x = f32(g, "x", 4), a = f32(g, "a", 4), b = f32(g, "b", 4), c = f32(g, "c", 4), y = f32(g, "y", 4);
    int ok = op1(g, OP_RELU, x, a, &d) >= 0 && op1(g, OP_RELU, x, b, &d) >= 0 && /* b feeds only c */
             op1(g, OP_RELU, b, c, &d) >= 0 &&                                   /* c is unused */
             op1(g, OP_RELU, a, y, &d) >= 0;
    set_io(g, 1, &x, 1, &y);
    if (built_ok("fold_dead: graph built", ok, &d)) {
        int rc = pass_fold_dead(g, &d);
        check(rc == 0, "fold_dead: runs", d.msg);
        check(!g->ops[op_writing(g, "a")].dead && !g->ops[op_writing(g, "y")].dead,
              "fold_dead: ops feeding the output live", "");
        check(g->ops[op_writing(g, "c")].dead, "fold_dead: an op whose output nobody reads is dead", "");
        check(g->ops[op_writing(g, "b")].dead, "fold_dead: an op feeding only dead ops is dead", "");
        check(ir_verify(g, &d) == 0, "fold_dead: the graph still verifies", d.msg);
    }
    ir_graph_free(g);
}

/* ---- sink ---- */

static void test_sink(void) {
    Diag d;
    diag_init(&d);
    static const float cv[4] = {-1.0f, 2.0f, -3.0f, 4.0f};
    Graph *g = ir_graph_new("unit");
    int x = f32(g, "x", 4), c = f32_const(g, "c", 4, cv), cr = f32(g, "cr", 4), a = f32(g, "a", 4),
        h = f32(g, "h", 4), y = f32(g, "y", 4);
    /* The converter's order: the constant-only RELU(c) first, its consumer last. */
    int ok = op1(g, OP_RELU, c, cr, &d) >= 0 && op1(g, OP_RELU, x, a, &d) >= 0 && op1(g, OP_RELU, a, h, &d) >= 0 &&
             op2(g, OP_ADD, h, cr, y, &d) >= 0;
    set_io(g, 1, &x, 1, &y);
    if (built_ok("sink: graph built", ok, &d)) {
        int rc = pass_fold_dead(g, &d) || pass_sink(g, &d);
        check(rc == 0, "sink: runs", d.msg);
        check(op_writing(g, "a") == 0 && op_writing(g, "h") == 1, "sink: other ops keep their order", "");
        check(op_writing(g, "cr") == 2 && op_writing(g, "y") == 3,
              "sink: the constant-only op moves right before its first consumer", "");
        check(g->tensors[cr].producer == 2 && g->tensors[y].producer == 3, "sink: producers follow the new order", "");
        check(ir_verify(g, &d) == 0, "sink: the graph still verifies", d.msg);
    }
    ir_graph_free(g);
}

/* ---- prepare ---- */

static void test_prepare(void) {
    Diag d;
    diag_init(&d);
    Graph *g = ir_graph_new("unit");
    int x = f32(g, "x", 4), a = f32(g, "a", 4), u = f32(g, "unused", 4), y = f32(g, "y", 4);
    int ok = op1(g, OP_RELU, x, a, &d) >= 0 && op1(g, OP_RELU6, x, u, &d) >= 0 && op2(g, OP_ADD, a, x, y, &d) >= 0;
    set_io(g, 1, &x, 1, &y);
    if (built_ok("prepare: graph built", ok, &d)) {
        int rc = pass_fold_dead(g, &d) || pass_sink(g, &d) || pass_prepare(g, &d);
        check(rc == 0, "prepare: runs", d.msg);
        check(g->ops[op_writing(g, "a")].params && g->ops[op_writing(g, "y")].params,
              "prepare: every live op has kernel params", "");
        check(g->ops[op_writing(g, "unused")].dead && !g->ops[op_writing(g, "unused")].params,
              "prepare: a dead op gets none", "");
    }
    ir_graph_free(g);
}

/* ---- alias ---- */

static int run_to_alias(Graph *g, Diag *d) {
    return pass_fold_dead(g, d) || pass_sink(g, d) || pass_prepare(g, d) || pass_schedule(g, d) || pass_alias(g, d);
}

static void test_alias(void) {
    Diag d;
    diag_init(&d);
    static const int32_t shape[2] = {2, 2};
    int64_t d22[2] = {2, 2};
    Graph *g = ir_graph_new("unit");
    int x = f32(g, "x", 4), a = f32(g, "a", 4), s = i32_const(g, "shape", 2, shape);
    int r = ir_add_tensor(g, "r", IR_F32, 2, d22), b = ir_add_tensor(g, "b", IR_F32, 2, d22);
    int y = ir_add_tensor(g, "y", IR_F32, 2, d22);
    int ok = op1(g, OP_RELU, x, a, &d) >= 0 && op2(g, OP_RESHAPE, a, s, r, &d) >= 0 &&
             op1(g, OP_RELU, r, b, &d) >= 0 && op1(g, OP_RELU6, b, y, &d) >= 0;
    set_io(g, 1, &x, 1, &y);
    if (built_ok("alias: graph built", ok, &d)) {
        int rc = run_to_alias(g, &d);
        check(rc == 0, "alias: runs", d.msg);
        check(g->tensors[r].alias_of == a && g->ops[op_writing(g, "r")].elided,
              "alias: RESHAPE's output shares its input's storage, no code", "");
        check(ir_storage_root(g, b) == a, "alias: RELU writes over an input nothing reads later", "");
        check(g->tensors[a].alias_of < 0, "alias: a graph input's consumer does not write over the input", "");
        check(g->tensors[y].alias_of < 0, "alias: a graph output (caller buffer) is never aliased", "");
    }
    ir_graph_free(g);

    /* t = RELU(x); u = RELU(t); y = ADD(u, t): u must not overwrite t, which ADD reads later. */
    diag_init(&d);
    g = ir_graph_new("unit");
    x = f32(g, "x", 4);
    int t = f32(g, "t", 4), u = f32(g, "u", 4);
    y = f32(g, "y", 4);
    ok = op1(g, OP_RELU, x, t, &d) >= 0 && op1(g, OP_RELU, t, u, &d) >= 0 && op2(g, OP_ADD, u, t, y, &d) >= 0;
    set_io(g, 1, &x, 1, &y);
    if (built_ok("alias: second graph built", ok, &d)) {
        int rc = run_to_alias(g, &d);
        check(rc == 0, "alias: runs on the second graph", d.msg);
        check(g->tensors[u].alias_of < 0, "alias: no in-place write over an input read later", "");
    }
    ir_graph_free(g);
}

/* ---- plan_memory, the pipeline and the interpreter ---- */

static void test_plan_and_run(void) {
    Diag d;
    diag_init(&d);
    static const float cv[8] = {0.5f, -1.0f, 2.0f, 0.0f, -0.25f, 1.0f, 3.0f, -2.0f};
    Graph *g = ir_graph_new("unit");
    int x = f32(g, "x", 8), c = f32_const(g, "c", 8, cv), t1 = f32(g, "t1", 8), t2 = f32(g, "t2", 8),
        t3 = f32(g, "t3", 8), t4 = f32(g, "t4", 8), y = f32(g, "y", 8);
    /* t1 = relu(x); t2 = t1 + c; t3 = relu6(t2); t4 = t3 * t1; y = t4 - c */
    int ok = op1(g, OP_RELU, x, t1, &d) >= 0 && op2(g, OP_ADD, t1, c, t2, &d) >= 0 &&
             op1(g, OP_RELU6, t2, t3, &d) >= 0 && op2(g, OP_MUL, t3, t1, t4, &d) >= 0 &&
             op2(g, OP_SUB, t4, c, y, &d) >= 0;
    set_io(g, 1, &x, 1, &y);
    if (!built_ok("plan: graph built", ok, &d)) {
        ir_graph_free(g);
        return;
    }
    PipelineOptions po = {1, NULL, NULL};
    int rc = pass_run_pipeline(g, &po, &d);
    check(rc == 0, "pipeline: runs with the verifier after every pass", d.msg);
    if (rc) {
        ir_graph_free(g);
        return;
    }
    check(g->tensors[x].offset < 0 && g->tensors[y].offset < 0 && g->tensors[c].offset < 0,
          "plan: graph inputs, outputs and constants get no arena offset", "");
    int planned = 1;
    for (int id = t1; id <= t4; id++) planned &= g->tensors[id].offset >= 0 && g->tensors[id].offset % 16 == 0;
    check(planned, "plan: every intermediate has an aligned arena offset", "");
    /* t1 is live from op 0 to op 3 (MUL reads it): nothing live meanwhile may share its bytes. */
    int64_t o1 = g->tensors[ir_storage_root(g, t1)].offset;
    int disjoint = 1;
    for (int id = t2; id <= t3; id++) {
        int64_t o = g->tensors[id].offset;
        if (ir_storage_root(g, id) != ir_storage_root(g, t1)) disjoint &= o + 32 <= o1 || o1 + 32 <= o;
    }
    check(disjoint && ir_storage_root(g, t3) != ir_storage_root(g, t1),
          "plan: buffers live at the same time do not overlap", "");
    check(plan_check_overlaps(g, &d) == 0, "plan: the overlap checker agrees", d.msg);
    char detail[128];
    snprintf(detail, sizeof detail, "arena %lld, lower bound %lld", (long long)g->arena_bytes,
             (long long)g->arena_lower_bound);
    check(g->arena_bytes >= g->arena_lower_bound && g->arena_bytes <= g->arena_lower_bound + 16 &&
              g->arena_lower_bound >= 64,
          "plan: the arena is at its lower bound (two 32-byte buffers live at once)", detail);

    float in[8] = {1.0f, -2.0f, 3.0f, 0.5f, -0.5f, 4.0f, 2.5f, 7.0f}, out[8], want[8];
    for (int i = 0; i < 8; i++) {
        float r = in[i] > 0.0f ? in[i] : 0.0f, s = r + cv[i];
        float r6 = s < 0.0f ? 0.0f : (s > 6.0f ? 6.0f : s);
        want[i] = r6 * r - cv[i];
    }
    const void *ins[1] = {in};
    void *outs[1] = {out};
    rc = interp_run(g, ins, outs, &d);
    check(rc == 0 && memcmp(out, want, sizeof out) == 0, "interpreter: y = relu6(relu(x) + c) * relu(x) - c",
          rc ? d.msg : "");
    ir_graph_free(g);
}

int main(void) {
    test_verify();
    test_fold_dead();
    test_sink();
    test_prepare();
    test_alias();
    test_plan_and_run();
    printf("%d passed, %d failed\n", passes, failures);
    return failures != 0;
}
