/* cuda_internal.h - what the files of the CUDA emitter share (prefix cu_):
 *   cuda_classify.c  which kernel class each op becomes (CuKind), or why none
 *   cuda_emit_ops.c  the launch machinery and the float/tensor-core kernels (GEMM, conv, attention, rows, ...)
 *   cuda_emit_more.c integer/bool elementwise, GATHER, CONCATENATION
 *   cuda_emit_s8.c   the int8 (TFLite-quantized) kernels
 *   cuda_emit_s16.c  int16 ops, compile-time lookup tables (any int8/int16 elementwise op), PAD
 *   cuda_emit_layout.c PAD, SPLIT/PACK/UNPACK, PRELU, RESIZE_*, TRANSPOSE_CONV
 *   cuda_emit_misc.c ABS int32, REDUCE_PROD, EMBEDDING_LOOKUP, SHAPE, L2_NORMALIZATION / LOG_SOFTMAX int8
 *   cuda_emit_cf.c   control flow, resource variables, signature entry points (host code)
 *   cuda_emit_rnn.c  UNIDIRECTIONAL_SEQUENCE_LSTM, SVDF (and the reset of their state tensors)
 *   cuda_emit_hybrid.c hybrid (float input, int8 weights) FULLY_CONNECTED / CONV_2D / DEPTHWISE_CONV_2D
 *   emit_cuda.c      the .cu / --jit .c file, its header and the host API around them */
#ifndef MPCC_CUDA_INTERNAL_H
#define MPCC_CUDA_INTERNAL_H

#include <stdint.h>

#include "cg_internal.h"
#include "emit_cuda.h"
#include "ops.h"
#include "rt_opt.h"

#define MPCC_CU_MAX_RANK 8 /* MPCC_MAX_RANK of runtime/cuda/mpcc_cuda_args.h */

/* What one op becomes on the GPU. */
typedef enum CuKind {
    CU_NONE = 0, CU_SKIP, CU_GEMM, CU_GEMM_S8, CU_CONV, CU_BMM, CU_BINARY, CU_UNARY, CU_SOFTMAX, CU_LAYER_NORM,
    CU_ROW_MEAN, CU_COPY, CU_POOL, CU_CAST, CU_ATTENTION, CU_MEAN,
    CU_ELEM, CU_GATHER, CU_CONCAT,
    /* int8 (runtime/cuda/mpcc_cuda_int8.cuh) */
    CU_CONV_S8, CU_CONV_S8_GEMM, CU_BINARY_S8, CU_POOL_S8, CU_MEAN_S8, CU_LUT_S8, CU_SOFTMAX_S8, CU_REQUANT_S8,
    /* int16, compile-time tables, PAD (runtime/cuda/mpcc_cuda_s16.cuh) */
    CU_LUT_X, CU_BINARY_S16, CU_SUM_S8, CU_BMM_S8, CU_REDUCE_BOOL, CU_GATHER_ND, CU_DUS, CU_REQUANT_I32,
    CU_LAYOUT, /* cuda_emit_layout.c (runtime/cuda/mpcc_cuda_layout.cuh) */
    CU_MISC, /* cuda_emit_misc.c (runtime/cuda/mpcc_cuda_misc.cuh) */
    CU_CONTROL, /* cuda_emit_cf.c: IF/WHILE/READ_VARIABLE/ASSIGN_VARIABLE/CUSTOM/STABLEHLO_COMPOSITE, host code, no kernel */
    CU_RNN, /* cuda_emit_rnn.c (runtime/cuda/mpcc_cuda_rnn.cuh) */
    CU_HYBRID, /* cuda_emit_hybrid.c (runtime/cuda/mpcc_cuda_hybrid.cuh) */
    CU_S16X8,  /* cuda_emit_hybrid.c: int16 activations with int8 weights (FULLY_CONNECTED, PRELU) */
    CU_BMM_X   /* cuda_emit_s16.c: BATCH_MATMUL f32 with adj_x or unflattenable batches, one thread per output */
} CuKind;

extern const char *const cu_kind_name[];

#define BLOB_ALIGN 256

/* An array the emitter derives from an op's params (not a graph tensor), uploaded with the
 * weights: op's `slot`-th array, `bytes` long at blob offset `off`. */
typedef struct CuXConst {
    int op, slot;
    int64_t off, bytes;
    void *data; /* owned */
} CuXConst;

typedef struct CuEmit {
    CgCtx cg;
    const Graph *g;
    const CudaEmitOptions *o;
    int64_t *woff;        /* per tensor: offset in the weights blob, -1 if not uploaded */
    int64_t blob_bytes;
    CuXConst *xc;  /* extra constant arrays computed here (int8 folded bias, requant arrays, LUTs) */
    int n_xc, cap_xc;
    int n_kernels;
    CgBuf *attr;          /* PREFIX_cuda_init's cudaFuncSetAttribute calls */
    int uses_a, uses_w;   /* the run function reads the arena / the weights */
    CgBuf *kb;            /* the kernels (device source) */
    const char *host_prefix; /* the model's prefix (o->prefix is PREFIX_s<K> in subgraph K: its kernels' names) */
    int64_t arena_extra;  /* device arena bytes past the static plan (cuda_emit_hybrid.c) */
} CuEmit;


/* The GEMM tile configs of runtime/cuda/mpcc_cuda_gemm.cuh (template
 * arguments BM, BN, BK, WARPS_M, WARPS_N, STAGES): 128x128 when there are
 * enough tiles to fill a GPU (132 SMs on an H100), else 64x64. */
typedef struct GemmTile {
    const char *args;
    int bm, bn, threads;
} GemmTile;
extern const GemmTile cu_tile_large;
extern const GemmTile cu_tile_small;
extern const GemmTile cu_tile_s8;


IrDType cu_dt_in(const Graph *g, const IrOp *op, int k);
int cu_unary_code(OpKind k);
int cu_binary_code(OpKind k);
int cu_bmm_flat(const rt_bmm_params *p, int64_t *sa, int64_t *sb, int64_t *batch);
int cu_elem_code(OpKind k);
int cu_concat_is_copy(const Graph *g, const IrOp *op);
CuKind cu_classify_more(const Graph *g, const IrOp *op, const char **why);
int cu_conv_bias_id(const IrOp *op);
int cu_conv_s8_gemm_ok(const IrOp *op);
CuKind cu_classify_s8(const Graph *g, const IrOp *op, const char **why, int *mine);
CuKind cu_classify(const Graph *g, const IrOp *op, const char **why);
int cu_xconst_add(CuEmit *e, int op, int slot, void *data, int64_t bytes);
int cu_xconst_copy(CuEmit *e, int op, int slot, const void *src, int64_t bytes);
const char *cu_xptr(CuEmit *e, int op, int slot, const char *type);
const char *cu_ptr(CuEmit *e, int id, const char *type);
void cu_use_const(CuEmit *e, int id);
int32_t *cu_fold_s8_bias(const Graph *g, int w_id, int b_id, int32_t out_depth, int32_t in_depth, int32_t in_offset);
int cu_xconst_requant(CuEmit *e, int op, int slot, const int32_t *mult, const int32_t *shift, int32_t n, int per_channel);
int cu_xconsts(CuEmit *e, int i, const IrOp *op, CuKind kind);
const char *cu_f32(CuEmit *e, float v);
void cu_kernel_def(CuEmit *e, CgBuf *kb, int index, const char *args_type, int threads, const char *body);
void cu_launch(CuEmit *e, int index, int64_t gx, int64_t gy, int64_t gz, int64_t gx_rows, int threads, const char *cfg);
int64_t cu_blocks_for(int64_t n);
void cu_gemm_common(CuEmit *e, int64_t m, int64_t n, int64_t k, float a1lo, float a1hi);
const GemmTile *cu_gemm_tile(int64_t m, int64_t n, int64_t batch);
const char *cu_model_mma_mode(const CuEmit *e);
const char *cu_mma_mode(const CuEmit *e, const IrOp *op);
void cu_emit_gemm_launch(CuEmit *e, CgBuf *kb, int index, const char *mode, int b_nk, int64_t m, int64_t n, int64_t batch);
const char *cu_i64_lit(char *buf, size_t n, long long v);
int cu_rt_code(IrDType t);
int cu_emit_more(CuEmit *e, CgBuf *kb, int index, const IrOp *op, CuKind kind, Diag *d);
int cu_emit_op_s8(CuEmit *e, CgBuf *kb, int index, const IrOp *op, CuKind kind);
void cu_emit_addq(CuEmit *e, const char *dst, const rt_binary_params *p);
void cu_emit_reduce_s8(CuEmit *e, const char *dst, const IrOp *op, int code);
int cu_s8_binary_code(OpKind k);
CuKind cu_classify_s16(const Graph *g, const IrOp *op, const char **why, int *mine);
int cu_xconsts_s16(CuEmit *e, int i, const IrOp *op, CuKind kind);
int cu_emit_op_s16(CuEmit *e, CgBuf *kb, int index, const IrOp *op, CuKind kind);
void cu_emit_gemm_s8(CuEmit *e, CgBuf *kb, int index, const IrOp *op, int64_t m, int32_t n, int32_t k,
                     int32_t out_offset, int32_t qmin, int32_t qmax, int single_rounding);
void cu_emit_conv_geometry(CuEmit *e, const IrOp *op);
void cu_emit_pool_geometry(CuEmit *e, const rt_pool_params *p);
void cu_copy_plan(const rt_copy_params *p, int *unit, int64_t *total);
CuKind cu_classify_layout(const Graph *g, const IrOp *op, const char **why, int *mine);
int cu_xconsts_layout(CuEmit *e, int i, const IrOp *op);
int cu_emit_layout(CuEmit *e, CgBuf *kb, int index, const IrOp *op, Diag *d);
CuKind cu_classify_misc(const Graph *g, const IrOp *op, const char **why, int *mine);
int cu_xconsts_misc(CuEmit *e, int i, const IrOp *op);
int cu_emit_misc(CuEmit *e, CgBuf *kb, int index, const IrOp *op);
CuKind cu_classify_cf(const Graph *g, const IrOp *op, const char **why, int *mine);
void cu_cf_reach(const Graph *root, unsigned char *need);
int cu_cf_host_sync(const Graph *g);
int64_t cu_custom_host(const Graph *root, CgBuf *protos);
int cu_emit_cf(CuEmit *e, int index, const IrOp *op, Diag *d);
/* cuda_emit_guard.c: the host check of a run-time shape input (op->guard), status 4 on a mismatch */
void cu_emit_guard(CuEmit *e, int index, const IrOp *op);
int cu_state_consts(CuEmit *e);
void cu_emit_state_init(CuEmit *e, CgBuf *c);
void cu_emit_entries_header(CgBuf *h, const Graph *g, const char *pf, const char *P);
void cu_emit_entries(CgBuf *c, const Graph *g, const char *pf);
int cu_emit_op(CuEmit *e, CgBuf *kb, int index, const IrOp *op, CuKind kind, Diag *d);
CuKind cu_classify_rnn(const Graph *g, const IrOp *op, const char **why, int *mine);
int cu_xconsts_rnn(CuEmit *e, int i, const IrOp *op);
int cu_emit_rnn(CuEmit *e, CgBuf *kb, int index, const IrOp *op, Diag *d);
void cu_emit_rnn_state_init(CuEmit *e, CgBuf *c); /* --jit's PREFIX_cuda_init */
CuKind cu_classify_hybrid(const Graph *g, const IrOp *op, const char **why, int *mine);
int cu_xconsts_hybrid(CuEmit *e, int i, const IrOp *op);
int cu_emit_hybrid(CuEmit *e, CgBuf *kb, int index, const IrOp *op);

#endif
