/* peak.c - single-core fp32 FMA peak of this machine, measured with a register-only loop.
 *
 *   cc -O3 -march=native -ffp-contract=fast -o peak tools/bench/peak.c && ./peak
 *
 * Each variant keeps NACC independent vector accumulators (acc = acc * b + c, contracted to one
 * FMA each) so that several FMAs are in flight per cycle and the FMA latency is covered. Variants:
 * 32-byte vectors (v8f: one AVX/AVX2 ymm register) and 64-byte vectors (v16f: one AVX-512 zmm
 * register, or two ymm registers where AVX-512 is missing), with several accumulator counts; the
 * best is the peak. Output: one line per variant, then "peak: X GFLOP/s" (the line tools/bench
 * parses). FLOPs are counted as 2 per lane per FMA.
 * Needs FMA contraction: GCC's -std=c99 (ISO mode) implies -ffp-contract=off, so build it with
 * -std=gnu99 (the default) or -ffp-contract=fast. */
#define _POSIX_C_SOURCE 199309L
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#ifdef __AVX512F__
#define NATIVE_V16F 1
#else
#define NATIVE_V16F 0
#endif

typedef float v8f __attribute__((vector_size(32)));
typedef float v16f __attribute__((vector_size(64)));

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The loop body: NACC independent FMAs per iteration. b and c are run-time arguments of a
 * noinline function, so the compiler cannot fold them; the accumulators are summed and returned
 * so nothing is dead. */
#define DEFINE_KERNEL(NAME, VT, NACC)                                                   \
    static __attribute__((noinline)) float NAME(long iters, float bs, float cs) {       \
        VT acc[NACC], b, c;                                                             \
        for (int j = 0; j < (int)(sizeof(VT) / sizeof(float)); j++) {                   \
            b[j] = bs;                                                                  \
            c[j] = cs;                                                                  \
        }                                                                               \
        for (int a = 0; a < NACC; a++) acc[a] = c * (float)(a + 1);                     \
        for (long i = 0; i < iters; i++) {                                              \
            _Pragma("GCC unroll 64") for (int a = 0; a < NACC; a++) acc[a] = acc[a] * b + c; \
        }                                                                               \
        VT s = acc[0];                                                                  \
        for (int a = 1; a < NACC; a++) s += acc[a];                                     \
        float r = 0.0f;                                                                 \
        for (int j = 0; j < (int)(sizeof(VT) / sizeof(float)); j++) r += s[j];          \
        return r;                                                                       \
    }

DEFINE_KERNEL(k8x8, v8f, 8)
DEFINE_KERNEL(k8x10, v8f, 10)
DEFINE_KERNEL(k8x12, v8f, 12)
DEFINE_KERNEL(k8x14, v8f, 14)
DEFINE_KERNEL(k16x4, v16f, 4)
DEFINE_KERNEL(k16x6, v16f, 6)
DEFINE_KERNEL(k16x8, v16f, 8)
DEFINE_KERNEL(k16x12, v16f, 12)
DEFINE_KERNEL(k16x16, v16f, 16)

typedef struct {
    const char *name;
    float (*fn)(long, float, float);
    int lanes, nacc;
} Variant;

static const Variant VARIANTS[] = {
    {"v8f  x 8", k8x8, 8, 8},       {"v8f  x10", k8x10, 8, 10},   {"v8f  x12", k8x12, 8, 12},
    {"v8f  x14", k8x14, 8, 14},     {"v16f x 4", k16x4, 16, 4},   {"v16f x 6", k16x6, 16, 6},
    {"v16f x 8", k16x8, 16, 8},     {"v16f x12", k16x12, 16, 12}, {"v16f x16", k16x16, 16, 16},
};

int main(int argc, char **argv) {
    double min_seconds = argc > 1 ? atof(argv[1]) : 0.1; /* per measurement */
    double best = 0.0;
    const char *best_name = "";
    float sink = 0.0f;
    for (size_t v = 0; v < sizeof(VARIANTS) / sizeof(VARIANTS[0]); v++) {
        const Variant *V = &VARIANTS[v];
        long iters = 1000;
        double t = 0.0;
        /* Grow the iteration count until one call takes min_seconds, then keep the best of 3. */
        for (;;) {
            double t0 = now();
            sink += V->fn(iters, 0.9999999f, 1e-7f);
            t = now() - t0;
            if (t >= min_seconds) break;
            iters *= t > 1e-4 ? (long)(min_seconds / t * 1.2) + 1 : 10;
        }
        double bt = t;
        for (int r = 0; r < 2; r++) {
            double t0 = now();
            sink += V->fn(iters, 0.9999999f, 1e-7f);
            t = now() - t0;
            if (t < bt) bt = t;
        }
        double gflops = 2.0 * V->lanes * V->nacc * (double)iters / bt * 1e-9;
        printf("  %s accumulators: %7.1f GFLOP/s%s\n", V->name, gflops,
               V->lanes == 16 && !NATIVE_V16F ? "  (no AVX-512: emulated, not a peak)" : "");
        if (gflops > best) {
            best = gflops;
            best_name = V->name;
        }
    }
    printf("peak: %.1f GFLOP/s (fp32 FMA, 1 core, best variant %s; checksum %g)\n", best, best_name,
           (double)sink);
    return 0;
}
