/* gemm16_check.c - the AArch64 16-bit weight kernels (runtime/rt_opt_gemm16_a64.c: the one-row GEMV widening
 * in NEON registers, the panels widened once for the f32 tiles, the GEMV over a deep K's segments) through
 * rt_opt_fc_half and rt_opt_conv_half with f32 activations, against a scalar oracle, value for value: each sum
 * bias + a.w in k order, w the bf16 / fp16 weight widened to f32 exactly, one fused multiply-add a step
 * (fmaf), then clamped (16-bit storage, f32 arithmetic: the inputs are not rounded). N random cases from SEED,
 * both types: GEMMs of 1..23 rows (one row a third of the time), 1..70 columns, K 1..70 (now and then
 * 1000..1100: past the 1024 of a panel's stack copy, every row by the GEMV), row strides past K and N;
 * convolutions of 1..2 images of 1..9 x 1..9 pixels, 1..20 channels, filters 1x1..3x3 (now and then 5x5 or
 * dilation 2), strides 1 and 2, padding 0..2, 1..40 output channels, blocks of 1..70 rows, direct 1x1 ones;
 * the scratch the compiler plans for AArch64 (rt_opt_conv_f32_slot_bytes). Built for AArch64 with the runtime
 * library and run under qemu-aarch64 by tests/test_arm64.py: `gemm16_check SEED N`; prints "ok VALUES" or the
 * first mismatch, exit 1. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpcc_rt.h"
#include "rt_opt.h"
#include "check_main.h"
#include "check_float.h"

#define KMAX 1100


static uint16_t to16(float x, int32_t type) { return type == RT_BF16 ? rt_f32_to_bf16(x) : rt_f32_to_f16(x); }
static float from16(uint16_t h, int32_t type) { return type == RT_BF16 ? rt_bf16_to_f32(h) : rt_f16_to_f32(h); }

/* W [k][n] (16-bit) into the packed panels [N/16][K2][16][2] (zeros past n and K), bias padded to 16s */
static void pack16(int32_t k, int32_t n, const uint16_t *w, uint16_t *pb, const float *bias, float *bp) {
    int32_t j, kk, c, k2 = (k + 1) / 2, np = (n + 15) / 16 * 16;
    for (j = 0; j < np; j += 16)
        for (kk = 0; kk < 2 * k2; kk++)
            for (c = 0; c < 16; c++)
                pb[(int64_t)j * 2 * k2 + (kk / 2) * 32 + c * 2 + kk % 2] =
                    j + c < n && kk < k ? w[(int64_t)kk * n + j + c] : 0;
    for (c = 0; c < np; c++) bp[c] = c < n ? bias[c] : 0.0f;
}


static int gemm_case(long id, int32_t type) {
    static float a[23 * (KMAX + 9)], bias[80], bp[80], got[23 * 80], want[23 * 80];
    static uint16_t w[KMAX * 70], pb[80 * (KMAX + 1)];
    rt_opt_gemm_params p;
    int32_t i, j, kk;
    memset(&p, 0, sizeof p);
    p.m = next() % 3 ? range(1, 23) : 1, p.n = range(1, 70), p.k = next() % 16 ? range(1, 70) : range(1000, KMAX);
    p.lda = p.k + range(0, 9), p.ldc = p.n + range(0, 9);
    clamps(&p.act_min, &p.act_max);
    for (i = 0; i < p.m * p.lda; i++) a[i] = rnd();
    for (i = 0; i < p.k * p.n; i++) w[i] = to16(rnd(), type);
    for (i = 0; i < p.n; i++) bias[i] = rnd();
    pack16(p.k, p.n, w, pb, bias, bp);
    for (i = 0; i < p.m * p.ldc; i++) got[i] = want[i] = 12345.0f;
    for (i = 0; i < p.m; i++)
        for (j = 0; j < p.n; j++) {
            float s = bias[j];
            for (kk = 0; kk < p.k; kk++) s = fmaf(a[i * p.lda + kk], from16(w[kk * p.n + j], type), s);
            want[i * p.ldc + j] = clampf(s, p.act_min, p.act_max);
        }
    rt_opt_fc_half(&p, type, a, pb, bp, got, NULL); /* f32 activations: no scratch (the plan gives none) */
    for (i = 0; i < p.m * p.ldc; i++, checked++)
        if (memcmp(&got[i], &want[i], sizeof(float))) {
            printf("case %ld gemm %s m %d n %d k %d lda %d ldc %d clamp [%g, %g]: C[%d][%d] %.9g, want %.9g\n", id,
                   type == RT_BF16 ? "bf16" : "fp16", p.m, p.n, p.k, p.lda, p.ldc, p.act_min, p.act_max, i / p.ldc,
                   i % p.ldc, got[i], want[i]);
            return 1;
        }
    return 0;
}

static int conv_case(long id, int32_t type) {
    static float in[2 * 9 * 9 * 20], f[40 * 25 * 20], bias[48], bp[48];
    static uint16_t w16[25 * 20 * 40], pb[48 * 25 * 20 + 48 * 16];
    /* outputs up to 13 x 13: 9 pixels + 2 x 2 padding - 1 + 1 (a 1x1 filter with padding 2) */
    static float got[2 * 13 * 13 * 40], want[2 * 13 * 13 * 40];
    rt_opt_conv_params p;
    int32_t oc, kdim, i, o, n_out;
    void *scratch;
    oc = draw_conv(&p, 1);
    kdim = p.gemm.k;
    p.rows = next() % 2 ? range(1, 30) : range(31, 70);
    p.gemm.slots = 1;
    p.gemm.slot_bytes = p.direct ? 0 : rt_opt_conv_f32_slot_bytes(p.rows, kdim, p.filter_h, p.filter_w, p.in_c);
    scratch = p.direct ? NULL : malloc((size_t)p.gemm.slot_bytes);
    for (i = 0; i < p.batches * p.in_h * p.in_w * p.in_c; i++) in[i] = rnd();
    for (i = 0; i < oc * kdim; i++) f[i] = from16(to16(rnd(), type), type);
    for (i = 0; i < oc; i++) bias[i] = rnd();
    for (i = 0; i < kdim; i++)
        for (o = 0; o < oc; o++) w16[i * oc + o] = to16(f[o * kdim + i], type);
    pack16(kdim, oc, w16, pb, bias, bp);
    n_out = p.batches * p.out_h * p.out_w * oc;
    conv_oracle(&p, oc, in, f, bias, want);
    for (i = 0; i < n_out; i++) got[i] = 12345.0f;
    rt_opt_conv_half(&p, type, in, pb, bp, got, scratch, NULL, NULL, NULL);
    free(scratch);
    for (i = 0; i < n_out; i++, checked++)
        if (memcmp(&got[i], &want[i], sizeof(float))) {
            printf("case %ld conv %s %dx%dx%dx%d filter %dx%d dil %d stride %d,%d pad %d,%d oc %d rows %d: out[%d] "
                   "%.9g, want %.9g\n", id, type == RT_BF16 ? "bf16" : "fp16", p.batches, p.in_h, p.in_w, p.in_c,
                   p.filter_h, p.filter_w, p.dil_h, p.stride_h, p.stride_w, p.pad_h, p.pad_w, oc, p.rows, i, got[i],
                   want[i]);
            return 1;
        }
    return 0;
}

static int one_case(long k) {
    int32_t type = k / 2 % 2 ? RT_F16 : RT_BF16;
    return k % 2 ? conv_case(k, type) : gemm_case(k, type);
}
