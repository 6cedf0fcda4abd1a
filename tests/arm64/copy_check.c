/* copy_check.c - rt_opt_copy's interleave of 2..4 byte planes into pixels (a PyTorch export's NCHW image
 * transposed to NHWC: runtime/arm64/rt_a64_copy.h's ST2/ST3/ST4 on AArch64, 16 pixels a step, the rest by
 * the scalar loop) against the definition d[i * c + k] = s[k * plane + i], byte for byte, bytes around
 * the output untouched, on N random cases drawn from SEED: 1..1000 pixels, 2..4 planes, planes 0..4 bytes
 * apart beyond their length. Built for AArch64 with the runtime library and run under qemu-aarch64 by
 * tests/test_arm64.py: `copy_check SEED N`; prints "ok BYTES" or the first mismatch, exit 1. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpcc_rt.h"
#include "rt_opt.h"
#include "check_main.h"

static int one_case(long k) {
    static uint8_t src[4 * 1004], dst[4 * 1004], want[4 * 1004];
    rt_copy_params p;
    const int32_t len = range(1, 1000), c = range(2, 4), plane = len + range(0, 4);
    int32_t i, j;
    memset(&p, 0, sizeof p);
    for (i = 0; i < (int32_t)sizeof src; i++) src[i] = (uint8_t)next();
    memset(dst, 0xA5, sizeof dst);
    memset(want, 0xA5, sizeof want);
    p.rank = 2, p.run = 1, p.dims[0] = len, p.dims[1] = c;
    p.in_strides[0] = 1, p.in_strides[1] = plane, p.out_strides[0] = c, p.out_strides[1] = 1;
    for (i = 0; i < len; i++)
        for (j = 0; j < c; j++) want[i * c + j] = src[j * plane + i];
    rt_opt_copy(&p, src, dst);
    checked += (long)len * c;
    for (i = 0; i < (int32_t)sizeof dst; i++)
        if (dst[i] != want[i]) {
            printf("mismatch at byte %ld of case %ld: %ld pixels, %ld planes %ld apart: optimized %d, expected %d\n",
                   (long)i, k, (long)len, (long)c, (long)plane, dst[i], want[i]);
            return 1;
        }
    return 0;
}
