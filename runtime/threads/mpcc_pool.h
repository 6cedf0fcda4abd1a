/* mpcc_pool.h - a tiny pthread pool implementing mpcc_parallel.
 *
 *   mpcc_pool *pool = mpcc_pool_create(2);        the caller + 1 worker thread
 *   mpcc_parallel par = mpcc_pool_parallel(pool);
 *   m_run_parallel(in, out, arena, &par);          any number of runs
 *   mpcc_pool_destroy(pool);
 *
 * Build: add runtime/threads/mpcc_pool.c and -pthread. One run at a time
 * per pool (runs on different pools may overlap). Workers spin briefly
 * between tasks (a model runs dozens of kernels back to back), then sleep. */
#ifndef MPCC_POOL_H
#define MPCC_POOL_H

#include "../mpcc_parallel.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct mpcc_pool mpcc_pool;

/* threads >= 1 (1: no worker threads). NULL when out of memory or a thread
 * cannot be created. */
mpcc_pool *mpcc_pool_create(int threads);
void mpcc_pool_destroy(mpcc_pool *pool);
mpcc_parallel mpcc_pool_parallel(mpcc_pool *pool);

#ifdef __cplusplus
}
#endif

#endif
