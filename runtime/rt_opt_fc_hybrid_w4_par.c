/* rt_opt_fc_hybrid_w4_par.c - the hybrid FULLY_CONNECTED on 4-bit weights (rt_opt_fc_hybrid_w4) over the
 * caller's threads (mpcc --threads). Block-wise weights: the input rows are quantized once, on the calling
 * thread, into the one scratch; each task then runs a contiguous share of the output groups, in pairs of 8-row
 * groups (the prefill tile's 16 outputs), for every input row, reading the shared quantized rows and writing its
 * own output columns. Per-channel weights: as rt_opt_fc_hybrid_par (several rows: a share of the rows each,
 * scratch slot t; one row: a share of the outputs in blocks of 32). Every output is computed by the same steps
 * as in one call, so the results are bit-identical to rt_opt_fc_hybrid_w4's whatever the number of tasks. */
#include "mpcc_rt.h"
#include "rt_opt.h"

#define W4_BLOCK 32 /* per-channel, one row: output channels a unit (whole blocks of the kernel's four rows) */

size_t rt_opt_fc_hybrid_w4_slot_bytes(int32_t batches, int32_t in_depth, int32_t out_depth) {
    return (rt_opt_fc_hybrid_w4_scratch(batches, in_depth, out_depth) + 63) / 64 * 64;
}

typedef struct w4_job {
    const rt_fc_params *p;
    const float *in, *bias;
    const uint8_t *w;
    float *out;
    unsigned char *scratch;
    size_t slot;
    int32_t tasks, units;
} w4_job;

static void w4b_task(void *arg, int t) {
    const w4_job *j = (const w4_job *)arg;
    const int32_t groups = (j->p->out_depth + 7) / 8;
    int32_t lo, hi;
    rt_opt_task_share(j->units, t, j->tasks, &lo, &hi);
    lo *= 2;
    hi = 2 * hi < groups ? 2 * hi : groups;
    if (hi > lo) rt_opt_fc_hybrid_w4b_groups(j->p, j->w, j->bias, j->out, j->scratch, lo, hi);
}

static void w4_task(void *arg, int t) {
    const w4_job *j = (const w4_job *)arg;
    rt_fc_params q = *j->p;
    const int32_t K = q.in_depth, N = q.out_depth;
    const int64_t rb = ((int64_t)K + 63) / 64 * 32; /* packed bytes a weight row */
    void *s = j->scratch + (size_t)t * j->slot;
    int32_t lo, hi;
    rt_opt_task_share(j->units, t, j->tasks, &lo, &hi);
    if (q.batches > 1) {
        if (hi <= lo) return;
        q.batches = hi - lo;
        rt_opt_fc_hybrid_w4(&q, j->in + (int64_t)lo * K, j->w, j->bias, j->out + (int64_t)lo * N, s);
        return;
    }
    lo *= W4_BLOCK;
    hi = hi * W4_BLOCK < N ? hi * W4_BLOCK : N;
    if (hi <= lo) return;
    q.out_depth = hi - lo;
    if (q.w_scales) q.w_scales += lo;
    rt_opt_fc_hybrid_w4(&q, j->in, j->w + (int64_t)lo * rb, j->bias ? j->bias + lo : NULL, j->out + lo, s);
}

void rt_opt_fc_hybrid_w4_par(const rt_fc_params *p, const float *in, const uint8_t *w, const float *bias, float *out,
                             void *scratch, int32_t slots, const mpcc_parallel *par) {
    w4_job j;
    j.p = p, j.in = in, j.bias = bias, j.w = w, j.out = out;
    j.scratch = (unsigned char *)scratch;
    if (p->block) {
        j.units = ((p->out_depth + 7) / 8 + 1) / 2;
        j.tasks = rt_opt_tasks(par, 0);
        if (j.tasks > j.units) j.tasks = j.units;
        if (j.tasks <= 1) {
            rt_opt_fc_hybrid_w4_blockwise(p, in, w, bias, out, scratch);
            return;
        }
        j.slot = 0;
        rt_opt_fc_hybrid_w4b_quantize(p, in, scratch);
        par->run(par->pool, w4b_task, &j, j.tasks);
        return;
    }
    j.units = p->batches > 1 ? p->batches : (p->out_depth + W4_BLOCK - 1) / W4_BLOCK;
    j.tasks = rt_opt_tasks(par, slots);
    if (j.tasks > j.units) j.tasks = j.units;
    if (j.tasks <= 1) {
        rt_opt_fc_hybrid_w4(p, in, w, bias, out, scratch);
        return;
    }
    j.slot = rt_opt_fc_hybrid_w4_slot_bytes(p->batches, p->in_depth, p->out_depth);
    par->run(par->pool, w4_task, &j, j.tasks);
}
