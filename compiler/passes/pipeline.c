/* pipeline.c - the one list of passes, in order. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "passes.h"

typedef struct Pass {
    const char *name;
    int (*run)(Graph *, Diag *);
    const char *needs; /* the pass that must have run before, or NULL */
} Pass;

static const Pass pipeline[] = {
    {"fold_dead", pass_fold_dead, NULL},
    {"fold_dequantize", pass_fold_dequantize, "fold_dead"},
    {"sink", pass_sink, "fold_dead"},
    {"precision", pass_precision, "sink"},
    {"prepare", pass_prepare, "precision"},
    {"fold_transpose", pass_fold_transpose, "prepare"},
    {"fold_pad", pass_fold_pad, "prepare"},
    {"shortcut", pass_shortcut, "fold_pad"},
    {"fuse_act", pass_fuse_act, "prepare"},
    {"schedule", pass_schedule, "fold_transpose"},
    {"fuse_add", pass_fuse_add, "schedule"},
    {"fuse_dw", pass_fuse_dw, "fuse_add"},
    {"fuse_prelu", pass_fuse_prelu, "fuse_dw"},
    {"fuse_attention", pass_fuse_attention, "schedule"},
    {"fuse_layer_norm", pass_fuse_layer_norm, "schedule"},
    {"half_storage", pass_half_storage, "fuse_layer_norm"},
    {"patch", pass_patch, "fuse_dw"},
    {"alias", pass_alias, "fuse_add"},
    {"plan_memory", pass_plan_memory, "alias"},
};
enum { N_PASSES = sizeof pipeline / sizeof pipeline[0] };

const char *pass_names(void) { return "import, fold_dead, fold_dequantize, sink, precision, prepare, fold_transpose, fold_pad, shortcut, fuse_act, schedule, fuse_add, fuse_dw, fuse_prelu, fuse_attention, fuse_layer_norm, half_storage, patch, alias, plan_memory"; }

static int run_passes(Graph *g, const PipelineOptions *o, Diag *d) {
    int ran[N_PASSES] = {0};
    if (o->dump_after) {
        int known = strcmp(o->dump_after, "import") == 0;
        for (int i = 0; i < N_PASSES; i++) known |= strcmp(o->dump_after, pipeline[i].name) == 0;
        if (!known) return diag_user(d, "--dump-ir=after:%s: no such pass (passes: %s)", o->dump_after, pass_names());
        if (strcmp(o->dump_after, "import") == 0) ir_dump(g, o->dump_to);
    }
    for (int i = 0; i < N_PASSES; i++) {
        const Pass *p = &pipeline[i];
        if (p->needs) {
            int ok = 0;
            for (int j = 0; j < i; j++) ok |= ran[j] && strcmp(pipeline[j].name, p->needs) == 0;
            if (!ok) return diag_internal(d, "pass %s needs %s to run first", p->name, p->needs);
        }
        int rc = p->run(g, d);
        if (rc) return rc;
        ran[i] = 1;
        if (o->verify && ir_verify(g, d)) {
            return diag_internal(d, "verifier failed after pass %s", p->name);
        }
        if (o->dump_after && strcmp(o->dump_after, p->name) == 0) ir_dump(g, o->dump_to);
    }
    return 0;
}

/* 1 when every subgraph g's control-flow ops call is compiled already. */
static int callees_done(const Graph *root, const Graph *g, const char *done) {
    for (int i = 0; i < g->n_ops; i++)
        for (int k = 0; k < g->ops[i].n_callee; k++) {
            int c = g->ops[i].callee[k];
            if (c > 0 && c < root->n_sub && root->sub[c] && !done[c]) return 0;
        }
    return 1;
}

/* Subgraph h of the model (0: the root itself), or NULL where none was imported. */
static Graph *graph_at(Graph *root, int h) { return h == 0 ? root : root->sub[h]; }

/* 1 when graph h calls subgraph k from an op other than IF (WHILE, CALL_ONCE, ...); *n_if: its IF calls. */
static int called_otherwise(const Graph *h, int k, int *n_if) {
    for (int i = 0; i < h->n_ops; i++)
        for (int c = 0; c < h->ops[i].n_callee; c++)
            if (h->ops[i].callee[c] == k) {
                if (h->ops[i].kind != OP_IF) return 1;
                (*n_if)++;
            }
    return 0;
}

/* The constant operand of every IF calling subgraph k for its input `in` (the same tensor data at each call), or
 * NULL. */
static const IrTensor *branch_constant(Graph *root, int k, int in) {
    const IrTensor *c = NULL;
    for (int h = 0; h < root->n_sub; h++) {
        const Graph *gh = graph_at(root, h);
        for (int i = 0; gh && i < gh->n_ops; i++) {
            const IrOp *op = &gh->ops[i];
            for (int b = 0; b < op->n_callee; b++) {
                if (op->callee[b] != k) continue;
                if (in + 1 >= op->n_in || op->in[in + 1] < 0) return NULL;
                const IrTensor *t = &gh->tensors[op->in[in + 1]];
                if (!t->data || t->is_variable || t->unknown || (c && (c->data != t->data || c->data_size != t->data_size)))
                    return NULL;
                c = t;
            }
        }
    }
    return c;
}

/* A branch subgraph of IF ops receives the caller's constants as inputs (the ONNX converter's If passes the
 * weights that way: openWakeWord's classifiers); as inputs its FULLY_CONNECTED / CONV_2D see weights that are not
 * constant and run the reference kernels. An input whose operand is the same constant at every call (only IF
 * calls, not an entry point, not also an output of the branch) becomes that constant in the branch, so its ops
 * are scheduled (weights packed) as the caller's are; the input's slot takes an unread placeholder tensor (the
 * argument passed is not read; a graph input holds no constant). */
static int bind_branch_constants(Graph *root) {
    for (int k = 1; k < root->n_sub; k++) {
        Graph *sub = root->sub[k];
        int n_if = 0, other = 0;
        if (!sub) continue;
        for (int e = 0; e < root->n_entries; e++) other |= root->entry_sub[e] == k;
        for (int h = 0; h < root->n_sub && !other; h++)
            if (graph_at(root, h)) other |= called_otherwise(graph_at(root, h), k, &n_if);
        if (other || !n_if) continue;
        for (int i = 0; i < sub->n_inputs; i++) {
            const int id = sub->inputs[i];
            const IrTensor *c = branch_constant(root, k, i), *t = &sub->tensors[id];
            int is_out = 0;
            for (int j = 0; j < sub->n_outputs; j++) is_out |= sub->outputs[j] == id;
            if (!c || is_out || t->is_variable || t->dtype != c->dtype || ir_tensor_numel(t) != ir_tensor_numel(c)) continue;
            int slot = ir_add_tensor(sub, ir_sprintf(sub, "%s.unread", t->name), t->dtype, t->rank, t->dims);
            if (slot < 0) return -1;
            IrTensor *u = &sub->tensors[id]; /* (ir_add_tensor may have moved the array) */
            sub->tensors[slot].is_input = 1;
            sub->inputs[i] = slot;
            u->data = c->data;
            u->data_size = c->data_size;
            u->is_input = 0;
        }
    }
    return 0;
}

int pass_run_pipeline(Graph *g, const PipelineOptions *o, Diag *d) {
    if (g->opt_level >= 1 && !g->target_cuda && bind_branch_constants(g)) return diag_internal(d, "out of memory");
    /* Control-flow subgraphs first, callees before callers: a caller's prepare sizes its
     * scratch from the callee's arena. The importer refused call cycles. */
    char *done = calloc((size_t)g->n_sub + 1, 1);
    if (!done) return diag_internal(d, "out of memory");
    int rc = 0;
    for (int progress = 1; progress && !rc;) {
        progress = 0;
        for (int k = 1; k < g->n_sub && !rc; k++) {
            Graph *sub = g->sub[k];
            if (!sub || done[k] || !callees_done(g, sub, done)) continue;
            sub->opt_level = g->opt_level;
            /* Its kernels split over threads as subgraph 0's: a signature's entry point or a call
             * passes on the run's parallel-for, and the memory plan holds their per-thread scratch. */
            sub->threads = g->threads;
            if (o->dump_after && o->dump_to) fprintf(o->dump_to, "== subgraph %d\n", k);
            Diag cd;
            diag_init(&cd);
            rc = run_passes(sub, o, &cd);
            if (rc) {
                char prefix[40];
                snprintf(prefix, sizeof prefix, "subgraph %d: ", k);
                diag_merge(d, &cd, prefix);
                if (!d->kind) d->kind = rc;
            }
            done[k] = 1;
            progress = 1;
        }
    }
    free(done);
    if (rc) return rc;
    if (g->n_sub > 1 && o->dump_after && o->dump_to) fprintf(o->dump_to, "== subgraph 0\n");
    rc = run_passes(g, o, d);
    /* A signature's entry point runs its subgraph in the arena after the model's state
     * (docs/signatures.md): the arena is the largest of them. */
    for (int e = 0; !rc && e < g->n_entries; e++) {
        const Graph *sub = ir_subgraph(g, g->entry_sub[e]);
        if (!sub) continue;
        int64_t need = ir_entry_at(g) + sub->arena_bytes;
        int64_t lower = ir_entry_at(g) + sub->arena_lower_bound, tensors = ir_entry_at(g) + sub->arena_op_bound;
        if (need > g->arena_bytes) g->arena_bytes = need;
        /* and so are the bounds --report compares the arena with */
        if (lower > g->arena_lower_bound) g->arena_lower_bound = lower;
        if (tensors > g->arena_op_bound) g->arena_op_bound = tensors;
    }
    return rc;
}
