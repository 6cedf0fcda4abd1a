/* rt_opt_sdpa.c - litert-torch's odml.scaled_dot_product_attention composite (SCHED_SDPA) as one
 * kernel over the KV cache, in place of its decomposition (TRANSPOSEs and BROADCAST_TOs that copy
 * the whole cache for every head, a MUL over the whole K cache, two BATCH_MATMULs and a SOFTMAX
 * over every cache position each step).
 *
 * Per query row and head: scores against the keys of the head's KV group, plus the additive mask;
 * the keys whose mask is below -1e30 (the export's -FLT_MAX: the causal mask's future positions and
 * the cache's unused rows) are skipped when the row has any other key: their exp(score - max) is
 * exactly 0 in the decomposition too, so skipping them changes no result, and a decode step
 * reads only the cache rows written so far. Then max, exp, sum and the weighted sum of V rows.
 * Threads split the (batch, query row, head) triples; each triple's steps are the same on any split. */
#include <math.h>

#include "mpcc_rt.h"
#include "rt_opt.h"
#include "rt_opt_internal.h"

#define MASKED (-1e30f)

/* One slot, a multiple of 64 bytes (slot t starts t times this after the first). */
size_t rt_opt_sdpa_scratch(const rt_opt_sdpa_params *p) {
    return ((size_t)p->kv_len * 8 + (size_t)p->head_dim * 4 + 64 + 63) / 64 * 64;
}

static float dot(const float *a, const float *b, int32_t n) {
    int32_t h = 0;
    float s = 0.0f;
#if RT_OPT_AVX2 && defined(__FMA__)
    __m256 acc0 = _mm256_setzero_ps(), acc1 = _mm256_setzero_ps();
    __m128 r;
    for (; h + 16 <= n; h += 16) {
        acc0 = _mm256_fmadd_ps(_mm256_loadu_ps(a + h), _mm256_loadu_ps(b + h), acc0);
        acc1 = _mm256_fmadd_ps(_mm256_loadu_ps(a + h + 8), _mm256_loadu_ps(b + h + 8), acc1);
    }
    for (; h + 8 <= n; h += 8) acc0 = _mm256_fmadd_ps(_mm256_loadu_ps(a + h), _mm256_loadu_ps(b + h), acc0);
    acc0 = _mm256_add_ps(acc0, acc1);
    r = _mm_add_ps(_mm256_castps256_ps128(acc0), _mm256_extractf128_ps(acc0, 1));
    r = _mm_add_ps(r, _mm_movehl_ps(r, r));
    r = _mm_add_ss(r, _mm_movehdup_ps(r));
    s = _mm_cvtss_f32(r);
#endif
    for (; h < n; h++) s += a[h] * b[h];
    return s;
}

/* Triples u in [lo, hi) of (b, t, n) = (u / (T N), u / N % T, u % N), in scratch s (one slot). */
static void sdpa_range(const rt_opt_sdpa_params *p, const float *q, const float *k, const float *v, const float *mask,
                       float *out, void *scratch, int64_t lo, int64_t hi) {
    const int32_t T = p->q_len, N = p->heads, G = p->kv_heads, S = p->kv_len, H = p->head_dim;
    const int32_t per_group = N / G;
    float *sc = (float *)(((uintptr_t)scratch + 63) & ~(uintptr_t)63);
    float *acc = sc + S;
    int32_t *idx = (int32_t *)(acc + H); /* the row's keys (the masked ones left out), found once for all heads */
    const float *m = NULL;
    int64_t u, row = -1;
    int32_t j, h, nk = 0, i;
    for (u = lo; u < hi; u++) {
        const int32_t n = (int32_t)(u % N), g = n / per_group;
        const int64_t bt = u / N; /* b * T + t */
        const int32_t b = (int32_t)(bt / T), t = (int32_t)(bt % T);
        const float *qr = q + u * H;
        float mx = -INFINITY, sum = 0.0f, inv;
        if (bt != row) {
            int skip = 0;
            row = bt;
            m = mask ? mask + (int64_t)b * p->mask_sb + (int64_t)t * p->mask_st : NULL;
            if (m)
                for (j = 0; j < S && !skip; j++) skip = !(m[j] < MASKED);
            for (j = 0, nk = 0; j < S; j++)
                if (!(skip && m[j] < MASKED)) idx[nk++] = j;
        }
        for (i = 0; i < nk; i++) {
            float s;
            j = idx[i];
            s = dot(qr, k + (((int64_t)b * S + j) * G + g) * H, H) * p->scale;
            if (m) s += m[j];
            sc[j] = s;
            if (s > mx) mx = s;
        }
        for (h = 0; h < H; h++) acc[h] = 0.0f;
        for (i = 0; i < nk; i++) {
            const float *vr = v + (((int64_t)b * S + idx[i]) * G + g) * H;
            float e;
            j = idx[i];
            e = rt_opt_expf(sc[j] - mx);
            sum += e;
            for (h = 0; h < H; h++) acc[h] += e * vr[h];
        }
        inv = 1.0f / sum;
        {
            float *o = out + u * H;
            for (h = 0; h < H; h++) o[h] = acc[h] * inv;
        }
    }
}

typedef struct sdpa_job {
    const rt_opt_sdpa_params *p;
    const float *q, *k, *v, *mask;
    float *out;
    unsigned char *scratch;
    int64_t units;
    int32_t tasks;
} sdpa_job;

static void sdpa_task(void *arg, int t) {
    const sdpa_job *j = (const sdpa_job *)arg;
    const int64_t lo = j->units * t / j->tasks, hi = j->units * (t + 1) / j->tasks;
    sdpa_range(j->p, j->q, j->k, j->v, j->mask, j->out, j->scratch + (size_t)t * rt_opt_sdpa_scratch(j->p), lo, hi);
}

void rt_opt_sdpa_f32(const rt_opt_sdpa_params *p, const float *q, const float *k, const float *v, const float *mask,
                     float *out, void *scratch, const mpcc_parallel *par) {
    sdpa_job j;
    j.units = (int64_t)p->batch * p->q_len * p->heads;
    j.tasks = rt_opt_tasks(par, p->slots > 1 ? p->slots : 1);
    if (j.tasks > j.units) j.tasks = (int32_t)j.units;
    if (j.tasks <= 1) {
        sdpa_range(p, q, k, v, mask, out, scratch, 0, j.units);
        return;
    }
    j.p = p, j.q = q, j.k = k, j.v = v, j.mask = mask, j.out = out;
    j.scratch = (unsigned char *)scratch;
    par->run(par->pool, sdpa_task, &j, j.tasks);
}
