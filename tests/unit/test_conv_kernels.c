/* test_conv_kernels.c - the optimized convolutions (runtime/rt_opt_gemm*.c, rt_opt_conv_s8.c,
 * rt_opt_dwconv*.c, rt_opt_im2col_half.c) against the reference CONV_2D / DEPTHWISE_CONV_2D on random
 * shapes and data, with the weight packing of pass schedule: f32 im2col and direct, int8 im2col, patch
 * runs and padded images, depthwise, 1x1 + depthwise fused, and 16-bit weights. Integer results must be
 * identical, f32 within 1e-5 of the largest |reference|. Built by `make unit` (generic, ASan+UBSan) and
 * by tests/test_opt_kernels.py at -O3 -march=native. The seed is printed; MPCC_SEED=<n> reproduces a
 * run. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpcc_rt.h"
#include "sched_pack.h"
#include "rt_opt_internal.h"

#include "unit_check.h"
#include "unit_conv.h"

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
        /* each output's |bias| + sum |x w|: the same convolution of the magnitudes (max_err_over_bound) */
        float *mag = malloc(sizeof(float) * (size_t)out_n), *ain = malloc(sizeof(float) * (size_t)in_n);
        float *aw = malloc(sizeof(float) * (size_t)(n * k)), *ab = malloc(sizeof(float) * (size_t)n);
        for (int64_t i = 0; i < in_n; i++) ain[i] = fabsf(in[i]);
        for (int i = 0; i < n * k; i++) aw[i] = fabsf(w[i]);
        for (int i = 0; i < n; i++) ab[i] = fabsf(bias[i]);
        rt_conv_2d_f32(&p, ain, aw, ab, mag);
        free(ain), free(aw), free(ab);
        rt_opt_conv_params c = opt_conv(&p, rows);
        sched_pack_f32(w, n, k, pw);
        rt_opt_conv_f32(&c, in, pw, bias, got, scratch, NULL, NULL, NULL);
        double rel = max_err_over_bound(got, want, mag, out_n, k);
        snprintf(msg, sizeof msg, "%dx%dx%d f %dx%d s %d,%d d %d pad %d,%d oc %d%s: max error %.2f of the rounding bound",
                 p.in_h, p.in_w, p.in_c, p.filter_h, p.filter_w, p.stride_h, p.stride_w, p.dil_h, p.pad_h, p.pad_w, n,
                 c.direct ? " direct" : "", rel);
        check(rel <= 1.0, "conv f32 vs CONV_2D", msg);
        c.gemm.slots = 3, c.gemm.slot_bytes = slot;
        memset(got, 0, sizeof(float) * (size_t)out_n);
        rt_opt_conv_f32(&c, in, pw, bias, got, scratch, NULL, NULL, &fake_par);
        rel = max_err_over_bound(got, want, mag, out_n, k);
        check(rel <= 1.0, "conv f32 split over tasks vs CONV_2D", msg);
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
        { /* the float requantization (convolutions --precision int8 quantized): factors around 2^-e */
            float *fs = malloc(sizeof(float) * (size_t)np);
            int8_t *f8 = malloc((size_t)out_n);
            for (int i = 0; i < np; i++) fs[i] = i < n ? ldexpf(1.0f + (float)rnd_in(0, 3) / 4.0f, -rnd_in(4, 11)) : fs[n - 1];
            p.fscale = fs;
            rt_conv_2d_i8(&p, in8, w8, b32, f8);
            c.gemm.rounding = RT_OPT_ROUND_FLOAT, c.gemm.fscale = fs;
            for (int64_t i = 0; i < out_n; i++) g8[i] = (int8_t)~r8[i]; /* every byte must be written */
            rt_opt_conv_s8(&c, in8, pw16, pb32, g8, scratch, NULL, NULL, &fake_par);
            diff = count_diff_i8(g8, f8, out_n);
            snprintf(msg, sizeof msg, "%dx%dx%d f %dx%d s %d,%d pad %d,%d oc %d: %lld of %lld differ", p.in_h, p.in_w,
                     p.in_c, p.filter_h, p.filter_w, p.stride_h, p.stride_w, p.pad_h, p.pad_w, n, (long long)diff,
                     (long long)out_n);
            check(diff == 0, "conv int8 with float requantization vs CONV_2D", msg);
            p.fscale = NULL, c.gemm.rounding = RT_OPT_ROUND_DOUBLE, c.gemm.fscale = NULL;
            free(fs), free(f8);
        }
        c.gemm.slots = 0, c.gemm.slot_bytes = 0;
        /* The fused residual ADD (pass fuse_add) against CONV_2D then ADD. */
        {
            rt_binary_params ap;
            rt_opt_post_add post;
            int8_t *other8 = malloc((size_t)out_n), *sum8 = malloc((size_t)out_n);
            float *other = malloc(sizeof(float) * (size_t)out_n), *sum = malloc(sizeof(float) * (size_t)out_n);
            unit_post_add(&ap, &post, out_n, t % 2);
            for (int64_t i = 0; i < out_n; i++) other[i] = rnd_f(), other8[i] = (int8_t)rnd_in(-128, 127);
            if (post.conv_is_lhs) rt_add_f32(&ap, want, other, sum), rt_add_i8(&ap, r8, other8, sum8);
            else rt_add_f32(&ap, other, want, sum), rt_add_i8(&ap, other8, r8, sum8);
            rt_opt_conv_f32(&c, in, pw, bias, got, scratch, &post, other, NULL);
            for (int64_t i = 0; i < out_n; i++) mag[i] += fabsf(other[i]); /* and the ADD's one rounding */
            rel = max_err_over_bound(got, sum, mag, out_n, k);
            snprintf(msg, sizeof msg, "max error %.2f of the rounding bound", rel);
            check(rel <= 1.0, "conv f32 + fused ADD vs CONV_2D, ADD", msg);
            rt_opt_conv_s8(&c, in8, pw16, pb32, g8, scratch, &post, other8, NULL);
            diff = count_diff_i8(g8, sum8, out_n);
            snprintf(msg, sizeof msg, "%lld of %lld differ", (long long)diff, (long long)out_n);
            check(diff == 0, "conv int8 + fused ADD vs CONV_2D, ADD", msg);
            free(other8), free(sum8), free(other), free(sum);
        }
        free(in8), free(w8), free(g8), free(r8), free(in), free(w), free(bias), free(pw), free(got), free(want);
        free(b32), free(pb32), free(mult), free(shift), free(pw16), free(scratch), free(mag);
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
            unit_post_add(&ap, &post, out_n, t % 2);
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
        if (type != RT_F32 && !rt_opt_half_rounds_inputs(type)) /* f32 arithmetic: inputs of the 16-bit type */
            for (int64_t i = 0; i < in_n; i++) in[i] = rt_round_half(in[i], type);
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

static void test_dwconv(void) {
    char msg[200];
    int padded_cases = 0;
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
            /* undilated ones padded: each of those 16 also runs the copy inside the padding (checked below) */
            p.pad_h = p.pad_w = p.dil_w == 1 ? rnd_in(1, 2) : rnd_in(0, 2), p.in_h = rnd_in(5, 12), p.in_w = rnd_in(5, 21);
        }
        if (t % 10 == 9 && t / 10 % 4 == 3) { /* 5x5 and 3x5, 16+ channels: the AVX2 interior kernel's column reuse */
            static const int32_t chans[4] = {24, 28, 36, 17};
            p.filter_h = t / 40 % 2 ? 3 : 5, p.filter_w = 5, p.in_c = chans[t / 40 % 4], p.dil_h = p.dil_w = 1;
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
        rt_opt_dwconv_s8(&p, in8, w8, t % 3 ? b32 : NULL, g8, NULL, t % 2 ? &fake_par : NULL);
        int64_t diff = count_diff_i8(g8, r8, out_n);
        int64_t pad_bytes = rt_opt_dwconv_s8_scratch_bytes(&p);
        if (pad_bytes > 0) { /* and with the image copied inside its padding (the scratch filled with junk first) */
            int8_t *pad = malloc((size_t)pad_bytes);
            memset(pad, 0x5A, (size_t)pad_bytes);
            for (int64_t i = 0; i < out_n; i++) g8[i] = (int8_t)~r8[i]; /* every byte must be written */
            rt_opt_dwconv_s8(&p, in8, w8, t % 3 ? b32 : NULL, g8, pad, t % 2 ? &fake_par : NULL);
            diff += count_diff_i8(g8, r8, out_n);
            free(pad);
            padded_cases++;
        }
        snprintf(msg, sizeof msg, "%dx%dx%d*%d f %dx%d s %d,%d d %d,%d p %d,%d: %lld of %lld differ", p.in_h, p.in_w,
                 p.in_c, p.depth_mult, p.filter_h, p.filter_w, p.stride_h, p.stride_w, p.dil_h, p.dil_w, p.pad_h,
                 p.pad_w, (long long)diff, (long long)out_n);
        check(diff == 0, "dwconv int8 vs DEPTHWISE_CONV_2D", msg);
        free(in), free(w), free(bias), free(got), free(want), free(in8), free(w8), free(g8), free(r8), free(b32);
        free(mult), free(shift);
    }
    snprintf(msg, sizeof msg, "%d of 240 cases", padded_cases);
    check(padded_cases >= 16, "dwconv int8 cases run again on a copy inside the padding", msg);
}

/* CONV_2D with bf16/f16 filters and many output rows (ResNet-like: 3x3 over a 16 x 16 image, or 1x1): where the
 * build has no 16-bit arithmetic its tasks widen all the weights once and run the f32 GEMM's tiles on every block
 * (RT_OPT_GEMM16_WIDEN), or per block when they are too large for its stack buffer (in_c 80: K 720 x 64); against
 * rt_conv_2d_half, on one thread and split over tasks (1e-4 of the largest output: K up to 720 summed in other
 * orders, the in-register fp16 pairs' even and odd sums with -DRT_OPT_SMALL_STACK reach 1.2e-5). */
static void test_conv_half_many_rows(void) {
    char msg[200];
    static const int32_t C[][3] = {{3, 16, 40}, {16, 16, 80}, {16, 32, 40}, {32, 64, 80}, {80, 64, 40}, {16, 24, 80},
                                   {7, 70, 40}, {64, 64, 80}};
    for (int t = 0; t < 16; t++) {
        rt_conv_params p;
        memset(&p, 0, sizeof p);
        p.batches = 1, p.in_h = rnd_in(8, 16), p.in_w = rnd_in(8, 16), p.in_c = C[t % 8][0], p.out_c = C[t % 8][1];
        p.filter_h = p.filter_w = t % 8 == 7 ? 1 : 3, p.pad_h = p.pad_w = t % 8 == 7 ? 0 : 1;
        p.filter_c = p.in_c, p.stride_h = p.stride_w = 1, p.dil_h = p.dil_w = 1;
        p.out_h = p.in_h, p.out_w = p.in_w, p.act_min = -1.5f, p.act_max = 2.0f;
        p.half_type = t % 2 ? RT_F16 : RT_BF16;
        const int32_t k = p.filter_h * p.filter_w * p.in_c, n = p.out_c, np = (n + 15) / 16 * 16;
        const int64_t in_n = (int64_t)p.in_h * p.in_w * p.in_c, out_n = (int64_t)p.out_h * p.out_w * n;
        float *in = malloc(sizeof(float) * (size_t)in_n), *bias = calloc((size_t)np, sizeof(float));
        float *got = malloc(sizeof(float) * (size_t)out_n), *want = malloc(sizeof(float) * (size_t)out_n);
        uint16_t *w = malloc(sizeof(uint16_t) * (size_t)(n * k)), *pw = malloc(sizeof(uint16_t) * (size_t)(np * (k + 1)));
        for (int64_t i = 0; i < in_n; i++) in[i] = rnd_f();
        for (int i = 0; i < n * k; i++) w[i] = p.half_type == RT_BF16 ? rt_f32_to_bf16(rnd_f()) : rt_f32_to_f16(rnd_f());
        for (int i = 0; i < n; i++) bias[i] = rnd_f();
        if (!rt_opt_half_rounds_inputs(p.half_type))
            for (int64_t i = 0; i < in_n; i++) in[i] = rt_round_half(in[i], p.half_type);
        rt_conv_2d_half(&p, in, w, bias, want);
        sched_pack_half(w, n, k, pw);
        rt_opt_conv_params c = opt_conv(&p, C[t % 8][2]);
        c.gemm.slots = 3, c.gemm.slot_bytes = rt_opt_conv_half_scratch(p.half_type, c.direct, p.out_h * p.out_w, c.rows, n, k);
        void *scratch = malloc((size_t)(3 * c.gemm.slot_bytes));
        snprintf(msg, sizeof msg, "%s %dx%dx%d f %dx%d oc %d, rows %d", p.half_type == RT_BF16 ? "bf16" : "f16", p.in_h,
                 p.in_w, p.in_c, p.filter_h, p.filter_w, n, c.rows);
        for (int i = 0; i < out_n; i++) got[i] = NAN;
        rt_opt_conv_half(&c, p.half_type, in, pw, bias, got, scratch, NULL, NULL, NULL);
        check(max_rel_f32(got, want, out_n) <= 1e-4, "conv 16-bit filter, many rows, vs CONV_2D", msg);
        for (int i = 0; i < out_n; i++) got[i] = NAN;
        rt_opt_conv_half(&c, p.half_type, in, pw, bias, got, scratch, NULL, NULL, &fake_par);
        check(max_rel_f32(got, want, out_n) <= 1e-4, "conv 16-bit filter, many rows, split over tasks, vs CONV_2D", msg);
        free(in), free(bias), free(got), free(want), free(w), free(pw), free(scratch);
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
        /* a build whose kernel takes the inputs as they are (f32 arithmetic): inputs of the 16-bit type */
        if (!rt_opt_half_rounds_inputs(p.half_type))
            for (int64_t i = 0; i < in_n; i++) in[i] = rt_round_half(in[i], p.half_type);
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
            unit_post_add(&ap, &post, out_n, t % 2);
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

/* f32 depthwise, filters other than 3x3 on maps wide enough for the AVX-512 kernel's runs of 8 and 4
 * interior pixels (rt_opt_dwconv_f32_avx512.c: 5x5 stride 1 and 2, any other size or dilation), channel
 * counts with a tail group (24, 28: BlazeFace), rows clipped at the top and bottom. */
static void test_dwconv_wide(void) {
    static const int32_t chans[8] = {24, 28, 16, 1, 7, 33, 48, 96};
    char msg[200];
    for (int t = 0; t < 48; t++) {
        rt_dwconv_params p;
        memset(&p, 0, sizeof p);
        p.batches = rnd_in(1, 2), p.in_c = chans[t % 8], p.depth_mult = 1;
        p.filter_h = p.filter_w = 5, p.stride_h = p.stride_w = t / 8 % 2 + 1, p.dil_h = p.dil_w = 1;
        if (t / 16 == 1) p.filter_h = rnd_in(1, 7), p.filter_w = rnd_in(4, 7); /* other sizes: a load per tap */
        if (t / 16 == 2) p.dil_h = p.dil_w = 2, p.filter_w = rnd_in(2, 5);
        p.pad_h = rnd_in(0, 3), p.pad_w = rnd_in(0, 3), p.in_h = rnd_in(5, 14), p.in_w = rnd_in(8, 45);
        p.out_h = (p.in_h + 2 * p.pad_h - p.dil_h * (p.filter_h - 1) - 1) / p.stride_h + 1;
        p.out_w = (p.in_w + 2 * p.pad_w - p.dil_w * (p.filter_w - 1) - 1) / p.stride_w + 1;
        if (p.out_h <= 0 || p.out_w <= 0) continue;
        const int32_t C = p.in_c;
        const int64_t in_n = (int64_t)p.batches * p.in_h * p.in_w * C, out_n = (int64_t)p.batches * p.out_h * p.out_w * C;
        const int64_t w_n = (int64_t)p.filter_h * p.filter_w * C;
        float *in = malloc(sizeof(float) * (size_t)in_n), *w = malloc(sizeof(float) * (size_t)w_n);
        float *bias = malloc(sizeof(float) * (size_t)C), *got = malloc(sizeof(float) * (size_t)out_n);
        float *want = malloc(sizeof(float) * (size_t)out_n);
        for (int64_t i = 0; i < in_n; i++) in[i] = rnd_f();
        for (int64_t i = 0; i < w_n; i++) w[i] = rnd_f();
        for (int i = 0; i < C; i++) bias[i] = rnd_f();
        p.act_min = t % 3 ? -2.0f : -3.40282347e+38f, p.act_max = t % 3 ? 3.0f : 3.40282347e+38f;
        rt_depthwise_conv_2d_f32(&p, in, w, bias, want);
        for (int64_t i = 0; i < out_n; i++) got[i] = 1e30f; /* poisoned */
        rt_opt_dwconv_f32(&p, in, w, bias, got, t % 2 ? &fake_par : NULL);
        snprintf(msg, sizeof msg, "%dx%dx%dx%d f %dx%d s %d d %d p %d,%d: max rel err %.2e", p.batches, p.in_h, p.in_w,
                 C, p.filter_h, p.filter_w, p.stride_w, p.dil_w, p.pad_h, p.pad_w, max_rel_f32(got, want, out_n));
        check(max_rel_f32(got, want, out_n) <= 1e-5, "dwconv f32 wide maps vs DEPTHWISE_CONV_2D", msg);
        /* int8 (AVX512-VNNI builds: under 32 channels, filters other than 3x3 go to the AVX2 kernel, through
         * a copy inside the padding when given scratch) */
        int8_t *in8 = malloc((size_t)in_n), *w8 = malloc((size_t)w_n), *g8 = malloc((size_t)out_n), *r8 = malloc((size_t)out_n);
        int32_t *b32 = malloc(sizeof(int32_t) * (size_t)C), *mult = malloc(sizeof(int32_t) * (size_t)C);
        int32_t *shift = malloc(sizeof(int32_t) * (size_t)C);
        for (int64_t i = 0; i < in_n; i++) in8[i] = (int8_t)rnd_in(-128, 127);
        for (int64_t i = 0; i < w_n; i++) w8[i] = (int8_t)rnd_in(-127, 127);
        for (int i = 0; i < C; i++) b32[i] = rnd_in(-20000, 20000);
        rnd_requant(mult, shift, C, -12, -4);
        p.in_offset = -rnd_in(-127, 127), p.out_offset = rnd_in(-128, 127), p.mult = mult, p.shift = shift;
        p.act_qmin = -128, p.act_qmax = 127;
        rt_depthwise_conv_2d_i8(&p, in8, w8, b32, r8);
        const int64_t pad_bytes = rt_opt_dwconv_s8_scratch_bytes(&p);
        int8_t *pad = pad_bytes > 0 ? malloc((size_t)pad_bytes) : NULL;
        if (pad) memset(pad, 0x5A, (size_t)pad_bytes);
        for (int64_t i = 0; i < out_n; i++) g8[i] = (int8_t)~r8[i]; /* every byte must be written */
        rt_opt_dwconv_s8(&p, in8, w8, b32, g8, pad, t % 2 ? &fake_par : NULL);
        snprintf(msg, sizeof msg, "%dx%dx%dx%d f %dx%d s %d d %d p %d,%d%s: %lld of %lld differ", p.batches, p.in_h,
                 p.in_w, C, p.filter_h, p.filter_w, p.stride_w, p.dil_w, p.pad_h, p.pad_w, pad ? " (padded copy)" : "",
                 (long long)count_diff_i8(g8, r8, out_n), (long long)out_n);
        check(count_diff_i8(g8, r8, out_n) == 0, "dwconv int8 wide maps vs DEPTHWISE_CONV_2D", msg);
        free(pad), free(in8), free(w8), free(g8), free(r8), free(b32), free(mult), free(shift);
        free(in), free(w), free(bias), free(got), free(want);
    }
}

int main(void) {
    unit_seed(20261123ULL, rt_opt_isa());
    test_conv();
    test_conv_runs();
    test_dwconv();
    test_dwconv_wide();
    test_conv_dw();
    test_conv_half();
    test_conv_half_many_rows();
    printf("%d passed, %d failed\n", passes, failures);
    return failures != 0;
}
