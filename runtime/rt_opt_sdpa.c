/* rt_opt_sdpa.c - litert-torch's odml.scaled_dot_product_attention and odml.sdpa_transposed composites
 * (SCHED_SDPA) as one
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

/* Whether key j of a mask row is masked: the additive mask's -FLT_MAX, the boolean mask's 0 byte. */
static int masked(const rt_opt_sdpa_params *p, const void *m, int32_t j) {
    return p->transposed ? !((const unsigned char *)m)[j] : ((const float *)m)[j] < MASKED;
}

/* Triples u in [lo, hi) of (b, t, n) = (u / (T N), u / N % T, u % N), in scratch s (one slot).
 * transposed: the masked keys' score is mask_fill; they are left out of a row that has other keys only
 * where exp(mask_fill - max) is exactly 0 (max over the others: float exp is 0 below about -103.9),
 * else the head's row takes every key in order, as the decomposition does. */
static void sdpa_range(const rt_opt_sdpa_params *p, const float *q, const float *k, const float *v, const void *mask,
                       float *out, void *scratch, int64_t lo, int64_t hi) {
    const int32_t T = p->q_len, N = p->heads, G = p->kv_heads, S = p->kv_len, H = p->head_dim;
    const int32_t per_group = N / G, tr = p->transposed;
    float *sc = (float *)(((uintptr_t)scratch + 63) & ~(uintptr_t)63);
    float *acc = sc + S;
    int32_t *idx = (int32_t *)(acc + H); /* the row's keys (the masked ones left out), found once for all heads */
    const void *m = NULL;
    int64_t u, row = -1;
    int32_t j, h, nk = 0, i, skip = 0;
    for (u = lo; u < hi; u++) {
        const int32_t n = (int32_t)(u % N), g = n / per_group;
        const int64_t bt = u / N; /* b * T + t */
        const int32_t b = (int32_t)(bt / T), t = (int32_t)(bt % T);
        const int64_t qo = tr ? (((int64_t)b * N + n) * T + t) * H : u * H;
        const float *qr = q + qo;
        /* Key j's row: kb + j * ks; value j's element h: vb + j * vs + h * vh. */
        const float *kb = tr ? k + ((int64_t)b * G + g) * S * H : k + ((int64_t)b * S * G + g) * H;
        const float *vb = tr ? v + ((int64_t)b * G + g) * H * S : v + ((int64_t)b * S * G + g) * H;
        const int64_t ks = tr ? H : (int64_t)G * H, vs = tr ? 1 : (int64_t)G * H, vh = tr ? S : 1;
        float mx = -INFINITY, sum = 0.0f, inv;
        int32_t all = 0, nu;
        if (bt != row) {
            row = bt;
            skip = 0;
            m = mask ? (const unsigned char *)mask +
                           ((int64_t)b * p->mask_sb + (int64_t)t * p->mask_st) * (tr ? 1 : (int64_t)sizeof(float))
                     : NULL;
            if (m)
                for (j = 0; j < S && !skip; j++) skip = !masked(p, m, j);
            for (j = 0, nk = 0; j < S; j++)
                if (!(skip && masked(p, m, j))) idx[nk++] = j;
        }
        for (i = 0; i < nk; i++) {
            float s;
            j = idx[i];
            if (tr && m && masked(p, m, j))
                s = p->mask_fill;
            else {
                s = dot(qr, kb + j * ks, H) * p->scale;
                if (m && !tr) s += ((const float *)m)[j];
            }
            sc[j] = s;
            if (s > mx) mx = s;
        }
        if (tr && nk < S && !(p->mask_fill - mx < -110.0f)) { /* a masked key's exp would not be 0 */
            all = 1;
            for (j = 0; j < S; j++)
                if (masked(p, m, j)) sc[j] = p->mask_fill;
            if (p->mask_fill > mx) mx = p->mask_fill;
        }
        nu = all ? S : nk;
        for (h = 0; h < H; h++) acc[h] = 0.0f;
        for (i = 0; i < nu; i++) {
            const float *vr;
            float e;
            j = all ? i : idx[i];
            vr = vb + j * vs;
            e = rt_opt_expf(sc[j] - mx);
            sum += e;
            for (h = 0; h < H; h++) acc[h] += e * vr[h * vh];
        }
        inv = 1.0f / sum;
        {
            float *o = out + qo;
            for (h = 0; h < H; h++) o[h] = acc[h] * inv;
        }
    }
}

typedef struct sdpa_job {
    const rt_opt_sdpa_params *p;
    const float *q, *k, *v;
    const void *mask;
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

void rt_opt_sdpa_f32(const rt_opt_sdpa_params *p, const float *q, const float *k, const float *v, const void *mask,
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
