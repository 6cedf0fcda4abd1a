/* control_flow_common.c - see control_flow_common.h. */
#include "control_flow_common.h"

#include <stdio.h>
#include <string.h>

int cf_parse_callees(IrOp *op, const FbTable *opts, const int *fields, int n, const char *what, Diag *d) {
    if (!opts) return op_error(d, op, "missing %s", what);
    for (int i = 0; i < n; i++) {
        int32_t k = 0;
        if (fb_i32(opts, fields[i], 0, &k, d)) return DIAG_USER;
        /* The importer checked the range; subgraph 0 is the model itself (a recursion). */
        if (k <= 0) return op_error(d, op, "calls subgraph %d, which is not a callable subgraph", k);
        op->callee[i] = k;
    }
    op->n_callee = n;
    return 0;
}

const Graph *cf_callee(const Graph *g, const IrOp *op, int i, Diag *d, int *rc) {
    const Graph *sub = ir_subgraph(g, op->callee[i]);
    *rc = sub ? 0 : op_error(d, op, "subgraph %d could not be imported (see its messages)", op->callee[i]);
    return sub;
}

int cf_expect_same(const IrOp *op, const IrTensor *a, const IrTensor *b, const char *what, Diag *d) {
    int same = a->dtype == b->dtype && a->rank == b->rank;
    for (int i = 0; same && i < a->rank; i++) same = a->dims[i] == b->dims[i];
    if (same) return 0;
    char da[160], db[160];
    return op_error(d, op, "%s: '%s' is %s but '%s' is %s (only static shapes are supported)", what, a->name,
                    ir_tensor_desc(a, da, sizeof da), b->name, ir_tensor_desc(b, db, sizeof db));
}

int64_t cf_align(int64_t x) { return (x + 15) / 16 * 16; }

void cf_emit_call(CgCtx *cg, int k, const char *in, const char *out, const char *arena) {
    cg_line(cg, "rc = %s(%s, %s, %s%s, par);", cg_subgraph_fn(cg, k), in, out, arena, cg_weights_arg(cg));
    cg_line(cg, "if (rc) return rc;");
}

int composite_f32_scalar(const IrTensor *t, float *v) {
    if (!t->data || t->dtype != IR_F32 || ir_tensor_numel(t) != 1) return 0;
    memcpy(v, t->data, sizeof *v);
    return 1;
}
