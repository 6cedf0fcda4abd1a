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
#include "unit_conv.h"

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
        for (int i = 0; i < N; i++) { /* normal, huge, tiny (subnormal in both), exact ties, NaN */
            int kind = rnd_in(0, 5);
            float v = rnd_f();
            src[i] = kind == 0 ? v * 1e5f : kind == 1 ? v * 1e-6f : kind == 2 ? v * 1e-40f : kind == 3 ? INFINITY : v;
            if (kind == 4) src[i] = ldexpf((float)(rnd_in(1, 4095) * 2 + 1), rnd_in(-20, 3)); /* ties */
            if (kind == 5 && i % 5 == 0) src[i] = i % 2 ? NAN : -NAN;
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

/* The exact GELU with a bf16 result (rt_opt_gelu_f32_bf16's erf, accurate to bf16) against the double-
 * precision formula: within one bf16 step of it (2^-7 relative: half a step for the rounding, and the erf's
 * error carrying a value across a rounding boundary) plus 3e-5 absolute; the worst error as a fraction of
 * that bound. */
static double gelu_bf16_error(const float *x, const uint8_t *got16, int64_t n) {
    double worst = 0.0;
    for (int64_t i = 0; i < n; i++) {
        uint16_t h;
        memcpy(&h, got16 + 2 * i, 2);
        double g = 0.5 * x[i] * (1.0 + erf(x[i] / sqrt(2.0))), e = fabs((double)rt_bf16_to_f32(h) - g) /
                                                                    (3e-5 + fabs(g) / 128.0);
        worst = e > worst ? e : worst;
    }
    return worst;
}

static void test_gelu_ln(void) {
    enum { N = 4000 };
    static float xf[N], wf[N], scratch[N];
    static uint8_t x[N * 4], got[N * 4], want[N * 4];
    static float gamma[N], beta[N];
    char what[80], msg[120];
    /* is the one-pass bf16 GELU built (AVX512-BF16)? else a bf16 result is the f32 one rounded */
    const int bf16_gelu = rt_opt_gelu_f32_bf16(&(rt_act_params){.n = 1}, xf, (uint16_t *)(void *)got) == 1;
    for (int t = 0; t < 16; t++) { /* the last 4: f32 -> bf16 (an FC's output under bf16), rounded in one pass */
        int32_t ti = t < 12 ? rnd_in(0, 2) : RT_F32, to = t >= 12 ? RT_BF16 : t % 3 == 0 ? RT_F32 : rnd_in(1, 2);
        int64_t n = t == 12 ? 31 : rnd_in(1, N);
        rt_act_params a;
        memset(&a, 0, sizeof a);
        a.n = n, a.approximate = t % 2;
        fill(ti, x, xf, n);
        rt_opt_gelu_f32(&a, xf, wf);
        store(wf, n, to, want);
        rt_opt_gelu_typed(&a, ti, x, to, got);
        snprintf(what, sizeof what, "gelu typed %s -> %s", tname(ti), tname(to));
        if (to == RT_BF16 && !a.approximate && bf16_gelu) { /* the bf16-accurate erf: see gelu_bf16_error */
            double worst = gelu_bf16_error(xf, got, n);
            snprintf(msg, sizeof msg, "%lld elements: worst error %.3g of the bound", (long long)n, worst);
            check(worst <= 1.0, what, msg);
            continue;
        }
        snprintf(msg, sizeof msg, "%lld elements, approximate %d", (long long)n, a.approximate);
        check(memcmp(got, want, (size_t)(n * esz(to))) == 0, what, msg);
    }
    /* exact GELU (the vector path's rational erf) against the double-precision formula over [-12, 12],
     * tails and NaN included: within 1e-6 absolute plus 1e-6 relative */
    {
        rt_act_params a;
        double worst = 0.0;
        memset(&a, 0, sizeof a);
        a.n = N;
        for (int i = 0; i < N; i++) xf[i] = i < N - 1 ? -12.0f + 24.0f * (float)i / (float)(N - 2) + 1e-3f * rnd_f() : NAN;
        rt_opt_gelu_f32(&a, xf, wf);
        for (int i = 0; i < N - 1; i++) {
            double x = xf[i], g = 0.5 * x * (1.0 + erf(x / sqrt(2.0))), e = fabs(wf[i] - g) / (1e-6 + 1e-6 * fabs(g));
            worst = e > worst ? e : worst;
        }
        snprintf(msg, sizeof msg, "worst error %.3g of the bound 1e-6 + 1e-6 |gelu|; NaN in, %g out", worst, wf[N - 1]);
        check(worst <= 1.0 && wf[N - 1] != wf[N - 1], "exact GELU vs the double-precision formula", msg);
        if (bf16_gelu) { /* the same sweep with a bf16 result: 2^-7 relative + 3e-5, NaN kept */
            uint16_t h;
            rt_opt_gelu_typed(&a, RT_F32, xf, RT_BF16, got);
            worst = gelu_bf16_error(xf, got, N - 1);
            memcpy(&h, got + 2 * (N - 1), 2);
            snprintf(msg, sizeof msg, "worst error %.3g of the bound 3e-5 + |gelu| / 128; NaN in, %g out", worst,
                     rt_bf16_to_f32(h));
            check(worst <= 1.0 && rt_bf16_to_f32(h) != rt_bf16_to_f32(h), "exact GELU to bf16 vs the formula", msg);
        }
    }
    /* The typed kernel takes rows one at a time (rt_opt_layer_norm_f32's lone-row sums), the f32 one in groups
     * of 16 rows (transposed sums) and a short last group row by row: t >= 12 are ViT-like shapes (17 x 64,
     * 35 x 47) whose last group is short, drawn from a copy of the generator so that the cases after these
     * keep the values they had. */
    uint64_t rng_saved = 0;
    for (int t = 0; t < 14; t++) {
        if (t == 12) rng_saved = rng_state, rng_state ^= 0x9E3779B97F4A7C15ULL;
        int32_t tx = rnd_in(0, 2), ty = t % 3 == 0 ? RT_F32 : rnd_in(1, 2);
        rt_opt_ln_params p;
        p.cols = t < 12 ? rnd_in(1, 300) : t == 12 ? 64 : 47, p.rows = t < 12 ? rnd_in(1, N / 300) : t == 12 ? 17 : 35;
        p.eps = 1e-5f;
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
        if (t == 13) rng_state = rng_saved; /* (see above) */
    }
}

/* got (stored as tc) against the f32 result want: an f32 C within 1e-5 of the largest |want| (the f32-activation
 * kernel may run the widened panels, K in order, where the 16-bit-activation one runs the pair tiles: the same
 * sums in another order), a 16-bit C within one ulp of tc of each value (1e-3 floor) after that one rounding. */
static double worst_typed(int32_t tc, const void *got, const float *want, int64_t n, double *bound) {
    double worst = 0, top = 0;
    float *g = malloc(sizeof(float) * (size_t)(n > 0 ? n : 1));
    rt_opt_to_f32(tc, got, n, g);
    for (int64_t i = 0; i < n; i++) top = fabs((double)want[i]) > top ? fabs((double)want[i]) : top;
    for (int64_t i = 0; i < n; i++) {
        double d = fabs((double)g[i] - (double)want[i]);
        double e = tc == RT_F32 ? d / (top > 0 ? top : 1.0) : d / (fabs((double)want[i]) + 1e-3);
        worst = e > worst ? e : worst;
    }
    free(g);
    *bound = tc == RT_F32 ? 1e-5 : tc == RT_BF16 ? 1.0 / 128 : 1.0 / 1024;
    return worst;
}

static void test_fc(void) {
    char what[80], msg[200];
    for (int t = 0; t < 30; t++) {
        int32_t m = t < 3 ? t + 1 : rnd_in(1, 100), n = t % 4 == 3 ? rnd_in(257, 600) : rnd_in(1, 70), k = rnd_in(1, 90);
        int32_t np = (n + 15) / 16 * 16; /* wider than a 256-column block at times */
        int32_t type = t % 2 ? RT_F16 : RT_BF16, k2 = (k + 1) / 2;
        int32_t ta = rnd_in(0, 2), tc = t % 5 == 0 ? RT_F32 : rnd_in(1, 2);
        if (ta == RT_F32 && tc == RT_F32) ta = type;
        float *af = malloc(sizeof(float) * (size_t)(m * k)), *bias = malloc(sizeof(float) * (size_t)np);
        float *wf = malloc(sizeof(float) * (size_t)(m * n));
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
        g.slot_bytes = rt_opt_fc_half_scratch(type, m, n, k);
        rt_opt_fc_half(&g, type, af, pw, bias, wf, s_ref);
        g.slot_bytes = rt_opt_fc_typed_scratch(type, ta, tc, m, n, k);
        rt_opt_fc_typed(&g, type, ta, a, pw, bias, tc, got, s_typed);
        double ulp, worst = worst_typed(tc, got, wf, (int64_t)m * n, &ulp);
        snprintf(what, sizeof what, "fc typed %s weights, A %s -> C %s", tname(type), tname(ta), tname(tc));
        snprintf(msg, sizeof msg, "m %d n %d k %d: worst relative difference %.2e (bound %.2e)", m, n, k, worst, ulp);
        check(worst <= ulp, what, msg);
        if (tc != RT_F32) { /* a 16-bit C is the f32 C of the same kernel, rounded to nearest even */
            float *c32 = malloc(sizeof(float) * (size_t)(m * n));
            uint16_t *r16 = malloc(sizeof(uint16_t) * (size_t)(m * n));
            void *s32 = malloc((size_t)rt_opt_fc_typed_scratch(type, ta, RT_F32, m, n, k));
            rt_opt_fc_typed(&g, type, ta, a, pw, bias, RT_F32, c32, s32);
            rt_opt_from_f32(c32, (int64_t)m * n, tc, r16);
            /* the f32 C may come from the widened panels (whole rows: K in order) and the 16-bit one from the
             * pair tiles (blocks of rows): then a value may round to the neighbouring 16-bit number, no further */
            int64_t off = 0;
            float *g32 = malloc(sizeof(float) * (size_t)(m * n));
            double top = 0;
            rt_opt_to_f32(tc, got, (int64_t)m * n, g32);
            for (int64_t i = 0; i < (int64_t)m * n; i++) top = fabs((double)c32[i]) > top ? fabs((double)c32[i]) : top;
            for (int64_t i = 0; i < (int64_t)m * n; i++) {
                double d = fabs((double)g32[i] - (double)c32[i]), ulp = fabs((double)c32[i]) / (tc == RT_BF16 ? 128 : 1024);
                if (r16[i] != ((const uint16_t *)got)[i] && d > ulp + 1e-5 * top) off++;
            }
            free(g32);
            snprintf(msg, sizeof msg, "m %d n %d k %d: %lld values not the f32 C rounded (to a neighbour)", m, n, k,
                     (long long)off);
            check(off == 0, what, msg);
            free(c32), free(r16), free(s32);
        }
        free(af), free(bias), free(wf), free(a), free(got), free(w), free(pw), free(s_ref), free(s_typed);
    }
}

/* CONV_2D with 16-bit weights reading / writing 16-bit tensors (and a fused ADD's other input): exactly the
 * f32-activation kernel on the widened tensors, rounded (im2col of a bf16 input copies the values the f32
 * path rounds to, the direct path widens what it read), split over tasks or not. */
static void test_conv(void) {
    char what[96], msg[200];
    for (int t = 0; t < 80; t++) {
        rt_conv_params p;
        if (!rnd_conv(&p, t) && t < 70) continue; /* (from 70 on the shape is made below) */
        if (t >= 70) { /* bf16 image, even channels, 3x3: read in place through the row table (rt_opt_conv_rows_bf16);
                        * t 79: a 3x3 image, one output row (the one-row kernel through the table) */
            p.in_c = p.filter_c = 2 << (t % 4), p.in_h = rnd_in(6, 12), p.in_w = rnd_in(6, 12);
            p.filter_h = p.filter_w = 3, p.dil_h = p.dil_w = 1;
            if (t == 79) p.in_h = p.in_w = 3, p.pad_h = p.pad_w = 0, p.batches = 1;
            p.out_h = (p.in_h + 2 * p.pad_h - 3) / p.stride_h + 1;
            p.out_w = (p.in_w + 2 * p.pad_w - 3) / p.stride_w + 1;
        }
        if (t >= 50 && t < 70) { /* bf16, 1, 3 or 5 input channels, 2x2 or 3x3: filter rows of under 16 halves (the short
                        * runs of rt_opt_im2col_bf16), most patches inside the image */
            p.in_c = p.filter_c = 1 + 2 * (t % 3), p.in_h = rnd_in(5, 12), p.in_w = rnd_in(5, 12);
            p.filter_h = p.filter_w = rnd_in(2, 3), p.dil_h = p.dil_w = 1;
            if (t >= 62) /* filter rows of 17 to 40 values (a ViT's patch embedding: 3 channels, 8 wide, stride 8) */
                p.in_c = p.filter_c = 3 + 2 * (t % 2), p.filter_w = rnd_in(6, 8), p.filter_h = rnd_in(2, 4),
                p.in_w = rnd_in(8, 20), p.stride_w = t % 3 ? p.filter_w : 1, p.pad_w = 0;
            p.out_h = (p.in_h + 2 * p.pad_h - p.filter_h) / p.stride_h + 1;
            p.out_w = (p.in_w + 2 * p.pad_w - p.filter_w) / p.stride_w + 1;
        }
        int32_t type = t % 2 && t < 50 ? RT_F16 : RT_BF16;
        int32_t ti = t >= 70 ? RT_BF16 : t >= 50 ? (t % 2 ? RT_BF16 : RT_F32) : rnd_in(0, 2);
        int32_t tc = rnd_in(0, 2), to = rnd_in(0, 2);
        if (ti + tc + to == 0) ti = type;
        p.act_min = -1.5f, p.act_max = 2.0f;
        int32_t k = p.filter_h * p.filter_w * p.in_c, n = p.out_c, np = (n + 15) / 16 * 16, rows = t % 3 ? 48 : 16;
        int32_t m = p.batches * p.out_h * p.out_w;
        int64_t in_n = (int64_t)p.batches * p.in_h * p.in_w * p.in_c, out_n = (int64_t)m * n;
        if (out_n <= 0 || out_n > (1 << 20)) continue;
        float *inf = malloc(sizeof(float) * (size_t)in_n), *bias = calloc((size_t)np, sizeof(float));
        float *otf = malloc(sizeof(float) * (size_t)out_n), *wantf = malloc(sizeof(float) * (size_t)out_n);
        void *in = malloc((size_t)in_n * 4), *other = malloc((size_t)out_n * 4), *got = malloc((size_t)out_n * 4);
        void *want = malloc((size_t)out_n * 4);
        uint16_t *w = malloc(sizeof(uint16_t) * (size_t)(n * k)), *pw = malloc(sizeof(uint16_t) * (size_t)(np * (k + 1)));
        fill(ti, in, inf, in_n);
        fill(to, other, otf, out_n);
        for (int i = 0; i < n * k; i++) w[i] = type == RT_BF16 ? rt_f32_to_bf16(rnd_f()) : rt_f32_to_f16(rnd_f());
        for (int i = 0; i < n; i++) bias[i] = rnd_f();
        sched_pack_half(w, n, k, pw);
        rt_opt_conv_params c = opt_conv(&p, rows), ct;
        c.gemm.slots = 3, c.gemm.slot_bytes = rt_opt_conv_half_scratch(type, c.direct, m, rows, n, k);
        ct = c;
        ct.in_type = ti, ct.out_type = tc, ct.other_type = to;
        ct.gemm.slot_bytes = rt_opt_conv_typed_scratch(type, ti, tc, to, c.direct, m, rows, n, k);
        if (t % 4 < 2 && type == RT_BF16 && !c.direct) { /* room for the padded bf16 image (the reference has none) */
            int64_t pad = rt_opt_conv_bf16_padded_bytes(p.in_h, p.in_w, p.in_c, p.out_h, p.out_w, p.filter_h, p.filter_w,
                                                        p.stride_h, p.stride_w, p.pad_h, p.pad_w, p.dil_h, p.dil_w);
            if (pad) ct.gemm.slot_bytes = rt_opt_half_pad_at(ct.gemm.slot_bytes) + pad;
        }
        void *s_ref = malloc((size_t)(3 * c.gemm.slot_bytes)), *s_typed = malloc((size_t)(3 * ct.gemm.slot_bytes));
        rt_binary_params ap;
        rt_opt_post_add post;
        unit_post_add(&ap, &post, out_n, t % 2);
        int with_add = t % 3 == 0;
        rt_opt_conv_half(&c, type, inf, pw, bias, wantf, s_ref, with_add ? &post : NULL, with_add ? otf : NULL, NULL);
        store(wantf, out_n, tc, want);
        rt_opt_conv_half(&ct, type, in, pw, bias, got, s_typed, with_add ? &post : NULL, with_add ? other : NULL,
                         t % 4 == 1 ? &fake_par : NULL);
        snprintf(what, sizeof what, "conv typed %s weights, in %s -> out %s%s%s", tname(type), tname(ti), tname(tc),
                 with_add ? ", ADD other " : "", with_add ? tname(to) : "");
        snprintf(msg, sizeof msg, "%dx%dx%dx%d f %dx%d s %d,%d d %d,%d pad %d,%d oc %d%s", p.batches, p.in_h, p.in_w,
                 p.in_c, p.filter_h, p.filter_w, p.stride_h, p.stride_w, p.dil_h, p.dil_w, p.pad_h, p.pad_w, n,
                 c.direct ? " direct" : "");
        /* bit for bit where both sides run the same tiles; the f32 image's side may run the widened panels
         * (rt_opt_gemm16_widen_all, many rows): then within worst_typed's bounds */
        if (memcmp(got, want, (size_t)(out_n * esz(tc))) != 0) {
            double bound, worst = worst_typed(tc, got, wantf, out_n, &bound);
            size_t len = strlen(msg);
            snprintf(msg + len, sizeof msg - len, ": not bit for bit, worst %.2e (bound %.2e)", worst, bound);
            check(worst <= bound, what, msg);
        } else
            check(1, what, msg);
        free(inf), free(bias), free(otf), free(wantf), free(in), free(other), free(got), free(want), free(w), free(pw);
        free(s_ref), free(s_typed);
    }
}

/* DEPTHWISE_CONV_2D reading / writing 16-bit tensors (band by band, split over tasks or not) and a 1x1
 * expansion fused with it (pass fuse_dw) with a 16-bit input and output, against the f32 kernels on the
 * widened tensors: within 1e-5 before the output's one rounding. */
static void test_dwconv(void) {
    char what[96], msg[200];
    for (int t = 0; t < 40; t++) {
        rt_dwconv_params d;
        memset(&d, 0, sizeof d);
        d.batches = rnd_in(1, 2), d.in_h = rnd_in(1, 11), d.in_w = rnd_in(1, 11), d.in_c = rnd_in(1, 40);
        d.depth_mult = t % 5 == 4 ? 2 : 1, d.filter_h = d.filter_w = t % 4 == 3 ? rnd_in(1, 5) : 3;
        d.stride_h = d.stride_w = rnd_in(1, 2), d.dil_h = d.dil_w = t % 6 == 5 ? 2 : 1, d.pad_h = d.pad_w = rnd_in(0, 1);
        d.out_h = (d.in_h + 2 * d.pad_h - d.dil_h * (d.filter_h - 1) - 1) / d.stride_h + 1;
        d.out_w = (d.in_w + 2 * d.pad_w - d.dil_w * (d.filter_w - 1) - 1) / d.stride_w + 1;
        d.act_min = 0.0f, d.act_max = 6.0f;
        if (d.out_h <= 0 || d.out_w <= 0) continue;
        int32_t oc = d.in_c * d.depth_mult, band = rnd_in(1, 5), ti = rnd_in(0, 2), to = rnd_in(0, 2);
        if (ti + to == 0) to = RT_BF16;
        int64_t in_n = (int64_t)d.batches * d.in_h * d.in_w * d.in_c, out_n = (int64_t)d.batches * d.out_h * d.out_w * oc;
        int64_t wd_n = (int64_t)d.filter_h * d.filter_w * oc;
        float *inf = malloc(sizeof(float) * (size_t)in_n), *wd = malloc(sizeof(float) * (size_t)wd_n);
        float *bd = malloc(sizeof(float) * (size_t)oc), *wantf = malloc(sizeof(float) * (size_t)out_n);
        void *in = malloc((size_t)in_n * 4), *got = malloc((size_t)out_n * 4);
        void *scratch = malloc((size_t)(3 * rt_opt_dwconv_typed_slot_bytes(&d, band, to)));
        fill(ti, in, inf, in_n);
        for (int64_t i = 0; i < wd_n; i++) wd[i] = rnd_f();
        for (int i = 0; i < oc; i++) bd[i] = rnd_f();
        rt_opt_dwconv_f32(&d, inf, wd, bd, wantf, NULL);
        rt_opt_dwconv_typed(&d, ti, in, wd, bd, to, got, scratch, band, 3, t % 2 ? &fake_par : NULL);
        double bound, worst = worst_typed(to, got, wantf, out_n, &bound);
        snprintf(what, sizeof what, "dwconv typed %s -> %s", tname(ti), tname(to));
        snprintf(msg, sizeof msg, "%dx%dx%dx%d x%d f %d s %d d %d pad %d band %d: worst %.2e (bound %.2e)", d.batches,
                 d.in_h, d.in_w, d.in_c, d.depth_mult, d.filter_h, d.stride_h, d.dil_h, d.pad_h, band, worst, bound);
        check(worst <= bound, what, msg);
        free(inf), free(wd), free(bd), free(wantf), free(in), free(got), free(scratch);
    }
    for (int t = 0; t < 20; t++) { /* the fused 1x1 expansion + depthwise */
        rt_conv_params cp;
        rt_dwconv_params d;
        rnd_expand_dw(&cp, &d, t);
        if (d.out_h <= 0 || d.out_w <= 0) continue;
        int32_t k = cp.in_c, n = cp.out_c, np = (n + 15) / 16 * 16, band = rnd_in(1, 5);
        int32_t type = t % 2 ? RT_F16 : RT_BF16, ti = rnd_in(0, 2), to = rnd_in(0, 2);
        if (ti + to == 0) ti = type;
        int64_t in_n = (int64_t)cp.batches * cp.in_h * cp.in_w * k, out_n = (int64_t)d.batches * d.out_h * d.out_w * n;
        float *inf = malloc(sizeof(float) * (size_t)in_n), *bias = calloc((size_t)np, sizeof(float));
        float *wd = malloc(sizeof(float) * (size_t)(d.filter_h * d.filter_w * n)), *bd = malloc(sizeof(float) * (size_t)n);
        float *wantf = malloc(sizeof(float) * (size_t)out_n);
        void *in = malloc((size_t)in_n * 4), *got = malloc((size_t)out_n * 4);
        uint16_t *w16 = malloc(sizeof(uint16_t) * (size_t)(n * k)), *pw16 = malloc(sizeof(uint16_t) * (size_t)(np * ((k + 1) / 2 * 2)));
        fill(ti, in, inf, in_n);
        for (int i = 0; i < n * k; i++) w16[i] = type == RT_F16 ? rt_f32_to_f16(rnd_f()) : rt_f32_to_bf16(rnd_f());
        for (int i = 0; i < n; i++) bias[i] = rnd_f(), bd[i] = rnd_f();
        for (int i = 0; i < d.filter_h * d.filter_w * n; i++) wd[i] = rnd_f();
        sched_pack_half(w16, n, k, pw16);
        rt_opt_conv_params c = opt_conv(&cp, 1), ct;
        c.gemm.lda = k;
        c.gemm.slots = 3, c.gemm.slot_bytes = rt_opt_conv_dw_slot_bytes(&d, band, type, k);
        ct = c;
        ct.in_type = ti, ct.out_type = to;
        ct.gemm.slot_bytes = rt_opt_conv_dw_typed_slot_bytes(&d, band, type, k, ti, to);
        void *s_ref = malloc(3 * (size_t)c.gemm.slot_bytes), *s_typed = malloc(3 * (size_t)ct.gemm.slot_bytes);
        rt_opt_conv_dw(&c, type, inf, pw16, bias, &d, wd, bd, band, wantf, s_ref, NULL);
        rt_opt_conv_dw(&ct, type, in, pw16, bias, &d, wd, bd, band, got, s_typed, t % 2 ? NULL : &fake_par);
        double bound, worst = worst_typed(to, got, wantf, out_n, &bound);
        snprintf(what, sizeof what, "conv 1x1 + dwconv fused typed %s weights, %s -> %s", tname(type), tname(ti), tname(to));
        snprintf(msg, sizeof msg, "%dx%dx%dx%d -> %d s %d pad %d band %d: worst %.2e (bound %.2e)", cp.batches, cp.in_h,
                 cp.in_w, k, n, d.stride_h, d.pad_h, band, worst, bound);
        check(worst <= bound, what, msg);
        free(inf), free(bias), free(wd), free(bd), free(wantf), free(in), free(got), free(w16), free(pw16);
        free(s_ref), free(s_typed);
    }
}

int main(void) {
    unit_seed(20261126ULL, rt_opt_isa());
    test_convert();
    test_binary();
    test_gelu_ln();
    test_fc();
    test_conv();
    test_dwconv();
    printf("%d passed, %d failed\n", passes, failures);
    return failures != 0;
}
