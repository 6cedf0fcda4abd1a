/* test_inplace.c - which graph outputs the header may declare in place of an input
 * (cg_inplace_input, codegen/emit_inplace.c) on hand-built graphs: a KV-cache output
 * written by one DYNAMIC_UPDATE_SLICE of a graph input, or by a STABLEHLO_COMPOSITE
 * (odml.cache_update) that calls a decomposition doing that, and each case where
 * sharing the buffer would change a result (another reader of the old cache, in the
 * caller or inside the decomposition; a composite mapped to a kernel; an output listed
 * twice; the update reading an op's result, not an input).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cg_internal.h"
#include "ir.h"

static int failures, passes;

static void expect(int got, int want, const char *what) {
    int ok = got == want;
    if (ok) passes++;
    else failures++;
    printf("%s %s (got %d, want %d)\n", ok ? "PASS" : "FAIL", what, got, want);
}

static int f32(Graph *g, const char *name, int64_t n) {
    int64_t dims[2] = {1, n};
    return ir_add_tensor(g, name, IR_F32, 2, dims);
}

static int i32(Graph *g, const char *name) {
    int64_t dims[1] = {2};
    return ir_add_tensor(g, name, IR_I32, 1, dims);
}

static void set_io(Graph *g, int n_in, const int *in, int n_out, const int *out) {
    g->inputs = ir_alloc(g, sizeof(int) * (size_t)(n_in + 1));
    g->outputs = ir_alloc(g, sizeof(int) * (size_t)(n_out + 1));
    g->n_inputs = n_in;
    g->n_outputs = n_out;
    for (int i = 0; i < n_in; i++) g->inputs[i] = in[i], g->tensors[in[i]].is_input = 1;
    for (int i = 0; i < n_out; i++) g->outputs[i] = out[i], g->tensors[out[i]].is_output = 1;
    ir_set_producers(g);
}

static int op(Graph *g, OpKind kind, int n_in, const int *in, int out) { return ir_add_op(g, kind, n_in, in, 1, &out); }

/* The decomposition: (cache [1,8], upd [1,2], start) -> DUS -> out; with `extra_reader`, a RELU of the
 * cache input as a second output too (the old cache read after the update could write it). */
static Graph *decomposition(Graph *root, int extra_reader) {
    Graph *s = ir_graph_new("unit");
    int cache = f32(s, "cache", 8), upd = f32(s, "upd", 2), start = i32(s, "start"), out = f32(s, "out", 8);
    int in[3] = {cache, upd, start};
    op(s, OP_DYNAMIC_UPDATE_SLICE, 3, in, out);
    if (extra_reader) {
        int r = f32(s, "r", 8), outs[2] = {out, r};
        op(s, OP_RELU, 1, &cache, r);
        set_io(s, 3, in, 2, outs);
    } else
        set_io(s, 3, in, 1, &out);
    s->root = root;
    return s;
}

/* Root: (cache, upd, start) -> STABLEHLO_COMPOSITE calling subgraph 1 -> cache_out; `reader`: a RELU of the
 * cache input as a second output too. */
static Graph *caller(int extra_inside, int reader) {
    Graph *g = ir_graph_new("unit");
    g->n_sub = 2;
    g->sub = calloc(2, sizeof *g->sub);
    g->sub[1] = decomposition(g, extra_inside);
    int cache = f32(g, "cache", 8), upd = f32(g, "upd", 2), start = i32(g, "start"), out = f32(g, "cache_out", 8);
    int in[3] = {cache, upd, start};
    int c = ir_add_op(g, OP_STABLEHLO_COMPOSITE, 3, in, 1, &out);
    if (extra_inside) { /* the composite has the decomposition's two outputs */
        int r = f32(g, "r", 8), outs[2] = {out, r};
        g->ops[c].n_out = 2;
        g->ops[c].out = ir_alloc(g, sizeof outs);
        memcpy(g->ops[c].out, outs, sizeof outs);
    }
    g->ops[c].callee[0] = 1, g->ops[c].n_callee = 1;
    if (reader) {
        int r2 = f32(g, "r2", 8), outs[2] = {out, r2};
        op(g, OP_RELU, 1, &cache, r2);
        set_io(g, 3, in, 2, outs);
    } else
        set_io(g, 3, in, 1, &out);
    return g;
}

int main(void) {
    Graph *g;
    /* A plain DYNAMIC_UPDATE_SLICE of input 0. */
    g = ir_graph_new("unit");
    {
        int cache = f32(g, "cache", 8), upd = f32(g, "upd", 2), start = i32(g, "start"), out = f32(g, "out", 8);
        int in[3] = {cache, upd, start};
        op(g, OP_DYNAMIC_UPDATE_SLICE, 3, in, out);
        set_io(g, 3, in, 1, &out);
        expect(cg_inplace_input(g, 0), 0, "DYNAMIC_UPDATE_SLICE of input 0: in place of input 0");
        g->outputs = ir_alloc(g, 2 * sizeof(int));
        g->outputs[0] = g->outputs[1] = out, g->n_outputs = 2;
        expect(cg_inplace_input(g, 0), -1, "the same tensor listed as two outputs: not in place");
    }
    ir_graph_free(g);
    /* The update's operand is an op's result, not a graph input. */
    g = ir_graph_new("unit");
    {
        int x = f32(g, "x", 8), cache = f32(g, "relu", 8), upd = f32(g, "upd", 2), start = i32(g, "start");
        int out = f32(g, "out", 8), in[3] = {cache, upd, start}, gin[3] = {x, upd, start};
        op(g, OP_RELU, 1, &x, cache);
        op(g, OP_DYNAMIC_UPDATE_SLICE, 3, in, out);
        set_io(g, 3, gin, 1, &out);
        expect(cg_inplace_input(g, 0), -1, "update of an op's result: not in place");
    }
    ir_graph_free(g);
    /* The composite (odml.cache_update) calling a DYNAMIC_UPDATE_SLICE of its input 0. */
    g = caller(0, 0);
    expect(cg_inplace_input(g->sub[1], 0), 0, "decomposition: its output in place of its input 0");
    expect(cg_inplace_input(g, 0), 0, "composite run as a call: in place of input 0");
    g->ops[0].sched.kind = SCHED_SDPA;
    expect(cg_inplace_input(g, 0), -1, "composite mapped to a kernel: not in place");
    ir_graph_free(g);
    g = caller(0, 1);
    expect(cg_inplace_input(g, 0), -1, "the caller reads the old cache too: not in place");
    ir_graph_free(g);
    g = caller(1, 0);
    expect(cg_inplace_input(g, 0), -1, "the decomposition reads the old cache too: not in place");
    ir_graph_free(g);
    printf("%d passed, %d failed\n", passes, failures);
    return failures != 0;
}
