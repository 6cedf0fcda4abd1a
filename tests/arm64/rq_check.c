/* rq_check.c - runtime/arm64's NEON requantization (rt_a64_rq_double, rt_a64_rq_single, and the
 * int8 GEMM tile's rt_a64_rq_row with its offset and clamp, for shifts in [-31, 0]) against the
 * scalar TFLite rounding (rq_double, rq_single of rt_opt_internal.h, which equal
 * rt_mul_by_quantized_multiplier(_single)), lane by lane: edge values (0, +-1, the int32 limits,
 * exact ties of every shift) and N random (x, m, s) drawn from SEED, with random int8 offsets and
 * clamps. Built for AArch64 and run under qemu-aarch64 by tests/test_arm64.py: `rq_check SEED N`;
 * prints "ok COUNT" or the first mismatch, exit status 1. */
#include <stdio.h>
#include <stdlib.h>

#include "arm64/rt_a64.h"
#include "mpcc_rt.h"
#include "rt_opt_internal.h"

static uint64_t state;
static uint32_t next(void) { /* xorshift64* */
    state ^= state >> 12, state ^= state << 25, state ^= state >> 27;
    return (uint32_t)((state * UINT64_C(2685821657736338717)) >> 32);
}

static long checked;

static int check(int32_t x, int32_t m, int32_t s, int single) {
    int32_t want = single ? rq_single(x, m, s) : rq_double(x, m, s), got;
    int32x4_t v = single ? rt_a64_rq_single(vdupq_n_s32(x), vdupq_n_s32(m), vdupq_n_s32(s))
                         : rt_a64_rq_double(vdupq_n_s32(x), vdupq_n_s32(m), vdupq_n_s32(s));
    got = vgetq_lane_s32(v, 0);
    checked++;
    if (s <= 0) { /* the GEMM tile's row: + offset, clamped, as bytes */
        int32_t mult[16], shift[16], i, off = (int32_t)(next() % 256) - 128;
        int32_t lo = -128 + (int32_t)(next() % 3) * 59, hi = 127 - (int32_t)(next() % 3) * 59, e; /* lo < hi */
        const rt_a64_rq_cols q = {mult, shift, single, off, lo, hi};
        rt_a64_rq_regs k;
        int32x4_t xs[4];
        int8_t d[16];
        for (i = 0; i < 16; i++) mult[i] = m, shift[i] = s;
        for (i = 0; i < 4; i++) xs[i] = vdupq_n_s32(x);
        rt_a64_rq_load(&q, &k);
        rt_a64_rq_row(xs, &k, d, 16);
        e = want > INT32_MAX - 128 ? INT32_MAX : want < INT32_MIN + 128 ? INT32_MIN : want + off;
        e = e < lo ? lo : e > hi ? hi : e;
        for (i = 0; i < 16; i++)
            if (d[i] != e) {
                printf("mismatch row %s x=%ld m=%ld s=%ld off=%ld [%ld, %ld]: neon %d, scalar %ld\n",
                       single ? "single" : "double", (long)x, (long)m, (long)s, (long)off, (long)lo, (long)hi, d[i],
                       (long)e);
                return 1;
            }
    }
    if (got == want && want == (single ? rt_mul_by_quantized_multiplier_single(x, m, s)
                                       : rt_mul_by_quantized_multiplier(x, m, s)))
        return 0;
    printf("mismatch %s x=%ld m=%ld s=%ld: neon %ld, scalar %ld\n", single ? "single" : "double", (long)x, (long)m,
           (long)s, (long)got, (long)want);
    return 1;
}

int main(int argc, char **argv) {
    static const int32_t edge[] = {0, 1, -1, 2, -2, 3, -3, INT32_MAX, INT32_MIN, INT32_MAX - 1, INT32_MIN + 1, 1 << 30,
                                   -(1 << 30), 12345, -12345};
    const int n_edge = (int)(sizeof edge / sizeof edge[0]);
    long i, n = argc > 2 ? atol(argv[2]) : 100000;
    int32_t s, a, b;
    state = (argc > 1 ? strtoull(argv[1], NULL, 10) : 1) * 2 + 1;
    for (s = -31; s <= 0; s++)
        for (a = 0; a < n_edge; a++)
            for (b = 0; b < n_edge; b++) {
                int32_t m = edge[b] < 0 ? -edge[b] : edge[b]; /* multipliers are positive (TFLite's Q31) */
                if (m < (1 << 30)) m = (1 << 30) + (m & 0xFFFF);
                if (check(edge[a], m, s, 0) || check(edge[a], m, s, 1)) return 1;
            }
    for (s = -31; s <= 0; s++) /* ties of the final shift: the product's high half at k * 2^-s +- half */
        for (a = -40; a <= 40; a++) {
            int32_t half = s < 0 ? (int32_t)(1u << (-s - 1)) : 0, q = a * (int32_t)(1u << (-s < 24 ? -s : 24)) + half;
            /* m = 2^30 halves x: x = 2 q makes the high product q exactly */
            if (q > INT32_MAX / 2 || q < INT32_MIN / 2) continue;
            if (check(2 * q, 1 << 30, s, 0) || check(2 * q - 1, 1 << 30, s, 0) || check(2 * q + 1, 1 << 30, s, 0)) return 1;
        }
    for (s = 1; s <= 31; s++) /* left shifts, saturating */
        for (a = 0; a < n_edge; a++)
            if (check(edge[a], (1 << 30) + 777, s, 0)) return 1;
    for (i = 0; i < n; i++) {
        int32_t x = (int32_t)next(), m = (int32_t)((next() >> 1) | (1u << 30)), sh = -(int32_t)(next() % 32);
        int32_t left = (int32_t)(next() % 32); /* double rounding: left shifts too (saturating) */
        if (next() & 1) x >>= next() % 31; /* small magnitudes too */
        if (check(x, m, sh, 0) || check(x, m, sh, 1) || check(x >> (next() % 32), m, left, 0)) return 1;
    }
    printf("ok %ld\n", checked);
    return 0;
}
