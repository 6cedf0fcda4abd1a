/* conv_check.c - the optimized int8 convolution (rt_opt_conv_s8: on AArch64 the patches read from the
 * image or its padded copy by runtime/arm64/rt_a64_gemm_s8.h's tiles, rt_a64_s8_tile_rq_runs, else
 * im2col rows) against the reference kernel (rt_conv_2d_i8), byte for byte, on N random cases drawn
 * from SEED, with the weights packed and the bias folded as pass schedule does (sched_pack.c; half the
 * cases as for --isa armv8a / armv8.2a+dotprod, 128 x the column sums in the bias: a64_init): 1..2
 * images of 1..12 rows and columns (now and then 17..24), 4..64 input channels (now and then 3 or 6:
 * filter rows of odd quads or none, im2col), 1..70 output channels (often 16 or 8 in the last panel),
 * filters 1..3 x 1..3, strides 1 and 2, dilation 2 now and then, padding 0..2 before and after (or
 * none), blocks of 8..48 rows, scratch slots with and without room for the padded image, random offsets
 * and clamps, shifts mostly right shifts (now and then 0, or a left shift: the generic epilogue). Built
 * for AArch64 with the runtime library and run under qemu-aarch64 by tests/test_arm64.py: `conv_check
 * SEED N`; prints "ok OUTPUTS" or the first mismatch, exit 1. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpcc_rt.h"
#include "kernels/rt_conv_2d.h"
#include "rt_opt.h"
#include "sched_pack.h"
#include "check_main.h"

static int one_case(long k) {
    static int8_t in[2 * 24 * 24 * 64], w[70 * 9 * 64], pw[80 * 9 * 64], want[2 * 26 * 26 * 70],
        got[2 * 26 * 26 * 70];
    static int32_t bias[70], pbias[80], mult[80], shift[80];
    static uint8_t scratch[48 * 9 * 64 + 28 * 28 * 64 + 64];
    static const int32_t chans[8] = {4, 8, 16, 32, 12, 20, 64, 3};
    rt_conv_params p;
    rt_opt_conv_params c;
    int32_t n, np, kd, k4, i, n_in, n_out, in_zp, rows, ext_h, ext_w, big = next() % 6 == 0, a64 = next() % 2;
    int64_t padded, slot;
    memset(&p, 0, sizeof p);
    p.batches = range(1, 2);
    p.in_c = next() % 8 ? chans[next() % 7] : (next() % 2 ? 3 : 6);
    p.filter_c = p.in_c;
    /* whole panels, any width, or 8 columns in the last panel */
    p.out_c = next() % 2 ? 16 * range(1, 4) : next() % 3 ? range(1, 70) : 16 * range(0, 3) + 8;
    p.filter_h = range(1, 3), p.filter_w = range(1, 3);
    p.stride_h = range(1, 2), p.stride_w = range(1, 2), p.dil_h = p.dil_w = 1;
    if (next() % 8 == 0) p.dil_h = 2, p.dil_w = range(1, 2); /* im2col rows */
    ext_h = (p.filter_h - 1) * p.dil_h + 1, ext_w = (p.filter_w - 1) * p.dil_w + 1;
    p.in_h = big ? range(17, 24) : range(1, 12), p.in_w = big ? range(17, 24) : range(1, 12);
    if (next() % 4) p.pad_h = range(0, p.filter_h - 1), p.pad_w = range(0, p.filter_w - 1);
    if (p.in_h + 2 * p.pad_h < ext_h) p.in_h = ext_h;
    if (p.in_w + 2 * p.pad_w < ext_w) p.in_w = ext_w;
    /* the output: as many as fit with the padding before and after, sometimes one fewer (SAME-like
     * padding after shorter than before, or a patch stopping short of the image's end) */
    p.out_h = (p.in_h + 2 * p.pad_h - ext_h) / p.stride_h + 1;
    p.out_w = (p.in_w + 2 * p.pad_w - ext_w) / p.stride_w + 1;
    if (p.out_h > 1 && next() % 3 == 0) p.out_h--;
    if (p.out_w > 1 && next() % 3 == 0) p.out_w--;
    n = p.out_c, np = (n + 15) / 16 * 16, kd = p.filter_h * p.filter_w * p.in_c, k4 = (kd + 3) / 4 * 4;
    in_zp = range(-128, 127);
    p.in_offset = -in_zp, p.out_offset = range(-128, 100);
    p.act_qmin = next() % 2 ? -128 : range(-128, -100), p.act_qmax = next() % 2 ? 127 : range(100, 126);
    if (next() % 4 == 0) p.act_qmin = p.out_offset; /* a fused ReLU */
    n_in = p.batches * p.in_h * p.in_w * p.in_c;
    n_out = p.batches * p.out_h * p.out_w * n;
    for (i = 0; i < n_in; i++) in[i] = (int8_t)range(-128, 127);
    for (i = 0; i < n * kd; i++) w[i] = (int8_t)range(next() % 2 ? -128 : -127, 127);
    for (i = 0; i < n; i++) bias[i] = range(-20000, 20000);
    for (i = 0; i < np; i++) {
        mult[i] = range(1 << 30, INT32_MAX);
        shift[i] = next() % 16 ? range(-12, -1) : range(-2, 1);
    }
    if (next() % 8 == 0) shift[range(0, n - 1)] = 0;
    p.mult = mult, p.shift = shift;
    rt_conv_2d_i8(&p, in, w, bias, want);
    sched_pack_s8(w, n, kd, pw);
    sched_fold_bias_s8(w, bias, -in_zp + (a64 ? 128 : 0), n, kd, np, pbias); /* a64: --isa armv8a's bias */
    rows = 8 * range(1, 6);
    padded = (int64_t)((p.in_h + 2 * p.pad_h) * (p.in_w + 2 * p.pad_w) * p.in_c + 63) / 64 * 64;
    slot = (int64_t)rows * k4 + (next() % 4 ? padded : 0);
    memset(&c, 0, sizeof c);
    c.gemm.m = p.out_h * p.out_w, c.gemm.n = n, c.gemm.k = kd, c.gemm.lda = kd, c.gemm.ldc = n;
    c.gemm.out_offset = p.out_offset, c.gemm.act_qmin = p.act_qmin, c.gemm.act_qmax = p.act_qmax;
    c.gemm.rounding = RT_OPT_ROUND_DOUBLE, c.gemm.mult = mult, c.gemm.shift = shift, c.gemm.rows = rows;
    c.gemm.slots = 1, c.gemm.slot_bytes = slot, c.gemm.a64_init = a64;
    c.batches = p.batches, c.in_h = p.in_h, c.in_w = p.in_w, c.in_c = p.in_c, c.out_h = p.out_h, c.out_w = p.out_w;
    c.filter_h = p.filter_h, c.filter_w = p.filter_w, c.stride_h = p.stride_h, c.stride_w = p.stride_w;
    c.dil_h = p.dil_h, c.dil_w = p.dil_w, c.pad_h = p.pad_h, c.pad_w = p.pad_w, c.rows = rows, c.pad_value = in_zp;
    c.direct = p.filter_h == 1 && p.filter_w == 1 && p.stride_h == 1 && p.stride_w == 1 && !p.pad_h && !p.pad_w &&
               p.out_h == p.in_h && p.out_w == p.in_w;
    memset(got, 0x55, sizeof got);
    rt_opt_conv_s8(&c, in, pw, pbias, got, scratch, NULL, NULL, NULL);
    checked += n_out;
    for (i = 0; i < n_out; i++)
        if (got[i] != want[i]) {
            printf("mismatch at %ld of case %ld: in %ldx%ldx%ldx%ld filter %ldx%ld stride %ldx%ld pad %ldx%ld out "
                   "%ldx%ldx%ld rows %ld slot %ld: optimized %d, reference %d\n",
                   (long)i, k, (long)p.batches, (long)p.in_h, (long)p.in_w, (long)p.in_c, (long)p.filter_h,
                   (long)p.filter_w, (long)p.stride_h, (long)p.stride_w, (long)p.pad_h, (long)p.pad_w, (long)p.out_h,
                   (long)p.out_w, (long)n, (long)rows, (long)slot, got[i], want[i]);
            return 1;
        }
    return 0;
}
