/* op_table.c - OpKind -> OpDef, generated from ir/op_list.def. */
#include "ops.h"

static const OpDef *const table[OP_KIND_COUNT] = {
#define OP(name, code, stem) &op_def_##stem,
#include "op_list.def"
#undef OP
};

const OpDef *op_def(OpKind k) { return (unsigned)k < OP_KIND_COUNT ? table[k] : NULL; }

int op_accepts_complex(OpKind k) {
    switch (k) {
    case OP_RFFT2D: case OP_REAL: case OP_IMAG: case OP_COMPLEX_ABS: case OP_CAST:
    case OP_RESHAPE: case OP_SQUEEZE: case OP_EXPAND_DIMS:
        return 1;
    default:
        return 0;
    }
}

int op_expect_no_complex(const Graph *g, const IrOp *op, Diag *d) {
    if (op_accepts_complex(op->kind)) return 0;
    for (int k = 0; k < op->n_in + op->n_out; k++) {
        int out = k >= op->n_in, id = out ? op->out[k - op->n_in] : op->in[k];
        if (id < 0 || g->tensors[id].dtype != IR_C64) continue;
        return diag_user(d, "operator %d (%s): %s %d tensor '%s' is complex64, which %s does not support", op->tfl_index,
                         ir_op_name(op->kind), out ? "output" : "input", out ? k - op->n_in : k, g->tensors[id].name,
                         ir_op_name(op->kind));
    }
    return 0;
}

/* The op table's TFLite codes must agree with the schema constants. */
#define OP(name, code, stem) _Static_assert(TFL_OP_##name == (code), "op_list.def code of " #name);
#include "op_list.def"
#undef OP
