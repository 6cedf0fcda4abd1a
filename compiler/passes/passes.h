/* passes.h - the pass pipeline (prefix pass_).
 * A pass is `int pass_NAME(Graph *, Diag *)`. The pipeline runs them in the
 * order of the table in pipeline.c, checks each pass's prerequisite ran
 * first, and runs the verifier after every pass (when verify is on). */
#ifndef MPCC_PASSES_H
#define MPCC_PASSES_H

#include <stdio.h>

#include "diag.h"
#include "ir.h"

typedef struct PipelineOptions {
    int verify;              /* run ir_verify after every pass */
    const char *dump_after;  /* pass name after which to dump the IR, or NULL */
    FILE *dump_to;
} PipelineOptions;

/* Each pass's header comment says what it needs to run after. */
int pass_fold_dead(Graph *g, Diag *d);     /* after: import. Marks ops whose outputs are unused as dead. */
int pass_fold_dequantize(Graph *g, Diag *d); /* after: fold_dead. DEQUANTIZE of a constant (fp16/int8 weights) evaluated once (a large fp16 GEMV keeps them 16-bit). */
int pass_sink(Graph *g, Diag *d);          /* after: fold_dead. Constant-only ops run just before their first consumer. */
int pass_precision(Graph *g, Diag *d);     /* after: sink. Compute dtype per op; --precision int8 quantizes. */
int pass_prepare(Graph *g, Diag *d);       /* after: precision. Computes kernel params (op->params). */
int pass_fold_transpose(Graph *g, Diag *d); /* after: prepare. TRANSPOSE feeding BATCH_MATMUL becomes its strides. */
int pass_fold_pad(Graph *g, Diag *d);      /* after: prepare. Spatial PAD into the convolution's padding. */
int pass_shortcut(Graph *g, Diag *d);      /* after: fold_pad. A residual shortcut's pool/PAD runs before the block's convolution. */
int pass_fuse_act(Graph *g, Diag *d);      /* after: prepare. A standalone f32 RELU* into its producer's clamp. */
int pass_schedule(Graph *g, Diag *d);      /* after: prepare. Kernel class, tiles and packed weights per op (op->sched). */
int pass_fuse_add(Graph *g, Diag *d);      /* after: schedule. Residual ADD into the convolution's epilogue. */
int pass_fuse_dw(Graph *g, Diag *d);       /* after: fuse_add. A 1x1 expansion conv and the depthwise conv reading it, band by band. */
int pass_fuse_prelu(Graph *g, Diag *d);    /* after: fuse_dw. A per-channel PRELU into an f32 convolution's epilogue. */
int pass_fuse_attention(Graph *g, Diag *d); /* after: schedule. BMM-scale-mask-SOFTMAX-BMM into one online-softmax kernel. */
int pass_fuse_layer_norm(Graph *g, Diag *d); /* after: schedule. The converter's LayerNorm chain into one row kernel. */
int pass_half_storage(Graph *g, Diag *d);  /* after: fuse_layer_norm. bf16/fp16: activations between 16-bit-capable kernels stored in 16 bits. */
int pass_patch(Graph *g, Diag *d);         /* after: fuse_dw. With --patch / --max-arena: the peak region's conv chain run in row bands. */
int pass_alias(Graph *g, Diag *d);         /* after: fuse_add. Reshape-like ops share their input's storage. */
int pass_plan_memory(Graph *g, Diag *d);   /* after: alias. Arena offsets for every non-constant tensor. */

/* Helpers of the fusion passes (pass_util.c). pass_count_readers: per tensor,
 * how many live ops read it (arena-allocated). pass_only_reader: the op
 * reading t when it is the only reader and t is no graph output, else -1.
 * pass_producer: t's live producer if it is of `kind`, else -1.
 * pass_add_fused_name: appends to op->fused (the comment's list).
 * pass_transpose_perm: a TRANSPOSE's constant permutation into perm, else -1.
 * pass_pad_amount: entry i of a PAD's constant paddings (int32 or int64). */
int *pass_count_readers(Graph *g);
void pass_add_reader(const Graph *g, int *readers, int t, int op); /* op now reads t */
int pass_only_reader(const Graph *g, const int *readers, int t);
int pass_producer(const Graph *g, int t, OpKind kind);
void pass_add_fused_name(IrOp *op, const char *name);
int pass_transpose_perm(const Graph *g, const IrOp *t, int *perm);
int64_t pass_pad_amount(const IrTensor *pads, int i);
/* --keep-fp32 names op (its TFLite operator index or an output's name); pass_precision.c. */
/* A 16-bit convolution's scratch slot: base (rt_opt_conv_typed_scratch) plus, for bf16 im2col, room for its
 * zero-padded bf16 image (rt_opt_conv_bf16_padded_bytes) at rt_opt_half_pad_at(base). */
struct rt_conv_params;
int64_t pass_conv_half_slot(const struct rt_conv_params *p, int32_t type, int direct, int64_t base);
int pass_keep_fp32(const Graph *g, const IrPrecision *p, const IrOp *op);

/* One line per scheduled op (kernel class, tiles, packed bytes), for --report. */
void sched_report(const Graph *g, FILE *f);
int64_t pass_conv_band_scratch(const Graph *g, IrOp *op); /* pass_schedule.c: pass patch's band copies */

int pass_run_pipeline(Graph *g, const PipelineOptions *o, Diag *d);
/* Comma-separated pass names, for --help and error messages. */
const char *pass_names(void);

/* Memory plan report and its overlap checker (used by tests and --report). */
void plan_report(const Graph *g, FILE *f);
int plan_check_overlaps(const Graph *g, Diag *d);
/* Where the plan peaks: the op where the most bytes are live and the largest
 * buffers live there (at most max_items, by name, shape and size), into out. */
void plan_describe_peak(const Graph *g, int max_items, char *out, size_t cap);
/* A user error naming the largest live buffers at the peak when the planned
 * arena exceeds max_arena bytes (--max-arena). */
int plan_check_budget(const Graph *g, int64_t max_arena, Diag *d);
/* Bytes of arena tensors (and, with with_scratch, the ops' scratch) live at each op into live[g->n_ops]
 * (may be NULL), by the lifetimes pass plan_memory uses; returns the largest, or -1 when out of memory. */
int64_t plan_live_bytes(const Graph *g, int with_scratch, int64_t *live);
/* The planned buffers (for mpcc report): a tensor (op -1) or an op's scratch (tensor -1), its
 * aligned size, arena offset and lifetime [first, last] in op indices. Returns the count and a
 * malloc'd array in *out (the caller frees it), -1 on OOM. */
typedef struct PlanBuffer {
    int tensor, op;
    int64_t size, offset;
    int first, last;
} PlanBuffer;
int plan_buffers(const Graph *g, PlanBuffer **out);

#endif
