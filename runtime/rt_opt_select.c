/* rt_opt_select.c - SELECT / SELECT_V2 and LOGICAL_AND / LOGICAL_OR over broadcast runs (BERT's attention mask:
 * the reference walks a three-input broadcast index and copies each element with memcpy, 4 ns an element).
 * The broadcast is collapsed to as few dimensions as the three inputs allow, then each innermost run is one
 * loop over pointers that step by their inputs' strides, with the all-contiguous and one-broadcast-operand
 * runs as plain loops the compiler vectorizes. The same element chosen or computed as the reference: equal
 * results. Portable C (every target). */
#include <string.h>

#include "mpcc_rt.h"
#include "rt_opt.h"

/* bc with size-1 dims dropped and adjacent dims merged where every input's strides allow it. */
static void collapse3(const rt_bcast3 *in, rt_bcast3 *out) {
    int32_t d, k;
    memset(out, 0, sizeof *out);
    for (d = 0; d < in->rank; d++) {
        int merge = out->rank > 0;
        if (in->dims[d] == 1) continue;
        for (k = 0; merge && k < 3; k++)
            merge = out->stride[k][out->rank - 1] == (int64_t)in->stride[k][d] * in->dims[d];
        if (merge) {
            out->dims[out->rank - 1] *= in->dims[d];
            for (k = 0; k < 3; k++) out->stride[k][out->rank - 1] = in->stride[k][d];
            continue;
        }
        out->dims[out->rank] = in->dims[d];
        for (k = 0; k < 3; k++) out->stride[k][out->rank] = in->stride[k][d];
        out->rank++;
    }
}

typedef void (*run3_fn)(void *ctx, int64_t o0, int64_t o1, int64_t o2, int64_t out, int64_t n, const int32_t *s);

/* Calls run for each innermost run: the three inputs' element offsets, the output's, the run's length and the
 * inputs' strides along it. */
static void walk3(const rt_bcast3 *full, run3_fn run, void *ctx) {
    rt_bcast3 bc;
    int32_t idx[RT_MAX_RANK] = {0}, s[3], d;
    int64_t off[3] = {0, 0, 0}, n_outer = 1, o, out = 0, inner;
    collapse3(full, &bc);
    if (bc.rank == 0) { /* a single element */
        s[0] = s[1] = s[2] = 0;
        run(ctx, 0, 0, 0, 0, 1, s);
        return;
    }
    inner = bc.dims[bc.rank - 1];
    for (d = 0; d < 3; d++) s[d] = bc.stride[d][bc.rank - 1];
    for (d = 0; d < bc.rank - 1; d++) n_outer *= bc.dims[d];
    for (o = 0; o < n_outer; o++, out += inner) {
        run(ctx, off[0], off[1], off[2], out, inner, s);
        for (d = bc.rank - 2; d >= 0; d--) {
            int32_t k;
            for (k = 0; k < 3; k++) off[k] += bc.stride[k][d];
            if (++idx[d] < bc.dims[d]) break;
            for (k = 0; k < 3; k++) off[k] -= (int64_t)bc.stride[k][d] * bc.dims[d];
            idx[d] = 0;
        }
    }
}

typedef struct {
    const uint8_t *cond;
    const void *x, *y;
    void *out;
} select_ctx;

#define SELECT_RUN(name, T)                                                                                     \
    static void name(void *v, int64_t o0, int64_t o1, int64_t o2, int64_t out, int64_t n, const int32_t *s) {   \
        const select_ctx *c = v;                                                                                \
        const uint8_t *cd = c->cond + o0;                                                                       \
        const T *x = (const T *)c->x + o1, *y = (const T *)c->y + o2;                                           \
        T *o = (T *)c->out + out;                                                                               \
        int64_t i;                                                                                              \
        if (s[0] == 1 && s[1] == 1 && s[2] == 1) {                                                              \
            for (i = 0; i < n; i++) o[i] = cd[i] ? x[i] : y[i];                                                 \
        } else if (s[0] == 1 && s[1] == 1 && s[2] == 0) {                                                       \
            const T yv = y[0];                                                                                  \
            for (i = 0; i < n; i++) o[i] = cd[i] ? x[i] : yv;                                                   \
        } else if (s[0] == 1 && s[1] == 0 && s[2] == 1) {                                                       \
            const T xv = x[0];                                                                                  \
            for (i = 0; i < n; i++) o[i] = cd[i] ? xv : y[i];                                                   \
        } else {                                                                                                \
            for (i = 0; i < n; i++, cd += s[0], x += s[1], y += s[2]) o[i] = *cd ? *x : *y;                     \
        }                                                                                                       \
    }
SELECT_RUN(select_run1, uint8_t)
SELECT_RUN(select_run2, uint16_t)
SELECT_RUN(select_run4, uint32_t)
SELECT_RUN(select_run8, uint64_t)

void rt_opt_select(const rt_select_params *p, const uint8_t *cond, const void *x, const void *y, void *out) {
    select_ctx c;
    run3_fn run;
    switch (p->elem_size) {
    case 1: run = select_run1; break;
    case 2: run = select_run2; break;
    case 4: run = select_run4; break;
    case 8: run = select_run8; break;
    default: rt_select(p, cond, x, y, out); return; /* other element sizes: the reference */
    }
    c.cond = cond, c.x = x, c.y = y, c.out = out;
    walk3(&p->bc, run, &c);
}

typedef struct {
    const uint8_t *a, *b;
    uint8_t *out;
    int32_t op;
} logical_ctx;

static void logical_run(void *v, int64_t o0, int64_t o1, int64_t o2, int64_t out, int64_t n, const int32_t *s) {
    const logical_ctx *c = v;
    const uint8_t *a = c->a + o0, *b = c->b + o1;
    uint8_t *o = c->out + out;
    int64_t i;
    (void)o2;
    if (c->op == RT_LOGICAL_AND) {
        if (s[0] == 1 && s[1] == 1)
            for (i = 0; i < n; i++) o[i] = (uint8_t)((a[i] != 0) & (b[i] != 0));
        else
            for (i = 0; i < n; i++, a += s[0], b += s[1]) o[i] = (uint8_t)(*a && *b);
    } else {
        if (s[0] == 1 && s[1] == 1)
            for (i = 0; i < n; i++) o[i] = (uint8_t)((a[i] != 0) | (b[i] != 0));
        else
            for (i = 0; i < n; i++, a += s[0], b += s[1]) o[i] = (uint8_t)(*a || *b);
    }
}

void rt_opt_logical(const rt_logical_params *p, const uint8_t *a, const uint8_t *b, uint8_t *out) {
    logical_ctx c;
    c.a = a, c.b = b, c.out = out, c.op = p->op;
    walk3(&p->bc, logical_run, &c);
}
