/* fold_const.h - operators whose result is a compile-time constant, folded by
 * the importer right after their check (prefix fold_).
 *
 * DENSIFY: its input, a sparse constant, is densified on import (see
 * tfl_sparsity.h); the output is that dense constant.
 * Shapes are static here, so SHAPE and the integer ops computing on its
 * result (STRIDED_SLICE, PACK, CONCATENATION, arithmetic ...) are constants:
 * the importer evaluates each such op right after its check, with the op's
 * own prepare and reference kernel, so that a RESHAPE or TRANSPOSE_CONV fed
 * by them sees a constant shape. Folded ops are marked dead and their
 * outputs become constant tensors. Only small int32/int64 results (shape
 * vectors) and float32 scalars (a shape value cast to float, e.g. the limit of
 * a float RANGE) are folded; an op whose output is a graph output keeps
 * running. */
#ifndef MPCC_FOLD_CONST_H
#define MPCC_FOLD_CONST_H

#include "ir.h"

/* Folds op if it is foldable (*folded = 1). Returns 0 or an error status
 * (the op's prepare failed). */
int fold_const_op(Graph *g, IrOp *op, int *folded, Diag *d);

/* Runs op (every input a constant) once with its prepare and reference
 * kernel; its outputs become constants and op is marked dead. Also used by
 * pass fold_dequantize. Returns 0 or the prepare's error status. */
int fold_const_eval(Graph *g, IrOp *op, Diag *d);

/* fold_const_eval in two steps, for a pass that looks at the values before it folds (sched_gather.c): the
 * outputs of op (prepared, every input a constant) into compiler-arena buffers at out[0..n_out) (0; 1 when op
 * cannot run here; DIAG_INTERNAL), then those buffers as op's constant outputs, op marked dead. */
int fold_const_values(Graph *g, const IrOp *op, void **out, Diag *d);
void fold_const_commit(Graph *g, IrOp *op, void *const *out);

#endif
