/* ops.h - the op table's row type (see ir/op_list.def).
 *
 * Each op file compiler/ops/op_<stem>.c defines `const OpDef op_def_<stem>`:
 *  parse    reads the TFLite builtin options table (opts == NULL when the
 *           model has none) into op->options; rejects unsupported values
 *           with a user error naming the operator index and the option.
 *  check    validates input/output counts, dtypes and ranks, and infers the
 *           output shapes (comparing with what the model declares).
 *  prepare  computes everything the kernel needs (padding, requantization
 *           multipliers, shapes) into op->params (a runtime params struct
 *           allocated with ir_alloc) and sets op->scratch_bytes.
 *  eval     runs the reference kernel from runtime/ on raw data pointers
 *           (in[k] == NULL for an absent optional input). NULL for control
 *           flow (op->n_callee > 0): the interpreter runs the subgraphs.
 *  emit_c   writes the C statements that call the same kernel with the same
 *           params (see codegen/cg.h).
 *  macs     multiply-accumulates of one invocation (0 for data movement).
 * A NULL function means "not supported": the importer reports the op.
 */
#ifndef MPCC_OPS_H
#define MPCC_OPS_H

#include "cg.h"
#include "diag.h"
#include "fb.h"
#include "ir.h"
#include "mpcc_rt.h"
#include "tfl_schema.h"

typedef struct OpDef {
    const char *name;
    int (*parse)(Graph *g, IrOp *op, const FbTable *opts, Diag *d);
    int (*check)(Graph *g, IrOp *op, Diag *d);
    int (*prepare)(Graph *g, IrOp *op, Diag *d);
    void (*eval)(const Graph *g, const IrOp *op, const void *const *in, void *const *out, void *scratch);
    int (*emit_c)(CgCtx *cg, const Graph *g, const IrOp *op, Diag *d);
    int64_t (*macs)(const Graph *g, const IrOp *op);
    /* Cost of one of its MACs in GEMM-MAC units for scheduling decisions (0: 1). A depthwise
     * MAC costs ~16: person_detect's 166k-MAC depthwise layers take 13 us, GEMMs ~1 us per 200k. */
    int mac_cost;
} OpDef;

#define OP(name, code, stem) extern const OpDef op_def_##stem;
#include "op_list.def"
#undef OP

/* `static const rt_bmm_params p = {...};` of a BATCH_MATMUL (reference and scheduled emitters). */
void bmm_emit_params(CgCtx *cg, const rt_bmm_params *p);
void bmm_emit_fields(CgCtx *cg, const rt_bmm_params *p); /* the initializer lines only */

/* The run-time check of op->guard (if any): `if (!rt_check_shape_...) return RT_ERR_SHAPE_INPUT;`. */
void op_emit_guard(CgCtx *cg, const Graph *g, const IrOp *op);
/* CUSTOM: the constant mpcc_custom_ctx named `name` (and its tensor descriptors) of op, in the
 * current block (op_custom.c; the C and CUDA emitters call the user kernel with it). */
void custom_emit_ctx(CgCtx *cg, const Graph *g, const IrOp *op, const char *name);
/* The interpreter's check of op->guard on the input's data: 0, or a user error. */
int op_check_guard(const Graph *g, const IrOp *op, const void *input, Diag *d);

/* The table, indexed by OpKind. */
const OpDef *op_def(OpKind k);

/* complex64 (IR_C64) tensors: only the ops op_accepts_complex lists read or write them (their check
 * functions say which of their inputs and outputs may be complex); for every other op that touches
 * one, op_expect_no_complex is a user error naming the operator and the tensor. The importer runs it
 * before each op's check, so no kernel ever sees complex data it does not expect. */
int op_accepts_complex(OpKind k);
int op_expect_no_complex(const Graph *g, const IrOp *op, Diag *d);

#endif
