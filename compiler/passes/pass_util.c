/* pass_util.c - reader counts shared by the fusion passes (one scan of the
 * ops, so a pass stays linear in the graph size). */
#include <string.h>

#include "mpcc_rt.h"
#include "passes.h"
#include "rt_opt.h"

/* readers[t]: the count; readers[n_tensors + t]: the last op seen reading t
 * (a hint that pass_only_reader verifies, so passes need not keep it exact). */
int *pass_count_readers(Graph *g) {
    size_t n = (size_t)(g->n_tensors > 0 ? g->n_tensors : 1);
    int *readers = ir_alloc(g, sizeof(int) * 2 * n);
    if (!readers) return NULL;
    memset(readers, 0, sizeof(int) * n);
    for (size_t t = 0; t < n; t++) readers[n + t] = -1;
    for (int i = 0; i < g->n_ops; i++) {
        const IrOp *op = &g->ops[i];
        if (op->dead) continue;
        for (int k = 0; k < op->n_in; k++)
            if (op->in[k] >= 0) pass_add_reader(g, readers, op->in[k], i);
    }
    return readers;
}

void pass_add_reader(const Graph *g, int *readers, int t, int op) {
    readers[t]++;
    readers[(g->n_tensors > 0 ? g->n_tensors : 1) + t] = op;
}

static int reads(const IrOp *op, int t) {
    for (int k = 0; k < op->n_in; k++)
        if (op->in[k] == t) return 1;
    return 0;
}

int pass_only_reader(const Graph *g, const int *readers, int t) {
    if (t < 0 || readers[t] != 1 || g->tensors[t].is_output) return -1;
    int hint = readers[(g->n_tensors > 0 ? g->n_tensors : 1) + t];
    if (hint >= 0 && hint < g->n_ops && !g->ops[hint].dead && reads(&g->ops[hint], t)) return hint;
    for (int i = g->tensors[t].producer + 1; i < g->n_ops; i++) {
        const IrOp *op = &g->ops[i];
        if (op->dead) continue;
        for (int k = 0; k < op->n_in; k++)
            if (op->in[k] == t) return i;
    }
    return -1;
}

int pass_producer(const Graph *g, int t, OpKind kind) {
    int p = t >= 0 ? g->tensors[t].producer : -1;
    return p >= 0 && !g->ops[p].dead && g->ops[p].kind == kind ? p : -1;
}

int pass_transpose_perm(const Graph *g, const IrOp *t, int *perm) {
    if (t->n_in < 2 || t->in[0] < 0 || t->in[1] < 0) return -1;
    const IrTensor *pt = &g->tensors[t->in[1]], *x = &g->tensors[t->in[0]];
    if (!pt->data || ir_tensor_numel(pt) != x->rank) return -1;
    for (int k = 0; k < x->rank; k++) {
        int64_t v = pt->dtype == IR_I64 ? ((const int64_t *)(const void *)pt->data)[k]
                                        : ((const int32_t *)(const void *)pt->data)[k];
        if (v < 0 || v >= x->rank) return -1;
        perm[k] = (int)v;
    }
    return 0;
}

int64_t pass_pad_amount(const IrTensor *pads, int i) {
    return pads->dtype == IR_I64 ? ((const int64_t *)(const void *)pads->data)[i]
                                 : ((const int32_t *)(const void *)pads->data)[i];
}

void pass_add_fused_name(IrOp *op, const char *name) {
    size_t len = strlen(op->fused), n = strlen(name);
    if (len + n + 3 >= sizeof op->fused) return;
    if (len) {
        memcpy(op->fused + len, ", ", 2);
        len += 2;
    }
    memcpy(op->fused + len, name, n + 1);
}

int64_t pass_conv_half_slot(const rt_conv_params *p, int32_t type, int direct, int64_t base) {
    int64_t pad = type != RT_BF16 || direct ? 0
                                            : rt_opt_conv_bf16_padded_bytes(p->in_h, p->in_w, p->in_c, p->out_h, p->out_w,
                                                                            p->filter_h, p->filter_w, p->stride_h,
                                                                            p->stride_w, p->pad_h, p->pad_w, p->dil_h,
                                                                            p->dil_w);
    return pad > 0 ? rt_opt_half_pad_at(base) + pad : base;
}
