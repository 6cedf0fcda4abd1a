/* op_stablehlo_composite.c - STABLEHLO_COMPOSITE: a named group of ops
 * (litert-torch's odml.rms_norm, odml.scaled_dot_product_attention,
 * odml.update_kv_cache, ...) whose meaning is its decomposition subgraph
 * (StableHLOCompositeOptions in the operator's builtin_options_2): the op's
 * inputs are that subgraph's inputs, its outputs the subgraph's outputs, with
 * the same static dtypes and shapes. mpcc runs the decomposition as a call,
 * as IF runs a branch: the generated code calls the subgraph's function with
 * the op's scratch as its arena, and the interpreter runs the subgraph graph
 * (interp.c). The composite's name is kept for comments only. */
#include "control_flow_common.h"
#include "text.h"

#include <stdio.h>

typedef struct CompositeOptions {
    const char *name;       /* the composite's name (raw model bytes; NULL if absent) */
} CompositeOptions;

static int parse(Graph *g, IrOp *op, const FbTable *opts, Diag *d) {
    static const int fields[1] = {TFL_COMPOSITE_OPTIONS_DECOMPOSITION_SUBGRAPH_INDEX};
    if (cf_parse_callees(op, opts, fields, 1, "StableHLOCompositeOptions", d)) return DIAG_USER;
    CompositeOptions *p = op_new_params(g, CompositeOptions);
    if (!p) return diag_internal(d, "out of memory");
    const char *s = NULL;
    uint32_t len = 0;
    int present = 0;
    if (fb_string(opts, TFL_COMPOSITE_OPTIONS_NAME, &s, &len, &present, d)) return DIAG_USER;
    if (present) p->name = ir_sprintf(g, "%.*s", (int)(len > 200 ? 200 : len), s);
    op->options = p;
    return 0;
}

static int check(Graph *g, IrOp *op, Diag *d) {
    int rc;
    const Graph *sub = cf_callee(g, op, 0, d, &rc);
    if (rc) return rc;
    if (sub->n_inputs != op->n_in || sub->n_outputs != op->n_out)
        return op_error(d, op, "decomposition (subgraph %d) has %d inputs and %d outputs, the op passes %d and takes %d",
                        op->callee[0], sub->n_inputs, sub->n_outputs, op->n_in, op->n_out);
    char what[80];
    for (int k = 0; k < op->n_in; k++) {
        if (op->in[k] < 0) return op_error(d, op, "input %d is missing", k);
        snprintf(what, sizeof what, "input %d and subgraph %d's input %d", k, op->callee[0], k);
        if (cf_expect_same(op, op_cin(g, op, k), &sub->tensors[sub->inputs[k]], what, d)) return DIAG_USER;
    }
    for (int k = 0; k < op->n_out; k++) {
        const IrTensor *so = &sub->tensors[sub->outputs[k]];
        if (op_set_out_shape(g, op, k, so->rank, so->dims, d)) return DIAG_USER;
        snprintf(what, sizeof what, "output %d and subgraph %d's output %d", k, op->callee[0], k);
        if (cf_expect_same(op, op_out(g, op, k), so, what, d)) return DIAG_USER;
    }
    return 0;
}

static int prepare(Graph *g, IrOp *op, Diag *d) {
    int64_t *arena = op_new_params(g, int64_t); /* the decomposition's arena (the pipeline wants params) */
    if (!arena) return diag_internal(d, "out of memory");
    *arena = ir_subgraph(g, op->callee[0])->arena_bytes;
    op->params = arena;
    op->scratch_bytes = (size_t)*arena;
    return 0;
}

static int emit_c(CgCtx *cg, const Graph *g, const IrOp *op, Diag *d) {
    const CompositeOptions *p = op->options;
    (void)g, (void)d;
    if (p && p->name) {
        char safe[256];
        cg_line(cg, "/* composite %s: its decomposition, subgraph %d */", txt_comment(safe, sizeof safe, p->name),
                op->callee[0]);
    }
    cg_line(cg, "const void *in[%d];", op->n_in > 0 ? op->n_in : 1);
    cg_line(cg, "void *out[%d];", op->n_out > 0 ? op->n_out : 1);
    cg_line(cg, "int rc;");
    for (int k = 0; k < op->n_in; k++) cg_line(cg, "in[%d] = %s;", k, cg_in(cg, op, k));
    for (int k = 0; k < op->n_out; k++) cg_line(cg, "out[%d] = %s;", k, cg_out(cg, op, k));
    cf_emit_call(cg, op->callee[0], "in", "out", cg_scratch(cg, op));
    return 0;
}

static int64_t macs(const Graph *g, const IrOp *op) {
    (void)g, (void)op;
    return 0;
}

const OpDef op_def_stablehlo_composite = {"STABLEHLO_COMPOSITE", parse, check, prepare, NULL, emit_c, macs, 0};
