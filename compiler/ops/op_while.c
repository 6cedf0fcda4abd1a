/* op_while.c - WHILE: n loop variables (inputs, and outputs of the same
 * static dtypes and shapes); while cond_subgraph_index gives true on them,
 * body_subgraph_index maps them to their next values. The generated code
 * keeps the variables in the op's outputs (copied from the inputs first),
 * runs the cond and body subgraph functions in a C loop, the body writing
 * into scratch buffers that are copied back after each iteration. Scratch:
 * [ body outputs | the cond/body arena (the larger) | cond's bool ]. The
 * interpreter runs the two graphs itself (interp.c). */
#include "control_flow_common.h"

#include <stdio.h>

static int parse(Graph *g, IrOp *op, const FbTable *opts, Diag *d) {
    static const int fields[2] = {TFL_WHILE_OPTIONS_COND_SUBGRAPH_INDEX, TFL_WHILE_OPTIONS_BODY_SUBGRAPH_INDEX};
    (void)g;
    return cf_parse_callees(op, opts, fields, 2, "WhileOptions", d);
}

static int check(Graph *g, IrOp *op, Diag *d) {
    int rc;
    if (op_expect_io(op, op->n_out, op->n_out, op->n_out, d)) return DIAG_USER;
    const Graph *cond = cf_callee(g, op, 0, d, &rc);
    if (rc) return rc;
    const Graph *body = cf_callee(g, op, 1, d, &rc);
    if (rc) return rc;
    int n = op->n_in;
    if (cond->n_inputs != n || cond->n_outputs != 1)
        return op_error(d, op, "cond (subgraph %d) takes %d inputs and gives %d outputs; expected %d and 1",
                        op->callee[0], cond->n_inputs, cond->n_outputs, n);
    if (body->n_inputs != n || body->n_outputs != n)
        return op_error(d, op, "body (subgraph %d) takes %d inputs and gives %d outputs; expected %d and %d",
                        op->callee[1], body->n_inputs, body->n_outputs, n, n);
    const IrTensor *c = &cond->tensors[cond->outputs[0]];
    if (c->dtype != IR_BOOL || ir_tensor_numel(c) != 1)
        return op_error(d, op, "cond (subgraph %d) must give one bool value", op->callee[0]);
    char what[96];
    for (int k = 0; k < n; k++) {
        if (op->in[k] < 0) return op_error(d, op, "input %d is missing", k);
        const IrTensor *in = op_cin(g, op, k);
        if (op_set_out_shape(g, op, k, in->rank, in->dims, d)) return DIAG_USER;
        /* A loop variable keeps its dtype and shape: in, out, and every subgraph's view of it. */
        snprintf(what, sizeof what, "loop variable %d (input and output)", k);
        if (cf_expect_same(op, in, op_out(g, op, k), what, d)) return DIAG_USER;
        snprintf(what, sizeof what, "loop variable %d (input and cond subgraph %d's input)", k, op->callee[0]);
        if (cf_expect_same(op, in, &cond->tensors[cond->inputs[k]], what, d)) return DIAG_USER;
        snprintf(what, sizeof what, "loop variable %d (input and body subgraph %d's input)", k, op->callee[1]);
        if (cf_expect_same(op, in, &body->tensors[body->inputs[k]], what, d)) return DIAG_USER;
        snprintf(what, sizeof what, "loop variable %d (input and body subgraph %d's output)", k, op->callee[1]);
        if (cf_expect_same(op, in, &body->tensors[body->outputs[k]], what, d)) return DIAG_USER;
    }
    return 0;
}

static int prepare(Graph *g, IrOp *op, Diag *d) {
    WhileParams *p = op_new_params(g, WhileParams);
    int64_t *offs = ir_alloc(g, sizeof(int64_t) * (size_t)(op->n_out + 1));
    if (!p || !offs) return diag_internal(d, "out of memory");
    int64_t at = 0;
    for (int k = 0; k < op->n_out; k++) {
        offs[k] = at;
        at += cf_align(ir_tensor_bytes(op_cin(g, op, k)));
    }
    const Graph *cond = ir_subgraph(g, op->callee[0]), *body = ir_subgraph(g, op->callee[1]);
    p->arena_bytes = cond->arena_bytes > body->arena_bytes ? cond->arena_bytes : body->arena_bytes;
    p->body_out = offs;
    p->arena = at;
    p->cond_out = at + cf_align(p->arena_bytes);
    op->params = p;
    op->scratch_bytes = (size_t)(p->cond_out + 16);
    return 0;
}

static int emit_c(CgCtx *cg, const Graph *g, const IrOp *op, Diag *d) {
    (void)d;
    const WhileParams *p = op->params;
    int n = op->n_out;
    cg_line(cg, "unsigned char *s = (unsigned char *)%s;", cg_scratch(cg, op));
    cg_line(cg, "const void *vars[%d];", n > 0 ? n : 1);
    cg_line(cg, "void *next[%d];", n > 0 ? n : 1);
    cg_line(cg, "void *cond[1];");
    cg_line(cg, "int rc;");
    for (int k = 0; k < n; k++) {
        /* The loop variables live in the op's outputs. */
        const char *out = cg_out(cg, op, k);
        cg_line(cg, "memcpy(%s, %s, %lld);", out, cg_in(cg, op, k), (long long)ir_tensor_bytes(&g->tensors[op->out[k]]));
        cg_line(cg, "vars[%d] = %s;", k, out);
        cg_line(cg, "next[%d] = s + %lld;", k, (long long)p->body_out[k]);
    }
    cg_line(cg, "cond[0] = s + %lld;", (long long)p->cond_out);
    cg_open(cg, "for (;;) {");
    char arena[64];
    snprintf(arena, sizeof arena, "s + %lld", (long long)p->arena);
    cf_emit_call(cg, op->callee[0], "vars", "cond", arena);
    cg_line(cg, "if (!*(const uint8_t *)cond[0]) break;");
    cf_emit_call(cg, op->callee[1], "vars", "next", arena);
    for (int k = 0; k < n; k++)
        cg_line(cg, "memcpy(%s, next[%d], %lld);", cg_out(cg, op, k), k, (long long)ir_tensor_bytes(&g->tensors[op->out[k]]));
    cg_close(cg, "}");
    return 0;
}

static int64_t macs(const Graph *g, const IrOp *op) {
    (void)g, (void)op;
    return 0;
}

const OpDef op_def_while = {"WHILE", parse, check, prepare, NULL, emit_c, macs, 0};
