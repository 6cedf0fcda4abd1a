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

/* WHILE's params (op_while.c; the CUDA emitter reads them too): scratch offsets. */
typedef struct WhileParams {
    int64_t *body_out;      /* scratch offset of body output k */
    int64_t arena;          /* scratch offset of the callees' arena */
    int64_t cond_out;       /* scratch offset of the cond subgraph's bool */
    int64_t arena_bytes;
} WhileParams;

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
/* STABLEHLO_COMPOSITE's options (op_stablehlo_composite.c). */
typedef struct CompositeOptions {
    const char *name;       /* the composite's name (raw model bytes; NULL if absent) */
} CompositeOptions;

/* Whether a STABLEHLO_COMPOSITE is odml.scaled_dot_product_attention in litert-torch's form (f32 q
 * [B,T,N,H], k and v [B,S,G,H], an optional additive mask broadcast over heads; a decomposition of
 * only layout ops, two MULs by scalar constants, two BATCH_MATMULs, the mask's ADD and a SOFTMAX of
 * beta 1); if so fills *p (scale: the product of the two constants). op_stablehlo_composite.c. */
int composite_sdpa(const Graph *g, const IrOp *op, rt_opt_sdpa_params *p);
/* The same for odml.sdpa_transposed (litert-torch's Hugging Face export with its GPU composites: q
 * [B,N,T,H], k [B,G,S,H], v [B,G,H,S], a boolean mask selecting a constant score; *p's `transposed`
 * set); composite_sdpa calls it for that name. composite_sdpa_transposed.c. */
int composite_sdpa_transposed(const Graph *g, const IrOp *op, rt_opt_sdpa_params *p);
/* Whether a STABLEHLO_COMPOSITE is odml.rms_norm whose decomposition is exactly MUL(x, x), MEAN over
 * the last axis, ADD of a scalar eps, RESHAPEs, RSQRT, MUL by x, MUL by its input w (f32); if so fills
 * *p (rows, cols, eps). composite_rms_norm.c. */
int composite_rms_norm(const Graph *g, const IrOp *op, rt_rms_norm_params *p);
/* Whether constant t is one f32 value (a composite decomposition's scale or fill); if so *v = it. */
int composite_f32_scalar(const IrTensor *t, float *v);

#endif
