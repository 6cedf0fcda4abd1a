/* test_cnn_ops_kernels.c - the scheduled kernels of the ops between a CNN's convolutions against the
 * reference kernels (docs/scheduled-ops.md):
 * - RESIZE_BILINEAR / RESIZE_NEAREST_NEIGHBOR (runtime/rt_opt_resize.c) on random shapes, sizes and
 *   options (align_corners, half_pixel_centers, up- and downscaling, 1..300 channels): int8 bilinear
 *   and nearest identical, f32 bilinear within 1e-5 of the largest |input| (its blends round differently);
 * - LOGISTIC, TANH f32 (runtime/rt_opt_act_f32.c) over [-20, 20], the cut-offs, tiny values, +-0,
 * *   +-inf and NaN: within 1e-7 absolute and 1e-6 relative (of max(|reference|, 0.01)), NaN for NaN;
 * - TRANSPOSE_CONV f32/int8 (runtime/rt_opt_tconv.c) on 60 random shapes, strides and paddings: int8
 *   bit-exact, f32 within the rounding bound of its sums.
 * Built by `make unit` (generic, ASan+UBSan) and by tests/test_opt_kernels.py at -march=native.
 * The seed is printed; MPCC_SEED=<n> reproduces a run. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpcc_rt.h"
#include "rt_opt_internal.h"
#include "sched_pack.h"

#include "unit_check.h"

static void rnd_resize(rt_resize_params *p, int t) {
    memset(p, 0, sizeof *p);
    p->batches = rnd_in(1, 2), p->in_h = rnd_in(1, 9), p->in_w = rnd_in(1, 9), p->channels = rnd_in(1, 40);
    if (t % 7 == 0) p->channels = rnd_in(250, 300);
    p->out_h = rnd_in(1, 20), p->out_w = rnd_in(1, 20);
    if (t % 3 == 0) p->out_h = 2 * p->in_h, p->out_w = 2 * p->in_w;
    p->align_corners = t % 4 == 1;
    p->half_pixel_centers = !p->align_corners && t % 2 == 0;
}

static void test_bilinear(void) {
    char msg[200];
    for (int t = 0; t < 120; t++) {
        rt_resize_params p;
        rnd_resize(&p, t);
        int64_t in_n = (int64_t)p.batches * p.in_h * p.in_w * p.channels;
        int64_t out_n = (int64_t)p.batches * p.out_h * p.out_w * p.channels;
        float *in = malloc(sizeof(float) * (size_t)in_n), *got = malloc(sizeof(float) * (size_t)out_n);
        float *want = malloc(sizeof(float) * (size_t)out_n);
        int8_t *in8 = malloc((size_t)in_n), *g8 = malloc((size_t)out_n), *w8 = malloc((size_t)out_n);
        void *scratch = malloc((size_t)rt_opt_resize_scratch_bytes(&p, 1));
        float big = 0.0f, err = 0.0f;
        for (int64_t i = 0; i < in_n; i++) {
            in[i] = rnd_f(), in8[i] = (int8_t)rnd_in(-128, 127);
            big = fabsf(in[i]) > big ? fabsf(in[i]) : big;
        }
        if (t % 5 == 2) /* extremes: the h-row sums' and the blends' largest magnitudes */
            for (int64_t i = 0; i < in_n; i++) in8[i] = i % 3 ? -128 : 127;
        for (int64_t i = 0; i < out_n; i++) got[i] = NAN, g8[i] = (int8_t)(i * 37);
        rt_resize_bilinear_f32(&p, in, want);
        rt_opt_resize_bilinear_f32(&p, in, got, scratch);
        rt_resize_bilinear_i8(&p, in8, w8);
        rt_opt_resize_bilinear_i8(&p, in8, g8, scratch);
        for (int64_t i = 0; i < out_n; i++) {
            float e = fabsf(got[i] - want[i]);
            err = e > err || e != e ? e : err;
        }
        snprintf(msg, sizeof msg, "%dx%dx%dx%d -> %dx%d align %d half %d: f32 error %g of %g, %lld int8 differ",
                 p.batches, p.in_h, p.in_w, p.channels, p.out_h, p.out_w, p.align_corners, p.half_pixel_centers,
                 (double)err, (double)big, (long long)count_diff_i8(g8, w8, out_n));
        check(err <= 1e-5f * big, "resize bilinear f32 vs RESIZE_BILINEAR", msg);
        check(count_diff_i8(g8, w8, out_n) == 0, "resize bilinear int8 vs RESIZE_BILINEAR (bit-exact)", msg);
        free(in), free(got), free(want), free(in8), free(g8), free(w8), free(scratch);
    }
}

static void test_nearest(void) {
    char msg[200];
    for (int t = 0; t < 120; t++) {
        rt_resize_params p;
        rnd_resize(&p, t);
        p.elem_size = t % 3 == 2 ? 1 : 4;
        size_t in_n = (size_t)p.batches * p.in_h * p.in_w * p.channels * p.elem_size;
        size_t out_n = (size_t)p.batches * p.out_h * p.out_w * p.channels * p.elem_size;
        unsigned char *in = malloc(in_n), *got = malloc(out_n), *want = malloc(out_n);
        void *scratch = malloc((size_t)rt_opt_resize_scratch_bytes(&p, 0));
        for (size_t i = 0; i < in_n; i++) in[i] = (unsigned char)rnd_in(0, 255);
        memset(got, 0xA5, out_n);
        rt_resize_nearest_neighbor(&p, in, want);
        rt_opt_resize_nearest(&p, in, got, scratch);
        snprintf(msg, sizeof msg, "%dx%dx%dx%d (%d-byte) -> %dx%d align %d half %d", p.batches, p.in_h, p.in_w,
                 p.channels, p.elem_size, p.out_h, p.out_w, p.align_corners, p.half_pixel_centers);
        check(memcmp(got, want, out_n) == 0, "resize nearest vs RESIZE_NEAREST_NEIGHBOR", msg);
        free(in), free(got), free(want), free(scratch);
    }
}

static void test_act_f32(void) {
    enum { N = 20000 };
    static float in[N], got[N], want[N];
    char msg[200];
    const float special[] = {0.0f, -0.0f, 1e-30f, -1e-20f, 0.1249f, 0.125f, -0.1251f, -9.0f, -9.0001f,
                             16.619047f, 16.62f, 10.0f, -10.0f, 87.0f, -88.0f, INFINITY, -INFINITY, NAN};
    const int ns = (int)(sizeof special / sizeof special[0]);
    rt_act_params p;
    memset(&p, 0, sizeof p);
    p.n = N;
    for (int i = 0; i < N; i++)
        in[i] = i < ns ? special[i] : i % 3 ? rnd_f() * 10.0f : rnd_f() * rnd_f() * rnd_f() * 0.1f;
    for (int k = 0; k < 2; k++) {
        double worst = 0.0;
        int nan_ok = 1, worst_i = 0;
        if (k) rt_tanh_f32(&p, in, want), rt_opt_tanh_f32(&p, in, got);
        else rt_logistic_f32(&p, in, want), rt_opt_logistic_f32(&p, in, got);
        for (int i = 0; i < N; i++) {
            double w = want[i], e = fabs((double)got[i] - w);
            double bound = 1e-7 + 1e-6 * (fabs(w) > 0.01 ? fabs(w) : 0.01);
            if (w != w || got[i] != got[i]) {
                nan_ok &= (w != w) == (got[i] != got[i]);
                continue;
            }
            if (e / bound > worst) worst = e / bound, worst_i = i;
        }
        snprintf(msg, sizeof msg, "worst at x = %.9g: %.9g for %.9g (%.3f of the bound), NaNs %s", (double)in[worst_i],
                 (double)got[worst_i], (double)want[worst_i], worst, nan_ok ? "alike" : "differ");
        check(worst <= 1.0 && nan_ok, k ? "tanh f32 vs TANH" : "logistic f32 vs LOGISTIC", msg);
    }
}

/* TRANSPOSE_CONV (runtime/rt_opt_tconv.c) on random shapes, strides, paddings (SAME, VALID and odd ones)
 * and activations: int8 bit for bit, f32 within the rounding bound of its sums (max_err_over_bound). */
static void test_tconv(void) {
    char msg[240];
    for (int t = 0; t < 60; t++) {
        rt_tconv_params p;
        memset(&p, 0, sizeof p);
        p.batches = rnd_in(1, 2), p.in_h = rnd_in(1, 7), p.in_w = rnd_in(1, 7), p.in_c = rnd_in(1, 21);
        p.out_c = rnd_in(1, 20), p.filter_h = rnd_in(1, 4), p.filter_w = rnd_in(1, 4);
        p.stride_h = rnd_in(1, 3), p.stride_w = rnd_in(1, 3);
        if (t % 4 == 0) p.filter_h = p.filter_w = p.stride_h = p.stride_w = 2; /* segmentation up-sampling */
        if (t % 9 == 1) p.out_c = 1, p.in_c = rnd_in(30, 40);
        /* SAME (out = in * stride), VALID (out = (in - 1) * stride + filter) or any pad in [0, filter) */
        int mode = t % 3;
        p.out_h = mode == 0 ? p.in_h * p.stride_h : (p.in_h - 1) * p.stride_h + p.filter_h;
        p.out_w = mode == 0 ? p.in_w * p.stride_w : (p.in_w - 1) * p.stride_w + p.filter_w;
        p.pad_h = mode == 2 ? rnd_in(0, p.filter_h - 1) : 0;
        p.pad_w = mode == 2 ? rnd_in(0, p.filter_w - 1) : 0;
        if (mode == 0) {
            int32_t th = (p.in_h - 1) * p.stride_h + p.filter_h - p.out_h, tw = (p.in_w - 1) * p.stride_w + p.filter_w - p.out_w;
            p.pad_h = th > 0 ? th / 2 : 0, p.pad_w = tw > 0 ? tw / 2 : 0;
        }
        if (mode == 2) p.out_h -= 2 * p.pad_h, p.out_w -= 2 * p.pad_w;
        if (p.out_h < 1) p.out_h = 1;
        if (p.out_w < 1) p.out_w = 1;
        p.act_min = t % 2 ? 0.0f : -INFINITY, p.act_max = t % 6 == 1 ? 6.0f : INFINITY;
        int32_t taps = p.filter_h * p.filter_w, np = (int32_t)rt_opt_tconv_columns(&p);
        int64_t in_n = (int64_t)p.batches * p.in_h * p.in_w * p.in_c, w_n = (int64_t)p.out_c * taps * p.in_c;
        int64_t out_n = (int64_t)p.batches * p.out_h * p.out_w * p.out_c;
        int32_t rows = rnd_in(1, 40);
        float *in = malloc(sizeof(float) * (size_t)in_n), *w = malloc(sizeof(float) * (size_t)w_n);
        float *ain = malloc(sizeof(float) * (size_t)in_n), *aw = malloc(sizeof(float) * (size_t)w_n);
        float *bias = malloc(sizeof(float) * (size_t)p.out_c), *pw = malloc(sizeof(float) * (size_t)np * (size_t)p.in_c);
        float *zeros = calloc((size_t)np, sizeof(float)), *want = malloc(sizeof(float) * (size_t)out_n);
        float *got = malloc(sizeof(float) * (size_t)out_n), *mag = malloc(sizeof(float) * (size_t)out_n);
        int8_t *in8 = malloc((size_t)in_n), *w8 = malloc((size_t)w_n), *pw8 = malloc((size_t)w_n);
        int8_t *g8 = malloc((size_t)out_n), *o8 = malloc((size_t)out_n);
        int32_t *b32 = malloc(sizeof(int32_t) * (size_t)p.out_c), *mult = malloc(sizeof(int32_t) * (size_t)p.out_c);
        int32_t *shift = malloc(sizeof(int32_t) * (size_t)p.out_c);
        void *scratch = malloc((size_t)rt_opt_tconv_scratch_bytes(&p, rows, 0) + 1);
        void *ref_scratch = malloc(sizeof(int32_t) * (size_t)out_n);
        #if defined(__AVX2__)
        void *scratch8 = malloc((size_t)rt_opt_tconv_scratch_bytes(&p, 0, 2)); /* x86: the widened filter too */
#else
        void *scratch8 = malloc((size_t)rt_opt_tconv_scratch_bytes(&p, 0, 1));
#endif
        for (int64_t i = 0; i < in_n; i++) in[i] = rnd_f(), ain[i] = fabsf(in[i]), in8[i] = (int8_t)rnd_in(-128, 127);
        for (int64_t i = 0; i < w_n; i++) w[i] = rnd_f(), aw[i] = fabsf(w[i]), w8[i] = (int8_t)rnd_in(-127, 127);
        if (t % 5 == 3) /* extremes: the largest products and sums */
            for (int64_t i = 0; i < in_n; i++) in8[i] = i % 2 ? 127 : -128;
        for (int32_t c = 0; c < p.out_c; c++) bias[c] = rnd_f(), b32[c] = rnd_in(-20000, 20000);
        rnd_requant(mult, shift, p.out_c, -12, t % 7 == 0 ? 1 : 0);
        for (int64_t i = 0; i < out_n; i++) got[i] = NAN, g8[i] = (int8_t)(i * 37);
        sched_pack_tconv_f32(w, p.out_c, taps, p.in_c, pw);
        sched_pack_tconv_s8(w8, p.out_c, taps, p.in_c, pw8);
        rt_transpose_conv_f32(&p, w, in, t % 3 ? bias : NULL, want);
        rt_opt_transpose_conv_f32(&p, rows, pw, zeros, t % 3 ? bias : NULL, in, got, scratch);
        {
            rt_tconv_params a = p;
            a.act_min = -INFINITY, a.act_max = INFINITY;
            rt_transpose_conv_f32(&a, aw, ain, NULL, mag);
            for (int64_t i = 0; i < out_n; i++) mag[i] += t % 3 ? fabsf(bias[i % p.out_c]) : 0.0f;
        }
        p.in_offset = rnd_in(-127, 128), p.out_offset = rnd_in(-128, 127);
        p.mult = mult, p.shift = shift;
        p.act_qmin = t % 2 ? p.out_offset : -128, p.act_qmax = t % 6 == 1 ? rnd_in(p.act_qmin, 127) : 127;
        rt_transpose_conv_i8(&p, w8, in8, t % 3 ? b32 : NULL, o8, ref_scratch);
        rt_opt_transpose_conv_i8(&p, pw8, t % 3 ? b32 : NULL, in8, g8, scratch8);
        double q = max_err_over_bound(got, want, mag, out_n, p.in_c * taps);
        snprintf(msg, sizeof msg,
                 "%dx%dx%dx%d -> %dx%dx%d filter %dx%d stride %dx%d pad %dx%d rows %d: f32 error %.3g of its bound, "
                 "%lld of %lld int8 differ",
                 p.batches, p.in_h, p.in_w, p.in_c, p.out_h, p.out_w, p.out_c, p.filter_h, p.filter_w, p.stride_h,
                 p.stride_w, p.pad_h, p.pad_w, rows, q, (long long)count_diff_i8(g8, o8, out_n), (long long)out_n);
        check(q <= 1.0, "transpose conv f32 vs TRANSPOSE_CONV", msg);
        check(count_diff_i8(g8, o8, out_n) == 0, "transpose conv int8 vs TRANSPOSE_CONV (bit-exact)", msg);
        free(in), free(w), free(ain), free(aw), free(bias), free(pw), free(zeros), free(want), free(got), free(mag);
        free(in8), free(w8), free(pw8), free(g8), free(o8), free(b32), free(mult), free(shift);
        free(scratch), free(ref_scratch), free(scratch8);
    }
}

int main(void) {
    unit_seed(20261129ULL, rt_opt_isa());
    test_bilinear();
    test_nearest();
    test_act_f32();
    test_tconv();
    printf("%d passed, %d failed\n", passes, failures);
    return failures != 0;
}
