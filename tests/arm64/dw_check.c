/* dw_check.c - the optimized int8 depthwise convolution (rt_opt_dwconv_s8: runtime/arm64/
 * rt_a64_dwconv_s8.h's kernel on AArch64, its 3x3 row runs included) against the reference kernel
 * (rt_depthwise_conv_2d_i8), byte for byte, on N random cases drawn from SEED: channels 8, 16, .., 80
 * with depth multiplier 1 (3x3: blocks of 16 channels and a last block of 8), or one input channel with
 * a multiplier of 8, 16, 24 or 32 (and now and then
 * a shape the kernel leaves to the portable code), images of 1..12 rows and columns, 3x3 filters
 * mostly (some 1x1, 2x2, 5x5; dilation 2 now and then), strides 1 and 2, padding up to 2 on each
 * side (rows and columns wholly in the padding included), random offsets, weights with and without
 * -128, multipliers, shifts either way and clamps. Built for AArch64 with the runtime library and
 * run under qemu-aarch64 by tests/test_arm64.py: `dw_check SEED N`; prints "ok OUTPUTS" or the
 * first mismatch, exit 1. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpcc_rt.h"
#include "kernels/rt_depthwise_conv_2d.h"
#include "rt_opt.h"
#include "check_main.h"

static int one_case(long k) {
    static int8_t in[2 * 12 * 12 * 80], filter[25 * 80], want[2 * 16 * 16 * 80], got[2 * 16 * 16 * 80];
    static int32_t bias[80], mult[80], shift[80];
    static const int32_t sizes[4] = {3, 1, 2, 5};
    rt_dwconv_params p;
    int32_t oc, n_in, n_out, n_f, i, ext_h, ext_w, neg = (int32_t)(next() % 2);
    memset(&p, 0, sizeof p);
    p.batches = range(1, 2);
    if (next() % 4) p.in_c = 8 * range(1, 10), p.depth_mult = 1; /* 8..80: blocks of 16 and a last of 8 */
    else if (next() % 4) p.in_c = 1, p.depth_mult = 8 * range(1, 4);
    else p.in_c = range(1, 12), p.depth_mult = range(1, 3); /* mostly the portable code */
    p.filter_h = p.filter_w = next() % 4 ? 3 : sizes[next() % 4];
    p.dil_h = p.dil_w = next() % 8 ? 1 : 2;
    p.stride_h = range(1, 2), p.stride_w = range(1, 2);
    p.in_h = range(1, 12), p.in_w = range(1, 12);
    p.pad_h = range(0, 2), p.pad_w = range(0, 2);
    ext_h = (p.filter_h - 1) * p.dil_h + 1, ext_w = (p.filter_w - 1) * p.dil_w + 1;
    if (p.in_h + 2 * p.pad_h < ext_h || p.in_w + 2 * p.pad_w < ext_w) p.pad_h = p.pad_w = 2;
    if (p.in_h + 2 * p.pad_h < ext_h) p.in_h = ext_h;
    if (p.in_w + 2 * p.pad_w < ext_w) p.in_w = ext_w;
    p.out_h = (p.in_h + 2 * p.pad_h - ext_h) / p.stride_h + 1;
    p.out_w = (p.in_w + 2 * p.pad_w - ext_w) / p.stride_w + 1;
    oc = p.in_c * p.depth_mult;
    p.in_offset = range(-127, 128);
    p.out_offset = range(-128, 127);
    p.act_qmin = next() % 2 ? -128 : range(-128, 0);
    p.act_qmax = next() % 2 ? 127 : range(p.act_qmin, 127);
    n_in = p.batches * p.in_h * p.in_w * p.in_c;
    n_out = p.batches * p.out_h * p.out_w * oc;
    n_f = p.filter_h * p.filter_w * oc;
    for (i = 0; i < n_in; i++) in[i] = (int8_t)range(-128, 127);
    for (i = 0; i < n_f; i++) filter[i] = (int8_t)range(neg ? -128 : -127, 127);
    for (i = 0; i < oc; i++) {
        bias[i] = range(-20000, 20000);
        mult[i] = range(1 << 30, INT32_MAX);
        shift[i] = next() % 8 ? range(-12, 0) : range(-31, 4);
    }
    p.mult = mult, p.shift = shift;
    memset(want, 0, sizeof want);
    memset(got, 0x55, sizeof got);
    rt_depthwise_conv_2d_i8(&p, in, filter, k % 5 ? bias : NULL, want);
    rt_opt_dwconv_s8(&p, in, filter, k % 5 ? bias : NULL, got, NULL, NULL);
    checked += n_out;
    for (i = 0; i < n_out; i++)
        if (got[i] != want[i]) {
            printf("mismatch at %ld of case %ld: in %ldx%ldx%ldx%ld mult %ld filter %ldx%ld dil %ld stride %ldx%ld pad "
                   "%ldx%ld out %ldx%ld, offsets %ld %ld: optimized %d, reference %d\n",
                   (long)i, k, (long)p.batches, (long)p.in_h, (long)p.in_w, (long)p.in_c, (long)p.depth_mult,
                   (long)p.filter_h, (long)p.filter_w, (long)p.dil_h, (long)p.stride_h, (long)p.stride_w,
                   (long)p.pad_h, (long)p.pad_w, (long)p.out_h, (long)p.out_w, (long)p.in_offset,
                   (long)p.out_offset, got[i], want[i]);
            return 1;
        }
    return 0;
}
