/* mean_check.c - the optimized int8 MEAN over adjacent axes (rt_opt_mean_i8: runtime/arm64/
 * rt_a64_mean_s8.h's lanes on AArch64, 16 channels at a time, the rest by the scalar loop) against the
 * reference kernel (rt_mean_i8), byte for byte, on N random cases drawn from SEED: NHWC images of 1..2
 * batches, 1..30 x 1..30 pixels (the global average pool; now and then one axis only, and more than 256
 * rows, which the lanes add in int16 blocks of 256), 1..70 channels, random zero points, multipliers and
 * shifts either way. Built for AArch64 with the runtime library and run under qemu-aarch64 by
 * tests/test_arm64.py: `mean_check SEED N`; prints "ok OUTPUTS" or the first mismatch, exit 1. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpcc_rt.h"
#include "kernels/rt_mean.h"
#include "rt_opt.h"
#include "check_main.h"

static int one_case(long k) {
    static int8_t in[2 * 30 * 30 * 70], want[2 * 30 * 70], got[2 * 30 * 70];
    static uint32_t scratch[2 * 30 * 70];
    rt_reduce_params p;
    int32_t b = range(1, 2), h = range(1, 30), w = range(1, 30), c = range(1, 70), i, one_axis = next() % 4 == 0;
    memset(&p, 0, sizeof p);
    if (k % 7 == 0) h = 30, w = range(9, 30); /* more than 256 rows */
    p.rank = 4;
    p.in_dims[0] = b, p.in_dims[1] = h, p.in_dims[2] = w, p.in_dims[3] = c;
    /* the output strides: 0 on the reduced axes (h and w, or w only) */
    p.out_stride[3] = 1;
    p.out_stride[2] = 0;
    p.out_stride[1] = one_axis ? c : 0;
    p.out_stride[0] = one_axis ? h * c : c;
    p.in_count = b * h * w * c;
    p.reduce_count = one_axis ? w : h * w;
    p.out_count = p.in_count / p.reduce_count;
    p.in_zp = range(-128, 127), p.out_zp = range(-128, 127);
    p.mult = range(1 << 30, INT32_MAX);
    p.shift = next() % 4 ? range(-14, 0) : range(-31, 6);
    for (i = 0; i < p.in_count; i++) in[i] = (int8_t)range(-128, 127);
    memset(want, 0, sizeof want);
    memset(got, 0x55, sizeof got);
    rt_mean_i8(&p, in, want, scratch);
    rt_opt_mean_i8(&p, in, got, scratch);
    checked += p.out_count;
    for (i = 0; i < p.out_count; i++)
        if (got[i] != want[i]) {
            printf("mismatch at %ld of case %ld: %ldx%ldx%ldx%ld%s zp %ld %ld mult %ld shift %ld: optimized %d, "
                   "reference %d\n",
                   (long)i, k, (long)b, (long)h, (long)w, (long)c, one_axis ? " (w only)" : "", (long)p.in_zp,
                   (long)p.out_zp, (long)p.mult, (long)p.shift, got[i], want[i]);
            return 1;
        }
    return 0;
}
