/* mpcc_cuda_emu.h - run mpcc CUDA kernel source on the CPU, for tests on machines without a GPU.
 *
 * mpcc_cuda.cuh includes this file instead of its device implementation when a plain C++17
 * compiler builds with -DMPCC_CUDA_EMU; include the prelude, not this file. It supplies the
 * CUDA keywords and types the kernels use, the prelude's helpers, and a small CUDA runtime API
 * (memory, streams, graph capture) for the host code of generated model.cu files.
 *
 * Design:
 *  - MPCC_LAUNCH runs the blocks of a grid one after another on the calling OS thread. Each
 *    block's threads are cooperative fibers (ucontext) on stacks allocated once and reused
 *    (256 KiB each, guard page below). A fiber runs until it finishes or waits at a barrier.
 *  - Because blocks never overlap, a function-scope static is exactly one block's shared
 *    memory: __shared__ is `static`. Such memory starts as zeros (first block) or as the
 *    previous block's data, never as poison; only the dynamic buffer (MPCC_DYN_SMEM) is filled
 *    with 0xCD before every block, to catch reads before writes. For the same reason atomics
 *    are plain read-modify-writes: a fiber is never preempted.
 *  - Warp collectives (shuffles, reductions, ldmatrix, mma) are an exchange: every lane writes
 *    its operands to a per-warp slot and waits at a barrier of its warp's 32 lanes only; the
 *    lane then computes its own result from the gathered slots. Slots alternate between two
 *    buffers, so one barrier per collective suffices (a lane cannot come back to a buffer
 *    before every lane of its warp has left it). Warps are 32 consecutive linear thread ids
 *    (x + y*bx + z*bx*by), lane = linear id % 32, as on the hardware.
 *  - mma results are computed in float: each output is C plus the exact products of the
 *    decoded operands added in k order. The tensor cores round differently inside a k-step,
 *    so tests compare floats with a tolerance; the s8 mma is exact.
 *  - Capture: while a stream captures, launches and the Async memcpy/memset calls are recorded
 *    as closures and cudaGraphLaunch replays them. Kernel arguments are converted to the
 *    kernel's parameter types at launch, as CUDA does, so a replay sees the captured values.
 *
 * Limits (each violation prints a message and aborts - this is a test tool):
 *  - every lane of a warp must reach each collective (full-warp masks only, blocks with a
 *    multiple of 32 threads for collectives); every thread of a block must reach each
 *    __syncthreads (a thread that returns while others wait is barrier divergence);
 *  - cp.async copies at once (commit/wait are no-ops), so a missing wait is not caught;
 *  - kernels must name one function (MPCC_LAUNCH(k<4>, ...) is fine, a template that needs
 *    argument deduction is not); no launches from inside a kernel; one OS thread at a time.
 */
#ifndef MPCC_CUDA_EMU_H
#define MPCC_CUDA_EMU_H

#include <cmath>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <stdint.h>
#include <sys/mman.h>
#include <tuple>
#include <type_traits>
#include <ucontext.h>
#include <utility>
#include <vector>

#define __global__
#define __device__
#define __host__
#define __constant__
#define __forceinline__ inline
#define __launch_bounds__(...)
#define __align__(n) __attribute__((aligned(n)))
#define __shared__ static /* blocks run one at a time: see the header comment */
#define MPCC_DEV static inline

struct uint3 { unsigned x, y, z; };
struct dim3 {
    unsigned x, y, z;
    constexpr dim3(unsigned x_ = 1, unsigned y_ = 1, unsigned z_ = 1) : x(x_), y(y_), z(z_) {}
};
struct __align__(8) uint2 { unsigned x, y; };
struct __align__(16) uint4 { unsigned x, y, z, w; };
struct __align__(16) int4 { int x, y, z, w; };
struct __align__(8) float2 { float x, y; };
struct __align__(16) float4 { float x, y, z, w; };
static inline uint2 make_uint2(unsigned x, unsigned y) { return {x, y}; }
static inline uint4 make_uint4(unsigned x, unsigned y, unsigned z, unsigned w) { return {x, y, z, w}; }
static inline int4 make_int4(int x, int y, int z, int w) { return {x, y, z, w}; }
static inline float2 make_float2(float x, float y) { return {x, y}; }
static inline float4 make_float4(float x, float y, float z, float w) { return {x, y, z, w}; }

/* Updated by the scheduler on every fiber switch (threadIdx) and every block (blockIdx). */
inline uint3 threadIdx, blockIdx;
inline dim3 blockDim, gridDim;
constexpr int warpSize = 32;

/* Fast-math intrinsics as <cmath> calls. Macros, because glibc's math.h already declares
 * __expf and __logf as extern functions. */
#define __expf(x) ::expf(x)
#define __logf(x) ::logf(x)
#define __powf(x, y) ::powf((x), (y))
#define __sinf(x) ::sinf(x)
#define __cosf(x) ::cosf(x)
#define __fdividef(x, y) ((x) / (y))
#define __saturatef(x) ::mpcc_emu::saturate(x)
static inline float rsqrtf(float x) { return 1.0f / sqrtf(x); }
static inline int min(int a, int b) { return a < b ? a : b; }
static inline int max(int a, int b) { return a > b ? a : b; }
static inline unsigned min(unsigned a, unsigned b) { return a < b ? a : b; }
static inline unsigned max(unsigned a, unsigned b) { return a > b ? a : b; }
static inline float min(float a, float b) { return fminf(a, b); }
static inline float max(float a, float b) { return fmaxf(a, b); }
static inline unsigned __float_as_uint(float f) { unsigned u; memcpy(&u, &f, 4); return u; }
static inline float __uint_as_float(unsigned u) { float f; memcpy(&f, &u, 4); return f; }
static inline int __float_as_int(float f) { int i; memcpy(&i, &f, 4); return i; }
static inline float __int_as_float(int i) { float f; memcpy(&f, &i, 4); return f; }
template <class T> static inline T __ldg(const T *p) { return *p; }
/* Fibers are never preempted, so a plain read-modify-write is atomic. */
template <class T> static inline T atomicAdd(T *p, T v) { T old = *p; *p = old + v; return old; }
template <class T> static inline T atomicMax(T *p, T v) { T old = *p; *p = old > v ? old : v; return old; }

/* ---- CUDA runtime API types (the functions follow the scheduler) ---- */
enum cudaError_t {
    cudaSuccess = 0, cudaErrorInvalidValue = 1, cudaErrorMemoryAllocation = 2, cudaErrorIllegalState = 401,
    cudaErrorNotSupported = 801, cudaErrorStreamCaptureUnsupported = 900
};
enum cudaMemcpyKind { cudaMemcpyHostToHost, cudaMemcpyHostToDevice, cudaMemcpyDeviceToHost, cudaMemcpyDeviceToDevice, cudaMemcpyDefault };
enum cudaStreamCaptureMode { cudaStreamCaptureModeGlobal, cudaStreamCaptureModeThreadLocal, cudaStreamCaptureModeRelaxed };
enum cudaStreamCaptureStatus { cudaStreamCaptureStatusNone, cudaStreamCaptureStatusActive };
enum cudaFuncAttribute { cudaFuncAttributeMaxDynamicSharedMemorySize = 8, cudaFuncAttributePreferredSharedMemoryCarveout = 9 };
enum cudaDeviceAttr {
    cudaDevAttrMaxThreadsPerBlock = 1, cudaDevAttrMaxSharedMemoryPerBlock = 8, cudaDevAttrWarpSize = 10,
    cudaDevAttrMultiProcessorCount = 16, cudaDevAttrComputeCapabilityMajor = 75,
    cudaDevAttrComputeCapabilityMinor = 76, cudaDevAttrMaxSharedMemoryPerBlockOptin = 97
};
#define cudaStreamDefault 0x00
#define cudaStreamNonBlocking 0x01
struct CUgraph_st { std::vector<std::function<void()>> ops; };
struct CUgraphExec_st { std::vector<std::function<void()>> ops; };
struct CUstream_st { CUgraph_st *capture = nullptr; };
typedef CUstream_st *cudaStream_t;
typedef CUgraph_st *cudaGraph_t;
typedef CUgraphExec_st *cudaGraphExec_t;

namespace mpcc_emu {

enum { kMaxThreads = 1024, kMaxWarps = kMaxThreads / 32, kStackBytes = 256 << 10 };
enum { kSmemDefault = 48 << 10, kSmemOptin = 232448 };
enum TState : uint8_t { READY, BLOCK_WAIT, WARP_WAIT, DONE };
struct Slot { uint32_t u[6]; const void *p; };

struct State {
    ucontext_t sched;
    ucontext_t ctx[kMaxThreads]; /* fixed place: glibc's ucontext_t points into itself */
    char *stacks[kMaxThreads] = {};
    TState st[kMaxThreads];
    uint32_t gen[kMaxThreads]; /* per-thread count of collectives: picks the slot buffer */
    int n = 0, cur = -1, done = 0, bar_arrived = 0;
    int warp_arrived[kMaxWarps], warp_done[kMaxWarps];
    const char *kernel = nullptr;
    const std::function<void()> *body = nullptr;
    Slot slots[kMaxWarps][2][32];
    alignas(16) unsigned char dyn[kSmemOptin];
    std::map<const void *, int> max_dyn; /* cudaFuncSetAttribute(MaxDynamicSharedMemorySize) */
    int captures = 0;                    /* streams capturing now */
    cudaError_t last_error = cudaSuccess;
};
inline State &S() { static State s; return s; }

[[noreturn]] __attribute__((format(printf, 1, 2))) inline void fail(const char *fmt, ...) {
    State &s = S();
    fprintf(stderr, "mpcc_cuda_emu: ");
    if (s.kernel) fprintf(stderr, "kernel %s, block (%u,%u,%u): ", s.kernel, blockIdx.x, blockIdx.y, blockIdx.z);
    if (s.cur >= 0) fprintf(stderr, "thread (%u,%u,%u): ", threadIdx.x, threadIdx.y, threadIdx.z);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    abort();
}

inline float saturate(float x) { return x > 0.0f ? (x < 1.0f ? x : 1.0f) : 0.0f; /* NaN -> 0 */ }

inline void yield() { State &s = S(); swapcontext(&s.ctx[s.cur], &s.sched); }

inline void fiber_entry() {
    State &s = S();
    (*s.body)();
    int t = s.cur, w = t >> 5;
    s.st[t] = DONE;
    s.done++;
    s.warp_done[w]++;
    if (s.bar_arrived) fail("returned while %d threads wait at __syncthreads (barrier divergence)", s.bar_arrived);
    if (s.warp_arrived[w]) fail("returned while %d lanes of its warp wait in a warp collective", s.warp_arrived[w]);
    setcontext(&s.sched);
}

inline int cur_thread(const char *what) {
    int t = S().cur;
    if (t < 0) fail("%s called outside a kernel", what);
    return t;
}

inline void block_barrier() {
    State &s = S();
    int t = cur_thread("__syncthreads");
    if (s.done) fail("__syncthreads reached after %d threads of the block returned (barrier divergence)", s.done);
    if (++s.bar_arrived == s.n) { /* last to arrive releases the block and goes on */
        s.bar_arrived = 0;
        for (int i = 0; i < s.n; i++)
            if (s.st[i] == BLOCK_WAIT) s.st[i] = READY;
        return;
    }
    s.st[t] = BLOCK_WAIT;
    yield();
}

inline void warp_barrier() {
    State &s = S();
    int t = cur_thread("warp collective"), w = t >> 5;
    if (s.n < (w + 1) * 32) fail("warp collective in a partial warp (block of %d threads)", s.n);
    if (s.warp_done[w]) fail("warp collective reached after %d lanes of the warp returned", s.warp_done[w]);
    if (++s.warp_arrived[w] == 32) {
        s.warp_arrived[w] = 0;
        for (int i = w * 32; i < w * 32 + 32; i++)
            if (s.st[i] == WARP_WAIT) s.st[i] = READY;
        return;
    }
    s.st[t] = WARP_WAIT;
    yield();
}

/* Deposit this lane's slot, wait for the warp; the 32 slots stay valid until this lane's next
 * collective. */
inline const Slot *exchange(const Slot &mine) {
    State &s = S();
    int t = cur_thread("warp collective"), par = s.gen[t]++ & 1;
    s.slots[t >> 5][par][t & 31] = mine;
    warp_barrier();
    return s.slots[t >> 5][par];
}
inline int lane() { return S().cur & 31; }

inline void run_grid(const char *name, dim3 grid, dim3 block, size_t smem, const std::function<void()> &body) {
    State &s = S();
    int n = (int)(block.x * block.y * block.z);
    s.kernel = name;
    s.body = &body;
    s.n = n;
    gridDim = grid;
    blockDim = block;
    for (int t = 0; t < n; t++) {
        if (!s.stacks[t]) { /* stacks are mapped once and kept; the lowest page guards overflow */
            void *p = mmap(nullptr, kStackBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
            if (p == MAP_FAILED) fail("cannot map a %d-byte fiber stack", (int)kStackBytes);
            mprotect(p, 4096, PROT_NONE);
            s.stacks[t] = (char *)p;
            getcontext(&s.ctx[t]);
        }
        s.ctx[t].uc_stack.ss_sp = s.stacks[t];
        s.ctx[t].uc_stack.ss_size = kStackBytes;
        s.ctx[t].uc_link = &s.sched;
    }
    for (unsigned bz = 0; bz < grid.z; bz++)
        for (unsigned by = 0; by < grid.y; by++)
            for (unsigned bx = 0; bx < grid.x; bx++) {
                blockIdx = {bx, by, bz};
                memset(s.dyn, 0xCD, smem);
                s.done = s.bar_arrived = 0;
                memset(s.warp_arrived, 0, sizeof s.warp_arrived);
                memset(s.warp_done, 0, sizeof s.warp_done);
                for (int t = 0; t < n; t++) {
                    s.st[t] = READY;
                    s.gen[t] = 0;
                    makecontext(&s.ctx[t], fiber_entry, 0);
                }
                while (s.done < n) {
                    bool ran = false;
                    for (int t = 0; t < n; t++) {
                        if (s.st[t] != READY) continue;
                        ran = true;
                        s.cur = t;
                        threadIdx = {t % block.x, t / block.x % block.y, t / (block.x * block.y)};
                        swapcontext(&s.sched, &s.ctx[t]);
                        s.cur = -1;
                    }
                    if (!ran) fail("deadlock: some threads wait at __syncthreads, others in a warp collective");
                }
            }
    s.kernel = nullptr;
    s.body = nullptr;
}

inline cudaError_t set_error(cudaError_t e) {
    if (e != cudaSuccess) S().last_error = e;
    return e;
}

/* Run op now, or record it when the stream is capturing. The legacy stream 0 may not be used
 * while a capture is active (CUDA reports the same error). */
inline cudaError_t enqueue(cudaStream_t st, std::function<void()> op) {
    if (st && st->capture) st->capture->ops.push_back(std::move(op));
    else if (!st && S().captures) return set_error(cudaErrorStreamCaptureUnsupported);
    else op();
    return cudaSuccess;
}

template <class... P, class... A>
inline void launch(const char *name, void (*k)(P...), dim3 grid, dim3 block, size_t smem, cudaStream_t st, A &&...args) {
    State &s = S();
    if (s.cur >= 0) fail("launch of %s from inside a kernel is not emulated", name);
    unsigned long nt = (unsigned long)block.x * block.y * block.z;
    if (!nt || nt > kMaxThreads || block.z > 64 || !grid.x || !grid.y || !grid.z || grid.y > 65535 || grid.z > 65535)
        fail("kernel %s: invalid launch configuration grid (%u,%u,%u) block (%u,%u,%u)", name, grid.x, grid.y, grid.z,
             block.x, block.y, block.z);
    const void *key = reinterpret_cast<const void *>(k);
    int allowed = s.max_dyn.count(key) ? s.max_dyn[key] : (int)kSmemDefault;
    if (smem > (size_t)allowed)
        fail("kernel %s: %zu bytes of dynamic shared memory, over the limit of %d (above 48 KiB needs "
             "cudaFuncSetAttribute(cudaFuncAttributeMaxDynamicSharedMemorySize), at most %d)",
             name, smem, allowed, (int)kSmemOptin);
    std::tuple<std::decay_t<P>...> argv(std::forward<A>(args)...); /* converted now, as a CUDA launch does */
    std::function<void()> body = [k, argv]() { std::apply(k, argv); };
    if (enqueue(st, [=]() { run_grid(name, grid, block, smem, body); }))
        fail("kernel %s launched on the legacy stream 0 while a stream capture is active", name);
}

template <int BITS, int K> inline void gather(const Slot *all, uint32_t A[16][K], uint32_t B[K][8]) {
    constexpr int e = 32 / BITS; /* elements per register, lowest k in the low bits */
    constexpr uint32_t m = (uint32_t)((1ull << BITS) - 1);
    for (int L = 0; L < 32; L++) {
        int g = L >> 2, t = L & 3;
        for (int r = 0; r < 4; r++)
            for (int j = 0; j < e; j++) A[g + (r & 1) * 8][t * e + (r >> 1) * (K / 2) + j] = all[L].u[r] >> (j * BITS) & m;
        for (int r = 0; r < 2; r++)
            for (int j = 0; j < e; j++) B[t * e + r * (K / 2) + j][g] = all[L].u[4 + r] >> (j * BITS) & m;
    }
}
inline Slot mma_slot(const uint32_t a[4], const uint32_t b[2]) {
    Slot s{};
    memcpy(s.u, a, 16);
    memcpy(s.u + 4, b, 8);
    return s;
}
template <int BITS, int K, class Dec> inline void mma_float(float d[4], const uint32_t a[4], const uint32_t b[2], Dec dec) {
    const Slot *all = exchange(mma_slot(a, b));
    uint32_t A[16][K], B[K][8];
    gather<BITS, K>(all, A, B);
    int g = lane() >> 2, t = lane() & 3;
    for (int i = 0; i < 4; i++) {
        int row = g + (i >> 1) * 8, col = 2 * t + (i & 1);
        float acc = d[i];
        for (int k = 0; k < K; k++) acc += dec(A[row][k]) * dec(B[k][col]); /* products are exact */
        d[i] = acc;
    }
}
inline float half_to_float(uint32_t h) {
    int e = (h >> 10) & 31, m = h & 1023;
    float v = e == 31 ? (m ? NAN : INFINITY) : e ? ldexpf((float)(1024 + m), e - 25) : ldexpf((float)m, -24);
    return h & 0x8000 ? -v : v;
}
inline int8_t s8(uint32_t v) { return (int8_t)(uint8_t)v; }

template <class T> inline uint32_t to_bits(T v) {
    static_assert(sizeof(T) == 4, "shuffles of 32-bit values only");
    uint32_t u;
    memcpy(&u, &v, 4);
    return u;
}
template <class T> inline T from_bits(uint32_t u) {
    T v;
    memcpy(&v, &u, 4);
    return v;
}
enum ShflMode { SHFL_IDX, SHFL_XOR, SHFL_DOWN, SHFL_UP };
template <class T> inline T shfl(unsigned mask, T v, ShflMode mode, int arg, int width) {
    if (mask != 0xffffffffu) fail("shuffle with mask 0x%08x: only full-warp masks are emulated", mask);
    if (width < 1 || width > 32 || (width & (width - 1))) fail("shuffle width %d is not a power of 2 <= 32", width);
    Slot mine{};
    mine.u[0] = to_bits(v);
    const Slot *all = exchange(mine);
    int l = lane(), base = l & ~(width - 1), src = l;
    switch (mode) {
    case SHFL_IDX: src = base + (arg & (width - 1)); break;
    case SHFL_XOR: src = (l ^ arg) & 31; if (src >= base + width) src = l; break; /* later groups: own value */
    case SHFL_DOWN: src = l + arg < base + width ? l + arg : l; break;
    case SHFL_UP: src = l - arg >= base ? l - arg : l; break;
    }
    return from_bits<T>(all[src].u[0]);
}
template <class Op> inline float butterfly(float v, Op op) {
    /* One exchange, then every lane replays the whole butterfly: the same operations in the same
     * order as 5 shuffles (v = op(v, v of lane ^ m) for m = 16 .. 1), so the same bits. */
    Slot mine{};
    mine.u[0] = to_bits(v);
    const Slot *all = exchange(mine);
    float x[32], y[32];
    for (int i = 0; i < 32; i++) x[i] = from_bits<float>(all[i].u[0]);
    for (int m = 16; m > 0; m >>= 1) {
        for (int i = 0; i < 32; i++) y[i] = op(x[i], x[i ^ m]);
        memcpy(x, y, sizeof x);
    }
    return x[lane()];
}
inline void check_align16(const void *p, const char *what) {
    if ((uintptr_t)p & 15) fail("%s: address %p is not 16-byte aligned", what, p);
}

} /* namespace mpcc_emu */

#define MPCC_LAUNCH(kernel, grid, block, smem, ...) \
    ::mpcc_emu::launch(#kernel, kernel, dim3(grid), dim3(block), (size_t)(smem), __VA_ARGS__)
#define MPCC_DYN_SMEM(type, name) type *name = (type *)::mpcc_emu::S().dyn

static inline void __syncthreads(void) { mpcc_emu::block_barrier(); }
static inline void __syncwarp(unsigned mask = 0xffffffffu) {
    if (mask != 0xffffffffu) mpcc_emu::fail("__syncwarp(0x%08x): only full-warp masks are emulated", mask);
    mpcc_emu::exchange(mpcc_emu::Slot{});
}
template <class T> static inline T __shfl_sync(unsigned mask, T v, int src, int width = 32) { return mpcc_emu::shfl(mask, v, mpcc_emu::SHFL_IDX, src, width); }
template <class T> static inline T __shfl_xor_sync(unsigned mask, T v, int m, int width = 32) { return mpcc_emu::shfl(mask, v, mpcc_emu::SHFL_XOR, m, width); }
template <class T> static inline T __shfl_down_sync(unsigned mask, T v, unsigned d, int width = 32) { return mpcc_emu::shfl(mask, v, mpcc_emu::SHFL_DOWN, (int)d, width); }
template <class T> static inline T __shfl_up_sync(unsigned mask, T v, unsigned d, int width = 32) { return mpcc_emu::shfl(mask, v, mpcc_emu::SHFL_UP, (int)d, width); }

/* ---- the prelude's helpers ---- */
MPCC_DEV void mpcc_sync(void) { __syncthreads(); }
MPCC_DEV float mpcc_shfl_xor(float v, int mask) { return __shfl_xor_sync(0xffffffffu, v, mask); }
MPCC_DEV float mpcc_warp_sum(float v) { return mpcc_emu::butterfly(v, [](float a, float b) { return a + b; }); }
MPCC_DEV float mpcc_warp_max(float v) { return mpcc_emu::butterfly(v, [](float a, float b) { return fmaxf(a, b); }); }

MPCC_DEV void mpcc_cp_async16(void *smem, const void *gmem) {
    mpcc_emu::check_align16(smem, "cp.async shared");
    mpcc_emu::check_align16(gmem, "cp.async global");
    memcpy(smem, gmem, 16);
}
MPCC_DEV void mpcc_cp_async16_pred(void *smem, const void *gmem, int ok) {
    mpcc_emu::check_align16(smem, "cp.async shared");
    if (ok) mpcc_cp_async16(smem, gmem);
    else memset(smem, 0, 16);
}
MPCC_DEV void mpcc_cp_async_commit(void) {}
template <int N> MPCC_DEV void mpcc_cp_async_wait(void) {}

MPCC_DEV void mpcc_ldmatrix_x4(uint32_t r[4], const void *smem) {
    mpcc_emu::check_align16(smem, "ldmatrix row");
    mpcc_emu::Slot mine{};
    mine.p = smem;
    const mpcc_emu::Slot *all = mpcc_emu::exchange(mine);
    int l = mpcc_emu::lane();
    for (int i = 0; i < 4; i++) memcpy(&r[i], (const char *)all[i * 8 + l / 4].p + 4 * (l % 4), 4);
    /* On the hardware the warp reads all rows at once: no lane may store to shared memory before
     * every lane has read, so wait for the warp once more. */
    __syncwarp();
}
MPCC_DEV void mpcc_ldmatrix_x2_trans(uint32_t r[2], const void *smem) {
    int l = mpcc_emu::lane(); /* only lanes 0-15 give row addresses */
    if (l < 16) mpcc_emu::check_align16(smem, "ldmatrix row");
    mpcc_emu::Slot mine{};
    mine.p = smem;
    const mpcc_emu::Slot *all = mpcc_emu::exchange(mine);
    int g = l / 4, t = l % 4; /* transposed: this lane gets rows 2t, 2t+1 of column g */
    for (int i = 0; i < 2; i++) {
        uint16_t lo, hi;
        memcpy(&lo, (const char *)all[i * 8 + 2 * t].p + 2 * g, 2);
        memcpy(&hi, (const char *)all[i * 8 + 2 * t + 1].p + 2 * g, 2);
        r[i] = lo | (uint32_t)hi << 16;
    }
    __syncwarp();
}

MPCC_DEV void mpcc_mma_bf16(float d[4], const uint32_t a[4], const uint32_t b[2]) {
    mpcc_emu::mma_float<16, 16>(d, a, b, [](uint32_t v) { return __uint_as_float(v << 16); });
}
MPCC_DEV void mpcc_mma_f16(float d[4], const uint32_t a[4], const uint32_t b[2]) {
    mpcc_emu::mma_float<16, 16>(d, a, b, mpcc_emu::half_to_float);
}
MPCC_DEV void mpcc_mma_tf32(float d[4], const uint32_t a[4], const uint32_t b[2]) {
    /* the tensor cores read only the top 19 bits of a tf32 operand */
    mpcc_emu::mma_float<32, 8>(d, a, b, [](uint32_t v) { return __uint_as_float(v & 0xffffe000u); });
}
MPCC_DEV void mpcc_mma_s8(int32_t d[4], const uint32_t a[4], const uint32_t b[2]) {
    const mpcc_emu::Slot *all = mpcc_emu::exchange(mpcc_emu::mma_slot(a, b));
    uint32_t A[16][32], B[32][8];
    mpcc_emu::gather<8, 32>(all, A, B);
    int g = mpcc_emu::lane() >> 2, t = mpcc_emu::lane() & 3;
    for (int i = 0; i < 4; i++) {
        int row = g + (i >> 1) * 8, col = 2 * t + (i & 1);
        uint32_t acc = (uint32_t)d[i]; /* wraps like the hardware's s32 accumulator */
        for (int k = 0; k < 32; k++) acc += (uint32_t)(mpcc_emu::s8(A[row][k]) * mpcc_emu::s8(B[k][col]));
        d[i] = (int32_t)acc;
    }
}
MPCC_DEV int32_t mpcc_dp4a(int32_t a, int32_t b, int32_t c) {
    uint32_t acc = (uint32_t)c;
    for (int j = 0; j < 32; j += 8) acc += (uint32_t)(mpcc_emu::s8((uint32_t)a >> j) * mpcc_emu::s8((uint32_t)b >> j));
    return (int32_t)acc;
}
MPCC_DEV int __dp4a(int a, int b, int c) { return mpcc_dp4a(a, b, c); }
MPCC_DEV uint32_t mpcc_f2tf32(float x) {
    /* cvt.rna: to nearest, ties away from zero (add half an ulp of tf32 to the magnitude) */
    uint32_t u = __float_as_uint(x);
    if ((u & 0x7f800000u) == 0x7f800000u) return (u & 0x7fffffu) ? 0x7fffe000u : u; /* NaN stays NaN */
    return (u + 0x1000u) & 0xffffe000u;
}

/* ---- CUDA runtime API ---- */
static inline cudaError_t cudaMalloc(void **p, size_t n) {
    *p = nullptr;
    if (!n) return cudaSuccess;
    *p = aligned_alloc(256, (n + 255) & ~(size_t)255);
    if (!*p) return mpcc_emu::set_error(cudaErrorMemoryAllocation);
    memset(*p, 0xCD, n); /* device memory starts undefined: poison it */
    return cudaSuccess;
}
template <class T> static inline cudaError_t cudaMalloc(T **p, size_t n) { return cudaMalloc((void **)p, n); }
static inline cudaError_t cudaFree(void *p) { free(p); return cudaSuccess; }
static inline cudaError_t cudaMallocHost(void **p, size_t n) { return cudaMalloc(p, n); }
static inline cudaError_t cudaFreeHost(void *p) { free(p); return cudaSuccess; }
static inline cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t n, cudaMemcpyKind, cudaStream_t st = 0) {
    if (n && (!dst || !src)) return mpcc_emu::set_error(cudaErrorInvalidValue);
    return mpcc_emu::enqueue(st, [=]() { memcpy(dst, src, n); });
}
static inline cudaError_t cudaMemcpy(void *dst, const void *src, size_t n, cudaMemcpyKind k) { return cudaMemcpyAsync(dst, src, n, k, 0); }
static inline cudaError_t cudaMemsetAsync(void *dst, int v, size_t n, cudaStream_t st = 0) {
    if (n && !dst) return mpcc_emu::set_error(cudaErrorInvalidValue);
    return mpcc_emu::enqueue(st, [=]() { memset(dst, v, n); });
}
static inline cudaError_t cudaMemset(void *dst, int v, size_t n) { return cudaMemsetAsync(dst, v, n, 0); }

static inline cudaError_t cudaStreamCreate(cudaStream_t *st) { *st = new CUstream_st(); return cudaSuccess; }
static inline cudaError_t cudaStreamCreateWithFlags(cudaStream_t *st, unsigned) { return cudaStreamCreate(st); }
static inline cudaError_t cudaStreamDestroy(cudaStream_t st) {
    if (st && st->capture) return mpcc_emu::set_error(cudaErrorIllegalState);
    delete st;
    return cudaSuccess;
}
static inline cudaError_t cudaStreamSynchronize(cudaStream_t st) { /* work already ran */
    return mpcc_emu::set_error((st && st->capture) || (!st && mpcc_emu::S().captures) ? cudaErrorStreamCaptureUnsupported : cudaSuccess);
}
static inline cudaError_t cudaDeviceSynchronize(void) { return cudaStreamSynchronize(0); }
static inline cudaError_t cudaGetLastError(void) {
    cudaError_t e = mpcc_emu::S().last_error;
    mpcc_emu::S().last_error = cudaSuccess;
    return e;
}
static inline cudaError_t cudaPeekAtLastError(void) { return mpcc_emu::S().last_error; }
static inline const char *cudaGetErrorName(cudaError_t e) {
    switch (e) {
    case cudaSuccess: return "cudaSuccess";
    case cudaErrorInvalidValue: return "cudaErrorInvalidValue";
    case cudaErrorMemoryAllocation: return "cudaErrorMemoryAllocation";
    case cudaErrorIllegalState: return "cudaErrorIllegalState";
    case cudaErrorNotSupported: return "cudaErrorNotSupported";
    case cudaErrorStreamCaptureUnsupported: return "cudaErrorStreamCaptureUnsupported";
    }
    return "cudaErrorUnknown";
}
static inline const char *cudaGetErrorString(cudaError_t e) {
    switch (e) {
    case cudaSuccess: return "no error";
    case cudaErrorInvalidValue: return "invalid argument";
    case cudaErrorMemoryAllocation: return "out of memory";
    case cudaErrorIllegalState: return "the operation is not valid in the current state";
    case cudaErrorNotSupported: return "operation not supported";
    case cudaErrorStreamCaptureUnsupported: return "operation not permitted when stream is capturing";
    }
    return "unknown error";
}
static inline cudaError_t cudaFuncSetAttribute(const void *fn, cudaFuncAttribute attr, int v) {
    if (attr != cudaFuncAttributeMaxDynamicSharedMemorySize) return cudaSuccess; /* hints only */
    if (v < 0 || v > mpcc_emu::kSmemOptin) return mpcc_emu::set_error(cudaErrorInvalidValue);
    mpcc_emu::S().max_dyn[fn] = v;
    return cudaSuccess;
}
template <class T> static inline cudaError_t cudaFuncSetAttribute(T *fn, cudaFuncAttribute attr, int v) {
    return cudaFuncSetAttribute(reinterpret_cast<const void *>(fn), attr, v);
}
static inline cudaError_t cudaGetDeviceCount(int *n) { *n = 1; return cudaSuccess; }
static inline cudaError_t cudaGetDevice(int *d) { *d = 0; return cudaSuccess; }
static inline cudaError_t cudaSetDevice(int d) { return mpcc_emu::set_error(d ? cudaErrorInvalidValue : cudaSuccess); }
static inline cudaError_t cudaDeviceGetAttribute(int *v, cudaDeviceAttr attr, int dev) {
    if (dev) return mpcc_emu::set_error(cudaErrorInvalidValue);
    switch (attr) { /* an H100 (sm_90) */
    case cudaDevAttrMaxThreadsPerBlock: *v = 1024; break;
    case cudaDevAttrMaxSharedMemoryPerBlock: *v = mpcc_emu::kSmemDefault; break;
    case cudaDevAttrWarpSize: *v = 32; break;
    case cudaDevAttrMultiProcessorCount: *v = 132; break;
    case cudaDevAttrComputeCapabilityMajor: *v = 9; break;
    case cudaDevAttrComputeCapabilityMinor: *v = 0; break;
    case cudaDevAttrMaxSharedMemoryPerBlockOptin: *v = mpcc_emu::kSmemOptin; break;
    default: return mpcc_emu::set_error(cudaErrorInvalidValue);
    }
    return cudaSuccess;
}

static inline cudaError_t cudaStreamBeginCapture(cudaStream_t st, cudaStreamCaptureMode) {
    if (!st) return mpcc_emu::set_error(cudaErrorStreamCaptureUnsupported); /* the legacy stream cannot capture */
    if (st->capture) return mpcc_emu::set_error(cudaErrorIllegalState);
    st->capture = new CUgraph_st();
    mpcc_emu::S().captures++;
    return cudaSuccess;
}
static inline cudaError_t cudaStreamEndCapture(cudaStream_t st, cudaGraph_t *g) {
    if (!st || !st->capture) return mpcc_emu::set_error(cudaErrorIllegalState);
    *g = st->capture;
    st->capture = nullptr;
    mpcc_emu::S().captures--;
    return cudaSuccess;
}
static inline cudaError_t cudaStreamIsCapturing(cudaStream_t st, cudaStreamCaptureStatus *s) {
    *s = st && st->capture ? cudaStreamCaptureStatusActive : cudaStreamCaptureStatusNone;
    return cudaSuccess;
}
static inline cudaError_t cudaGraphInstantiate(cudaGraphExec_t *e, cudaGraph_t g, unsigned long long flags = 0) {
    if (!g || flags) return mpcc_emu::set_error(cudaErrorInvalidValue);
    *e = new CUgraphExec_st{g->ops};
    return cudaSuccess;
}
static inline cudaError_t cudaGraphLaunch(cudaGraphExec_t e, cudaStream_t st) {
    if (!e) return mpcc_emu::set_error(cudaErrorInvalidValue);
    return mpcc_emu::enqueue(st, [e]() {
        for (auto &op : e->ops) op();
    });
}
static inline cudaError_t cudaGraphExecDestroy(cudaGraphExec_t e) { delete e; return cudaSuccess; }
static inline cudaError_t cudaGraphDestroy(cudaGraph_t g) { delete g; return cudaSuccess; }

#endif
