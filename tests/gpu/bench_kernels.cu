/* bench_kernels.cu - times mpcc's CUDA GEMM (fused bias + GELU epilogue) and flash attention on
 * the GPU (tests/gpu/run.sh; needs a device). Prints one line per case:
 *   gemm MODE M N K ms TFLOPs        attn MODE B H S D causal ms TFLOPs
 * Inputs are random (seed 1); medians of 20 timed runs after 3 warm-ups (cudaEvent). */
#include "mpcc_cuda_gemm.cuh"
#include "mpcc_cuda_attention.cuh"
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <algorithm>
#include <vector>

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e_)); exit(1); } } while (0)

template <int MODE> __global__ void __launch_bounds__(256) gemm_large(mpcc_gemm_args p) { mpcc_gemm_body<MODE, true, MPCC_GEMM_LARGE>(p); }
template <int MODE, int D> __global__ void attn(mpcc_attn_args p) { mpcc_attn_body<MODE, D>(p); }

static float *rnd(size_t n) {
    std::vector<float> h(n);
    for (size_t i = 0; i < n; i++) h[i] = (float)rand() / RAND_MAX - 0.5f;
    float *d;
    CK(cudaMalloc(&d, n * sizeof(float)));
    CK(cudaMemcpy(d, h.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    return d;
}

template <class F> static float median_ms(F launch) {
    cudaEvent_t a, b;
    CK(cudaEventCreate(&a)); CK(cudaEventCreate(&b));
    for (int i = 0; i < 3; i++) launch();
    std::vector<float> t;
    for (int i = 0; i < 20; i++) {
        CK(cudaEventRecord(a)); launch(); CK(cudaEventRecord(b)); CK(cudaEventSynchronize(b));
        float ms; CK(cudaEventElapsedTime(&ms, a, b)); t.push_back(ms);
    }
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
}

template <int MODE> static void gemm(const char *name, int m, int n, int k) {
    typedef mpcc_gemm_cfg<MODE, true, MPCC_GEMM_LARGE> cfg;
    mpcc_gemm_args p = {};
    p.a = rnd((size_t)m * k); p.lda = k; p.b = rnd((size_t)n * k); p.ldb = k; p.bias = rnd(n);
    CK(cudaMalloc(&p.c, (size_t)m * n * 4)); p.ldc = n; p.m = m; p.n = n; p.k = k;
    p.act1_min = -INFINITY; p.act1_max = INFINITY; p.gelu = 2; p.act2_min = -INFINITY; p.act2_max = INFINITY;
    CK(cudaFuncSetAttribute(gemm_large<MODE>, cudaFuncAttributeMaxDynamicSharedMemorySize, cfg::smem_bytes));
    dim3 grid((n + 127) / 128, (m + 127) / 128, 1);
    float ms = median_ms([&] { gemm_large<MODE><<<grid, cfg::threads, cfg::smem_bytes>>>(p); });
    CK(cudaGetLastError());
    printf("gemm %s %d %d %d %.4f %.1f\n", name, m, n, k, ms, 2.0 * m * n * k / ms / 1e9);
}

template <int MODE, int D> static void attention(const char *name, int b, int h, int s, int causal) {
    typedef mpcc_attn_cfg<MODE, D> cfg;
    mpcc_attn_args p = {};
    size_t n = (size_t)b * h * s * D;
    p.q = rnd(n); p.k = rnd(n); p.v = rnd(n); CK(cudaMalloc(&p.o, n * 4));
    p.batch = b; p.heads = h; p.seq_q = p.seq_k = s;
    p.q_sb = p.k_sb = p.v_sb = p.o_sb = (long long)h * s * D;
    p.q_sh = p.k_sh = p.v_sh = p.o_sh = (long long)s * D;
    p.q_ss = p.k_ss = p.v_ss = p.o_ss = D;
    p.scale = 0.125f; p.causal = causal;
    dim3 grid((s + cfg::block_m - 1) / cfg::block_m, h, b);
    float ms = median_ms([&] { attn<MODE, D><<<grid, cfg::threads, cfg::smem_bytes>>>(p); });
    CK(cudaGetLastError());
    double flops = 4.0 * b * h * (double)s * s * D * (causal ? 0.5 : 1.0);
    printf("attn %s %d %d %d %d %d %.4f %.1f\n", name, b, h, s, D, causal, ms, flops / ms / 1e9);
    cudaFree((void *)p.q); cudaFree((void *)p.k); cudaFree((void *)p.v); cudaFree(p.o);
}

int main() {
    srand(1);
    const int shapes[][3] = {{128, 768, 768}, {128, 3072, 768}, {4096, 768, 768}, {4096, 3072, 768}, {4096, 768, 3072}};
    for (auto &s : shapes) {
        gemm<MPCC_MMA_BF16>("bf16", s[0], s[1], s[2]);
        gemm<MPCC_MMA_F16>("f16", s[0], s[1], s[2]);
        gemm<MPCC_MMA_TF32>("tf32", s[0], s[1], s[2]);
        gemm<MPCC_MMA_3XTF32>("3xtf32", s[0], s[1], s[2]);
    }
    for (int s = 512; s <= 16384; s *= 2)
        for (int causal = 0; causal < 2; causal++) {
            attention<MPCC_MMA_BF16, 64>("bf16", 4, 16, s, causal);
            attention<MPCC_MMA_BF16, 128>("bf16", 4, 16, s, causal);
            attention<MPCC_MMA_F16, 64>("f16", 4, 16, s, causal);
            attention<MPCC_MMA_F16, 128>("f16", 4, 16, s, causal);
        }
    return 0;
}
