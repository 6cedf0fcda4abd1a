/* emit_sched_c.h - C emitter for ops lowered by pass schedule. */
#ifndef MPCC_EMIT_SCHED_C_H
#define MPCC_EMIT_SCHED_C_H

#include "cg.h"
#include "diag.h"
#include "ir.h"

/* Writes the call of the op's optimized kernel (op->sched.kind != SCHED_REF). */
int cg_emit_sched(CgCtx *cg, const Graph *g, const IrOp *op, Diag *d);
/* The "schedule: ..." comment line of the op's kernel block. */
void cg_sched_comment(CgCtx *cg, const Graph *g, const IrOp *op);

#endif
