/* pass_schedule.c - picks how each op runs and records it on the IR (op->sched).
 *
 * Needs: prepare (kernel params, requantization multipliers).
 * Lowers the ops that carry the MACs to the kernel classes of runtime/rt_opt.h:
 *   FULLY_CONNECTED f32/int8           -> SCHED_GEMM
 *   CONV_2D f32/int8/16-bit, one group  -> SCHED_CONV_GEMM (1x1 stride 1 unpadded: direct;
 *                                          else im2col blocks sized to L1/L2)
 *   DEPTHWISE_CONV_2D f32/int8          -> SCHED_DWCONV
 *   BATCH_MATMUL f32/int8               -> SCHED_BMM (RHS packed per batch at run time)
 *   ADD/SUB/MUL/SQUARED_DIFFERENCE/MAXIMUM/MINIMUM, DIV f32 -> SCHED_BINARY (broadcast as contiguous runs; int8 ADD/SUB
 *                                          requantized in float where all 65536 input pairs
 *                                          prove it exact: sched_float_rq.c)
 *   MEAN f32 over trailing axes         -> SCHED_ROW_MEAN
 *   MEAN f32/int8 over adjacent axes    -> SCHED_MEAN_BLOCKS (global average pooling, channels vectorized)
 *   REDUCE_MAX/REDUCE_MIN f32 over adjacent axes -> SCHED_REDUCE (lanes of running extremes)
 *   CAST complex64 -> float32           -> SCHED_CAST (the real parts, vectorizable)
 *   MAX_POOL_2D, AVERAGE_POOL_2D f32/int8 -> SCHED_POOL (vectorized over channels)
 *   UNIDIRECTIONAL_SEQUENCE_LSTM f32    -> SCHED_LSTM (vectorizable dots, exp-based sigmoid/tanh)
 *   UNIDIRECTIONAL_SEQUENCE_LSTM int8,  -> SCHED_LSTM (input products hoisted over all steps, vector
 *     no peephole/layer norm              dots, fixed-point sigmoid/tanh on 8 lanes; bit-exact)
 *   GELU, LOGISTIC, TANH f32            -> SCHED_ACT (vectorizable erfc/exp)
 *   SELECT/SELECT_V2/LOGICAL_AND/OR     -> SCHED_SELECT (collapsed broadcast runs, any element size)
 *   SOFTMAX f32, int8 -> int8           -> SCHED_SOFTMAX (vectorizable exp; int8: the reference's fixed point)
 *   TRANSPOSE, SLICE, STRIDED_SLICE, BROADCAST_TO, DEPTH_TO_SPACE,
 *   SPACE_TO_DEPTH                      -> SCHED_COPY (memcpy per contiguous run)
 *   GATHER with compile-time indices    -> SCHED_GATHER_ROWS (one memcpy per row; an index op of
 *     that pick affine rows (frames)      constants only is evaluated here: sched_gather.c)
 *   CONCATENATION int8 that rescales    -> SCHED_CONCAT (rounding without libm, vectorizable)
 *   CONCATENATION that only copies      -> SCHED_CONCAT (rt_opt_copy per part)
 *   GELU, LOGISTIC, TANH, RELU*, LEAKY_RELU, HARD_SWISH int8 -> SCHED_LUT (the 256-entry table, 64 lanes a step)
 *   RESIZE_BILINEAR f32/int8            -> SCHED_RESIZE (x-interpolated source rows made once each in
 *                                          scratch, blended per output row; int8 bit-exact)
 *   RESIZE_NEAREST_NEIGHBOR             -> SCHED_RESIZE (repeated rows copied whole, a column table)
 *   FULLY_CONNECTED hybrid (f32 in/out, -> SCHED_FC_HYBRID (weight rows streamed in place, exact int32
 *     int8 weights)                       dots; bit-identical to the reference)
 *   STABLEHLO_COMPOSITE odml.scaled_    -> SCHED_SDPA (one pass over the KV cache rows the mask leaves,
 *     dot_product_attention (f32)         instead of calling the decomposition: composite_sdpa)
 *   STABLEHLO_COMPOSITE odml.rms_norm   -> SCHED_RMS_NORM (one row kernel, the decomposition's float
 *     (f32, composite_rms_norm)            operations: bit-identical to calling it)
 *   TRANSPOSE_CONV f32/int8             -> SCHED_TCONV (f32: GEMM to per-tap columns, added onto the
 *                                          output; int8: filter [fy][fx][ic][oc], exact int32 sums)
 * and packs their constant weights once, here, into the micro-kernel's panel
 * layout (new constant tensors the emitters write instead of the originals),
 * with bias (int8: zero point and +128 corrections folded in) and per-column
 * requantization arrays padded to whole panels. Everything else keeps its
 * reference kernel (SCHED_REF). At opt level 0 nothing is scheduled.
 * Packing is deterministic: same model, same bytes.
 * Cortex-M ISAs (--isa armv6m..armv81m): scratch only where it fits under the op-by-op bound of the
 * arena (the tensors live at the worst op plus the reference kernels' own scratch: -O0's arena);
 * blocks shrink to fit, and an op whose smallest block does not fit keeps its reference kernel. */
#include <stdlib.h>
#include <string.h>

#include "control_flow_common.h"
#include "ops.h"
#include "passes.h"
#include "shape_common.h"
#include "sched_float_rq.h"
#include "sched_gather.h"
#include "sched_pack.h"
#include "cortex_m/helium/rt_mve.h"

#define NR RT_OPT_NR
/* Row multiples of the GEMM blocks per ISA: AVX-512 8 (f32 and int8 VNNI 8 x 32 tiles); AVX2 5 for
 * f32 and 2 for int8, whose kernels take any row count with exact tails (f32 6 x 16 over row
 * pointers, rt_opt_gemm_f32_avx2.c; int8 6 x 8, rt_opt_gemm_s8_avx2.c); Arm64 int8 4 x 16; plain C
 * 4 x 16. Generic code takes the widest path its build targets, so its row blocks are multiples of
 * every tile. */
static int tile_rows(const Graph *g, int s8) {
    switch (g->isa) {
    case IR_ISA_AVX512: return 8;
    case IR_ISA_AVX2: return s8 ? 2 : 5;
    case IR_ISA_NEON:
    case IR_ISA_ARMV8A:
    case IR_ISA_ARMV82A_DOT: return s8 ? 4 : 5; /* int8: runtime/arm64's 4 x 16 tiles */
    default: return 8;
    }
}

static int block_multiple(const Graph *g, int s8) {
    return g->isa == IR_ISA_GENERIC ? (s8 ? 8 : 40) : tile_rows(g, s8);
}
#define IM2COL_BUDGET (64 * 1024) /* bytes of patch rows per block, unless g->scratch_budget says */
#define RUNS_ROWS_BUDGET (16 * 1024) /* the same where VNNI builds read the patches in place (sched.runs) */

static int new_const(Graph *g, int like, const char *suffix, IrDType dt, int64_t n, void **data) {
    const char *base = g->tensors[like].name;
    int64_t dims[1] = {n};
    int id = ir_add_tensor(g, ir_sprintf(g, "%s%s", base, suffix), dt, 1, dims);
    if (id < 0) return -1;
    size_t bytes = (size_t)n * ir_dtype_size(dt);
    *data = ir_alloc(g, bytes ? bytes : 1);
    if (!*data) return -1;
    g->tensors[id].data = *data;
    g->tensors[id].data_size = bytes;
    return id;
}

/* Cortex-M ISAs: bytes of scratch each op may take without raising the arena above the op-by-op
 * bound (the tensors live at the worst op), or NULL: no such limit. Ops whose kernel needs more run
 * the reference kernel, which needs none (microcontrollers count every byte of RAM). */
static const int64_t *mcu_room; /* set by pass_schedule for the duration of one graph's scheduling */

static int fits_room(int op_index, int64_t bytes) {
    return !mcu_room || (bytes + 15) / 16 * 16 <= mcu_room[op_index];
}

/* Rows of A handled per block when they must be copied (im2col, int8
 * widening): as many as fit the budget, a multiple of the micro-tile rows. */
static int block_rows(const Graph *g, int64_t m, int64_t row_bytes, int mr) {
    int64_t budget = g->scratch_budget > 0 ? g->scratch_budget : IM2COL_BUDGET;
    int64_t rows = (int64_t)(budget / (row_bytes > 0 ? row_bytes : 1)) / mr * mr;
    if (rows < mr) rows = mr;
    if (rows > (m + mr - 1) / mr * mr) rows = (m + mr - 1) / mr * mr;
    return (int)rows;
}

/* Pack weights/bias of a GEMM-lowered op (FC or conv): W is [n][k]. rows (int8 on Helium,
 * runtime/cortex_m/helium): W in groups of 4 channels of 16-byte chunks (sched_pack_mve_s8, N padded
 * to 4, K to 16; nr 1), and the bias takes in_offset x the sum of each row (the kernel sums
 * int8 x int8; the panels' kernels sum a + 128). */
static int pack_gemm(Graph *g, int op_index, int32_t n, int32_t k, int32_t in_offset, const int32_t *mult,
                     const int32_t *shift, int per_channel, int rows, Diag *d) {
    IrOp *op = &g->ops[op_index];
    int wid = op->in[1], bid = op->n_in > 2 ? op->in[2] : -1;
    IrDType dt = g->tensors[op->in[0]].dtype, wdt = g->tensors[wid].dtype;
    int half = wdt == IR_BF16 || wdt == IR_F16;
    int32_t np = rows ? (n + 3) / 4 * 4 : (n + NR - 1) / NR * NR; /* rows: Helium's groups of 4 */
    void *pw, *pb;
    int64_t wn = half              ? (int64_t)np * ((k + 1) / 2 * 2)
                 : dt == IR_F32    ? (int64_t)np * k
                 : rows            ? (int64_t)np * ((k + 15) / 16 * 16)
                                   : (int64_t)np * ((k + 3) / 4 * 4);
    int pw_id = new_const(g, wid, ".packed", half ? wdt : dt == IR_F32 ? IR_F32 : IR_I8, wn, &pw);
    int pb_id = pw_id < 0 ? -1 : new_const(g, wid, ".packed_bias", dt == IR_F32 ? IR_F32 : IR_I32, np, &pb);
    if (pb_id < 0) return diag_internal(d, "out of memory");
    op = &g->ops[op_index]; /* ir_add_tensor may have moved the tensor array, not ops */
    const IrTensor *w = &g->tensors[wid], *b = bid >= 0 ? &g->tensors[bid] : NULL;
    if (dt == IR_F32) {
        if (half) sched_pack_half((const uint16_t *)w->data, n, k, pw);
        else sched_pack_f32((const float *)w->data, n, k, pw);
        float *bias = pb;
        for (int32_t c = 0; c < np; c++) bias[c] = (b && c < n) ? ((const float *)b->data)[c] : 0.0f;
    } else {
        /* AArch64 (runtime/arm64) sums int8 x int8 too: the bias takes in_offset x the column sums, the
         * 128 x colsum(w) that its tiles had added at run time included (--isa neon keeps the panels'
         * a + 128 form: it builds for x86's portable kernel too) */
        IrIsa isa = (g->root ? g->root : g)->isa;
        int a64 = !rows && (isa == IR_ISA_ARMV8A || isa == IR_ISA_ARMV82A_DOT);
        if (rows) sched_pack_mve_s8((const int8_t *)w->data, n, k, pw);
        else sched_pack_s8((const int8_t *)w->data, n, k, pw);
        sched_fold_bias_s8((const int8_t *)w->data, b ? (const int32_t *)b->data : NULL,
                           in_offset + (rows || a64 ? 128 : 0), n, k, np, pb);
        op->sched.a64_init = a64;
        int32_t *m = ir_alloc(g, sizeof(int32_t) * (size_t)np), *s = ir_alloc(g, sizeof(int32_t) * (size_t)np);
        if (!m || !s) return diag_internal(d, "out of memory");
        for (int32_t c = 0; c < np; c++) {
            int32_t src = per_channel ? (c < n ? c : n - 1) : 0;
            m[c] = mult ? mult[src] : 0; /* none: float results (rt_fully_connected_i8_f32) */
            s[c] = shift ? shift[src] : 0;
        }
        op->sched.mult = m;
        op->sched.shift = s;
        const float *fs = op->kind == OP_FULLY_CONNECTED ? ((const rt_fc_params *)op->params)->fscale
                          : op->kind == OP_CONV_2D     ? ((const rt_conv_params *)op->params)->fscale
                                                       : NULL;
        if (fs) {
            float *f = ir_alloc(g, sizeof(float) * (size_t)np);
            if (!f) return diag_internal(d, "out of memory");
            for (int32_t c = 0; c < np; c++) f[c] = fs[per_channel ? (c < n ? c : n - 1) : 0];
            op->sched.fscale = f;
        }
    }
    ir_drop_data(g, w); /* the packed copy replaces it: let a mapped model file's pages go */
    op->sched.packed_w = pw_id;
    op->sched.packed_b = pb_id;
    op->sched.nr = rows ? 1 : NR;
    op->sched.mr = tile_rows(g, dt != IR_F32);
    op->sched.n_padded = np;
    return 0;
}

static int const_or_absent(const Graph *g, const IrOp *op, int k) {
    return k >= op->n_in || op->in[k] < 0 || g->tensors[op->in[k]].data != NULL;
}

static int is_f32_or_s8(const Graph *g, const IrOp *op) {
    IrDType in = g->tensors[op->in[0]].dtype, w = g->tensors[op->in[1]].dtype;
    return (in == IR_F32 && w == IR_F32) || (in == IR_I8 && w == IR_I8);
}

/* FULLY_CONNECTED or CONV_2D with bf16/f16 weights (--precision bf16/fp16). */
static int is_half(const Graph *g, const IrOp *op) {
    IrDType in = g->tensors[op->in[0]].dtype, w = g->tensors[op->in[1]].dtype;
    return in == IR_F32 && (w == IR_BF16 || w == IR_F16);
}

static int32_t half_type(const Graph *g, const IrOp *op) {
    return g->tensors[op->in[1]].dtype == IR_BF16 ? RT_BF16 : RT_F16;
}

/* --isa generic / avx2 (and armv8a, armv8.2a+dotprod: rt_opt_gemm16_a64.c) plan 16-bit weights with f32
 * activations for AVX2's (AArch64's) kernels, which take them as they are: their scratch is f32's (none for
 * FULLY_CONNECTED, the im2col block for CONV_2D), and the paths that need more (builds without AVX2,
 * AVX-512, AMX) fall back to one that fits (rt_opt_fc_half). */
static int half_f32_room(const Graph *g) {
    IrIsa isa = (g->root ? g->root : g)->isa;
    return isa == IR_ISA_GENERIC || isa == IR_ISA_AVX2 || isa == IR_ISA_ARMV8A || isa == IR_ISA_ARMV82A_DOT;
}

static int schedule_fc(Graph *g, int i, Diag *d) {
    const IrOp *op = &g->ops[i];
    const rt_fc_params *p = op->params;
    /* Block-wise weights run the reference kernel unless 4-bit, in blocks of a multiple of 8, with fp16 scales
     * (FLOAT32 ones need not be): what sched_pack_int4_blocks lays out. */
    if (p->block && (!g->tensors[op->in[1]].int4 || p->block % 8 || !const_or_absent(g, op, 1) ||
                     sched_pack_int4_blocks((const int8_t *)g->tensors[op->in[1]].data, g->tensors[op->in[1]].q.scale,
                                            p->out_depth, p->in_depth, p->block, NULL)))
        return 0;
    if (g->tensors[op->in[0]].dtype == IR_F32 && g->tensors[op->in[1]].dtype == IR_I8 && !mcu_room &&
        const_or_absent(g, op, 1) && p->batches > 0 && p->out_depth > 0 && p->in_depth > 0) {
        IrOp *o = &g->ops[i];
        o->sched.kind = SCHED_FC_HYBRID;
        o->sched.slots = 1;
        if (p->block) { /* block-wise int4: groups of 8 rows with their fp16 block scales (rt_opt_fc_hybrid_blk.c) */
            void *pw;
            int pw_id = new_const(g, op->in[1], ".int4b", IR_U8,
                                  sched_pack_int4_blocks_bytes(p->out_depth, p->in_depth, p->block), &pw);
            if (pw_id < 0) return diag_internal(d, "out of memory");
            o = &g->ops[i];
            sched_pack_int4_blocks((const int8_t *)g->tensors[o->in[1]].data, g->tensors[o->in[1]].q.scale,
                                   p->out_depth, p->in_depth, p->block, pw);
            o->sched.packed_w = pw_id;
            /* one scratch whatever the threads: the rows quantized once, the output groups split
             * (rt_opt_fc_hybrid_w4_par) */
            o->sched.slots = g->threads > 1 ? g->threads : 1;
            o->scratch_bytes = rt_opt_fc_hybrid_w4b_scratch(p->batches, p->in_depth, p->block);
            return 0;
        }
        /* int8 weights: one scratch slot per thread (rt_opt_fc_hybrid_par) */
        o->sched.slots = g->threads > 1 ? g->threads : 1;
        o->scratch_bytes = rt_opt_fc_hybrid_slot_bytes(p->batches, p->in_depth, p->out_depth) * (size_t)o->sched.slots;
        if (g->tensors[op->in[1]].int4) { /* kept 4-bit: half the bytes of int8 weights to stream */
            void *pw;
            int64_t kp = ((int64_t)p->in_depth + 63) / 64 * 64;
            int pw_id = new_const(g, op->in[1], ".int4", IR_U8, (int64_t)p->out_depth * kp / 2, &pw);
            if (pw_id < 0) return diag_internal(d, "out of memory");
            o = &g->ops[i];
            sched_pack_int4((const int8_t *)g->tensors[o->in[1]].data, p->out_depth, p->in_depth, pw);
            o->sched.packed_w = pw_id;
            o->scratch_bytes = rt_opt_fc_hybrid_w4_slot_bytes(p->batches, p->in_depth, p->out_depth) *
                               (size_t)o->sched.slots; /* one slot per thread (rt_opt_fc_hybrid_w4_par) */
        }
        return 0;
    }
    if (!(is_f32_or_s8(g, op) || is_half(g, op)) || !const_or_absent(g, op, 1) || !const_or_absent(g, op, 2)) return 0;
    if (g->tensors[op->in[0]].dtype == IR_I8 && p->w_offset != 0) return 0;
    if (p->batches <= 0 || p->out_depth <= 0 || p->in_depth <= 0) return 0;
    if (mcu_room && (is_half(g, op) || (g->tensors[op->in[0]].dtype == IR_I8 &&
                                        !fits_room(i, (int64_t)block_multiple(g, 1) * ((p->in_depth + 3) / 4 * 4)))))
        return 0;
    int rc = pack_gemm(g, i, p->out_depth, p->in_depth, p->in_offset, p->mult, p->shift, p->per_channel, 0, d);
    if (rc) return rc;
    IrOp *o = &g->ops[i];
    o->sched.kind = SCHED_GEMM;
    if (is_half(g, o)) {
        o->sched.slots = 1; /* the 16-bit kernel runs on the calling thread */
        o->scratch_bytes = half_f32_room(g) ? 0
                                            : (size_t)rt_opt_fc_half_scratch(half_type(g, o), p->batches,
                                                                             p->out_depth, p->in_depth);
    } else if (g->tensors[o->in[0]].dtype == IR_I8) {
        int64_t row_bytes = (int64_t)(p->in_depth + 3) / 4 * 4;
        o->sched.rows = block_rows(g, p->batches, row_bytes, block_multiple(g, 1));
        while (!fits_room(i, (int64_t)o->sched.rows * row_bytes) && o->sched.rows > block_multiple(g, 1))
            o->sched.rows -= block_multiple(g, 1);
        o->scratch_bytes = (size_t)o->sched.rows * (size_t)row_bytes * (size_t)o->sched.slots;
    }
    return 0;
}

/* Scratch of one thread's copy for a conv scheduled as SCHED_CONV_GEMM (int8 or f32) with blocks of rows. */
static int64_t conv_slot_bytes(const Graph *g, const IrOp *op, int32_t k, int32_t rows) {
    const rt_conv_params *p = op->params;
    int s8 = g->tensors[op->in[0]].dtype == IR_I8;
    int direct = p->filter_h == 1 && p->filter_w == 1 && p->stride_h == 1 && p->stride_w == 1 && p->pad_h == 0 &&
                 p->pad_w == 0 && p->out_h == p->in_h && p->out_w == p->in_w;
    if (!s8 && direct) return 0;
    int64_t row_bytes = s8 ? (int64_t)(k + 3) / 4 * 4 : (int64_t)k * 4;
    return s8 ? (int64_t)rows * row_bytes +
                    (direct ? 0
                            : rt_opt_conv_s8_padded_bytes(p->in_h, p->in_w, p->in_c, p->out_h, p->out_w, p->filter_h,
                                                          p->filter_w, p->stride_h, p->stride_w, p->pad_h, p->pad_w,
                                                          p->dil_h, p->dil_w))
              : rt_opt_conv_f32_slot_bytes(rows, k, p->filter_h, p->filter_w, p->in_c);
}

/* A copy of a SCHED_CONV_GEMM convolution (int8 or f32) whose params pass patch cut to a band of rows:
 * its blocks cut to the band's output pixels; returns its scratch bytes. */
int64_t pass_conv_band_scratch(const Graph *g, IrOp *op) {
    const rt_conv_params *p = op->params;
    int s8 = g->tensors[op->in[0]].dtype == IR_I8;
    int64_t mr = block_multiple(g, s8), m = ((int64_t)p->out_h * p->out_w + mr - 1) / mr * mr;
    if (op->sched.rows > m) op->sched.rows = (int32_t)m;
    return conv_slot_bytes(g, op, p->filter_h * p->filter_w * p->in_c, op->sched.rows) * op->sched.slots;
}

/* A 1x1 stride-1 int8 convolution (TFLite's requantization) on a Cortex-M ISA with the DSP
 * extension: runtime/cortex_m's kernel reads its rows in place and needs no scratch. */
static int cm_direct_s8(const Graph *g, const IrOp *op) {
    const rt_conv_params *p = op->params;
    IrIsa isa = (g->root ? g->root : g)->isa;
    return (isa == IR_ISA_ARMV7EM || isa == IR_ISA_ARMV8M || isa == IR_ISA_ARMV81M) &&
           g->tensors[op->in[0]].dtype == IR_I8 && !p->fscale && p->filter_h == 1 && p->filter_w == 1 &&
           p->stride_h == 1 && p->stride_w == 1 && p->pad_h == 0 && p->pad_w == 0 && p->out_h == p->in_h &&
           p->out_w == p->in_w;
}

static int schedule_conv(Graph *g, int i, Diag *d) {
    const IrOp *op = &g->ops[i];
    const rt_conv_params *p = op->params;
    if (!(is_f32_or_s8(g, op) || is_half(g, op)) || !const_or_absent(g, op, 1) || !const_or_absent(g, op, 2))
        return 0;
    if (p->filter_c != p->in_c || p->out_h <= 0 || p->out_w <= 0) return 0;
    int32_t k = p->filter_h * p->filter_w * p->in_c;
    int in_place = mcu_room && cm_direct_s8(g, op);
    if (mcu_room && !in_place &&
        (is_half(g, op) || !fits_room(i, conv_slot_bytes(g, op, k, block_multiple(g, g->tensors[op->in[0]].dtype == IR_I8)))))
        return 0;
    /* Helium (--isa armv81m): runtime/cortex_m/helium's kernel where it takes the op, on W's rows */
    int mve = in_place && (g->root ? g->root : g)->isa == IR_ISA_ARMV81M && rt_mve_conv_ok(p->shift, p->out_c);
    int rc = pack_gemm(g, i, p->out_c, k, p->in_offset, p->mult, p->shift, 1, mve, d);
    if (rc) return rc;
    IrOp *o = &g->ops[i];
    o->sched.kind = SCHED_CONV_GEMM;
    o->sched.direct = p->filter_h == 1 && p->filter_w == 1 && p->stride_h == 1 && p->stride_w == 1 &&
                      p->pad_h == 0 && p->pad_w == 0 && p->out_h == p->in_h && p->out_w == p->in_w;
    int s8 = g->tensors[o->in[0]].dtype == IR_I8;
    if (is_half(g, o)) {
        /* Blocks of whole 16-row tiles within the im2col budget (f32 rows), also for im2col: the AMX path
         * takes them a tile at a time, the vdpbf16ps path's row table of a bf16 image lives in the block's
         * room (ResNet bf16: 272 or 80 rows instead of 16, 0.109 -> 0.105 ms, arena 184,384 -> 191,552).
         * Direct 1x1: fp16's at least as tall as its AMX path needs (the weights are split once per call). */
        int64_t m = (int64_t)p->out_h * p->out_w;
        o->sched.rows = block_rows(g, m, (int64_t)k * 4, half_f32_room(g) ? block_multiple(g, 0) : 16);
        if (o->sched.direct && half_type(g, o) == RT_F16 && !half_f32_room(g) && o->sched.rows < RT_OPT_F16_AMX_MIN_ROWS)
            o->sched.rows = (int32_t)(m < RT_OPT_F16_AMX_MIN_ROWS ? (m + 15) / 16 * 16 : RT_OPT_F16_AMX_MIN_ROWS);
        int64_t slot = rt_opt_conv_half_scratch(half_type(g, o), o->sched.direct, (int32_t)(m * p->batches),
                                                o->sched.rows, p->out_c, k);
        if (half_f32_room(g)) /* f32's: the im2col block with AVX2's row table (none for direct) */
            slot = o->sched.direct ? 0 : rt_opt_conv_f32_slot_bytes(o->sched.rows, k, p->filter_h, p->filter_w, p->in_c);
        else
            slot = pass_conv_half_slot(p, half_type(g, o), o->sched.direct, slot);
        o->scratch_bytes = (size_t)slot * (size_t)o->sched.slots;
    } else if (!o->sched.direct || s8) {
        int64_t row_bytes = s8 ? (int64_t)(k + 3) / 4 * 4 : (int64_t)k * 4;
        o->sched.rows = block_rows(g, (int64_t)p->out_h * p->out_w, row_bytes, block_multiple(g, s8));
        o->sched.runs = s8 && !o->sched.direct && rt_opt_conv_s8_runs(p->filter_h, p->filter_w, p->in_c, p->dil_h, p->dil_w);
        if (o->sched.runs) { /* im2col only in builds without VNNI: blocks of at most RUNS_ROWS_BUDGET */
            int32_t mr = block_multiple(g, s8), cap = (int32_t)(RUNS_ROWS_BUDGET / row_bytes) / mr * mr;
            if (o->sched.rows > cap) o->sched.rows = cap > mr ? cap : mr;
        }
        while (!fits_room(i, conv_slot_bytes(g, o, k, o->sched.rows)) && o->sched.rows > block_multiple(g, s8))
            o->sched.rows -= block_multiple(g, s8);
        if (in_place) o->sched.rows = 0; /* rt_cm_conv_s8 reads the rows in place */
        o->scratch_bytes = (size_t)conv_slot_bytes(g, o, k, o->sched.rows) * (size_t)o->sched.slots;
    }
    return 0;
}

static int schedule_dwconv(Graph *g, int i) {
    IrOp *op = &g->ops[i];
    const rt_dwconv_params *p = op->params;
    IrDType in = g->tensors[op->in[0]].dtype, w = g->tensors[op->in[1]].dtype;
    if (!((in == IR_F32 && w == IR_F32) || (in == IR_I8 && w == IR_I8)) || p->depth_mult < 1) return 0;
    op->sched.kind = SCHED_DWCONV;
    /* int8 on a small image: scratch for a copy inside its padding (the x86 kernels' interior path,
     * rt_opt_dwconv.c; optional: with --max-arena's smaller scratch budgets, none, and the edge pixels take
     * the slower path). The AArch64 kernels never copy: no scratch for --isa neon / armv8a / armv8.2a. */
    IrIsa isa = (g->root ? g->root : g)->isa;
    int a64 = isa == IR_ISA_NEON || isa == IR_ISA_ARMV8A || isa == IR_ISA_ARMV82A_DOT;
    if (in == IR_I8 && !a64 && g->scratch_budget == 0 && fits_room(i, (int64_t)rt_opt_dwconv_s8_scratch_bytes(p)))
        op->scratch_bytes = (size_t)rt_opt_dwconv_s8_scratch_bytes(p);
    return 0;
}

static int schedule_bmm(Graph *g, int i) {
    IrOp *op = &g->ops[i];
    const rt_bmm_params *p = op->params;
    IrDType l = g->tensors[op->in[0]].dtype, r = g->tensors[op->in[1]].dtype;
    if (!((l == IR_F32 && r == IR_F32) || (l == IR_I8 && r == IR_I8)) || p->m <= 0 || p->n <= 0 || p->k <= 0)
        return 0;
    if (!fits_room(i, (int64_t)rt_opt_bmm_scratch_bytes(p, l == IR_I8))) return 0;
    op->sched.kind = SCHED_BMM;
    op->sched.mr = tile_rows(g, l != IR_F32);
    op->sched.nr = NR;
    op->scratch_bytes = rt_opt_bmm_scratch_bytes(p, l == IR_I8);
    return 0;
}

static int schedule_binary(Graph *g, int i) {
    IrOp *op = &g->ops[i];
    const rt_binary_params *p = op->params;
    IrDType a = g->tensors[op->in[0]].dtype, b = g->tensors[op->in[1]].dtype, o = g->tensors[op->out[0]].dtype;
    if (a != b || a != o || (a != IR_F32 && a != IR_I8) || p->pot) return 0;
    if (op->kind == OP_DIV && (a != IR_F32 || (g->root ? g->root : g)->target_cuda)) return 0; /* f32 only */
    op->sched.kind = SCHED_BINARY;
    if (a == IR_I8 && (op->kind == OP_ADD || op->kind == OP_SUB))
        sched_float_rq(op->params, op->kind == OP_ADD ? 1 : -1, &op->sched.near_ties);
    return 0;
}

/* MEAN reducing adjacent axes: f32 over trailing axes (every kept axis of
 * size > 1 before every reduced one) is a row mean; f32 or int8 over other
 * adjacent axes (NHWC global average pooling) sums whole rows of the kept
 * inner axis. */
static int schedule_mean(Graph *g, int i) {
    IrOp *op = &g->ops[i];
    const rt_reduce_params *p = op->params;
    int64_t outer, reduced, inner;
    IrDType a = g->tensors[op->in[0]].dtype;
    if ((a != IR_I8 && a != IR_F32) || g->tensors[op->out[0]].dtype != a || !rt_opt_reduce_blocks(p, &outer, &reduced, &inner))
        return 0;
    op->sched.kind = a == IR_F32 && inner == 1 ? SCHED_ROW_MEAN : SCHED_MEAN_BLOCKS;
    return 0;
}

/* TRANSPOSE_CONV f32/int8 with a constant filter [oc][fh][fw][ic]: f32 repacked as the GEMM matrix
 * [(fy, fx, oc)][ic] in panels (plus a zero bias of the padded width), `rows` input pixels per block;
 * int8 repacked [fy][fx][ic][oc] (runtime/rt_opt_tconv.c). */
static int schedule_tconv(Graph *g, int i, Diag *d) {
    const IrOp *op = &g->ops[i];
    const rt_tconv_params *p = op->params;
    IrDType dt = g->tensors[op->in[2]].dtype, wdt = g->tensors[op->in[1]].dtype;
    if (!((dt == IR_F32 && wdt == IR_F32) || (dt == IR_I8 && wdt == IR_I8)) || !const_or_absent(g, op, 1) ||
        g->tensors[op->out[0]].dtype != dt || p->in_c <= 0 || p->out_c <= 0 || p->filter_h <= 0 || p->filter_w <= 0)
        return 0;
    IrIsa isa = (g->root ? g->root : g)->isa;
    int arm = isa == IR_ISA_NEON || isa == IR_ISA_ARMV8A || isa == IR_ISA_ARMV82A_DOT || ir_isa_is_mcu(isa);
    int s8 = dt == IR_I8 ? (arm ? 1 : 2) : 0, wid = op->in[1]; /* 2: x86's widened-filter scratch */
    int32_t oc = p->out_c, ic = p->in_c, taps = p->filter_h * p->filter_w;
    int32_t np = (int32_t)rt_opt_tconv_columns(p), rows = 0;
    if (!s8) {
        int64_t pixels = (int64_t)p->batches * p->in_h * p->in_w;
        rows = block_rows(g, pixels, (int64_t)np * 4, tile_rows(g, 0));
        while (!fits_room(i, rt_opt_tconv_scratch_bytes(p, rows, 0)) && rows > tile_rows(g, 0)) rows -= tile_rows(g, 0);
    }
    if (!fits_room(i, rt_opt_tconv_scratch_bytes(p, rows, s8))) return 0;
    void *pw, *pz = NULL;
    int pw_id = new_const(g, wid, ".packed", dt, s8 ? (int64_t)taps * oc * ic : (int64_t)np * ic, &pw);
    int pz_id = s8 || pw_id < 0 ? -1 : new_const(g, wid, ".zero_bias", IR_F32, np, &pz);
    if (pw_id < 0 || (!s8 && pz_id < 0)) return diag_internal(d, "out of memory");
    const IrTensor *w = &g->tensors[wid];
    if (s8) {
        sched_pack_tconv_s8((const int8_t *)w->data, oc, taps, ic, pw);
    } else {
        sched_pack_tconv_f32((const float *)w->data, oc, taps, ic, pw);
        memset(pz, 0, sizeof(float) * (size_t)np);
    }
    ir_drop_data(g, w);
    IrOp *o = &g->ops[i];
    o->sched.kind = SCHED_TCONV;
    o->sched.packed_w = pw_id;
    o->sched.packed_b = pz_id;
    o->sched.rows = rows;
    o->sched.n_padded = np;
    o->scratch_bytes = (size_t)rt_opt_tconv_scratch_bytes(p, rows, s8);
    return 0;
}

static int schedule_ops(Graph *g, Diag *d);

/* f32: SCHED_LSTM always; int8 without peephole (input 10) and layer norm (input 21), where its
 * scratch (the hoisted input products of every step) fits. */
static void schedule_lstm(Graph *g, int i) {
    IrOp *op = &g->ops[i];
    IrDType a = g->tensors[op->in[0]].dtype;
    if (a == IR_F32) {
        op->sched.kind = SCHED_LSTM;
        return;
    }
    if (a != IR_I8 || op_cin(g, op, 10) || op_cin(g, op, 21)) return;
    int64_t bytes = rt_opt_lstm_i8_scratch_bytes(op->params);
    if (!fits_room(i, bytes)) return;
    op->sched.kind = SCHED_LSTM;
    op->scratch_bytes = (size_t)bytes;
}

int pass_schedule(Graph *g, Diag *d) {
    if (g->opt_level < 1) return 0;
    if (!ir_isa_is_mcu((g->root ? g->root : g)->isa)) return schedule_ops(g, d);
    int64_t *room = malloc(sizeof(int64_t) * ((size_t)g->n_ops + 1));
    int64_t bound = room ? plan_live_bytes(g, 0, room) : -1;
    if (bound < 0) {
        free(room);
        return diag_internal(d, "out of memory");
    }
    /* The reference kernels' own scratch (pass prepare's, e.g. SVDF's) is part of the bound: -O0's arena. */
    for (int i = 0; i < g->n_ops; i++)
        if (!g->ops[i].dead && room[i] + (int64_t)(g->ops[i].scratch_bytes + 15) / 16 * 16 > bound)
            bound = room[i] + (int64_t)(g->ops[i].scratch_bytes + 15) / 16 * 16;
    for (int i = 0; i < g->n_ops; i++) room[i] = bound - room[i];
    mcu_room = room;
    int rc = schedule_ops(g, d);
    mcu_room = NULL;
    free(room);
    return rc;
}

/* litert-torch's attention composite: one kernel on the KV cache instead of its decomposition's call
 * (not for --target cuda, which calls the decomposition: docs/cuda-control-flow.md). */
static int schedule_sdpa(Graph *g, int i, Diag *d) {
    rt_opt_sdpa_params p;
    if (mcu_room || (g->root ? g->root : g)->target_cuda || !composite_sdpa(g, &g->ops[i], &p)) return 0;
    rt_opt_sdpa_params *k = op_new_params(g, rt_opt_sdpa_params);
    if (!k) return diag_internal(d, "out of memory");
    *k = p;
    g->ops[i].sched.kind = SCHED_SDPA;
    g->ops[i].sched.kparams = k;
    k->slots = g->threads > 1 ? g->threads : 1; /* one scratch slot per thread */
    g->ops[i].sched.slots = k->slots;
    g->ops[i].scratch_bytes = rt_opt_sdpa_scratch(k) * (size_t)k->slots;
    return 0;
}

/* litert-torch's RMSNorm composite: one row kernel instead of its decomposition's call, the same bits
 * (not for --target cuda, which calls the decomposition). No scratch. */
static int schedule_rms_norm(Graph *g, int i, Diag *d) {
    rt_rms_norm_params p;
    if ((g->root ? g->root : g)->target_cuda || !composite_rms_norm(g, &g->ops[i], &p)) return 0;
    rt_rms_norm_params *k = op_new_params(g, rt_rms_norm_params);
    if (!k) return diag_internal(d, "out of memory");
    *k = p;
    g->ops[i].sched.kind = SCHED_RMS_NORM;
    g->ops[i].sched.kparams = k;
    g->ops[i].sched.slots = 1;
    g->ops[i].scratch_bytes = 0;
    return 0;
}

static int schedule_ops(Graph *g, Diag *d) {
    for (int i = 0; i < g->n_ops; i++) {
        IrOp *op = &g->ops[i];
        op->sched.packed_w = op->sched.packed_b = op->sched.post_add = op->sched.post_other = op->sched.post_dw = -1;
        op->sched.post_alpha = op->sched.post_hswish = op->sched.post_dw_hswish = 0;
        /* Threaded kernels get one scratch copy per thread. */
        op->sched.slots = g->threads > 1 ? g->threads : 1;
        if (op->dead || op->elided || !op->params) continue;
        int rc = 0;
        switch (op->kind) {
        case OP_FULLY_CONNECTED: rc = schedule_fc(g, i, d); break;
        case OP_STABLEHLO_COMPOSITE:
            rc = schedule_sdpa(g, i, d);
            if (!rc && op->sched.kind != SCHED_SDPA) rc = schedule_rms_norm(g, i, d);
            break;
        case OP_CONV_2D: rc = schedule_conv(g, i, d); break;
        case OP_DEPTHWISE_CONV_2D: rc = schedule_dwconv(g, i); break;
        case OP_BATCH_MATMUL: rc = schedule_bmm(g, i); break;
        case OP_ADD:
        case OP_SUB:
        case OP_MUL:
        case OP_SQUARED_DIFFERENCE:
        case OP_MAXIMUM:
        case OP_MINIMUM:
        case OP_DIV: rc = schedule_binary(g, i); break;
        case OP_SELECT:
        case OP_SELECT_V2:
        case OP_LOGICAL_AND:
        case OP_LOGICAL_OR:
            /* (--target cuda keeps them as they are: its emitter classifies them by op) */
            if (!(g->root ? g->root : g)->target_cuda) op->sched.kind = SCHED_SELECT;
            break;
        case OP_MEAN: rc = schedule_mean(g, i); break;
        case OP_REDUCE_MAX:
        case OP_REDUCE_MIN: {
            int64_t outer, reduced, inner;
            if (!(g->root ? g->root : g)->target_cuda && g->tensors[op->in[0]].dtype == IR_F32 &&
                g->tensors[op->out[0]].dtype == IR_F32 && rt_opt_reduce_blocks(op->params, &outer, &reduced, &inner))
                op->sched.kind = SCHED_REDUCE;
            break;
        }
        case OP_CAST:
            if (!(g->root ? g->root : g)->target_cuda && g->tensors[op->in[0]].dtype == IR_C64 &&
                g->tensors[op->out[0]].dtype == IR_F32)
                op->sched.kind = SCHED_CAST;
            break;
        case OP_GELU:
        case OP_SOFTMAX:
            if (g->tensors[op->in[0]].dtype == IR_F32 && g->tensors[op->out[0]].dtype == IR_F32)
                op->sched.kind = op->kind == OP_GELU ? SCHED_ACT : SCHED_SOFTMAX;
            else if (op->kind == OP_GELU && ((const rt_act_params *)op->params)->lut_i8)
                op->sched.kind = SCHED_LUT;
            else if (op->kind == OP_SOFTMAX && g->tensors[op->in[0]].dtype == IR_I8 &&
                     g->tensors[op->out[0]].dtype == IR_I8)
                op->sched.kind = SCHED_SOFTMAX; /* rt_opt_softmax_i8: bit for bit the reference */
            break;
        case OP_LOGISTIC:
        case OP_TANH:
        case OP_RELU:
        case OP_RELU6:
        case OP_RELU_N1_TO_1:
        case OP_RELU_0_TO_1:
        case OP_LEAKY_RELU:
        case OP_HARD_SWISH:
            if (g->tensors[op->in[0]].dtype == IR_I8 && ((const rt_act_params *)op->params)->lut_i8)
                op->sched.kind = SCHED_LUT;
            else if ((op->kind == OP_LOGISTIC || op->kind == OP_TANH) && g->tensors[op->in[0]].dtype == IR_F32 &&
                     g->tensors[op->out[0]].dtype == IR_F32)
                op->sched.kind = SCHED_ACT; /* f32 RELU* stay as they are: fused into their producer or the reference */
            break;
        case OP_QUANTIZE:
        case OP_DEQUANTIZE: {
            /* Per tensor between f32 and int8 (pass precision's boundaries, a model's own input and output
             * conversions): the vectorizable kernel, bit-identical to the reference. */
            const rt_quant_params *q = op->params;
            IrDType a = g->tensors[op->in[0]].dtype, b = g->tensors[op->out[0]].dtype;
            if (q->channels == 0 && ((a == IR_F32 && b == IR_I8) || (a == IR_I8 && b == IR_F32)))
                op->sched.kind = SCHED_CAST;
            break;
        }
        case OP_MAX_POOL_2D:
        case OP_AVERAGE_POOL_2D: {
            IrDType a = g->tensors[op->in[0]].dtype;
            if ((a == IR_F32 || a == IR_I8) && g->tensors[op->out[0]].dtype == a) op->sched.kind = SCHED_POOL;
            break;
        }
        case OP_UNIDIRECTIONAL_SEQUENCE_LSTM: schedule_lstm(g, i); break;
        case OP_PRELU: {
            /* f32 and int8 (int16 stays on the reference kernel); same results (docs/weights-and-ops.md) */
            IrDType a = g->tensors[op->in[0]].dtype;
            if (a == IR_F32 || a == IR_I8) op->sched.kind = SCHED_PRELU;
            break;
        }
        case OP_TRANSPOSE_CONV: rc = schedule_tconv(g, i, d); break;
        case OP_PAD:
        case OP_PADV2: op->sched.kind = SCHED_PAD; break; /* any dtype: bytes moved, borders filled */
        case OP_TRANSPOSE:
        case OP_SLICE:
        case OP_STRIDED_SLICE:
        case OP_BROADCAST_TO:
        case OP_DEPTH_TO_SPACE:
        case OP_SPACE_TO_DEPTH: op->sched.kind = SCHED_COPY; break;
        case OP_GATHER:
            if (!(g->root ? g->root : g)->target_cuda) rc = sched_gather_rows(g, i, d);
            break;
        case OP_RESIZE_BILINEAR:
        case OP_RESIZE_NEAREST_NEIGHBOR: {
            const rt_resize_params *p = op->params;
            IrDType a = g->tensors[op->in[0]].dtype;
            int bilinear = op->kind == OP_RESIZE_BILINEAR;
            if ((bilinear && a != IR_F32 && a != IR_I8) || g->tensors[op->out[0]].dtype != a || p->out_w <= 0) break;
            op->sched.kind = SCHED_RESIZE;
            op->scratch_bytes = (size_t)rt_opt_resize_scratch_bytes(p, bilinear);
            break;
        }
        case OP_RFFT2D: {
            /* one row per transform (tf.signal.stft / rfft); 2-D transforms and tiny lengths stay on the reference */
            const rt_rfft2d_params *p = op->params;
            if (p->fft_h != 1 || p->fft_w < 16 || mcu_room) break; /* (MCUs: the reference's smaller scratch) */
            op->sched.kind = SCHED_FFT;
            op->scratch_bytes = (size_t)rt_opt_rfft_scratch_bytes(p);
            break;
        }
        case OP_CONCATENATION: {
            /* int8 parts rescaled or clamped (the params carry `same`); plain copies stay memcpy */
            const rt_concat_params *p = op->params;
            if (g->tensors[op->out[0]].dtype == IR_I8 && p && p->same && concat_is_elementwise(g, op))
                op->sched.kind = SCHED_CONCAT;
            else if (p && !concat_is_elementwise(g, op) && !(g->root ? g->root : g)->target_cuda)
                op->sched.kind = SCHED_CONCAT; /* any dtype, values only moved: rt_opt_copy per part */
            break;
        }
        default: break;
        }
        if (rc) return rc;
    }
    return 0;
}

/* An op's share of the model's time, estimated statically: its MACs plus the elements it writes (so
 * that data movement without MACs, a PAD or a copy, counts too). A rough weight, not a measurement. */
/* The elementwise ops whose reference kernels walk a broadcast index per element (rt_bcast_next). */
static int bcast_walk(OpKind k) {
    switch (k) {
    case OP_ADD: case OP_SUB: case OP_MUL: case OP_DIV: case OP_MAXIMUM: case OP_MINIMUM: case OP_POW:
    case OP_SQUARED_DIFFERENCE: case OP_LESS: case OP_GREATER: case OP_GREATER_EQUAL: case OP_LESS_EQUAL:
    case OP_SELECT: case OP_EQUAL: case OP_NOT_EQUAL: case OP_LOGICAL_OR: case OP_LOGICAL_AND: case OP_SELECT_V2:
        return 1;
    default: return 0;
    }
}

/* Estimated cost of an op in units of a scheduled kernel's MAC: MACs plus elements written, a reference
 * kernel's weighted by how much slower it runs (measured on an AVX-512 Xeon, 2026-11-30: a scalar
 * reference MAC ~10x a scheduled one; an element of a broadcast-walking binary op ~40x (openWakeWord's
 * embedding model: 19 MAXIMUM ops, 46 % of its time, where the unweighted count said 1.7 %); an element of
 * another reference op ~2x (MediaPipe face detection's 17 RELUs: 5 %, unweighted 3.2 %). */
#define REF_MAC_WEIGHT 10
#define REF_BCAST_WEIGHT 40
#define REF_ELEM_WEIGHT 2
static int64_t op_cost(const Graph *g, const IrOp *op) {
    const OpDef *def = op_def(op->kind);
    const int ref = op->sched.kind == SCHED_REF;
    int64_t macs = def && def->macs ? def->macs(g, op) : 0, elems = 0;
    for (int k = 0; k < op->n_out; k++)
        if (op->out[k] >= 0) elems += ir_tensor_numel(&g->tensors[op->out[k]]);
    if (!ref) return macs + elems;
    return macs * REF_MAC_WEIGHT + elems * (bcast_walk(op->kind) ? REF_BCAST_WEIGHT : REF_ELEM_WEIGHT);
}

/* Every op still on a reference kernel with its estimated share (op_cost), and a warning when
 * together they are more than 10% of the model. */
static void report_reference_ops(const Graph *g, FILE *f) {
    int64_t total = 0, ref = 0;
    for (int i = 0; i < g->n_ops; i++) {
        const IrOp *op = &g->ops[i];
        if (op->dead || op->elided) continue;
        int64_t c = op_cost(g, op);
        total += c;
        if (op->sched.kind == SCHED_REF) ref += c;
    }
    if (!ref || !total) return;
    fprintf(f, "reference kernels (estimated share of the time: MACs + elements written, reference ones weighted):\n");
    for (int i = 0; i < g->n_ops; i++) {
        const IrOp *op = &g->ops[i];
        if (op->dead || op->elided || op->sched.kind != SCHED_REF) continue;
        fprintf(f, "  op %-4d [tflite #%d] %-20s %-4s %5.1f%%\n", i, op->tfl_index, ir_op_name(op->kind),
                ir_dtype_name(op->n_out > 0 ? g->tensors[op->out[0]].dtype : IR_F32),
                100.0 * (double)op_cost(g, op) / (double)total);
    }
    if (ref * 10 > total)
        fprintf(f, "warning: reference kernels take about %.0f%% of the estimated time (over 10%%)\n",
                100.0 * (double)ref / (double)total);
}

void sched_report(const Graph *g, FILE *f) {
    int64_t macs[SCHED_KIND_COUNT] = {0}, total = 0;
    int count[SCHED_KIND_COUNT] = {0};
    fprintf(f, "schedule (opt level %d):\n", g->opt_level);
    for (int i = 0; i < g->n_ops; i++) {
        const IrOp *op = &g->ops[i];
        if (op->dead) continue;
        const OpDef *def = op_def(op->kind);
        int64_t m = def && def->macs ? def->macs(g, op) : 0;
        if (op->sched.post_dw >= 0) { /* the fused depthwise op is dead: its MACs are this op's */
            const OpDef *dw = op_def(OP_DEPTHWISE_CONV_2D);
            m += dw && dw->macs ? dw->macs(g, &g->ops[op->sched.post_dw]) : 0;
        }
        macs[op->sched.kind] += m;
        count[op->sched.kind]++;
        total += m;
        if (op->sched.kind == SCHED_REF) continue;
        const IrSched *s = &op->sched;
        fprintf(f, "  op %-4d %-20s %-10s %s mr %d nr %d", i, ir_op_name(op->kind), ir_sched_name(s->kind),
                ir_dtype_name(g->prec_assigned ? op->prec : g->tensors[op->in[0]].dtype), s->mr, s->nr);
        if (s->kind == SCHED_CONV_GEMM)
            fprintf(f, s->direct ? " direct" : s->runs ? " runs (VNNI; else im2col-rows %d)" : " im2col-rows %d", s->rows);
        if (s->packed_w >= 0) fprintf(f, " packed %zu B", g->tensors[s->packed_w].data_size);
        if (s->post_add >= 0) fprintf(f, " +ADD(op %d)", s->post_add);
        if (s->post_alpha) fprintf(f, " +PRELU");
        const IrOp *bin = s->post_add >= 0 ? &g->ops[s->post_add] : s->kind == SCHED_BINARY ? op : NULL;
        const rt_binary_params *bp = bin && (bin->kind == OP_ADD || bin->kind == OP_SUB) ? bin->params : NULL;
        if (bp && bp->fq_mode == 2) fprintf(f, " float-requant (every input pair)");
        else if (bp && bp->fq_mode == 1)
            fprintf(f, " float-requant (%d near-tie input pairs on the integer path)", bin->sched.near_ties);
        if (s->post_dw >= 0) fprintf(f, " +DEPTHWISE_CONV_2D(op %d, bands of %d rows)", s->post_dw, s->band);
        if (ir_f16_weights_as_stored(g, op))
            fprintf(f, " fp16 weights as the model stores them (a GEMV of few rows: memory-bound)");
        if (op->float_rq)
            fprintf(f, op->kind == OP_QUANTIZE ? " float-quantize (x * 1/scale)"
                       : g->tensors[op->out[0]].dtype == IR_F32 ? " float results (DEQUANTIZE folded)" : " float-requant");
        fprintf(f, " MACs %lld\n", (long long)m);
    }
    if (g->precision && g->precision->mode != IR_PREC_FP32) {
        int n8 = 0, nf = 0, ins = 0;
        for (int i = 0; i < g->n_ops; i++) {
            const IrOp *op = &g->ops[i];
            if (op->dead || !op->prec_note) continue;
            if (strcmp(op->prec_note, "inserted by precision") == 0) ins++;
            else if (op->prec == IR_I8) n8++;
            else nf++;
        }
        fprintf(f, "precision %s: %d ops int8, %d float, %d QUANTIZE/DEQUANTIZE inserted\n",
                ir_prec_name(g->precision->mode), n8, nf, ins);
        for (int i = 0; i < g->n_ops; i++) {
            const IrOp *op = &g->ops[i];
            if (op->dead || !op->prec_note || strcmp(op->prec_note, "inserted by precision") == 0) continue;
            fprintf(f, "  op %-4d [tflite #%d] %-20s %-4s %s\n", i, op->tfl_index, ir_op_name(op->kind),
                    ir_dtype_name(op->prec), op->prec_note);
        }
    }
    if (g->half_report) fputs(g->half_report, f);
    for (int k = 0; k < SCHED_KIND_COUNT; k++)
        if (count[k])
            fprintf(f, "  %-10s %4d ops, %5.1f%% of MACs\n", ir_sched_name((SchedKind)k), count[k],
                    total ? 100.0 * (double)macs[k] / (double)total : 0.0);
    report_reference_ops(g, f);
}
