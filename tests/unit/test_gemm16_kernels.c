/* test_gemm16_kernels.c - the 16-bit-storage, f32-arithmetic GEMMs (bf16 / fp16 weights, f32 inputs as they are)
 * that a build takes where it has no 16-bit arithmetic: RT_OPT_GEMM16_ROWS_F32 / RT_OPT_FC_HALF_F32 (AVX-512
 * without AVX512-BF16: rt_opt_gemm16_avx512.c; AVX2 + FMA: rt_opt_gemm16_avx2.c, rt_opt_gemm16_rows_avx2.c)
 * against a scalar oracle on the widened weights: bf16 from two rows on (and every row tile) bit for bit the sum
 * from the bias through K in order, one fused product at a time (the f32 GEMM's order; on AVX-512 not in a lone
 * last panel, which keeps even-k and odd-k sums as the f32 GEMM's does there); fp16 and the one-row
 * kernels (GEMV: partial sums) within rounding. Random shapes: rows 1-40 (every tile size and split), partial
 * panels (tails of 1-15 columns), odd K, K in segments of odd lengths through a row table (a segment starting
 * at a pair's k1), the one-row kernels' groups of panels with a tail after them. And rt_opt_fc_half with no
 * scratch (the f32-activation plan's room) on every build. The seed is printed; MPCC_SEED=<n> reproduces a run. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpcc_rt.h"
#include "rt_opt.h"
#include "rt_opt_internal.h"
#include "sched_pack.h"

#include "unit_check.h"

#if defined(RT_OPT_GEMM16_AVX512)
#define RT_OPT_LONE_PAIRS 1
#else
#define RT_OPT_LONE_PAIRS 0
#endif

typedef struct {
    int32_t m, n, k, nseg, type, stride;
    float *a, *bias, *wf, *got, *want, *mag;
    const float **tab;
    uint16_t *w, *pw;
} problem;

/* A random problem: 16-bit weights (and their exact floats), f32 inputs in [-2, 2], each row's nseg segments
 * scattered within its 2 * stride values (tab), poisoned outputs. */
static void make(problem *q, int32_t m, int32_t n, int32_t k, int32_t nseg, int32_t type) {
    const int32_t np = (n + 15) / 16 * 16, k2 = (k + 1) / 2, seg = k / nseg;
    q->m = m, q->n = n, q->k = k, q->nseg = nseg, q->type = type, q->stride = k + rnd_in(0, 9);
    q->a = malloc(sizeof(float) * (size_t)(m * q->stride * 2));
    q->bias = malloc(sizeof(float) * (size_t)np);
    q->wf = malloc(sizeof(float) * (size_t)(n * k));
    q->got = malloc(sizeof(float) * (size_t)(m * n));
    q->want = malloc(sizeof(float) * (size_t)(m * n));
    q->mag = malloc(sizeof(float) * (size_t)(m * n));
    q->tab = malloc(sizeof(float *) * (size_t)(m * nseg));
    q->w = malloc(sizeof(uint16_t) * (size_t)(n * k));
    q->pw = malloc(sizeof(uint16_t) * (size_t)(np * 2 * k2));
    for (int i = 0; i < m * q->stride * 2; i++) q->a[i] = rnd_f();
    for (int r = 0; r < m; r++)
        for (int sg = 0; sg < nseg; sg++)
            q->tab[r * nseg + sg] = q->a + (int64_t)r * 2 * q->stride + rnd_in(0, 2 * q->stride - seg);
    for (int i = 0; i < n * k; i++) {
        q->w[i] = type == RT_BF16 ? rt_f32_to_bf16(rnd_f()) : rt_f32_to_f16(rnd_f());
        q->wf[i] = type == RT_BF16 ? rt_bf16_to_f32(q->w[i]) : rt_f16_to_f32(q->w[i]);
    }
    for (int i = 0; i < np; i++) q->bias[i] = i < n ? rnd_f() : 0.0f;
    sched_pack_half(q->w, n, k, q->pw);
    for (int i = 0; i < m * n; i++) q->got[i] = NAN;
}

static void drop(problem *q) {
    free(q->a), free(q->bias), free(q->wf), free(q->got), free(q->want), free(q->mag), free(q->tab), free(q->w),
        free(q->pw);
}

/* The oracle: row r's k-th input (through the table or contiguous, lda = stride, optionally rounded to the 16-bit
 * type), sums from the bias through K in order, one fmaf each, clamped to [-2.5, 3]; mag: the sum of |terms|. */
static void oracle(problem *q, int use_tab, int round_inputs) {
    const int32_t seg = q->k / q->nseg;
    for (int r = 0; r < q->m; r++)
        for (int j = 0; j < q->n; j++) {
            float s = q->bias[j], g = fabsf(q->bias[j]);
            for (int kk = 0; kk < q->k; kk++) {
                float x = use_tab ? q->tab[r * q->nseg + kk / seg][kk % seg] : q->a[(int64_t)r * q->stride + kk];
                if (round_inputs) x = q->type == RT_BF16 ? rt_bf16_to_f32(rt_f32_to_bf16(x)) : rt_f16_to_f32(rt_f32_to_f16(x));
                s = fmaf(x, q->wf[(int64_t)j * q->k + kk], s);
                g += fabsf(x * q->wf[(int64_t)j * q->k + kk]);
            }
            q->want[r * q->n + j] = fminf(3.0f, fmaxf(-2.5f, s));
            q->mag[r * q->n + j] = g;
        }
}

#if defined(RT_OPT_GEMM16_ROWS_F32) || defined(RT_OPT_FC_HALF_F32)
/* Whether m rows of K k take the widened path (each panel widened once to f32, then the f32 GEMM's tiles) */
static int widened(int32_t type, int32_t m, int32_t k) {
#if defined(RT_OPT_GEMM16_WIDEN)
    return rt_opt_gemm16_widens(type, m, k);
#else
    (void)type, (void)m, (void)k;
    return 0;
#endif
}
#endif

/* Whether column j's sum is kept as an even-k and an odd-k half (so within rounding of the K-order sum, not bit for
 * bit): on AVX-512 a lone last panel (the f32 GEMM's and the 16-bit kernels' alike) and, on the widened path (the
 * f32 GEMM's own tiles), a last pair of 17-24 columns (rt_opt_gemm.c's ukr_f32_512_24). */
static int split_column(const problem *q, int32_t j, int wide) {
    const int32_t panels = (q->n + 15) / 16, last_pair = (q->n - 1) / 32 * 32, in_pair = q->n - last_pair;
    if (!RT_OPT_LONE_PAIRS) return 0;
    if (panels % 2 && j / 16 == panels - 1) return 1;
    return wide && j >= last_pair && in_pair > 16 && in_pair <= 24;
}

/* Values of got that differ from want: bit for bit when exact (except split_column's), else beyond rounding
 * (max_err_over_bound). wide: the widened path ran. */
static int64_t differ(const problem *q, int exact, int wide) {
    int64_t d = 0;
    for (int i = 0; i < q->m * q->n; i++)
        d += exact && !split_column(q, i % q->n, wide) ? memcmp(&q->got[i], &q->want[i], sizeof(float)) != 0
                   : !(max_err_over_bound(&q->got[i], &q->want[i], &q->mag[i], 1, q->k) <= 1.0);
    return d;
}

static rt_opt_gemm_params params(const problem *q) {
    rt_opt_gemm_params g;
    memset(&g, 0, sizeof g);
    g.m = q->m, g.n = q->n, g.k = q->k, g.lda = q->stride, g.ldc = q->n, g.act_min = -2.5f, g.act_max = 3.0f;
    return g;
}

/* The row GEMM over a row table (or contiguous rows): every row count 1-40, tails, odd segments. */
static void test_rows(void) {
#if defined(RT_OPT_GEMM16_ROWS_F32)
    char msg[200];
    for (int t = 0; t < 60; t++) {
        const int32_t m = t < 24 ? 1 + t / 2 : rnd_in(1, 40), n = t % 3 == 0 ? 16 * rnd_in(1, 5) : rnd_in(1, 90);
        const int32_t nseg = rnd_in(1, 5), k = nseg * rnd_in(1, 19), type = t % 2 ? RT_F16 : RT_BF16, use_tab = t % 4 < 3;
        problem q;
        make(&q, m, n, k, nseg, type);
        rt_opt_gemm_params g = params(&q);
        int ran = RT_OPT_GEMM16_ROWS_F32(&g, type, m, q.a, use_tab ? q.tab : NULL, use_tab ? nseg : 1, q.pw, q.bias, q.got);
        oracle(&q, use_tab, 0);
        const int wide = widened(type, m, k);
        int64_t d = differ(&q, type == RT_BF16 || wide, wide);
        snprintf(msg, sizeof msg, "%s m %d n %d k %d = %d x %d%s: %lld of %d values differ", type == RT_BF16 ? "bf16" : "f16",
                 m, n, k, nseg, k / nseg, use_tab ? "" : " (rows)", (long long)d, m * n);
        check(ran && d == 0, "gemm16 rows = K-order sums on the widened weights", msg);
        drop(&q);
    }
#else
    printf("SKIP gemm16 rows: no 16-bit-storage f32 kernels in this build\n");
#endif
}

/* The FC entry: one row (the GEMV groups of four / two panels and the panels after them) and more rows, odd K. */
static void test_fc(void) {
#if defined(RT_OPT_FC_HALF_F32)
    char msg[200];
    for (int t = 0; t < 48; t++) {
        const int32_t m = t < 32 ? 1 : rnd_in(2, 40);
        const int32_t n = t % 4 == 0 ? 64 * rnd_in(1, 3) : t % 4 == 1 ? 32 * rnd_in(1, 3) + rnd_in(1, 31) : rnd_in(1, 150);
        const int32_t k = t % 3 == 0 ? 2 * rnd_in(0, 60) + 1 : rnd_in(1, 130), type = t % 2 ? RT_F16 : RT_BF16;
        problem q;
        make(&q, m, n, k, 1, type);
        q.stride = k; /* contiguous rows */
        rt_opt_gemm_params g = params(&q);
        int ran = RT_OPT_FC_HALF_F32(&g, type, q.a, q.pw, q.bias, q.got);
        oracle(&q, 0, 0);
        /* bf16 from two rows on: the K-order sums bit for bit; the GEMV (partial sums) and fp16 within rounding */
        const int wide = widened(type, m, k), exact = (type == RT_BF16 && m > 1) || wide;
        int64_t d = differ(&q, exact, wide);
        snprintf(msg, sizeof msg, "%s m %d n %d k %d: %lld of %d values differ%s", type == RT_BF16 ? "bf16" : "f16", m, n,
                 k, (long long)d, m * n, exact ? "" : " (beyond rounding)");
        check(ran && d == 0, "fc 16-bit storage f32 kernel vs K-order sums", msg);
        drop(&q);
    }
#else
    printf("SKIP fc 16-bit storage: no 16-bit-storage f32 kernels in this build\n");
#endif
}

/* The widened path (many rows: each panel widened once to f32, the f32 GEMM's tiles over it) and its edges: rows
 * 16-140 (both sides of its row threshold, row tails of every tile), K up to and past the widened path's limit (odd K, segments of odd length
 * through a row table), partial panels and pairs; bit for bit the K-order sums on the widened weights (bf16 and
 * fp16) where it runs, the in-register kernels' bounds past its limit. */
static void test_widened(void) {
#if defined(RT_OPT_GEMM16_WIDEN)
    char msg[200];
    int32_t kmax = 1;
    while (kmax < 8192 && rt_opt_gemm16_widens(RT_BF16, 1000, kmax + 1)) kmax++;
#if defined(RT_OPT_SMALL_STACK) /* the widened copies are off: never chosen */
    check(!rt_opt_gemm16_widens(RT_BF16, 1, 64) && !rt_opt_gemm16_widens(RT_F16, 1000, 64),
          "gemm16 widened path: off with RT_OPT_SMALL_STACK", "1000 rows of K 64: in registers");
#else
    check(!rt_opt_gemm16_widens(RT_BF16, 1, 64) && rt_opt_gemm16_widens(RT_F16, 1000, 64), "gemm16 widened path: chosen by rows",
          "one row: in registers; 1000 rows of K 64: widened");
#endif
    for (int t = 0; t < 40; t++) {
        const int32_t type = t % 2 ? RT_F16 : RT_BF16, use_tab = t % 4 < 2, nseg = use_tab ? rnd_in(1, 5) : 1;
        const int32_t m = rnd_in(16, 140), n = t % 5 == 0 ? 32 * rnd_in(1, 3) : rnd_in(1, 90);
        /* K: small, odd, near the limit, or just past it */
        const int32_t kk = t % 8 < 4 ? rnd_in(1, 200) : t % 8 < 6 ? kmax - rnd_in(0, 40)
                           : t % 16 == 15                    ? 2 * kmax + rnd_in(1, 40) /* three K chunks */
                                                             : kmax + rnd_in(1, 40);
        const int32_t k = kk / nseg * nseg > 0 ? kk / nseg * nseg : nseg;
        problem q;
        make(&q, m, n, k, nseg, type);
        if (!use_tab) q.stride = k + t % 3;
        rt_opt_gemm_params g = params(&q);
        int ran = t % 3 == 0 && !use_tab ? RT_OPT_FC_HALF_F32(&g, type, q.a, q.pw, q.bias, q.got)
                                         : RT_OPT_GEMM16_ROWS_F32(&g, type, m, q.a, use_tab ? q.tab : NULL, nseg, q.pw,
                                                                  q.bias, q.got);
        oracle(&q, use_tab, 0);
        /* past the limit over contiguous rows, enough rows: widened a K chunk at a time (rt_opt_gemm16_avx512.c), the
         * same K-order sums */
        const int chunked = RT_OPT_LONE_PAIRS && !use_tab && k > kmax && rt_opt_gemm16_widens(type, m, 64);
        const int wide = widened(type, m, k) || chunked, exact = type == RT_BF16 || wide;
        int64_t d = differ(&q, exact, wide);
        snprintf(msg, sizeof msg, "%s m %d n %d k %d = %d x %d%s, %s: %lld of %d values differ",
                 type == RT_BF16 ? "bf16" : "f16", m, n, k, nseg, k / nseg, use_tab ? "" : " (rows)",
                 chunked ? "widened in K chunks" : wide ? "widened" : "in registers", (long long)d, m * n);
        check(ran && d == 0, "gemm16 widened path = K-order sums on the widened weights", msg);
        drop(&q);
    }
#else
    printf("SKIP gemm16 widened path: not in this build\n");
#endif
}

/* The many-row path of AVX-512 builds against the f32 GEMM's tiles on the weights widened first
 * (rt_opt_gemm16_widen_all + rt_opt_gemm16_widened_rows, the pre-fusion path), bit for bit: bf16 pairs' first row tile
 * widens them as it runs (every first-tile size: rows 2-140, a lone panel in pairs, 17-24 columns, segments of odd
 * length), fp16 the widening pass; through rt_opt_gemm16_widen_rows (a convolution's first block: any rows) and,
 * where the row count takes the widened path, RT_OPT_GEMM16_ROWS_F32. */
static void test_fused_first_tile(void) {
#if defined(RT_OPT_GEMM16_AVX512)
    char msg[200];
    for (int t = 0; t < 48; t++) {
        const int32_t type = t % 4 == 3 ? RT_F16 : RT_BF16, use_tab = t % 3 != 2, nseg = use_tab ? rnd_in(1, 4) : 1;
        const int32_t m = t < 8 ? 2 + t * 3 : rnd_in(1, 140);
        const int32_t n = t % 6 == 0 ? rnd_in(1, 16) : t % 6 == 1 ? rnd_in(17, 24) : t % 6 == 2 ? 32 : rnd_in(1, 100);
        const int32_t kk = rnd_in(1, 300), k = kk / nseg * nseg > 0 ? kk / nseg * nseg : nseg;
        const int32_t np = (n + 15) / 16 * 16;
        problem q;
        make(&q, m, n, k, nseg, type);
        if (!use_tab) q.stride = k + t % 3;
        rt_opt_gemm_params g = params(&q);
        float *wide = aligned_alloc(64, sizeof(float) * (size_t)np * (size_t)k), *ref = malloc(sizeof(float) * (size_t)(m * n));
        const float *a = use_tab ? NULL : q.a;
        const float *const *tab = use_tab ? q.tab : NULL;
        int64_t d = 0;
        rt_opt_gemm16_widen_all(type, k, n, q.pw, wide, (int64_t)np * k);
        rt_opt_gemm16_widened_rows(&g, m, a, tab, nseg, wide, q.bias, ref);
        memset(wide, 0, sizeof(float) * (size_t)np * (size_t)k);
        rt_opt_gemm16_widen_rows(&g, type, m, a, tab, nseg, q.pw, wide, q.bias, q.got);
        d += memcmp(ref, q.got, sizeof(float) * (size_t)(m * n)) != 0;
        rt_opt_gemm16_widened_rows(&g, m, a, tab, nseg, wide, q.bias, q.got); /* the copy it left */
        d += memcmp(ref, q.got, sizeof(float) * (size_t)(m * n)) != 0;
        if (rt_opt_gemm16_widens(type, m, k)) {
            RT_OPT_GEMM16_ROWS_F32(&g, type, m, a, tab, nseg, q.pw, q.bias, q.got);
            d += memcmp(ref, q.got, sizeof(float) * (size_t)(m * n)) != 0;
        }
        snprintf(msg, sizeof msg, "%s m %d n %d k %d = %d x %d%s: %lld of 3 outputs differ", type == RT_BF16 ? "bf16" : "f16",
                 m, n, k, nseg, k / nseg, use_tab ? "" : " (rows)", (long long)d);
        check(d == 0, "gemm16 fused first tile = f32 tiles on the widened weights, bit for bit", msg);
        free(wide), free(ref);
        drop(&q);
    }
#else
    printf("SKIP gemm16 fused first tile: not in this build\n");
#endif
}

/* rt_opt_fc_half with no scratch (what the f32-activation plan gives): within rounding of the oracle on the inputs
 * as the build takes them (rounded where rt_opt_half_rounds_inputs), on every build. */
static void test_fc_half_no_scratch(void) {
    char msg[200];
    for (int t = 0; t < 16; t++) {
        const int32_t m = t < 4 ? 1 : rnd_in(1, 40), n = rnd_in(1, 100), k = rnd_in(1, 90), type = t % 2 ? RT_F16 : RT_BF16;
        problem q;
        make(&q, m, n, k, 1, type);
        q.stride = k;
        rt_opt_gemm_params g = params(&q);
        g.slot_bytes = 0;
        rt_opt_fc_half(&g, type, q.a, q.pw, q.bias, q.got, NULL);
        oracle(&q, 0, rt_opt_half_rounds_inputs(type));
        int64_t d = differ(&q, 0, 0);
        snprintf(msg, sizeof msg, "%s m %d n %d k %d: %lld of %d values beyond rounding", type == RT_BF16 ? "bf16" : "f16",
                 m, n, k, (long long)d, m * n);
        check(d == 0, "fc_half, no scratch, vs K-order sums", msg);
        drop(&q);
    }
}

int main(void) {
    unit_seed(20261130ULL, rt_opt_isa());
    test_rows();
    test_fc();
    test_widened();
    test_fused_first_tile();
    test_fc_half_no_scratch();
    printf("%d passed, %d failed\n", passes, failures);
    return failures != 0;
}
