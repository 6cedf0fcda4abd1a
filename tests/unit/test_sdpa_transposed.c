/* test_sdpa_transposed.c - rt_opt_sdpa_f32 with `transposed` (odml.sdpa_transposed: q and out
 * [B, N, T, H], k [B, G, S, H], v [B, G, H, S], a boolean mask selecting the score mask_fill):
 *  1. against the generative API's layout (`transposed` 0: q [B, T, N, H], k and v [B, S, G, H], an
 *     additive mask of 0 and -FLT_MAX) on the same values rearranged, bit for bit, where masked keys
 *     are skipped by both (causal masks, fill -10000, every row with a visible key);
 *  2. against the decomposition computed directly (every key's score, the masked ones mask_fill, a
 *     softmax over all of them, P.V), within 1e-5 relative, on random boolean masks, rows with no
 *     visible key, and fills near the scores (where the masked keys' exp is not 0 and the kernel must
 *     take them); batch 2 with a mask per batch (the error over max |v|, 2);
 *  3. on a parallel-for (tasks in reverse order on the calling thread) the same bits as one call.
 * The seed is printed; MPCC_SEED=<n> reproduces a run. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpcc_rt.h"
#include "rt_opt.h"

#include "unit_check.h"

static void run_reverse(void *pool, void (*task)(void *arg, int index), void *arg, int n) {
    (void)pool;
    for (int i = n - 1; i >= 0; i--) task(arg, i);
}

static float *floats(int64_t n) { return malloc(sizeof(float) * (size_t)(n > 0 ? n : 1)); }

/* The decomposition: scores q.k (times scale) or fill, softmax over all S keys, P.V; in double. */
static void reference(const rt_opt_sdpa_params *p, const float *q, const float *k, const float *v,
                      const unsigned char *m, float *out) {
    const int B = p->batch, T = p->q_len, N = p->heads, G = p->kv_heads, S = p->kv_len, H = p->head_dim;
    double *sc = malloc(sizeof(double) * (size_t)S);
    for (int b = 0; b < B; b++)
        for (int n = 0; n < N; n++)
            for (int t = 0; t < T; t++) {
                const int g = n / (N / G);
                const float *qr = q + (((int64_t)b * N + n) * T + t) * H;
                const unsigned char *mr = m + (int64_t)b * p->mask_sb + (int64_t)t * p->mask_st;
                double mx = -INFINITY, sum = 0.0;
                for (int j = 0; j < S; j++) {
                    double s = 0.0;
                    for (int h = 0; h < H; h++) s += (double)qr[h] * k[(((int64_t)b * G + g) * S + j) * H + h];
                    sc[j] = mr[j] ? s * p->scale : p->mask_fill;
                    if (sc[j] > mx) mx = sc[j];
                }
                for (int j = 0; j < S; j++) sum += sc[j] = exp(sc[j] - mx);
                for (int h = 0; h < H; h++) {
                    double a = 0.0;
                    for (int j = 0; j < S; j++) a += sc[j] * v[(((int64_t)b * G + g) * H + h) * S + j];
                    out[(((int64_t)b * N + n) * T + t) * H + h] = (float)(a / sum);
                }
            }
    free(sc);
}

/* kind 0: causal from pos0, fill -10000; 1: random mask bytes, some rows empty, fill near the scores. */
static int one_case(int B, int T, int N, int G, int S, int H, int pos0, int kind, int threads, char *msg, size_t cap) {
    const int per_mask_b = rnd_in(0, 1) && B > 1;
    rt_opt_sdpa_params p = {B, T, N, G, S, H, 0.25f, per_mask_b ? T * S : 0, S, threads, 1, -10000.0f};
    rt_opt_sdpa_params p0 = p;
    const int64_t nq = (int64_t)B * N * T * H, nk = (int64_t)B * G * S * H, nm = (int64_t)(per_mask_b ? B : 1) * T * S;
    float *q = floats(nq), *k = floats(nk), *v = floats(nk), *q0 = floats(nq), *k0 = floats(nk), *v0 = floats(nk);
    float *fm = floats(nm), *ref = floats(nq), *got = floats(nq), *par_got = floats(nq), *out0 = floats(nq);
    unsigned char *m = malloc((size_t)nm), *scratch = malloc(rt_opt_sdpa_scratch(&p) * (size_t)threads);
    mpcc_parallel par = {run_reverse, NULL, threads};
    int ok = 1;
    for (int64_t i = 0; i < nq; i++) q[i] = rnd_f();
    for (int64_t i = 0; i < nk; i++) k[i] = rnd_f(), v[i] = rnd_f();
    for (int64_t i = 0; i < nm; i++) {
        const int t = (int)(i / S % T), j = (int)(i % S);
        m[i] = kind == 0 ? j <= pos0 + t : rnd_in(0, 3) != 0;
    }
    if (kind == 1) {
        p.mask_fill = (float)rnd_in(-8, 2); /* the masked keys' exp is far from 0 */
        if (T > 1) memset(m, 0, (size_t)S); /* a row with no visible key */
    }
    rt_opt_sdpa_f32(&p, q, k, v, m, got, scratch, NULL);
    rt_opt_sdpa_f32(&p, q, k, v, m, par_got, scratch, &par);
    if (memcmp(got, par_got, sizeof(float) * (size_t)nq)) {
        ok = 0;
        if (!msg[0]) snprintf(msg, cap, "parallel-for differs: B %d T %d heads %d/%d S %d H %d", B, T, N, G, S, H);
    }
    reference(&p, q, k, v, m, ref);
    {
        double worst = 0.0;
        for (int64_t i = 0; i < nq; i++) {
            const double e = fabs((double)got[i] - ref[i]) / 2.0; /* over max |v| */
            if (!(e <= worst)) worst = e;
        }
        if (!(worst < 1e-5)) {
            ok = 0;
            if (!msg[0])
                snprintf(msg, cap, "against the decomposition %.3g: kind %d B %d T %d heads %d/%d S %d H %d fill %g", worst,
                         kind, B, T, N, G, S, H, (double)p.mask_fill);
        }
    }
    if (kind == 0) { /* the same values in the generative API's layout, an additive mask */
        p0.transposed = 0, p0.mask_fill = 0.0f;
        for (int b = 0; b < B; b++)
            for (int n = 0; n < N; n++)
                for (int t = 0; t < T; t++)
                    for (int h = 0; h < H; h++)
                        q0[(((int64_t)b * T + t) * N + n) * H + h] = q[(((int64_t)b * N + n) * T + t) * H + h];
        for (int b = 0; b < B; b++)
            for (int g = 0; g < G; g++)
                for (int j = 0; j < S; j++)
                    for (int h = 0; h < H; h++) {
                        k0[(((int64_t)b * S + j) * G + g) * H + h] = k[(((int64_t)b * G + g) * S + j) * H + h];
                        v0[(((int64_t)b * S + j) * G + g) * H + h] = v[(((int64_t)b * G + g) * H + h) * S + j];
                    }
        for (int64_t i = 0; i < nm; i++) fm[i] = m[i] ? 0.0f : -3.4028235e38f;
        rt_opt_sdpa_f32(&p0, q0, k0, v0, fm, out0, scratch, NULL);
        for (int b = 0; b < B && ok; b++)
            for (int n = 0; n < N && ok; n++)
                for (int t = 0; t < T && ok; t++)
                    if (memcmp(out0 + (((int64_t)b * T + t) * N + n) * H, got + (((int64_t)b * N + n) * T + t) * H,
                               sizeof(float) * (size_t)H)) {
                        ok = 0;
                        if (!msg[0])
                            snprintf(msg, cap, "not the untransposed kernel's bits: B %d T %d heads %d/%d S %d H %d", B,
                                     T, N, G, S, H);
                    }
    }
    free(q), free(k), free(v), free(q0), free(k0), free(v0), free(fm), free(ref), free(got), free(par_got);
    free(out0), free(m), free(scratch);
    return ok;
}

int main(void) {
    char msg[2][200] = {"", ""};
    int bad[2] = {0, 0}, cases[2] = {0, 0};
    (void)max_rel_f32, (void)max_err_over_bound, (void)count_diff_i8, (void)rnd_requant;
    unit_seed(20261130, rt_opt_isa());
    for (int it = 0; it < 160; it++) {
        const int kind = it & 1, G = rnd_in(1, 3), N = G * rnd_in(1, 4), S = rnd_in(1, 80);
        const int T = rnd_in(1, S < 9 ? S : 9), B = rnd_in(1, 2);
        bad[kind] += !one_case(B, T, N, G, S, rnd_in(1, 40), rnd_in(0, S - T), kind, rnd_in(2, 4), msg[kind], sizeof msg[kind]);
        cases[kind]++;
    }
    bad[0] += !one_case(1, 1, 4, 2, 64, 16, 20, 0, 2, msg[0], sizeof msg[0]), cases[0]++; /* the tiny decoders' decode */
    bad[0] += !one_case(1, 8, 4, 2, 64, 16, 0, 0, 2, msg[0], sizeof msg[0]), cases[0]++;  /* and prefill */
    {
        char detail[300];
        snprintf(detail, sizeof detail, "%s%s%d of %d cases differ", msg[0], msg[0][0] ? "; " : "", bad[0], cases[0]);
        check(bad[0] == 0, "transposed, causal: the untransposed kernel's bits, the decomposition within 1e-5", detail);
        snprintf(detail, sizeof detail, "%s%s%d of %d cases differ", msg[1], msg[1][0] ? "; " : "", bad[1], cases[1]);
        check(bad[1] == 0, "transposed, random masks, empty rows, fills near the scores: the decomposition within 1e-5",
              detail);
    }
    printf("%d passed, %d failed\n", passes, failures);
    return failures != 0;
}
