/* llm_shim.c - the entry points tools/bench/llm_bench.py calls through ctypes for a decoder with a
 * prefill and a decode signature (litert-torch's export; docs/llm-exports.md).
 *
 * Built like shim.c (the model compiled with --name m, -DMPCC_BENCH_HEADER='"m.h"'), plus
 * -DLLM_PREFILL=m_prefill_N_run -DLLM_DECODE=m_decode_run; with -DLLM_THREADS=N (N > 1, the model
 * compiled with --threads N) they name the signatures' _run_parallel entry points instead, run on a
 * runtime/threads/mpcc_pool of N threads made on first use. Each function runs its signature and
 * returns the per-thread CPU time it took in ns (CLOCK_THREAD_CPUTIME_ID: the machine is shared, so
 * wall time would count other processes), or -1 when a run failed. The caller passes the caches
 * as both inputs and outputs (the header's _IN_PLACE_OF_INPUT), so no step copies a cache. */
#define _POSIX_C_SOURCE 199309L /* clock_gettime under -std=c99 */
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include MPCC_BENCH_HEADER
#include "threads/mpcc_pool.h"

#define EXPORT __attribute__((visibility("default")))

#ifdef LLM_THREADS
/* The pool's parallel-for, made on first use and kept (NULL if it cannot be made). */
static const mpcc_parallel *llm_par(void) {
    static mpcc_pool *pool;
    static mpcc_parallel par;
    if (!pool) {
        pool = mpcc_pool_create(LLM_THREADS);
        if (!pool) return NULL;
        par = mpcc_pool_parallel(pool);
    }
    return &par;
}
#define PAR , llm_par()
#else
#define PAR
#endif

#ifdef M_WEIGHTS_BYTES
#define CALL(fn, in, out, arena, w) fn(in, out, arena, w PAR)
#else
#define CALL(fn, in, out, arena, w) ((void)(w), fn(in, out, arena PAR))
#endif

/* -DLLM_WALL (llm_bench.py --threads 2 and up): wall time instead, since the pool's threads work too. */
static int64_t thread_ns(void) {
    struct timespec ts;
#ifdef LLM_WALL
    clock_gettime(CLOCK_MONOTONIC, &ts);
#else
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
#endif
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

EXPORT size_t llm_arena_bytes(void) { return (size_t)M_ARENA_BYTES; }

EXPORT size_t llm_weights_bytes(void) {
#ifdef M_WEIGHTS_BYTES
    return (size_t)M_WEIGHTS_BYTES;
#else
    return 0;
#endif
}

EXPORT void llm_init(void *arena) { m_init(arena); }

/* One prefill run. */
EXPORT int64_t llm_prefill(const void *const *inputs, void *const *outputs, void *arena, const void *weights) {
    int64_t t0 = thread_ns();
    if (CALL(LLM_PREFILL, inputs, outputs, arena, weights)) return -1;
    return thread_ns() - t0;
}

/* n decode steps at positions *pos, *pos + 1, ... (pos is the decode input_pos buffer). */
EXPORT int64_t llm_decode(const void *const *inputs, void *const *outputs, void *arena, const void *weights,
                          int32_t *pos, long n) {
    int64_t t0 = thread_ns();
    long i;
    for (i = 0; i < n; i++, (*pos)++)
        if (CALL(LLM_DECODE, inputs, outputs, arena, weights)) return -1;
    return thread_ns() - t0;
}
