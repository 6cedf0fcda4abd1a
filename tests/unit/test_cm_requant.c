/* test_cm_requant.c - the Cortex-M kernels' shortcuts of TFLite's requantization
 * (runtime/cortex_m/rt_cm.h: rt_cm_requant_hi, one SMLAL and a shift of the high word;
 * rt_cm_requant_fast) against the runtime's reference (rt_mul_by_quantized_multiplier, the
 * output offset, the clamp) on random accumulators and multipliers, with the edges: the
 * accumulator's extremes, small values whose products land on the rounding ties, shift -1 and
 * -31, multipliers just above 2^30 and at 2^31 - 1. Portable C: runs on the host (the ACLE
 * SSAT path is the same clamp; tests/test_cortex_m.py checks the kernels on the cores).
 * The seed is printed; MPCC_SEED=<n> reproduces a run. */
#include <stdio.h>

#include "cortex_m/rt_cm.h"

#include "unit_check.h"

static int32_t reference(int32_t acc, int32_t mult, int32_t shift, int32_t zo, int32_t qmin, int32_t qmax) {
    int32_t y = rt_mul_by_quantized_multiplier(acc, mult, shift) + zo;
    return y < qmin ? qmin : (y > qmax ? qmax : y);
}

static int32_t draw_acc(void) {
    switch (rnd_in(0, 5)) {
    case 0: return INT32_MAX - rnd_in(0, 3);
    case 1: return INT32_MIN + rnd_in(0, 3);
    case 2: return rnd_in(-300, 300); /* small sums: the rounding ties of small shifts */
    case 3: return rnd_in(-100000, 100000);
    default: return (int32_t)((rnd() << 1) ^ rnd());
    }
}

/* A multiplier in [2^30, 2^31): near either end a quarter of the time each, else uniform. */
static int32_t draw_mult(void) {
    const int32_t kind = rnd_in(0, 3);
    return kind == 0   ? (1 << 30) + rnd_in(1, 3)
           : kind == 1 ? INT32_MAX - rnd_in(0, 3)
                       : (int32_t)((1u << 30) + 1u + rnd() % ((1u << 30) - 1u));
}

int main(void) {
    enum { N = 200000 };
    char msg[200];
    int bad_hi = 0, bad_fast = 0, n_hi = 0;
    (void)rnd_f; /* unit_check.h's, unused here */
    unit_seed(20261129, "host (portable C)");
    for (int i = 0; i < N; i++) {
        const int32_t acc = draw_acc();
        const int32_t mult = draw_mult();
        const int32_t shift = rnd_in(0, 3) == 0 ? (rnd_in(0, 1) ? -1 : -31) : -rnd_in(1, 12);
        const int32_t zo = rnd_in(-128, 127), qmin = rnd_in(0, 1) ? -128 : rnd_in(-128, 0);
        const int32_t qmax = rnd_in(0, 1) ? 127 : rnd_in(qmin, 127);
        const int narrow = qmin > -128 || qmax < 127;
        const int32_t want = reference(acc, mult, shift, zo, qmin, qmax);
        if (rt_cm_requant_hi_ok(&mult, &shift, 1, RT_OPT_ROUND_DOUBLE)) {
            const int32_t got = rt_cm_requant_hi(acc, rt_cm_requant_hi_channel(mult, shift), zo, qmin, qmax, narrow);
            n_hi++;
            if (got != want && bad_hi++ == 0) {
                snprintf(msg, sizeof msg, "acc %ld mult %ld shift %ld: %ld, want %ld", (long)acc, (long)mult,
                         (long)shift, (long)got, (long)want);
                check(0, "rt_cm_requant_hi", msg);
            }
        }
        /* rt_cm_requant_fast also takes shift 0 and any multiplier but INT32_MIN */
        const int32_t shift0 = rnd_in(0, 7) == 0 ? 0 : shift, mult0 = rnd_in(0, 7) == 0 ? (int32_t)rnd() : mult;
        /* shift 0: the product's high half near INT32_MAX plus the zero point would overflow
         * int32 (in the reference too; no model's scales come near), so smaller sums there */
        const int32_t acc0 = shift0 == 0 ? acc / 4096 : acc;
        if (rt_cm_requant_fast_ok(&mult0, &shift0, 1, RT_OPT_ROUND_DOUBLE)) {
            const int32_t got = rt_cm_requant_fast(acc0, mult0, -shift0, (int32_t)((1u << -shift0) - 1u), zo, qmin, qmax);
            if (got != reference(acc0, mult0, shift0, zo, qmin, qmax) && bad_fast++ == 0) {
                snprintf(msg, sizeof msg, "acc %ld mult %ld shift %ld: %ld", (long)acc0, (long)mult0, (long)shift0,
                         (long)got);
                check(0, "rt_cm_requant_fast", msg);
            }
        }
    }
    /* rt_cm_requant_hi2 (shift -2..-23, the output offset in the high word) and _hi2g (shift -1
     * too, its low-word constant), each result then clamped four at a time by rt_cm_pack4 */
    {
        int bad2 = 0, n2 = 0, n2g = 0;
        for (int i = 0; i < N; i++) {
            const int32_t acc = draw_acc();
            const int32_t mult = draw_mult();
            const int32_t shift = rnd_in(0, 3) == 0 ? (rnd_in(0, 1) ? -1 : -23) : -rnd_in(1, 23);
            const int32_t zo = rnd_in(0, 3) == 0 ? (rnd_in(0, 1) ? -128 : 127) : rnd_in(-128, 127);
            const int32_t qmin = rnd_in(0, 1) ? -128 : rnd_in(-128, 0), qmax = rnd_in(0, 1) ? 127 : rnd_in(qmin, 127);
            const int narrow = qmin > -128 || qmax < 127;
            const int ok = rt_cm_requant_hi2_ok(&mult, &shift, 1, RT_OPT_ROUND_DOUBLE);
            const rt_cm_rq2 c = rt_cm_requant_hi2_channel(mult, shift, zo);
            const uint32_t lo4 = (uint32_t)(uint8_t)qmin * 0x01010101u, hi4 = (uint32_t)(uint8_t)qmax * 0x01010101u;
            int32_t y;
            if (ok == 0) continue;
            if (ok == 1) {
                y = rt_cm_requant_hi2(acc, c.mult, c.hadd, c.sh1);
                n2++;
            } else {
                y = rt_cm_requant_hi2g(acc, c.mult, c.hadd, c.sh1, rt_cm_requant_hi2_rlo(shift));
                n2g++;
            }
            const uint32_t v = rt_cm_pack4(0, 0, y, 0, lo4, hi4, narrow);
            const int32_t want = reference(acc, mult, shift, zo, qmin, qmax);
            if ((int8_t)(v >> 16) != want && bad2++ == 0) {
                snprintf(msg, sizeof msg, "acc %ld mult %ld shift %ld zo %ld: %d, want %ld", (long)acc, (long)mult,
                         (long)shift, (long)zo, (int8_t)(v >> 16), (long)want);
                check(0, "rt_cm_requant_hi2", msg);
            }
            /* the general form gives the same values on the shorter range */
            if (ok == 1 && rt_cm_requant_hi2g(acc, c.mult, c.hadd, c.sh1, rt_cm_requant_hi2_rlo(shift)) != y &&
                bad2++ == 0)
                check(0, "rt_cm_requant_hi2g", "differs from rt_cm_requant_hi2");
        }
        snprintf(msg, sizeof msg, "%d + %d cases, %d mismatches", n2, n2g, bad2);
        check(bad2 == 0 && n2 > N / 2 && n2g > N / 50,
              "rt_cm_requant_hi2/_hi2g + rt_cm_pack4 equal rt_mul_by_quantized_multiplier + offset + clamp", msg);
        const int32_t m1 = 1 << 30 | 5, s0 = 0, s24 = -24, sm1 = -1, s5 = -5, m0 = 1 << 30;
        check(rt_cm_requant_hi2_ok(&m1, &s0, 1, RT_OPT_ROUND_DOUBLE) == 0 &&
                  rt_cm_requant_hi2_ok(&m1, &s24, 1, RT_OPT_ROUND_DOUBLE) == 0 &&
                  rt_cm_requant_hi2_ok(&m0, &s5, 1, RT_OPT_ROUND_DOUBLE) == 0 &&
                  rt_cm_requant_hi2_ok(&m1, &sm1, 1, RT_OPT_ROUND_DOUBLE) == 2 &&
                  rt_cm_requant_hi2_ok(&m1, &s5, 1, RT_OPT_ROUND_SINGLE) == 0,
              "rt_cm_requant_hi2_ok refuses what it does not cover", "");
    }
    snprintf(msg, sizeof msg, "%d cases, %d mismatches", n_hi, bad_hi);
    check(bad_hi == 0 && n_hi > N / 2, "rt_cm_requant_hi equals rt_mul_by_quantized_multiplier + clamp", msg);
    snprintf(msg, sizeof msg, "%d mismatches", bad_fast);
    check(bad_fast == 0, "rt_cm_requant_fast equals rt_mul_by_quantized_multiplier + clamp", msg);
    /* the guard: shift 0, a left shift or a multiplier at 2^30 leave rt_cm_requant_hi out */
    {
        const int32_t m1 = 1 << 30, s1 = -3, m2 = 1 << 30 | 5, s2 = 0, s3 = 2;
        check(!rt_cm_requant_hi_ok(&m1, &s1, 1, RT_OPT_ROUND_DOUBLE) &&
                  !rt_cm_requant_hi_ok(&m2, &s2, 1, RT_OPT_ROUND_DOUBLE) &&
                  !rt_cm_requant_hi_ok(&m2, &s3, 1, RT_OPT_ROUND_DOUBLE) &&
                  !rt_cm_requant_hi_ok(&m2, &s1, 1, RT_OPT_ROUND_SINGLE),
              "rt_cm_requant_hi_ok refuses what it does not cover", "");
    }
    printf("%d passed, %d failed\n", passes, failures);
    return failures != 0;
}
