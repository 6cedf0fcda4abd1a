/* ir.h - the graph IR (prefix ir_): tensors, ops, and the graph that owns them.
 *
 * One Graph per compilation. Everything hanging off it (names, shapes,
 * options, kernel parameters) is allocated from the graph's arena and freed
 * at once with ir_graph_free(); nothing is freed one by one.
 * ir/ depends on nothing but the C library.
 */
#ifndef MPCC_IR_H
#define MPCC_IR_H

#include <stddef.h>
#include <stdint.h>

#include "diag.h"

#define IR_MAX_RANK 8

typedef enum IrDType {
    IR_F32, IR_F16, IR_BF16, IR_I8, IR_U8, IR_I16, IR_I32, IR_I64, IR_BOOL,
    IR_C64,     /* complex64: (re, im) float32 pairs, interleaved as TFLite stores them; only RFFT2D makes it
                   and only the ops listed by op_accepts_complex read it */
    IR_DTYPE_COUNT
} IrDType;

const char *ir_dtype_name(IrDType t);      /* "f32", "i8", ... */
size_t ir_dtype_size(IrDType t);           /* bytes per element */
const char *ir_dtype_ctype(IrDType t);     /* "float", "int8_t", "uint16_t" (f16/bf16 bits) ... */

/* Operator kinds, from the op table. */
typedef enum OpKind {
#define OP(name, code, stem) OP_##name,
#include "op_list.def"
#undef OP
    OP_KIND_COUNT
} OpKind;

const char *ir_op_name(OpKind k);          /* "CONV_2D" */
int ir_op_tfl_code(OpKind k);              /* TFLite builtin code */
int ir_op_from_tfl_code(int code, OpKind *out); /* 0 ok, -1 unknown */

/* Affine quantization: real = scale * (q - zero_point).
 * count == 0: not quantized; count == 1: per tensor; count > 1: per channel
 * along axis `dim`. */
typedef struct IrQuant {
    int count;
    int dim;
    const float *scale;
    const int64_t *zero_point;
    int block;          /* block-wise (TFLite BlockwiseQuantization): values per block along the last axis of a
                           rank-2 constant [rows, cols]; scale holds rows x (cols / block) values, row by row
                           (count = that), zero points 0. 0: per tensor / per channel as above */
} IrQuant;

typedef struct IrTensor {
    int id;
    const char *name;           /* sanitized-safe original TFLite name (never NULL) */
    IrDType dtype;
    int rank;
    int64_t dims[IR_MAX_RANK];
    int has_signature;          /* shape_signature present */
    int64_t signature[IR_MAX_RANK]; /* -1 = dynamic dimension in the original model */
    IrQuant q;
    const uint8_t *data;        /* constant data, or NULL for activations */
    size_t data_size;           /* bytes of data */
    int tfl_index;              /* index in the TFLite subgraph, -1 if made by a pass */
    int is_variable;            /* persistent state (e.g. SVDF/LSTM state, resource variables) */
    const uint8_t *init;        /* variable: its value after <prefix>_init (ir_tensor_bytes bytes), or NULL:
                                   filled with ir_variable_reset_value */
    int is_input, is_output;    /* graph input / output */
    int infer_shape;            /* the stored shape is stale (an input's shape was overridden): the op
                                   writing it sets it (op_set_out_shape) */
    int int4;                   /* a TFLite INT4 constant: dtype I8, values in [-8, 7], unpacked at import
                                   (tfl_import.c); pass schedule may keep it packed 4-bit again */
    int unknown;                /* lenient import (inspect) only: 2 = the tensor itself is unsupported (dtype,
                                   sparsity, ...), 1 = its producer is; consumers are not checked */
    int producer;               /* index of the op writing it, -1 if none */
    /* Memory plan (filled by pass plan_memory). */
    int64_t offset;             /* byte offset in the arena, -1 = not planned */
    int alias_of;               /* shares storage with this tensor id (in-place), -1 if none */
    int64_t alias_at;           /* alias_of: byte offset in that tensor's storage (a view of some of
                                   its rows, pass patch), else 0 */
} IrTensor;

/* How an op runs: decided by pass schedule, read by the emitters. SCHED_REF
 * calls the op's reference kernel; the others lower the op to one of the
 * optimized kernel classes of runtime/rt_opt.h. */
typedef enum SchedKind {
    SCHED_REF = 0,
    SCHED_GEMM,         /* FULLY_CONNECTED as a packed-weight GEMM */
    SCHED_CONV_GEMM,    /* CONV_2D as GEMM (1x1 direct, else im2col row blocks) */
    SCHED_DWCONV,       /* DEPTHWISE_CONV_2D vectorized over channels */
    SCHED_BMM,          /* BATCH_MATMUL on the GEMM micro-kernels, RHS packed at run time */
    SCHED_BINARY,       /* ADD/SUB/MUL/SQUARED_DIFFERENCE as contiguous broadcast runs */
    SCHED_ROW_MEAN,     /* MEAN over trailing axes: one contiguous row per output */
    SCHED_COPY,         /* strided data movement with a memcpy per contiguous run */
    SCHED_ACT,          /* f32 GELU with a vectorizable erfc/exp */
    SCHED_SOFTMAX,      /* f32 SOFTMAX rows with a vectorizable exp */
    SCHED_ATTENTION,    /* BATCH_MATMUL -> [MUL] -> [mask] -> SOFTMAX -> BATCH_MATMUL, online softmax */
    SCHED_LAYER_NORM,   /* the converter's LayerNorm chain (10 ops) as one row kernel */
    SCHED_CAST,         /* per-tensor QUANTIZE f32->int8 / DEQUANTIZE int8->f32, vectorizable */
    SCHED_POOL,         /* MAX_POOL_2D / AVERAGE_POOL_2D f32/int8 vectorized over channels */
    SCHED_LSTM,         /* UNIDIRECTIONAL_SEQUENCE_LSTM f32, int8 (no peephole/layer norm): vector dots and activations */
    SCHED_MEAN_BLOCKS,  /* MEAN f32/int8 over adjacent axes (global average pooling), kept axis vectorized */
    SCHED_CONCAT,       /* int8 CONCATENATION with rescaled or clamped parts, vectorizable rounding */
    SCHED_LUT,          /* int8 GELU/LOGISTIC/TANH through their 256-entry table, 64 lanes a step */
    SCHED_RESIZE,       /* RESIZE_BILINEAR f32/int8 as separable row blends, RESIZE_NEAREST_NEIGHBOR as row copies */
    SCHED_PRELU,        /* f32/int8 PRELU, innermost dim vectorized, alpha walked by an odometer */
    SCHED_PAD,          /* PAD/PADV2: interior rows memcpy'd, only the borders filled */
    SCHED_TCONV,        /* TRANSPOSE_CONV f32 (GEMM to columns, col2im) / int8 (packed filter, int32 sums) */
    SCHED_FC_HYBRID,    /* FULLY_CONNECTED f32 in/out, int8 weights: weight rows streamed, exact int32 dots */
    SCHED_SDPA,         /* STABLEHLO_COMPOSITE odml.scaled_dot_product_attention: one kernel on the KV cache */
    SCHED_RMS_NORM,     /* STABLEHLO_COMPOSITE odml.rms_norm: one row kernel, the decomposition's bits */
    SCHED_SELECT,       /* SELECT / SELECT_V2 / LOGICAL_AND / LOGICAL_OR over collapsed broadcast runs */
    SCHED_FFT,          /* RFFT2D [1, N]: each row as N/2 complex values, eight rows side by side, radix-2 in place */
    SCHED_GATHER_ROWS,  /* GATHER whose compile-time indices pick affine rows (STFT frames): one strided copy */
    SCHED_REDUCE,       /* REDUCE_MAX / REDUCE_MIN f32 over adjacent axes, vectorizable */
    SCHED_KIND_COUNT
} SchedKind;

typedef struct IrSched {
    SchedKind kind;
    int mr, nr;                 /* micro-tile: rows of A x columns per weight panel */
    int rows;                   /* im2col rows per block (SCHED_CONV_GEMM, not direct) */
    int direct;                 /* 1x1/stride 1/no pad conv reads its input in place */
    int runs;                   /* int8 conv: AVX512-VNNI builds read its patches in place, filter_h runs of
                                 * filter_w x in_c bytes (rt_opt_conv_s8_runs), no im2col */
    int packed_w;               /* tensor id of the compile-time packed weights, -1 none */
    int packed_b;               /* tensor id of the padded (s8: pre-folded) bias, -1 none */
    const int32_t *mult, *shift; /* s8: requantization per padded column */
    const float *fscale;        /* s8 with op->float_rq: the float requantization's factor per padded column */
    int n_padded;               /* N rounded up to a multiple of nr */
    int a64_init;               /* s8, --isa armv8a / armv8.2a+dotprod: packed_b also holds 128 x the column
                                 * sums (rt_opt_gemm_params.a64_init) */
    int post_add;               /* op index of an ADD fused into the epilogue (pass fuse_add), -1 none */
    int post_other;             /* that ADD's other input (tensor id) */
    int conv_is_lhs;            /* the op's result was the ADD's first input */
    int post_hswish;            /* f32 conv: a fused HARD_SWISH applied in the epilogue (pass fuse_prelu) */
    int post_alpha;             /* f32 conv: 1 + tensor id of a PRELU's per-channel slopes applied in the
                                 * epilogue (pass fuse_prelu), 0 none */
    int post_dw;                /* op index of a DEPTHWISE_CONV_2D fused after this 1x1 conv (pass fuse_dw), -1 none */
    int band;                   /* post_dw: depthwise output rows per band */
    int post_dw_hswish;         /* post_dw: HARD_SWISHes fused with it (pass fuse_dw): RT_OPT_DW_HSWISH_IN on the
                                 * expansion's rows, RT_OPT_DW_HSWISH_OUT on the depthwise output; 0 none */
    int near_ties;              /* int8 ADD/SUB with a float requantization: input pairs near a tie (sched_float_rq) */
    int slots;                  /* scratch copies, one per thread (op->scratch_bytes = slots x one copy) */
    void *kparams;              /* fused kernels: rt_opt_attn_params (SCHED_ATTENTION), rt_opt_ln_params (SCHED_LAYER_NORM),
                                   rt_rms_norm_params (SCHED_RMS_NORM),
                                   rt_opt_sdpa_params (SCHED_SDPA) */
} IrSched;

const char *ir_sched_name(SchedKind k);    /* "ref", "gemm", "conv-gemm", "dwconv", "bmm", "binary", "row-mean", "copy", "act", "softmax", "attention", "layer-norm", "cast", "pool", "lstm", "mean-blocks", "concat", "lut", "resize", "prelu", "pad", "tconv", "fc-hybrid", "sdpa", "rms-norm", "select", "gather-rows", "reduce" */

/* A CUSTOM operator bound to a user kernel (--custom-op NAME=FUNC). */
typedef struct IrCustom {
    const char *code;           /* custom_code (raw model bytes: escape before printing) */
    const uint8_t *options;     /* custom_options bytes, NULL if none */
    size_t options_len;
    const char *func;           /* the user kernel's C identifier */
    void (*fn)(void);           /* mpcc run: the kernel loaded from --custom-lib (cast before calling), or NULL */
    int status;                 /* mpcc run: the kernel's last return value */
} IrCustom;

/* A shape-like input computed at run time (e.g. a graph input) whose values
 * the model fixes through a static output shape: the op was compiled for
 * `values`, and the generated code and the interpreter check the input
 * against them before the op runs (RT_ERR_SHAPE_INPUT on a mismatch). */
typedef struct IrGuard {
    int input;                  /* operator input index */
    int n;
    const int64_t *values;
    int wildcard;               /* RESHAPE: a -1 in the input also matches */
} IrGuard;

typedef struct IrOp {
    OpKind kind;
    int tfl_index;              /* operator index in the TFLite subgraph */
    int n_in, n_out;
    int *in;                    /* tensor ids; -1 = optional input absent */
    int *out;
    int n_intermediates;        /* TFLite operator `intermediates` (quantized LSTM scales) */
    int *intermediates;         /* tensor ids; NULL when none */
    void *options;              /* parsed builtin options (struct owned by the op file) */
    void *params;               /* prepared kernel parameters (runtime struct) */
    size_t scratch_bytes;       /* temporary memory the kernel needs */
    int64_t scratch_offset;     /* arena offset of the scratch, -1 if none */
    int dead;                   /* removed by a pass (kept for indices) */
    int elided;                 /* output aliases input (pass alias): nothing to execute */
    char fused[128];            /* names of ops absorbed into this one, for comments */
    IrCustom *custom;           /* OP_CUSTOM only */
    IrGuard *guard;             /* a shape input checked at run time, or NULL */
    int callee[2];              /* IF (then, else), WHILE (cond, body), CALL_ONCE (init): TFLite subgraph */
    int n_callee;               /* indices of the subgraphs it runs (g->root->sub[...]) */
    IrSched sched;              /* filled by pass schedule; kind SCHED_REF before */
    IrDType prec;               /* compute dtype, set by pass precision (f32 for float ops, i8 for int8 ...) */
    const char *prec_note;      /* why pass precision chose it ("calibrated", "--keep-fp32", ...), or NULL */
    int float_rq;               /* C target, ops pass precision quantized: an int8 FULLY_CONNECTED / CONV_2D requantizes
                                 * in float (rt_requant_float), not with TFLite's fixed point; a QUANTIZE it
                                 * inserted multiplies by 1 / scale (rt_quantize_float), not divides; such an
                                 * FC read only by an inserted DEQUANTIZE writes floats (rt_fully_connected_i8_f32) */
} IrOp;

/* Precision assignment (mpcc --precision; read by pass precision). INT8:
 * post-training static quantization of a float model from calibration
 * ranges. The ranges are indexed by tensor id of the graph as imported
 * (min > max: the tensor was never computed during calibration). */
typedef enum IrPrecMode { IR_PREC_FP32 = 0, IR_PREC_INT8, IR_PREC_BF16, IR_PREC_FP16 } IrPrecMode;
typedef struct IrPrecision {
    IrPrecMode mode;
    int n_keep;
    const char *const *keep;    /* --keep-fp32: TFLite operator indices (decimal) or output tensor names */
    int n_stats;
    const float *min, *max;     /* calibration range per tensor id */
    int no_range_guard;         /* fp16: do not move ops whose calibrated values overflow fp16 to bf16 */
    int f32_activations;        /* bf16/fp16: keep activations in f32 (no pass half_storage) */
    int half_activations;       /* bf16/fp16: 16-bit activations even where --isa plans no 16-bit arithmetic */
    int bf16_attention;         /* int8 (not auto): the fused attention's products in bf16, as for bf16 */
} IrPrecision;
const char *ir_prec_name(IrPrecMode m);    /* "fp32", "int8" */

/* Target ISA of the generated code (mpcc --isa). GENERIC code picks its
 * vector paths from the compiler's target macros when it is built; the
 * others are checked at build time (#error) and set the tile sizes. The
 * Cortex-M ones (microcontrollers, docs/cortex-m.md) also keep the arena at
 * the op-by-op bound: no kernel takes scratch memory beyond it. */
typedef enum IrIsa {
    IR_ISA_GENERIC = 0, IR_ISA_AVX2, IR_ISA_AVX512, IR_ISA_NEON,
    IR_ISA_ARMV8A,     /* AArch64 Armv8-A: NEON, no dot product (Cortex-A53/A72) */
    IR_ISA_ARMV82A_DOT, /* AArch64 Armv8.2-A + dot product (SDOT): Cortex-A76, Neoverse N1 and later */
    IR_ISA_ARMV6M,  /* Cortex-M0/M0+: no DSP extension, no FPU */
    IR_ISA_ARMV7M,  /* Cortex-M3: no DSP extension, no FPU */
    IR_ISA_ARMV7EM, /* Cortex-M4/M7: DSP extension (SMLAD, SXTB16, SSAT), FPU optional */
    IR_ISA_ARMV8M,  /* Cortex-M33/M35P: Armv8-M Mainline with the DSP extension */
    IR_ISA_ARMV81M, /* Cortex-M55/M85: Armv8.1-M with Helium (MVE) */
    IR_ISA_COUNT
} IrIsa;
const char *ir_isa_name(IrIsa isa);        /* "generic", "avx2", "avx512", "neon", "armv7em", ... */
int ir_isa_is_mcu(IrIsa isa);              /* a Cortex-M ISA */

typedef struct IrArenaBlock IrArenaBlock;

typedef struct Graph {
    IrTensor *tensors;          /* array of n_tensors */
    int n_tensors, cap_tensors;
    IrOp *ops;                  /* array of n_ops, in execution order */
    int n_ops, cap_ops;
    int *inputs, n_inputs;      /* graph input tensor ids, model order */
    int *outputs, n_outputs;
    const char **input_names;   /* public names (signature_defs, else tensor names) */
    const char **output_names;
    const char *source;         /* model file name, for messages */
    IrArenaBlock *arena;
    int64_t arena_bytes;        /* planned activation arena size (plan_memory) */
    int64_t arena_lower_bound;  /* max over time of simultaneously live bytes */
    int64_t arena_op_bound;     /* the same without scratch: state + tensors live at the worst op (--report) */
    int64_t state_bytes;        /* bytes of variable tensors, at the arena start */
    int opt_level;              /* 0: reference kernels only; >= 1: pass schedule picks kernels */
    int tfl_subgraph;           /* index of the TFLite subgraph this graph was imported from */
    struct Graph *root;         /* the graph of subgraph 0 (NULL in the root itself): owns sub[] */
    struct Graph **sub;         /* root only: sub[k] is TFLite subgraph k when imported (k >= 1), else NULL */
    int n_sub;                  /* length of sub (the model's subgraph count) */
    /* root only: the model's signatures compiled as entry points <prefix>_<entry_c[i]>_run
     * (docs/signatures.md), in model order: key (raw, untrusted), C identifier, subgraph. */
    int n_entries;
    const char **entry_key;
    const char **entry_c;
    int *entry_sub;
    int threads;                /* most threads the generated code may split kernels over (--threads) */
    int64_t par_min_macs;       /* the smallest kernel (in MACs) that takes the parallel-for; 0: 200000
                                   (--threads-min-macs) */
    int target_cuda;            /* root only: --target cuda (passes keep to fusions its emitter runs) */
    IrIsa isa;                  /* vector ISA the code is built for (--isa); IR_ISA_GENERIC: any */
    const IrPrecision *precision; /* --precision (root graph only), NULL: the model's own dtypes */
    int prec_assigned;          /* pass precision ran: op->prec is meaningful */
    const char *half_report;    /* pass half_storage's summary for --report (text, terminal-safe), or NULL */
    int patch;                  /* root: --patch (pass patch runs the peak region in bands when cheap) */
    int64_t max_arena;          /* root: --max-arena bytes (pass patch fits the plan under it), -1 none */
    const char *patch_report;   /* pass patch's summary for --report and --dump-ir (terminal-safe), or NULL */
    int64_t scratch_budget;     /* bytes per im2col/widening block of pass schedule; 0: its default */
    /* Set by the loader when constant data lives in a mapped model file:
     * drops the resident pages of [p, p + n) (they are read back from the
     * file if touched again), so the compiler's peak memory is not the model
     * file plus its own copies. A hint; NULL when there is nothing to drop. */
    void (*drop_pages)(void *ctx, const void *p, size_t n);
    void *drop_pages_ctx;
} Graph;

Graph *ir_graph_new(const char *source);
void ir_graph_free(Graph *g);

/* Arena allocation, zeroed, 16-byte aligned. Returns NULL only on OOM. */
void *ir_alloc(Graph *g, size_t bytes);
char *ir_strdup(Graph *g, const char *s);
char *ir_strndup(Graph *g, const char *s, size_t n);
char *ir_sprintf(Graph *g, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Adding tensors/ops. Pointers into g->tensors/g->ops are invalidated by
 * these calls: hold ids, not pointers, across them. Return the new id, or -1
 * on OOM. */
int ir_add_tensor(Graph *g, const char *name, IrDType dt, int rank, const int64_t *dims);
int ir_add_op(Graph *g, OpKind kind, int n_in, const int *in, int n_out, const int *out);

/* Element count (product of dims) with overflow check: -1 on overflow/negative. */
int64_t ir_tensor_numel(const IrTensor *t);
/* A FULLY_CONNECTED reading the model's own float16 weights, kept 16-bit by pass fold_dequantize (no --precision
 * bf16/fp16 made them): it multiplies its f32 inputs as they are (ir/sched.c). */
int ir_f16_weights_as_stored(const Graph *g, const IrOp *op);
int64_t ir_tensor_bytes(const IrTensor *t);  /* numel * dtype size, -1 on overflow */
int ir_tensor_is_const(const IrTensor *t);
/* The tensor whose storage `id` shares (following alias_of), or id itself. */
int ir_storage_root(const Graph *g, int id);
/* Byte offset of id's data in its storage root's (the alias_at along the alias_of chain). */
int64_t ir_storage_at(const Graph *g, int id);
/* Value every byte of a variable (state) tensor is reset to, as TFLite does:
 * the zero point for int8, else 0. */
int ir_variable_reset_value(const IrTensor *t);
/* Says constant data `t->data` will not be read again soon (see
 * Graph.drop_pages); no effect on data the compiler allocated. */
void ir_drop_data(const Graph *g, const IrTensor *t);
/* Recomputes IrTensor.producer from the op order (first live writer). */
void ir_set_producers(Graph *g);
/* Formats "[1,96,96,1] i8" into buf. */
const char *ir_tensor_desc(const IrTensor *t, char *buf, size_t n);
static inline IrTensor *ir_t(Graph *g, int id) { return &g->tensors[id]; }
/* Byte offset in the arena where a signature's entry point runs its subgraph:
 * after the root's state, 64-byte aligned (docs/signatures.md). */
static inline int64_t ir_entry_at(const Graph *root) { return (root->state_bytes + 63) / 64 * 64; }
/* The graph of TFLite subgraph k that a control-flow op of g runs (NULL if not imported). */
static inline Graph *ir_subgraph(const Graph *g, int k) {
    const Graph *r = g->root ? g->root : g;
    return k > 0 && k < r->n_sub ? r->sub[k] : NULL;
}

/* Structural verifier: every id in range, every tensor produced at most once,
 * produced before use (ops are in execution order, so no cycles), graph
 * inputs not produced by ops, constants not written, shapes non-negative,
 * element counts and byte sizes fit in 64 bits, constant data size ==
 * numel * dtype size, quantization arrays consistent with the channel dim,
 * element counts within int32 (the kernels count in int32), no constant
 * graph inputs, at least one output.
 * Errors name the op index and tensor name. */
/* ir_verify's checks of one tensor (rank, dimensions, byte size, element count, constant buffer,
 * quantization); the importer applies them to each op's inferred outputs. */
int ir_verify_tensor(const Graph *g, int id, Diag *d);
int ir_verify(const Graph *g, Diag *d);

/* Readable dump (mpcc --dump-ir). */
struct IrWriter;
void ir_dump(const Graph *g, void *file /* FILE* */);

#endif
