/* cg_internal.h - the emitter context, shared by cg.c and the model emitter. */
#ifndef MPCC_CG_INTERNAL_H
#define MPCC_CG_INTERNAL_H

#include "cg.h"

#define CG_POOL 48
#define CG_POOL_LEN 512

/* Text being emitted: in memory, or streamed to a file in chunks of
 * CG_FLUSH_BYTES (sink), so that a model of 10^6 ops does not hold its
 * gigabyte of C in memory; or dropped (discard), for a dry run of the
 * emitters that only records which constants the code reads. */
#define CG_FLUSH_BYTES ((size_t)1 << 20)
typedef struct CgBuf {
    char *s;
    size_t len, cap;
    int oom;
    FILE *sink;        /* text goes there; s holds what is not written yet */
    int io_error;      /* a write to sink failed */
    int discard;       /* text is dropped unformatted */
} CgBuf;

struct CgCtx {
    CgBuf *out;            /* where lines go */
    int depth;             /* indent level */
    const Graph *g;
    const char *prefix;    /* symbol prefix */
    int weights_file;      /* constants live in a caller-supplied weights blob */
    int profile;           /* --profile: the model graph's kernels are timed (emit_c.c) */
    const char **const_name;   /* per tensor: C name of its constant array */
    int64_t *const_offset;     /* per tensor: offset in the weights blob, -1 until first referenced */
    int64_t blob_bytes;        /* weights blob size so far (header included) */
    char *const_used;          /* per tensor: referenced by emitted code */
    char pool[CG_POOL][CG_POOL_LEN];
    int pool_next;
};

void cgbuf_append(CgBuf *b, const char *s, size_t n);
/* Writes what is buffered to the sink (if any). */
void cgbuf_flush(CgBuf *b);
/* Each constant of the weights blob starts a multiple of 64 bytes from the blob's start (a cache line:
 * the packed panels are read 64 bytes at a time), the first one after the header and zeros. */
#define CG_BLOB_ALIGN 64
/* Offset of constant tensor id in the weights blob, given on first use. */
int64_t cg_blob_offset(CgCtx *cg, int id);
void cgbuf_printf(CgBuf *b, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
char *cg_pool_str(CgCtx *cg);
/* The header's per-input (is_out 0) or per-output macros: NAME, DTYPE, RANK,
 * DIMS, SIZE, BYTES, SCALE/ZERO_POINT (C and CUDA headers alike). */
void cg_emit_io_macros(CgBuf *h, const Graph *g, const char *P, int is_out);
/* The graph input whose buffer the caller may also pass as output j's (the
 * output is a DYNAMIC_UPDATE_SLICE of that input, which nothing else reads),
 * or -1 (emit_inplace.c). */
int cg_inplace_input(const Graph *g, int j);
/* C identifier from a tensor name: "w<id>_<sanitized>", at most ~48 chars. */
const char *cg_sanitize(CgCtx *cg, const char *name, int id);

#endif
