/* rt_opt_fc_hybrid_par.c - the hybrid FULLY_CONNECTED (rt_opt_fc_hybrid) over the caller's threads
 * (mpcc --threads; a signature's or subgraph 0's run_parallel). Several input rows (prefill): each
 * task runs a contiguous share of the rows against all the weights (the rows' quantization is not
 * repeated; the weights are read once per task, from the shared cache). One input row (decode, a
 * GEMV streaming the weights once): each task takes a share of the output channels, in blocks of
 * 32, with their weight rows, scales and bias. Every output is computed by the same steps as in one
 * call (exact int32 sums; per-row quantization and per-channel float steps), so the results are
 * bit-identical to rt_opt_fc_hybrid's whatever the number of tasks. Task t uses scratch slot t. */
#include "mpcc_rt.h"
#include "rt_opt.h"

size_t rt_opt_fc_hybrid_slot_bytes(int32_t batches, int32_t in_depth, int32_t out_depth) {
    return (rt_opt_fc_hybrid_scratch(batches, in_depth, out_depth) + 63) / 64 * 64;
}

typedef struct hybrid_job {
    const rt_fc_params *p;
    const float *in, *bias;
    const int8_t *w;
    float *out;
    unsigned char *scratch;
    size_t slot;
    int32_t tasks;
} hybrid_job;

#define HYBRID_BLOCK 32 /* output channels: whole blocks of the VNNI GEMM and of the GEMV's four rows */

static void hybrid_task(void *arg, int t) {
    const hybrid_job *j = (const hybrid_job *)arg;
    rt_fc_params q = *j->p;
    const int32_t K = q.in_depth, N = q.out_depth;
    void *s = j->scratch + (size_t)t * j->slot;
    int32_t lo, hi;
    if (q.batches > 1) {
        rt_opt_task_share(q.batches, t, j->tasks, &lo, &hi);
        if (hi <= lo) return;
        q.batches = hi - lo;
        rt_opt_fc_hybrid(&q, j->in + (int64_t)lo * K, j->w, j->bias, j->out + (int64_t)lo * N, s);
        return;
    }
    rt_opt_task_share((N + HYBRID_BLOCK - 1) / HYBRID_BLOCK, t, j->tasks, &lo, &hi);
    lo *= HYBRID_BLOCK;
    hi = hi * HYBRID_BLOCK < N ? hi * HYBRID_BLOCK : N;
    if (hi <= lo) return;
    q.out_depth = hi - lo;
    if (q.w_scales) q.w_scales += lo;
    rt_opt_fc_hybrid(&q, j->in, j->w + (int64_t)lo * K, j->bias ? j->bias + lo : NULL, j->out + lo, s);
}

void rt_opt_fc_hybrid_par(const rt_fc_params *p, const float *in, const int8_t *w, const float *bias, float *out,
                          void *scratch, int32_t slots, const mpcc_parallel *par) {
    const int32_t units = p->batches > 1 ? p->batches : (p->out_depth + HYBRID_BLOCK - 1) / HYBRID_BLOCK;
    hybrid_job j;
    j.tasks = rt_opt_tasks(par, slots);
    if (j.tasks > units) j.tasks = units;
    if (j.tasks <= 1) {
        rt_opt_fc_hybrid(p, in, w, bias, out, scratch);
        return;
    }
    j.p = p, j.in = in, j.bias = bias, j.w = w, j.out = out;
    j.scratch = (unsigned char *)scratch;
    j.slot = rt_opt_fc_hybrid_slot_bytes(p->batches, p->in_depth, p->out_depth);
    par->run(par->pool, hybrid_task, &j, j.tasks);
}
