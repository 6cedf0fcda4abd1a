/* interp.c - reference interpreter (see interp.h). */
#include "interp.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "npy.h"
#include "ops.h"
#include "tfl_import.h"

const char *interp_dump_dir = NULL;
void (*interp_observe)(void *ctx, const IrTensor *t, const void *data) = NULL;
void *interp_observe_ctx = NULL;

/* Everything the interpreter allocates (one buffer per used tensor plus the
 * largest op scratch) must fit in this, checked before allocating anything. */
#define INTERP_MAX_BYTES ((int64_t)1 << 34)

static void mark_used(const Graph *g, int id, unsigned char *used) {
    if (id >= 0 && !g->tensors[id].data) used[id] = 1;
}

/* The interpreter stops a WHILE after this many iterations (TFLite and the
 * generated code would loop on): a model-made infinite loop is an error here. */
#define INTERP_MAX_ITERATIONS 10000000

/* Runs subgraph graph k of g's model on the given buffers; its messages get a
 * "subgraph k: " prefix. */
static int run_subgraph(const Graph *g, int k, const void *const *inputs, void *const *outputs, Diag *d) {
    Graph *sub = ir_subgraph(g, k);
    if (!sub) return diag_internal(d, "subgraph %d was not compiled", k);
    Diag cd;
    diag_init(&cd);
    const char *dump = interp_dump_dir;
    void (*observe)(void *, const IrTensor *, const void *) = interp_observe;
    interp_dump_dir = NULL; /* tensor files are named by index: subgraphs would overwrite them */
    interp_observe = NULL;  /* calibration ranges are the root graph's, by tensor id */
    int rc = interp_run(sub, inputs, outputs, &cd);
    interp_dump_dir = dump;
    interp_observe = observe;
    if (rc) {
        char prefix[40];
        snprintf(prefix, sizeof prefix, "subgraph %d: ", k);
        diag_merge(d, &cd, prefix);
    }
    return rc;
}

/* Control flow (op->n_callee > 0: IF, WHILE, STABLEHLO_COMPOSITE; op_if.c,
 * op_while.c, op_stablehlo_composite.c): the interpreter runs their subgraphs
 * itself. */
static int run_control_flow(const Graph *g, const IrOp *op, const void *const *in, void *const *out, Diag *d) {
    if (op->kind == OP_IF) return run_subgraph(g, op->callee[*(const uint8_t *)in[0] ? 0 : 1], in + 1, out, d);
    if (op->kind == OP_STABLEHLO_COMPOSITE) return run_subgraph(g, op->callee[0], in, out, d);
    int n = op->n_out, rc = 0;
    void **next = calloc((size_t)n + 1, sizeof(void *));
    uint8_t cond = 0;
    void *cond_out[1] = {&cond};
    for (int k = 0; next && k < n; k++) {
        size_t bytes = (size_t)ir_tensor_bytes(&g->tensors[op->out[k]]);
        memcpy(out[k], in[k], bytes);
        next[k] = malloc(bytes + 1);
        if (!next[k]) rc = diag_internal(d, "out of memory");
    }
    if (!next) rc = diag_internal(d, "out of memory");
    for (long it = 0; !rc; it++) {
        if (it == INTERP_MAX_ITERATIONS) {
            rc = diag_user(d, "operator %d (WHILE): still looping after %d iterations; mpcc run stops here (the "
                           "generated code would go on)", op->tfl_index, INTERP_MAX_ITERATIONS);
            break;
        }
        rc = run_subgraph(g, op->callee[0], (const void *const *)out, cond_out, d);
        if (rc || !cond) break;
        rc = run_subgraph(g, op->callee[1], (const void *const *)out, next, d);
        for (int k = 0; !rc && k < n; k++) memcpy(out[k], next[k], (size_t)ir_tensor_bytes(&g->tensors[op->out[k]]));
    }
    for (int k = 0; next && k < n; k++) free(next[k]);
    free(next);
    return rc;
}

int interp_run(Graph *g, const void *const *inputs, void *const *outputs, Diag *d) {
    int n = g->n_tensors, rc = 0;
    void **buf = calloc((size_t)(n > 0 ? n : 1), sizeof(void *));
    unsigned char *used = calloc((size_t)(n > 0 ? n : 1), 1);
    if (!buf || !used) {
        free(buf);
        free(used);
        return diag_internal(d, "out of memory");
    }
    /* Graph inputs are caller data: a constant behind one (the verifier
     * refuses it) would leave nothing to copy into. */
    for (int i = 0; i < g->n_inputs && !rc; i++)
        if (g->tensors[g->inputs[i]].data)
            rc = diag_user(d, "graph input %d: tensor '%s' is a constant", i, g->tensors[g->inputs[i]].name);
    /* Buffers for the tensors that are read or written: graph inputs and
     * outputs, state, and the operands of live operators. */
    for (int i = 0; i < g->n_inputs; i++) mark_used(g, g->inputs[i], used);
    for (int i = 0; i < g->n_outputs; i++) mark_used(g, g->outputs[i], used);
    for (int i = 0; i < n; i++)
        if (g->tensors[i].is_variable) mark_used(g, i, used);
    int64_t total = 0, largest = 0, max_scratch = 0;
    int largest_id = -1;
    for (int oi = 0; oi < g->n_ops; oi++) {
        const IrOp *op = &g->ops[oi];
        if (op->dead) continue;
        for (int k = 0; k < op->n_in; k++) mark_used(g, op->in[k], used);
        for (int k = 0; k < op->n_out; k++) mark_used(g, op->out[k], used);
        if ((int64_t)op->scratch_bytes > max_scratch) max_scratch = (int64_t)op->scratch_bytes;
    }
    for (int i = 0; i < n && !rc; i++) {
        if (!used[i]) continue;
        int64_t bytes = ir_tensor_bytes(&g->tensors[i]);
        if (bytes < 0 || bytes > INTERP_MAX_BYTES) {
            rc = diag_user(d, "tensor '%s': %lld bytes, more than the interpreter's limit of %lld bytes",
                           g->tensors[i].name, (long long)bytes, (long long)INTERP_MAX_BYTES);
            break;
        }
        total += bytes + 16;
        if (bytes > largest) {
            largest = bytes;
            largest_id = i;
        }
    }
    if (!rc && total + max_scratch > INTERP_MAX_BYTES)
        rc = diag_user(d,
                       "the interpreter needs %lld bytes for its tensors and scratch (the largest tensor is '%s', "
                       "%lld bytes), more than its limit of %lld bytes",
                       (long long)(total + max_scratch), largest_id >= 0 ? g->tensors[largest_id].name : "?",
                       (long long)largest, (long long)INTERP_MAX_BYTES);
    for (int i = 0; i < n && !rc; i++) {
        IrTensor *t = &g->tensors[i];
        if (!used[i]) continue;
        int64_t bytes = ir_tensor_bytes(t);
        buf[i] = malloc((size_t)bytes + 16);
        if (!buf[i]) {
            rc = diag_user(d, "tensor '%s': cannot allocate %lld bytes", t->name, (long long)bytes);
            break;
        }
        /* Poison activations so a kernel reading unwritten memory shows up. */
        memset(buf[i], t->is_variable ? ir_variable_reset_value(t) : 0xA5, (size_t)bytes + 16);
        if (t->is_variable && t->init) memcpy(buf[i], t->init, (size_t)bytes);
    }
    for (int i = 0; i < g->n_inputs && !rc; i++) {
        const IrTensor *t = &g->tensors[g->inputs[i]];
        memcpy(buf[t->id], inputs[i], (size_t)ir_tensor_bytes(t));
        if (interp_observe) interp_observe(interp_observe_ctx, t, buf[t->id]);
    }
    const void *in_ptrs[TFL_MAX_IO_PTRS];
    void *out_ptrs[TFL_MAX_IO_PTRS];
    for (int oi = 0; oi < g->n_ops && !rc; oi++) {
        const IrOp *op = &g->ops[oi];
        if (op->dead) continue;
        const OpDef *def = op_def(op->kind);
        int control_flow = op->n_callee > 0;
        if (!def || (!def->eval && !control_flow) || !op->params) {
            rc = diag_internal(d, "operator %d (%s) was not prepared", op->tfl_index, ir_op_name(op->kind));
            break;
        }
        if (op->n_in > TFL_MAX_IO_PTRS || op->n_out > TFL_MAX_IO_PTRS) {
            rc = diag_user(d, "operator %d (%s): too many inputs/outputs", op->tfl_index, ir_op_name(op->kind));
            break;
        }
        for (int k = 0; k < op->n_in; k++) {
            int id = op->in[k];
            in_ptrs[k] = id < 0 ? NULL : g->tensors[id].data ? (const void *)g->tensors[id].data : buf[id];
        }
        for (int k = 0; k < op->n_out; k++) out_ptrs[k] = buf[op->out[k]];
        if (op->guard && (rc = op_check_guard(g, op, in_ptrs[op->guard->input], d))) break;
        void *scratch = NULL;
        if (op->scratch_bytes) {
            scratch = malloc(op->scratch_bytes);
            if (!scratch) {
                rc = diag_user(d, "operator %d: cannot allocate %zu scratch bytes", op->tfl_index, op->scratch_bytes);
                break;
            }
            memset(scratch, 0xA5, op->scratch_bytes);
        }
        if (control_flow) rc = run_control_flow(g, op, in_ptrs, out_ptrs, d);
        else def->eval(g, op, in_ptrs, out_ptrs, scratch);
        free(scratch);
        if (op->custom && op->custom->status != 0)
            rc = diag_user(d, "custom operator '%s' (operator %d): its kernel %s returned %d", op->custom->code,
                           op->tfl_index, op->custom->func, op->custom->status);
        for (int k = 0; interp_observe && k < op->n_out && !rc; k++)
            interp_observe(interp_observe_ctx, &g->tensors[op->out[k]], buf[op->out[k]]);
        for (int k = 0; interp_dump_dir && k < op->n_out && !rc; k++) {
            const IrTensor *t = &g->tensors[op->out[k]];
            char path[4096];
            snprintf(path, sizeof path, "%s/t%d.npy", interp_dump_dir, t->tfl_index);
            rc = npy_write(path, t->dtype, t->rank, t->dims, buf[t->id], d);
        }
    }
    for (int i = 0; i < g->n_outputs && !rc; i++) {
        const IrTensor *t = &g->tensors[g->outputs[i]];
        const void *src = t->data ? (const void *)t->data : buf[t->id];
        memcpy(outputs[i], src, (size_t)ir_tensor_bytes(t));
    }
    for (int i = 0; i < n; i++) free(buf[i]);
    free(buf);
    free(used);
    return rc;
}
