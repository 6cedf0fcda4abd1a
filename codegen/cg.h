/* cg.h - the small C emitter (prefix cg_) used by op files and codegen.
 *
 * Lines are written with an indent depth, never hand-counted tabs.
 * Strings returned by cg_in/cg_out/cg_shape/... live until the end of the
 * current operator's emission (a per-op scratch pool); copy them if needed
 * longer. */
#ifndef MPCC_CG_H
#define MPCC_CG_H

#include <stdint.h>
#include <stdio.h>

#include "ir.h"
#include "mpcc_rt.h"

typedef struct CgCtx CgCtx;

void cg_line(CgCtx *cg, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* Write a line, then indent one more level (e.g. "for (i = 0; i < n; i++) {"). */
void cg_open(CgCtx *cg, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* Dedent one level, then write a line (e.g. "}" or "};"). */
void cg_close(CgCtx *cg, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* C expression for operator input/output k as a typed pointer, e.g.
 * "(const int8_t *)(arena + 1024)", "conv1_weights" or "NULL" for an absent
 * optional input. Inputs are const-qualified, outputs are not. */
const char *cg_in(CgCtx *cg, const IrOp *op, int k);
const char *cg_out(CgCtx *cg, const IrOp *op, int k);
/* The same for any tensor id (e.g. weights packed by pass schedule). */
const char *cg_tensor(CgCtx *cg, int id, int is_input);
/* The operator's scratch memory as "(void *)(arena + N)", or "NULL". */
const char *cg_scratch(CgCtx *cg, const IrOp *op);

/* Control flow: the C function of TFLite subgraph k ("<prefix>_subgraph<k>"),
 * and the weights argument every such function takes after the arena
 * (", weights" with --weights file, else ""); the parallel-for `par` follows. */
const char *cg_subgraph_fn(CgCtx *cg, int k);
const char *cg_weights_arg(CgCtx *cg);

/* Literals: "{4, {1, 96, 96, 1}}", an exactly round-tripping float literal
 * ("0.5f", "-INFINITY", "1.17549435e-38f"). */
const char *cg_shape(CgCtx *cg, const rt_shape *s);
const char *cg_f32(CgCtx *cg, float v);

/* `static const <type> name[n] = { ... };` (n may be 0: emits a 1-element
 * array so the C stays valid). Use for per-channel multipliers, tables... */
void cg_array_i32(CgCtx *cg, const char *name, const int32_t *v, int64_t n);
void cg_array_i16(CgCtx *cg, const char *name, const int16_t *v, int64_t n);
void cg_array_i8(CgCtx *cg, const char *name, const int8_t *v, int64_t n);
void cg_array_u8(CgCtx *cg, const char *name, const uint8_t *v, int64_t n);
void cg_array_f32(CgCtx *cg, const char *name, const float *v, int64_t n);

#endif
