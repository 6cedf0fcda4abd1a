/* attn_emu_test.cpp - runs runtime/cuda/mpcc_cuda_attention.cuh on the CPU through the
 * CUDA emulator (mpcc_cuda_emu.h: every CUDA thread a fiber, mma/shfl emulated per the
 * PTX fragment layouts) and compares each MMA mode with a double-precision scalar
 * softmax(Q K^T * scale + mask) V.
 *
 *   g++ -std=c++17 -O2 -DMPCC_CUDA_EMU -Iruntime/cuda tests/cuda/attn_emu_test.cpp -o attn_emu_test
 *   ./attn_emu_test [seed]
 *
 * The reference forms each score as f32 does (f32 dot product rounded, times scale,
 * plus the mask in f32), so that a row masked entirely with a finite -1e9 is uniform in
 * both, as in TFLite; the softmax and the weighted sum are in double. Boolean masks (a fused
 * SELECT_V2) replace the scaled score by the fill value where the ANDed condition is false (KEEP)
 * or true (FILL), as runtime/rt_opt_attention.c. */
#include "mpcc_cuda_attention.cuh"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#define KERNEL(MODE, D) \
    extern "C" __global__ void __launch_bounds__(128) attn_m##MODE##_d##D(mpcc_attn_args p) { \
        const bool pad = p.hd > 0 && p.hd < D; /* the padded instantiations */                \
        if (p.bmode) pad ? mpcc_attn_body<MODE, D, true, true>(p) : mpcc_attn_body<MODE, D, true>(p); \
        else pad ? mpcc_attn_body<MODE, D, false, true>(p) : mpcc_attn_body<MODE, D>(p);       \
    }
#define KERNELS(MODE) KERNEL(MODE, 16) KERNEL(MODE, 32) KERNEL(MODE, 64) KERNEL(MODE, 128)
KERNELS(0)
KERNELS(1)
KERNELS(2)
KERNELS(3)

static unsigned long long rng_state;
static double urand(void) { /* splitmix64 -> [0, 1) */
    unsigned long long z = (rng_state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    return (double)(z >> 11) / 9007199254740992.0;
}
static float nrand(void) { /* roughly normal */
    return (float)((urand() + urand() + urand() + urand() - 2.0) * 1.7320508);
}

enum MaskKind { MASK_NONE, MASK_PAD, MASK_FULL_SS, MASK_FULL_BHSS, MASK_TRANSPOSED };
struct Case {
    const char *name;
    int B, H, Sq, Sk, D;
    MaskKind mask;
    int causal;
    int strided;    /* 1: [B, S, H, D] layout (heads interleaved) and rows padded by 1 float: unaligned */
    int special;    /* 1: the mask has a row all -1e9, a row all -inf, scattered -1e9 */
    float scale;    /* 0: 1/sqrt(D) */
    int bmode;      /* boolean masks (fused SELECT_V2): 0 none, 1 KEEP (score where cond), 2 FILL (fill where cond) */
    int two;        /* 1: cond = padding mask [B,Sk] && pattern [Sq,Sk] (two masks); 0: one [B,1,Sq,Sk] mask */
    float fill;
};

static const char *mode_name(int m) {
    return m == MPCC_MMA_TF32 ? "tf32" : m == MPCC_MMA_3XTF32 ? "3xtf32" : m == MPCC_MMA_BF16 ? "bf16" : "f16";
}
static double tolerance(int m) {
    return m == MPCC_MMA_BF16 ? 1e-2 : m == MPCC_MMA_3XTF32 ? 1e-5 : 2e-3;
}

typedef void (*kernel_t)(mpcc_attn_args);
template <int MODE> static void pick(int D, kernel_t *k, int *smem, int *bm, int *nt) {
#define PICK(DD)                                                  \
    if (D == DD) {                                                \
        *smem = mpcc_attn_cfg<MODE, DD>::smem_bytes;              \
        *bm = mpcc_attn_cfg<MODE, DD>::block_m;                   \
        *nt = mpcc_attn_cfg<MODE, DD>::threads;                   \
    }
    PICK(16) PICK(32) PICK(64) PICK(128)
#undef PICK
    static const kernel_t ks[4][4] = {{attn_m0_d16, attn_m0_d32, attn_m0_d64, attn_m0_d128},
                                      {attn_m1_d16, attn_m1_d32, attn_m1_d64, attn_m1_d128},
                                      {attn_m2_d16, attn_m2_d32, attn_m2_d64, attn_m2_d128},
                                      {attn_m3_d16, attn_m3_d32, attn_m3_d64, attn_m3_d128}};
    *k = ks[MODE][D == 16 ? 0 : D == 32 ? 1 : D == 64 ? 2 : 3];
}

static void launch(int mode, int D, const mpcc_attn_args &p) {
    kernel_t k = 0;
    int smem = 0, bm = 0, nt = 0;
    switch (mode) {
    case 0: pick<0>(D, &k, &smem, &bm, &nt); break;
    case 1: pick<1>(D, &k, &smem, &bm, &nt); break;
    case 2: pick<2>(D, &k, &smem, &bm, &nt); break;
    default: pick<3>(D, &k, &smem, &bm, &nt); break;
    }
    dim3 grid((unsigned)((p.seq_q + bm - 1) / bm), (unsigned)p.heads, (unsigned)p.batch);
    MPCC_LAUNCH(k, grid, dim3((unsigned)nt), smem, (cudaStream_t)0, p);
}

static const float SENTINEL = 12345.0f;

static int run_case(const Case &c, int mode, double *err_out) {
    const int B = c.B, H = c.H, Sq = c.Sq, Sk = c.Sk, D = c.D;
    const float scale = c.scale != 0.0f ? c.scale : 1.0f / sqrtf((float)D);
    /* layouts: contiguous [B,H,S,D], or [B,S,H,D] with row stride H*D+1 (unaligned) */
    long long ss_q, sh_q, sb_q, ss_k, sh_k, sb_k;
    if (c.strided) {
        ss_q = (long long)H * D + 1; sh_q = D; sb_q = ss_q * Sq + 3;
        ss_k = (long long)H * D + 1; sh_k = D; sb_k = ss_k * Sk + 5;
    } else {
        ss_q = D; sh_q = (long long)Sq * D; sb_q = sh_q * H;
        ss_k = D; sh_k = (long long)Sk * D; sb_k = sh_k * H;
    }
    const long long nq = sb_q * B + 8, nk = sb_k * B + 8;
    const int qoff = c.strided ? 1 : 0; /* base pointers off 16-byte alignment too */
    std::vector<float> q(nq), k(nk), v(nk), o(nq, SENTINEL);
    for (auto &x : q) x = nrand();
    for (auto &x : k) x = nrand();
    for (auto &x : v) x = nrand();

    /* mask storage and strides */
    std::vector<float> m;
    long long m_sb = 0, m_sh = 0, m_sq = 0, m_sk = 0;
    switch (c.mask) {
    case MASK_NONE: break;
    case MASK_PAD: /* [B,1,1,Sk]: the last keys of batch b padded with -1e9 */
        m.assign((size_t)B * Sk, 0.0f);
        for (int b = 0; b < B; b++)
            for (int j = 0; j < Sk; j++)
                if (j >= Sk - (b + 1) * Sk / 4 && j > 0) m[(size_t)b * Sk + j] = -1e9f;
        m_sb = Sk; m_sk = 1;
        break;
    case MASK_FULL_SS: /* [Sq,Sk], broadcast over batch and heads */
        m.resize((size_t)Sq * Sk);
        for (auto &x : m) x = nrand();
        m_sq = Sk; m_sk = 1;
        break;
    case MASK_FULL_BHSS:
        m.resize((size_t)B * H * Sq * Sk);
        for (auto &x : m) x = nrand();
        m_sk = 1; m_sq = Sk; m_sh = (long long)Sq * Sk; m_sb = m_sh * H;
        break;
    case MASK_TRANSPOSED: /* stored [Sk,Sq] */
        m.resize((size_t)Sq * Sk);
        for (auto &x : m) x = nrand();
        m_sq = 1; m_sk = Sq;
        break;
    }
    if (c.special && !m.empty()) { /* needs a [Sq,Sk]-shaped mask */
        for (size_t i = 0; i < m.size(); i++)
            if (urand() < 0.2) m[i] = -1e9f;
        auto at = [&](int i, int j) -> float & { return m[(size_t)(i * m_sq + j * m_sk)]; };
        if (Sq > 1)
            for (int j = 0; j < Sk; j++) at(1, j) = -1e9f;
        if (Sq > 2)
            for (int j = 0; j < Sk; j++) at(2, j) = -INFINITY;
    }

    /* boolean masks: one [B,1,Sq,Sk] (broadcast over heads), or [B,1,1,Sk] && [Sq,Sk] (broadcast) */
    std::vector<unsigned char> bm0, bm1;
    long long b0[4] = {0, 0, 0, 0}, b1[4] = {0, 0, 0, 0}; /* sb, sh, sq, sk */
    if (c.bmode && !c.two) {
        bm0.resize((size_t)B * Sq * Sk);
        for (auto &x : bm0) x = urand() < 0.3 ? 0 : (unsigned char)(1 + (int)(urand() * 3)); /* any nonzero is true */
        if (Sq > 1) /* a row all false */
            for (int j = 0; j < Sk; j++) bm0[(size_t)Sk + j] = c.bmode == 1 ? 0 : 1;
        b0[0] = (long long)Sq * Sk; b0[2] = Sk; b0[3] = 1;
    } else if (c.bmode) {
        bm0.assign((size_t)B * Sk, 1);
        for (int b = 0; b < B; b++)
            for (int j = Sk - 1 - b * 3; j < Sk; j++) bm0[(size_t)b * Sk + j] = 0;
        bm1.resize((size_t)Sq * Sk);
        for (int i = 0; i < Sq; i++)
            for (int j = 0; j < Sk; j++) bm1[(size_t)i * Sk + j] = j <= i + 3 || urand() < 0.2;
        b0[0] = Sk; b0[3] = 1;
        b1[2] = Sk; b1[3] = 1;
    }
    auto bcond = [&](int b, int h, int i, int j) -> bool {
        bool on = bm0[(size_t)(b * b0[0] + h * b0[1] + i * b0[2] + j * b0[3])] != 0;
        if (c.two) on = on && bm1[(size_t)(b * b1[0] + h * b1[1] + i * b1[2] + j * b1[3])] != 0;
        return on;
    };

    mpcc_attn_args p;
    memset(&p, 0, sizeof p);
    if (c.bmode) {
        p.bmode = c.bmode;
        p.fill = c.fill;
        p.bmask0 = bm0.data();
        p.b0_sb = b0[0]; p.b0_sh = b0[1]; p.b0_sq = b0[2]; p.b0_sk = b0[3];
        p.bmask1 = c.two ? bm1.data() : bm0.data();
        const long long *s1 = c.two ? b1 : b0;
        p.b1_sb = s1[0]; p.b1_sh = s1[1]; p.b1_sq = s1[2]; p.b1_sk = s1[3];
    }
    p.q = q.data() + qoff; p.k = k.data() + qoff; p.v = v.data() + qoff; p.o = o.data() + qoff;
    p.batch = B; p.heads = H; p.seq_q = Sq; p.seq_k = Sk;
    p.q_sb = sb_q; p.q_sh = sh_q; p.q_ss = ss_q;
    p.k_sb = sb_k; p.k_sh = sh_k; p.k_ss = ss_k;
    p.v_sb = sb_k; p.v_sh = sh_k; p.v_ss = ss_k;
    p.o_sb = sb_q; p.o_sh = sh_q; p.o_ss = ss_q;
    p.mask = m.empty() ? nullptr : m.data();
    p.m_sb = m_sb; p.m_sh = m_sh; p.m_sq = m_sq; p.m_sk = m_sk;
    p.scale = scale;
    p.causal = c.causal;
    /* a head dimension not 16/32/64/128 runs zero-padded to the next (p.hd, as the compiler emits it) */
    p.hd = D;
    launch(mode, D <= 16 ? 16 : D <= 32 ? 32 : D <= 64 ? 64 : 128, p);

    /* reference */
    double num = 0.0, den = 0.0;
    int bad = 0;
    std::vector<double> sc(Sk), ref(D);
    std::vector<char> written(nq, 0);
    for (int b = 0; b < B; b++)
        for (int h = 0; h < H; h++)
            for (int i = 0; i < Sq; i++) {
                const float *qi = q.data() + qoff + b * sb_q + h * sh_q + i * ss_q;
                double mx = -INFINITY;
                for (int j = 0; j < Sk; j++) {
                    const float *kj = k.data() + qoff + b * sb_k + h * sh_k + j * ss_k;
                    double dot = 0.0;
                    for (int d = 0; d < D; d++) dot += (double)qi[d] * kj[d];
                    float s = (float)dot * scale;
                    if (!m.empty()) s += m[(size_t)(b * m_sb + h * m_sh + i * m_sq + j * m_sk)];
                    if (c.bmode && bcond(b, h, i, j) != (c.bmode == 1)) s = c.fill;
                    if (c.causal && j > i + (Sk - Sq)) s = -INFINITY;
                    sc[j] = s;
                    if (sc[j] > mx) mx = sc[j];
                }
                double l = 0.0;
                for (int d = 0; d < D; d++) ref[d] = 0.0;
                if (mx != -INFINITY) {
                    for (int j = 0; j < Sk; j++) {
                        const double e = exp(sc[j] - mx);
                        l += e;
                        const float *vj = v.data() + qoff + b * sb_k + h * sh_k + j * ss_k;
                        for (int d = 0; d < D; d++) ref[d] += e * vj[d];
                    }
                    for (int d = 0; d < D; d++) ref[d] /= l;
                }
                const long long base = qoff + b * sb_q + h * sh_q + i * ss_q;
                for (int d = 0; d < D; d++) {
                    const double got = o[base + d];
                    written[base + d] = 1;
                    if (!std::isfinite(got)) bad++;
                    num += (got - ref[d]) * (got - ref[d]);
                    den += ref[d] * ref[d];
                }
            }
    for (long long x = 0; x < nq; x++)
        if (!written[x] && o[x] != SENTINEL) bad++; /* stored outside the output rows */
    const double err = den > 0.0 ? sqrt(num / den) : sqrt(num);
    *err_out = err;
    return bad == 0 && err <= tolerance(mode);
}

int main(int argc, char **argv) {
    unsigned long long seed = argc > 1 ? strtoull(argv[1], 0, 0) : 20240611ull;
    printf("seed %llu\n", seed);
    const Case cases[] = {
        {"seq 1", 1, 1, 1, 1, 16, MASK_NONE, 0, 0, 0, 0.0f, 0, 0, 0.0f},
        {"seq 1 causal", 1, 2, 1, 1, 64, MASK_NONE, 1, 0, 0, 0.0f, 0, 0, 0.0f},
        {"17x17 causal", 2, 3, 17, 17, 32, MASK_NONE, 1, 0, 0, 0.0f, 0, 0, 0.0f},
        {"17x17", 2, 3, 17, 17, 16, MASK_NONE, 0, 0, 0, 0.0f, 0, 0, 0.0f},
        {"64x64 pad mask", 2, 3, 64, 64, 64, MASK_PAD, 0, 0, 0, 0.0f, 0, 0, 0.0f},
        {"130x130 pad mask causal", 2, 3, 130, 130, 16, MASK_PAD, 1, 0, 0, 0.0f, 0, 0, 0.0f},
        {"130x130 full mask causal", 1, 2, 130, 130, 128, MASK_FULL_SS, 1, 0, 0, 0.0f, 0, 0, 0.0f},
        {"130x130", 1, 1, 130, 130, 64, MASK_NONE, 0, 0, 0, 0.0f, 0, 0, 0.0f},
        {"17x130 causal (kv cache)", 2, 3, 17, 130, 64, MASK_NONE, 1, 0, 0, 0.0f, 0, 0, 0.0f},
        {"130x17 causal (empty rows)", 1, 2, 130, 17, 32, MASK_NONE, 1, 0, 0, 0.0f, 0, 0, 0.0f},
        {"64x33 full mask -1e9/-inf rows", 2, 1, 64, 33, 32, MASK_FULL_SS, 0, 0, 1, 0.0f, 0, 0, 0.0f},
        {"33x70 bhss mask -1e9 causal", 2, 3, 33, 70, 128, MASK_FULL_BHSS, 1, 0, 1, 0.0f, 0, 0, 0.0f},
        {"33x70 strided unaligned", 2, 3, 33, 70, 64, MASK_PAD, 0, 1, 0, 0.0f, 0, 0, 0.0f},
        {"20x45 strided transposed mask", 1, 3, 20, 45, 16, MASK_TRANSPOSED, 0, 1, 0, 0.37f, 0, 0, 0.0f},
        {"70x64 scale 0.3", 1, 1, 70, 64, 128, MASK_NONE, 0, 0, 0, 0.3f, 0, 0, 0.0f},
        {"bool keep 1 mask -1e9", 2, 3, 33, 70, 64, MASK_NONE, 0, 0, 0, 0.0f, 1, 0, -1e9f},
        {"bool keep 2 masks lowest", 2, 2, 64, 64, 32, MASK_NONE, 0, 0, 0, 0.0f, 1, 1, -3.40282347e38f},
        {"bool fill 2 masks strided", 2, 3, 20, 45, 16, MASK_NONE, 0, 1, 0, 0.0f, 2, 1, -1e4f},
        {"bool fill 1 mask + add mask", 1, 2, 130, 17, 128, MASK_FULL_SS, 0, 0, 0, 0.0f, 2, 0, 0.5f},
        {"head 48 pad mask", 2, 3, 33, 70, 48, MASK_PAD, 0, 0, 0, 0.0f, 0, 0, 0.0f},
        {"head 6 strided bool keep", 1, 3, 20, 45, 6, MASK_NONE, 0, 1, 0, 0.0f, 1, 0, -1e9f},
        {"head 100 causal unaligned", 1, 2, 17, 40, 100, MASK_NONE, 1, 1, 0, 0.0f, 0, 0, 0.0f},
    };
    int passed = 0, failed = 0;
    for (int mode = 0; mode < 4; mode++) {
        double worst = 0.0;
        rng_state = seed; /* the same data for every mode */
        for (const Case &c : cases) {
            double err = 0.0;
            const int ok = run_case(c, mode, &err);
            if (err > worst) worst = err;
            printf("%-7s %-32s B%d H%d Sq%-4d Sk%-4d D%-4d rel_l2 %.3e (tol %.0e) %s\n", mode_name(mode), c.name, c.B,
                   c.H, c.Sq, c.Sk, c.D, err, tolerance(mode), ok ? "ok" : "FAIL");
            ok ? passed++ : failed++;
        }
        printf("%-7s worst rel_l2 %.3e\n", mode_name(mode), worst);
    }
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
