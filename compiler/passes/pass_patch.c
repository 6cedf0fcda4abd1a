/* pass_patch.c - patch-based execution of the memory-peak region (MCUNetV2's
 * idea): a run of convolution / depthwise / pooling ops near the input, and
 * the residual ADDs between them (MobileNetV2's inverted residual blocks),
 * whose big activations set the arena's peak, runs band by band: each band
 * of the region's last output rows is computed through the whole region,
 * every op making just the rows its consumers' receptive fields need (the
 * halo rows are computed again by the next band), so only one band's
 * intermediates are ever live. The full intermediate tensors are never stored.
 *
 * Needs: fuse_dw (runs before alias and plan_memory). The region: ops
 * consecutive in the op order, each reading the region's input, earlier
 * region outputs or other tensors computed before it (read through views);
 * only the last op's output is read after the region. A convolution with a
 * fused ADD (fuse_add) or depthwise (fuse_dw) counts as its two ops. The
 * rewrite: for each band b and each region op, a copy of the op (a
 * convolution's or pooling's in_h, out_h and pad_h cut to the band; TFLite's
 * kernels skip the taps outside the image, so a band whose rows start inside
 * the image gets pad 0 and its last rows see the real image edge: every
 * output element is computed by the same arithmetic, bit-exact; an ADD's
 * shape cut to the band's rows) reading and writing band tensors. A tensor
 * read by two ops (the block input: the expansion convolution needs halo
 * rows, the ADD not) gets the rows both need; each reads its rows through a
 * view. Rows of a tensor from outside the region are views (alias_of +
 * alias_at) made by an elided RESHAPE; the last op's band writes a view of
 * the region's output, whose bands an elided CONCATENATION gathers. The
 * copies run the reference kernels (SCHED_REF: every target). The region's
 * original ops are marked dead.
 *
 * When: only with --patch (the smallest peak costing at most PATCH_MAX_EXTRA
 * more MACs) or --max-arena BYTES when the plan would exceed it (the fewest
 * extra MACs that fit). Off otherwise: the copies use the reference kernels
 * and the recomputed halo rows cost time. Not for --target cuda, subgraphs,
 * or graphs with threads > 1. */
#include <stdlib.h>
#include <string.h>

#include "elementwise_common.h"
#include "ops.h"
#include "passes.h"
#include "shape_common.h"

#define PATCH_MAX_NODES 48    /* ops in one region (a fused convolution counts 2) */
#define PATCH_MAX_SLOTS (2 * PATCH_MAX_NODES + 2)
#define PATCH_MAX_BANDS 64
#define PATCH_MAX_EXTRA 0.15  /* --patch: extra MACs at most this share of the model's */
#define ALIGN16(x) (((x) + 15) / 16 * 16)

/* One region op and its row geometry (an ADD: stride, filter and dilation 1, pad 0). */
typedef struct Node {
    int op;  /* the live op whose place it takes (a fused convolution for both of its ops) */
    int src; /* the op whose kind and params the copies take: op, or the dead ADD / depthwise of a fusion */
    int n_in, n_data, in[2], out;
    int32_t in_h, out_h, stride, dil, filter, pad;
    int64_t macs;
} Node;

static int planned(const IrTensor *t) {
    return !t->data && !t->is_variable && !t->is_input && !t->is_output && t->alias_of < 0;
}

static int64_t arena_bytes(const Graph *g, int t) {
    return t >= 0 && planned(&g->tensors[t]) ? ALIGN16(ir_tensor_bytes(&g->tensors[t])) : 0;
}

static int64_t row_bytes(const Graph *g, int t) { return ir_tensor_bytes(&g->tensors[t]) / g->tensors[t].dims[1]; }

/* 4-d NHWC batch 1 int8 or f32, no constant or state (views cover arena tensors and graph inputs/outputs). */
static int banded_tensor(const Graph *g, int t, const IrTensor *like) {
    if (t < 0) return 0;
    const IrTensor *a = &g->tensors[t];
    if (a->rank != 4 || a->dims[0] != 1 || a->dims[1] < 1 || a->data || a->is_variable) return 0;
    if (like && a->dtype != like->dtype) return 0;
    return a->dtype == IR_I8 || a->dtype == IR_F32;
}

/* A PAD's constant paddings before (lo) and after (hi) each of the 4 dimensions; 0 when not such. */
static int pad_amounts(const Graph *g, const IrOp *op, int64_t *lo, int64_t *hi) {
    const IrTensor *t = op->n_in == 2 && op->in[1] >= 0 ? &g->tensors[op->in[1]] : NULL;
    if (!t || !t->data || t->rank != 2 || t->dims[0] != 4 || t->dims[1] != 2 || (t->dtype != IR_I32 && t->dtype != IR_I64))
        return 0;
    for (int k = 0; k < 8; k++) {
        int64_t v = t->dtype == IR_I32 ? ((const int32_t *)t->data)[k] : ((const int64_t *)t->data)[k];
        *(k % 2 ? &hi[k / 2] : &lo[k / 2]) = v;
    }
    return 1;
}

/* Fills n for a conv / depthwise / pool (src's kind and params) reading in, writing out, or an ADD of two
 * same-shaped inputs (no broadcast). 0 when the pass cannot run it in bands. */
static int node_geometry(const Graph *g, int src, int in, int out, Node *n) {
    const IrOp *op = &g->ops[src];
    if (!op->params || !banded_tensor(g, in, NULL) || !banded_tensor(g, out, &g->tensors[in])) return 0;
    n->src = src, n->in[0] = in, n->out = out, n->n_data = 1, n->dil = 1;
    switch (op->kind) {
    case OP_CONV_2D: {
        const rt_conv_params *p = op->params;
        n->stride = p->stride_h, n->dil = p->dil_h, n->filter = p->filter_h, n->pad = p->pad_h;
        break;
    }
    case OP_DEPTHWISE_CONV_2D: {
        const rt_dwconv_params *p = op->params;
        n->stride = p->stride_h, n->dil = p->dil_h, n->filter = p->filter_h, n->pad = p->pad_h;
        break;
    }
    case OP_MAX_POOL_2D: case OP_AVERAGE_POOL_2D: {
        const rt_pool_params *p = op->params;
        n->stride = p->stride_h, n->filter = p->filter_h, n->pad = p->pad_h;
        break;
    }
    case OP_PAD: { /* rows: a 1x1 stride-1 window with the top padding as its pad */
        int64_t lo[4], hi[4];
        if (!pad_amounts(g, op, lo, hi) || lo[0] || hi[0]) return 0;
        n->stride = n->filter = 1, n->pad = (int32_t)lo[1];
        break;
    }
    case OP_ADD: {
        if (op->n_in != 2 || !banded_tensor(g, op->in[1], &g->tensors[in])) return 0;
        const IrTensor *a = &g->tensors[op->in[0]], *b = &g->tensors[op->in[1]], *o = &g->tensors[out];
        for (int k = 1; k < 4; k++)
            if (a->dims[k] != o->dims[k] || b->dims[k] != o->dims[k]) return 0;
        n->in[0] = op->in[0], n->in[1] = op->in[1], n->n_data = 2;
        n->stride = n->filter = 1, n->pad = 0;
        break;
    }
    default:
        return 0;
    }
    if (op->kind == OP_CONV_2D || op->kind == OP_DEPTHWISE_CONV_2D) {
        if (op->n_in < 2 || op->in[1] < 0 || g->tensors[op->in[1]].dtype != g->tensors[in].dtype) return 0; /* no hybrid */
    }
    n->in_h = (int32_t)g->tensors[in].dims[1];
    n->out_h = (int32_t)g->tensors[out].dims[1];
    const OpDef *def = op_def(op->kind);
    n->macs = def && def->macs ? def->macs(g, op) : 0;
    return n->in_h > 0 && n->out_h > 0 && n->stride > 0 && n->dil > 0 && n->filter > 0;
}

/* The region nodes of live op i (a fused convolution makes two): their count, 0 when it cannot be banded. */
static int op_nodes(const Graph *g, int i, Node *n) {
    const IrOp *op = &g->ops[i];
    if (op->dead || op->elided || op->n_out != 1 || op->n_in < 1 || op->in[0] < 0 || op->guard) return 0;
    /* The fusion fields mean something only on scheduled ops (pass schedule sets them to -1). */
    int add = op->sched.kind != SCHED_REF ? op->sched.post_add : -1, dw = op->sched.kind != SCHED_REF ? op->sched.post_dw : -1;
    if (op->sched.kind != SCHED_REF && (op->sched.post_alpha || op->sched.post_hswish || op->sched.post_dw_hswish))
        return 0; /* a fused PRELU or HARD_SWISH (pass fuse_prelu, fuse_dw): kept whole */
    memset(n, 0, 2 * sizeof *n);
    n[0].op = n[1].op = i;
    if (add < 0 && dw < 0) {
        n[0].n_in = op->n_in;
        return node_geometry(g, i, op->in[0], op->out[0], &n[0]);
    }
    if (op->kind != OP_CONV_2D) return 0;
    if (add >= 0 && g->tensors[op->sched.post_other].dims[3] != g->tensors[op->out[0]].dims[3])
        return 0; /* pass fuse_add took a channel PAD's input (kept whole) */
    const IrOp *f = &g->ops[add >= 0 ? add : dw];
    int mid = add >= 0 ? f->in[op->sched.conv_is_lhs ? 0 : 1] : f->in[0];
    n[0].n_in = op->n_in - (add >= 0 ? 1 : 2); /* fusion appended the other operand / the depthwise weights */
    n[1].n_in = f->n_in;
    if (!node_geometry(g, i, op->in[0], mid, &n[0]) || !node_geometry(g, add >= 0 ? add : dw, f->in[0], f->out[0], &n[1]))
        return 0;
    return 2;
}

/* The copies of node q keep its op's optimized kernel where that takes any band of rows: convolution
 * (int8 or f32 weights; not one a depthwise was fused into), depthwise, pooling, ADD. */
static int keeps_schedule(const Graph *g, const Node *q) {
    const IrOp *op = &g->ops[q->src];
    switch (op->sched.kind) {
    case SCHED_CONV_GEMM:
        return op->kind == OP_CONV_2D && op->sched.post_dw < 0 && g->tensors[op->in[1]].dtype == g->tensors[op->in[0]].dtype;
    case SCHED_DWCONV: return op->kind == OP_DEPTHWISE_CONV_2D;
    case SCHED_POOL: return op->kind == OP_MAX_POOL_2D || op->kind == OP_AVERAGE_POOL_2D;
    case SCHED_BINARY: return op->kind == OP_ADD;
    case SCHED_PAD: return op->kind == OP_PAD;
    default: return 0;
    }
}

/* A tap reads image row (o0 + y) * stride - pad + ky * dil; the band's input starts at image row lo, so
 * in band coordinates that is y * stride - pad' + ky * dil with pad' = lo - (o0 * stride - pad) >= 0. */
static void cut_conv(rt_conv_params *c, const Node *q, int32_t o0, int32_t o1, int32_t lo, int32_t hi) {
    c->in_h = hi - lo, c->out_h = o1 - o0, c->pad_h = (int32_t)((int64_t)lo - ((int64_t)o0 * q->stride - q->pad));
}

/* Scratch of node q's copy for output rows [o0, o1) from input rows [lo, hi): a scheduled convolution's. */
static int64_t band_scratch(const Graph *g, const Node *q, int32_t o0, int32_t o1, int32_t lo, int32_t hi) {
    const IrOp *src = &g->ops[q->src];
    if (src->kind != OP_CONV_2D || !keeps_schedule(g, q)) return 0;
    IrOp tmp = *src;
    rt_conv_params c = *(const rt_conv_params *)src->params;
    cut_conv(&c, q, o0, o1, lo, hi);
    tmp.params = &c;
    return ALIGN16(pass_conv_band_scratch(g, &tmp));
}

/* Input rows [*lo, *hi) (clipped to the image) that output rows [o0, o1) read. */
static void rows_needed(const Node *q, int32_t o0, int32_t o1, int32_t *lo, int32_t *hi) {
    int64_t a = (int64_t)o0 * q->stride - q->pad, b = (int64_t)(o1 - 1) * q->stride - q->pad + (int64_t)(q->filter - 1) * q->dil + 1;
    *lo = (int32_t)(a < 0 ? 0 : a > q->in_h ? q->in_h : a);
    *hi = (int32_t)(b > q->in_h ? q->in_h : b < *lo ? *lo : b);
}

/* A region: its nodes and the tensors they touch (slots). */
typedef struct Region {
    Node node[PATCH_MAX_NODES];
    int len, first, last; /* nodes; first and last op */
    int slot[PATCH_MAX_SLOTS], n_slots;
    int made[PATCH_MAX_SLOTS];      /* the node writing the slot, -1: from outside the region */
    int used_last[PATCH_MAX_SLOTS]; /* the last node reading it */
    int in_slot[PATCH_MAX_NODES][2], out_slot[PATCH_MAX_NODES];
} Region;

static int slot_of(Region *r, int t) {
    for (int s = 0; s < r->n_slots; s++)
        if (r->slot[s] == t) return s;
    if (r->n_slots == PATCH_MAX_SLOTS) return -1;
    r->slot[r->n_slots] = t, r->made[r->n_slots] = -1, r->used_last[r->n_slots] = -1;
    return r->n_slots++;
}

/* Appends a node: 0, or -1 when it reads a region tensor it cannot (a later one) or the region is full. */
static int region_add(Region *r, const Node *n) {
    if (r->len == PATCH_MAX_NODES) return -1;
    int k = r->len;
    for (int d = 0; d < n->n_data; d++) {
        int s = slot_of(r, n->in[d]);
        if (s < 0) return -1;
        r->in_slot[k][d] = s, r->used_last[s] = k;
    }
    int s = slot_of(r, n->out);
    if (s < 0 || r->made[s] >= 0 || r->used_last[s] >= 0) return -1;
    r->made[s] = k, r->out_slot[k] = s;
    r->node[k] = *n;
    r->len++;
    return 0;
}

/* Rows [need[2s], need[2s+1]) of every slot band b of n needs, walking back from the last node. */
static void band_need(const Region *r, int b, int n, int32_t *need) {
    for (int s = 0; s < r->n_slots; s++) need[2 * s] = INT32_MAX, need[2 * s + 1] = -1;
    const Node *last = &r->node[r->len - 1];
    int y = r->out_slot[r->len - 1];
    need[2 * y] = (int32_t)((int64_t)last->out_h * b / n), need[2 * y + 1] = (int32_t)((int64_t)last->out_h * (b + 1) / n);
    for (int k = r->len - 1; k >= 0; k--) {
        int o = r->out_slot[k];
        for (int d = 0; d < r->node[k].n_data; d++) {
            int32_t lo, hi, s = r->in_slot[k][d];
            rows_needed(&r->node[k], need[2 * o], need[2 * o + 1], &lo, &hi);
            if (lo < need[2 * s]) need[2 * s] = lo;
            if (hi > need[2 * s + 1]) need[2 * s + 1] = hi;
        }
    }
}

typedef struct Choice {
    int first, len, bands;
    int64_t peak, extra_macs;
} Choice;

/* Estimated peak and extra MACs of running region r in n bands. live0 / live_ws: plan_live_bytes per op
 * without / with scratch; from, to: per tensor, its first and last live op (-1: not in the plan). */
static void estimate(const Graph *g, const Region *r, int n, const int64_t *live0, const int64_t *live_ws,
                     const int *from, const int *to, Choice *c) {
    int y = r->out_slot[r->len - 1];
    int64_t other = 0, outside = 0, inner = 0, extra = 0, whole = 0;
    /* Bytes live at each region op besides the region's tensors; those from outside and the output stay
     * whole across the region. */
    for (int i = r->first; i <= r->last; i++) {
        if (g->ops[i].dead) continue;
        int64_t o = live0[i];
        for (int s = 0; s < r->n_slots; s++)
            if (from[r->slot[s]] >= 0 && from[r->slot[s]] <= i && i <= to[r->slot[s]]) o -= arena_bytes(g, r->slot[s]);
        if (o > other) other = o;
    }
    for (int s = 0; s < r->n_slots; s++)
        if (r->made[s] < 0 || s == y) whole += arena_bytes(g, r->slot[s]);
    for (int i = 0; i < g->n_ops; i++)
        if (!g->ops[i].dead && (i < r->first || i > r->last) && live_ws[i] > outside) outside = live_ws[i];
    int32_t need[2 * PATCH_MAX_SLOTS];
    int64_t computed[PATCH_MAX_NODES] = {0};
    for (int b = 0; b < n; b++) {
        band_need(r, b, n, need);
        /* A band whose rows of some tensor are none (a band of a PAD's padding rows only): not this n. */
        for (int s = 0; s < r->n_slots; s++)
            if (need[2 * s + 1] <= need[2 * s]) {
                *c = (Choice){r->first, r->len, n, INT64_MAX, INT64_MAX};
                return;
            }
        for (int k = 0; k < r->len; k++) {
            int o = r->out_slot[k];
            computed[k] += need[2 * o + 1] - need[2 * o];
            int32_t lo, hi;
            rows_needed(&r->node[k], need[2 * o], need[2 * o + 1], &lo, &hi);
            int64_t live = band_scratch(g, &r->node[k], need[2 * o], need[2 * o + 1], lo, hi);
            for (int s = 0; s < r->n_slots; s++)
                if (r->made[s] >= 0 && s != y && r->made[s] <= k && k <= r->used_last[s])
                    live += ALIGN16((int64_t)(need[2 * s + 1] - need[2 * s]) * row_bytes(g, r->slot[s]));
            if (live > inner) inner = live;
        }
    }
    for (int k = 0; k < r->len; k++) extra += r->node[k].macs * (computed[k] - r->node[k].out_h) / r->node[k].out_h;
    int64_t region = other + whole + inner;
    c->first = r->first;
    c->len = r->len;
    c->bands = n;
    c->peak = region > outside ? region : outside;
    c->extra_macs = extra;
}

/* A view of rows [r0, r1) of tensor src (itself maybe a view), defined by an elided RESHAPE when define
 * (else the op writing it does); -1 on OOM. */
static int add_view(Graph *g, int src, int32_t r0, int32_t r1, int prec, int define) {
    IrTensor s = g->tensors[src];
    int root = ir_storage_root(g, src);
    int64_t dims[4] = {1, r1 - r0, s.dims[2], s.dims[3]};
    const char *name = ir_sprintf(g, "%s[rows %d..%d]", s.name, (int)r0, (int)r1);
    int t = name ? ir_add_tensor(g, name, s.dtype, 4, dims) : -1;
    if (t < 0) return -1;
    g->tensors[t].q = s.q;
    g->tensors[t].alias_of = root;
    g->tensors[t].alias_at = ir_storage_at(g, src) + (int64_t)r0 * row_bytes(g, src);
    if (!define) return t;
    if (ir_add_op(g, OP_RESHAPE, 1, &src, 1, &t) < 0) return -1;
    g->ops[g->n_ops - 1].elided = 1;
    g->ops[g->n_ops - 1].prec = prec;
    return t;
}

/* Appends the band copy of node q reading ins, writing out, for its output rows [o0, o1) and first input
 * rows [lo, hi) (lo > 0 or pad clipped as rows_needed said). -1 on OOM. */
static int add_band_op(Graph *g, const Node *q, const int *data, int out, int32_t o0, int32_t o1, int32_t lo, int32_t hi) {
    IrOp src = g->ops[q->src];
    int *ins = malloc(sizeof(int) * (size_t)q->n_in);
    if (!ins) return -1;
    memcpy(ins, src.in, sizeof(int) * (size_t)q->n_in);
    for (int d = 0; d < q->n_data; d++) ins[d] = data[d];
    int id = ir_add_op(g, src.kind, q->n_in, ins, 1, &out);
    free(ins);
    if (id < 0) return -1;
    IrOp *op = &g->ops[id];
    int *pin = op->in, *pout = op->out;
    *op = src;
    op->in = pin, op->out = pout, op->n_in = q->n_in, op->dead = 0;
    op->fused[0] = '\0';
    op->scratch_offset = -1;
    int keep = keeps_schedule(g, q);
    if (keep) {
        op->sched.post_add = op->sched.post_other = op->sched.post_dw = -1;
        op->sched.conv_is_lhs = op->sched.post_alpha = op->sched.post_hswish = op->sched.post_dw_hswish = 0;
    } else {
        memset(&op->sched, 0, sizeof op->sched);
        op->sched.kind = SCHED_REF;
        op->sched.post_add = op->sched.post_other = op->sched.post_dw = op->sched.packed_w = op->sched.packed_b = -1;
        op->sched.slots = 1;
    }
    op->scratch_bytes = 0; /* a depthwise's is optional */
    size_t size = src.kind == OP_CONV_2D ? sizeof(rt_conv_params)
                  : src.kind == OP_DEPTHWISE_CONV_2D ? sizeof(rt_dwconv_params)
                  : src.kind == OP_ADD ? sizeof(rt_binary_params)
                  : src.kind == OP_PAD ? sizeof(rt_pad_params) : sizeof(rt_pool_params);
    void *p = ir_alloc(g, size);
    if (!p) return -1;
    memcpy(p, src.params, size);
    op = &g->ops[id];
    op->params = p;
    int32_t pad = (int32_t)((int64_t)lo - ((int64_t)o0 * q->stride - q->pad));
    if (src.kind == OP_CONV_2D) {
        cut_conv(p, q, o0, o1, lo, hi);
        if (keep) op->scratch_bytes = (size_t)pass_conv_band_scratch(g, op);
    } else if (src.kind == OP_DEPTHWISE_CONV_2D) {
        rt_dwconv_params *c = p;
        c->in_h = hi - lo, c->out_h = o1 - o0, c->pad_h = pad;
    } else if (src.kind == OP_PAD) {
        /* The band's rows inside the output: top padding pad' (bottom: what the output rows leave). */
        rt_pad_params *c = p;
        int64_t plo[4], phi[4], is[4], os[4], off = 0;
        const IrTensor *a = &g->tensors[op->in[0]], *o = &g->tensors[out];
        pad_amounts(g, &src, plo, phi);
        plo[1] = pad;
        shape_contig_strides(4, a->dims, is);
        shape_contig_strides(4, o->dims, os);
        for (int k = 0; k < 4; k++) off += plo[k] * os[k];
        if (shape_copy_init(&c->interior, 4, a->dims, is, 0, os, off, c->elem_size)) return -1;
        c->out_bytes = ir_tensor_bytes(o);
    } else if (src.kind == OP_ADD) {
        rt_binary_params *c = p;
        ew_bcast_init(&c->bc, g, op);
        if (!keep) c->fq_mode = 0, c->fq_a = c->fq_b = c->fq_c = 0.0f; /* the optimized kernel's float path */
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

static int rewrite(Graph *g, const Region *r, int n) {
    int n_before = g->n_ops, y = r->out_slot[r->len - 1], dst = r->slot[y], prec = g->ops[r->first].prec;
    int *parts = malloc(sizeof(int) * (size_t)n);
    if (!parts) return -1;
    int32_t need[2 * PATCH_MAX_SLOTS];
    int band[PATCH_MAX_SLOTS];
    for (int b = 0; b < n; b++) {
        band_need(r, b, n, need);
        for (int s = 0; s < r->n_slots; s++) {
            band[s] = -1;
            if (r->made[s] >= 0 || need[2 * s + 1] <= need[2 * s]) continue;
            band[s] = add_view(g, r->slot[s], need[2 * s], need[2 * s + 1], prec, 1);
            if (band[s] < 0) goto oom;
        }
        for (int k = 0; k < r->len; k++) {
            const Node *q = &r->node[k];
            int o = r->out_slot[k], data[2];
            int32_t o0 = need[2 * o], o1 = need[2 * o + 1], lo = 0, hi = 0;
            rows_needed(q, o0, o1, &lo, &hi);
            /* Each input's rows: its band tensor, or a view of the rows this op reads. */
            for (int d = 0; d < q->n_data; d++) {
                int s = r->in_slot[k][d];
                data[d] = band[s];
                if (lo != need[2 * s] || hi != need[2 * s + 1])
                    data[d] = add_view(g, band[s], lo - need[2 * s], hi - need[2 * s], prec, 1);
                if (data[d] < 0) goto oom;
            }
            const IrTensor *t = &g->tensors[q->out];
            if (k == r->len - 1) {
                band[o] = parts[b] = add_view(g, dst, o0, o1, prec, 0);
            } else {
                int64_t dims[4] = {1, o1 - o0, t->dims[2], t->dims[3]};
                const char *name = ir_sprintf(g, "%s[band %d]", t->name, b);
                band[o] = name ? ir_add_tensor(g, name, t->dtype, 4, dims) : -1;
                if (band[o] >= 0) g->tensors[band[o]].q = g->tensors[q->out].q;
            }
            if (band[o] < 0 || add_band_op(g, q, data, band[o], o0, o1, lo, hi) < 0) goto oom;
        }
    }
    if (ir_add_op(g, OP_CONCATENATION, n, parts, 1, &dst) < 0) goto oom;
    g->ops[g->n_ops - 1].elided = 1;
    g->ops[g->n_ops - 1].prec = prec;
    free(parts);
    for (int i = r->first; i <= r->last; i++) g->ops[i].dead = 1;
    if (move_ops(g, r->last + 1, n_before)) return -1;
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
    int *from = malloc(sizeof(int) * (size_t)g->n_tensors), *to = malloc(sizeof(int) * (size_t)g->n_tensors);
    Region *r = malloc(sizeof *r), *cand = malloc(sizeof *cand);
    int rc = 0;
    if (!live0 || !live_ws || !from || !to || !r || !cand || plan_live_bytes(g, 0, live0) < 0 ||
        plan_live_bytes(g, 1, live_ws) < 0) {
        rc = diag_internal(d, "out of memory");
        goto done;
    }
    /* Each tensor's live ops in the plan as it is: its producer to its last reader (a graph output: to the
     * end); -1 when no live op writes it (graph inputs, constants, a fused op's intermediate). */
    for (int t = 0; t < g->n_tensors; t++) from[t] = g->tensors[t].producer, to[t] = g->tensors[t].is_output ? g->n_ops : -1;
    for (int i = 0; i < g->n_ops; i++)
        for (int k = 0; !g->ops[i].dead && k < g->ops[i].n_in; k++)
            if (g->ops[i].in[k] >= 0) to[g->ops[i].in[k]] = i > to[g->ops[i].in[k]] ? i : to[g->ops[i].in[k]];
    int64_t before = 0, total_macs = 0;
    Node nodes[2];
    for (int i = 0; i < g->n_ops; i++) {
        if (g->ops[i].dead) continue;
        if (live_ws[i] > before) before = live_ws[i];
        /* A fused convolution: its ops' MACs (the depthwise's are not in the convolution's count). */
        int m = op_nodes(g, i, nodes);
        const OpDef *def = op_def(g->ops[i].kind);
        if (m == 2) total_macs += nodes[0].macs + nodes[1].macs;
        else total_macs += def && def->macs ? def->macs(g, &g->ops[i]) : 0;
    }
    int budget = g->max_arena >= 0;
    Choice best = {-1, 0, 0, before, 0};
    for (int i = 0; (!budget || before > g->max_arena) && i < g->n_ops; i++) {
        if (!op_nodes(g, i, nodes)) continue;
        memset(cand, 0, sizeof *cand);
        cand->first = i;
        for (int j = i; j < g->n_ops; j++) {
            if (g->ops[j].dead) continue;
            int m = op_nodes(g, j, nodes), fits = m > 0;
            for (int k = 0; k < m && fits; k++) fits = region_add(cand, &nodes[k]) == 0;
            if (!fits) break;
            cand->last = j;
            if (cand->len < 2) continue;
            /* It ends here when only the last output is read after op j, no region tensor is a graph
             * output or state, and every tensor the region writes is an arena tensor (or the output). */
            int y = cand->out_slot[cand->len - 1], ends = 1;
            for (int s = 0; s < cand->n_slots && ends; s++) {
                const IrTensor *t = &g->tensors[cand->slot[s]];
                if (cand->made[s] >= 0 && s != y) ends = to[t->id] <= j && planned(t);
            }
            if (!ends) continue;
            int max_n = cand->node[cand->len - 1].out_h < PATCH_MAX_BANDS ? cand->node[cand->len - 1].out_h : PATCH_MAX_BANDS;
            for (int n = 2; n <= max_n; n++) {
                Choice c;
                estimate(g, cand, n, live0, live_ws, from, to, &c);
                int better;
                if (budget) {
                    if (c.peak > g->max_arena) continue;
                    better = best.first < 0 || c.extra_macs < best.extra_macs ||
                             (c.extra_macs == best.extra_macs && c.peak < best.peak);
                } else {
                    if ((double)c.extra_macs > PATCH_MAX_EXTRA * (double)total_macs || c.peak >= before) continue;
                    better = c.peak < best.peak || (c.peak == best.peak && c.extra_macs < best.extra_macs);
                }
                if (better) best = c, *r = *cand;
            }
        }
    }
    if (best.first >= 0) {
        int first_tfl = g->ops[r->first].tfl_index, last_tfl = g->ops[r->last].tfl_index;
        int32_t out_h = r->node[r->len - 1].out_h;
        if (rewrite(g, r, best.bands)) rc = diag_internal(d, "out of memory");
        else
            g->patch_report = ir_sprintf(g,
                                         "patch: TFLite operators #%d..#%d (%d ops) in %d bands of %d output rows; "
                                         "peak estimate %lld -> %lld bytes; extra MACs %lld (%.1f%% of %lld)\n",
                                         first_tfl, last_tfl, r->len, best.bands, (int)out_h, (long long)before,
                                         (long long)best.peak, (long long)best.extra_macs,
                                         total_macs ? 100.0 * (double)best.extra_macs / (double)total_macs : 0.0,
                                         (long long)total_macs);
    } else if (g->patch) {
        g->patch_report = ir_sprintf(g, "patch: no region found that lowers the peak (%lld bytes) within %.0f%% extra MACs\n",
                                     (long long)before, PATCH_MAX_EXTRA * 100);
    }
done:
    free(live0), free(live_ws), free(from), free(to), free(r), free(cand);
    return rc;
}
