/* unit_check.h - what the C unit tests share: a seeded random generator
 * (the seed printed by each test's main) and the PASS/FAIL line per check
 * that tests/test_unit.py counts, and the float and int8 comparisons and Q31 multipliers the kernel
 * tests use. One copy per test
 * program (static). */
#ifndef MPCC_UNIT_CHECK_H
#define MPCC_UNIT_CHECK_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static int failures, passes;
static uint64_t rng_state;

static uint32_t rnd(void) {
    rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (uint32_t)(rng_state >> 33);
}
static int32_t rnd_in(int32_t lo, int32_t hi) { return lo + (int32_t)(rnd() % (uint32_t)(hi - lo + 1)); }
static float rnd_f(void) { return (float)rnd_in(-100000, 100000) / 50000.0f; }

static void check(int ok, const char *what, const char *detail) {
    if (ok) passes++;
    else failures++;
    printf("%s %s%s%s\n", ok ? "PASS" : "FAIL", what, detail[0] ? ": " : "", detail);
}

/* Seeds the generator from $MPCC_SEED (else dflt) and prints the seed line. */
static void unit_seed(uint64_t dflt, const char *isa) {
    const char *env = getenv("MPCC_SEED");
    uint64_t seed = env ? strtoull(env, NULL, 10) : dflt;
    rng_state = seed;
    printf("seed %llu (MPCC_SEED=%llu reproduces), kernels compiled for: %s\n", (unsigned long long)seed,
           (unsigned long long)seed, isa);
}

/* The largest |a - b| over the largest |b| (|a - b| where b is all zero). */
static inline double max_rel_f32(const float *a, const float *b, int64_t n) {
    double m = 0, r = 0;
    for (int64_t i = 0; i < n; i++) {
        double d = fabs((double)a[i] - (double)b[i]);
        if (d > m) m = d;
        if (fabs((double)b[i]) > r) r = fabs((double)b[i]);
    }
    return r > 0 ? m / r : m;
}

/* The largest |a[i] - b[i]| over its rounding bound, for two f32 results of the same sum of k products
 * plus a bias computed in any order (FMA or not): each is within gamma_(k+1) = (k + 1) u / (1 - (k + 1) u)
 * of sum |terms| = mag[i] (u = 2^-24), so the two differ by at most about 2 (k + 2) u mag[i]; above 1 is
 * more than rounding. (A relative error against the largest output, clamped here, failed honest
 * results for some seeds with k ~ 250, and a missing term would still be far above this bound.) */
static inline double max_err_over_bound(const float *a, const float *b, const float *mag, int64_t n, int32_t k) {
    const double u = 1.0 / 16777216.0;
    double r = 0;
    for (int64_t i = 0; i < n; i++) {
        double q = fabs((double)a[i] - (double)b[i]) / (2.0 * (k + 2) * u * (double)mag[i] + 1e-30);
        if (q > r) r = q;
    }
    return r;
}

/* Bytes that differ between two int8 results. */
static inline int64_t count_diff_i8(const int8_t *a, const int8_t *b, int64_t n) {
    int64_t c = 0;
    for (int64_t i = 0; i < n; i++) c += a[i] != b[i];
    return c;
}

/* Q31 multipliers in [2^30, 2^31) and shifts as TFLite produces them. */
static inline void rnd_requant(int32_t *mult, int32_t *shift, int n, int lo_shift, int hi_shift) {
    for (int i = 0; i < n; i++) {
        mult[i] = (int32_t)((1u << 30) + (rnd() & 0x3FFFFFFFu));
        shift[i] = rnd_in(lo_shift, hi_shift);
    }
}

#endif
