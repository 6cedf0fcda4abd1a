/* mpcc_parallel.h - the parallel-for a caller may hand to PREFIX_run_parallel.
 *
 * Generated code is single-threaded and dependency-free unless asked: the
 * big kernels (convolution, fully connected, depthwise, attention) split
 * their work into `threads` tasks and call `run` once per kernel; `run` must
 * call task(arg, i) for every i in [0, n) (in any order, on any threads) and
 * return when all have finished. A NULL mpcc_parallel, or threads <= 1, runs
 * everything on the calling thread. runtime/threads/mpcc_pool.h is a small
 * pthread implementation; an app with its own pool (OpenMP, a job system)
 * fills the struct with that instead. This header is repeated, guarded, in
 * every generated model header. */
#ifndef MPCC_PARALLEL_DEFINED
#define MPCC_PARALLEL_DEFINED
typedef struct mpcc_parallel {
    void (*run)(void *pool, void (*task)(void *arg, int index), void *arg, int n);
    void *pool;
    int threads;
} mpcc_parallel;
#endif
