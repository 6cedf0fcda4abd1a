/* shape_common.h - helpers for the data-movement ops (group "shape"):
 * dtype masks, quantization equality, and building/emitting the strided
 * byte copies of runtime/kernels/rt_shape_common.h. */
#ifndef MPCC_SHAPE_COMMON_H
#define MPCC_SHAPE_COMMON_H

#include "op_util.h"

/* Every dtype a byte-moving kernel can carry. */
#define SHAPE_ANY_DTYPE (DT(F32) | DT(F16) | DT(BF16) | DT(I8) | DT(U8) | DT(I16) | DT(I32) | DT(I64) | DT(BOOL))
/* The flat copies (RESHAPE, SQUEEZE, EXPAND_DIMS) also carry complex64 (RFFT2D's results; see op_accepts_complex). */
#define SHAPE_FLAT_DTYPE (SHAPE_ANY_DTYPE | DT(C64))

/* Row-major element strides of dims[0..rank). */
void shape_contig_strides(int rank, const int64_t *dims, int64_t *strides);

/* Input in_k and output out_k must carry the same dtype and, for quantized
 * types, the same scales and zero points (a byte copy keeps the values). */
int shape_expect_same_quant(const Graph *g, const IrOp *op, int in_k, int out_k, Diag *d);

/* The checks of a copy of input 0 into output 0 reading `n_in` inputs (the rest constant
 * parameters): the counts, any dtype, the same quantization on both sides. */
int shape_expect_copy(const Graph *g, const IrOp *op, int n_in, Diag *d);

/* Builds a copy over the box dims[0..rank) with element strides and
 * element offsets, then simplifies it (drops extent-1 dims, folds the
 * contiguous innermost dims into `run`, merges adjacent contiguous dims).
 * Returns 0, or -1 when an extent does not fit in int32. */
int shape_copy_init(rt_copy_params *p, int rank, const int64_t *dims, const int64_t *in_strides, int64_t in_offset,
                    const int64_t *out_strides, int64_t out_offset, int64_t elem_size);

/* A whole-tensor contiguous copy of `bytes` bytes. */
void shape_copy_flat(rt_copy_params *p, int64_t bytes);

/* `<prefix>{.rank = .., .dims = {..}, .in_strides = .., .out_strides = .., .in_offset = ..,
 * .out_offset = .., .run = ..}<suffix>` over a few lines (designated initializers). */
void shape_emit_copy(CgCtx *cg, const rt_copy_params *p, const char *prefix, const char *suffix);
/* `static const rt_copy_params name[count] = {...};` */
void shape_emit_copy_array(CgCtx *cg, const char *name, const rt_copy_params *parts, int count);
/* `static const rt_copy_params parts[n] = {...}; static const rt_parts_params p = {.count = n, .parts = parts};` */
void shape_emit_parts(CgCtx *cg, const rt_parts_params *p);

/* Normalizes an axis in [-rank, rank) to [0, rank); -1 if out of range. */
int shape_axis(int64_t axis, int rank);

/* Multi-part ops: SPLIT, SPLIT_V, UNPACK scatter input in_k to the outputs
 * (part k -> output k); CONCAT, PACK gather the inputs into output 0. */
rt_parts_params *shape_new_parts(Graph *g, int count, rt_copy_params **parts);
typedef void (*ShapePartKernel)(const rt_parts_params *p, int32_t k, const void *in, void *out);
void shape_parts_eval(const IrOp *op, ShapePartKernel kernel, int scatter, int in_k, const void *const *in,
                      void *const *out);
void shape_parts_emit(CgCtx *cg, const IrOp *op, const char *kernel, int scatter, int in_k);

/* op->params = a new copy over the box (shape_copy_init), or a user error naming the op. */
int shape_copy_prepare(Graph *g, IrOp *op, int rank, const int64_t *dims, const int64_t *in_strides, int64_t in_offset,
                       const int64_t *out_strides, int64_t elem_size, Diag *d);
/* Prepare of a strided copy from input 0: the box `dims` (rank entries) read
 * at in_offset with in_strides (elements), written contiguously. */
int shape_box_prepare(Graph *g, IrOp *op, int rank, const int64_t *dims, const int64_t *in_strides,
                      int64_t in_offset, Diag *d);
/* Prepare of a flat copy of input 0 (RESHAPE, SQUEEZE, EXPAND_DIMS). */
int shape_flat_prepare(Graph *g, IrOp *op, Diag *d);
/* Emits `static const rt_copy_params p = {...};` and `kernel(&p, in0, out0);`. */
void shape_emit_copy_kernel(CgCtx *cg, const IrOp *op, const char *kernel);
/* CONCATENATION (op_concatenation.c): whether its parts are rescaled or clamped element by element, and
 * its C with `kernel` (NULL: the reference kernel for its dtype). */
int concat_is_elementwise(const Graph *g, const IrOp *op);
int concat_emit_c(CgCtx *cg, const Graph *g, const IrOp *op, const char *kernel);
/* eval / emit_c of an op that is a flat copy of input 0 (RESHAPE, DENSIFY), after shape_flat_prepare. */
void shape_flat_copy_eval(const Graph *g, const IrOp *op, const void *const *in, void *const *out, void *scratch);
int shape_flat_copy_emit(CgCtx *cg, const Graph *g, const IrOp *op, Diag *d);

/* DEPTH_TO_SPACE, SPACE_TO_DEPTH: block_size (option field `field`), >= 1. */
typedef struct BlockOptions {
    int block;
} BlockOptions;
int shape_block_parse(Graph *g, IrOp *op, const FbTable *opts, int field, Diag *d);

/* Axis from constant input axis_k (a single value), resolved against the
 * rank of input data_k (SPLIT, SPLIT_V). */
int shape_const_axis(const Graph *g, const IrOp *op, int axis_k, int data_k, int *axis, Diag *d);
/* SPLIT, SPLIT_V prepare: output k is the slice of input in_k along axis
 * that starts where the outputs before it end. */
int shape_split_prepare(Graph *g, IrOp *op, int in_k, int axis, Diag *d);

/* PAD and PADV2 share their implementation (op_pad.c). */
int shape_pad_check(Graph *g, IrOp *op, Diag *d);
int shape_pad_prepare(Graph *g, IrOp *op, Diag *d);
void shape_pad_eval(const Graph *g, const IrOp *op, const void *const *in, void *const *out, void *scratch);
int shape_pad_emit_c(CgCtx *cg, const Graph *g, const IrOp *op, Diag *d);
int shape_pad_emit_kernel(CgCtx *cg, const IrOp *op, const char *kernel); /* rt_pad or rt_opt_pad (same params) */

#endif
