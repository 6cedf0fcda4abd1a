/* control_flow_common.h - helpers of the control-flow ops (IF, WHILE, CALL_ONCE).
 *
 * Each TFLite subgraph a control-flow op runs is its own Graph (root->sub[k],
 * imported callees first, compiled callees first by the pipeline) with its own
 * memory plan; the op's scratch holds the callee's arena. The generated code
 * makes each subgraph a static function <prefix>_subgraph<k>(inputs, outputs,
 * arena[, weights]) with the signature of <prefix>_run, and the op calls it. */
#ifndef MPCC_CONTROL_FLOW_COMMON_H
#define MPCC_CONTROL_FLOW_COMMON_H

#include "op_util.h"
#include "tfl_import.h"

/* Reads the subgraph indices `fields` (n of them) of the op's options into
 * op->callee. */
int cf_parse_callees(IrOp *op, const FbTable *opts, const int *fields, int n, const char *what, Diag *d);

/* The graph of callee i, or a user error naming it when it was not imported. */
const Graph *cf_callee(const Graph *g, const IrOp *op, int i, Diag *d, int *rc);

/* Tensors a and b (of different graphs) have the same dtype and shape, else a
 * user error naming both ("what" says which pair). */
int cf_expect_same(const IrOp *op, const IrTensor *a, const IrTensor *b, const char *what, Diag *d);

/* Byte offset of each part in a scratch area of aligned parts. */
int64_t cf_align(int64_t x);

/* Emits `rc = <prefix>_subgraph<k>(in, out, arena[, weights]); if (rc) return rc;`. */
void cf_emit_call(CgCtx *cg, int k, const char *in, const char *out, const char *arena);

#endif
