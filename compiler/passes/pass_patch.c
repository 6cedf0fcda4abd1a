/* pass_patch.c - patch-based execution of the memory-peak region (MCUNetV2's
 * idea): a chain of convolution / depthwise / pooling ops near the input,
 * whose big activations set the arena's peak, runs band by band: each band
 * of the chain's last output rows is computed through the whole chain, every
 * op making just the rows its consumer's receptive field needs (the halo rows
 * are computed again by the next band), so only one band's intermediates are
 * ever live. The full intermediate tensors are never stored.
 *
 * Needs: fuse_dw (runs before alias and plan_memory). The rewrite: for each
 * band b and each chain op, a copy of the op (its params' in_h, out_h and
 * pad_h cut to the band; TFLite's kernels skip the taps outside the image, so
 * a band whose rows start inside the image gets pad 0 and its last rows see
 * the real image edge: every output element is computed by the same
 * arithmetic, bit-exact) reading and writing band tensors. The chain's input
 * rows a band reads are a view (alias_of + alias_at) made by an elided
 * RESHAPE; the last op's band writes a view of the chain's output, whose
 * bands an elided CONCATENATION gathers. The copies run the reference kernels
 * (SCHED_REF: every target). The chain's original ops are marked dead.
 *
 * When: only with --patch (the smallest peak costing at most PATCH_MAX_EXTRA
 * more MACs) or --max-arena BYTES when the plan would exceed it (the fewest
 * extra MACs that fit). Off otherwise: the copies use the reference kernels
 * and the recomputed halo rows cost time. Not for --target cuda, subgraphs,
 * or graphs with threads > 1. */
#include <stdlib.h>
#include <string.h>

#include "ops.h"
#include "passes.h"

#define PATCH_MAX_OPS 32      /* ops in one region */
#define PATCH_MAX_BANDS 64
#define PATCH_MAX_EXTRA 0.15  /* --patch: extra MACs at most this share of the model's */
#define ALIGN16(x) (((x) + 15) / 16 * 16)

/* One chain op's row geometry. */
typedef struct Geo {
    int op;
    int32_t in_h, out_h, stride, dil, filter, pad;
    int64_t in_row, out_row; /* bytes per row */
    int64_t macs;
} Geo;

static int planned(const IrTensor *t) {
    return !t->data && !t->is_variable && !t->is_input && !t->is_output && t->alias_of < 0;
}

static int64_t arena_bytes(const Graph *g, int t) {
    return t >= 0 && planned(&g->tensors[t]) ? ALIGN16(ir_tensor_bytes(&g->tensors[t])) : 0;
}

/* Fills geo for op i when the pass can run it in bands: 4-d NHWC batch 1 int8 or f32 conv / depthwise /
 * pool, reference-kernel arithmetic needing no scratch, nothing fused into it. */
static int geometry(const Graph *g, int i, Geo *o) {
    const IrOp *op = &g->ops[i];
    if (op->dead || op->elided || op->n_out != 1 || op->n_in < 1 || op->in[0] < 0 || !op->params) return 0;
    /* The fusion fields mean something only on scheduled ops (pass schedule sets them to -1). */
    if ((op->sched.kind != SCHED_REF && (op->sched.post_add >= 0 || op->sched.post_dw >= 0 || op->sched.post_alpha)) || op->guard)
        return 0;
    const IrTensor *in = &g->tensors[op->in[0]], *out = &g->tensors[op->out[0]];
    if (in->rank != 4 || out->rank != 4 || in->dims[0] != 1 || in->dtype != out->dtype) return 0;
    if (in->dtype != IR_I8 && in->dtype != IR_F32) return 0;
    /* Views are made of arena tensors, graph inputs and outputs only; state is written in place. */
    if (in->data || in->is_variable || out->is_variable) return 0;
    if (op->kind == OP_CONV_2D || op->kind == OP_DEPTHWISE_CONV_2D) {
        if (op->n_in < 2 || op->in[1] < 0 || g->tensors[op->in[1]].dtype != in->dtype) return 0; /* no hybrid */
    }
    memset(o, 0, sizeof *o);
    o->op = i;
    switch (op->kind) {
    case OP_CONV_2D: {
        const rt_conv_params *p = op->params;
        o->stride = p->stride_h, o->dil = p->dil_h, o->filter = p->filter_h, o->pad = p->pad_h;
        break;
    }
    case OP_DEPTHWISE_CONV_2D: {
        const rt_dwconv_params *p = op->params;
        o->stride = p->stride_h, o->dil = p->dil_h, o->filter = p->filter_h, o->pad = p->pad_h;
        break;
    }
    case OP_MAX_POOL_2D: case OP_AVERAGE_POOL_2D: {
        const rt_pool_params *p = op->params;
        o->stride = p->stride_h, o->dil = 1, o->filter = p->filter_h, o->pad = p->pad_h;
        break;
    }
    default:
        return 0;
    }
    o->in_h = (int32_t)in->dims[1];
    o->out_h = (int32_t)out->dims[1];
    o->in_row = ir_tensor_bytes(in) / in->dims[1];
    o->out_row = ir_tensor_bytes(out) / out->dims[1];
    const OpDef *def = op_def(op->kind);
    o->macs = def && def->macs ? def->macs(g, op) : 0;
    return o->in_h > 0 && o->out_h > 0 && o->stride > 0 && o->dil > 0 && o->filter > 0;
}

/* Input rows [*lo, *hi) (clipped to the image) that output rows [o0, o1) read. */
static void rows_needed(const Geo *q, int32_t o0, int32_t o1, int32_t *lo, int32_t *hi) {
    int64_t a = (int64_t)o0 * q->stride - q->pad, b = (int64_t)(o1 - 1) * q->stride - q->pad + (int64_t)(q->filter - 1) * q->dil + 1;
    *lo = (int32_t)(a < 0 ? 0 : a > q->in_h ? q->in_h : a);
    *hi = (int32_t)(b > q->in_h ? q->in_h : b < *lo ? *lo : b);
}

/* Output rows of every chain op (rows[k*2], rows[k*2+1]) for band b of n, walking back from the last op. */
static void band_rows(const Geo *geo, int len, int b, int n, int32_t *rows) {
    int32_t h = geo[len - 1].out_h;
    int32_t o0 = (int32_t)((int64_t)h * b / n), o1 = (int32_t)((int64_t)h * (b + 1) / n);
    for (int k = len - 1; k >= 0; k--) {
        rows[2 * k] = o0, rows[2 * k + 1] = o1;
        rows_needed(&geo[k], o0, o1, &o0, &o1);
    }
}

typedef struct Choice {
    int first, len, bands;
    int64_t peak, extra_macs;
} Choice;

/* Estimated peak and extra MACs of running the chain geo[0..len) in n bands. */
static void estimate(const Graph *g, const Geo *geo, int len, int n, const int64_t *live0, const int64_t *live_ws,
                     Choice *c) {
    int first = geo[0].op, last = geo[len - 1].op;
    int64_t other = 0, outside = 0, inner = 0, extra = 0;
    for (int k = 0; k < len; k++) {
        const IrOp *op = &g->ops[geo[k].op];
        int64_t o = live0[geo[k].op] - arena_bytes(g, op->in[0]) - arena_bytes(g, op->out[0]);
        if (o > other) other = o;
    }
    for (int i = 0; i < g->n_ops; i++)
        if (!g->ops[i].dead && (i < first || i > last) && live_ws[i] > outside) outside = live_ws[i];
    int32_t rows[2 * PATCH_MAX_OPS];
    int64_t computed[PATCH_MAX_OPS] = {0};
    for (int b = 0; b < n; b++) {
        band_rows(geo, len, b, n, rows);
        for (int k = 0; k < len; k++) {
            int32_t lo = 0, hi = 0;
            rows_needed(&geo[k], rows[2 * k], rows[2 * k + 1], &lo, &hi);
            int64_t in = k > 0 ? ALIGN16((int64_t)(hi - lo) * geo[k].in_row) : 0;
            int64_t out = k < len - 1 ? ALIGN16((int64_t)(rows[2 * k + 1] - rows[2 * k]) * geo[k].out_row) : 0;
            if (in + out > inner) inner = in + out;
            computed[k] += rows[2 * k + 1] - rows[2 * k];
        }
    }
    for (int k = 0; k < len; k++) extra += geo[k].macs * (computed[k] - geo[k].out_h) / geo[k].out_h;
    int64_t region = other + arena_bytes(g, g->ops[first].in[0]) + arena_bytes(g, g->ops[last].out[0]) + inner;
    c->first = 0;
    c->len = len;
    c->bands = n;
    c->peak = region > outside ? region : outside;
    c->extra_macs = extra;
}

static int add_view(Graph *g, int root, int32_t r0, int32_t r1, int64_t row) {
    IrTensor src = g->tensors[root];
    int64_t dims[4] = {1, r1 - r0, src.dims[2], src.dims[3]};
    const char *name = ir_sprintf(g, "%s[rows %d..%d]", src.name, (int)r0, (int)r1);
    int t = name ? ir_add_tensor(g, name, src.dtype, 4, dims) : -1;
    if (t < 0) return -1;
    g->tensors[t].q = src.q;
    g->tensors[t].alias_of = root;
    g->tensors[t].alias_at = (int64_t)r0 * row;
    return t;
}

/* Appends the band copy of chain op `orig` reading `in`, writing `out`, for its output rows [o0, o1)
 * and input rows [lo, hi) (lo > 0 or pad clipped as rows_needed said). -1 on OOM. */
static int add_band_op(Graph *g, int orig, int in, int out, const Geo *q, int32_t o0, int32_t o1, int32_t lo, int32_t hi) {
    IrOp src = g->ops[orig];
    int *ins = malloc(sizeof(int) * (size_t)src.n_in);
    if (!ins) return -1;
    memcpy(ins, src.in, sizeof(int) * (size_t)src.n_in);
    ins[0] = in;
    int id = ir_add_op(g, src.kind, src.n_in, ins, 1, &out);
    free(ins);
    if (id < 0) return -1;
    IrOp *op = &g->ops[id];
    int *pin = op->in, *pout = op->out;
    *op = src;
    op->in = pin, op->out = pout;
    memset(&op->sched, 0, sizeof op->sched);
    op->sched.kind = SCHED_REF;
    op->sched.post_add = op->sched.post_dw = op->sched.packed_w = op->sched.packed_b = -1;
    op->sched.slots = 1;
    op->scratch_bytes = 0;
    op->scratch_offset = -1;
    /* A tap reads image row (o0 + y) * stride - pad + ky * dil; the band's input starts at image row lo, so
     * in band coordinates that is y * stride - pad' + ky * dil with pad' = lo - (o0 * stride - pad) >= 0. */
    int32_t pad = (int32_t)((int64_t)lo - ((int64_t)o0 * q->stride - q->pad));
    size_t size = src.kind == OP_CONV_2D ? sizeof(rt_conv_params)
                  : src.kind == OP_DEPTHWISE_CONV_2D ? sizeof(rt_dwconv_params) : sizeof(rt_pool_params);
    void *p = ir_alloc(g, size);
    if (!p) return -1;
    memcpy(p, src.params, size);
    op = &g->ops[id];
    op->params = p;
    if (src.kind == OP_CONV_2D) {
        rt_conv_params *c = p;
        c->in_h = hi - lo, c->out_h = o1 - o0, c->pad_h = pad;
    } else if (src.kind == OP_DEPTHWISE_CONV_2D) {
        rt_dwconv_params *c = p;
        c->in_h = hi - lo, c->out_h = o1 - o0, c->pad_h = pad;
    } else {
        rt_pool_params *c = p;
        c->in_h = hi - lo, c->out_h = o1 - o0, c->pad_h = pad;
    }
    return id;
}

/* Moves ops [from, n_ops) to position at (they were appended; ops at..from-1 move after them) and renumbers
 * the op indices the schedule keeps. 0, or -1 on OOM. */
static int move_ops(Graph *g, int at, int from) {
    int m = g->n_ops - from, tail = from - at;
    IrOp *tmp = malloc(sizeof(IrOp) * (size_t)(m > 0 ? m : 1));
    if (!tmp) return -1;
    memcpy(tmp, g->ops + from, sizeof(IrOp) * (size_t)m);
    memmove(g->ops + at + m, g->ops + at, sizeof(IrOp) * (size_t)tail);
    memcpy(g->ops + at, tmp, sizeof(IrOp) * (size_t)m);
    free(tmp);
    for (int i = 0; i < g->n_ops; i++) {
        IrSched *s = &g->ops[i].sched;
        if (s->kind == SCHED_REF) continue;
        if (s->post_add >= at) s->post_add += m;
        if (s->post_dw >= at) s->post_dw += m;
    }
    return 0;
}

static int rewrite(Graph *g, const Geo *geo, int len, int n) {
    int first = geo[0].op, last = geo[len - 1].op, n_before = g->n_ops;
    int src_in = g->ops[first].in[0], dst = g->ops[last].out[0];
    int *parts = malloc(sizeof(int) * (size_t)n);
    if (!parts) return -1;
    int32_t rows[2 * PATCH_MAX_OPS];
    for (int b = 0; b < n; b++) {
        band_rows(geo, len, b, n, rows);
        int32_t lo, hi;
        rows_needed(&geo[0], rows[0], rows[1], &lo, &hi);
        int cur = add_view(g, src_in, lo, hi, geo[0].in_row);
        if (cur < 0 || ir_add_op(g, OP_RESHAPE, 1, &src_in, 1, &cur) < 0) goto oom;
        g->ops[g->n_ops - 1].elided = 1;
        g->ops[g->n_ops - 1].prec = g->ops[first].prec;
        for (int k = 0; k < len; k++) {
            int32_t o0 = rows[2 * k], o1 = rows[2 * k + 1], l, h;
            rows_needed(&geo[k], o0, o1, &l, &h);
            int orig_out = g->ops[geo[k].op].out[0], out;
            if (k == len - 1) {
                out = add_view(g, dst, o0, o1, geo[k].out_row);
                parts[b] = out;
            } else {
                const IrTensor *t = &g->tensors[orig_out];
                int64_t dims[4] = {1, o1 - o0, t->dims[2], t->dims[3]};
                const char *name = ir_sprintf(g, "%s[band %d]", t->name, b);
                out = name ? ir_add_tensor(g, name, t->dtype, 4, dims) : -1;
                if (out >= 0) g->tensors[out].q = g->tensors[orig_out].q;
            }
            if (out < 0 || add_band_op(g, geo[k].op, cur, out, &geo[k], o0, o1, l, h) < 0) goto oom;
            cur = out;
        }
    }
    if (ir_add_op(g, OP_CONCATENATION, n, parts, 1, &dst) < 0) goto oom;
    g->ops[g->n_ops - 1].elided = 1;
    g->ops[g->n_ops - 1].prec = g->ops[last].prec;
    free(parts);
    for (int k = 0; k < len; k++) g->ops[geo[k].op].dead = 1;
    if (move_ops(g, last + 1, n_before)) return -1;
    ir_set_producers(g);
    return 0;
oom:
    free(parts);
    return -1;
}

int pass_patch(Graph *g, Diag *d) {
    g->patch_report = NULL;
    int on = g->patch || g->max_arena >= 0;
    if (!on || g->root || g->target_cuda || g->threads > 1 || g->n_ops < 2) return 0;
    int64_t *live0 = malloc(sizeof(int64_t) * (size_t)g->n_ops), *live_ws = malloc(sizeof(int64_t) * (size_t)g->n_ops);
    Geo *geo = malloc(sizeof(Geo) * (size_t)g->n_ops);
    int *ok = calloc((size_t)g->n_ops, sizeof(int));
    if (!live0 || !live_ws || !geo || !ok || plan_live_bytes(g, 0, live0) < 0 || plan_live_bytes(g, 1, live_ws) < 0) {
        free(live0), free(live_ws), free(geo), free(ok);
        return diag_internal(d, "out of memory");
    }
    int64_t before = 0, total_macs = 0;
    for (int i = 0; i < g->n_ops; i++) {
        if (g->ops[i].dead) continue;
        if (live_ws[i] > before) before = live_ws[i];
        const OpDef *def = op_def(g->ops[i].kind);
        total_macs += def && def->macs ? def->macs(g, &g->ops[i]) : 0;
        ok[i] = geometry(g, i, &geo[i]);
    }
    int *readers = pass_count_readers(g);
    if (!readers) {
        free(live0), free(live_ws), free(geo), free(ok);
        return diag_internal(d, "out of memory");
    }
    int budget = g->max_arena >= 0;
    Choice best = {-1, 0, 0, before, 0};
    if (!budget || before > g->max_arena) {
        Geo chain[PATCH_MAX_OPS];
        for (int i = 0; i < g->n_ops; i++) {
            if (!ok[i]) continue;
            int len = 0;
            for (int j = i; j < g->n_ops && len < PATCH_MAX_OPS; j++) {
                if (g->ops[j].dead) continue;
                if (!ok[j]) break;
                /* A chain: each op reads the one before, which nothing else reads. */
                if (len > 0) {
                    int prev = chain[len - 1].op, t = g->ops[prev].out[0];
                    if (g->ops[j].in[0] != t || pass_only_reader(g, readers, t) != j || !planned(&g->tensors[t])) break;
                }
                chain[len++] = geo[j];
                if (len < 2) continue;
                int max_n = chain[len - 1].out_h < PATCH_MAX_BANDS ? chain[len - 1].out_h : PATCH_MAX_BANDS;
                for (int n = 2; n <= max_n; n++) {
                    Choice c;
                    estimate(g, chain, len, n, live0, live_ws, &c);
                    c.first = i;
                    int better;
                    if (budget) {
                        if (c.peak > g->max_arena) continue;
                        better = best.first < 0 || c.extra_macs < best.extra_macs ||
                                 (c.extra_macs == best.extra_macs && c.peak < best.peak);
                    } else {
                        if ((double)c.extra_macs > PATCH_MAX_EXTRA * (double)total_macs || c.peak >= before) continue;
                        better = c.peak < best.peak || (c.peak == best.peak && c.extra_macs < best.extra_macs);
                    }
                    if (better) best = c;
                }
            }
        }
    }
    int rc = 0;
    if (best.first >= 0) {
        Geo chain[PATCH_MAX_OPS];
        int len = 0;
        for (int j = best.first; len < best.len; j++)
            if (!g->ops[j].dead) chain[len++] = geo[j];
        int first_op = chain[0].op, last_op = chain[len - 1].op;
        int first_tfl = g->ops[first_op].tfl_index, last_tfl = g->ops[last_op].tfl_index;
        int32_t out_h = chain[len - 1].out_h;
        if (rewrite(g, chain, len, best.bands)) rc = diag_internal(d, "out of memory");
        else
            g->patch_report = ir_sprintf(g,
                                         "patch: TFLite operators #%d..#%d (%d ops) in %d bands of %d output rows; "
                                         "peak estimate %lld -> %lld bytes; extra MACs %lld (%.1f%% of %lld)\n",
                                         first_tfl, last_tfl, len, best.bands, (int)out_h, (long long)before,
                                         (long long)best.peak, (long long)best.extra_macs,
                                         total_macs ? 100.0 * (double)best.extra_macs / (double)total_macs : 0.0,
                                         (long long)total_macs);
    } else if (g->patch) {
        g->patch_report = ir_sprintf(g, "patch: no region found that lowers the peak (%lld bytes) within %.0f%% extra MACs\n",
                                     (long long)before, PATCH_MAX_EXTRA * 100);
    }
    free(live0), free(live_ws), free(geo), free(ok);
    return rc;
}
