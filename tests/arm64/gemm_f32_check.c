/* gemm_f32_check.c - the AArch64 f32 GEMM (runtime/arm64/rt_a64_gemm_f32.h's 5 x 16 and 2 x 16 tiles,
 * through rt_opt_gemm_f32) and the f32 convolution (rt_opt_conv_f32: patch rows read in place through
 * row tables, edge patches copied; dilation 2 through im2col) against a scalar oracle, value for value:
 * each sum bias + a.w in k order, one fused multiply-add a step (fmaf), then clamped. N random cases
 * from SEED: GEMMs of 1..23 rows, 1..70 columns, K 1..70 with row strides past K and N; convolutions of
 * 1..2 images of 1..9 x 1..9 pixels, 1..20 channels, filters 1x1..3x3 (now and then 5x5 or dilation 2),
 * strides 1 and 2, padding 0..2, 1..40 output channels, blocks of 1..30 rows; clamps none, ReLU or
 * random. Built for AArch64 with the runtime library and run under qemu-aarch64 by
 * tests/test_arm64.py: `gemm_f32_check SEED N`; prints "ok VALUES" or the first mismatch, exit 1.
 * (Padding up to 2 on small filters makes outputs larger than the images: the output buffers hold 13 x 13;
 * sized 9 x 9 they had overflowed into the oracle's values, which looked like wrong kernel results.) */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpcc_rt.h"
#include "rt_opt.h"
#include "check_main.h"
#include "check_float.h"


/* W [k][n] into K x 16 panels (zeros past n), bias padded to a multiple of 16 */
static void pack(int32_t k, int32_t n, const float *w, float *pb, const float *bias, float *bp) {
    int32_t j, kk, c, np = (n + 15) / 16 * 16;
    for (j = 0; j < np; j += 16)
        for (kk = 0; kk < k; kk++)
            for (c = 0; c < 16; c++) pb[(int64_t)j * k + kk * 16 + c] = j + c < n ? w[(int64_t)kk * n + j + c] : 0.0f;
    for (c = 0; c < np; c++) bp[c] = c < n ? bias[c] : 0.0f;
}


static int gemm_case(long id) {
    static float a[23 * 80], w[70 * 70], bias[80], pb[80 * 70], bp[80], got[23 * 80], want[23 * 80];
    rt_opt_gemm_params p;
    int32_t i, j, kk;
    memset(&p, 0, sizeof p);
    p.m = range(1, 23), p.n = range(1, 70), p.k = range(1, 70);
    p.lda = p.k + range(0, 9), p.ldc = p.n + range(0, 9);
    clamps(&p.act_min, &p.act_max);
    for (i = 0; i < p.m * p.lda; i++) a[i] = rnd();
    for (i = 0; i < p.k * p.n; i++) w[i] = rnd();
    for (i = 0; i < p.n; i++) bias[i] = rnd();
    pack(p.k, p.n, w, pb, bias, bp);
    for (i = 0; i < p.m * p.ldc; i++) got[i] = want[i] = 12345.0f;
    for (i = 0; i < p.m; i++)
        for (j = 0; j < p.n; j++) {
            float s = bias[j];
            for (kk = 0; kk < p.k; kk++) s = fmaf(a[i * p.lda + kk], w[kk * p.n + j], s);
            want[i * p.ldc + j] = clampf(s, p.act_min, p.act_max);
        }
    rt_opt_gemm_f32(&p, a, pb, bp, got);
    for (i = 0; i < p.m * p.ldc; i++, checked++)
        if (got[i] != want[i]) {
            printf("case %ld gemm m %d n %d k %d lda %d ldc %d clamp [%g, %g]: C[%d][%d] %.9g, want %.9g\n", id, p.m,
                   p.n, p.k, p.lda, p.ldc, p.act_min, p.act_max, i / p.ldc, i % p.ldc, got[i], want[i]);
            return 1;
        }
    return 0;
}

static int conv_case(long id) {
    static float in[2 * 9 * 9 * 20], f[40 * 25 * 20], w[25 * 20 * 40], bias[48], pb[48 * 25 * 20], bp[48];
    /* outputs up to 13 x 13: 9 pixels + 2 x 2 padding - 1 + 1 (a 1x1 filter with padding 2) */
    static float got[2 * 13 * 13 * 40], want[2 * 13 * 13 * 40];
    rt_opt_conv_params p;
    int32_t oc, kdim, i, o, n_out;
    void *scratch;
    oc = draw_conv(&p, 0);
    kdim = p.gemm.k;
    p.rows = range(1, 30);
    p.gemm.slots = 1;
    p.gemm.slot_bytes = rt_opt_conv_f32_slot_bytes(p.rows, kdim, p.filter_h, p.filter_w, p.in_c);
    scratch = malloc((size_t)p.gemm.slot_bytes);
    for (i = 0; i < p.batches * p.in_h * p.in_w * p.in_c; i++) in[i] = rnd();
    for (i = 0; i < oc * kdim; i++) f[i] = rnd();
    for (i = 0; i < oc; i++) bias[i] = rnd();
    for (i = 0; i < kdim; i++)
        for (o = 0; o < oc; o++) w[i * oc + o] = f[o * kdim + i];
    pack(kdim, oc, w, pb, bias, bp);
    n_out = p.batches * p.out_h * p.out_w * oc;
    conv_oracle(&p, oc, in, f, bias, want);
    for (i = 0; i < n_out; i++) got[i] = 12345.0f;
    rt_opt_conv_f32(&p, in, pb, bp, got, scratch, NULL, NULL, NULL);
    free(scratch);
    for (i = 0; i < n_out; i++, checked++)
        if (got[i] != want[i]) {
            printf("case %ld conv %dx%dx%dx%d filter %dx%d dil %d stride %d,%d pad %d,%d oc %d rows %d: out[%d] %.9g, "
                   "want %.9g\n", id, p.batches, p.in_h, p.in_w, p.in_c, p.filter_h, p.filter_w, p.dil_h, p.stride_h,
                   p.stride_w, p.pad_h, p.pad_w, oc, p.rows, i, got[i], want[i]);
            return 1;
        }
    return 0;
}

static int one_case(long k) { return k % 2 ? conv_case(k) : gemm_case(k); }
