/* test_fc_half_kernels.c - FULLY_CONNECTED with bf16/fp16 weights: rt_opt_fc_half (16-bit products where the
 * build has them, else 16-bit storage with f32 arithmetic) and the AVX2 row kernels against the reference
 * kernels and the f32 GEMM on random shapes and data, with pass schedule's packing. Built by `make unit`
 * (generic, ASan+UBSan) and by tests/test_opt_kernels.py at -O3 -march=native. The seed is printed;
 * MPCC_SEED=<n> reproduces a run. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpcc_rt.h"
#include "sched_pack.h"
#include "rt_opt_internal.h"

#include "unit_check.h"

/* FULLY_CONNECTED with bf16/f16 weights: the packed kernel against the reference (inputs rounded to the
 * weights' type, float sums), over row counts past the kernel's 32-row blocks and odd depths; within 5e-5 of the
 * largest output (K up to 600 summed in another order: the fp16 pair tiles' even and odd sums reach 1.3e-5). */
static void test_fc_half(void) {
    char msg[200];
    for (int t = 0; t < 40; t++) {
        /* the first six: 9, 17 and 25 rows (a block's last 9 rows in one bf16 micro-kernel call) */
        int32_t m = t < 6 ? 9 + 8 * (t / 2) : rnd_in(1, 100), n = rnd_in(1, 70), k = t >= 38 ? rnd_in(257, 600) : rnd_in(1, 90), np = (n + 15) / 16 * 16;
        int32_t type = t % 2 ? RT_F16 : RT_BF16, k2 = (k + 1) / 2;
        float *a = malloc(sizeof(float) * (size_t)(m * k)), *bias = malloc(sizeof(float) * (size_t)np);
        float *got = malloc(sizeof(float) * (size_t)(m * n)), *want = malloc(sizeof(float) * (size_t)(m * n));
        uint16_t *w = malloc(sizeof(uint16_t) * (size_t)(n * k)), *pw = malloc(sizeof(uint16_t) * (size_t)(np * 2 * k2));
        void *scratch = malloc((size_t)rt_opt_fc_half_scratch(type, m, n, k));
        for (int i = 0; i < m * k; i++) a[i] = rnd_f();
        for (int i = 0; i < n * k; i++) w[i] = type == RT_BF16 ? rt_f32_to_bf16(rnd_f()) : rt_f32_to_f16(rnd_f());
        for (int i = 0; i < np; i++) bias[i] = i < n ? rnd_f() : 0.0f;
        /* a build whose kernel takes the inputs as they are (f32 arithmetic): inputs of the 16-bit type, so
         * that the reference's rounding of them changes nothing */
        if (!rt_opt_half_rounds_inputs(type)) rt_opt_round_half_row(a, m * k, type, a);
        rt_fc_params fp;
        memset(&fp, 0, sizeof fp);
        fp.batches = m, fp.in_depth = k, fp.out_depth = n, fp.act_min = -1.5f, fp.act_max = 2.0f, fp.half_type = type;
        rt_fully_connected_half(&fp, a, w, bias, want);
        sched_pack_half(w, n, k, pw);
        rt_opt_gemm_params g;
        memset(&g, 0, sizeof g);
        g.m = m, g.n = n, g.k = k, g.lda = k, g.ldc = n, g.act_min = -1.5f, g.act_max = 2.0f;
        g.slot_bytes = rt_opt_fc_half_scratch(type, m, n, k);
        rt_opt_fc_half(&g, type, a, pw, bias, got, scratch);
        double rel = max_rel_f32(got, want, (int64_t)m * n);
        snprintf(msg, sizeof msg, "%s m %d n %d k %d: max rel err %.2e", type == RT_BF16 ? "bf16" : "f16", m, n, k, rel);
        check(rel <= 5e-5, "fc 16-bit weights vs FULLY_CONNECTED", msg);
        /* no scratch given (the f32 activation plan's room): a path that needs none, never the scratch */
        g.slot_bytes = 0;
        rt_opt_fc_half(&g, type, a, pw, bias, got, NULL);
        rel = max_rel_f32(got, want, (int64_t)m * n);
        snprintf(msg, sizeof msg, "%s m %d n %d k %d: max rel err %.2e", type == RT_BF16 ? "bf16" : "f16", m, n, k, rel);
        check(rel <= 5e-5, "fc 16-bit weights, no scratch, vs FULLY_CONNECTED", msg);
        free(a), free(bias), free(got), free(want), free(w), free(pw), free(scratch);
    }
}

/* 16-bit storage with f32 arithmetic (no AVX-512: the weights widened in registers by rt_opt_gemm16_avx2.c's
 * micro-kernels, or per panel elsewhere): rt_opt_fc_half equals, bit for bit, the f32 GEMM on the widened
 * weights and the inputs as it takes them (rounded where rt_opt_half_rounds_inputs, else as they are), for every row
 * count (the 6-row tiles of rt_opt_gemm16_rows_avx2.c and their splits, the one-row kernels over four (bf16) or two
 * (fp16) panels: n = 32, 64, 128) and odd depths and partial panels; AVX2 fp16 within rounding (two partial sums a
 * column). */
static void test_fc_half_as_f32(void) {
#if !defined(RT_OPT_AVX512)
    char msg[200];
    for (int t = 0; t < 24; t++) {
        /* t 1 and 7: fp16 one-row kernels (pairs of panels and a partial panel after them; t 7 an odd K) */
        int32_t m = t == 1 || t == 7 ? 1 : t < 8 ? 1 + t : rnd_in(1, 40);
        int32_t n = t % 3 == 0 ? 64 * rnd_in(1, 2) : t == 1 || t == 7 ? 32 * rnd_in(1, 2) + rnd_in(0, 17) : rnd_in(1, 80);
        int32_t k = t == 7 ? 2 * rnd_in(0, 34) + 1 : rnd_in(1, 70), np = (n + 15) / 16 * 16, k2 = (k + 1) / 2,
                type = t % 2 ? RT_F16 : RT_BF16;
        float *a = malloc(sizeof(float) * (size_t)(m * k)), *ar = malloc(sizeof(float) * (size_t)(m * k));
        float *bias = malloc(sizeof(float) * (size_t)np), *wf = malloc(sizeof(float) * (size_t)(n * k));
        float *pf = malloc(sizeof(float) * (size_t)(np * k)), *got = malloc(sizeof(float) * (size_t)(m * n));
        float *want = malloc(sizeof(float) * (size_t)(m * n));
        uint16_t *w = malloc(sizeof(uint16_t) * (size_t)(n * k)), *pw = malloc(sizeof(uint16_t) * (size_t)(np * 2 * k2));
        void *scratch = malloc((size_t)rt_opt_fc_half_scratch(type, m, n, k));
        int64_t diff = 0;
        for (int i = 0; i < m * k; i++) a[i] = rnd_f();
        for (int i = 0; i < n * k; i++) {
            w[i] = type == RT_BF16 ? rt_f32_to_bf16(rnd_f()) : rt_f32_to_f16(rnd_f());
            wf[i] = type == RT_BF16 ? rt_bf16_to_f32(w[i]) : rt_f16_to_f32(w[i]);
        }
        for (int i = 0; i < np; i++) bias[i] = i < n ? rnd_f() : 0.0f;
        rt_opt_round_half_row(a, m * k, type, ar);
        sched_pack_half(w, n, k, pw);
        sched_pack_f32(wf, n, k, pf);
        rt_opt_gemm_params g;
        memset(&g, 0, sizeof g);
        g.m = m, g.n = n, g.k = k, g.lda = k, g.ldc = n, g.act_min = -2.5f, g.act_max = 3.0f;
        g.slot_bytes = rt_opt_fc_half_scratch(type, m, n, k);
        rt_opt_fc_half(&g, type, a, pw, bias, got, scratch);
        rt_opt_gemm_f32(&g, rt_opt_half_rounds_inputs(type) ? ar : a, pf, bias, want);
        /* AVX2 fp16 (the 6-row tiles and the GEMV): two partial sums per column, so within rounding */
        const int exact = type == RT_BF16 || rt_opt_half_rounds_inputs(type);
        for (int i = 0; i < m * n; i++)
            diff += exact ? memcmp(&got[i], &want[i], sizeof(float)) != 0
                          : !(fabsf(got[i] - want[i]) <= 1e-6f * (float)(k + 2));
        snprintf(msg, sizeof msg, "%s m %d n %d k %d: %lld of %d values differ%s", type == RT_BF16 ? "bf16" : "f16", m,
                 n, k, (long long)diff, m * n, exact ? "" : " (beyond rounding)");
        check(diff == 0, "fc 16-bit weights = f32 GEMM on the widened weights", msg);
        free(a), free(ar), free(bias), free(wf), free(pf), free(got), free(want), free(w), free(pw), free(scratch);
    }
#endif
}

/* rt_opt_gemm16_rows_avx2 (16-bit weights over row pointers, AVX2 builds) against rt_opt_gemm_f32_rows_avx2 on
 * the widened weights, bit for bit for bf16, within rounding for fp16 (its kernel keeps two partial sums per
 * column): K in segments of odd and even lengths (a segment starting at a pair's k1),
 * each row's segments scattered in memory, row counts 1-40 (every tile size), partial panels (tails of 1-15
 * columns), and the contiguous-rows form (tab NULL). */
static void test_gemm16_rows(void) {
#if defined(RT_OPT_GEMM16_ROWS_AVX2)
    char msg[200];
    for (int t = 0; t < 40; t++) {
        int32_t m = t < 10 ? 1 + t : rnd_in(1, 40), n = t % 3 == 0 ? 16 * rnd_in(1, 4) : rnd_in(1, 72);
        int32_t nseg = rnd_in(1, 5), seg = rnd_in(1, 19), k = nseg * seg, np = (n + 15) / 16 * 16, k2 = (k + 1) / 2;
        int32_t type = t % 2 ? RT_F16 : RT_BF16, use_tab = t % 4 != 3, stride = k + rnd_in(0, 9);
        float *a = malloc(sizeof(float) * (size_t)(m * stride * 2)), *bias = malloc(sizeof(float) * (size_t)np);
        float *wf = malloc(sizeof(float) * (size_t)(n * k)), *pf = malloc(sizeof(float) * (size_t)(np * k));
        float *got = malloc(sizeof(float) * (size_t)(m * n)), *want = malloc(sizeof(float) * (size_t)(m * n));
        const float **tab = malloc(sizeof(float *) * (size_t)(m * nseg));
        uint16_t *w = malloc(sizeof(uint16_t) * (size_t)(n * k)), *pw = malloc(sizeof(uint16_t) * (size_t)(np * 2 * k2));
        int64_t diff = 0;
        for (int i = 0; i < m * stride * 2; i++) a[i] = rnd_f();
        for (int r = 0; r < m; r++) /* segment s of row r somewhere in the row's 2 * stride values */
            for (int sg = 0; sg < nseg; sg++) tab[r * nseg + sg] = a + (int64_t)r * 2 * stride + rnd_in(0, 2 * stride - seg);
        for (int i = 0; i < n * k; i++) {
            w[i] = type == RT_BF16 ? rt_f32_to_bf16(rnd_f()) : rt_f32_to_f16(rnd_f());
            wf[i] = type == RT_BF16 ? rt_bf16_to_f32(w[i]) : rt_f16_to_f32(w[i]);
        }
        for (int i = 0; i < np; i++) bias[i] = i < n ? rnd_f() : 0.0f;
        sched_pack_half(w, n, k, pw);
        sched_pack_f32(wf, n, k, pf);
        rt_opt_gemm_params g;
        memset(&g, 0, sizeof g);
        g.m = m, g.n = n, g.k = k, g.lda = stride, g.ldc = n, g.act_min = -2.5f, g.act_max = 3.0f;
        for (int i = 0; i < m * n; i++) got[i] = want[i] = NAN; /* poisoned */
        int ran = rt_opt_gemm16_rows_avx2(&g, type, m, a, use_tab ? tab : NULL, use_tab ? nseg : 1, pw, bias, got);
#if defined(RT_OPT_F32_ROWS_AVX2)
        rt_opt_gemm_f32_rows_avx2(&g, m, a, use_tab ? tab : NULL, use_tab ? nseg : 1, pf, bias, want);
#else /* AVX-512 builds without BF16: the same sums in scalar, one fused product at a time in K order */
        for (int r = 0; r < m; r++)
            for (int j = 0; j < n; j++) {
                float s = bias[j];
                for (int kk = 0; kk < k; kk++) {
                    const float *row = use_tab ? tab[r * nseg + kk / seg] + kk % seg : a + (int64_t)r * stride + kk;
                    s = fmaf(*row, wf[(int64_t)j * k + kk], s);
                }
                want[r * n + j] = fminf(3.0f, fmaxf(-2.5f, s));
            }
#endif
        for (int i = 0; i < m * n; i++) /* fp16: two partial sums per column, so within rounding (a, w in [-2, 2]) */
            diff += type == RT_BF16 ? memcmp(&got[i], &want[i], sizeof(float)) != 0
                                    : !(fabsf(got[i] - want[i]) <= 1e-6f * (float)(k + 2));
        snprintf(msg, sizeof msg, "%s m %d n %d k %d = %d x %d%s: %lld of %d values differ", type == RT_BF16 ? "bf16" : "f16",
                 m, n, k, nseg, seg, use_tab ? "" : " (rows)", (long long)diff, m * n);
        check(ran ? diff == 0 : type == RT_F16, "gemm16 rows = f32 rows GEMM on the widened weights", msg);
        free(a), free(bias), free(wf), free(pf), free(got), free(want), free(tab), free(w), free(pw);
    }
#endif
}

int main(void) {
    unit_seed(20261123ULL, rt_opt_isa());
    test_fc_half();
    test_fc_half_as_f32();
    test_gemm16_rows();
    printf("%d passed, %d failed\n", passes, failures);
    return failures != 0;
}
