/* emit_cuda.h - `mpcc --target cuda`: <out>.cu and <out>.h (prefix cg_). */
#ifndef MPCC_EMIT_CUDA_H
#define MPCC_EMIT_CUDA_H

#include <stdio.h>

#include "diag.h"
#include "ir.h"

typedef struct CudaEmitOptions {
    const char *prefix;        /* symbol prefix, a C identifier ("model") */
    const char *header_name;   /* file name the .cu includes ("model.h") */
    const char *source_name;   /* model file name, for comments */
    int jit;                   /* 1: host code in C99 on the NVRTC JIT (runtime/cuda/mpcc_jit.h), the
                                  kernels as an embedded source string; 0: a .cu for nvcc */
    int tf32;                  /* fp32 matmuls in one TF32 pass (--tf32) instead of 3xTF32 */
} CudaEmitOptions;

/* runtime/cuda's device headers, as lines (build/gen/cuda_headers.c): pasted into the kernel
 * source of --jit output. The list ends with {NULL, NULL}; each lines array ends with NULL. */
typedef struct CuHeaderText {
    const char *name;
    const char *const *lines;
} CuHeaderText;
extern const CuHeaderText cu_headers[];

/* 0 when every live op of g has a CUDA kernel; else a user error listing
 * the ops that have none (operator index, op, dtype, why). */
int cu_check_graph(const Graph *g, Diag *d);

/* --report with --target cuda: the kernel class and tensor-core mode of every op. */
void cu_report(const Graph *g, const CudaEmitOptions *o, FILE *f);

/* Writes the CUDA source and its C header (the host API). */
int cg_emit_cuda(const Graph *g, const CudaEmitOptions *o, FILE *cu_out, FILE *h_out, Diag *d);

#endif
