/* gemm_s8_check.c - the optimized int8 FULLY_CONNECTED (rt_opt_gemm_s8: on AArch64 runtime/arm64/
 * rt_a64_gemm_s8.h's tiles, the int8 rows read in place where K is whole quads, else widened to a + 128
 * bytes) against the reference kernel (rt_fully_connected_i8), byte for byte, on N random cases drawn
 * from SEED, with the weights packed and the bias folded as pass schedule does (sched_pack.c): half the
 * cases in the form of --isa armv8a / armv8.2a+dotprod (a64_init: 128 x the column sums in the bias),
 * half in --isa neon's. 1..21 rows (a single row a third of the time), K 1..300 (every tail of quads and
 * bytes), 1..70 output columns, per-channel multipliers, shifts mostly right shifts (now and then 0 or a
 * left shift: the generic epilogue), random offsets and clamps, blocks of 4..16 rows. Built for AArch64
 * with the runtime library and run under qemu-aarch64 by tests/test_arm64.py: `gemm_s8_check SEED N`;
 * prints "ok OUTPUTS" or the first mismatch, exit 1. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpcc_rt.h"
#include "kernels/rt_fully_connected.h"
#include "rt_opt.h"
#include "sched_pack.h"
#include "check_main.h"

static int one_case(long k) {
    static int8_t in[21 * 300], w[70 * 300], pw[80 * 300], want[21 * 70], got[21 * 70];
    static int32_t bias[70], pbias[80], mult[80], shift[80];
    static uint8_t scratch[16 * 300];
    rt_fc_params p;
    rt_opt_gemm_params g;
    int32_t m, n, np, kd, k4, i, in_zp, rows, a64 = (int32_t)(next() % 2);
    memset(&p, 0, sizeof p);
    m = next() % 3 == 0 ? 1 : range(1, 21);
    kd = next() % 2 ? 4 * range(1, 75) : range(1, 300);
    n = next() % 2 ? 16 * range(1, 4) : range(1, 70);
    np = (n + 15) / 16 * 16, k4 = (kd + 3) / 4 * 4;
    in_zp = range(-128, 127);
    p.batches = m, p.in_depth = kd, p.out_depth = n, p.per_channel = 1;
    p.in_offset = -in_zp, p.out_offset = range(-128, 100);
    p.act_qmin = next() % 2 ? -128 : range(-128, -100), p.act_qmax = next() % 2 ? 127 : range(100, 126);
    if (next() % 4 == 0) p.act_qmin = p.out_offset; /* a fused ReLU */
    for (i = 0; i < m * kd; i++) in[i] = (int8_t)range(-128, 127);
    for (i = 0; i < n * kd; i++) w[i] = (int8_t)range(next() % 2 ? -128 : -127, 127);
    for (i = 0; i < n; i++) bias[i] = range(-20000, 20000);
    for (i = 0; i < np; i++) {
        mult[i] = range(1 << 30, INT32_MAX);
        shift[i] = next() % 16 ? range(-12, -1) : range(-2, 1);
    }
    if (next() % 8 == 0) shift[range(0, n - 1)] = 0;
    p.mult = mult, p.shift = shift;
    rt_fully_connected_i8(&p, in, w, bias, want);
    sched_pack_s8(w, n, kd, pw);
    sched_fold_bias_s8(w, bias, -in_zp + (a64 ? 128 : 0), n, kd, np, pbias);
    rows = 4 * range(1, 4);
    memset(&g, 0, sizeof g);
    g.m = m, g.n = n, g.k = kd, g.lda = kd, g.ldc = n;
    g.out_offset = p.out_offset, g.act_qmin = p.act_qmin, g.act_qmax = p.act_qmax;
    g.rounding = RT_OPT_ROUND_SINGLE, g.mult = mult, g.shift = shift, g.rows = rows;
    g.slots = 1, g.slot_bytes = (int64_t)rows * k4, g.a64_init = a64;
    memset(got, 0x55, sizeof got);
    rt_opt_gemm_s8(&g, in, pw, pbias, got, scratch, NULL);
    checked += (long)m * n;
    for (i = 0; i < m * n; i++)
        if (got[i] != want[i]) {
            printf("mismatch at %ld of case %ld: %ld rows, K %ld, N %ld, rows %ld, a64_init %ld: optimized %d, "
                   "reference %d\n",
                   (long)i, k, (long)m, (long)kd, (long)n, (long)rows, (long)a64, got[i], want[i]);
            return 1;
        }
    return 0;
}
