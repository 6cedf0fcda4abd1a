/* sched_gather.c - GATHER of affine rows as one strided copy (see sched_gather.h).
 *
 * The converter's tf.signal.frame builds its index tensor at run time: RANGE plus offsets, an int32
 * ADD broadcast to [frames, frame_length] (BirdNET: 511 x 1024). Pass fold leaves it alone for its
 * size (4 MB as a constant in the generated C), and the reference GATHER then moves one 8-byte
 * slice per index. Here the ADD is evaluated at compile time, and when its values are frames the
 * GATHER becomes a copy of whole frames (memcpy of frame_length * inner bytes each): the index
 * tensor turns into a constant that no kernel reads, so it is not emitted, and the ADD is gone. */
#include "sched_gather.h"

#include <string.h>

#include "fold_const.h"
#include "ops.h"
#include "passes.h"
#include "tfl_import.h"

static int64_t index_at(const IrTensor *t, const void *v, int64_t k) {
    return t->dtype == IR_I64 ? ((const int64_t *)v)[k] : ((const int32_t *)v)[k];
}

/* Fills c when every batch's indices are rows of j consecutive positions starting at start + f * step,
 * all within the gathered axis. */
static int affine_rows(const rt_gather_params *p, const IrTensor *it, const void *v, rt_copy_params *c) {
    int64_t j = it->rank > 0 ? it->dims[it->rank - 1] : 1, rows, start, step, first, last, inner = p->inner_bytes;
    if (j < 1 || p->coords % j) return 0;
    rows = p->coords / j;
    start = index_at(it, v, 0);
    step = rows > 1 ? index_at(it, v, j) - start : 0;
    if (start < 0 || start >= p->axis_size || step <= -p->axis_size || step >= p->axis_size) return 0;
    first = step < 0 ? start + (rows - 1) * step : start;
    last = step < 0 ? start : start + (rows - 1) * step;
    if (first < 0 || last + j > p->axis_size) return 0;
    for (int64_t b = 0; b < p->batch; b++)
        for (int64_t f = 0; f < rows; f++)
            for (int64_t k = 0; k < j; k++)
                if (index_at(it, v, b * p->coords + f * j + k) != start + f * step + k) return 0;
    memset(c, 0, sizeof *c);
    c->rank = 3;
    c->dims[0] = p->batch, c->dims[1] = p->outer, c->dims[2] = (int32_t)rows;
    c->in_strides[0] = (int64_t)p->outer * p->axis_size * inner;
    c->in_strides[1] = (int64_t)p->axis_size * inner;
    c->in_strides[2] = step * inner;
    c->out_strides[0] = (int64_t)p->outer * p->coords * inner;
    c->out_strides[1] = (int64_t)p->coords * inner;
    c->out_strides[2] = j * inner;
    c->in_offset = start * inner;
    c->run = j * inner;
    return 1;
}

int sched_gather_rows(Graph *g, int i, Diag *d) {
    IrOp *op = &g->ops[i];
    IrTensor *it = &g->tensors[op->in[1]];
    const rt_gather_params *p = op->params;
    IrOp *prod = NULL;
    void *made[TFL_MAX_IO_PTRS];
    const void *v = it->data;
    rt_copy_params c;
    if (it->is_variable || it->unknown) return 0;
    if (!v) { /* made by an op of constants that only this GATHER reads: evaluated here, as pass fold would */
        int *readers, rc;
        if (it->producer < 0 || g->ops[it->producer].dead) return 0;
        prod = &g->ops[it->producer];
        if (!prod->params || prod->n_out != 1) return 0;
        for (int k = 0; k < prod->n_in; k++)
            if (prod->in[k] >= 0 && (!g->tensors[prod->in[k]].data || g->tensors[prod->in[k]].is_variable)) return 0;
        if (!(readers = pass_count_readers(g))) return diag_internal(d, "out of memory");
        if (pass_only_reader(g, readers, it->id) != i) return 0;
        if ((rc = fold_const_values(g, prod, made, d))) return rc == DIAG_INTERNAL ? rc : 0;
        v = made[0];
    }
    if (!affine_rows(p, it, v, &c)) return 0;
    rt_copy_params *k = ir_alloc(g, sizeof *k);
    if (!k) return diag_internal(d, "out of memory");
    *k = c;
    op->sched.kparams = k;
    op->sched.kind = SCHED_GATHER_ROWS;
    if (prod) fold_const_commit(g, prod, made); /* the reference interpreter still reads the values */
    return 0;
}
