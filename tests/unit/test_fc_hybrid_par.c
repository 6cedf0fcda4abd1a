/* test_fc_hybrid_par.c - the decoders' kernels split over a parallel-for (mpcc --threads): the hybrid
 * FULLY_CONNECTED (rt_opt_fc_hybrid_par: input rows split, or a single row's output channels in blocks
 * of 32) and the SDPA kernel (rt_opt_sdpa_f32: (batch, query row, head) triples) against one call on
 * the calling thread, bit for bit. The parallel-for here runs the tasks one after another in reverse
 * order on the calling thread (any order is allowed), so each task's share, scratch slot and output
 * rows are checked without threads. Shapes: random small ones around the blocks, and the ~100M
 * decoder's (64 and 1 rows of 768 -> 768, 768 -> 2048, 2048 -> 768, 768 -> 16000; SDPA 12 heads on
 * 4 KV groups, a 1024-row cache, a causal mask). Also rt_opt_fc_hybrid_w4_par (4-bit weights, block-wise
 * and per-channel: 1 to 70 rows, blocks 8 to 128) against one rt_opt_fc_hybrid_w4 call. The seed is printed; MPCC_SEED=<n> reproduces a run. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpcc_rt.h"
#include "rt_opt.h"
#include "sched_pack.h"

#include "unit_check.h"

static int tasks_run;

static void run_reverse(void *pool, void (*task)(void *arg, int index), void *arg, int n) {
    (void)pool;
    for (int i = n - 1; i >= 0; i--) task(arg, i);
    tasks_run += n;
}

static float *floats(int64_t n) { return malloc(sizeof(float) * (size_t)(n > 0 ? n : 1)); }

static int fc_case(int B, int K, int N, int asym, int per_channel, int threads, char *msg, size_t cap) {
    rt_fc_params p;
    float *x = floats((int64_t)B * K), *bias = floats(N), *ws = floats(N), *ref = floats((int64_t)B * N),
          *got = floats((int64_t)B * N);
    int8_t *w = malloc((size_t)N * (size_t)K);
    size_t slot = rt_opt_fc_hybrid_slot_bytes(B, K, N);
    unsigned char *scratch = malloc(slot * (size_t)threads + 64);
    mpcc_parallel par = {run_reverse, NULL, threads};
    int same;
    memset(&p, 0, sizeof p);
    p.batches = B, p.in_depth = K, p.out_depth = N, p.act_min = -1e30f, p.act_max = 1e30f;
    p.asymmetric = asym, p.w_scale = 0.01f, p.w_scales = per_channel ? ws : NULL;
    for (int64_t i = 0; i < (int64_t)B * K; i++) x[i] = rnd_f() + (asym ? 1.5f : 0.0f);
    for (int64_t i = 0; i < (int64_t)N * K; i++) w[i] = (int8_t)rnd_in(-128, 127);
    for (int i = 0; i < N; i++) bias[i] = rnd_f(), ws[i] = 0.001f * (float)rnd_in(1, 50);
    rt_opt_fc_hybrid(&p, x, w, bias, ref, scratch);
    memset(got, 0xA5, sizeof(float) * (size_t)B * (size_t)N); /* poisoned: every output must be written */
    rt_opt_fc_hybrid_par(&p, x, w, bias, got, scratch, threads, &par);
    same = !memcmp(ref, got, sizeof(float) * (size_t)B * (size_t)N);
    if (!same && !msg[0]) snprintf(msg, cap, "first at B %d, K %d, N %d, asymmetric %d, %d threads", B, K, N, asym, threads);
    free(x), free(bias), free(ws), free(ref), free(got), free(w), free(scratch);
    return same;
}

/* rt_opt_fc_hybrid_w4_par against one rt_opt_fc_hybrid_w4 call: block > 0 block-wise (fp16 scales, groups of
 * 8 rows split in pairs, the rows quantized once), else per-channel 4-bit weights (rows or outputs split). */
static int w4_case(int B, int K, int N, int block, int asym, int threads, char *msg, size_t cap) {
    rt_fc_params p;
    const int nb = block ? K / block : 1;
    const size_t wbytes = block ? (size_t)sched_pack_int4_blocks_bytes(N, K, block) : (size_t)N * (size_t)((K + 63) / 64 * 32);
    const size_t ss = block ? rt_opt_fc_hybrid_w4b_scratch(B, K, block) + 64
                            : rt_opt_fc_hybrid_w4_slot_bytes(B, K, N) * (size_t)threads + 64;
    float *x = floats((int64_t)B * K), *bias = floats(N), *ws = floats((int64_t)N * nb), *ref = floats((int64_t)B * N),
          *got = floats((int64_t)B * N);
    int8_t *w = malloc((size_t)N * (size_t)K);
    uint8_t *w4 = malloc(wbytes);
    unsigned char *scratch = malloc(ss);
    mpcc_parallel par = {run_reverse, NULL, threads};
    int same;
    memset(&p, 0, sizeof p);
    p.batches = B, p.in_depth = K, p.out_depth = N, p.act_min = -1e30f, p.act_max = 1e30f;
    p.asymmetric = asym, p.w_scale = 0.01f, p.w_scales = ws, p.block = block;
    for (int64_t i = 0; i < (int64_t)B * K; i++) x[i] = rnd_f() + (asym ? 1.5f : 0.0f);
    for (int64_t i = 0; i < (int64_t)N * K; i++) w[i] = (int8_t)rnd_in(-8, 7);
    for (int64_t i = 0; i < (int64_t)N * nb; i++) ws[i] = (float)rnd_in(1, 2000) / 65536.0f; /* fp16 values */
    for (int i = 0; i < N; i++) bias[i] = rnd_f();
    if (block)
        sched_pack_int4_blocks(w, ws, N, K, block, w4);
    else
        sched_pack_int4(w, N, K, w4);
    rt_opt_fc_hybrid_w4(&p, x, w4, bias, ref, scratch);
    memset(got, 0xA5, sizeof(float) * (size_t)B * (size_t)N); /* poisoned: every output must be written */
    rt_opt_fc_hybrid_w4_par(&p, x, w4, bias, got, scratch, threads, &par);
    same = !memcmp(ref, got, sizeof(float) * (size_t)B * (size_t)N);
    if (!same && !msg[0])
        snprintf(msg, cap, "first at B %d, K %d, N %d, block %d, %d threads", B, K, N, block, threads);
    free(x), free(bias), free(ws), free(ref), free(got), free(w), free(w4), free(scratch);
    return same;
}

static int sdpa_case(int T, int Nh, int G, int S, int H, int pos0, int threads, char *msg, size_t cap) {
    rt_opt_sdpa_params p = {1, T, Nh, G, S, H, 0.125f, 0, S, threads, 0, 0.0f};
    float *q = floats((int64_t)T * Nh * H), *k = floats((int64_t)S * G * H), *v = floats((int64_t)S * G * H);
    float *mask = floats((int64_t)T * S), *ref = floats((int64_t)T * Nh * H), *got = floats((int64_t)T * Nh * H);
    unsigned char *scratch = malloc(rt_opt_sdpa_scratch(&p) * (size_t)threads);
    mpcc_parallel par = {run_reverse, NULL, threads};
    int same;
    for (int64_t i = 0; i < (int64_t)T * Nh * H; i++) q[i] = rnd_f();
    for (int64_t i = 0; i < (int64_t)S * G * H; i++) k[i] = rnd_f(), v[i] = rnd_f();
    for (int t = 0; t < T; t++) /* causal: row t sees positions <= pos0 + t */
        for (int j = 0; j < S; j++) mask[(int64_t)t * S + j] = j <= pos0 + t ? 0.0f : -3.4028235e38f;
    rt_opt_sdpa_f32(&p, q, k, v, mask, ref, scratch, NULL);
    memset(got, 0xA5, sizeof(float) * (size_t)T * (size_t)Nh * (size_t)H);
    rt_opt_sdpa_f32(&p, q, k, v, mask, got, scratch, &par);
    same = !memcmp(ref, got, sizeof(float) * (size_t)T * (size_t)Nh * (size_t)H);
    if (!same && !msg[0])
        snprintf(msg, cap, "first at T %d, heads %d/%d, S %d, H %d, %d threads", T, Nh, G, S, H, threads);
    free(q), free(k), free(v), free(mask), free(ref), free(got), free(scratch);
    return same;
}

int main(void) {
    static const int big[][3] = {{64, 768, 768}, {64, 768, 2048}, {64, 2048, 768}, {1, 768, 768},
                                 {1, 768, 2048}, {1, 2048, 768}, {1, 768, 16000}, {3, 768, 100}};
    char msg[160] = "";
    int bad = 0, cases = 0;
    (void)max_rel_f32, (void)max_err_over_bound, (void)count_diff_i8, (void)rnd_requant;
    unit_seed(20261130, rt_opt_isa());
    for (int it = 0; it < 120; it++) {
        const int B = it % 3 == 0 ? 1 : rnd_in(2, 12), K = rnd_in(1, 300), N = rnd_in(1, 200);
        bad += !fc_case(B, K, N, it & 1, (it >> 1) & 1, rnd_in(2, 5), msg, sizeof msg), cases++;
    }
    for (unsigned i = 0; i < sizeof big / sizeof big[0]; i++)
        bad += !fc_case(big[i][0], big[i][1], big[i][2], (int)(i & 1), 1, 2, msg, sizeof msg), cases++;
    {
        char detail[220];
        snprintf(detail, sizeof detail, "%s%s%d of %d cases differ", msg, msg[0] ? "; " : "", bad, cases);
        check(bad == 0 && tasks_run > 0, "rt_opt_fc_hybrid_par == rt_opt_fc_hybrid, bit for bit", detail);
    }
    msg[0] = '\0', bad = cases = 0;
    for (int it = 0; it < 120; it++) {
        static const int blocks[] = {0, 16, 32, 64, 128, 8};
        const int block = blocks[it % 6], B = it % 4 == 0 ? 1 : rnd_in(2, 70), N = rnd_in(1, 90);
        const int K = block ? block * rnd_in(1, 6) : rnd_in(1, 300);
        bad += !w4_case(B, K, N, block, it & 1, rnd_in(2, 5), msg, sizeof msg), cases++;
    }
    for (unsigned i = 0; i < 6; i++) /* the ~100M decoder's, block 32 and per-channel */
        bad += !w4_case(big[i][0], big[i][1], big[i][2], i < 3 ? 32 : (int)(i & 1) * 32, 1, 2, msg, sizeof msg), cases++;
    {
        char detail[220];
        snprintf(detail, sizeof detail, "%s%s%d of %d cases differ", msg, msg[0] ? "; " : "", bad, cases);
        check(bad == 0, "rt_opt_fc_hybrid_w4_par == rt_opt_fc_hybrid_w4 (block-wise and per-channel), bit for bit",
              detail);
    }
    msg[0] = '\0', bad = cases = 0;
    for (int it = 0; it < 60; it++) {
        const int G = rnd_in(1, 4), Nh = G * rnd_in(1, 4), S = rnd_in(1, 80), T = rnd_in(1, S < 9 ? S : 9);
        bad += !sdpa_case(T, Nh, G, S, rnd_in(1, 40), rnd_in(0, S - T), rnd_in(2, 5), msg, sizeof msg), cases++;
    }
    bad += !sdpa_case(1, 12, 4, 1024, 64, 500, 2, msg, sizeof msg), cases++;
    bad += !sdpa_case(64, 12, 4, 1024, 64, 0, 2, msg, sizeof msg), cases++;
    {
        char detail[220];
        snprintf(detail, sizeof detail, "%s%s%d of %d cases differ", msg, msg[0] ? "; " : "", bad, cases);
        check(bad == 0, "rt_opt_sdpa_f32 on a parallel-for == on the calling thread, bit for bit", detail);
    }
    printf("%d passed, %d failed\n", passes, failures);
    return failures != 0;
}
