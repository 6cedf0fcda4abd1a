/* mpcc_cuda_attention.cuh - fused scaled-dot-product attention forward
 * (flash-attention style: the score matrix never leaves the chip).
 *
 *   O[b,h,i,:] = sum_j softmax_j(scale * Q[b,h,i,:] . K[b,h,j,:] + mask[b,h,i,j]) V[b,h,j,:]
 *
 * Header only, written against the device prelude mpcc_cuda.cuh (no other
 * intrinsics, no inline PTX, no host headers), so that it builds with nvcc,
 * with NVRTC and with the CPU emulator (MPCC_CUDA_EMU).
 *
 * Use: the generated code wraps the body in a kernel of its own name,
 *
 *   extern "C" __global__ void __launch_bounds__(128) model_op7(mpcc_attn_args p) {
 *       mpcc_attn_body<MPCC_MMA_BF16, 64>(p);   (<..., 64, true> with a boolean mask)
 *   }
 *
 * and launches it with
 *   grid  (ceil(seq_q / cfg::block_m), heads, batch)
 *   block (cfg::threads)          (the __launch_bounds__ value; 128 for every instantiation)
 *   dynamic shared memory cfg::smem_bytes
 * where cfg = mpcc_attn_cfg<MODE, D>. smem_bytes is <= 48 KiB for every
 * instantiation, so no cudaFuncSetAttribute(MaxDynamicSharedMemorySize) is needed.
 * grid.y and grid.z are limited to 65535 by CUDA (heads, batch).
 *
 * Tensors are f32 with arbitrary element strides (batch, head, row); the D
 * elements of a row must be contiguous. A head dimension hd below D (p.hd, in the
 * instantiation <MODE, D, BOOL_MASK, true>) runs as D with zero columns: they add nothing to Q.K^T, and the output
 * columns from V's zero columns are not stored. The mask is additive f32 with its own
 * strides (0 = broadcast along that axis), or NULL; |m_sk| must be below 2^25
 * (offsets within a key block are 32-bit). scale multiplies Q.K^T
 * before the mask is added. causal = 1 masks key j for query i when
 * j > i + (seq_k - seq_q) (bottom-right aligned, as for a KV cache).
 *
 * Boolean masks (bmode 1 KEEP / 2 FILL, a fused SELECT_V2 on the AND of one or two uint8 masks
 * with their own strides): a masked score is replaced by `fill` after scaling, exactly like the
 * CPU kernel (runtime/rt_opt_attention.c), and then takes part in the softmax; offsets of
 * row * b_sq + key * b_sk must fit in 32 bits.
 *
 * Semantics of masking: keys masked by causality or lying past seq_k count as
 * -inf. A row whose every score is -inf (e.g. causal with seq_q > seq_k, or a
 * mask of -inf) gives 0s, not NaN. Mask values are used as given, in f32, so
 * a row masked entirely with a finite -1e9 gives the uniform average over its
 * keys, as TFLite's reference kernels compute it.
 *
 * Modes (the MMA operand type; accumulation and softmax are always f32):
 *   MPCC_MMA_BF16 / MPCC_MMA_F16  m16n8k16, Q/K/V/P rounded to 16 bits (f16:
 *                                 inputs beyond +-65504 overflow)
 *   MPCC_MMA_TF32                 m16n8k8, operands rounded to tf32
 *   MPCC_MMA_3XTF32               each operand split x = big + small (both
 *                                 tf32), three MMAs (big*small, small*big,
 *                                 big*big): close to f32 accuracy
 *
 * Algorithm: a CTA of 4 warps owns block_m = 64 query rows, 16 per warp; each
 * thread holds its rows' Q fragments in registers for the whole kernel
 * (loaded once from global memory, guarded). It walks over the keys in
 * blocks of block_n: K and V tiles go global -> shared as f32 through a
 * double-buffered cp.async pipeline (16-byte copies when the rows are 16-byte
 * aligned, guarded scalar loads otherwise; rows past seq_k are zero-filled),
 * are converted to the operand type while the MMA fragments are built, and
 * S = Q K^T, the online softmax (running max m and sum l per row, the O
 * accumulator rescaled by exp(m_old - m_new)) and O += P V all happen in
 * registers. P is reused from the S accumulator without going through shared
 * memory (for tf32 the k index of the PV product is permuted so that the
 * accumulator layout is already the A-fragment layout). Under causal
 * masking, key blocks entirely above the CTA's last row are not visited.
 * Shared memory: two stages of K and V tiles, padded so that the fragment
 * loads are free of bank conflicts; independent of the sequence lengths.
 * Boolean masks are read once per key block into one 32-bit word of keep
 * flags per thread (BN / 2 scores), tested in the unrolled score loop.
 */
#ifndef MPCC_CUDA_ATTENTION_CUH
#define MPCC_CUDA_ATTENTION_CUH

#include "mpcc_cuda.cuh"
#include "mpcc_cuda_args.h"



#if defined(MPCC_CUDA_EMU)
#define MPCC_ATTN_UNROLL
#else
#define MPCC_ATTN_UNROLL _Pragma("unroll")
#endif

template <int MODE, int D> struct mpcc_attn_cfg {
    static_assert(D == 16 || D == 32 || D == 64 || D == 128, "mpcc attention: head_dim must be 16, 32, 64 or 128");
    static_assert(MODE == MPCC_MMA_TF32 || MODE == MPCC_MMA_3XTF32 || MODE == MPCC_MMA_BF16 || MODE == MPCC_MMA_F16,
                  "mpcc attention: unknown MMA mode");
    static constexpr bool tf32 = MODE == MPCC_MMA_TF32 || MODE == MPCC_MMA_3XTF32;
    static constexpr int warps = 4, threads = 32 * warps, block_m = 16 * warps;
    /* key block: as large as keeps the two K+V stages within 48 KiB */
    static constexpr int block_n = D <= 32 ? 64 : D == 64 ? 32 : 16;
    /* row strides in floats. The fragment loads read, per lane (g = lane/4, t = lane%4):
     *   16-bit K: 2 floats at row g, column 2t     -> stride = 8 mod 32 is conflict-free
     *   tf32 K:   1 float  at row g, column t      -> stride = 4 mod 32
     *   V:        1 float  at row 2t (or 2t+1), column g -> stride = 4 mod 32 */
    static constexpr int k_stride = D + (tf32 ? 4 : 8), v_stride = D + 4;
    static constexpr int k_tile = block_n * k_stride, v_tile = block_n * v_stride; /* floats per stage */
    static constexpr int smem_bytes = 2 * (k_tile + v_tile) * (int)sizeof(float);
};

MPCC_DEV float mpcc_attn_bits2f(uint32_t u) {
    union { uint32_t u; float f; } v;
    v.u = u;
    return v.f;
}
MPCC_DEV uint32_t mpcc_attn_f2bits(float f) {
    union { float f; uint32_t u; } v;
    v.f = f;
    return v.u;
}
MPCC_DEV float mpcc_attn_ninf(void) { return mpcc_attn_bits2f(0xff800000u); }

template <int MODE> MPCC_DEV uint32_t mpcc_attn_pack(float lo, float hi) {
    return MODE == MPCC_MMA_BF16 ? mpcc_pack_bf16x2(lo, hi) : mpcc_pack_f16x2(lo, hi);
}
template <int MODE> MPCC_DEV void mpcc_attn_mma16(float d[4], const uint32_t a[4], const uint32_t b[2]) {
    if (MODE == MPCC_MMA_BF16) mpcc_mma_bf16(d, a, b);
    else mpcc_mma_f16(d, a, b);
}
/* d += a * b on tf32 operands given as f32 values (a[4], b[2]) */
template <int MODE> MPCC_DEV void mpcc_attn_mma_tf32(float d[4], const float a[4], const float b[2]) {
    uint32_t ab[4], bb[2];
    MPCC_ATTN_UNROLL
    for (int i = 0; i < 4; i++) ab[i] = mpcc_f2tf32(a[i]);
    MPCC_ATTN_UNROLL
    for (int i = 0; i < 2; i++) bb[i] = mpcc_f2tf32(b[i]);
    if (MODE == MPCC_MMA_3XTF32) {
        uint32_t as[4], bs[2];
        MPCC_ATTN_UNROLL
        for (int i = 0; i < 4; i++) as[i] = mpcc_f2tf32(a[i] - mpcc_attn_bits2f(ab[i]));
        MPCC_ATTN_UNROLL
        for (int i = 0; i < 2; i++) bs[i] = mpcc_f2tf32(b[i] - mpcc_attn_bits2f(bb[i]));
        mpcc_mma_tf32(d, ab, bs);
        mpcc_mma_tf32(d, as, bb);
    }
    mpcc_mma_tf32(d, ab, bb);
}

struct alignas(8) mpcc_attn_f2 {
    float x, y;
};

/* Copy keys [key0, key0 + BN) of one head (rows of D floats, row stride ss
 * elements) into a shared tile with row stride DS floats; rows >= seq_k are
 * zero-filled. al: every row is 16-byte aligned (cp.async), else scalar loads. */
template <int D, int BN, int DS, int NT>
MPCC_DEV void mpcc_attn_load_tile(float *dst, const float *src, long long ss, int key0, int seq_k, bool al, int tid, int hd) {
    constexpr int CPR = D / 4, TOTAL = BN * CPR;
    static_assert(TOTAL % NT == 0, "mpcc attention: tile copy does not divide among the threads");
    MPCC_ATTN_UNROLL
    for (int i = 0; i < TOTAL / NT; i++) {
        const int c = tid + i * NT, r = c / CPR, c4 = (c % CPR) * 4, key = key0 + r;
        const int ok = key < seq_k && c4 < hd;
        const float *s = ok ? src + key * ss + c4 : src;
        float *d = dst + r * DS + c4;
        if (al) { /* (hd % 4 == 0 there) */
            mpcc_cp_async16_pred(d, s, ok);
        } else {
            MPCC_ATTN_UNROLL
            for (int e = 0; e < 4; e++) d[e] = ok && c4 + e < hd ? s[e] : 0.0f;
        }
    }
}

template <int MODE, int D>
MPCC_DEV void mpcc_attn_load_q(uint32_t qa[][4], const float *q0p, const float *q1p, bool ok0, bool ok1, int t, int hd) {
#define MPCC_ATTN_Q(ok, p, c) ((ok) && (c) < hd ? (p)[c] : 0.0f)
    if (MODE == MPCC_MMA_TF32 || MODE == MPCC_MMA_3XTF32) {
        MPCC_ATTN_UNROLL
        for (int kk = 0; kk < D / 8; kk++) {
            const int c = kk * 8 + t;
            qa[kk][0] = mpcc_attn_f2bits(MPCC_ATTN_Q(ok0, q0p, c));
            qa[kk][1] = mpcc_attn_f2bits(MPCC_ATTN_Q(ok1, q1p, c));
            qa[kk][2] = mpcc_attn_f2bits(MPCC_ATTN_Q(ok0, q0p, c + 4));
            qa[kk][3] = mpcc_attn_f2bits(MPCC_ATTN_Q(ok1, q1p, c + 4));
        }
    } else {
        MPCC_ATTN_UNROLL
        for (int kk = 0; kk < D / 16; kk++) {
            const int c = kk * 16 + 2 * t;
            qa[kk][0] = mpcc_attn_pack<MODE>(MPCC_ATTN_Q(ok0, q0p, c), MPCC_ATTN_Q(ok0, q0p, c + 1));
            qa[kk][1] = mpcc_attn_pack<MODE>(MPCC_ATTN_Q(ok1, q1p, c), MPCC_ATTN_Q(ok1, q1p, c + 1));
            qa[kk][2] = mpcc_attn_pack<MODE>(MPCC_ATTN_Q(ok0, q0p, c + 8), MPCC_ATTN_Q(ok0, q0p, c + 9));
            qa[kk][3] = mpcc_attn_pack<MODE>(MPCC_ATTN_Q(ok1, q1p, c + 8), MPCC_ATTN_Q(ok1, q1p, c + 9));
        }
    }
}
#undef MPCC_ATTN_Q

/* BOOL_MASK: the instantiation for boolean masks (p.bmode 1 or 2); the others ignore bmode.
 * PAD: the instantiation for a head dimension p.hd below D; the others ignore hd (no register
 * spent on it, which keeps the D = 128 and 3xTF32 instantiations free of spills). */
template <int MODE, int D, bool BOOL_MASK = false, bool PAD = false> __device__ void mpcc_attn_body(const mpcc_attn_args &p) {
    typedef mpcc_attn_cfg<MODE, D> C;
    constexpr int BM = C::block_m, BN = C::block_n, KS = C::k_stride, VS = C::v_stride, NT = C::threads;
    constexpr bool TF = C::tf32;
    constexpr int KSTEP = TF ? 8 : 16; /* k extent of one MMA */
    constexpr int QK = D / KSTEP;      /* MMA k-steps over the head dimension */
    constexpr float LOG2E = 1.4426950408889634f;
    const float NINF = mpcc_attn_ninf();

    MPCC_DYN_SMEM(float, smem);
    float *ksm = smem;               /* [2][BN][KS] */
    float *vsm = smem + 2 * C::k_tile; /* [2][BN][VS] */

    const int tid = (int)threadIdx.x, warp = tid >> 5, lane = tid & 31, g = lane >> 2, t = lane & 3;
    const int bz = (int)blockIdx.z, hy = (int)blockIdx.y, q0 = (int)blockIdx.x * BM;
    const int wrow = q0 + warp * 16;  /* first row of this warp */
    const int r0 = wrow + g, r1 = r0 + 8; /* the two rows this thread accumulates */
    const int seq_q = p.seq_q, seq_k = p.seq_k, off = seq_k - seq_q;

    const float *qb = p.q + bz * p.q_sb + hy * p.q_sh;
    const float *kb = p.k + bz * p.k_sb + hy * p.k_sh;
    const float *vb = p.v + bz * p.v_sb + hy * p.v_sh;
    float *ob = p.o + bz * p.o_sb + hy * p.o_sh;
    const float *mb = p.mask ? p.mask + bz * p.m_sb + hy * p.m_sh : 0;
    const int hd = PAD && p.hd > 0 && p.hd < D ? p.hd : D;
    const bool k_al = ((unsigned long long)kb & 15u) == 0 && (p.k_ss & 3) == 0 && (hd & 3) == 0;
    const bool v_al = ((unsigned long long)vb & 15u) == 0 && (p.v_ss & 3) == 0 && (hd & 3) == 0;

    /* Q fragments: 16-bit modes hold packed pairs, tf32 modes the f32 bits
     * (rounded / split at each use). Loaded once and kept in registers, except
     * for 3xTF32, where keeping them live next to their big/small splits and
     * the O accumulator would spill at D = 128: there they are re-read (from
     * L1/L2) for every key block. */
    constexpr bool Q_IN_REGS = MODE != MPCC_MMA_3XTF32 && !BOOL_MASK; /* (and under a boolean mask, whose
                                                                         * keep flags need the room) */
    uint32_t qa[QK][4];
    const bool qok0 = r0 < seq_q, qok1 = r1 < seq_q;
    const float *qr0 = qb + (qok0 ? r0 : 0) * p.q_ss, *qr1 = qb + (qok1 ? r1 : 0) * p.q_ss;
    if (Q_IN_REGS) mpcc_attn_load_q<MODE, D>(qa, qr0, qr1, qok0, qok1, t, hd);
    /* keys this CTA can see */
    int kv_end = seq_k;
    if (p.causal) {
        const int lim = q0 + BM + off; /* the last row's last key + 1 */
        if (lim < kv_end) kv_end = lim;
        if (kv_end < 0) kv_end = 0;
    }
    const int nblk = (kv_end + BN - 1) / BN;
    const float *mb0 = mb ? mb + (r0 < seq_q ? r0 : 0) * p.m_sq : 0, *mb1 = mb ? mb + (r1 < seq_q ? r1 : 0) * p.m_sq : 0;
    const int msk = (int)p.m_sk;
    /* boolean masks: for each key block every thread gathers the keep flags of its BN / 2 scores
     * into one 32-bit word (bit 4n + e: 1 keeps s[n][e], 0 fills it); the mask bases are formed
     * there from the parameters, so they hold no registers across the loop */
    static_assert(BN / 8 * 4 <= 32, "mpcc attention: keep flags do not fit in 32 bits");

    float o[D / 8][4];
    MPCC_ATTN_UNROLL
    for (int n = 0; n < D / 8; n++) o[n][0] = o[n][1] = o[n][2] = o[n][3] = 0.0f;
    float m0 = NINF, m1 = NINF, l0 = 0.0f, l1 = 0.0f;

    if (nblk > 0) {
        mpcc_attn_load_tile<D, BN, KS, NT>(ksm, kb, p.k_ss, 0, seq_k, k_al, tid, hd);
        mpcc_attn_load_tile<D, BN, VS, NT>(vsm, vb, p.v_ss, 0, seq_k, v_al, tid, hd);
        mpcc_cp_async_commit();
    }
    for (int j = 0; j < nblk; j++) {
        const int st = j & 1, key0 = j * BN;
        uint32_t kbits = 0xffffffffu;
        if (BOOL_MASK && p.bmode) {
            const unsigned char *bm0 = p.bmask0 + blockIdx.z * p.b0_sb + blockIdx.y * p.b0_sh;
            const unsigned char *bm1 = p.bmask1 + blockIdx.z * p.b1_sb + blockIdx.y * p.b1_sh;
            const bool fill_on = p.bmode == 2; /* KEEP fills where cond is false, FILL where true */
#if defined(__CUDA_ARCH__)
#pragma unroll 1
#endif
            for (int b = 0; b < BN / 2; b++) {
                const int row = (b & 2) ? r1 : r0, key = key0 + (b >> 2) * 8 + 2 * t + (b & 1);
                if (row < seq_q && key < seq_k) {
                    const bool cond = bm0[row * (int)p.b0_sq + key * (int)p.b0_sk] != 0 &&
                                      bm1[row * (int)p.b1_sq + key * (int)p.b1_sk] != 0;
                    kbits ^= (uint32_t)(cond == fill_on) << b;
                }
            }
        }

        if (j + 1 < nblk) { /* prefetch the next block into the other stage */
            mpcc_attn_load_tile<D, BN, KS, NT>(ksm + (st ^ 1) * C::k_tile, kb, p.k_ss, key0 + BN, seq_k, k_al, tid, hd);
            mpcc_attn_load_tile<D, BN, VS, NT>(vsm + (st ^ 1) * C::v_tile, vb, p.v_ss, key0 + BN, seq_k, v_al, tid, hd);
            mpcc_cp_async_commit();
            mpcc_cp_async_wait<1>();
        } else {
            mpcc_cp_async_wait<0>();
        }
        mpcc_sync();

        /* warp-uniform: skip warps with no valid row or whose rows see none of these keys */
        const bool active = wrow < seq_q && !(p.causal && key0 > wrow + 15 + off);
        if (active) {
            const float *kt = ksm + st * C::k_tile, *vt = vsm + st * C::v_tile;
            if (!Q_IN_REGS) mpcc_attn_load_q<MODE, D>(qa, qr0, qr1, qok0, qok1, t, hd);

            /* S = Q K^T: 16 rows x BN keys per warp */
            float s[BN / 8][4];
            MPCC_ATTN_UNROLL
            for (int n = 0; n < BN / 8; n++) s[n][0] = s[n][1] = s[n][2] = s[n][3] = 0.0f;
            MPCC_ATTN_UNROLL
            for (int kk = 0; kk < QK; kk++) {
                MPCC_ATTN_UNROLL
                for (int n = 0; n < BN / 8; n++) {
                    const float *kr = kt + (n * 8 + g) * KS + kk * KSTEP;
                    if (TF) {
                        const float a[4] = {mpcc_attn_bits2f(qa[kk][0]), mpcc_attn_bits2f(qa[kk][1]),
                                            mpcc_attn_bits2f(qa[kk][2]), mpcc_attn_bits2f(qa[kk][3])};
                        const float b[2] = {kr[t], kr[t + 4]};
                        mpcc_attn_mma_tf32<MODE>(s[n], a, b);
                    } else {
                        const mpcc_attn_f2 x0 = *(const mpcc_attn_f2 *)(kr + 2 * t);
                        const mpcc_attn_f2 x1 = *(const mpcc_attn_f2 *)(kr + 2 * t + 8);
                        const uint32_t b[2] = {mpcc_attn_pack<MODE>(x0.x, x0.y), mpcc_attn_pack<MODE>(x1.x, x1.y)};
                        mpcc_attn_mma16<MODE>(s[n], qa[kk], b);
                    }
                }
            }

            /* scale, mask, causal / edge masking, block row max */
            float mx0 = NINF, mx1 = NINF;
            const float *mp0 = mb0 + (key0 + 2 * t) * p.m_sk, *mp1 = mb1 + (key0 + 2 * t) * p.m_sk;
            MPCC_ATTN_UNROLL
            for (int n = 0; n < BN / 8; n++) {
                MPCC_ATTN_UNROLL
                for (int e = 0; e < 4; e++) {
                    const int row = e < 2 ? r0 : r1, key = key0 + n * 8 + 2 * t + (e & 1);
                    float x = s[n][e] * p.scale;
                    if (mb && key < seq_k) x += (e < 2 ? mp0 : mp1)[(n * 8 + (e & 1)) * msk];
                    if (BOOL_MASK && !((kbits >> (n * 4 + e)) & 1u)) x = p.fill;
                    if (key >= seq_k || (p.causal && key > row + off)) x = NINF;
                    s[n][e] = x;
                }
                mx0 = fmaxf(mx0, fmaxf(s[n][0], s[n][1]));
                mx1 = fmaxf(mx1, fmaxf(s[n][2], s[n][3]));
            }
            /* the 4 lanes of a quad share a row */
            mx0 = fmaxf(mx0, mpcc_shfl_xor(mx0, 1));
            mx0 = fmaxf(mx0, mpcc_shfl_xor(mx0, 2));
            mx1 = fmaxf(mx1, mpcc_shfl_xor(mx1, 1));
            mx1 = fmaxf(mx1, mpcc_shfl_xor(mx1, 2));

            /* online softmax; a row with no finite score yet uses 0 as its
             * reference so that exp(-inf - ref) = 0 instead of NaN */
            const float mn0 = fmaxf(m0, mx0), mn1 = fmaxf(m1, mx1);
            const float mu0 = mn0 == NINF ? 0.0f : mn0, mu1 = mn1 == NINF ? 0.0f : mn1;
            const float al0 = exp2f((m0 - mu0) * LOG2E), al1 = exp2f((m1 - mu1) * LOG2E);
            m0 = mn0;
            m1 = mn1;
            float rs0 = 0.0f, rs1 = 0.0f;
            MPCC_ATTN_UNROLL
            for (int n = 0; n < BN / 8; n++) {
                s[n][0] = exp2f((s[n][0] - mu0) * LOG2E);
                s[n][1] = exp2f((s[n][1] - mu0) * LOG2E);
                s[n][2] = exp2f((s[n][2] - mu1) * LOG2E);
                s[n][3] = exp2f((s[n][3] - mu1) * LOG2E);
                rs0 += s[n][0] + s[n][1];
                rs1 += s[n][2] + s[n][3];
            }
            l0 = l0 * al0 + rs0; /* per-lane partial sums; reduced over the quad at the end */
            l1 = l1 * al1 + rs1;
            MPCC_ATTN_UNROLL
            for (int n = 0; n < D / 8; n++) {
                o[n][0] *= al0;
                o[n][1] *= al0;
                o[n][2] *= al1;
                o[n][3] *= al1;
            }

            /* O += P V */
            if (TF) {
                /* one k-step = one 8-key accumulator tile. This lane holds
                 * P[g][2t], P[g][2t+1], P[g+8][2t], P[g+8][2t+1]; used as k slots
                 * t (key 2t) and t+4 (key 2t+1), so V's rows 2t and 2t+1 go in
                 * the same slots of the B fragment. */
                MPCC_ATTN_UNROLL
                for (int kk = 0; kk < BN / 8; kk++) {
                    const float a[4] = {s[kk][0], s[kk][2], s[kk][1], s[kk][3]};
                    const float *vr = vt + (kk * 8 + 2 * t) * VS + g;
                    MPCC_ATTN_UNROLL
                    for (int n = 0; n < D / 8; n++) {
                        const float b[2] = {vr[n * 8], vr[VS + n * 8]};
                        mpcc_attn_mma_tf32<MODE>(o[n], a, b);
                    }
                }
            } else {
                /* one k-step = two accumulator tiles, already in A-fragment order */
                MPCC_ATTN_UNROLL
                for (int kk = 0; kk < BN / 16; kk++) {
                    const uint32_t a[4] = {mpcc_attn_pack<MODE>(s[2 * kk][0], s[2 * kk][1]),
                                           mpcc_attn_pack<MODE>(s[2 * kk][2], s[2 * kk][3]),
                                           mpcc_attn_pack<MODE>(s[2 * kk + 1][0], s[2 * kk + 1][1]),
                                           mpcc_attn_pack<MODE>(s[2 * kk + 1][2], s[2 * kk + 1][3])};
                    const float *vr = vt + (kk * 16 + 2 * t) * VS + g;
                    MPCC_ATTN_UNROLL
                    for (int n = 0; n < D / 8; n++) {
                        const float *c = vr + n * 8;
                        const uint32_t b[2] = {mpcc_attn_pack<MODE>(c[0], c[VS]),
                                               mpcc_attn_pack<MODE>(c[8 * VS], c[9 * VS])};
                        mpcc_attn_mma16<MODE>(o[n], a, b);
                    }
                }
            }
        }
        mpcc_sync(); /* the stage just read is the next prefetch's target */
    }

    /* O /= l, store */
    l0 += mpcc_shfl_xor(l0, 1);
    l0 += mpcc_shfl_xor(l0, 2);
    l1 += mpcc_shfl_xor(l1, 1);
    l1 += mpcc_shfl_xor(l1, 2);
    const float inv0 = l0 > 0.0f ? 1.0f / l0 : 0.0f, inv1 = l1 > 0.0f ? 1.0f / l1 : 0.0f;
    float *o0 = ob + r0 * p.o_ss + 2 * t, *o1 = ob + r1 * p.o_ss + 2 * t;
    MPCC_ATTN_UNROLL
    for (int n = 0; n < D / 8; n++) {
        const bool c0 = n * 8 + 2 * t < hd, c1 = n * 8 + 2 * t + 1 < hd;
        if (r0 < seq_q) {
            if (c0) o0[n * 8] = o[n][0] * inv0;
            if (c1) o0[n * 8 + 1] = o[n][1] * inv0;
        }
        if (r1 < seq_q) {
            if (c0) o1[n * 8] = o[n][2] * inv1;
            if (c1) o1[n * 8 + 1] = o[n][3] * inv1;
        }
    }
}

#endif /* MPCC_CUDA_ATTENTION_CUH */
