/* shim.c - the few exported entry points tools/bench/bench.py calls through ctypes.
 *
 * Compiled once per benchmarked model with -I<dir of the generated header> -DMPCC_BENCH_HEADER='"m.h"'
 * (the model is compiled with --name m). Everything else in the shared library is built with
 * -fvisibility=hidden, so calls between the generated code and the runtime kernels bind directly
 * (no PLT, inlining allowed) as in a static executable; only these functions are exported. */
#define _POSIX_C_SOURCE 199309L /* clock_gettime under -std=c99 */
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include MPCC_BENCH_HEADER
#include "threads/mpcc_pool.h"

#define EXPORT __attribute__((visibility("default")))

EXPORT size_t bench_arena_bytes(void) { return (size_t)M_ARENA_BYTES; }

EXPORT size_t bench_weights_bytes(void) {
#ifdef M_WEIGHTS_BYTES
    return (size_t)M_WEIGHTS_BYTES;
#else
    return 0;
#endif
}

EXPORT void bench_init(void *arena) { m_init(arena); }

/* Runs the model n times back to back; returns the OR of the m_run status codes. */
EXPORT int bench_run_n(const void *const *inputs, void *const *outputs, void *arena, const void *weights, long n) {
    int rc = 0;
    long i;
#ifndef M_WEIGHTS_BYTES
    (void)weights;
#endif
    for (i = 0; i < n; i++) {
#ifdef M_WEIGHTS_BYTES
        rc |= m_run(inputs, outputs, arena, weights);
#else
        rc |= m_run(inputs, outputs, arena);
#endif
    }
    return rc;
}

/* The same with PREFIX_run_parallel on a pool of `threads` (created on first use, kept). */
EXPORT int bench_run_parallel_n(const void *const *inputs, void *const *outputs, void *arena, const void *weights,
                                long n, int threads) {
    static mpcc_pool *pool;
    static int pool_threads;
    mpcc_parallel par;
    int rc = 0;
    long i;
#ifndef M_WEIGHTS_BYTES
    (void)weights;
#endif
    if (!pool || pool_threads != threads) {
        mpcc_pool_destroy(pool);
        pool = mpcc_pool_create(threads);
        pool_threads = threads;
        if (!pool) return -1;
    }
    par = mpcc_pool_parallel(pool);
    for (i = 0; i < n; i++) {
#ifdef M_WEIGHTS_BYTES
        rc |= m_run_parallel(inputs, outputs, arena, weights, &par);
#else
        rc |= m_run_parallel(inputs, outputs, arena, &par);
#endif
    }
    return rc;
}

/* A model compiled with --profile (tools/bench/profile.py): its per-op tick counts, the clock in ns. */
#ifdef M_PROFILE_OPS
static uint64_t bench_clock_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}
EXPORT int bench_profile_ops(void) { return M_PROFILE_OPS; }
EXPORT void bench_profile_start(void *arena) { m_profile_start(arena, bench_clock_ns); }
EXPORT const uint64_t *bench_profile(const void *arena) { return m_profile(arena); }
EXPORT uint64_t bench_profile_runs(const void *arena) { return m_profile_runs(arena); }
EXPORT const char *bench_profile_op(int k) { return m_profile_op(k); }
#endif
