/* dump.c - readable text form of the graph (mpcc --dump-ir). */
#include "ir.h"

#include <stdio.h>

#include "text.h"

/* Model strings go through txt_terminal: the dump is read on a terminal. */
static const char *safe(char *buf, size_t n, const char *s) { return txt_terminal(buf, n, s ? s : "", 80); }

static void dump_tensor_ref(const Graph *g, int id, FILE *f) {
    if (id < 0) {
        fprintf(f, "-");
        return;
    }
    char buf[160], nb[TXT_TERMINAL_CAP];
    const IrTensor *t = &g->tensors[id];
    fprintf(f, "%%%d:%s %s", id, safe(nb, sizeof nb, t->name), ir_tensor_desc(t, buf, sizeof buf));
}

void ir_dump(const Graph *g, void *file) {
    FILE *f = file;
    char buf[160], nb[TXT_TERMINAL_CAP];
    fprintf(f, "graph %s: %d tensors, %d ops\n", safe(nb, sizeof nb, g->source), g->n_tensors, g->n_ops);
    if (g->patch_report) fprintf(f, "  %s", g->patch_report);
    for (int i = 0; i < g->n_inputs; i++) {
        fprintf(f, "  input %d (%s): ", i, safe(nb, sizeof nb, g->input_names ? g->input_names[i] : ""));
        dump_tensor_ref(g, g->inputs[i], f);
        fprintf(f, "\n");
    }
    for (int i = 0; i < g->n_outputs; i++) {
        fprintf(f, "  output %d (%s): ", i, safe(nb, sizeof nb, g->output_names ? g->output_names[i] : ""));
        dump_tensor_ref(g, g->outputs[i], f);
        fprintf(f, "\n");
    }
    for (int i = 0; i < g->n_tensors; i++) {
        const IrTensor *t = &g->tensors[i];
        fprintf(f, "  %%%d %-40s %s", i, safe(nb, sizeof nb, t->name), ir_tensor_desc(t, buf, sizeof buf));
        if (t->q.count == 1)
            fprintf(f, " q(scale=%g, zp=%lld)", (double)t->q.scale[0], (long long)t->q.zero_point[0]);
        else if (t->q.count > 1)
            fprintf(f, " q(per-channel x%d on dim %d)", t->q.count, t->q.dim);
        if (t->data) fprintf(f, " const(%zu bytes)", t->data_size);
        if (t->is_variable) fprintf(f, " variable");
        if (t->offset >= 0) fprintf(f, " @arena+%lld", (long long)t->offset);
        if (t->alias_of >= 0) fprintf(f, " alias-of %%%d", t->alias_of);
        if (t->alias_at) fprintf(f, "+%lld", (long long)t->alias_at);
        fprintf(f, "\n");
    }
    for (int i = 0; i < g->n_ops; i++) {
        const IrOp *op = &g->ops[i];
        if (op->dead) continue;
        fprintf(f, "  op %d [tflite #%d] %s", i, op->tfl_index, ir_op_name(op->kind));
        if (op->fused[0]) fprintf(f, " (fused: %s)", op->fused);
        if (g->prec_assigned) fprintf(f, " prec=%s", ir_dtype_name(op->prec));
        if (op->prec_note) fprintf(f, " (%s)", op->prec_note);
        if (op->float_rq)
            fprintf(f, op->kind == OP_QUANTIZE ? " float-quantize"
                       : g->tensors[op->out[0]].dtype == IR_F32 ? " float-out" : " float-requant");
        if (op->sched.kind != SCHED_REF) {
            fprintf(f, " schedule=%s mr=%d nr=%d", ir_sched_name(op->sched.kind), op->sched.mr, op->sched.nr);
            if (op->sched.kind == SCHED_CONV_GEMM)
                fprintf(f, op->sched.direct ? " direct" : op->sched.runs ? " runs im2col-rows=%d" : " im2col-rows=%d",
                        op->sched.rows);
            if (op->sched.kind == SCHED_DWCONV && op->scratch_bytes) fprintf(f, " padded-copy=%zu", op->scratch_bytes);
            if (op->sched.packed_w >= 0) fprintf(f, " packed=%%%d,%%%d", op->sched.packed_w, op->sched.packed_b);
            if (op->sched.post_add >= 0) fprintf(f, " post-add=op%d", op->sched.post_add);
            if (op->sched.post_dw >= 0) fprintf(f, " post-dw=op%d band=%d", op->sched.post_dw, op->sched.band);
        }
        fprintf(f, "\n    in:");
        for (int k = 0; k < op->n_in; k++) {
            fprintf(f, " ");
            dump_tensor_ref(g, op->in[k], f);
        }
        fprintf(f, "\n    out:");
        for (int k = 0; k < op->n_out; k++) {
            fprintf(f, " ");
            dump_tensor_ref(g, op->out[k], f);
        }
        fprintf(f, "\n");
    }
}
