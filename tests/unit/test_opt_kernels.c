/* test_opt_kernels.c - the optimized kernels (runtime/rt_opt*.c) against the
 * reference kernels on random shapes and data, with the weight packing of
 * pass schedule. Integer results must be identical, f32 within 1e-5 of the
 * largest |reference|. Built by `make unit` (generic, ASan+UBSan) and by
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

static int64_t count_diff_i8(const int8_t *a, const int8_t *b, int64_t n) {
    int64_t c = 0;
    for (int64_t i = 0; i < n; i++) c += a[i] != b[i];
    return c;
}

/* Q31 multipliers in [2^30, 2^31) and shifts as TFLite produces them. */
static void rnd_requant(int32_t *mult, int32_t *shift, int n, int lo_shift, int hi_shift) {
    for (int i = 0; i < n; i++) {
        mult[i] = (int32_t)((1u << 30) + (rnd() & 0x3FFFFFFFu));
        shift[i] = rnd_in(lo_shift, hi_shift);
    }
}

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


static void test_gemm(void) {
    char msg[200];
    for (int t = 0; t < 40; t++) {
        int32_t m = rnd_in(1, 40), n = rnd_in(1, 70), k = rnd_in(1, 90), np = (n + 15) / 16 * 16;
        if (t % 4 == 0) m = rnd_in(16, 70), k = rnd_in(60, 300); /* AMX: 16-row groups, several 64-byte steps */
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
        rt_opt_gemm_f32(&g, a, pw, pb, got);
        double rel = max_rel_f32(got, want, (int64_t)m * n);
        snprintf(msg, sizeof msg, "m %d n %d k %d: max rel err %.2e", m, n, k, rel);
        check(rel <= 1e-5, "gemm f32 vs FULLY_CONNECTED", msg);
        rt_opt_fc_f32(&g, a, pw, pb, got, &fake_par);
        rel = max_rel_f32(got, want, (int64_t)m * n);
        snprintf(msg, sizeof msg, "m %d n %d k %d, 3 tasks: max rel err %.2e", m, n, k, rel);
        check(rel <= 1e-5, "fc f32 split over tasks vs FULLY_CONNECTED", msg);
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
        free(big);
        free(a), free(w), free(bias), free(pb), free(pw), free(got), free(want), free(a8), free(w8), free(g8);
        free(r8), free(b32), free(pb32), free(mult), free(shift), free(pw16), free(scratch);
    }
}

/* Random convolution geometry (one group; every 5th a direct 1x1); 0 when the filter does not fit. */
/* A parallel-for that runs the tasks backwards on this thread: the split into
 * tasks (and their scratch copies) must not change any result. */
static void test_conv(void) {
    char msg[200];
    for (int t = 0; t < 30; t++) {
        rt_conv_params p;
        if (!rnd_conv(&p, t)) continue;
        int32_t k = p.filter_h * p.filter_w * p.in_c, n = p.out_c, np = (n + 15) / 16 * 16, kp = (k + 1) / 2 * 2;
        int64_t in_n = (int64_t)p.batches * p.in_h * p.in_w * p.in_c, out_n = (int64_t)p.batches * p.out_h * p.out_w * n;
        if (out_n <= 0 || out_n > (1 << 20)) continue; /* never: bounds for gcc's object-size check */
        int8_t *in8 = malloc((size_t)in_n), *w8 = malloc((size_t)(n * k)), *g8 = malloc((size_t)out_n);
        int8_t *r8 = malloc((size_t)out_n);
        float *in = malloc(sizeof(float) * (size_t)in_n), *w = malloc(sizeof(float) * (size_t)(n * k));
        float *bias = calloc((size_t)np, sizeof(float)), *pw = malloc(sizeof(float) * (size_t)(np * k));
        float *got = malloc(sizeof(float) * (size_t)out_n), *want = malloc(sizeof(float) * (size_t)out_n);
        int32_t *b32 = malloc(sizeof(int32_t) * (size_t)n), *pb32 = malloc(sizeof(int32_t) * (size_t)np);
        int32_t *mult = malloc(sizeof(int32_t) * (size_t)np), *shift = malloc(sizeof(int32_t) * (size_t)np);
        int8_t *pw16 = malloc((size_t)(np * ((k + 3) / 4 * 4)));
        int32_t rows = 12;
        int64_t slot = rt_opt_conv_f32_slot_bytes(rows, k, p.filter_h, p.filter_w, p.in_c);
        if (slot < (int64_t)sizeof(float) * rows * kp) slot = (int64_t)sizeof(float) * rows * kp; /* int8 rows */
        /* int8: room for the padded image too, which the split calls below use (slot_bytes set; the first
         * call, slot_bytes 0, gathers the edge rows tap by tap) */
        const int64_t pad8 = rt_opt_conv_s8_padded_bytes(p.in_h, p.in_w, p.in_c, p.out_h, p.out_w, p.filter_h,
                                                         p.filter_w, p.stride_h, p.stride_w, p.pad_h, p.pad_w, p.dil_h,
                                                         p.dil_w);
        if (slot < (int64_t)rows * ((k + 3) / 4 * 4) + pad8) slot = (int64_t)rows * ((k + 3) / 4 * 4) + pad8;
        void *scratch = malloc(3 * (size_t)slot);
        for (int64_t i = 0; i < in_n; i++) in[i] = rnd_f(), in8[i] = (int8_t)rnd_in(-128, 127);
        for (int i = 0; i < n * k; i++) w[i] = rnd_f(), w8[i] = (int8_t)rnd_in(-127, 127);
        for (int i = 0; i < n; i++) bias[i] = rnd_f(), b32[i] = rnd_in(-20000, 20000);
        p.act_min = -INFINITY, p.act_max = INFINITY;
        rt_conv_2d_f32(&p, in, w, bias, want);
        rt_opt_conv_params c = opt_conv(&p, rows);
        sched_pack_f32(w, n, k, pw);
        rt_opt_conv_f32(&c, in, pw, bias, got, scratch, NULL, NULL, NULL);
        double rel = max_rel_f32(got, want, out_n);
        snprintf(msg, sizeof msg, "%dx%dx%d f %dx%d s %d,%d d %d pad %d,%d oc %d%s: max rel err %.2e", p.in_h,
                 p.in_w, p.in_c, p.filter_h, p.filter_w, p.stride_h, p.stride_w, p.dil_h, p.pad_h, p.pad_w, n,
                 c.direct ? " direct" : "", rel);
        check(rel <= 1e-5, "conv f32 vs CONV_2D", msg);
        c.gemm.slots = 3, c.gemm.slot_bytes = slot;
        memset(got, 0, sizeof(float) * (size_t)out_n);
        rt_opt_conv_f32(&c, in, pw, bias, got, scratch, NULL, NULL, &fake_par);
        rel = max_rel_f32(got, want, out_n);
        check(rel <= 1e-5, "conv f32 split over tasks vs CONV_2D", msg);
        int32_t in_zp = rnd_in(-128, 127);
        rnd_requant(mult, shift, n, t % 3 ? -12 : -31, t % 3 ? -6 : 0); /* all shifts: e = 0, e > 23 (zero point not folded) */
        for (int i = n; i < np; i++) mult[i] = mult[n - 1], shift[i] = shift[n - 1];
        p.in_offset = -in_zp, p.out_offset = rnd_in(-128, 127), p.mult = mult, p.shift = shift;
        p.act_qmin = t % 3 == 0 ? -128 : rnd_in(-128, -100), p.act_qmax = t % 3 == 0 ? 127 : rnd_in(100, 126);
        rt_conv_2d_i8(&p, in8, w8, b32, r8);
        sched_pack_s8(w8, n, k, pw16);
        sched_fold_bias_s8(w8, b32, -in_zp, n, k, np, pb32);
        c.gemm.out_offset = p.out_offset, c.gemm.act_qmin = p.act_qmin, c.gemm.act_qmax = p.act_qmax;
        c.gemm.rounding = RT_OPT_ROUND_DOUBLE, c.gemm.mult = mult, c.gemm.shift = shift, c.pad_value = in_zp;
        c.gemm.slots = 0, c.gemm.slot_bytes = 0; /* no room for the padded image: edge rows tap by tap */
        rt_opt_conv_s8(&c, in8, pw16, pb32, g8, scratch, NULL, NULL, NULL);
        int64_t diff = count_diff_i8(g8, r8, out_n);
        snprintf(msg, sizeof msg, "%dx%dx%d f %dx%d s %d,%d pad %d,%d oc %d: %lld of %lld differ", p.in_h, p.in_w,
                 p.in_c, p.filter_h, p.filter_w, p.stride_h, p.stride_w, p.pad_h, p.pad_w, n, (long long)diff,
                 (long long)out_n);
        check(diff == 0, "conv int8 vs CONV_2D", msg);
        memset(g8, 0, (size_t)out_n);
        c.gemm.slots = 3, c.gemm.slot_bytes = slot;
        rt_opt_conv_s8(&c, in8, pw16, pb32, g8, scratch, NULL, NULL, &fake_par);
        diff = count_diff_i8(g8, r8, out_n);
        check(diff == 0, pad8 ? "conv int8 split over tasks, padded image, vs CONV_2D" : "conv int8 split over tasks vs CONV_2D",
              msg);
        c.gemm.slots = 0, c.gemm.slot_bytes = 0;
        /* The fused residual ADD (pass fuse_add) against CONV_2D then ADD. */
        {
            rt_binary_params ap;
            rt_opt_post_add post;
            int8_t *other8 = malloc((size_t)out_n), *sum8 = malloc((size_t)out_n);
            float *other = malloc(sizeof(float) * (size_t)out_n), *sum = malloc(sizeof(float) * (size_t)out_n);
            memset(&ap, 0, sizeof ap);
            ap.bc.rank = 1, ap.bc.dims[0] = (int32_t)out_n, ap.bc.stride1[0] = 1, ap.bc.stride2[0] = 1;
            ap.act_min = -2.0f, ap.act_max = 2.5f, ap.act_qmin = -128, ap.act_qmax = 127;
            ap.in1_offset = -rnd_in(-128, 127), ap.in2_offset = -rnd_in(-128, 127), ap.out_offset = rnd_in(-128, 127);
            ap.left_shift = 20, ap.in1_shift = rnd_in(-8, -1), ap.in2_shift = rnd_in(-8, -1);
            ap.in1_mult = (int32_t)((1u << 30) + (rnd() & 0x3FFFFFFFu));
            ap.in2_mult = (int32_t)((1u << 30) + (rnd() & 0x3FFFFFFFu));
            ap.out_mult = (int32_t)((1u << 30) + (rnd() & 0x3FFFFFFFu)), ap.out_shift = rnd_in(-22, -16);
            post.add = &ap;
            post.conv_is_lhs = t % 2;
            for (int64_t i = 0; i < out_n; i++) other[i] = rnd_f(), other8[i] = (int8_t)rnd_in(-128, 127);
            if (post.conv_is_lhs) rt_add_f32(&ap, want, other, sum), rt_add_i8(&ap, r8, other8, sum8);
            else rt_add_f32(&ap, other, want, sum), rt_add_i8(&ap, other8, r8, sum8);
            rt_opt_conv_f32(&c, in, pw, bias, got, scratch, &post, other, NULL);
            rel = max_rel_f32(got, sum, out_n);
            snprintf(msg, sizeof msg, "max rel err %.2e", rel);
            check(rel <= 1e-5, "conv f32 + fused ADD vs CONV_2D, ADD", msg);
            rt_opt_conv_s8(&c, in8, pw16, pb32, g8, scratch, &post, other8, NULL);
            diff = count_diff_i8(g8, sum8, out_n);
            snprintf(msg, sizeof msg, "%lld of %lld differ", (long long)diff, (long long)out_n);
            check(diff == 0, "conv int8 + fused ADD vs CONV_2D, ADD", msg);
            free(other8), free(sum8), free(other), free(sum);
        }
        free(in8), free(w8), free(g8), free(r8), free(in), free(w), free(bias), free(pw), free(got), free(want);
        free(b32), free(pb32), free(mult), free(shift), free(pw16), free(scratch);
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

/* A 1x1 expansion CONV_2D fused with the depthwise convolution after it, band
 * by band, against the reference CONV_2D then DEPTHWISE_CONV_2D (bands of 1
 * to 5 rows, strides 1 and 2, edges, several tasks). */
/* int8 convolutions whose patches are whole K quads per filter row (rt_opt_conv_s8_runs): AVX512-VNNI
 * builds read them in place, from the input (no padding) or from the padded copy in scratch; other
 * builds and scratch without room take im2col. TFLite SAME (padding before = half the total, the rest
 * after: a 2-wide filter's patch reaches past the image with no padding before) and VALID geometry;
 * outputs of more than one block of rows; one-panel (N <= 16), two-panel and odd panel counts; runs of an
 * odd number of quads; a fused ADD on some. */
static void test_conv_runs(void) {
    static const int32_t chans[] = {4, 8, 12, 16, 32, 64, 20};
    static const int32_t outs[] = {16, 32, 48, 5, 64, 70, 8};
    char msg[220];
    for (int t = 0; t < 42; t++) {
        rt_conv_params p;
        memset(&p, 0, sizeof p);
        p.batches = 1 + t % 2, p.in_c = chans[t % 7], p.filter_c = p.in_c, p.out_c = outs[(t / 7) % 7];
        p.filter_h = t % 5 == 4 ? 1 : 1 + rnd_in(1, 2), p.filter_w = t % 6 == 5 ? 1 : 1 + rnd_in(1, 2);
        if (p.filter_h * p.filter_w == 1) p.filter_w = 3;
        p.stride_h = rnd_in(1, 2), p.stride_w = rnd_in(1, 2), p.dil_h = p.dil_w = 1;
        p.in_h = t % 4 == 0 ? rnd_in(17, 24) : rnd_in(3, 12), p.in_w = t % 4 == 0 ? rnd_in(17, 24) : rnd_in(3, 12);
        if (t % 3 == 2) { /* VALID */
            p.out_h = (p.in_h - p.filter_h) / p.stride_h + 1, p.out_w = (p.in_w - p.filter_w) / p.stride_w + 1;
        } else { /* SAME */
            p.out_h = (p.in_h + p.stride_h - 1) / p.stride_h, p.out_w = (p.in_w + p.stride_w - 1) / p.stride_w;
            int32_t th = (p.out_h - 1) * p.stride_h + p.filter_h - p.in_h, tw = (p.out_w - 1) * p.stride_w + p.filter_w - p.in_w;
            p.pad_h = th > 0 ? th / 2 : 0, p.pad_w = tw > 0 ? tw / 2 : 0;
        }
        if (p.out_h < 1 || p.out_w < 1) continue;
        const int32_t k = p.filter_h * p.filter_w * p.in_c, n = p.out_c, np = (n + 15) / 16 * 16, k4 = (k + 3) / 4 * 4;
        const int64_t in_n = (int64_t)p.batches * p.in_h * p.in_w * p.in_c;
        const int64_t out_n = (int64_t)p.batches * p.out_h * p.out_w * n;
        int8_t *in8 = malloc((size_t)in_n), *w8 = malloc((size_t)(n * k)), *g8 = malloc((size_t)out_n);
        int8_t *r8 = malloc((size_t)out_n), *pw = malloc((size_t)(np * k4)), *other8 = malloc((size_t)out_n);
        int8_t *sum8 = malloc((size_t)out_n);
        int32_t *b32 = malloc(sizeof(int32_t) * (size_t)n), *pb32 = malloc(sizeof(int32_t) * (size_t)np);
        int32_t *mult = malloc(sizeof(int32_t) * (size_t)np), *shift = malloc(sizeof(int32_t) * (size_t)np);
        const int32_t rows = 8 * rnd_in(1, 6), in_zp = rnd_in(-128, 127);
        const int64_t pad8 = rt_opt_conv_s8_padded_bytes(p.in_h, p.in_w, p.in_c, p.out_h, p.out_w, p.filter_h,
                                                         p.filter_w, p.stride_h, p.stride_w, p.pad_h, p.pad_w, 1, 1);
        const int64_t slot = (int64_t)rows * k4 + pad8;
        void *scratch = malloc(3 * (size_t)slot);
        for (int64_t i = 0; i < in_n; i++) in8[i] = (int8_t)rnd_in(-128, 127);
        for (int i = 0; i < n * k; i++) w8[i] = (int8_t)rnd_in(-127, 127);
        for (int i = 0; i < n; i++) b32[i] = rnd_in(-20000, 20000);
        rnd_requant(mult, shift, n, t % 5 == 0 ? -2 : -12, t % 5 == 0 ? 0 : -6); /* every 5th: e = 0 .. 2 */
        for (int i = n; i < np; i++) mult[i] = mult[n - 1], shift[i] = shift[n - 1];
        p.in_offset = -in_zp, p.out_offset = rnd_in(-128, 100), p.mult = mult, p.shift = shift;
        p.act_qmin = t % 2 ? -128 : rnd_in(-128, -100), p.act_qmax = t % 2 ? 127 : rnd_in(100, 126);
        /* a fused ReLU / ReLU6 (lower bound at or above the zero point: no negative-product correction) */
        if (t % 4 == 1) p.act_qmin = p.out_offset;
        if (t % 4 == 3) p.act_qmin = p.out_offset + rnd_in(0, 3), p.act_qmax = p.out_offset + rnd_in(20, 27);
        rt_conv_2d_i8(&p, in8, w8, b32, r8);
        sched_pack_s8(w8, n, k, pw);
        sched_fold_bias_s8(w8, b32, -in_zp, n, k, np, pb32);
        rt_opt_conv_params c = opt_conv(&p, rows);
        c.gemm.out_offset = p.out_offset, c.gemm.act_qmin = p.act_qmin, c.gemm.act_qmax = p.act_qmax;
        c.gemm.rounding = RT_OPT_ROUND_DOUBLE, c.gemm.mult = mult, c.gemm.shift = shift, c.pad_value = in_zp;
        snprintf(msg, sizeof msg, "%dx%dx%dx%d f %dx%d s %d,%d pad %d,%d out %dx%d oc %d rows %d runs %d", p.batches,
                 p.in_h, p.in_w, p.in_c, p.filter_h, p.filter_w, p.stride_h, p.stride_w, p.pad_h, p.pad_w, p.out_h,
                 p.out_w, n, rows, rt_opt_conv_s8_runs(p.filter_h, p.filter_w, p.in_c, 1, 1));
        for (int v = 0; v < 3; v++) { /* one slot; 3 tasks; no scratch room (padding: im2col edge rows) */
            c.gemm.slots = v == 2 ? 0 : v + 1 + (v == 1), c.gemm.slot_bytes = v == 2 ? 0 : slot;
            memset(g8, 0x55, (size_t)out_n);
            rt_opt_conv_s8(&c, in8, pw, pb32, g8, scratch, NULL, NULL, v == 1 ? &fake_par : NULL);
            int64_t diff = count_diff_i8(g8, r8, out_n);
            char m2[300];
            snprintf(m2, sizeof m2, "%s, %s: %lld of %lld differ", msg, v == 0 ? "1 slot" : v == 1 ? "3 tasks" : "no room",
                     (long long)diff, (long long)out_n);
            check(diff == 0, "conv int8 (patch runs) vs CONV_2D", m2);
        }
        if (t % 3 == 1) { /* a fused residual ADD */
            rt_binary_params ap;
            rt_opt_post_add post;
            memset(&ap, 0, sizeof ap);
            ap.bc.rank = 1, ap.bc.dims[0] = (int32_t)out_n, ap.bc.stride1[0] = 1, ap.bc.stride2[0] = 1;
            ap.act_qmin = -128, ap.act_qmax = 127, ap.left_shift = 20;
            ap.in1_offset = -rnd_in(-128, 127), ap.in2_offset = -rnd_in(-128, 127), ap.out_offset = rnd_in(-128, 127);
            ap.in1_shift = rnd_in(-8, -1), ap.in2_shift = rnd_in(-8, -1), ap.out_shift = rnd_in(-22, -16);
            ap.in1_mult = (int32_t)((1u << 30) + (rnd() & 0x3FFFFFFFu));
            ap.in2_mult = (int32_t)((1u << 30) + (rnd() & 0x3FFFFFFFu));
            ap.out_mult = (int32_t)((1u << 30) + (rnd() & 0x3FFFFFFFu));
            post.add = &ap, post.conv_is_lhs = t % 2;
            for (int64_t i = 0; i < out_n; i++) other8[i] = (int8_t)rnd_in(-128, 127);
            if (post.conv_is_lhs) rt_add_i8(&ap, r8, other8, sum8);
            else rt_add_i8(&ap, other8, r8, sum8);
            c.gemm.slots = 1, c.gemm.slot_bytes = slot;
            rt_opt_conv_s8(&c, in8, pw, pb32, g8, scratch, &post, other8, NULL);
            int64_t diff = count_diff_i8(g8, sum8, out_n);
            char m2[300];
            snprintf(m2, sizeof m2, "%s: %lld of %lld differ", msg, (long long)diff, (long long)out_n);
            check(diff == 0, "conv int8 (patch runs) + fused ADD vs CONV_2D, ADD", m2);
        }
        free(in8), free(w8), free(g8), free(r8), free(pw), free(other8), free(sum8), free(b32), free(pb32);
        free(mult), free(shift), free(scratch);
    }
}

static void test_conv_dw(void) {
    char msg[200];
    for (int t = 0; t < 24; t++) {
        rt_conv_params cp;
        rt_dwconv_params d;
        rnd_expand_dw(&cp, &d, t);
        if (d.out_h <= 0 || d.out_w <= 0) continue;
        int32_t k = cp.in_c, n = cp.out_c, np = (n + 15) / 16 * 16, band = rnd_in(1, 5);
        int64_t in_n = (int64_t)cp.batches * cp.in_h * cp.in_w * k, mid_n = (int64_t)cp.batches * cp.in_h * cp.in_w * n;
        int64_t out_n = (int64_t)d.batches * d.out_h * d.out_w * n, wd_n = (int64_t)d.filter_h * d.filter_w * n;
        float *in = malloc(sizeof(float) * (size_t)in_n), *w = malloc(sizeof(float) * (size_t)(n * k));
        float *pw = malloc(sizeof(float) * (size_t)(np * k)), *bias = calloc((size_t)np, sizeof(float));
        float *mid = malloc(sizeof(float) * (size_t)mid_n), *wd = malloc(sizeof(float) * (size_t)wd_n);
        float *bd = malloc(sizeof(float) * (size_t)n), *want = malloc(sizeof(float) * (size_t)out_n);
        float *got = malloc(sizeof(float) * (size_t)out_n);
        uint16_t *w16 = malloc(sizeof(uint16_t) * (size_t)(n * k)), *pw16 = malloc(sizeof(uint16_t) * (size_t)(np * ((k + 1) / 2 * 2)));
        int32_t type = t % 3 == 1 ? (t % 2 ? RT_F16 : RT_BF16) : RT_F32; /* --precision bf16/fp16 weights */
        for (int64_t i = 0; i < in_n; i++) in[i] = rnd_f();
        for (int i = 0; i < n * k; i++) w[i] = rnd_f(), w16[i] = type == RT_F16 ? rt_f32_to_f16(w[i]) : rt_f32_to_bf16(w[i]);
        for (int i = 0; i < n; i++) bias[i] = rnd_f(), bd[i] = rnd_f();
        for (int64_t i = 0; i < wd_n; i++) wd[i] = rnd_f();
        if (type == RT_F32) rt_conv_2d_f32(&cp, in, w, bias, mid);
        else cp.half_type = type, rt_conv_2d_half(&cp, in, w16, bias, mid);
        rt_depthwise_conv_2d_f32(&d, mid, wd, bd, want);
        rt_opt_conv_params c = opt_conv(&cp, 1);
        c.gemm.lda = k;
        c.gemm.slots = 3, c.gemm.slot_bytes = rt_opt_conv_dw_slot_bytes(&d, band, type, k);
        void *scratch = malloc(3 * (size_t)c.gemm.slot_bytes);
        if (type == RT_F32) sched_pack_f32(w, n, k, pw);
        else sched_pack_half(w16, n, k, pw16);
        for (int par = 0; par < 2; par++) {
            memset(got, 0, sizeof(float) * (size_t)out_n);
            rt_opt_conv_dw(&c, type, in, type == RT_F32 ? (const void *)pw : (const void *)pw16, bias, &d, wd, bd, band,
                           got, scratch, par ? &fake_par : NULL);
            double rel = max_rel_f32(got, want, out_n);
            snprintf(msg, sizeof msg, "%s %dx%dx%dx%d -> %d, dw %dx%d s %d d %d pad %d, band %d%s: max rel err %.2e",
                     type == RT_F32 ? "f32" : type == RT_BF16 ? "bf16" : "f16", cp.batches, cp.in_h, cp.in_w, k, n,
                     d.filter_h, d.filter_w, d.stride_h, d.dil_h, d.pad_h, band, par ? ", 3 tasks" : "", rel);
            check(rel <= 1e-5, "conv 1x1 + dwconv fused vs CONV_2D, DEPTHWISE_CONV_2D", msg);
        }
        free(in), free(w), free(pw), free(bias), free(mid), free(wd), free(bd), free(want), free(got), free(scratch);
        free(w16), free(pw16);
    }
}

/* MEAN int8 and f32 over adjacent axes (and over non-adjacent ones, which fall back to the reference). */
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

static void test_dwconv(void) {
    char msg[200];
    for (int t = 0; t < 240; t++) {
        rt_dwconv_params p;
        memset(&p, 0, sizeof p);
        p.batches = rnd_in(1, 2), p.in_h = rnd_in(1, 10), p.in_w = rnd_in(1, 10), p.in_c = rnd_in(1, 40);
        if (t % 2 == 0) p.in_c = 8 * rnd_in(1, 5); /* the 8-channel vector path */
        if (t % 6 == 0) p.in_c = 16 * rnd_in(1, 3); /* the 16-channel (AVX-512) path */
        p.depth_mult = t % 4 == 3 ? rnd_in(2, 8) : 1, p.filter_h = rnd_in(1, 5), p.filter_w = rnd_in(1, 5), p.stride_h = rnd_in(1, 2);
        p.stride_w = rnd_in(1, 2), p.dil_h = rnd_in(1, 2), p.dil_w = rnd_in(1, 2), p.pad_h = rnd_in(0, 2);
        p.pad_w = rnd_in(0, 2);
        if (t % 10 == 1 || t % 10 == 3 || t % 10 == 5) { /* 3x3 undilated: the unrolled (and paired) vector paths */
            p.filter_h = p.filter_w = 3, p.dil_h = p.dil_w = 1, p.pad_h = p.pad_w = rnd_in(0, 1);
            p.in_h = rnd_in(3, 12), p.in_w = rnd_in(3, 12);
            p.in_c = t % 10 == 1 ? 8 : t % 10 == 3 ? 1 : rnd_in(1, 40);
            p.depth_mult = t % 20 == 3 ? 8 : t % 10 == 3 ? rnd_in(2, 20) : 1; /* 8: the paired single-channel path */
        }
        if (t % 10 == 7) { /* several 64-channel groups; every other one 3x3 (the int8 interior fast path) */
            p.in_c = rnd_in(60, 150), p.depth_mult = 1;
            if (t % 20 == 7) p.filter_h = p.filter_w = 3, p.dil_h = p.dil_w = 1, p.in_h = rnd_in(3, 10), p.in_w = rnd_in(3, 10);
        }
        if (t % 10 == 9) { /* 3x3 on wider images: the int8 runs of inside pixels (grouped for 16/32 channels or tails) */
            static const int32_t chans[6] = {16, 32, 64, 96, 144, 80}; /* 96, 144, 80: a 32- or 16-channel tail */
            p.filter_h = p.filter_w = 3, p.depth_mult = 1, p.in_c = chans[t / 10 % 6];
            p.stride_h = p.stride_w = rnd_in(1, 2), p.dil_h = p.dil_w = t / 10 % 3 == 2 ? 2 : 1;
            p.pad_h = p.pad_w = rnd_in(0, 2), p.in_h = rnd_in(5, 12), p.in_w = rnd_in(5, 21);
        }
        if (t >= 160) { /* 8, 16 or 32 output channels, filters up to 4 wide: the int8 narrow kernel */
            static const int32_t ic[8] = {1, 1, 8, 16, 32, 2, 4, 1}, dm[8] = {8, 16, 1, 1, 1, 4, 4, 32};
            p.in_c = ic[t % 8], p.depth_mult = dm[t % 8];
            p.filter_h = rnd_in(1, 5), p.filter_w = t % 3 ? 3 : rnd_in(1, 4), p.stride_h = rnd_in(1, 3);
            p.stride_w = rnd_in(1, 3), p.dil_h = rnd_in(1, 2), p.dil_w = t % 5 ? 1 : 2, p.pad_h = rnd_in(0, 2);
            p.pad_w = rnd_in(0, 2), p.in_h = rnd_in(2, 12), p.in_w = rnd_in(2, 40);
        }
        p.out_h = (p.in_h + 2 * p.pad_h - p.dil_h * (p.filter_h - 1) - 1) / p.stride_h + 1;
        p.out_w = (p.in_w + 2 * p.pad_w - p.dil_w * (p.filter_w - 1) - 1) / p.stride_w + 1;
        if (p.out_h <= 0 || p.out_w <= 0) continue;
        int32_t C = p.in_c * p.depth_mult;
        int64_t in_n = (int64_t)p.batches * p.in_h * p.in_w * p.in_c;
        int64_t out_n = (int64_t)p.batches * p.out_h * p.out_w * C;
        int64_t w_n = (int64_t)p.filter_h * p.filter_w * C;
        float *in = malloc(sizeof(float) * (size_t)in_n), *w = malloc(sizeof(float) * (size_t)w_n);
        float *bias = malloc(sizeof(float) * (size_t)C), *got = malloc(sizeof(float) * (size_t)out_n);
        float *want = malloc(sizeof(float) * (size_t)out_n);
        int8_t *in8 = malloc((size_t)in_n), *w8 = malloc((size_t)w_n), *g8 = malloc((size_t)out_n);
        int8_t *r8 = malloc((size_t)out_n);
        int32_t *b32 = malloc(sizeof(int32_t) * (size_t)C), *mult = malloc(sizeof(int32_t) * (size_t)C);
        int32_t *shift = malloc(sizeof(int32_t) * (size_t)C);
        for (int64_t i = 0; i < in_n; i++) in[i] = rnd_f(), in8[i] = (int8_t)rnd_in(-128, 127);
        for (int64_t i = 0; i < w_n; i++) w[i] = rnd_f(), w8[i] = (int8_t)rnd_in(-127, 127);
        for (int i = 0; i < C; i++) bias[i] = rnd_f(), b32[i] = rnd_in(-20000, 20000);
        p.act_min = -2.0f, p.act_max = 3.0f;
        rt_depthwise_conv_2d_f32(&p, in, w, bias, want);
        rt_opt_dwconv_f32(&p, in, w, bias, got, t % 2 ? &fake_par : NULL);
        double rel = max_rel_f32(got, want, out_n);
        snprintf(msg, sizeof msg, "%dx%dx%d*%d f %dx%d s %d,%d d %d,%d: max rel err %.2e", p.in_h, p.in_w, p.in_c,
                 p.depth_mult,
                 p.filter_h, p.filter_w, p.stride_h, p.stride_w, p.dil_h, p.dil_w, rel);
        check(rel <= 1e-5, "dwconv f32 vs DEPTHWISE_CONV_2D", msg);
        rnd_requant(mult, shift, C, t % 3 ? -12 : -31, t % 3 ? -4 : 0);
        p.in_offset = -rnd_in(-128, 127), p.out_offset = rnd_in(-128, 127), p.mult = mult, p.shift = shift;
        if (t % 7 == 2) p.in_offset = t % 2 ? 128 : -127; /* the zero point's extremes */
        p.act_qmin = -128, p.act_qmax = 127;
        if (t % 4 == 1) p.act_qmin = rnd_in(-128, -60), p.act_qmax = rnd_in(40, 126); /* a clamp inside int8 */
        if (t % 4 == 3) /* a fused ReLU / ReLU6: bounds from the zero point (no negative-product correction) */
            p.act_qmin = p.out_offset, p.act_qmax = p.out_offset + 40 < 127 ? p.out_offset + 40 : 127;
        rt_depthwise_conv_2d_i8(&p, in8, w8, t % 3 ? b32 : NULL, r8);
        rt_opt_dwconv_s8(&p, in8, w8, t % 3 ? b32 : NULL, g8, t % 2 ? &fake_par : NULL);
        int64_t diff = count_diff_i8(g8, r8, out_n);
        snprintf(msg, sizeof msg, "%dx%dx%d*%d f %dx%d s %d,%d d %d,%d p %d,%d: %lld of %lld differ", p.in_h, p.in_w,
                 p.in_c, p.depth_mult, p.filter_h, p.filter_w, p.stride_h, p.stride_w, p.dil_h, p.dil_w, p.pad_h,
                 p.pad_w, (long long)diff, (long long)out_n);
        check(diff == 0, "dwconv int8 vs DEPTHWISE_CONV_2D", msg);
        free(in), free(w), free(bias), free(got), free(want), free(in8), free(w8), free(g8), free(r8), free(b32);
        free(mult), free(shift);
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

/* Random broadcast of two shapes onto an output of rank <= 4. */
static void rnd_bcast(rt_bcast *bc) {
    int32_t s1 = 1, s2 = 1;
    memset(bc, 0, sizeof *bc);
    bc->rank = rnd_in(0, 4);
    for (int d = bc->rank - 1; d >= 0; d--) {
        bc->dims[d] = rnd_in(1, 7);
        int b1 = rnd_in(0, 3) == 0, b2 = rnd_in(0, 3) == 0;
        bc->stride1[d] = b1 ? 0 : s1;
        bc->stride2[d] = b2 ? 0 : s2;
        if (!b1) s1 *= bc->dims[d];
        if (!b2) s2 *= bc->dims[d];
    }
}

typedef void (*bin_f32)(const rt_binary_params *, const float *, const float *, float *);
typedef void (*bin_i8)(const rt_binary_params *, const int8_t *, const int8_t *, int8_t *);

static void test_binary(void) {
    static const struct {
        const char *name;
        bin_f32 ref_f, opt_f;
        bin_i8 ref_q, opt_q;
    } ops[] = {
        {"add", rt_add_f32, rt_opt_add_f32, rt_add_i8, rt_opt_add_i8},
        {"sub", rt_sub_f32, rt_opt_sub_f32, rt_sub_i8, rt_opt_sub_i8},
        {"mul", rt_mul_f32, rt_opt_mul_f32, rt_mul_i8, rt_opt_mul_i8},
        {"squared_difference", rt_squared_difference_f32, rt_opt_squared_difference_f32, rt_squared_difference_i8,
         rt_opt_squared_difference_i8},
    };
    char what[64], msg[160];
    for (size_t o = 0; o < sizeof ops / sizeof ops[0]; o++)
        for (int t = 0; t < 25; t++) {
            rt_binary_params p;
            memset(&p, 0, sizeof p);
            rnd_bcast(&p.bc);
            if (t >= 18) { /* long contiguous runs (the int8 ADD/SUB table path), one operand broadcast at times */
                p.bc.rank = 1, p.bc.dims[0] = rnd_in(256, 2500), p.bc.stride1[0] = 1;
                p.bc.stride2[0] = t % 3 == 0 ? 0 : 1;
            }
            int64_t n = rt_bcast_numel(&p.bc);
            float a[2500], b[2500], got[2500], want[2500];
            int8_t a8[2500], b8[2500], g8[2500], w8[2500];
            for (int i = 0; i < 2500; i++) a[i] = rnd_f(), b[i] = rnd_f(), a8[i] = (int8_t)rnd_in(-128, 127);
            for (int i = 0; i < 2500; i++) b8[i] = (int8_t)rnd_in(-128, 127);
            p.act_min = -1.0f, p.act_max = 1.5f;
            ops[o].ref_f(&p, a, b, want);
            ops[o].opt_f(&p, a, b, got);
            snprintf(what, sizeof what, "%s f32", ops[o].name);
            snprintf(msg, sizeof msg, "rank %d, %lld elements", p.bc.rank, (long long)n);
            check(max_rel_f32(got, want, n) <= 1e-6, what, msg);
            /* clamps at the int8 limits and inside them */
            p.act_qmin = t % 2 ? -128 : rnd_in(-128, -60), p.act_qmax = t % 3 ? 127 : rnd_in(60, 127);
            p.in1_offset = -rnd_in(-128, 127), p.in2_offset = -rnd_in(-128, 127);
            p.out_offset = rnd_in(-128, 127), p.left_shift = 20;
            /* shift 0 with 2^30 is the input with the larger scale (real multiplier 1/2) */
            p.in1_mult = (int32_t)((1u << 30) + (rnd() & 0x3FFFFFFFu)), p.in1_shift = rnd_in(-8, -1);
            p.in2_mult = t % 5 == 1 ? (int32_t)1 << 30 : (int32_t)((1u << 30) + (rnd() & 0x3FFFFFFFu));
            p.in2_shift = t % 5 == 1 ? 0 : rnd_in(-8, -1);
            p.out_mult = (int32_t)((1u << 30) + (rnd() & 0x3FFFFFFFu));
            p.out_shift = o == 2 ? rnd_in(-10, -6) : t % 4 == 3 ? rnd_in(-31, -24) : rnd_in(-22, -16);
            if (o == 3) p.left_shift = 7, p.out_shift = rnd_in(-14, -10);
            ops[o].ref_q(&p, a8, b8, w8);
            ops[o].opt_q(&p, a8, b8, g8);
            snprintf(what, sizeof what, "%s int8", ops[o].name);
            snprintf(msg, sizeof msg, "rank %d, %lld of %lld differ", p.bc.rank, (long long)count_diff_i8(g8, w8, n),
                     (long long)n);
            check(count_diff_i8(g8, w8, n) == 0, what, msg);
        }
}

/* int8 ADD/SUB over every value of one operand (the other broadcast), for many multipliers and
 * shifts of both inputs: the optimized rescalings (32-bit for an int8 operand, 64-bit otherwise)
 * against the reference on all 256 values, shifts 0 and 2^30 multipliers included. */
static void test_addsub_sweep(void) {
    char msg[200];
    int8_t a[256], b[1], got[256], want[256];
    for (int i = 0; i < 256; i++) a[i] = (int8_t)(i - 128);
    for (int t = 0; t < 600; t++) {
        rt_binary_params p;
        memset(&p, 0, sizeof p);
        p.bc.rank = 1, p.bc.dims[0] = 256, p.bc.stride1[0] = 1, p.bc.stride2[0] = 0;
        b[0] = (int8_t)rnd_in(-128, 127);
        p.act_qmin = -128, p.act_qmax = 127, p.left_shift = t % 7 == 0 ? rnd_in(8, 22) : 20;
        p.in1_offset = -rnd_in(-128, 127), p.in2_offset = -rnd_in(-128, 127), p.out_offset = rnd_in(-128, 127);
        p.in1_mult = t % 4 == 0 ? (int32_t)1 << 30 : (int32_t)((1u << 30) + (rnd() & 0x3FFFFFFFu));
        p.in1_shift = t % 4 == 0 ? 0 : -rnd_in(0, 12);
        p.in2_mult = (int32_t)((1u << 30) + (rnd() & 0x3FFFFFFFu)), p.in2_shift = -rnd_in(0, 12);
        p.out_mult = (int32_t)((1u << 30) + (rnd() & 0x3FFFFFFFu));
        p.out_shift = -rnd_in(p.left_shift - 4, p.left_shift + 2); /* outputs spread over the int8 range */
        if (t % 3 == 2) /* a fused ReLU / ReLU6: bounds from the zero point (no negative-product correction) */
            p.act_qmin = p.out_offset, p.act_qmax = p.out_offset + 50 < 127 ? p.out_offset + 50 : 127;
        const int sub = t % 2;
        (sub ? rt_sub_i8 : rt_add_i8)(&p, a, b, want);
        (sub ? rt_opt_sub_i8 : rt_opt_add_i8)(&p, a, b, got);
        snprintf(msg, sizeof msg, "%s: left %d, in1 %d/%d off %d, %lld of 256 differ", sub ? "sub" : "add",
                 p.left_shift, p.in1_mult, p.in1_shift, p.in1_offset, (long long)count_diff_i8(got, want, 256));
        check(count_diff_i8(got, want, 256) == 0, "int8 add/sub sweep", msg);
    }
}

/* FULLY_CONNECTED with bf16/f16 weights: the packed kernel against the reference (inputs rounded to the
 * weights' type, float sums), over row counts past the kernel's 32-row blocks and odd depths. */
static void test_fc_half(void) {
    char msg[200];
    for (int t = 0; t < 40; t++) {
        int32_t m = rnd_in(1, 100), n = rnd_in(1, 70), k = rnd_in(1, 90), np = (n + 15) / 16 * 16;
        int32_t type = t % 2 ? RT_F16 : RT_BF16, k2 = (k + 1) / 2;
        float *a = malloc(sizeof(float) * (size_t)(m * k)), *bias = malloc(sizeof(float) * (size_t)np);
        float *got = malloc(sizeof(float) * (size_t)(m * n)), *want = malloc(sizeof(float) * (size_t)(m * n));
        uint16_t *w = malloc(sizeof(uint16_t) * (size_t)(n * k)), *pw = malloc(sizeof(uint16_t) * (size_t)(np * 2 * k2));
        void *scratch = malloc((size_t)rt_opt_fc_half_scratch(type, m, n, k));
        for (int i = 0; i < m * k; i++) a[i] = rnd_f();
        for (int i = 0; i < n * k; i++) w[i] = type == RT_BF16 ? rt_f32_to_bf16(rnd_f()) : rt_f32_to_f16(rnd_f());
        for (int i = 0; i < np; i++) bias[i] = i < n ? rnd_f() : 0.0f;
        rt_fc_params fp;
        memset(&fp, 0, sizeof fp);
        fp.batches = m, fp.in_depth = k, fp.out_depth = n, fp.act_min = -1.5f, fp.act_max = 2.0f, fp.half_type = type;
        rt_fully_connected_half(&fp, a, w, bias, want);
        sched_pack_half(w, n, k, pw);
        rt_opt_gemm_params g;
        memset(&g, 0, sizeof g);
        g.m = m, g.n = n, g.k = k, g.lda = k, g.ldc = n, g.act_min = -1.5f, g.act_max = 2.0f;
        rt_opt_fc_half(&g, type, a, pw, bias, got, scratch);
        double rel = max_rel_f32(got, want, (int64_t)m * n);
        snprintf(msg, sizeof msg, "%s m %d n %d k %d: max rel err %.2e", type == RT_BF16 ? "bf16" : "f16", m, n, k, rel);
        check(rel <= 1e-5, "fc 16-bit weights vs FULLY_CONNECTED", msg);
        free(a), free(bias), free(got), free(want), free(w), free(pw), free(scratch);
    }
}

/* CONV_2D with bf16/f16 filters: rt_opt_conv_half (im2col blocks or direct 1x1 rows through the 16-bit FC
 * kernel) against rt_conv_2d_half, on one thread, split over tasks, and with a fused residual ADD. */
static void test_conv_half(void) {
    char msg[200];
    for (int t = 0; t < 60; t++) {
        rt_conv_params p;
        if (!rnd_conv(&p, t)) continue;
        p.half_type = t % 2 ? RT_F16 : RT_BF16;
        if (t % 8 == 2 && p.filter_h > 1) { /* bf16 patches inside a taller image, rows dilated: im2col_bf16's fast path */
            p.dil_h = 2, p.in_h = rnd_in(p.filter_h * 2 + 1, 12);
            p.out_h = (p.in_h + 2 * p.pad_h - p.dil_h * (p.filter_h - 1) - 1) / p.stride_h + 1;
        }
        if (t % 6 == 4 && p.filter_w > 1) { /* bf16 with dilated columns: every patch row tap by tap */
            p.dil_w = 2, p.in_w = rnd_in(p.filter_w * 2, 10);
            p.out_w = (p.in_w + 2 * p.pad_w - p.dil_w * (p.filter_w - 1) - 1) / p.stride_w + 1;
        }
        p.act_min = -1.5f, p.act_max = 2.0f;
        int32_t k = p.filter_h * p.filter_w * p.in_c, n = p.out_c, np = (n + 15) / 16 * 16, rows = t % 3 ? 48 : 16;
        int64_t in_n = (int64_t)p.batches * p.in_h * p.in_w * p.in_c, out_n = (int64_t)p.batches * p.out_h * p.out_w * n;
        if (out_n <= 0 || out_n > (1 << 20)) continue; /* never: bounds for gcc's object-size check */
        float *in = malloc(sizeof(float) * (size_t)in_n), *bias = calloc((size_t)np, sizeof(float));
        float *got = malloc(sizeof(float) * (size_t)out_n), *want = malloc(sizeof(float) * (size_t)out_n);
        float *other = malloc(sizeof(float) * (size_t)out_n);
        uint16_t *w = malloc(sizeof(uint16_t) * (size_t)(n * k)), *pw = malloc(sizeof(uint16_t) * (size_t)(np * (k + 1)));
        for (int64_t i = 0; i < in_n; i++) in[i] = rnd_f();
        for (int i = 0; i < n * k; i++) w[i] = p.half_type == RT_BF16 ? rt_f32_to_bf16(rnd_f()) : rt_f32_to_f16(rnd_f());
        for (int i = 0; i < n; i++) bias[i] = rnd_f();
        for (int64_t i = 0; i < out_n; i++) other[i] = rnd_f();
        rt_conv_2d_half(&p, in, w, bias, want);
        sched_pack_half(w, n, k, pw);
        rt_opt_conv_params c = opt_conv(&p, rows);
        /* bf16 im2col: room for the padded image (the last call below has none: edge rows tap by tap) */
        const int64_t base = rt_opt_conv_half_scratch(p.half_type, c.direct, p.batches * p.out_h * p.out_w, rows, n, k);
        const int64_t pad = p.half_type != RT_BF16 || c.direct ? 0
                            : rt_opt_conv_bf16_padded_bytes(p.in_h, p.in_w, p.in_c, p.out_h, p.out_w, p.filter_h,
                                                            p.filter_w, p.stride_h, p.stride_w, p.pad_h, p.pad_w,
                                                            p.dil_h, p.dil_w);
        c.gemm.slots = 3, c.gemm.slot_bytes = pad ? rt_opt_half_pad_at(base) + pad : base;
        void *scratch = malloc((size_t)(3 * c.gemm.slot_bytes));
        snprintf(msg, sizeof msg, "%s %dx%dx%d f %dx%d s %d,%d d %d,%d pad %d,%d oc %d%s", p.half_type == RT_BF16 ? "bf16" : "f16",
                 p.in_h, p.in_w, p.in_c, p.filter_h, p.filter_w, p.stride_h, p.stride_w, p.dil_h, p.dil_w, p.pad_h, p.pad_w, n,
                 c.direct ? " direct" : "");
        rt_opt_conv_half(&c, p.half_type, in, pw, bias, got, scratch, NULL, NULL, NULL);
        check(max_rel_f32(got, want, out_n) <= 1e-5, "conv 16-bit filter vs CONV_2D", msg);
        memset(got, 0, sizeof(float) * (size_t)out_n);
        rt_opt_conv_half(&c, p.half_type, in, pw, bias, got, scratch, NULL, NULL, &fake_par);
        check(max_rel_f32(got, want, out_n) <= 1e-5, "conv 16-bit filter split over tasks vs CONV_2D", msg);
        {
            rt_binary_params ap;
            rt_opt_post_add post;
            memset(&ap, 0, sizeof ap);
            ap.bc.rank = 1, ap.bc.dims[0] = (int32_t)out_n, ap.bc.stride1[0] = 1, ap.bc.stride2[0] = 1;
            ap.act_min = -2.0f, ap.act_max = 2.5f;
            post.add = &ap, post.conv_is_lhs = t % 2;
            if (post.conv_is_lhs) rt_add_f32(&ap, want, other, want);
            else rt_add_f32(&ap, other, want, want);
            rt_opt_conv_half(&c, p.half_type, in, pw, bias, got, scratch, &post, other, &fake_par);
            check(max_rel_f32(got, want, out_n) <= 1e-5, "conv 16-bit filter + fused ADD vs CONV_2D, ADD", msg);
        }
        if (pad) { /* the same without the padded image */
            c.gemm.slot_bytes = base;
            memset(got, 0, sizeof(float) * (size_t)out_n);
            rt_opt_conv_half(&c, p.half_type, in, pw, bias, got, scratch, NULL, NULL, NULL);
            rt_conv_2d_half(&p, in, w, bias, want);
            check(max_rel_f32(got, want, out_n) <= 1e-5, "conv 16-bit filter, no padded image, vs CONV_2D", msg);
        }
        free(in), free(bias), free(got), free(want), free(other), free(w), free(pw), free(scratch);
    }
}

/* Per-tensor QUANTIZE/DEQUANTIZE: identical to the reference on random values, exact halves,
 * values far out of range, infinities and NaN. */
static void test_cast(void) {
    enum { N = 4099 };
    static float x[N], back_ref[N], back_opt[N];
    static int8_t q_ref[N], q_opt[N];
    char detail[128];
    for (int trial = 0; trial < 20; trial++) {
        rt_quant_params p;
        memset(&p, 0, sizeof p);
        p.n = N - (trial % 7);
        p.in_type = RT_F32, p.out_type = RT_I8;
        p.scale = (float)rnd_in(1, 100000) / 1.0e6f;
        p.zero_point = rnd_in(-128, 127);
        for (int i = 0; i < N; i++) {
            switch (rnd() % 8) {
            case 0: x[i] = p.scale * ((float)rnd_in(-300, 300) + 0.5f); break; /* exact halves */
            case 1: x[i] = rnd_f() * 1e9f; break;
            case 2: x[i] = nextafterf(p.scale * ((float)rnd_in(-300, 300) + 0.5f), 0.0f); break; /* just inside */
            default: x[i] = rnd_f() * p.scale * 150.0f; break;
            }
        }
        x[0] = INFINITY, x[1] = -INFINITY, x[2] = NAN, x[3] = -0.0f;
        rt_quantize_f32(&p, x, q_ref);
        rt_opt_quantize_f32_s8(&p, x, q_opt);
        int64_t bad = count_diff_i8(q_ref, q_opt, p.n);
        snprintf(detail, sizeof detail, "scale %g zp %d: %lld of %lld differ", (double)p.scale, (int)p.zero_point,
                 (long long)bad, (long long)p.n);
        check(bad == 0, "quantize f32->s8", detail);
        p.in_type = RT_I8, p.out_type = RT_F32;
        rt_dequantize_int(&p, q_ref, back_ref);
        rt_opt_dequantize_s8_f32(&p, q_ref, back_opt);
        check(memcmp(back_ref, back_opt, sizeof(float) * (size_t)p.n) == 0, "dequantize s8->f32", detail);
    }
}

int main(void) {
    unit_seed(20261123ULL, rt_opt_isa());
    test_requant();
    test_gemm();
    test_conv();
    test_conv_runs();
    test_dwconv();
    test_pool();
    test_mean();
    test_conv_dw();
    test_copy();
    test_concat_i8();
    test_bmm();
    test_binary();
    test_addsub_sweep();
    test_cast();
    test_fc_half();
    test_conv_half();
    printf("%d passed, %d failed\n", passes, failures);
    return failures != 0;
}
