/* mpcc_cuda_gemm.cuh - tensor-core GEMM with a fused epilogue (f32 in/out; TF32,
 * 3xTF32, BF16, F16 on mma.sync) and an int8 GEMM with TFLite requantization (IMMA).
 *
 * Header only, written against mpcc_cuda.cuh alone (no other intrinsics, no inline
 * PTX, no host headers), so that it builds with nvcc, NVRTC and the CPU emulator
 * (MPCC_CUDA_EMU). Include mpcc_cuda.cuh first.
 *
 * The bodies are __device__ templates; the generated code wraps each instantiation
 * in its own extern "C" __global__ kernel (one symbol per op, which the JIT wants):
 *
 *   extern "C" __global__ void __launch_bounds__(256) model_op3(mpcc_gemm_args p)
 *   { mpcc_gemm_body<MPCC_MMA_3XTF32, true, 128, 128, 32, 2, 4, 3>(p); }
 *   // or: { mpcc_gemm_body<MPCC_MMA_3XTF32, true, MPCC_GEMM_LARGE>(p); }
 *
 *   typedef mpcc_gemm_cfg<MPCC_MMA_3XTF32, true, MPCC_GEMM_LARGE> cfg;
 *   // cfg::smem_bytes > 48 KiB: cudaFuncSetAttribute(model_op3,
 *   //     cudaFuncAttributeMaxDynamicSharedMemorySize, cfg::smem_bytes) once, host side.
 *   MPCC_LAUNCH(model_op3, dim3((n + cfg::bn - 1) / cfg::bn, (m + cfg::bm - 1) / cfg::bm, batch),
 *               dim3(cfg::threads), cfg::smem_bytes, stream, p);
 *
 * f32 GEMM, per batch z = blockIdx.z (element strides sa, sb, sr, sc; 0 = broadcast):
 *   C[m][n] = clamp2( act1( sum_k A[m][k] * B(k, n) + bias[n] ) + res[m][n] )
 *   act1 = clamp to [act1_min, act1_max] then, if gelu, GELU (1 tanh form, 2 erf form);
 *   clamp2 = clamp to [act2_min, act2_max]. Pass +-INFINITY for "no clamp"; clamps keep NaN
 *   (x < lo ? lo : x > hi ? hi : x, as the CPU runtime). GELU erf form as 0.5 x erfc(-x / sqrt 2).
 *   B_NK = true:  B stored N x K (B(k, n) = b[n * ldb + k]: FC weights, BATCH_MATMUL adj_y)
 *   B_NK = false: B stored K x N (B(k, n) = b[k * ldb + n]).
 *   MODE: MPCC_MMA_TF32   m16n8k8, operands rounded to tf32 (cvt.rna)
 *         MPCC_MMA_3XTF32 m16n8k8, x = big + small (both tf32), acc += bs + sb + bb
 *                         (near-f32 accuracy; mpcc's default for f32 models)
 *         MPCC_MMA_BF16 / MPCC_MMA_F16  m16n8k16, A (and f32 B) rounded to 16 bits (RNE)
 *                         while building fragments; b_half = 1: b holds 16-bit bits
 *                         already (bf16 or f16, matching MODE). b_half is ignored by
 *                         the tf32 modes. Accumulation is f32 in every mode.
 *
 * int8 GEMM (mpcc_gemm_s8_body): A M x K int8 row-major, B N x K int8,
 *   C[m][n] = clamp(MultiplyByQuantizedMultiplier(sum_k A*B + bias[n], mult[n], shift[n])
 *                   + out_offset, qmin, qmax)   -- TFLite's exact reference arithmetic.
 *
 * Grid (ceil(n / BN), ceil(m / BM), batch); block cfg::threads; dynamic shared memory
 * cfg::smem_bytes. Any m, n, k >= 1 and any leading dimension: tiles are loaded with
 * 16-byte cp.async (zero-filled at the edges) when rows are 16-byte aligned
 * (ld, k or n and the batch stride multiples of 4 floats / 8 halves / 16 bytes),
 * else through a guarded scalar path that fills the same shared layout.
 *
 * Design: STAGES-deep cp.async ring, one barrier per BK step. Shared tiles are
 * stored in 16-byte chunks whose index is XORed with a function of the row, chosen so
 * the fragment reads of every mode hit 32 distinct banks (see the swz functions).
 * Warp tile (BM / WARPS_M) x (BN / WARPS_N), each warp holding its accumulators in
 * registers; the epilogue is applied on the accumulator fragments and stored directly.
 *
 * Constraints (static_assert): BK % 32 == 0 (f32) / % 64 == 0 (s8); BM a multiple of
 * 16 * WARPS_M; BN a multiple of 8 * WARPS_N and of 64; tiles divisible by the thread
 * count in 16-byte chunks.
 */
#ifndef MPCC_CUDA_GEMM_CUH
#define MPCC_CUDA_GEMM_CUH

#include "mpcc_cuda.cuh"
#include "mpcc_cuda_args.h"

#if defined(__CUDACC__) || defined(__CUDACC_RTC__)
#define MPCC_GEMM_UNROLL _Pragma("unroll")
#define MPCC_GEMM_UNROLL1 _Pragma("unroll 1")
#define MPCC_GEMM_UNROLL2 _Pragma("unroll 2")
#else
#define MPCC_GEMM_UNROLL
#define MPCC_GEMM_UNROLL1
#define MPCC_GEMM_UNROLL2
#endif




/* Named tile configurations: BM, BN, BK, WARPS_M, WARPS_N, STAGES. */
#define MPCC_GEMM_LARGE 128, 128, 32, 2, 4, 3 /* 256 threads, 96 KiB shared (opt-in) */
#define MPCC_GEMM_SMALL 64, 64, 32, 2, 2, 3   /* 128 threads, 48 KiB shared */
#define MPCC_GEMM_S8_LARGE 128, 128, 64, 2, 4, 3 /* 256 threads, 48 KiB shared */
#define MPCC_GEMM_S8_SMALL 64, 64, 64, 2, 2, 3   /* 128 threads, 24 KiB shared */

template <int MODE, bool B_NK, int BM, int BN, int BK, int WARPS_M, int WARPS_N, int STAGES>
struct mpcc_gemm_cfg {
    static constexpr int bm = BM, bn = BN, bk = BK;
    static constexpr int threads = WARPS_M * WARPS_N * 32;
    static constexpr int a_stage = BM * BK * 4;            /* bytes */
    static constexpr int b_stage = BN * BK * 4;            /* f32 B; 16-bit B uses half of it */
    static constexpr int smem_bytes = STAGES * (a_stage + b_stage);
};

template <int BM, int BN, int BK, int WARPS_M, int WARPS_N, int STAGES>
struct mpcc_gemm_s8_cfg {
    static constexpr int bm = BM, bn = BN, bk = BK;
    static constexpr int threads = WARPS_M * WARPS_N * 32;
    static constexpr int a_stage = BM * BK, b_stage = BN * BK;
    static constexpr int smem_bytes = STAGES * (a_stage + b_stage);
};

template <int MODE, bool B_NK> using mpcc_gemm_large = mpcc_gemm_cfg<MODE, B_NK, MPCC_GEMM_LARGE>;
template <int MODE, bool B_NK> using mpcc_gemm_small = mpcc_gemm_cfg<MODE, B_NK, MPCC_GEMM_SMALL>;

/* ---- small helpers ---- */

MPCC_DEV float mpcc_gemm_u2f_(uint32_t u) {
    union { uint32_t u; float f; } v;
    v.u = u;
    return v.f;
}
MPCC_DEV int mpcc_gemm_al16_(const void *p) { return ((unsigned long long)p & 15ull) == 0; }

/* Swizzles (XOR applied to the 16-byte chunk index within a row).
 * f32 row of K (A, B_NK): readers touch rows r0..r0+7 (one 4-byte column each, tf32)
 * or rows r0..r0+3 with 8 bytes (16-bit modes, per half-warp): (r&3)<<1 | (r>>2)&1
 * makes both sets cover all 8 chunks of a 128-byte line. */
MPCC_DEV int mpcc_gemm_swz_k32_(int r) { return ((r & 3) << 1) | ((r >> 2) & 1); }
/* f32 row of N (B_KN): readers touch rows {0,1,2,3}, {4..7}, {0,2,4,6}, {1,3,5,7} (mod 8)
 * at 8 consecutive columns (a chunk pair): the pair index must differ within each set. */
MPCC_DEV int mpcc_gemm_swz_n32_(int r) { return ((((r >> 1) & 1) << 1) | ((r ^ (r >> 2)) & 1)) << 1; }
/* 64-byte rows of 32-bit words (16-bit B_NK with BK = 32, int8 with BK = 64): two rows
 * share a 128-byte line; rows of the same parity get different chunks. */
MPCC_DEV int mpcc_gemm_swz_w64_(int r) { return (r >> 1) & 3; }
/* 16-bit row of N (B_KN half): rows 2t (t = 0..3) read one chunk each. */
MPCC_DEV int mpcc_gemm_swz_n16_(int r) { return r & 7; }

/* Element offsets in the shared tiles. */
template <int BK> MPCC_DEV int mpcc_gemm_ia_(int r, int c) { /* f32, row length BK */
    return r * BK + ((((c >> 2) ^ mpcc_gemm_swz_k32_(r)) << 2) | (c & 3));
}
template <int BN> MPCC_DEV int mpcc_gemm_ibn_(int k, int n) { /* f32 [BK][BN] */
    return k * BN + ((((n >> 2) ^ mpcc_gemm_swz_n32_(k)) << 2) | (n & 3));
}
template <int BK> MPCC_DEV int mpcc_gemm_ihk_(int r, int c) { /* 16-bit [BN][BK] */
    return r * BK + ((((c >> 3) ^ mpcc_gemm_swz_w64_(r)) << 3) | (c & 7));
}
template <int BN> MPCC_DEV int mpcc_gemm_ihn_(int k, int n) { /* 16-bit [BK][BN] */
    return k * BN + ((((n >> 3) ^ mpcc_gemm_swz_n16_(k)) << 3) | (n & 7));
}
template <int BK> MPCC_DEV int mpcc_gemm_i8_(int r, int c) { /* int8 [rows][BK] */
    return r * BK + ((((c >> 4) ^ mpcc_gemm_swz_w64_(r)) << 4) | (c & 15));
}

template <int MODE> MPCC_DEV uint32_t mpcc_gemm_pack_(float lo, float hi) {
    if (MODE == MPCC_MMA_BF16) return mpcc_pack_bf16x2(lo, hi);
    return mpcc_pack_f16x2(lo, hi);
}

/* Loads a ROWS x COLS tile of T (f32 or 16-bit bits; row-major source, rows of COLS contiguous
 * elements of which the first `cols` exist) into shared memory at idx(r, c): 16-byte cp.async
 * chunks when vec, else guarded scalar loads; missing elements are zero. */
template <typename T, int ROWS, int COLS, int THREADS, typename IDX>
MPCC_DEV void mpcc_gemm_load_(T *s, const T *g, long long ld, int rows, int cols, int vec, int tid, IDX idx) {
    if (vec) {
        constexpr int EPC = 16 / (int)sizeof(T), CPR = COLS / EPC, CH = ROWS * CPR;
        static_assert(CH % THREADS == 0, "tile chunks must divide among the threads");
MPCC_GEMM_UNROLL
        for (int it = 0; it < CH / THREADS; it++) {
            int i = tid + it * THREADS, r = i / CPR, c = (i % CPR) * EPC;
            int ok = r < rows && c < cols;
            const T *src = ok ? g + r * ld + c : g;
            mpcc_cp_async16_pred(s + idx(r, c), src, ok);
        }
    } else {
        constexpr int EL = ROWS * COLS;
        static_assert(EL % THREADS == 0, "tile elements must divide among the threads");
MPCC_GEMM_UNROLL1
        for (int it = 0; it < EL / THREADS; it++) {
            int i = tid + it * THREADS, r = i / COLS, c = i % COLS;
            s[idx(r, c)] = (r < rows && c < cols) ? g[r * ld + c] : (T)0;
        }
    }
}

template <int N> struct mpcc_gemm_idx_ia_ { __device__ __forceinline__ int operator()(int r, int c) const { return mpcc_gemm_ia_<N>(r, c); } };
template <int N> struct mpcc_gemm_idx_ibn_ { __device__ __forceinline__ int operator()(int r, int c) const { return mpcc_gemm_ibn_<N>(r, c); } };
template <int N> struct mpcc_gemm_idx_ihk_ { __device__ __forceinline__ int operator()(int r, int c) const { return mpcc_gemm_ihk_<N>(r, c); } };
template <int N> struct mpcc_gemm_idx_ihn_ { __device__ __forceinline__ int operator()(int r, int c) const { return mpcc_gemm_ihn_<N>(r, c); } };

/* Clamp as the CPU runtime's rt_clamp_f32 (and TFLite's min(max(x, lo), hi)): NaN passes. */
MPCC_DEV float mpcc_gemm_clamp_(float v, float lo, float hi) { return v < lo ? lo : (v > hi ? hi : v); }

MPCC_DEV float mpcc_gemm_epi_(const mpcc_gemm_args &p, const float *res, float v, int row, int col) {
    if (p.bias) v += p.bias[col];
    v = mpcc_gemm_clamp_(v, p.act1_min, p.act1_max);
    if (p.gelu == 1) {
        v = 0.5f * v * (1.0f + tanhf(0.7978845608028654f * (v + 0.044715f * v * v * v)));
    } else if (p.gelu == 2) {
        v = 0.5f * v * erfcf(v * -0.7071067811865476f); /* = 1 + erf(x / sqrt 2), no cancellation for x < 0 */
    }
    if (res) v += res[(long long)row * p.ldr + col];
    return mpcc_gemm_clamp_(v, p.act2_min, p.act2_max);
}

/* The cp.async ring both GEMMs share: prime issues the first STAGES-1 k-tiles (one commit
 * group each, empty past the end so the group count stays uniform); next waits until k-tile kt
 * has landed, makes it visible to the block, and issues k-tile kt + STAGES - 1 into the slot
 * that every thread has finished reading (the barrier orders it after the last reads). */
template <int STAGES, class LOAD> MPCC_DEV void mpcc_gemm_pipe_prime(int ktiles, const LOAD &load_stage) {
MPCC_GEMM_UNROLL
    for (int s = 0; s < STAGES - 1; s++) {
        if (s < ktiles) load_stage(s, s);
        mpcc_cp_async_commit();
    }
}
template <int STAGES, class LOAD> MPCC_DEV void mpcc_gemm_pipe_next(int kt, int ktiles, const LOAD &load_stage) {
    mpcc_cp_async_wait<STAGES - 2>();
    mpcc_sync();
    const int nk = kt + STAGES - 1;
    if (nk < ktiles) load_stage(nk % STAGES, nk);
    mpcc_cp_async_commit();
}

template <int MODE, bool B_NK, int BM, int BN, int BK, int WARPS_M, int WARPS_N, int STAGES>
__device__ void mpcc_gemm_body(const mpcc_gemm_args &p) {
    typedef mpcc_gemm_cfg<MODE, B_NK, BM, BN, BK, WARPS_M, WARPS_N, STAGES> cfg;
    constexpr int THREADS = cfg::threads;
    constexpr int WM = BM / WARPS_M, WN = BN / WARPS_N, MT = WM / 16, NT = WN / 8;
    constexpr bool TF = MODE == MPCC_MMA_TF32 || MODE == MPCC_MMA_3XTF32;
    constexpr int KSTEP = TF ? 8 : 16;
    static_assert(BK % 32 == 0, "BK must be a multiple of 32");
    static_assert(BM % (16 * WARPS_M) == 0 && BN % (8 * WARPS_N) == 0, "warp tile must be whole mma tiles");
    static_assert(BN % 64 == 0, "BN must be a multiple of 64");
    static_assert(STAGES >= 2, "at least two stages");

    MPCC_DYN_SMEM(unsigned char, smem);
    float *sA = (float *)smem;
    unsigned char *sB = smem + STAGES * cfg::a_stage;

    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    const int g = lane >> 2, t = lane & 3;
    const int wm = (warp / WARPS_N) * WM, wn = (warp % WARPS_N) * WN;
    const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN, z = blockIdx.z;
    const int m = p.m, n = p.n, k = p.k;
    const bool bh = !TF && p.b_half;

    const float *A = p.a + z * p.sa + (long long)m0 * p.lda;
    const float *Bf = (const float *)p.b + z * p.sb;
    const uint16_t *Bh = (const uint16_t *)p.b + z * p.sb;
    if (B_NK) { Bf += (long long)n0 * p.ldb; Bh += (long long)n0 * p.ldb; }
    else { Bf += n0; Bh += n0; }

    const int rows_a = m - m0, rows_bn = n - n0;
    const int vec_a = p.lda % 4 == 0 && k % 4 == 0 && p.sa % 4 == 0 && mpcc_gemm_al16_(p.a);
    int vec_b;
    if (bh) vec_b = p.ldb % 8 == 0 && (B_NK ? k : n) % 8 == 0 && p.sb % 8 == 0 && mpcc_gemm_al16_(p.b);
    else vec_b = p.ldb % 4 == 0 && (B_NK ? k : n) % 4 == 0 && p.sb % 4 == 0 && mpcc_gemm_al16_(p.b);
    const int ktiles = (k + BK - 1) / BK;

    auto load_stage = [&](int stage, int kt) {
        const int k0 = kt * BK, kc = k - k0;
        mpcc_gemm_load_<float, BM, BK, THREADS>(sA + stage * (BM * BK), A + k0, p.lda, rows_a, kc, vec_a, tid,
                                             mpcc_gemm_idx_ia_<BK>());
        if (bh) {
            uint16_t *s = (uint16_t *)(sB + stage * cfg::b_stage);
            if (B_NK) mpcc_gemm_load_<uint16_t, BN, BK, THREADS>(s, Bh + k0, p.ldb, rows_bn, kc, vec_b, tid,
                                                           mpcc_gemm_idx_ihk_<BK>());
            else mpcc_gemm_load_<uint16_t, BK, BN, THREADS>(s, Bh + (long long)k0 * p.ldb, p.ldb, kc, rows_bn, vec_b, tid,
                                                      mpcc_gemm_idx_ihn_<BN>());
        } else {
            float *s = (float *)(sB + stage * cfg::b_stage);
            if (B_NK) mpcc_gemm_load_<float, BN, BK, THREADS>(s, Bf + k0, p.ldb, rows_bn, kc, vec_b, tid,
                                                           mpcc_gemm_idx_ia_<BK>());
            else mpcc_gemm_load_<float, BK, BN, THREADS>(s, Bf + (long long)k0 * p.ldb, p.ldb, kc, rows_bn, vec_b, tid,
                                                      mpcc_gemm_idx_ibn_<BN>());
        }
    };

    float acc[MT][NT][4] = {};

    mpcc_gemm_pipe_prime<STAGES>(ktiles, load_stage);
    for (int kt = 0; kt < ktiles; kt++) {
        mpcc_gemm_pipe_next<STAGES>(kt, ktiles, load_stage);
        const int stage = kt % STAGES;
        const float *a_s = sA + stage * (BM * BK);
        const float *bf_s = (const float *)(sB + stage * cfg::b_stage);
        const uint16_t *bh_s = (const uint16_t *)(sB + stage * cfg::b_stage);

MPCC_GEMM_UNROLL2
        for (int kk = 0; kk < BK; kk += KSTEP) {
            if constexpr (TF) {
                uint32_t bb[NT][2], bs[MODE == MPCC_MMA_3XTF32 ? NT : 1][2];
MPCC_GEMM_UNROLL
                for (int j = 0; j < NT; j++) {
                    const int col = wn + j * 8 + g;
MPCC_GEMM_UNROLL
                    for (int h = 0; h < 2; h++) {
                        const int kr = kk + t + 4 * h;
                        float x = B_NK ? bf_s[mpcc_gemm_ia_<BK>(col, kr)] : bf_s[mpcc_gemm_ibn_<BN>(kr, col)];
                        bb[j][h] = mpcc_f2tf32(x);
                        if constexpr (MODE == MPCC_MMA_3XTF32) bs[j][h] = mpcc_f2tf32(x - mpcc_gemm_u2f_(bb[j][h]));
                    }
                }
MPCC_GEMM_UNROLL
                for (int i = 0; i < MT; i++) {
                    uint32_t ab[4], as[MODE == MPCC_MMA_3XTF32 ? 4 : 1];
                    const int row = wm + i * 16 + g;
MPCC_GEMM_UNROLL
                    for (int q = 0; q < 4; q++) {
                        float x = a_s[mpcc_gemm_ia_<BK>(row + (q & 1) * 8, kk + t + (q >> 1) * 4)];
                        ab[q] = mpcc_f2tf32(x);
                        if constexpr (MODE == MPCC_MMA_3XTF32) as[q] = mpcc_f2tf32(x - mpcc_gemm_u2f_(ab[q]));
                    }
MPCC_GEMM_UNROLL
                    for (int j = 0; j < NT; j++) {
                        if constexpr (MODE == MPCC_MMA_3XTF32) {
                            /* the three products of this k-step summed from zero, small terms
                             * first, then one f32 add into the running sum: fewer roundings
                             * at the accumulator's magnitude than three mma into acc */
                            float d[4] = {0.0f, 0.0f, 0.0f, 0.0f};
                            mpcc_mma_tf32(d, as, bb[j]);
                            mpcc_mma_tf32(d, ab, bs[j]);
                            mpcc_mma_tf32(d, ab, bb[j]);
                            MPCC_GEMM_UNROLL
                            for (int e = 0; e < 4; e++) acc[i][j][e] += d[e];
                        } else {
                            mpcc_mma_tf32(acc[i][j], ab, bb[j]);
                        }
                    }
                }
            } else {
                uint32_t bfr[NT][2];
MPCC_GEMM_UNROLL
                for (int j = 0; j < NT; j++) {
                    const int col = wn + j * 8 + g;
MPCC_GEMM_UNROLL
                    for (int h = 0; h < 2; h++) {
                        const int kr = kk + 2 * t + 8 * h;
                        if (bh) {
                            if (B_NK) bfr[j][h] = *(const uint32_t *)(bh_s + mpcc_gemm_ihk_<BK>(col, kr));
                            else bfr[j][h] = (uint32_t)bh_s[mpcc_gemm_ihn_<BN>(kr, col)] |
                                             ((uint32_t)bh_s[mpcc_gemm_ihn_<BN>(kr + 1, col)] << 16);
                        } else {
                            float lo, hi;
                            if (B_NK) { /* o even: one 8-byte load */
                                const float2 v = *(const float2 *)(bf_s + mpcc_gemm_ia_<BK>(col, kr));
                                lo = v.x;
                                hi = v.y;
                            } else {
                                lo = bf_s[mpcc_gemm_ibn_<BN>(kr, col)];
                                hi = bf_s[mpcc_gemm_ibn_<BN>(kr + 1, col)];
                            }
                            bfr[j][h] = mpcc_gemm_pack_<MODE>(lo, hi);
                        }
                    }
                }
MPCC_GEMM_UNROLL
                for (int i = 0; i < MT; i++) {
                    uint32_t af[4];
                    const int row = wm + i * 16 + g;
MPCC_GEMM_UNROLL
                    for (int q = 0; q < 4; q++) {
                        const float2 v = *(const float2 *)(a_s + mpcc_gemm_ia_<BK>(row + (q & 1) * 8, kk + 2 * t + (q >> 1) * 8));
                        af[q] = mpcc_gemm_pack_<MODE>(v.x, v.y);
                    }
MPCC_GEMM_UNROLL
                    for (int j = 0; j < NT; j++) {
                        if (MODE == MPCC_MMA_BF16) mpcc_mma_bf16(acc[i][j], af, bfr[j]);
                        else mpcc_mma_f16(acc[i][j], af, bfr[j]);
                    }
                }
            }
        }
    }
    mpcc_cp_async_wait<0>();

    float *C = p.c + z * p.sc;
    const float *res = p.res ? p.res + z * p.sr : (const float *)0;
    const bool c2 = p.ldc % 2 == 0 && p.sc % 2 == 0 && ((unsigned long long)p.c & 7ull) == 0; /* pairs: 8-byte stores */
MPCC_GEMM_UNROLL
    for (int i = 0; i < MT; i++) {
MPCC_GEMM_UNROLL
        for (int h = 0; h < 2; h++) {
            const int row = m0 + wm + i * 16 + g + 8 * h;
            if (row >= m) continue;
            float *crow = C + (long long)row * p.ldc;
MPCC_GEMM_UNROLL
            for (int j = 0; j < NT; j++) {
                const int col = n0 + wn + j * 8 + 2 * t;
                if (col >= n) continue;
                const float v0 = mpcc_gemm_epi_(p, res, acc[i][j][2 * h], row, col);
                if (col + 1 < n) {
                    const float v1 = mpcc_gemm_epi_(p, res, acc[i][j][2 * h + 1], row, col + 1);
                    if (c2) {
                        float2 w;
                        w.x = v0;
                        w.y = v1;
                        *(float2 *)(crow + col) = w;
                    } else {
                        crow[col] = v0;
                        crow[col + 1] = v1;
                    }
                } else {
                    crow[col] = v0;
                }
            }
        }
    }
}

/* ---- int8: TFLite / gemmlowp requantization ---- */

MPCC_DEV int32_t mpcc_srdhm(int32_t a, int32_t b) { /* SaturatingRoundingDoublingHighMul */
    const int32_t mn = -2147483647 - 1;
    if (a == mn && b == mn) return 2147483647;
    const long long ab = (long long)a * (long long)b;
    const long long nudge = ab >= 0 ? (1ll << 30) : (1ll - (1ll << 30));
    return (int32_t)((ab + nudge) / (1ll << 31)); /* C division: truncates toward zero */
}
MPCC_DEV int32_t mpcc_rdbpot(int32_t x, int e) { /* RoundingDivideByPowerOfTwo, 0 <= e <= 31 */
    const int32_t mask = (int32_t)((1ll << e) - 1);
    const int32_t rem = x & mask, thr = (mask >> 1) + (x < 0 ? 1 : 0);
    return (x >> e) + (rem > thr ? 1 : 0);
}
MPCC_DEV int32_t mpcc_mul_by_qm(int32_t acc, int32_t mult, int shift) { /* MultiplyByQuantizedMultiplier */
    const int left = shift > 0 ? shift : 0, right = shift > 0 ? 0 : -shift;
    return mpcc_rdbpot(mpcc_srdhm((int32_t)((uint32_t)acc << left), mult), right); /* x * (1 << left), wrapping */
}

/* The single-rounding variant (TFLite's FULLY_CONNECTED reference): round(x * mult / 2^(31 - shift)), saturated. */
MPCC_DEV int32_t mpcc_mul_by_qm_single(int32_t acc, int32_t mult, int shift) {
    const int total = 31 - shift;
    long long r = ((long long)acc * (long long)mult + (1ll << (total - 1))) >> total;
    return (int32_t)(r > 2147483647ll ? 2147483647ll : r < -2147483648ll ? -2147483648ll : r);
}

template <int ROWS, int BK, int THREADS>
MPCC_DEV void mpcc_gemm_load_s8_(int8_t *s, const int8_t *g, long long ld, int rows, int cols, int vec, int tid) {
    if (vec) {
        constexpr int CPR = BK / 16, CH = ROWS * CPR;
        static_assert(CH % THREADS == 0, "tile chunks must divide among the threads");
MPCC_GEMM_UNROLL
        for (int it = 0; it < CH / THREADS; it++) {
            int i = tid + it * THREADS, r = i / CPR, c = (i % CPR) * 16;
            int ok = r < rows && c < cols;
            const int8_t *src = ok ? g + r * ld + c : g;
            mpcc_cp_async16_pred(s + mpcc_gemm_i8_<BK>(r, c), src, ok);
        }
    } else {
        constexpr int EL = ROWS * BK;
        static_assert(EL % THREADS == 0, "tile elements must divide among the threads");
MPCC_GEMM_UNROLL1
        for (int it = 0; it < EL / THREADS; it++) {
            int i = tid + it * THREADS, r = i / BK, c = i % BK;
            s[mpcc_gemm_i8_<BK>(r, c)] = (r < rows && c < cols) ? g[r * ld + c] : (int8_t)0;
        }
    }
}

template <int BM, int BN, int BK, int WARPS_M, int WARPS_N, int STAGES>
__device__ void mpcc_gemm_s8_body(const mpcc_gemm_s8_args &p) {
    typedef mpcc_gemm_s8_cfg<BM, BN, BK, WARPS_M, WARPS_N, STAGES> cfg;
    constexpr int THREADS = cfg::threads;
    constexpr int WM = BM / WARPS_M, WN = BN / WARPS_N, MT = WM / 16, NT = WN / 8;
    static_assert(BK % 64 == 0, "BK must be a multiple of 64");
    static_assert(BM % (16 * WARPS_M) == 0 && BN % (8 * WARPS_N) == 0, "warp tile must be whole mma tiles");
    static_assert(STAGES >= 2, "at least two stages");

    MPCC_DYN_SMEM(int8_t, smem);
    int8_t *sA = smem, *sB = smem + STAGES * cfg::a_stage;

    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    const int g = lane >> 2, t = lane & 3;
    const int wm = (warp / WARPS_N) * WM, wn = (warp % WARPS_N) * WN;
    const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN, z = blockIdx.z;
    const int m = p.m, n = p.n, k = p.k;
    const int8_t *A = p.a + z * p.sa + (long long)m0 * p.lda;
    const int8_t *B = p.b + z * p.sb + (long long)n0 * p.ldb;
    const int vec_a = p.lda % 16 == 0 && k % 16 == 0 && p.sa % 16 == 0 && mpcc_gemm_al16_(p.a);
    const int vec_b = p.ldb % 16 == 0 && k % 16 == 0 && p.sb % 16 == 0 && mpcc_gemm_al16_(p.b);
    const int ktiles = (k + BK - 1) / BK;

    auto load_stage = [&](int stage, int kt) {
        const int k0 = kt * BK;
        mpcc_gemm_load_s8_<BM, BK, THREADS>(sA + stage * cfg::a_stage, A + k0, p.lda, m - m0, k - k0, vec_a, tid);
        mpcc_gemm_load_s8_<BN, BK, THREADS>(sB + stage * cfg::b_stage, B + k0, p.ldb, n - n0, k - k0, vec_b, tid);
    };

    int32_t acc[MT][NT][4] = {};

    mpcc_gemm_pipe_prime<STAGES>(ktiles, load_stage);
    for (int kt = 0; kt < ktiles; kt++) {
        mpcc_gemm_pipe_next<STAGES>(kt, ktiles, load_stage);
        const int stage = kt % STAGES;
        const int8_t *a_s = sA + stage * cfg::a_stage, *b_s = sB + stage * cfg::b_stage;
MPCC_GEMM_UNROLL
        for (int kk = 0; kk < BK; kk += 32) {
            uint32_t bfr[NT][2];
MPCC_GEMM_UNROLL
            for (int j = 0; j < NT; j++) {
                const int col = wn + j * 8 + g;
MPCC_GEMM_UNROLL
                for (int h = 0; h < 2; h++)
                    bfr[j][h] = *(const uint32_t *)(b_s + mpcc_gemm_i8_<BK>(col, kk + 4 * t + 16 * h));
            }
MPCC_GEMM_UNROLL
            for (int i = 0; i < MT; i++) {
                uint32_t af[4];
                const int row = wm + i * 16 + g;
MPCC_GEMM_UNROLL
                for (int q = 0; q < 4; q++)
                    af[q] = *(const uint32_t *)(a_s + mpcc_gemm_i8_<BK>(row + (q & 1) * 8, kk + 4 * t + (q >> 1) * 16));
MPCC_GEMM_UNROLL
                for (int j = 0; j < NT; j++) mpcc_mma_s8(acc[i][j], af, bfr[j]);
            }
        }
    }
    mpcc_cp_async_wait<0>();

    int8_t *C = p.c + z * p.sc;
MPCC_GEMM_UNROLL
    for (int i = 0; i < MT; i++) {
MPCC_GEMM_UNROLL
        for (int h = 0; h < 2; h++) {
            const int row = m0 + wm + i * 16 + g + 8 * h;
            if (row >= m) continue;
MPCC_GEMM_UNROLL
            for (int j = 0; j < NT; j++) {
MPCC_GEMM_UNROLL
                for (int e = 0; e < 2; e++) {
                    const int col = n0 + wn + j * 8 + 2 * t + e;
                    if (col >= n) continue;
                    int32_t v = acc[i][j][2 * h + e] + (p.bias ? p.bias[col] : 0);
                    v = (p.single_rounding ? mpcc_mul_by_qm_single(v, p.mult[col], p.shift[col])
                                           : mpcc_mul_by_qm(v, p.mult[col], p.shift[col])) + p.out_offset;
                    v = v < p.qmin ? p.qmin : v > p.qmax ? p.qmax : v;
                    C[(long long)row * p.ldc + col] = (int8_t)v;
                }
            }
        }
    }
}

#endif
