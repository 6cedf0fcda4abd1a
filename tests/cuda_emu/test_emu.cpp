/* test_emu.cpp - the CUDA emulator (runtime/cuda/mpcc_cuda_emu.h) runs real kernel source on the CPU.
 *
 *   g++ -std=c++17 -O1 -DMPCC_CUDA_EMU -Iruntime/cuda tests/cuda_emu/test_emu.cpp -o build/test_emu && build/test_emu [seed]
 *
 * Each check compares a kernel's output with a scalar reference written from the documented
 * semantics (PTX fragment layouts, the shuffle butterfly), not from the emulator's code. The
 * misuse checks (barrier divergence, too much shared memory) run in a forked child, which must
 * abort with the expected message.
 */
#include "mpcc_cuda.cuh"

#include <csignal>
#include <ctime>
#include <random>
#include <string>
#include <sys/wait.h>
#include <unistd.h>

static int g_pass, g_fail;
static std::mt19937 g_rng;

#define CHECK(cond, ...)                                                            \
    do {                                                                            \
        if (cond) g_pass++;                                                         \
        else {                                                                      \
            g_fail++;                                                               \
            fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond);         \
            fprintf(stderr, __VA_ARGS__);                                           \
            fputc('\n', stderr);                                                    \
        }                                                                           \
    } while (0)

static float frand(float lo, float hi) { return std::uniform_real_distribution<float>(lo, hi)(g_rng); }
static int irand(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(g_rng); }
static uint32_t bits(float f) { return __float_as_uint(f); }

/* ---- block barrier: tree reduction in shared memory, 2D blocks, several blocks ---- */
__global__ void k_block_sum(const float *in, float *out) {
    __shared__ float buf[256];
    int tid = threadIdx.x + threadIdx.y * blockDim.x;
    int nt = blockDim.x * blockDim.y;
    buf[tid] = in[blockIdx.x * nt + tid];
    mpcc_sync();
    for (int s = nt / 2; s > 0; s >>= 1) {
        if (tid < s) buf[tid] += buf[tid + s];
        __syncthreads();
    }
    if (tid == 0) out[blockIdx.x] = buf[0];
}
static void test_block_barrier() {
    const int nb = 3, nt = 256;
    std::vector<float> in(nb * nt), out(nb);
    for (auto &v : in) v = frand(-1, 1);
    MPCC_LAUNCH(k_block_sum, nb, dim3(16, 16), 0, 0, in.data(), out.data());
    for (int b = 0; b < nb; b++) {
        float r[256];
        for (int i = 0; i < nt; i++) r[i] = in[b * nt + i];
        for (int s = nt / 2; s > 0; s >>= 1)
            for (int i = 0; i < s; i++) r[i] += r[i + s];
        CHECK(bits(out[b]) == bits(r[0]), "block %d: %.9g vs %.9g", b, out[b], r[0]);
    }
}

/* ---- threadIdx / blockIdx in a 3D block and a 7-block grid ---- */
__global__ void k_ids(int *out) {
    int lin = threadIdx.x + threadIdx.y * blockDim.x + threadIdx.z * blockDim.x * blockDim.y;
    int nt = blockDim.x * blockDim.y * blockDim.z;
    int *o = out + (blockIdx.x * nt + lin) * 4;
    o[0] = (int)blockIdx.x, o[1] = (int)gridDim.x, o[2] = lin;
    __syncthreads(); /* threadIdx must still be this thread's after a switch */
    o[3] = (int)(threadIdx.x + threadIdx.y * blockDim.x + threadIdx.z * blockDim.x * blockDim.y);
}
static void test_grid_ids() {
    const int nb = 7, nt = 4 * 3 * 2;
    std::vector<int> out(nb * nt * 4, -1);
    MPCC_LAUNCH(k_ids, dim3(nb), dim3(4, 3, 2), 0, 0, out.data());
    int bad = 0;
    for (int b = 0; b < nb; b++)
        for (int t = 0; t < nt; t++) {
            const int *o = &out[(b * nt + t) * 4];
            bad += o[0] != b || o[1] != nb || o[2] != t || o[3] != t;
        }
    CHECK(bad == 0, "%d wrong ids", bad);
}

/* ---- warp reductions and shuffles ---- */
__global__ void k_warp(const float *in, float *sum, float *mx, float *x5, int *idx, int *down) {
    int t = threadIdx.x;
    float v = in[t];
    sum[t] = mpcc_warp_sum(v);
    mx[t] = mpcc_warp_max(v);
    x5[t] = mpcc_shfl_xor(v, 5);
    idx[t] = __shfl_sync(0xffffffffu, t * 10, 7);
    down[t] = __shfl_down_sync(0xffffffffu, t, 3);
}
static void test_warp() {
    const int n = 64;
    std::vector<float> in(n), sum(n), mx(n), x5(n);
    std::vector<int> idx(n), down(n);
    for (auto &v : in) v = frand(-100, 100);
    in[37] = -0.0f;
    MPCC_LAUNCH(k_warp, 1, n, 0, 0, in.data(), sum.data(), mx.data(), x5.data(), idx.data(), down.data());
    int bad = 0;
    for (int w = 0; w < n / 32; w++) {
        float s[32], m[32];
        for (int l = 0; l < 32; l++) s[l] = m[l] = in[w * 32 + l];
        for (int k = 16; k > 0; k >>= 1) { /* what each lane computes with __shfl_xor_sync */
            float s2[32], m2[32];
            for (int l = 0; l < 32; l++) s2[l] = s[l] + s[l ^ k], m2[l] = fmaxf(m[l], m[l ^ k]);
            memcpy(s, s2, sizeof s), memcpy(m, m2, sizeof m);
        }
        for (int l = 0; l < 32; l++) {
            int t = w * 32 + l;
            bad += bits(sum[t]) != bits(s[l]) || bits(mx[t]) != bits(m[l]);
            bad += bits(x5[t]) != bits(in[w * 32 + (l ^ 5)]);
            bad += idx[t] != (w * 32 + 7) * 10;
            bad += down[t] != (l + 3 < 32 ? t + 3 : t);
        }
    }
    CHECK(bad == 0, "%d wrong warp results", bad);
}

/* ---- mma: one warp, fragments loaded by the documented layouts ---- */
enum Kind { BF16, F16, TF32 };
/* A is 16xK row-major, B is Kx8 (B[k][n] at B[k*8+n]); elements as their bit patterns */
template <int K> __global__ void k_mma(int kind, const uint32_t *A, const uint32_t *B, const float *C, float *D) {
    int lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
    uint32_t a[4], b[2];
    float d[4];
    if (kind == TF32) {
        a[0] = A[g * K + t], a[1] = A[(g + 8) * K + t], a[2] = A[g * K + t + 4], a[3] = A[(g + 8) * K + t + 4];
        b[0] = B[t * 8 + g], b[1] = B[(t + 4) * 8 + g];
    } else {
        auto pa = [&](int r, int c) { return A[r * K + c] | A[r * K + c + 1] << 16; };
        auto pb = [&](int r, int c) { return B[r * 8 + c] | B[(r + 1) * 8 + c] << 16; };
        a[0] = pa(g, 2 * t), a[1] = pa(g + 8, 2 * t), a[2] = pa(g, 2 * t + 8), a[3] = pa(g + 8, 2 * t + 8);
        b[0] = pb(2 * t, g), b[1] = pb(2 * t + 8, g);
    }
    for (int i = 0; i < 4; i++) d[i] = C[(g + (i / 2) * 8) * 8 + 2 * t + i % 2];
    if (kind == BF16) mpcc_mma_bf16(d, a, b);
    else if (kind == F16) mpcc_mma_f16(d, a, b);
    else mpcc_mma_tf32(d, a, b);
    for (int i = 0; i < 4; i++) D[(g + (i / 2) * 8) * 8 + 2 * t + i % 2] = d[i];
}
template <int K> static void test_mma(Kind kind, const char *name) {
    std::vector<uint32_t> A(16 * K), B(K * 8);
    std::vector<double> Ad(16 * K), Bd(K * 8);
    std::vector<float> C(128), D(128);
    auto enc = [&](float x, double &dec) -> uint32_t {
        if (kind == BF16) { uint16_t h = mpcc_f2bf(x); dec = mpcc_bf2f(h); return h; }
        if (kind == F16) { uint16_t h = mpcc_f2h(x); dec = mpcc_h2f(h); return h; }
        uint32_t u = mpcc_f2tf32(x); /* the low 13 bits of a tf32 operand are ignored: leave junk there */
        dec = __uint_as_float(u);
        return u | (uint32_t)irand(0, 0x1fff);
    };
    for (int i = 0; i < 16 * K; i++) A[i] = enc(frand(-2, 2), Ad[i]);
    for (int i = 0; i < K * 8; i++) B[i] = enc(frand(-2, 2), Bd[i]);
    for (auto &c : C) c = frand(-4, 4);
    MPCC_LAUNCH(k_mma<K>, 1, 32, 0, 0, (int)kind, A.data(), B.data(), C.data(), D.data());
    double worst = 0;
    for (int m = 0; m < 16; m++)
        for (int n = 0; n < 8; n++) {
            double ref = C[m * 8 + n];
            for (int k = 0; k < K; k++) ref += Ad[m * K + k] * Bd[k * 8 + n];
            worst = fmax(worst, fabs(D[m * 8 + n] - ref));
        }
    CHECK(worst < 1e-4, "%s: max |D - ref| = %g", name, worst);
}

__global__ void k_mma_s8(const int8_t *A, const int8_t *B, const int32_t *C, int32_t *D) {
    int lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
    auto pa = [&](int r, int c) { uint32_t v; memcpy(&v, &A[r * 32 + c], 4); return v; };
    auto pb = [&](int r, int c) {
        uint32_t v = 0;
        for (int j = 0; j < 4; j++) v |= (uint32_t)(uint8_t)B[(r + j) * 8 + c] << (8 * j);
        return v;
    };
    uint32_t a[4] = {pa(g, 4 * t), pa(g + 8, 4 * t), pa(g, 4 * t + 16), pa(g + 8, 4 * t + 16)};
    uint32_t b[2] = {pb(4 * t, g), pb(4 * t + 16, g)};
    int32_t d[4];
    for (int i = 0; i < 4; i++) d[i] = C[(g + (i / 2) * 8) * 8 + 2 * t + i % 2];
    mpcc_mma_s8(d, a, b);
    for (int i = 0; i < 4; i++) D[(g + (i / 2) * 8) * 8 + 2 * t + i % 2] = d[i];
}
static void test_mma_s8() {
    std::vector<int8_t> A(16 * 32), B(32 * 8);
    std::vector<int32_t> C(128), D(128);
    for (auto &v : A) v = (int8_t)irand(-128, 127);
    for (auto &v : B) v = (int8_t)irand(-128, 127);
    for (auto &v : C) v = irand(-100000, 100000);
    A[0] = B[0] = -128;
    MPCC_LAUNCH(k_mma_s8, 1, 32, 0, 0, A.data(), B.data(), C.data(), D.data());
    int bad = 0;
    for (int m = 0; m < 16; m++)
        for (int n = 0; n < 8; n++) {
            int32_t ref = C[m * 8 + n];
            for (int k = 0; k < 32; k++) ref += A[m * 32 + k] * B[k * 8 + n];
            bad += D[m * 8 + n] != ref;
        }
    CHECK(bad == 0, "mma_s8: %d wrong outputs", bad);
}

/* ---- ldmatrix: x4 over a 16x16 tile, x2.trans over a 16x8 tile ---- */
__global__ void k_ldmatrix(const uint16_t *in, uint32_t *x4, uint32_t *x2t) {
    __shared__ __align__(16) uint16_t tile[16 * 16];
    int lane = threadIdx.x;
    for (int i = lane; i < 256; i += 32) tile[i] = in[i];
    __syncthreads();
    /* x4: matrix i is the 8x8 quadrant (i%2 rows, i/2 cols), as an A fragment is loaded */
    int mi = lane / 8, r = lane % 8;
    uint32_t q[4];
    mpcc_ldmatrix_x4(q, &tile[((mi % 2) * 8 + r) * 16 + (mi / 2) * 8]);
    for (int i = 0; i < 4; i++) x4[lane * 4 + i] = q[i];
    /* x2.trans: rows 0..15 (8 columns wide) of the tile's left half; lanes 16-31 pass junk */
    uint32_t p[2];
    mpcc_ldmatrix_x2_trans(p, lane < 16 ? (const void *)&tile[lane * 16] : (const void *)&p);
    x2t[lane * 2] = p[0], x2t[lane * 2 + 1] = p[1];
}
static void test_ldmatrix() {
    std::vector<uint16_t> in(256);
    std::vector<uint32_t> x4(128), x2t(64);
    for (auto &v : in) v = (uint16_t)irand(0, 65535);
    MPCC_LAUNCH(k_ldmatrix, 1, 32, 0, 0, in.data(), x4.data(), x2t.data());
    int bad = 0;
    for (int lane = 0; lane < 32; lane++) {
        int g = lane / 4, t = lane % 4;
        for (int i = 0; i < 4; i++) { /* (row g, cols 2t, 2t+1) of matrix i */
            int r0 = (i % 2) * 8 + g, c0 = (i / 2) * 8 + 2 * t;
            bad += x4[lane * 4 + i] != (in[r0 * 16 + c0] | (uint32_t)in[r0 * 16 + c0 + 1] << 16);
        }
        for (int i = 0; i < 2; i++) { /* transposed: (rows 2t, 2t+1, col g) of matrix i */
            int r0 = i * 8 + 2 * t;
            bad += x2t[lane * 2 + i] != (in[r0 * 16 + g] | (uint32_t)in[(r0 + 1) * 16 + g] << 16);
        }
    }
    CHECK(bad == 0, "ldmatrix: %d wrong registers", bad);
}

/* ---- cp.async with zero fill, dynamic shared memory ---- */
__global__ void k_cp_async(const float *in, float *out, int n_ok, uint32_t *first) {
    MPCC_DYN_SMEM(float, sm);
    int t = threadIdx.x;
    first[t] = __float_as_uint(sm[t * 4]); /* unwritten dynamic shared memory: poison */
    __syncthreads();
    mpcc_cp_async16_pred(&sm[t * 4], &in[t * 4], t < n_ok);
    mpcc_cp_async_commit();
    mpcc_cp_async_wait<0>();
    __syncthreads();
    int o = (t + 1) % blockDim.x; /* read another thread's copy */
    for (int j = 0; j < 4; j++) out[o * 4 + j] = sm[o * 4 + j];
}
static void test_cp_async() {
    const int nt = 64, n_ok = 40;
    std::vector<float> in(nt * 4), out(nt * 4);
    std::vector<uint32_t> first(nt);
    for (auto &v : in) v = frand(1, 2);
    MPCC_LAUNCH(k_cp_async, 1, nt, nt * 16, 0, in.data(), out.data(), n_ok, first.data());
    int bad = 0;
    for (int i = 0; i < nt * 4; i++) bad += bits(out[i]) != (i / 4 < n_ok ? bits(in[i]) : 0u);
    for (int t = 0; t < nt; t++) bad += first[t] != 0xCDCDCDCDu;
    CHECK(bad == 0, "cp.async / dynamic smem: %d wrong", bad);
}

__global__ void k_big_smem(uint32_t *out) {
    MPCC_DYN_SMEM(uint4, sm);
    out[0] = (uint32_t)((uintptr_t)sm % 16);
    sm[100000 / 16 - 1] = make_uint4(1, 2, 3, 4);
    out[1] = sm[100000 / 16 - 1].w;
}
static void test_big_smem() {
    uint32_t out[2] = {99, 0};
    CHECK(cudaFuncSetAttribute(k_big_smem, cudaFuncAttributeMaxDynamicSharedMemorySize, 100000) == cudaSuccess, "attribute");
    MPCC_LAUNCH(k_big_smem, 1, 32, 100000, 0, out);
    CHECK(out[0] == 0 && out[1] == 4, "aligned %u, value %u", out[0], out[1]);
}

/* ---- scalar helpers ---- */
static void test_scalars() {
    CHECK(mpcc_f2tf32(__uint_as_float(0x3f801000u)) == 0x3f802000u, "tie rounds away from zero");
    CHECK(mpcc_f2tf32(__uint_as_float(0xbf801000u)) == 0xbf802000u, "negative tie rounds away");
    CHECK(mpcc_f2tf32(__uint_as_float(0x3f800fffu)) == 0x3f800000u, "below half rounds down");
    CHECK(mpcc_f2tf32(INFINITY) == bits(INFINITY), "inf stays inf");
    CHECK(std::isnan(__uint_as_float(mpcc_f2tf32(NAN))), "NaN stays NaN");
    int bad = 0;
    for (int i = 0; i < 1000; i++) {
        int a = (int)g_rng(), b = (int)g_rng(), c = irand(-1000000, 1000000), ref = c;
        for (int j = 0; j < 4; j++) ref += (int8_t)(a >> (8 * j)) * (int8_t)(b >> (8 * j));
        bad += mpcc_dp4a(a, b, c) != ref;
    }
    CHECK(bad == 0, "dp4a: %d wrong", bad);
}

/* ---- keywords and intrinsics in the style of generated kernels ---- */
__device__ __forceinline__ float sq(float x) { return x * x; }
__global__ void __launch_bounds__(128) k_style(const float *__restrict__ in, float *__restrict__ out, const int n,
                                               float *total) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = __ldg(&in[i]);
        out[i] = __expf(v) + __logf(sq(v) + 1.0f) + __fdividef(v, 2.0f) + rsqrtf(4.0f) + __saturatef(v) + max(0.0f, v) +
                 (float)min(i, 3);
        atomicAdd(total, 1.0f);
    }
}
static void test_style() {
    const int n = 300;
    std::vector<float> in(n), out(n);
    float total = 0;
    for (auto &v : in) v = frand(-2, 2);
    MPCC_LAUNCH(k_style, (n + 127) / 128, 128, 0, 0, in.data(), out.data(), n, &total);
    int bad = 0;
    for (int i = 0; i < n; i++) {
        float v = in[i], ref = expf(v) + logf(v * v + 1.0f) + v / 2.0f + 0.5f + fminf(fmaxf(v, 0.0f), 1.0f) +
                               fmaxf(0.0f, v) + (float)(i < 3 ? i : 3);
        bad += fabsf(out[i] - ref) > 1e-5f * fabsf(ref) + 1e-6f;
    }
    CHECK(bad == 0 && total == n, "%d wrong, total %g", bad, total);
}

/* ---- graph capture and replay ---- */
__global__ void k_inc(int *buf, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) buf[i] += 1;
}
static void test_graph() {
    const int n = 100;
    int *d = nullptr, host[n], start = 5;
    cudaStream_t st;
    cudaGraph_t g;
    cudaGraphExec_t ex;
    CHECK(cudaMalloc(&d, n * sizeof(int)) == cudaSuccess && (uintptr_t)d % 256 == 0, "cudaMalloc");
    CHECK(cudaStreamCreate(&st) == cudaSuccess, "stream");
    for (int i = 0; i < n; i++) host[i] = i;
    CHECK(cudaStreamBeginCapture(st, cudaStreamCaptureModeGlobal) == cudaSuccess, "begin capture");
    CHECK(cudaMemcpyAsync(d, host, sizeof host, cudaMemcpyHostToDevice, st) == cudaSuccess, "captured memcpy");
    MPCC_LAUNCH(k_inc, (n + 31) / 32, 32, 0, st, d, start); /* n is captured as 5 */
    start = n;
    CHECK(cudaMemcpy(host, d, 4, cudaMemcpyDeviceToHost) == cudaErrorStreamCaptureUnsupported, "legacy stream during capture");
    CHECK(cudaGetLastError() == cudaErrorStreamCaptureUnsupported && cudaGetLastError() == cudaSuccess, "last error");
    CHECK(cudaStreamEndCapture(st, &g) == cudaSuccess, "end capture");
    CHECK(cudaGraphInstantiate(&ex, g, 0) == cudaSuccess, "instantiate");
    CHECK(host[3] == 3 && host[99] == 99, "nothing ran during capture");
    for (int i = 0; i < n; i++) host[i] = 1000 + i; /* a graph memcpy reads its source at replay */
    CHECK(cudaGraphLaunch(ex, st) == cudaSuccess && cudaGraphLaunch(ex, st) == cudaSuccess, "launch");
    /* replay = copy host then +1 on the first 5: the second replay copies again */
    MPCC_LAUNCH(k_inc, (n + 31) / 32, 32, 0, st, d, start); /* outside capture: runs now */
    int out[n];
    CHECK(cudaStreamSynchronize(st) == cudaSuccess, "sync");
    CHECK(cudaMemcpy(out, d, sizeof out, cudaMemcpyDeviceToHost) == cudaSuccess, "copy back");
    int bad = 0;
    for (int i = 0; i < n; i++) bad += out[i] != 1000 + i + (i < 5 ? 2 : 1);
    CHECK(bad == 0, "graph replay: %d wrong (out[0] = %d)", bad, out[0]);
    /* twice without the copy: +2 */
    cudaGraph_t g2;
    cudaGraphExec_t ex2;
    cudaStreamBeginCapture(st, cudaStreamCaptureModeThreadLocal);
    MPCC_LAUNCH(k_inc, (n + 31) / 32, 32, 0, st, d, n);
    cudaStreamEndCapture(st, &g2);
    cudaGraphInstantiate(&ex2, g2);
    int before = out[50];
    cudaMemcpy(out, d, sizeof out, cudaMemcpyDeviceToHost);
    CHECK(out[50] == before, "captured launch did not run");
    cudaGraphLaunch(ex2, st), cudaGraphLaunch(ex2, st);
    cudaMemcpy(out, d, sizeof out, cudaMemcpyDeviceToHost);
    CHECK(out[50] == before + 2 && out[99] == 1000 + 99 + 3, "two replays: %d vs %d", out[50], before + 2);
    cudaGraphExecDestroy(ex), cudaGraphDestroy(g), cudaGraphExecDestroy(ex2), cudaGraphDestroy(g2);
    cudaStreamDestroy(st);
    cudaFree(d);
    int v = 0;
    CHECK(cudaDeviceGetAttribute(&v, cudaDevAttrMultiProcessorCount, 0) == cudaSuccess && v == 132, "SM count");
}

/* ---- misuse: the child must abort with the message ---- */
__global__ void k_diverge(int *) {
    if (threadIdx.x < 32) return;
    __syncthreads();
}
__global__ void k_diverge_late(int *) { /* here the waiting threads come first */
    if (threadIdx.x >= 32) return;
    __syncthreads();
}
__global__ void k_deadlock(float *out) { /* half a warp at the block barrier, half in a collective */
    if (threadIdx.x % 32 < 16) __syncthreads();
    else out[threadIdx.x] = mpcc_warp_sum(1.0f);
}
__global__ void k_warp_diverge(float *out) {
    if (threadIdx.x % 32 < 16) out[threadIdx.x] = mpcc_warp_sum(1.0f);
}
template <class F> static void expect_abort(const char *what, const char *msg, F f) {
    int fd[2];
    if (pipe(fd)) return;
    fflush(stderr);
    pid_t pid = fork();
    if (pid == 0) {
        dup2(fd[1], 2);
        f();
        _exit(0);
    }
    close(fd[1]);
    std::string err;
    char buf[512];
    ssize_t k;
    while ((k = read(fd[0], buf, sizeof buf)) > 0) err.append(buf, (size_t)k);
    close(fd[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT && err.find(msg) != std::string::npos,
          "%s: status %d, stderr: %s", what, status, err.c_str());
}
static void test_misuse() {
    static float out[64];
    expect_abort("barrier divergence", "barrier divergence", [] { MPCC_LAUNCH(k_diverge, 1, 64, 0, 0, nullptr); });
    expect_abort("barrier divergence, waiters first", "while 32 threads wait at __syncthreads",
                 [] { MPCC_LAUNCH(k_diverge_late, 1, 64, 0, 0, nullptr); });
    expect_abort("deadlock", "deadlock", [] { MPCC_LAUNCH(k_deadlock, 1, 64, 0, 0, out); });
    expect_abort("warp divergence", "lanes of its warp wait", [] { MPCC_LAUNCH(k_warp_diverge, 1, 32, 0, 0, out); });
    expect_abort("smem without attribute", "cudaFuncSetAttribute",
                 [] { MPCC_LAUNCH(k_cp_async, 1, 32, 60000, 0, nullptr, nullptr, 0, nullptr); });
    expect_abort("smem over the opt-in limit", "over the limit", [] { MPCC_LAUNCH(k_big_smem, 1, 32, 300000, 0, nullptr); });
}

int main(int argc, char **argv) {
    unsigned seed = argc > 1 ? (unsigned)strtoul(argv[1], nullptr, 0) : (unsigned)time(nullptr);
    printf("seed %u\n", seed);
    g_rng.seed(seed);
    test_block_barrier();
    test_grid_ids();
    test_warp();
    test_mma<16>(BF16, "mma_bf16");
    test_mma<16>(F16, "mma_f16");
    test_mma<8>(TF32, "mma_tf32");
    test_mma_s8();
    test_ldmatrix();
    test_cp_async();
    test_big_smem();
    test_scalars();
    test_style();
    test_graph();
    test_misuse();
    printf("%d passed, %d failed\n", g_pass, g_fail);
    return g_fail ? 1 : 0;
}
