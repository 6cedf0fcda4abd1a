/* test_opt_kernels.c - the optimized kernels (runtime/rt_opt*.c) against the
 * reference kernels on random shapes and data, with the weight packing of
 * pass schedule (the convolutions: test_conv_kernels.c; the element-wise ops: test_elementwise_kernels.c). Integer results must be
 * identical, f32 within 1e-5 of the largest |reference|. Built by `make unit` (generic, ASan+UBSan) and by
 * tests/test_opt_kernels.py at -O3 -march=native (the AVX2/FMA paths).
 * The seed is printed; MPCC_SEED=<n> reproduces a run. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpcc_rt.h"
#include "sched_pack.h"
#include "rt_opt_internal.h"

#include "unit_check.h"
#include "unit_conv.h"

static void test_requant(void) {
    enum { N = 4099 };
    static int32_t acc[N], bias[N], mult[N], shift[N];
    static int8_t got[N], want[N];
    char msg[160];
    for (int rounding = 0; rounding < 2; rounding++)
        for (int with_bias = 0; with_bias < 2; with_bias++) {
            for (int i = 0; i < N; i++) {
                int kind = rnd_in(0, 9);
                acc[i] = kind == 0 ? INT32_MAX - rnd_in(0, 5) : kind == 1 ? INT32_MIN + rnd_in(0, 5)
                                                                          : (int32_t)((rnd() << 1) ^ rnd());
                if (kind > 5) acc[i] = rnd_in(-70000, 70000);
                bias[i] = rnd_in(-100000, 100000);
            }
            rnd_requant(mult, shift, N, -31, rounding ? 0 : 2);
            int32_t off = rnd_in(-128, 127);
            rt_opt_requant_i8(acc, with_bias ? bias : NULL, mult, shift, N, rounding, off, -128, 127, got);
            for (int i = 0; i < N; i++) {
                int32_t x = with_bias ? (int32_t)((uint32_t)acc[i] + (uint32_t)bias[i]) : acc[i];
                int32_t y = (rounding ? rt_mul_by_quantized_multiplier_single(x, mult[i], shift[i])
                                      : rt_mul_by_quantized_multiplier(x, mult[i], shift[i])) + off;
                want[i] = (int8_t)rt_clamp_i32(y, -128, 127);
            }
            snprintf(msg, sizeof msg, "%lld of %d differ", (long long)count_diff_i8(got, want, N), N);
            check(count_diff_i8(got, want, N) == 0, rounding ? "requant single rounding" : "requant double rounding",
                  msg);
        }
}


#if defined(RT_OPT_AVX2)
/* rq_double8 (the AVX2 requantization every int8 kernel ends in) lane by lane against TFLite's
 * double rounding, on the whole int32 result (no clamp hides a wrong high bit): accumulators at
 * the extremes, at the nudge's and the divide's ties (ab = +-2^30 (2i + 1), x 2^right +- 1 around
 * a half), multipliers 0 and the Q31 range, every shift in [-31, 0]. */
static void test_rq_double8(void) {
    enum { N = 1 << 16 };
    int64_t bad = 0, first = -1;
    char msg[160];
    for (int i = 0; i < N; i += 8) {
        int32_t x[8], m[8], s[8], got[8];
        for (int l = 0; l < 8; l++) {
            int kind = rnd_in(0, 7);
            m[l] = kind == 7 ? rnd_in(0, 3) : (int32_t)((1u << 30) + (rnd() & 0x3FFFFFFFu));
            if (kind == 6) m[l] = INT32_MAX - rnd_in(0, 3);
            s[l] = -rnd_in(0, 31);
            x[l] = kind == 0 ? INT32_MAX - rnd_in(0, 3) : kind == 1 ? INT32_MIN + rnd_in(0, 3)
                 : kind == 2 ? rnd_in(-300, 300) : (int32_t)((rnd() << 1) ^ rnd());
            if (kind == 3) m[l] = 1 << 30, x[l] = rnd_in(-9, 9); /* ab = x 2^30: the nudge's ties at odd x */
            if (kind == 4) { /* x m / 2^31 near (j + 1/2) 2^right: the divide's ties */
                m[l] = 1 << 30;
                x[l] = (int32_t)(((int64_t)(2 * rnd_in(-1000, 1000) + 1) * ((int64_t)1 << -s[l]) + rnd_in(-1, 1)) % (1 << 30));
            }
        }
        _mm256_storeu_si256((__m256i *)(void *)got,
                            rq_double8(_mm256_loadu_si256((const __m256i *)(const void *)x),
                                       _mm256_loadu_si256((const __m256i *)(const void *)m),
                                       _mm256_loadu_si256((const __m256i *)(const void *)s)));
        for (int l = 0; l < 8; l++)
            if (got[l] != rt_mul_by_quantized_multiplier(x[l], m[l], s[l]) && bad++ == 0) first = i + l;
    }
    snprintf(msg, sizeof msg, "%lld of %d lanes differ (first: lane %lld)", (long long)bad, N, (long long)first);
    check(bad == 0, "rq_double8 vs TFLite's double rounding, int32 results", msg);
}
#endif

static void test_gemm(void) {
    char msg[200];
    for (int t = 0; t < 40; t++) {
        int32_t m = rnd_in(1, 40), n = rnd_in(1, 70), k = rnd_in(1, 90), np = (n + 15) / 16 * 16;
        if (t % 4 == 0) m = rnd_in(16, 70), k = rnd_in(60, 300); /* AMX: 16-row groups, several 64-byte steps */
        if (t % 4 == 1) m = 9 + 8 * (t / 4 % 4), n = rnd_in(17, 70), np = (n + 15) / 16 * 16; /* 9 last rows: one pass */
        float *a = malloc(sizeof(float) * (size_t)(m * k)), *w = malloc(sizeof(float) * (size_t)(n * k));
        float *bias = malloc(sizeof(float) * (size_t)n), *pb = calloc((size_t)np, sizeof(float));
        float *pw = malloc(sizeof(float) * (size_t)(np * k)), *got = malloc(sizeof(float) * (size_t)(m * n));
        float *want = malloc(sizeof(float) * (size_t)(m * n));
        int8_t *a8 = malloc((size_t)(m * k)), *w8 = malloc((size_t)(n * k)), *g8 = malloc((size_t)(m * n));
        int8_t *r8 = malloc((size_t)(m * n));
        int32_t *b32 = malloc(sizeof(int32_t) * (size_t)n), *pb32 = malloc(sizeof(int32_t) * (size_t)np);
        int32_t *mult = malloc(sizeof(int32_t) * (size_t)np), *shift = malloc(sizeof(int32_t) * (size_t)np);
        int8_t *pw16 = malloc((size_t)(np * ((k + 3) / 4 * 4)));
        int16_t *scratch = malloc(sizeof(int16_t) * (size_t)(3 * 12 * ((k + 1) / 2 * 2)));
        for (int i = 0; i < m * k; i++) a[i] = rnd_f(), a8[i] = (int8_t)rnd_in(-128, 127);
        for (int i = 0; i < n * k; i++) w[i] = rnd_f(), w8[i] = (int8_t)rnd_in(-127, 127);
        for (int i = 0; i < n; i++) bias[i] = pb[i] = rnd_f(), b32[i] = rnd_in(-20000, 20000);
        /* f32 */
        rt_fc_params fp;
        memset(&fp, 0, sizeof fp);
        fp.batches = m, fp.in_depth = k, fp.out_depth = n, fp.act_min = -1.5f, fp.act_max = 2.0f;
        rt_fully_connected_f32(&fp, a, w, bias, want);
        sched_pack_f32(w, n, k, pw);
        rt_opt_gemm_params g;
        memset(&g, 0, sizeof g);
        g.m = m, g.n = n, g.k = k, g.lda = k, g.ldc = n, g.act_min = -1.5f, g.act_max = 2.0f;
        /* each output's |bias| + sum |a w|: the reference FC of the magnitudes, unclamped (max_err_over_bound) */
        float *mag = malloc(sizeof(float) * (size_t)(m * n)), *aa = malloc(sizeof(float) * (size_t)(m * k));
        float *aw = malloc(sizeof(float) * (size_t)(n * k)), *ab = malloc(sizeof(float) * (size_t)n);
        for (int i = 0; i < m * k; i++) aa[i] = fabsf(a[i]);
        for (int i = 0; i < n * k; i++) aw[i] = fabsf(w[i]);
        for (int i = 0; i < n; i++) ab[i] = fabsf(bias[i]);
        fp.act_min = -INFINITY, fp.act_max = INFINITY;
        rt_fully_connected_f32(&fp, aa, aw, ab, mag);
        fp.act_min = -1.5f, fp.act_max = 2.0f;
        free(aa), free(aw), free(ab);
        rt_opt_gemm_f32(&g, a, pw, pb, got);
        double rel = max_err_over_bound(got, want, mag, (int64_t)m * n, k);
        snprintf(msg, sizeof msg, "m %d n %d k %d: max error %.2f of the rounding bound", m, n, k, rel);
        check(rel <= 1.0, "gemm f32 vs FULLY_CONNECTED", msg);
        rt_opt_fc_f32(&g, a, pw, pb, got, &fake_par);
        rel = max_err_over_bound(got, want, mag, (int64_t)m * n, k);
        snprintf(msg, sizeof msg, "m %d n %d k %d, 3 tasks: max error %.2f of the rounding bound", m, n, k, rel);
        check(rel <= 1.0, "fc f32 split over tasks vs FULLY_CONNECTED", msg);
        free(mag);
        /* int8 */
        rt_fc_params qp;
        memset(&qp, 0, sizeof qp);
        int32_t in_zp = rnd_in(-128, 127), out_zp = rnd_in(-128, 127);
        /* every 5th: shifts down to -31 (the single rounding's zero point not folded where 31 - shift > 54) */
        rnd_requant(mult, shift, n, t % 5 == 1 ? -31 : -12, t % 5 == 1 ? -16 : -6);
        for (int i = n; i < np; i++) mult[i] = mult[n - 1], shift[i] = shift[n - 1];
        qp.batches = m, qp.in_depth = k, qp.out_depth = n, qp.in_offset = -in_zp, qp.out_offset = out_zp;
        qp.per_channel = 1, qp.mult = mult, qp.shift = shift, qp.act_qmin = -128, qp.act_qmax = 127;
        rt_fully_connected_i8(&qp, a8, w8, b32, r8);
        sched_pack_s8(w8, n, k, pw16);
        sched_fold_bias_s8(w8, b32, -in_zp, n, k, np, pb32);
        g.out_offset = out_zp, g.act_qmin = -128, g.act_qmax = 127, g.rounding = RT_OPT_ROUND_SINGLE;
        g.mult = mult, g.shift = shift, g.rows = 12;
        rt_opt_gemm_s8(&g, a8, pw16, pb32, g8, scratch, NULL);
        int64_t diff = count_diff_i8(g8, r8, (int64_t)m * n);
        snprintf(msg, sizeof msg, "m %d n %d k %d: %lld of %d differ", m, n, k, (long long)diff, m * n);
        check(diff == 0, "gemm int8 vs FULLY_CONNECTED", msg);
        g.slots = 3, g.slot_bytes = (int64_t)sizeof(int16_t) * 12 * ((k + 1) / 2 * 2);
        memset(g8, 0, (size_t)(m * n));
        rt_opt_gemm_s8(&g, a8, pw16, pb32, g8, scratch, &fake_par);
        diff = count_diff_i8(g8, r8, (int64_t)m * n);
        snprintf(msg, sizeof msg, "m %d n %d k %d, 3 tasks: %lld of %d differ", m, n, k, (long long)diff, m * n);
        check(diff == 0, "gemm int8 split over tasks vs FULLY_CONNECTED", msg);
        /* One block of all rows (16-row groups take the AMX tiles where the build has them). */
        uint8_t *big = malloc((size_t)m * (size_t)((k + 3) / 4 * 4) + 64);
        g.slots = 1, g.rows = m, g.slot_bytes = 0;
        memset(g8, 0, (size_t)(m * n));
        rt_opt_gemm_s8(&g, a8, pw16, pb32, g8, big, NULL);
        diff = count_diff_i8(g8, r8, (int64_t)m * n);
        snprintf(msg, sizeof msg, "m %d n %d k %d, one block: %lld of %d differ", m, n, k, (long long)diff, m * n);
        check(diff == 0, "gemm int8 in one block vs FULLY_CONNECTED", msg);
        /* The float requantization (ops mpcc --precision int8 quantized): factors drawn small, as powers of
         * two (exact ties: both round half to even), or past 1/2 (clamped in float before the conversion),
         * with a ReLU's bound on every third case. */
        float *fs = malloc(sizeof(float) * (size_t)np);
        for (int i = 0; i < np; i++) {
            int c = i < n ? i : n - 1;
            fs[i] = t % 3 == 0 ? ldexpf(1.0f, -rnd_in(1, 12)) : t % 3 == 1 ? 1e-4f + 0.01f * fabsf(rnd_f())
                                                                          : 0.3f + fabsf(rnd_f());
            if (i >= n) fs[i] = fs[c];
        }
        qp.fscale = fs, qp.act_qmin = t % 3 == 2 ? out_zp : -128;
        rt_fully_connected_i8(&qp, a8, w8, b32, r8);
        g.rounding = RT_OPT_ROUND_FLOAT, g.fscale = fs, g.act_qmin = qp.act_qmin;
        for (int pass = 0; pass < 3; pass++) {
            g.rows = pass == 2 ? m : 12, g.slots = pass == 1 ? 3 : 1;
            g.slot_bytes = pass == 1 ? (int64_t)sizeof(int16_t) * 12 * ((k + 1) / 2 * 2) : 0;
            memset(g8, 0, (size_t)(m * n));
            rt_opt_gemm_s8(&g, a8, pw16, pb32, g8, pass == 2 ? (void *)big : (void *)scratch,
                           pass == 1 ? &fake_par : NULL);
            diff = count_diff_i8(g8, r8, (int64_t)m * n);
            snprintf(msg, sizeof msg, "m %d n %d k %d, factors %s, qmin %d, %s: %lld of %d differ", m, n, k,
                     t % 3 == 0 ? "2^-e" : t % 3 == 1 ? "small" : "past 1/2", qp.act_qmin,
                     pass == 0 ? "blocks of 12" : pass == 1 ? "3 tasks" : "one block", (long long)diff, m * n);
            check(diff == 0, "gemm int8 with float requantization vs FULLY_CONNECTED", msg);
        }
        /* Float results (the FC's DEQUANTIZE folded in): x factor, clamped, as rt_fully_connected_i8_f32;
         * with a residual (a fused ADD) fmaf(sum, factor, residual), one rounding. */
        float *gf = malloc(sizeof(float) * (size_t)(m * n)), *rf = malloc(sizeof(float) * (size_t)(m * n));
        float *res = malloc(sizeof(float) * (size_t)(m * n)), *one = malloc(sizeof(float) * (size_t)n);
        float *sums = malloc(sizeof(float) * (size_t)(m * n));
        for (int i = 0; i < m * n; i++) res[i] = rnd_f();
        for (int i = 0; i < n; i++) one[i] = 1.0f;
        qp.fscale = one, qp.act_min = -INFINITY, qp.act_max = INFINITY;
        rt_fully_connected_i8_f32(&qp, a8, w8, b32, sums); /* the sums as floats */
        qp.fscale = fs, qp.act_min = t % 3 == 2 ? 0.0f : -INFINITY, qp.act_max = t % 3 == 2 ? 6.0f : INFINITY;
        rt_fully_connected_i8_f32(&qp, a8, w8, b32, rf);
        g.out_f32 = 1, g.act_min = qp.act_min, g.act_max = qp.act_max, g.mult = g.shift = NULL; /* none: floats */
        for (int pass = 0; pass < 6; pass++) {
            const float *r = pass >= 3 ? res : NULL;
            g.rows = pass % 3 == 2 ? m : 12, g.slots = pass % 3 == 1 ? 3 : 1;
            g.slot_bytes = pass % 3 == 1 ? (int64_t)sizeof(int16_t) * 12 * ((k + 1) / 2 * 2) : 0;
            memset(gf, 0, sizeof(float) * (size_t)(m * n));
            rt_opt_gemm_s8_f32(&g, a8, pw16, pb32, gf, r, pass % 3 == 2 ? (void *)big : (void *)scratch,
                               pass % 3 == 1 ? &fake_par : NULL);
            diff = 0;
            for (int i = 0; i < m * n; i++) {
                float want_i = r ? rt_clamp_f32(fmaf(sums[i], fs[i % n], r[i]), qp.act_min, qp.act_max) : rf[i];
                diff += memcmp(&gf[i], &want_i, sizeof(float)) != 0;
            }
            snprintf(msg, sizeof msg, "m %d n %d k %d, %s, act [%g, %g], %s: %lld of %d differ", m, n, k,
                     r ? "residual" : "no residual", (double)qp.act_min, (double)qp.act_max,
                     pass % 3 == 0 ? "blocks of 12" : pass % 3 == 1 ? "3 tasks" : "one block", (long long)diff, m * n);
            check(diff == 0, "gemm int8 with float results vs FULLY_CONNECTED int8 -> f32", msg);
        }
        g.out_f32 = 0, g.act_min = -1.5f, g.act_max = 2.0f, g.mult = mult, g.shift = shift;
        qp.act_min = qp.act_max = 0.0f;
        free(gf), free(rf), free(res), free(one), free(sums);
        free(fs);
        free(big);
        free(a), free(w), free(bias), free(pb), free(pw), free(got), free(want), free(a8), free(w8), free(g8);
        free(r8), free(b32), free(pb32), free(mult), free(shift), free(pw16), free(scratch);
    }
}

/* MAX_POOL_2D and AVERAGE_POOL_2D: the channel-vectorized kernels equal the reference (channel counts past
 * one chunk and one vector, padding that leaves windows partly outside the image, so the averages' counts
 * vary, clamps that cut, NaN and -0 for the maximum). */
static void test_pool(void) {
    char msg[160];
    for (int t = 0; t < 40; t++) {
        rt_pool_params p;
        memset(&p, 0, sizeof p);
        p.batches = rnd_in(1, 2), p.in_h = rnd_in(1, 9), p.in_w = rnd_in(1, 9), p.channels = rnd_in(1, 40);
        if (t % 5 == 0) p.channels = rnd_in(250, 300);
        p.filter_h = rnd_in(1, 3), p.filter_w = rnd_in(1, 3), p.stride_h = rnd_in(1, 2), p.stride_w = rnd_in(1, 2);
        p.pad_h = rnd_in(0, p.filter_h - 1), p.pad_w = rnd_in(0, p.filter_w - 1);
        p.out_h = (p.in_h + 2 * p.pad_h - p.filter_h) / p.stride_h + 1;
        p.out_w = (p.in_w + 2 * p.pad_w - p.filter_w) / p.stride_w + 1;
        if (p.out_h <= 0 || p.out_w <= 0) continue;
        p.act_min = t % 2 ? -0.5f : -INFINITY, p.act_max = t % 3 ? 0.75f : INFINITY;
        p.act_qmin = t % 2 ? -100 : -128, p.act_qmax = t % 3 ? 90 : 127;
        int64_t in_n = (int64_t)p.batches * p.in_h * p.in_w * p.channels;
        int64_t out_n = (int64_t)p.batches * p.out_h * p.out_w * p.channels;
        float *in = malloc(sizeof(float) * (size_t)in_n), *got = malloc(sizeof(float) * (size_t)out_n);
        float *want = malloc(sizeof(float) * (size_t)out_n);
        int8_t *in8 = malloc((size_t)in_n), *g8 = malloc((size_t)out_n), *w8 = malloc((size_t)out_n);
        for (int64_t i = 0; i < in_n; i++) in[i] = rnd_f(), in8[i] = (int8_t)rnd_in(-128, 127);
        if (t % 4 == 1) /* NaNs are never a maximum; a -0 against a 0 keeps the earlier one */
            for (int64_t i = 0; i < in_n; i += 7) in[i] = i % 2 ? NAN : (i % 3 ? -0.0f : 0.0f);
        rt_max_pool_2d_f32(&p, in, want);
        rt_opt_max_pool_2d_f32(&p, in, got);
        rt_max_pool_2d_i8(&p, in8, w8);
        rt_opt_max_pool_2d_i8(&p, in8, g8);
        snprintf(msg, sizeof msg, "%dx%dx%dx%d f %dx%d s %d,%d pad %d,%d", p.batches, p.in_h, p.in_w, p.channels,
                 p.filter_h, p.filter_w, p.stride_h, p.stride_w, p.pad_h, p.pad_w);
        check(memcmp(got, want, sizeof(float) * (size_t)out_n) == 0, "max pool f32 vs MAX_POOL_2D", msg);
        check(count_diff_i8(g8, w8, out_n) == 0, "max pool int8 vs MAX_POOL_2D", msg);
        if (t % 4 == 1) /* finite inputs for the average */
            for (int64_t i = 0; i < in_n; i++) in[i] = rnd_f();
        rt_average_pool_2d_f32(&p, in, want);
        rt_opt_average_pool_2d_f32(&p, in, got);
        rt_average_pool_2d_i8(&p, in8, w8);
        rt_opt_average_pool_2d_i8(&p, in8, g8);
        check(memcmp(got, want, sizeof(float) * (size_t)out_n) == 0, "average pool f32 vs AVERAGE_POOL_2D", msg);
        check(count_diff_i8(g8, w8, out_n) == 0, "average pool int8 vs AVERAGE_POOL_2D", msg);
        free(in), free(got), free(want), free(in8), free(g8), free(w8);
    }
}

/* A convolution's fused PRELU (rt_opt_prelu_rows_f32, pass fuse_prelu): rows x c in place equal PRELU's
 * reference with one slope per channel (c with and without a tail of fewer than 8, past 64: the slopes
 * in registers or not; NaN, -0 and 0 among the inputs). */
static void test_prelu_rows(void) {
    char msg[96];
    for (int t = 0; t < 40; t++) {
        int32_t rows = rnd_in(1, 9), c = t % 4 == 0 ? rnd_in(65, 140) : rnd_in(1, 64);
        int64_t n = (int64_t)rows * c;
        rt_prelu_params p;
        memset(&p, 0, sizeof p);
        p.shape.rank = 2, p.shape.dims[0] = rows, p.shape.dims[1] = c, p.alpha_stride[1] = 1;
        float *x = malloc(sizeof(float) * (size_t)n), *want = malloc(sizeof(float) * (size_t)n);
        float *a = malloc(sizeof(float) * (size_t)c);
        for (int64_t i = 0; i < n; i++) x[i] = i % 11 == 3 ? NAN : i % 11 == 5 ? -0.0f : i % 11 == 7 ? 0.0f : rnd_f();
        for (int32_t i = 0; i < c; i++) a[i] = rnd_f();
        rt_prelu_f32(&p, x, a, want);
        rt_opt_prelu_rows_f32(x, a, rows, c);
        snprintf(msg, sizeof msg, "%d rows x %d channels", rows, c);
        check(memcmp(x, want, sizeof(float) * (size_t)n) == 0, "fused PRELU rows vs PRELU", msg);
        free(x), free(want), free(a);
    }
}

/* int8 PRELU by table (rt_opt_prelu_lut_i8, op_prelu.c's prelu_table_i8): each channel's 256 results made by
 * rt_prelu_i8 over all inputs, then rows x c looked up equal rt_prelu_i8 on the whole tensor (per-channel
 * alpha; c = 1 with one alpha for every element). */
static void test_prelu_lut(void) {
    char msg[96];
    for (int t = 0; t < 30; t++) {
        int32_t rows = rnd_in(1, 40), c = t % 5 == 0 ? 1 : rnd_in(1, 140);
        int64_t n = (int64_t)rows * c;
        rt_prelu_params p, q;
        memset(&p, 0, sizeof p);
        p.shape.rank = 2, p.shape.dims[0] = rows, p.shape.dims[1] = c, p.alpha_stride[1] = c > 1;
        p.in_offset = rnd_in(-127, 128), p.alpha_offset = rnd_in(-127, 128), p.out_offset = rnd_in(-128, 127);
        p.mult_1 = (int32_t)((1u << 30) + (rnd() & 0x3FFFFFFFu)), p.shift_1 = rnd_in(-8, 1);
        p.mult_2 = (int32_t)((1u << 30) + (rnd() & 0x3FFFFFFFu)), p.shift_2 = rnd_in(-14, -4);
        int8_t *x = malloc((size_t)n), *got = malloc((size_t)n), *want = malloc((size_t)n), *a = malloc((size_t)c);
        int8_t *lut = malloc((size_t)c * 256), all[256];
        for (int64_t i = 0; i < n; i++) x[i] = (int8_t)rnd_in(-128, 127);
        for (int32_t i = 0; i < c; i++) a[i] = (int8_t)rnd_in(-128, 127);
        for (int v = 0; v < 256; v++) all[v] = (int8_t)(uint8_t)v;
        memset(&q, 0, sizeof q);
        q = p, q.shape.rank = 1, q.shape.dims[0] = 256, q.shape.dims[1] = 0, q.alpha_stride[1] = 0;
        for (int32_t ch = 0; ch < c; ch++) rt_prelu_i8(&q, all, a + ch, lut + (size_t)ch * 256);
        rt_prelu_i8(&p, x, a, want);
        rt_opt_prelu_lut_i8(rows, c, lut, x, got);
        snprintf(msg, sizeof msg, "%d rows x %d channels", rows, c);
        check(count_diff_i8(got, want, n) == 0, "PRELU int8 table vs PRELU", msg);
        free(x), free(got), free(want), free(a), free(lut);
    }
}

/* A convolution's fused HARD_SWISH (rt_opt_hard_swish_rows_f32, pass fuse_prelu) equals HARD_SWISH's reference
 * bit for bit (around the clamp's corners -3 and 3, NaN, -0 and 0 among the inputs; with AVX-512 the division by
 * 6 is a product and a correction, so also +-inf, huge values and tiny ones whose quotient is subnormal). */
static void test_hard_swish_rows(void) {
    char msg[64];
    for (int t = 0; t < 20; t++) {
        int64_t n = rnd_in(1, 300);
        rt_act_params p;
        memset(&p, 0, sizeof p);
        p.n = n;
        float *x = malloc(sizeof(float) * (size_t)n), *want = malloc(sizeof(float) * (size_t)n);
        for (int64_t i = 0; i < n; i++)
            x[i] = i % 13 == 3 ? NAN : i % 13 == 5 ? -0.0f : i % 13 == 7 ? 0.0f : i % 13 == 9 ? -3.0f
                 : i % 13 == 11 ? ldexpf(rnd_f(), -rnd_in(115, 150)) /* x * (x + 3) near 2^-120 and below */
                 : i % 13 == 1 ? (i % 26 == 1 ? INFINITY : -INFINITY) : i % 13 == 12 ? 1e37f * rnd_f() : 5.0f * rnd_f();
        rt_hard_swish_f32(&p, x, want);
        rt_opt_hard_swish_rows_f32(x, n);
        snprintf(msg, sizeof msg, "%lld values", (long long)n);
        check(memcmp(x, want, sizeof(float) * (size_t)n) == 0, "fused HARD_SWISH vs HARD_SWISH", msg);
        free(x), free(want);
    }
}

/* MEAN int8 and f32, REDUCE_MAX/REDUCE_MIN f32 over adjacent axes (and over non-adjacent ones, which fall back
 * to the reference). */
static void test_mean(void) {
    char msg[160];
    for (int t = 0; t < 40; t++) {
        rt_reduce_params p;
        memset(&p, 0, sizeof p);
        p.rank = rnd_in(1, 4);
        int mask = rnd_in(1, (1 << p.rank) - 1);
        if (t % 2 == 0 && p.rank == 4) mask = 6; /* global average pooling over H, W */
        p.in_count = 1, p.out_count = 1, p.reduce_count = 1;
        for (int d = 0; d < p.rank; d++) p.in_dims[d] = rnd_in(1, d == p.rank - 1 ? 70 : 6), p.in_count *= p.in_dims[d];
        for (int d = p.rank - 1, s = 1; d >= 0; d--) {
            if (mask >> d & 1) p.out_stride[d] = 0, p.reduce_count *= p.in_dims[d];
            else p.out_stride[d] = s, s *= p.in_dims[d], p.out_count *= p.in_dims[d];
        }
        p.in_zp = rnd_in(-128, 127), p.out_zp = rnd_in(-128, 127);
        p.mult = (int32_t)((1u << 30) + (rnd() & 0x3FFFFFFFu)), p.shift = rnd_in(-12, 0);
        int8_t *in = malloc((size_t)p.in_count), *got = malloc((size_t)p.out_count), *want = malloc((size_t)p.out_count);
        int32_t *scratch = malloc(sizeof(int32_t) * (size_t)p.out_count);
        float *inf = malloc(sizeof(float) * (size_t)p.in_count), *gotf = malloc(sizeof(float) * (size_t)p.out_count);
        float *wantf = malloc(sizeof(float) * (size_t)p.out_count);
        for (int i = 0; i < p.in_count; i++) in[i] = (int8_t)rnd_in(-128, 127), inf[i] = rnd_f();
        rt_mean_i8(&p, in, want, scratch);
        rt_opt_mean_i8(&p, in, got, scratch);
        rt_mean_f32(&p, inf, wantf);
        rt_opt_mean_f32(&p, inf, gotf);
        snprintf(msg, sizeof msg, "rank %d mask %d, %d elements, %d outputs", p.rank, mask, p.in_count, p.out_count);
        check(count_diff_i8(got, want, p.out_count) == 0, "mean int8 vs MEAN", msg);
        check(memcmp(gotf, wantf, sizeof(float) * (size_t)p.out_count) == 0, "mean f32 vs MEAN", msg);
        /* REDUCE_MAX / REDUCE_MIN f32 on the same shapes, with NaNs, infinities and signed zeros mixed in:
         * equal values (a tie of +0 and -0 may give either zero) */
        for (int i = 0; i < p.in_count; i++) {
            int r = rnd_in(0, 15);
            if (r == 0) inf[i] = NAN;
            else if (r == 1) inf[i] = t % 3 ? -INFINITY : INFINITY;
            else if (r == 2) inf[i] = t % 2 ? -0.0f : 0.0f;
        }
        for (int minimum = 0; minimum < 2; minimum++) {
            int bad = 0;
            if (minimum) rt_reduce_min_f32(&p, inf, wantf), rt_opt_reduce_min_f32(&p, inf, gotf);
            else rt_reduce_max_f32(&p, inf, wantf), rt_opt_reduce_max_f32(&p, inf, gotf);
            for (int i = 0; i < p.out_count; i++) bad += !(gotf[i] == wantf[i]);
            check(bad == 0, minimum ? "reduce min f32 vs REDUCE_MIN" : "reduce max f32 vs REDUCE_MAX", msg);
        }
        free(in), free(got), free(want), free(scratch), free(inf), free(gotf), free(wantf);
    }
}

/* TRANSPOSE-style element-wise copies: rt_opt_copy (its strided inner-axis loop) equals rt_copy_strided. */
/* CONCATENATION's int8 rescale (rt_opt_concatenation_i8) against the reference: every int8 input
 * value, random scales and biases, scales and biases that put results on exact halves, results far
 * past the bounds, and parts that only clamp. */
static void test_concat_i8(void) {
    int64_t bad = 0;
    char msg[160];
    for (int t = 0; t < 200; t++) {
        int8_t in[300], got[300], want[300];
        rt_copy_params part;
        memset(&part, 0, sizeof part);
        part.run = 300;
        int kind = t % 4;
        float scale = kind == 0 ? (float)rnd_in(1, 4000) / 1000.0f : kind == 1 ? 0.5f * (float)rnd_in(1, 5)
                    : kind == 2 ? 1e7f * (float)rnd_in(1, 1000) : (float)rnd_in(1, 3000) / 997.0f;
        float bias = kind == 1 ? 0.5f * (float)rnd_in(-9, 9) : (float)rnd_in(-40000, 40000) / 100.0f;
        int32_t same = kind == 3 && t % 8 == 3;
        rt_concat_params p = {1, &part, 0.0f, 0.0f, &same, &scale, &bias, rnd_in(-128, 127), rnd_in(-128, -60),
                              rnd_in(60, 127)};
        for (int i = 0; i < 300; i++) in[i] = (int8_t)(i < 256 ? i - 128 : rnd_in(-128, 127));
        rt_concatenation_i8(&p, 0, in, want);
        rt_opt_concatenation_i8(&p, 0, in, got);
        bad += count_diff_i8(got, want, 300);
    }
    snprintf(msg, sizeof msg, "%lld of %d bytes differ", (long long)bad, 200 * 300);
    check(bad == 0, "concatenation int8 rescale vs the reference", msg);
}

static void test_copy(void) {
    char msg[160];
    for (int t = 0; t < 40; t++) {
        rt_copy_params p;
        memset(&p, 0, sizeof p);
        int rank = rnd_in(2, 4), perm[4] = {0, 1, 2, 3}, dims[4];
        int64_t es = (int64_t)1 << rnd_in(0, 3), in_stride[4], n = 1;
        for (int d = 0; d < rank; d++) dims[d] = rnd_in(1, 20);
        for (int d = rank - 1; d > 0; d--) { /* a random permutation */
            int j = rnd_in(0, d), tmp = perm[d];
            perm[d] = perm[j], perm[j] = tmp;
        }
        if (t < 6) /* [C][len] -> [len][C] bytes, C 2..4: an NCHW image to NHWC (the interleave path) */
            rank = 2, es = 1, dims[0] = 2 + t % 3, dims[1] = rnd_in(1, 300), perm[0] = 1, perm[1] = 0;
        for (int d = rank - 1; d >= 0; d--) in_stride[d] = n * es, n *= dims[d];
        p.rank = rank, p.run = es;
        for (int k = rank - 1, s = 1; k >= 0; k--) {
            p.dims[k] = dims[perm[k]];
            p.in_strides[k] = in_stride[perm[k]];
            p.out_strides[k] = s * es, s *= dims[perm[k]];
        }
        uint8_t *in = malloc((size_t)(n * es)), *got = malloc((size_t)(n * es)), *want = malloc((size_t)(n * es));
        for (int64_t i = 0; i < n * es; i++) in[i] = (uint8_t)rnd_in(0, 255);
        rt_copy_strided(&p, in, want);
        rt_opt_copy(&p, in, got);
        snprintf(msg, sizeof msg, "rank %d, %lld elements of %lld bytes", rank, (long long)n, (long long)es);
        check(memcmp(got, want, (size_t)(n * es)) == 0, "copy vs the strided reference copy", msg);
        free(in), free(got), free(want);
    }
}

static void test_bmm(void) {
    char msg[200];
    for (int t = 0; t < 20; t++) {
        rt_bmm_params p;
        memset(&p, 0, sizeof p);
        int adj_x = rnd_in(0, 1), adj_y = rnd_in(0, 1), nb = rnd_in(1, 3), bcast = rnd_in(0, 1);
        p.batch_rank = 1, p.batch_dims[0] = nb, p.m = rnd_in(1, 20), p.n = rnd_in(1, 40), p.k = rnd_in(1, 50);
        p.lhs_si = adj_x ? 1 : p.k, p.lhs_sk = adj_x ? p.m : 1, p.rhs_sk = adj_y ? 1 : p.n;
        p.rhs_sj = adj_y ? p.k : 1;
        p.lhs_bstride[0] = p.m * p.k, p.rhs_bstride[0] = bcast ? 0 : p.k * p.n;
        int64_t ln = (int64_t)nb * p.m * p.k, rn = (int64_t)nb * p.k * p.n, on = (int64_t)nb * p.m * p.n;
        float *l = malloc(sizeof(float) * (size_t)ln), *r = malloc(sizeof(float) * (size_t)rn);
        float *got = malloc(sizeof(float) * (size_t)on), *want = malloc(sizeof(float) * (size_t)on);
        int8_t *l8 = malloc((size_t)ln), *r8 = malloc((size_t)rn), *g8 = malloc((size_t)on), *w8 = malloc((size_t)on);
        for (int64_t i = 0; i < ln; i++) l[i] = rnd_f(), l8[i] = (int8_t)rnd_in(-128, 127);
        for (int64_t i = 0; i < rn; i++) r[i] = rnd_f(), r8[i] = (int8_t)rnd_in(-128, 127);
        void *scratch = malloc(rt_opt_bmm_scratch_bytes(&p, 0) + rt_opt_bmm_scratch_bytes(&p, 1));
        rt_batch_matmul_f32(&p, l, r, want);
        rt_opt_bmm_f32(&p, l, r, got, scratch);
        double rel = max_rel_f32(got, want, on);
        snprintf(msg, sizeof msg, "b %d m %d n %d k %d adj %d,%d: max rel err %.2e", nb, p.m, p.n, p.k, adj_x, adj_y,
                 rel);
        check(rel <= 1e-5, "bmm f32 vs BATCH_MATMUL", msg);
        p.lhs_offset = -rnd_in(-128, 127), p.rhs_offset = -rnd_in(-128, 127), p.out_offset = rnd_in(-128, 127);
        rnd_requant(&p.mult, &p.shift, 1, -16, -8);
        rt_batch_matmul_i8(&p, l8, r8, w8);
        rt_opt_bmm_s8(&p, l8, r8, g8, scratch);
        int64_t diff = count_diff_i8(g8, w8, on);
        snprintf(msg, sizeof msg, "b %d m %d n %d k %d adj %d,%d: %lld of %lld differ", nb, p.m, p.n, p.k, adj_x,
                 adj_y, (long long)diff, (long long)on);
        check(diff == 0, "bmm int8 vs BATCH_MATMUL", msg);
        free(l), free(r), free(got), free(want), free(l8), free(r8), free(g8), free(w8), free(scratch);
    }
}

int main(void) {
    unit_seed(20261123ULL, rt_opt_isa());
    test_requant();
#if defined(RT_OPT_AVX2)
    test_rq_double8();
#endif
    test_gemm();
    test_pool();
    test_prelu_rows();
    test_mean();
    test_copy();
    test_concat_i8();
    test_bmm();
    /* Last, so that their random draws do not change the cases of the tests above. */
    test_prelu_lut();
    test_hard_swish_rows();
    printf("%d passed, %d failed\n", passes, failures);
    return failures != 0;
}
