/* test_typed_kernels.c - the 16-bit activation storage kernels
 * (runtime/rt_opt_typed.c) against their f32 twins: inputs stored in bf16 /
 * fp16 are widened, the f32 kernel runs, its result is rounded to the
 * output's type; the typed kernel must give exactly that (bit-identical:
 * same arithmetic, one rounding), for every mix of operand and output types.
 * The FC kernel is checked within 1e-5 before rounding (its blocks of rows
 * may take other micro-kernel variants). Built by `make unit` (generic,
 * ASan+UBSan) and by tests/test_opt_kernels.py at -march=native. The seed is
 * printed; MPCC_SEED=<n> reproduces a run. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpcc_rt.h"
#include "rt_opt.h"
#include "rt_opt_internal.h"
#include "sched_pack.h"

#include "unit_check.h"

static const char *tname(int32_t t) { return t == RT_F32 ? "f32" : t == RT_BF16 ? "bf16" : "f16"; }
static int64_t esz(int32_t t) { return t == RT_F32 ? 4 : 2; }

/* n random values stored as type t into dst; their exact f32 values into f. */
static void fill(int32_t t, void *dst, float *f, int64_t n) {
    for (int64_t i = 0; i < n; i++) {
        float v = rnd_f();
        if (t == RT_F32) ((float *)dst)[i] = v, f[i] = v;
        else if (t == RT_BF16) ((uint16_t *)dst)[i] = rt_f32_to_bf16(v), f[i] = rt_bf16_to_f32(((uint16_t *)dst)[i]);
        else ((uint16_t *)dst)[i] = rt_f32_to_f16(v), f[i] = rt_f16_to_f32(((uint16_t *)dst)[i]);
    }
}

/* f rounded to type t, as stored bytes. */
static void store(const float *f, int64_t n, int32_t t, void *dst) {
    for (int64_t i = 0; i < n; i++) {
        if (t == RT_F32) ((float *)dst)[i] = f[i];
        else ((uint16_t *)dst)[i] = t == RT_BF16 ? rt_f32_to_bf16(f[i]) : rt_f32_to_f16(f[i]);
    }
}

static void test_convert(void) {
    enum { N = 1000 };
    static float src[N], back[N];
    static uint16_t got[N], want[N];
    char msg[120];
    for (int t = 0; t < 2; t++) {
        int32_t type = t ? RT_F16 : RT_BF16;
        for (int i = 0; i < N; i++) { /* normal, huge, tiny (subnormal in both), exact ties */
            int kind = rnd_in(0, 5);
            float v = rnd_f();
            src[i] = kind == 0 ? v * 1e5f : kind == 1 ? v * 1e-6f : kind == 2 ? v * 1e-40f : kind == 3 ? INFINITY : v;
            if (kind == 4) src[i] = ldexpf((float)(rnd_in(1, 4095) * 2 + 1), rnd_in(-20, 3)); /* ties */
        }
        int32_t n = rnd_in(N - 20, N);
        rt_opt_from_f32(src, n, type, got);
        for (int i = 0; i < n; i++) want[i] = type == RT_BF16 ? rt_f32_to_bf16(src[i]) : rt_f32_to_f16(src[i]);
        int diff = 0;
        for (int i = 0; i < n; i++) diff += got[i] != want[i];
        snprintf(msg, sizeof msg, "%s, %d values: %d differ", tname(type), n, diff);
        check(diff == 0, "rt_opt_from_f32 vs scalar rounding", msg);
        rt_opt_to_f32(type, want, n, back);
        diff = 0;
        for (int i = 0; i < n; i++) {
            float w = type == RT_BF16 ? rt_bf16_to_f32(want[i]) : rt_f16_to_f32(want[i]);
            diff += memcmp(&w, back + i, sizeof w) != 0;
        }
        snprintf(msg, sizeof msg, "%s, %d values: %d differ", tname(type), n, diff);
        check(diff == 0, "rt_opt_to_f32 vs scalar widening", msg);
    }
}

static void rnd_bcast(rt_bcast *bc) {
    int32_t s1 = 1, s2 = 1;
    memset(bc, 0, sizeof *bc);
    bc->rank = rnd_in(0, 4);
    for (int d = bc->rank - 1; d >= 0; d--) {
        bc->dims[d] = rnd_in(1, d == bc->rank - 1 ? 300 : 5); /* runs longer than a chunk at times */
        int b1 = rnd_in(0, 3) == 0, b2 = rnd_in(0, 3) == 0;
        bc->stride1[d] = b1 ? 0 : s1;
        bc->stride2[d] = b2 ? 0 : s2;
        if (!b1) s1 *= bc->dims[d];
        if (!b2) s2 *= bc->dims[d];
    }
}

static void test_binary(void) {
    typedef void (*bin_f32)(const rt_binary_params *, const float *, const float *, float *);
    static const bin_f32 ref[] = {rt_opt_add_f32, rt_opt_sub_f32, rt_opt_mul_f32, rt_opt_squared_difference_f32};
    static const char *names[] = {"add", "sub", "mul", "squared_difference"};
    enum { N = 300 * 125 };
    static float af[N], bf[N], wf[N];
    static uint8_t a[N * 4], b[N * 4], got[N * 4], want[N * 4];
    char what[80], msg[160];
    for (int t = 0; t < 48; t++) {
        int op = t % 4;
        int32_t ta = rnd_in(0, 2), tb = rnd_in(0, 2), to = rnd_in(0, 2);
        if (ta + tb + to == 0) to = RT_BF16;
        rt_binary_params p;
        memset(&p, 0, sizeof p);
        rnd_bcast(&p.bc);
        int64_t n = rt_bcast_numel(&p.bc);
        if (n > N) continue;
        fill(ta, a, af, N);
        fill(tb, b, bf, N);
        p.act_min = -1.0f, p.act_max = 1.5f;
        ref[op](&p, af, bf, wf);
        store(wf, n, to, want);
        rt_opt_binary_typed(&p, op, ta, a, tb, b, to, got);
        snprintf(what, sizeof what, "%s typed %s %s -> %s", names[op], tname(ta), tname(tb), tname(to));
        snprintf(msg, sizeof msg, "rank %d, %lld elements", p.bc.rank, (long long)n);
        check(memcmp(got, want, (size_t)(n * esz(to))) == 0, what, msg);
    }
    /* In place: the output over a same-typed, same-shaped input. */
    for (int32_t t = 1; t <= 2; t++) {
        rt_binary_params p;
        memset(&p, 0, sizeof p);
        p.bc.rank = 1, p.bc.dims[0] = 1000, p.bc.stride1[0] = 1, p.bc.stride2[0] = 1;
        p.act_min = -INFINITY, p.act_max = INFINITY;
        fill(t, a, af, 1000);
        fill(RT_F32, b, bf, 1000);
        rt_opt_add_f32(&p, af, bf, wf);
        store(wf, 1000, t, want);
        rt_opt_binary_typed(&p, RT_OPT_BIN_ADD, t, a, RT_F32, b, t, a);
        snprintf(msg, sizeof msg, "%s", tname(t));
        check(memcmp(a, want, (size_t)(1000 * esz(t))) == 0, "add typed in place", msg);
    }
}

static void test_gelu_ln(void) {
    enum { N = 4000 };
    static float xf[N], wf[N], scratch[N];
    static uint8_t x[N * 4], got[N * 4], want[N * 4];
    static float gamma[N], beta[N];
    char what[80], msg[120];
    for (int t = 0; t < 12; t++) {
        int32_t ti = rnd_in(0, 2), to = t % 3 == 0 ? RT_F32 : rnd_in(1, 2);
        int64_t n = rnd_in(1, N);
        rt_act_params a;
        memset(&a, 0, sizeof a);
        a.n = n, a.approximate = t % 2;
        fill(ti, x, xf, n);
        rt_opt_gelu_f32(&a, xf, wf);
        store(wf, n, to, want);
        rt_opt_gelu_typed(&a, ti, x, to, got);
        snprintf(what, sizeof what, "gelu typed %s -> %s", tname(ti), tname(to));
        snprintf(msg, sizeof msg, "%lld elements, approximate %d", (long long)n, a.approximate);
        check(memcmp(got, want, (size_t)(n * esz(to))) == 0, what, msg);
    }
    for (int t = 0; t < 12; t++) {
        int32_t tx = rnd_in(0, 2), ty = t % 3 == 0 ? RT_F32 : rnd_in(1, 2);
        rt_opt_ln_params p;
        p.cols = rnd_in(1, 300), p.rows = rnd_in(1, N / 300), p.eps = 1e-5f;
        int64_t n = (int64_t)p.rows * p.cols;
        fill(tx, x, xf, n);
        for (int c = 0; c < p.cols; c++) gamma[c] = rnd_f(), beta[c] = rnd_f();
        const float *g = t % 4 == 1 ? NULL : gamma, *be = t % 4 == 2 ? NULL : beta;
        rt_opt_layer_norm_f32(&p, xf, g, be, wf);
        store(wf, n, ty, want);
        rt_opt_layer_norm_typed(&p, tx, x, g, be, ty, got, scratch);
        snprintf(what, sizeof what, "layer norm typed %s -> %s", tname(tx), tname(ty));
        snprintf(msg, sizeof msg, "%d rows x %d", p.rows, p.cols);
        check(memcmp(got, want, (size_t)(n * esz(ty))) == 0, what, msg);
        if (tx == ty) { /* in place */
            rt_opt_layer_norm_typed(&p, tx, x, g, be, ty, x, scratch);
            check(memcmp(x, want, (size_t)(n * esz(ty))) == 0, "layer norm typed in place", msg);
        }
    }
}

static void test_fc(void) {
    char what[80], msg[200];
    for (int t = 0; t < 30; t++) {
        int32_t m = t < 3 ? t + 1 : rnd_in(1, 100), n = rnd_in(1, 70), k = rnd_in(1, 90), np = (n + 15) / 16 * 16;
        int32_t type = t % 2 ? RT_F16 : RT_BF16, k2 = (k + 1) / 2;
        int32_t ta = rnd_in(0, 2), tc = t % 5 == 0 ? RT_F32 : rnd_in(1, 2);
        if (ta == RT_F32 && tc == RT_F32) ta = type;
        float *af = malloc(sizeof(float) * (size_t)(m * k)), *bias = malloc(sizeof(float) * (size_t)np);
        float *wf = malloc(sizeof(float) * (size_t)(m * n)), *gf = malloc(sizeof(float) * (size_t)(m * n));
        void *a = malloc((size_t)(m * k * 4)), *got = malloc((size_t)(m * n * 4));
        uint16_t *w = malloc(sizeof(uint16_t) * (size_t)(n * k)), *pw = malloc(sizeof(uint16_t) * (size_t)(np * 2 * k2));
        void *s_ref = malloc((size_t)rt_opt_fc_half_scratch(type, m, n, k));
        void *s_typed = malloc((size_t)rt_opt_fc_typed_scratch(type, ta, tc, m, n, k));
        fill(ta, a, af, (int64_t)m * k);
        for (int i = 0; i < n * k; i++) w[i] = type == RT_BF16 ? rt_f32_to_bf16(rnd_f()) : rt_f32_to_f16(rnd_f());
        for (int i = 0; i < np; i++) bias[i] = i < n ? rnd_f() : 0.0f;
        sched_pack_half(w, n, k, pw);
        rt_opt_gemm_params g;
        memset(&g, 0, sizeof g);
        g.m = m, g.n = n, g.k = k, g.lda = k, g.ldc = n, g.act_min = -1.5f, g.act_max = 2.0f;
        rt_opt_fc_half(&g, type, af, pw, bias, wf, s_ref);
        rt_opt_fc_typed(&g, type, ta, a, pw, bias, tc, got, s_typed);
        rt_opt_to_f32(tc, got, (int64_t)m * n, gf);
        /* within 1e-5 of the f32 result, then one rounding to tc: one ulp of tc at most */
        double worst = 0, ulp = tc == RT_F32 ? 1e-5 : tc == RT_BF16 ? 1.0 / 128 : 1.0 / 1024;
        for (int64_t i = 0; i < (int64_t)m * n; i++) {
            double e = fabs((double)gf[i] - (double)wf[i]) / (fabs((double)wf[i]) + 1e-3);
            worst = e > worst ? e : worst;
        }
        snprintf(what, sizeof what, "fc typed %s weights, A %s -> C %s", tname(type), tname(ta), tname(tc));
        snprintf(msg, sizeof msg, "m %d n %d k %d: worst relative difference %.2e (bound %.2e)", m, n, k, worst, ulp);
        check(worst <= ulp, what, msg);
        free(af), free(bias), free(wf), free(gf), free(a), free(got), free(w), free(pw), free(s_ref), free(s_typed);
    }
}

int main(void) {
    const char *env = getenv("MPCC_SEED");
    uint64_t seed = env ? strtoull(env, NULL, 10) : 20261126;
    rng_state = seed;
    printf("seed %llu (MPCC_SEED=%llu reproduces), kernels compiled for: %s\n", (unsigned long long)seed,
           (unsigned long long)seed, rt_opt_isa());
    test_convert();
    test_binary();
    test_gelu_ln();
    test_fc();
    printf("%d passed, %d failed\n", passes, failures);
    return failures != 0;
}
