/* op_stablehlo_composite.c - STABLEHLO_COMPOSITE: a named group of ops
 * (litert-torch's odml.rms_norm, odml.scaled_dot_product_attention, odml.sdpa_transposed,
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
#include <string.h>

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

int composite_sdpa(const Graph *g, const IrOp *op, rt_opt_sdpa_params *p) {
    const CompositeOptions *o = op->options;
    if (o && o->name && !strcmp(o->name, "odml.sdpa_transposed")) return composite_sdpa_transposed(g, op, p);
    if (!o || !o->name || strcmp(o->name, "odml.scaled_dot_product_attention") != 0) return 0;
    if ((op->n_in != 3 && op->n_in != 4) || op->n_out != 1) return 0;
    const IrTensor *q = op_cin(g, op, 0), *k = op_cin(g, op, 1), *v = op_cin(g, op, 2);
    const IrTensor *out = &g->tensors[op->out[0]];
    const IrTensor *m = op->n_in == 4 ? op_cin(g, op, 3) : NULL;
    for (int i = 0; i < op->n_in; i++)
        if (op_cin(g, op, i)->dtype != IR_F32) return 0;
    if (out->dtype != IR_F32 || q->rank != 4 || k->rank != 4 || v->rank != 4 || out->rank != 4) return 0;
    for (int i = 0; i < 4; i++)
        if (k->dims[i] != v->dims[i] || out->dims[i] != q->dims[i]) return 0;
    if (q->dims[0] != k->dims[0] || q->dims[3] != k->dims[3] || k->dims[2] <= 0 || q->dims[2] % k->dims[2]) return 0;
    memset(p, 0, sizeof *p);
    p->batch = (int32_t)q->dims[0], p->q_len = (int32_t)q->dims[1], p->heads = (int32_t)q->dims[2];
    p->kv_len = (int32_t)k->dims[1], p->kv_heads = (int32_t)k->dims[2], p->head_dim = (int32_t)q->dims[3];
    if (m) { /* [.., B or 1, 1, T or 1, S], right-aligned */
        int64_t d[4] = {1, 1, 1, 1};
        if (m->rank > 4 || m->rank < 1) return 0;
        for (int i = 0; i < m->rank; i++) d[4 - m->rank + i] = m->dims[i];
        if (d[3] != p->kv_len || d[1] != 1 || (d[2] != 1 && d[2] != p->q_len) || (d[0] != 1 && d[0] != p->batch))
            return 0;
        p->mask_st = d[2] == 1 ? 0 : p->kv_len;
        p->mask_sb = d[0] == 1 ? 0 : (int32_t)(d[2] * p->kv_len);
    }
    /* The decomposition: layout ops, the two scalings, the matmuls, the mask's ADD, the softmax. */
    const Graph *sub = ir_subgraph(g, op->callee[0]);
    int n_mul = 0, n_bmm = 0, n_add = 0, n_softmax = 0;
    float scale = 1.0f;
    for (int i = 0; i < sub->n_ops; i++) {
        const IrOp *s = &sub->ops[i];
        float c;
        switch (s->kind) {
        case OP_TRANSPOSE: case OP_RESHAPE: case OP_BROADCAST_TO: break;
        case OP_MUL:
            if (!composite_f32_scalar(&sub->tensors[s->in[1]], &c) && !composite_f32_scalar(&sub->tensors[s->in[0]], &c)) return 0;
            scale *= c;
            n_mul++;
            break;
        case OP_BATCH_MATMUL: n_bmm++; break;
        case OP_ADD: n_add++; break;
        case OP_SOFTMAX: {
            const rt_softmax_params *sp = s->params;
            if (!sp || sp->beta != 1.0f) return 0;
            n_softmax++;
            break;
        }
        default: return 0;
        }
    }
    if (n_mul != 2 || n_bmm != 2 || n_softmax != 1 || n_add != (m ? 1 : 0)) return 0;
    p->scale = scale;
    return 1;
}

static int64_t macs(const Graph *g, const IrOp *op) {
    (void)g, (void)op;
    return 0;
}

const OpDef op_def_stablehlo_composite = {"STABLEHLO_COMPOSITE", parse, check, prepare, NULL, emit_c, macs, 0};
