/* logic_common.h - shared by the comparison (LESS, GREATER, GREATER_EQUAL,
 * LESS_EQUAL, EQUAL, NOT_EQUAL), logical (LOGICAL_AND/OR/NOT) and select
 * (SELECT, SELECT_V2) op files. */
#ifndef MPCC_LOGIC_COMMON_H
#define MPCC_LOGIC_COMMON_H

#include "op_util.h"

/* Comparison op: two inputs of one dtype, bool output of the broadcast shape. */
int lg_compare_check(Graph *g, IrOp *op, Diag *d);
int lg_compare_prepare(Graph *g, IrOp *op, int cmp, Diag *d);
void lg_compare_eval(const Graph *g, const IrOp *op, const void *const *in, void *const *out, void *scratch);
int lg_compare_emit(CgCtx *cg, const Graph *g, const IrOp *op, Diag *d);

int lg_logical_check(Graph *g, IrOp *op, Diag *d);
int lg_logical_prepare(Graph *g, IrOp *op, int which, Diag *d);
void lg_logical_eval(const Graph *g, const IrOp *op, const void *const *in, void *const *out, void *scratch);
int lg_logical_emit(CgCtx *cg, const Graph *g, const IrOp *op, Diag *d);
void lg_logical_emit_call(CgCtx *cg, const IrOp *op, const char *kernel);

/* SELECT (v1: condition of x's shape, or a vector over x's first dim) and SELECT_V2 (broadcast). */
int lg_select_check(Graph *g, IrOp *op, int v2, Diag *d);
int lg_select_prepare(Graph *g, IrOp *op, Diag *d);
void lg_select_eval(const Graph *g, const IrOp *op, const void *const *in, void *const *out, void *scratch);
int lg_select_emit(CgCtx *cg, const Graph *g, const IrOp *op, Diag *d);
void lg_select_emit_call(CgCtx *cg, const IrOp *op, const char *kernel);

int64_t lg_out_numel(const Graph *g, const IrOp *op);

#endif
