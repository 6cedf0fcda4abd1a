/* emit_weights.h - emit_c.c's per-graph code state and its constants' functions (emit_weights.c). */
#ifndef MPCC_EMIT_WEIGHTS_H
#define MPCC_EMIT_WEIGHTS_H

#include <stdint.h>
#include <stdio.h>

#include "cg_internal.h"
#include "emit_c.h"

/* What the emitter keeps per graph: the model's (k = 0), and each
 * control-flow subgraph's (a static function <prefix>_subgraph<k>). Tensor
 * ids are per graph, so are the constant names and blob offsets; the blob
 * itself is one, shared by all graphs. */
typedef struct GraphCode {
    const Graph *g;
    const char **names;     /* per tensor: C name of its constant */
    int64_t *woff;          /* per tensor: offset in the weights blob, -1 until first referenced */
    char **owned;
    char *const_used;       /* per tensor: referenced by the emitted code */
} GraphCode;

/* The weights budgets: --max-weights, and the size above which constants are not embedded as C arrays. */
int cg_check_weights_size(const GraphCode *gcs, int n_gc, const EmitOptions *o, int64_t bytes, Diag *d);
/* Streams the weights blob to f (the header last, with the hash, also returned in *hash). */
int cg_write_weights(const CgCtx *cg, const GraphCode *gcs, int n_gc, FILE *f, uint64_t *hash, Diag *d);
/* The C name of a constant of an earlier graph (gcs[0 .. k-1]) with t's dtype and bytes, or NULL. */
const char *cg_same_constant(const GraphCode *gcs, int k, const IrTensor *t);
/* With --weights file: constants equal to one of another graph placed before share its offset. -1 on OOM. */
int cg_share_blob_constants(CgCtx *cg, GraphCode *gcs, int n_gc);

#endif
