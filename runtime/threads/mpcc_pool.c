/* mpcc_pool.c - see mpcc_pool.h. A job is one 64-bit word `job` (its number, its task count n and
 * the next unclaimed index): a task index is claimed by a compare-and-swap of that word, so a worker
 * still looking at a finished job (it woke late, or came back for one more index) can never claim an
 * index of the next one with the old job's count, nor read the next job's task and argument before
 * they are written (ThreadSanitizer found that race on the plain count of the old pool). The caller
 * works too, then waits until `done` reaches n. Workers spin for a while on `generation` (bumped per
 * job) before sleeping on the condition variable. */
#define _POSIX_C_SOURCE 200809L
#include "mpcc_pool.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

#define SPIN 200000

/* A spin-wait hint: on x86 `pause` lets the other hardware thread of the core run and keeps the loop
 * from flooding the memory pipeline; elsewhere nothing. */
#if defined(__x86_64__) || defined(__i386__)
#define SPIN_HINT() __builtin_ia32_pause()
#else
#define SPIN_HINT() ((void)0)
#endif

struct mpcc_pool {
    int threads;
    pthread_t *workers;
    pthread_mutex_t lock;
    pthread_cond_t wake;
    /* the current job: task and arg written before `job` publishes it */
    void (*task)(void *, int);
    void *arg;
    uint64_t job;               /* atomic: number (bits 40..63), n (20..39), next index (0..19) */
    int done;                   /* atomic */
    unsigned generation;        /* atomic: bumped per job (wakes the workers) */
    int stop;                   /* atomic */
};

#define JOB_FIELD 0xFFFFFu /* n and the next index: 20 bits each */

static void work(mpcc_pool *p) {
    for (;;) {
        uint64_t v = __atomic_load_n(&p->job, __ATOMIC_ACQUIRE);
        do {
            if ((v & JOB_FIELD) >= ((v >> 20) & JOB_FIELD)) return; /* every index claimed */
        } while (!__atomic_compare_exchange_n(&p->job, &v, v + 1, 1, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE));
        /* index v of the job still current: it cannot finish (nor task and arg change) before done counts it */
        p->task(p->arg, (int)(v & JOB_FIELD));
        __atomic_fetch_add(&p->done, 1, __ATOMIC_ACQ_REL);
    }
}

static void *worker(void *v) {
    mpcc_pool *p = v;
    unsigned seen = 0;
    for (;;) {
        unsigned g;
        long spin = 0;
        while ((g = __atomic_load_n(&p->generation, __ATOMIC_ACQUIRE)) == seen && !__atomic_load_n(&p->stop, __ATOMIC_ACQUIRE)) {
            if (++spin < SPIN) {
                SPIN_HINT();
                continue;
            }
            pthread_mutex_lock(&p->lock);
            while (__atomic_load_n(&p->generation, __ATOMIC_ACQUIRE) == seen && !__atomic_load_n(&p->stop, __ATOMIC_ACQUIRE))
                pthread_cond_wait(&p->wake, &p->lock);
            pthread_mutex_unlock(&p->lock);
        }
        if (__atomic_load_n(&p->stop, __ATOMIC_ACQUIRE)) return NULL;
        seen = g;
        work(p);
    }
}

static void pool_run(void *pool, void (*task)(void *, int), void *arg, int n) {
    mpcc_pool *p = pool;
    uint64_t number;
    if (p->threads <= 1 || n <= 1 || (unsigned)n > JOB_FIELD) { /* (over 2^20 tasks: on the caller) */
        int i;
        for (i = 0; i < n; i++) task(arg, i);
        return;
    }
    p->task = task;
    p->arg = arg;
    __atomic_store_n(&p->done, 0, __ATOMIC_RELEASE);
    number = (__atomic_load_n(&p->job, __ATOMIC_ACQUIRE) >> 40) + 1;
    __atomic_store_n(&p->job, (number << 40) | ((uint64_t)n << 20), __ATOMIC_RELEASE);
    pthread_mutex_lock(&p->lock);
    __atomic_fetch_add(&p->generation, 1, __ATOMIC_ACQ_REL);
    pthread_cond_broadcast(&p->wake);
    pthread_mutex_unlock(&p->lock);
    work(p);
    while (__atomic_load_n(&p->done, __ATOMIC_ACQUIRE) < n) SPIN_HINT();
}

mpcc_pool *mpcc_pool_create(int threads) {
    mpcc_pool *p = calloc(1, sizeof *p);
    int i;
    if (!p) return NULL;
    p->threads = threads < 1 ? 1 : threads;
    pthread_mutex_init(&p->lock, NULL);
    pthread_cond_init(&p->wake, NULL);
    p->workers = calloc((size_t)p->threads, sizeof(pthread_t));
    if (!p->workers) {
        free(p);
        return NULL;
    }
    for (i = 1; i < p->threads; i++)
        if (pthread_create(&p->workers[i], NULL, worker, p) != 0) {
            p->threads = i;
            mpcc_pool_destroy(p);
            return NULL;
        }
    return p;
}

void mpcc_pool_destroy(mpcc_pool *p) {
    int i;
    if (!p) return;
    pthread_mutex_lock(&p->lock);
    __atomic_store_n(&p->stop, 1, __ATOMIC_RELEASE);
    pthread_cond_broadcast(&p->wake);
    pthread_mutex_unlock(&p->lock);
    for (i = 1; i < p->threads; i++) pthread_join(p->workers[i], NULL);
    pthread_mutex_destroy(&p->lock);
    pthread_cond_destroy(&p->wake);
    free(p->workers);
    free(p);
}

mpcc_parallel mpcc_pool_parallel(mpcc_pool *pool) {
    mpcc_parallel par;
    par.run = pool_run;
    par.pool = pool;
    par.threads = pool ? pool->threads : 1;
    return par;
}
