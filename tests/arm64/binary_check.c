/* binary_check.c - the optimized int8 MUL, SQUARED_DIFFERENCE, ADD and SUB (rt_opt_mul_i8, ...:
 * runtime/arm64/rt_a64_mul_s8.h's and rt_a64_addsub_s8.h's lanes on AArch64) against the
 * reference kernels (rt_mul_i8, ...), byte for byte, on N random cases drawn
 * from SEED: random int8 inputs, shapes [r, c] with either input broadcast along a row, a column
 * or whole, random offsets (some outside the lanes' range, for the scalar fallback), multipliers,
 * shifts and clamps. Built for AArch64 with the runtime library and run under qemu-aarch64 by
 * tests/test_arm64.py: `binary_check SEED N`; prints "ok ELEMENTS" or the first mismatch, exit 1. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpcc_rt.h"
#include "kernels/rt_add.h"
#include "kernels/rt_mul.h"
#include "kernels/rt_squared_difference.h"
#include "kernels/rt_sub.h"
#include "rt_opt.h"
#include "check_main.h"

/* An input of shape [r, c] broadcast by kind (0 none, 1 along rows: [1, c], 2 along columns:
 * [r, 1], 3 whole: [1, 1]): its element strides in bc and its element count. */
static int32_t shape(int kind, int32_t r, int32_t c, int32_t *stride) {
    stride[0] = kind == 0 || kind == 2 ? (kind == 2 ? 1 : c) : 0;
    stride[1] = kind == 0 || kind == 1 ? 1 : 0;
    return (kind == 0 || kind == 2 ? r : 1) * (kind == 0 || kind == 1 ? c : 1);
}

static const char *const names[4] = {"MUL", "SQUARED_DIFFERENCE", "ADD", "SUB"};

static int one_case(long k) {
    const int op = (int)(k % 4);
    static int8_t a[4096], b[4096], want[4096], got[4096];
    rt_binary_params p;
    int32_t r = range(1, 5), c = range(1, 70), n1, n2, i;
    int ka = (int)(next() % 4), kb = (int)(next() % 4);
    memset(&p, 0, sizeof p);
    p.bc.rank = 2;
    p.bc.dims[0] = r;
    p.bc.dims[1] = c;
    n1 = shape(ka, r, c, p.bc.stride1);
    n2 = shape(kb, r, c, p.bc.stride2);
    for (i = 0; i < n1; i++) a[i] = (int8_t)range(-128, 127);
    for (i = 0; i < n2; i++) b[i] = (int8_t)range(-128, 127);
    p.in1_offset = next() % 8 ? range(-127, 128) : range(-400, 400);
    p.in2_offset = next() % 8 ? range(-127, 128) : range(-400, 400);
    p.out_offset = range(-128, 127);
    p.act_qmin = next() % 2 ? -128 : range(-128, 0);
    p.act_qmax = next() % 2 ? 127 : range(p.act_qmin, 127);
    p.out_mult = range(1 << 30, INT32_MAX);
    if (op == 0) { /* MUL: a product up to 2^17 times a multiplier, shifts either way */
        p.out_shift = range(-31, 12);
    } else { /* SQUARED_DIFFERENCE: TFLite's left shift 7, ADD / SUB's 20; input multipliers below one half,
              * or (shift 0) the larger input scale's one half */
        p.left_shift = op == 1 ? (next() % 8 ? 7 : range(0, 7)) : (next() % 8 ? 20 : range(0, 24));
        p.in1_mult = range(1 << 30, INT32_MAX);
        p.in2_mult = range(1 << 30, INT32_MAX);
        p.in1_shift = next() % 3 ? range(-12, -1) : 0;
        p.in2_shift = next() % 3 ? range(-12, -1) : 0;
        p.out_shift = op == 1 ? range(-31, 0) : range(-31, 1);
    }
    switch (op) {
    case 0:
        rt_mul_i8(&p, a, b, want);
        rt_opt_mul_i8(&p, a, b, got);
        break;
    case 1:
        rt_squared_difference_i8(&p, a, b, want);
        rt_opt_squared_difference_i8(&p, a, b, got);
        break;
    case 2:
        rt_add_i8(&p, a, b, want);
        rt_opt_add_i8(&p, a, b, got);
        break;
    default:
        rt_sub_i8(&p, a, b, want);
        rt_opt_sub_i8(&p, a, b, got);
    }
    checked += (long)r * c;
    for (i = 0; i < r * c; i++)
        if (got[i] != want[i]) {
            printf("mismatch %s [%ld, %ld] kinds %d %d at %ld: offsets %ld %ld -> %ld, out mult %ld shift %ld, clamp "
                   "[%ld, %ld]: optimized %d, reference %d\n",
                   names[op], (long)r, (long)c, ka, kb, (long)i, (long)p.in1_offset,
                   (long)p.in2_offset, (long)p.out_offset, (long)p.out_mult, (long)p.out_shift, (long)p.act_qmin,
                   (long)p.act_qmax, got[i], want[i]);
            return 1;
        }
    return 0;
}
