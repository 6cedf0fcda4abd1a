/* gemm_bench.c - GEMM microbenchmark: GFLOP/s (and % of the fp32 FMA peak) of GEMM implementations
 * on a few shapes, single thread.
 *
 *   cc -O3 -march=native -Iruntime tools/bench/gemm_bench.c runtime/kernels/rt_*.c -lm -o gemm_bench
 *   ./gemm_bench [--peak GFLOPS] [--seconds S] [--shapes MxNxK,...] [--only SUBSTR]
 *
 * (`make bench` builds and runs it with the peak measured by peak.c.)
 *
 * Convention, for every implementation: C[M][N] = A[M][K] * B[N][K]^T, all row-major, i.e. B is in
 * the TFLite FULLY_CONNECTED / CONV_2D weight layout (one row of K weights per output channel);
 * M = rows of activations (tokens, or output pixels of a 1x1 conv), N = output channels, K = input
 * depth. B is a constant (weights): an implementation may repack it once in `pack` (untimed, as an
 * AOT compiler does it at compile time). f32: no bias, no clamp. int8: TFLite's int8 FULLY_CONNECTED,
 * C[m][n] = clamp(out_offset + requant(bias[n] + sum_k (A[m][k] + in_offset) * B[n][k]), -128, 127)
 * with one per-tensor multiplier/shift and TFLite's FC (single) rounding, weights zero point 0.
 * Every implementation's result is checked against the first row of its table (f32: max|diff| /
 * max|ref| < 1e-4; int8: exact); a wrong one is reported WRONG.
 *
 * To add an implementation: write an adapter with the `run` (and optional `pack`) signature below
 * and add one row to F32_IMPLS or S8_IMPLS (see "PLUG IN OPTIMIZED GEMMS HERE").
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mpcc_rt.h"

/* ---------------------------------------------------------------- implementation tables */

typedef struct {
    const char *name;
    /* Optional (NULL: B is used as is). Returns a malloc'ed packed copy of B[N][K]; untimed. */
    void *(*pack)(int N, int K, const float *B);
    void (*run)(int M, int N, int K, const float *A, const void *Bp, float *C);
} GemmF32;

/* One int8 problem: sizes and quantization (shared by all implementations). */
typedef struct {
    int M, N, K;
    int32_t in_offset, out_offset; /* -input zero point, +output zero point */
    int32_t mult, shift;           /* per-tensor requantization (TFLite QuantizeMultiplier form) */
    const int32_t *bias;           /* N entries */
} S8Problem;

typedef struct {
    const char *name;
    /* Optional (NULL: B is used as is). Returns ONE malloc'ed block (freed with free()); untimed. */
    void *(*pack)(const S8Problem *q, const int8_t *B);
    void (*run)(const S8Problem *q, const int8_t *A, const void *Bp, int8_t *C);
} GemmS8;

/* Baseline: the naive triple loop (dot product of a row of A with a row of B). */
static void naive_f32(int M, int N, int K, const float *A, const void *Bp, float *C) {
    const float *B = (const float *)Bp;
    for (int m = 0; m < M; m++)
        for (int n = 0; n < N; n++) {
            float acc = 0.0f;
            for (int k = 0; k < K; k++) acc += A[(size_t)m * K + k] * B[(size_t)n * K + k];
            C[(size_t)m * N + n] = acc;
        }
}

static void naive_s8(const S8Problem *q, const int8_t *A, const void *Bp, int8_t *C) {
    const int8_t *B = (const int8_t *)Bp;
    int M = q->M, N = q->N, K = q->K;
    for (int m = 0; m < M; m++)
        for (int n = 0; n < N; n++) {
            int32_t acc = q->bias[n];
            for (int k = 0; k < K; k++) acc += ((int32_t)A[(size_t)m * K + k] + q->in_offset) * B[(size_t)n * K + k];
            acc = rt_mul_by_quantized_multiplier_single(acc, q->mult, q->shift) + q->out_offset;
            C[(size_t)m * N + n] = (int8_t)(acc < -128 ? -128 : (acc > 127 ? 127 : acc));
        }
}

/* mpcc's FULLY_CONNECTED reference kernel as it runs in generated code today (no bias, no clamp). */
static void rt_fc_ref_f32(int M, int N, int K, const float *A, const void *Bp, float *C) {
    rt_fc_params p;
    memset(&p, 0, sizeof p);
    p.batches = M;
    p.in_depth = K;
    p.out_depth = N;
    p.act_min = -INFINITY;
    p.act_max = INFINITY;
    rt_fully_connected_f32(&p, A, (const float *)Bp, NULL, C);
}

static void rt_fc_ref_s8(const S8Problem *q, const int8_t *A, const void *Bp, int8_t *C) {
    rt_fc_params p;
    memset(&p, 0, sizeof p);
    p.batches = q->M;
    p.in_depth = q->K;
    p.out_depth = q->N;
    p.in_offset = q->in_offset;
    p.out_offset = q->out_offset;
    p.mult = &q->mult;
    p.shift = &q->shift;
    p.act_qmin = -128;
    p.act_qmax = 127;
    rt_fully_connected_i8(&p, A, (const int8_t *)Bp, q->bias, C);
}

/* The rt_opt adapters follow runtime/rt_opt.h; tools/bench/bench.py rebuilds with -DBENCH_NO_RT_OPT
 * (and says so) if they no longer compile against it. */
#if defined(__has_include) && !defined(BENCH_NO_RT_OPT)
#if __has_include("rt_opt.h")
#define HAVE_RT_OPT 1
#endif
#endif

#ifdef HAVE_RT_OPT
/* Adapters for the optimized runtime GEMMs (runtime/rt_opt.h). Packing follows the layouts
 * documented there (the compiler does the same at compile time in pass_schedule.c). */
#include "rt_opt.h"

typedef struct {
    float *b, *bias;
} OptF32Pack;

static void *opt_pack_f32(int N, int K, const float *B) {
    int np = (N + RT_OPT_NR - 1) / RT_OPT_NR;
    size_t nb = (size_t)np * K * RT_OPT_NR, off = (sizeof(OptF32Pack) + 63) / 64 * 64;
    char *blk = calloc(1, off + (nb + (size_t)np * RT_OPT_NR) * sizeof(float) + 64);
    OptF32Pack *pk = (OptF32Pack *)blk;
    pk->b = (float *)(blk + off);
    pk->bias = pk->b + nb; /* zeros (calloc) */
    for (int j = 0; j < np; j++)
        for (int k = 0; k < K; k++)
            for (int c = 0; c < RT_OPT_NR; c++) {
                int n = j * RT_OPT_NR + c;
                pk->b[((size_t)j * K + k) * RT_OPT_NR + c] = n < N ? B[(size_t)n * K + k] : 0.0f;
            }
    return blk;
}

static void opt_run_f32(int M, int N, int K, const float *A, const void *Bp, float *C) {
    const OptF32Pack *pk = (const OptF32Pack *)Bp;
    rt_opt_gemm_params p;
    memset(&p, 0, sizeof p);
    p.m = M, p.n = N, p.k = K, p.lda = K, p.ldc = N;
    p.act_min = -INFINITY, p.act_max = INFINITY;
    rt_opt_gemm_f32(&p, A, pk->b, pk->bias, C);
}

typedef struct {
    int8_t *b;
    int32_t *bias, *mult, *shift;
    uint8_t *scratch; /* `rows` converted rows of A (a + 128) */
    int32_t rows;
} OptS8Pack;

static void *opt_pack_s8(const S8Problem *q, const int8_t *B) {
    int N = q->N, K = q->K, np = (N + RT_OPT_NR - 1) / RT_OPT_NR, k4 = (K + 3) / 4 * 4;
    /* Row block like the scheduler's: ~64 KB of converted rows, a multiple of 8, at most M rounded up. */
    int rows = (65536 / k4) / 8 * 8, mmax = (q->M + 7) / 8 * 8;
    if (rows < 8) rows = 8;
    if (rows > mmax) rows = mmax;
    size_t nb = (size_t)np * k4 * RT_OPT_NR, npad = (size_t)np * RT_OPT_NR;
    size_t off = (sizeof(OptS8Pack) + 63) / 64 * 64, boff = off + (nb + 63) / 64 * 64;
    size_t soff = boff + (3 * npad * sizeof(int32_t) + 63) / 64 * 64;
    char *blk = calloc(1, soff + (size_t)rows * k4 + 64);
    OptS8Pack *pk = (OptS8Pack *)blk;
    pk->b = (int8_t *)(blk + off);
    pk->bias = (int32_t *)(blk + boff);
    pk->mult = pk->bias + npad;
    pk->shift = pk->mult + npad;
    pk->scratch = (uint8_t *)(blk + soff);
    pk->rows = rows;
    /* int8 weights, panel j: B[k][j*NR + c] at [j][k/4][c][k%4] (rt_opt.h) */
    for (int j = 0; j < np; j++)
        for (int k = 0; k < k4; k++)
            for (int c = 0; c < RT_OPT_NR; c++) {
                int n = j * RT_OPT_NR + c;
                pk->b[(size_t)j * k4 * RT_OPT_NR + (size_t)(k / 4) * RT_OPT_NR * 4 + c * 4 + k % 4] =
                    (int8_t)((n < N && k < K) ? B[(size_t)n * K + k] : 0);
            }
    /* bias'[n] = bias[n] + (in_offset - 128) * sum_k B[n][k]  (rt_opt.h), modulo 2^32 */
    for (size_t n = 0; n < npad; n++) {
        int64_t sum = 0;
        if ((int)n < N)
            for (int k = 0; k < K; k++) sum += B[n * K + k];
        uint32_t v = (uint32_t)((int)n < N ? q->bias[n] : 0);
        v += (uint32_t)((int64_t)(q->in_offset - 128) * sum);
        pk->bias[n] = (int32_t)v;
        pk->mult[n] = q->mult;
        pk->shift[n] = q->shift;
    }
    return blk;
}

static void opt_run_s8(const S8Problem *q, const int8_t *A, const void *Bp, int8_t *C) {
    const OptS8Pack *pk = (const OptS8Pack *)Bp;
    rt_opt_gemm_params p;
    memset(&p, 0, sizeof p);
    p.m = q->M, p.n = q->N, p.k = q->K, p.lda = q->K, p.ldc = q->N;
    p.out_offset = q->out_offset;
    p.act_qmin = -128, p.act_qmax = 127;
    p.rounding = RT_OPT_ROUND_SINGLE;
    p.mult = pk->mult, p.shift = pk->shift;
    p.rows = pk->rows;
    rt_opt_gemm_s8(&p, A, pk->b, pk->bias, C, pk->scratch, NULL);
}
#endif

/* ======================== PLUG IN OPTIMIZED GEMMS HERE ========================
 * Write an adapter from the table signature to the GEMM (and a `pack` adapter for its weight
 * layout: untimed) and add a row below; see the rt_opt_gemm_f32 / rt_opt_gemm_s8 adapters above.
 * All runtime sources are linked in (every .c in runtime/ and runtime/kernels/), so a new runtime
 * file is picked up without touching the build. The first row of each table is the reference for
 * the checks.
 * ============================================================================== */
static const GemmF32 F32_IMPLS[] = {
    {"naive", NULL, naive_f32},
    {"rt_fully_connected_f32 (ref)", NULL, rt_fc_ref_f32},
#ifdef HAVE_RT_OPT
    {"rt_opt_gemm_f32", opt_pack_f32, opt_run_f32},
#endif
    /* new f32 rows here */
};
static const GemmS8 S8_IMPLS[] = {
    {"naive", NULL, naive_s8},
    {"rt_fully_connected_i8 (ref)", NULL, rt_fc_ref_s8},
#ifdef HAVE_RT_OPT
    {"rt_opt_gemm_s8", opt_pack_s8, opt_run_s8},
#endif
    /* new int8 rows here */
};
/* ============================================================================== */

#define COUNT(a) ((int)(sizeof(a) / sizeof((a)[0])))

typedef struct {
    int M, N, K;
    const char *what;
} Shape;

static const Shape DEFAULT_SHAPES[] = {
    {512, 512, 512, "square"},
    {128, 768, 768, "BERT-base FC (seq 128)"},
    {128, 3072, 768, "BERT-base FFN up"},
    {3136, 64, 64, "1x1 conv 56x56x64->64"},
    {1, 1000, 1280, "GEMV: MobileNetV2 head"},
};

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static uint32_t rnd(void) {
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (uint32_t)(rng_state >> 32);
}

static void *xmalloc(size_t n) {
    void *p = NULL;
    if (posix_memalign(&p, 64, n ? n : 64) != 0) {
        fprintf(stderr, "gemm_bench: out of memory\n");
        exit(2);
    }
    return p;
}

/* Best time of one call over repeats totalling at least `seconds` (at least 2 calls). */
#define TIME_BEST(CALL, seconds, out_best)                      \
    do {                                                        \
        double t_total_ = 0.0, best_ = 1e30;                    \
        int n_ = 0;                                             \
        while (n_ < 2 || (t_total_ < (seconds) && n_ < 1000)) { \
            double t0_ = now();                                 \
            CALL;                                               \
            double t_ = now() - t0_;                            \
            if (t_ < best_) best_ = t_;                         \
            t_total_ += t_;                                     \
            n_++;                                               \
        }                                                       \
        (out_best) = best_;                                     \
    } while (0)

static void report(const char *dtype, const Shape *s, const char *name, double t, double peak, const char *check) {
    double flops = 2.0 * s->M * s->N * s->K;
    double g = flops / t * 1e-9;
    printf("  %-4s %5dx%-5dx%-5d %-30s %9.3f ms %8.2f %-7s", dtype, s->M, s->N, s->K, name, t * 1e3, g,
           dtype[0] == 'f' ? "GFLOP/s" : "GOP/s");
    if (peak > 0) printf(" %6.1f%%", 100.0 * g / peak);
    printf("  %s\n", check);
}

static void bench_shape(const Shape *s, double seconds, double peak, const char *only) {
    size_t M = (size_t)s->M, N = (size_t)s->N, K = (size_t)s->K;
    float *A = xmalloc(M * K * sizeof(float)), *B = xmalloc(N * K * sizeof(float));
    float *C = xmalloc(M * N * sizeof(float)), *Cref = xmalloc(M * N * sizeof(float));
    int8_t *A8 = xmalloc(M * K), *B8 = xmalloc(N * K);
    int8_t *C8 = xmalloc(M * N), *C8ref = xmalloc(M * N);
    int32_t *bias = xmalloc(N * sizeof(int32_t));
    for (size_t i = 0; i < M * K; i++) A[i] = (float)((int)(rnd() % 2001) - 1000) * 1e-3f;
    for (size_t i = 0; i < N * K; i++) B[i] = (float)((int)(rnd() % 2001) - 1000) * 1e-3f;
    for (size_t i = 0; i < M * K; i++) A8[i] = (int8_t)(rnd() & 0xff);
    for (size_t i = 0; i < N * K; i++) B8[i] = (int8_t)(rnd() & 0xff);
    for (size_t i = 0; i < N; i++) bias[i] = (int32_t)(rnd() % 20001) - 10000;
    /* Real scale so that the int8 outputs spread over the range: |acc| ~ sqrt(K) * 74 * 74. */
    S8Problem q = {s->M, s->N, s->K, 3, -5, 0, 0, bias};
    {
        int e;
        double f = frexp(40.0 / (sqrt((double)s->K) * 74.0 * 74.0), &e);
        int64_t m = (int64_t)llround(f * 2147483648.0);
        if (m == ((int64_t)1 << 31)) m /= 2, e++;
        q.mult = (int32_t)m;
        q.shift = e;
    }

    printf("  -- %s\n", s->what);
    for (int i = 0; i < COUNT(F32_IMPLS); i++) {
        const GemmF32 *g = &F32_IMPLS[i];
        if (only && i > 0 && !strstr(g->name, only)) continue;
        void *Bp = g->pack ? g->pack(s->N, s->K, B) : (void *)B;
        double t;
        memset(C, 0, M * N * sizeof(float));
        TIME_BEST(g->run(s->M, s->N, s->K, A, Bp, C), seconds, t);
        char check[96] = "(reference)";
        if (i == 0) {
            memcpy(Cref, C, M * N * sizeof(float));
        } else {
            double maxerr = 0.0, maxref = 1e-30;
            for (size_t j = 0; j < M * N; j++) {
                double e = fabs((double)C[j] - (double)Cref[j]);
                if (!(e <= maxerr)) maxerr = e; /* NaN-safe */
                if (fabs((double)Cref[j]) > maxref) maxref = fabs((double)Cref[j]);
            }
            double rel = maxerr / maxref;
            snprintf(check, sizeof check, rel < 1e-4 ? "ok (rel err %.1e)" : "WRONG (rel err %.1e)", rel);
        }
        report("f32", s, g->name, t, peak, check);
        if (g->pack) free(Bp);
    }
    for (int i = 0; i < COUNT(S8_IMPLS); i++) {
        const GemmS8 *g = &S8_IMPLS[i];
        if (only && i > 0 && !strstr(g->name, only)) continue;
        void *Bp = g->pack ? g->pack(&q, B8) : (void *)B8;
        double t;
        memset(C8, 0, M * N);
        TIME_BEST(g->run(&q, A8, Bp, C8), seconds, t);
        char check[96] = "(reference)";
        if (i == 0) {
            memcpy(C8ref, C8, M * N);
        } else {
            size_t bad = 0;
            for (size_t j = 0; j < M * N; j++) bad += C8[j] != C8ref[j];
            if (bad)
                snprintf(check, sizeof check, "WRONG (%zu of %zu differ)", bad, M * N);
            else
                snprintf(check, sizeof check, "ok (exact)");
        }
        report("s8", s, g->name, t, peak, check);
        if (g->pack) free(Bp);
    }
    free(A), free(B), free(C), free(Cref), free(A8), free(B8), free(C8), free(C8ref), free(bias);
}

int main(int argc, char **argv) {
    double peak = 0.0, seconds = 0.2;
    const char *shapes = NULL, *only = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--peak") && i + 1 < argc)
            peak = atof(argv[++i]);
        else if (!strcmp(argv[i], "--seconds") && i + 1 < argc)
            seconds = atof(argv[++i]);
        else if (!strcmp(argv[i], "--shapes") && i + 1 < argc)
            shapes = argv[++i];
        else if (!strcmp(argv[i], "--only") && i + 1 < argc)
            only = argv[++i];
        else {
            fprintf(stderr,
                    "usage: gemm_bench [--peak GFLOPS] [--seconds S] [--shapes MxNxK,...] [--only NAME-SUBSTR]\n");
            return 1;
        }
    }
    printf("GEMM C[M,N] = A[M,K] * B[N,K]^T, 1 thread, best of repeats (>= %.2f s each)%s\n", seconds,
           peak > 0 ? "; % of the fp32 FMA peak (int8: ops counted like FLOPs, for scale)" : "");
#ifdef HAVE_RT_OPT
    printf("rt_opt kernels compiled for: %s\n", rt_opt_isa());
#endif
    if (shapes) {
        char *copy = strdup(shapes), *save = NULL;
        for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
            Shape s = {0, 0, 0, tok};
            if (sscanf(tok, "%dx%dx%d", &s.M, &s.N, &s.K) != 3 || s.M <= 0 || s.N <= 0 || s.K <= 0) {
                fprintf(stderr, "gemm_bench: bad shape '%s' (want MxNxK)\n", tok);
                return 1;
            }
            bench_shape(&s, seconds, peak, only);
        }
        free(copy);
    } else {
        for (int i = 0; i < COUNT(DEFAULT_SHAPES); i++) bench_shape(&DEFAULT_SHAPES[i], seconds, peak, only);
    }
    return 0;
}
