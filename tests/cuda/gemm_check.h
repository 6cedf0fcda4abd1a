/* Shared driver of the GEMM checks: random shapes for every mode, B layout and config,
 * compared against a double-precision scalar reference (f32 GEMMs: relative L2 error
 * ||C - ref|| / ||ref|| over the whole output) and a scalar TFLite requantization (int8:
 * bit-exact). Runs on a GPU (gemm_test.cu, nvcc) or on the CPU emulator
 * (gemm_emu_test.cpp, -DMPCC_CUDA_EMU): the host side only uses the CUDA runtime calls
 * the emulator provides. Include after mpcc_cuda.cuh, mpcc_cuda_gemm.cuh and gemm_kernels.inc. */
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

namespace gemm_check {

typedef void (*gk_t)(mpcc_gemm_args);
typedef void (*gk8_t)(mpcc_gemm_s8_args);
static const char *mode_name[4] = {"tf32", "3xtf32", "bf16", "f16"};
static const double tol[4] = {2e-3, 1e-6, 1e-2, 2e-3};
static gk_t kernels[4][2][2] = { /* [mode][nk][large] */
    {{mpcc_gemm_tf32_kn_small, mpcc_gemm_tf32_kn_large}, {mpcc_gemm_tf32_nk_small, mpcc_gemm_tf32_nk_large}},
    {{mpcc_gemm_x3tf32_kn_small, mpcc_gemm_x3tf32_kn_large}, {mpcc_gemm_x3tf32_nk_small, mpcc_gemm_x3tf32_nk_large}},
    {{mpcc_gemm_bf16_kn_small, mpcc_gemm_bf16_kn_large}, {mpcc_gemm_bf16_nk_small, mpcc_gemm_bf16_nk_large}},
    {{mpcc_gemm_f16_kn_small, mpcc_gemm_f16_kn_large}, {mpcc_gemm_f16_nk_small, mpcc_gemm_f16_nk_large}},
};

#define CK(x)                                                                                  \
    do {                                                                                       \
        cudaError_t e_ = (x);                                                                  \
        if (e_ != cudaSuccess) {                                                               \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorName(e_));  \
            exit(2);                                                                           \
        }                                                                                      \
    } while (0)

template <class T> static T *dev_copy(const std::vector<T> &h) {
    void *d = nullptr;
    size_t n = h.size() ? h.size() : 1;
    CK(cudaMalloc(&d, n * sizeof(T)));
    if (h.size()) CK(cudaMemcpy(d, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice));
    return (T *)d;
}

struct Case {
    int m, n, k, batch;
    bool nk, large;
    int bias, res, gelu, clamp1, clamp2;
    int b_half;          /* 16-bit modes only */
    int pad_a, pad_b;    /* extra leading-dimension elements (odd values force the scalar path) */
    int bcast_a, bcast_b; /* batch stride 0 */
};

/* Host-side 16-bit encodings of values that are exact in bf16 and f16 (i / 256, |i| <= 256):
 * b_half data is drawn from that set, so the nvcc build needs no device conversion helper. */
static uint16_t exact_bf16(float x) {
    uint32_t u;
    memcpy(&u, &x, 4);
    if (u & 0xffffu) { fprintf(stderr, "not exact in bf16\n"); exit(2); }
    return (uint16_t)(u >> 16);
}
static uint16_t exact_f16(float x) {
    uint32_t u;
    memcpy(&u, &x, 4);
    uint32_t sign = (u >> 16) & 0x8000u, a = u & 0x7fffffffu;
    if (!a) return (uint16_t)sign;
    int e = (int)(a >> 23) - 127 + 15;
    if (e < 1 || e > 30 || (a & 0x1fffu)) { fprintf(stderr, "not exact in f16\n"); exit(2); }
    return (uint16_t)(sign | (uint32_t)e << 10 | ((a >> 13) & 0x3ffu));
}

static double epi_ref(double s, const Case &cs, const mpcc_gemm_args &p, const std::vector<float> &bias,
                      const std::vector<float> &res, int z, int m, int n, int i, int j) {
    if (cs.bias) s += bias[j];
    s = std::fmin(std::fmax(s, (double)p.act1_min), (double)p.act1_max);
    if (cs.gelu == 1) s = 0.5 * s * (1.0 + std::tanh(0.7978845608028654 * (s + 0.044715 * s * s * s)));
    if (cs.gelu == 2) s = 0.5 * s * (1.0 + std::erf(s * 0.7071067811865476));
    if (cs.res) s += res[(size_t)z * m * n + (size_t)i * n + j];
    return std::fmin(std::fmax(s, (double)p.act2_min), (double)p.act2_max);
}

/* One f32 GEMM case for one mode; returns 1 if within tolerance. */
static int run_case(const Case &cs, int mode, std::mt19937 &rng) {
    std::uniform_real_distribution<float> U(-1.0f, 1.0f);
    const int m = cs.m, n = cs.n, k = cs.k, nb = cs.batch;
    const bool half = mode >= MPCC_MMA_BF16 && cs.b_half;
    const long long lda = k + cs.pad_a, ldb = (cs.nk ? k : n) + cs.pad_b, ldr = n, ldc = n;
    const long long sa = cs.bcast_a ? 0 : (long long)m * lda;
    const long long brows = cs.nk ? n : k;
    const long long sb = cs.bcast_b ? 0 : brows * ldb;
    const int na = cs.bcast_a ? 1 : nb, nbb = cs.bcast_b ? 1 : nb;
    std::vector<float> A((size_t)((na - 1) * sa) + (size_t)(m - 1) * lda + k);
    std::vector<float> Bf((size_t)((nbb - 1) * sb) + (size_t)(brows - 1) * ldb + (cs.nk ? k : n));
    std::vector<uint16_t> Bh;
    std::vector<float> bias(cs.bias ? n : 0), res(cs.res ? (size_t)nb * m * n : 0), C((size_t)nb * m * n);
    for (auto &v : A) v = U(rng);
    for (auto &v : Bf) v = U(rng);
    if (half) { /* B values exact in 16 bits: the reference sees what the kernel reads */
        std::uniform_int_distribution<int> Q(-256, 256);
        Bh.resize(Bf.size());
        for (size_t i = 0; i < Bf.size(); i++) {
            Bf[i] = (float)Q(rng) / 256.0f;
            Bh[i] = mode == MPCC_MMA_BF16 ? exact_bf16(Bf[i]) : exact_f16(Bf[i]);
        }
    }
    for (auto &v : bias) v = U(rng);
    for (auto &v : res) v = U(rng);
    const float inf = INFINITY;
    mpcc_gemm_args p;
    memset(&p, 0, sizeof p);
    float *dA = dev_copy(A), *dBf = half ? nullptr : dev_copy(Bf), *dbias = cs.bias ? dev_copy(bias) : nullptr;
    uint16_t *dBh = half ? dev_copy(Bh) : nullptr;
    float *dres = cs.res ? dev_copy(res) : nullptr;
    std::vector<float> Cinit(C.size(), NAN);
    float *dC = dev_copy(Cinit);
    p.a = dA; p.lda = lda; p.sa = sa;
    p.b = half ? (const void *)dBh : (const void *)dBf; p.ldb = ldb; p.sb = sb; p.b_half = half;
    p.bias = dbias; p.res = dres; p.ldr = ldr; p.sr = (long long)m * n;
    p.c = dC; p.ldc = ldc; p.sc = (long long)m * n;
    p.m = m; p.n = n; p.k = k;
    p.act1_min = cs.clamp1 ? -0.5f : -inf; p.act1_max = cs.clamp1 ? 0.75f : inf;
    p.gelu = cs.gelu;
    p.act2_min = cs.clamp2 ? -1.0f : -inf; p.act2_max = cs.clamp2 ? 1.25f : inf;
    gk_t kern = kernels[mode][cs.nk][cs.large];
    const int BM = cs.large ? 128 : 64, BN = cs.large ? 128 : 64, threads = cs.large ? 256 : 128;
    const int smem = cs.large ? mpcc_gemm_large<0, true>::smem_bytes : mpcc_gemm_small<0, true>::smem_bytes;
    CK(cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
    MPCC_LAUNCH(kern, dim3((n + BN - 1) / BN, (m + BM - 1) / BM, nb), dim3(threads), smem, 0, p);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(C.data(), dC, C.size() * sizeof(float), cudaMemcpyDeviceToHost));
    double num = 0, den = 0, num32 = 0; /* num32: a plain f32 loop (k order) against the same reference */
    int nonfinite = 0;
    for (int z = 0; z < nb; z++)
        for (int i = 0; i < m; i++)
            for (int j = 0; j < n; j++) {
                double s = 0, s32d;
                float s32 = 0.0f;
                for (int q = 0; q < k; q++) {
                    float a = A[(size_t)(z * sa + i * lda + q)];
                    float b = cs.nk ? Bf[(size_t)(z * sb + j * ldb + q)] : Bf[(size_t)(z * sb + q * ldb + j)];
                    s += (double)a * b;
                    s32 = std::fma(a, b, s32);
                }
                s32d = s32;
                s32d = epi_ref(s32d, cs, p, bias, res, z, m, n, i, j);
                s = epi_ref(s, cs, p, bias, res, z, m, n, i, j);
                double c = C[(size_t)z * m * n + (size_t)i * n + j];
                num32 += (s32d - s) * (s32d - s);
                if (!std::isfinite(c)) nonfinite++;
                num += (c - s) * (c - s);
                den += s * s;
            }
    double err = den > 0 ? std::sqrt(num / den) : std::sqrt(num);
    double err32 = den > 0 ? std::sqrt(num32 / den) : std::sqrt(num32);
    int ok = !nonfinite && err <= tol[mode];
    printf("%s %-6s m=%d n=%d k=%d batch=%d %s %s b_half=%d lda=%lld ldb=%lld sa=%lld sb=%lld bias=%d res=%d gelu=%d "
           "clamp=%d/%d: rel_l2=%.3e (tol %.0e; f32 loop %.1e)%s\n",
           ok ? "ok  " : "FAIL", mode_name[mode], m, n, k, nb, cs.nk ? "B_NK" : "B_KN", cs.large ? "large" : "small",
           (int)half, lda, ldb, sa, sb, cs.bias, cs.res, cs.gelu, cs.clamp1, cs.clamp2, err, tol[mode], err32,
           nonfinite ? " NONFINITE" : "");
    cudaFree(dA); cudaFree(dBf); cudaFree(dBh); cudaFree(dbias); cudaFree(dres); cudaFree(dC);
    return ok;
}

/* ---- int8: a scalar TFLite requantization written independently of the header ---- */
static int32_t ref_srdhm(int32_t a, int32_t b) {
    bool overflow = a == b && a == INT32_MIN;
    int64_t ab = (int64_t)a * (int64_t)b;
    int32_t nudge = ab >= 0 ? (1 << 30) : (1 - (1 << 30));
    int32_t hi = (int32_t)((ab + nudge) / (1ll << 31));
    return overflow ? INT32_MAX : hi;
}
static int32_t ref_rdbpot(int32_t x, int exponent) {
    int32_t mask = (int32_t)((1ll << exponent) - 1), zero = 0, one = 1;
    int32_t remainder = x & mask;
    int32_t threshold = (mask >> 1) + ((x < zero) ? one : zero);
    return (x >> exponent) + ((remainder > threshold) ? one : zero);
}
static int32_t ref_mbqm(int32_t x, int32_t qm, int shift) {
    int left = shift > 0 ? shift : 0, right = shift > 0 ? 0 : -shift;
    return ref_rdbpot(ref_srdhm((int32_t)((uint32_t)x << left), qm), right);
}

struct Case8 { int m, n, k, batch, large, pad_a, pad_b, bcast_b, bias, qmin, qmax; };

static int run_case8(const Case8 &cs, std::mt19937 &rng) {
    const int m = cs.m, n = cs.n, k = cs.k, nb = cs.batch;
    const long long lda = k + cs.pad_a, ldb = k + cs.pad_b, ldc = n;
    const long long sa = (long long)m * lda, sb = cs.bcast_b ? 0 : (long long)n * ldb;
    std::uniform_int_distribution<int> I8(-128, 127), Bi(-20000, 20000), Off(-10, 10);
    std::vector<int8_t> A((size_t)((nb - 1) * sa + (m - 1) * lda + k)),
        B((size_t)((cs.bcast_b ? 0 : (nb - 1) * sb) + (n - 1) * ldb + k)), C((size_t)nb * m * n);
    std::vector<int32_t> bias(cs.bias ? n : 0), mult(n), shift(n);
    for (auto &v : A) v = (int8_t)I8(rng);
    for (auto &v : B) v = (int8_t)I8(rng);
    for (auto &v : bias) v = Bi(rng);
    /* scale ~ 1 / (128 * 128 * sqrt(k) / 64): outputs spread over the int8 range; a few
     * channels with a left shift, so saturation and wrap-free clamping are exercised too */
    const int base = (int)std::ceil(std::log2(128.0 * 128.0 * std::sqrt((double)k) / 64.0));
    std::uniform_int_distribution<int> Mq(1 << 30, 2147483647), Sh(-base - 2, -base + 2);
    for (int j = 0; j < n; j++) {
        mult[j] = Mq(rng);
        shift[j] = j % 17 == 5 ? 1 : Sh(rng);
    }
    const int32_t off = Off(rng);
    std::vector<int8_t> Cinit(C.size(), (int8_t)0x5a);
    int8_t *dA = dev_copy(A), *dB = dev_copy(B), *dC = dev_copy(Cinit);
    int32_t *dbias = cs.bias ? dev_copy(bias) : nullptr, *dmult = dev_copy(mult), *dshift = dev_copy(shift);
    mpcc_gemm_s8_args p;
    memset(&p, 0, sizeof p);
    p.a = dA; p.lda = lda; p.sa = sa; p.b = dB; p.ldb = ldb; p.sb = sb;
    p.bias = dbias; p.mult = dmult; p.shift = dshift;
    p.c = dC; p.ldc = ldc; p.sc = (long long)m * n; p.m = m; p.n = n; p.k = k;
    p.out_offset = off; p.qmin = cs.qmin; p.qmax = cs.qmax;
    gk8_t kern = cs.large ? mpcc_gemm_s8_large : mpcc_gemm_s8_small;
    const int BM = cs.large ? 128 : 64, BN = BM, threads = cs.large ? 256 : 128;
    const int smem = cs.large ? mpcc_gemm_s8_cfg<MPCC_GEMM_S8_LARGE>::smem_bytes
                              : mpcc_gemm_s8_cfg<MPCC_GEMM_S8_SMALL>::smem_bytes;
    CK(cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
    MPCC_LAUNCH(kern, dim3((n + BN - 1) / BN, (m + BM - 1) / BM, nb), dim3(threads), smem, 0, p);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(C.data(), dC, C.size(), cudaMemcpyDeviceToHost));
    long bad = 0, sat = 0;
    for (int z = 0; z < nb; z++)
        for (int i = 0; i < m; i++)
            for (int j = 0; j < n; j++) {
                int32_t acc = cs.bias ? bias[j] : 0;
                for (int q = 0; q < k; q++)
                    acc += (int32_t)A[(size_t)(z * sa + i * lda + q)] * (int32_t)B[(size_t)(z * sb + j * ldb + q)];
                int32_t v = ref_mbqm(acc, mult[j], shift[j]) + off;
                if (v <= cs.qmin || v >= cs.qmax) sat++;
                v = v < cs.qmin ? cs.qmin : v > cs.qmax ? cs.qmax : v;
                if ((int8_t)v != C[(size_t)z * m * n + (size_t)i * n + j]) bad++;
            }
    int ok = bad == 0;
    printf("%s s8     m=%d n=%d k=%d batch=%d %s lda=%lld ldb=%lld sb=%lld bias=%d q=[%d,%d]: %ld mismatches "
           "(%ld of %d at the clamp)\n",
           ok ? "ok  " : "FAIL", m, n, k, nb, cs.large ? "large" : "small", lda, ldb, sb, cs.bias, cs.qmin, cs.qmax, bad,
           sat, nb * m * n);
    cudaFree(dA); cudaFree(dB); cudaFree(dC); cudaFree(dbias); cudaFree(dmult); cudaFree(dshift);
    return ok;
}

#ifdef MPCC_CUDA_EMU
/* Unit checks of the requantization helpers against the independent reference (the
 * helpers are host-callable only in the emulator build). */
static int check_requant(std::mt19937 &rng) {
    const int32_t edge[] = {0, 1, -1, 2, -2, 3, -3, 127, -128, 1 << 30, -(1 << 30), INT32_MAX, INT32_MIN, INT32_MIN + 1,
                            12345678, -12345678, 0x40000000, 0x3fffffff};
    long bad = 0, n = 0;
    std::uniform_int_distribution<int32_t> R(INT32_MIN, INT32_MAX);
    std::uniform_int_distribution<int> S(-31, 8);
    for (int32_t x : edge)
        for (int32_t q : edge)
            for (int s = -31; s <= 8; s++, n++) bad += mpcc_mul_by_qm(x, q, s) != ref_mbqm(x, q, s);
    for (int i = 0; i < 200000; i++, n++) {
        int32_t x = R(rng), q = R(rng);
        int s = S(rng);
        bad += mpcc_mul_by_qm(x, q, s) != ref_mbqm(x, q, s);
    }
    printf("%s requant helpers: %ld of %ld differ\n", bad ? "FAIL" : "ok  ", bad, n);
    return bad == 0;
}
#else
static int check_requant(std::mt19937 &) { return 1; }
#endif

static int run_all(unsigned seed, bool host_helpers) {
    std::mt19937 rng(seed);
    printf("seed %u\n", seed);
    /* m, n, k, batch, nk, large, bias, res, gelu, clamp1, clamp2, b_half, pad_a, pad_b, bcast_a, bcast_b */
    const Case cases[] = {
        {1, 10, 7, 1, true, false, 1, 0, 0, 1, 0, 1, 0, 0, 0, 0},      /* M=1, N=10, K=7: scalar paths */
        {37, 10, 7, 1, false, false, 0, 1, 0, 0, 1, 1, 0, 0, 0, 0},    /* M=37, B_KN, residual */
        {37, 130, 33, 1, true, true, 1, 1, 1, 0, 1, 0, 0, 0, 0, 0},    /* gelu tanh, two N tiles */
        {64, 96, 768, 1, true, true, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0},    /* K = 768, vector path */
        {64, 96, 768, 1, false, false, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},  /* K = 768, B_KN */
        {2, 3072, 16, 1, true, false, 1, 0, 2, 0, 0, 1, 0, 0, 0, 0},   /* N = 3072, gelu erf */
        {2, 3072, 16, 1, false, true, 1, 1, 0, 1, 1, 1, 0, 0, 0, 0},   /* N = 3072, B_KN, 16-bit B */
        {100, 72, 40, 2, false, false, 1, 1, 0, 0, 0, 1, 0, 0, 1, 0},  /* batch 2, A broadcast */
        {48, 64, 64, 2, true, true, 1, 0, 0, 1, 0, 0, 4, 0, 0, 1},     /* batch 2, B broadcast, lda padded */
        {33, 65, 20, 1, true, false, 0, 1, 0, 0, 0, 1, 3, 5, 0, 0},    /* odd lda / ldb: scalar path */
        {129, 257, 50, 1, false, true, 1, 0, 2, 1, 1, 1, 0, 4, 0, 0},  /* several tiles, ragged edges */
        {130, 200, 96, 2, false, true, 0, 1, 1, 0, 1, 0, 8, 8, 0, 0},  /* batch 2, padded, vector path */
        {256, 128, 64, 1, true, false, 1, 1, 0, 1, 1, 1, 0, 8, 0, 0},  /* full tiles, small config */
    };
    int pass = 0, fail = 0;
    if (host_helpers) (check_requant(rng) ? pass : fail)++;
    for (const Case &cs : cases)
        for (int mode = 0; mode < 4; mode++) (run_case(cs, mode, rng) ? pass : fail)++;
    /* m, n, k, batch, large, pad_a, pad_b, bcast_b, bias, qmin, qmax */
    const Case8 cases8[] = {
        {1, 10, 7, 1, 0, 0, 0, 0, 1, -128, 127},    {37, 10, 7, 1, 1, 0, 0, 0, 0, -128, 127},
        {64, 96, 768, 1, 1, 0, 0, 0, 1, -128, 127}, {37, 130, 100, 2, 0, 0, 0, 1, 1, -20, 100},
        {129, 200, 64, 1, 1, 16, 0, 0, 1, -128, 127}, {33, 65, 48, 2, 0, 3, 5, 0, 1, -128, 127},
        {2, 3072, 32, 1, 0, 0, 0, 0, 1, -128, 127},
    };
    for (const Case8 &cs : cases8) (run_case8(cs, rng) ? pass : fail)++;
    printf("%d passed, %d failed\n", pass, fail);
    return fail != 0;
}

} /* namespace gemm_check */
