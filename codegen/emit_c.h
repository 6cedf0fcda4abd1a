/* emit_c.h - whole-model C emission: <out>.c and <out>.h (prefix cg_). */
#ifndef MPCC_EMIT_C_H
#define MPCC_EMIT_C_H

#include <stdint.h>
#include <stdio.h>

#include "diag.h"
#include "ir.h"

/* Constants above this many bytes are not embedded as C arrays (the
 * default cap of --weights embed): gcc and clang need minutes and gigabytes
 * of memory for initializer lists that long. */
#define CG_MAX_EMBED_BYTES ((int64_t)64 << 20)
/* Operators the C backend accepts: each becomes about 1 KB of C, so 250,000
 * already make a 250 MB file that takes a C compiler many minutes; a graph
 * of 10^6 is refused up front rather than written out. */
#define CG_MAX_OPS 250000
/* Above this many ops, <prefix>_run calls static functions of this many. */
#define CG_OPS_PER_FUNCTION 512

typedef struct EmitOptions {
    const char *prefix;        /* symbol prefix, a C identifier ("model") */
    const char *header_name;   /* file name the .c includes ("model.h") */
    const char *source_name;   /* model file name, for comments */
    int weights_file;          /* 1: constants go to a weights blob, not the .c */
    int64_t max_weights;       /* > 0: a user error when the weights take more bytes (--max-weights) */
    int64_t max_embed;         /* > 0: without weights_file, a user error above this many constant bytes */
    int profile;               /* --profile: time each kernel of the model's graph (off: the code is unchanged) */
} EmitOptions;

/* Writes the C source to c_out and the header to h_out, streaming (the
 * model's code is never held in memory whole); with weights_file, the
 * weights blob to weights_out (seekable: its header is written last). On
 * error the files hold partial output and the caller removes them. */
int cg_emit_model(const Graph *g, const EmitOptions *o, FILE *c_out, FILE *h_out, FILE *weights_out, Diag *d);

#endif
