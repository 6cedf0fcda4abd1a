/* mpcc_cuda.cuh - the device prelude every mpcc CUDA kernel is written against.
 *
 * Kernels in runtime/cuda/ use these helpers instead of raw intrinsics or
 * inline PTX, for two reasons: the same source then builds with nvcc
 * (ahead of time), with NVRTC (the runtime JIT, no host headers), and with a
 * plain C++ compiler under MPCC_CUDA_EMU, where runtime/cuda/mpcc_cuda_emu.h
 * runs every CUDA thread of a block as a fiber on the CPU so that the tests
 * (no GPU in CI) execute the real kernel source against the reference
 * interpreter.
 *
 *   mpcc_sync()                         __syncthreads()
 *   mpcc_shfl_xor(v, mask)              __shfl_xor_sync over the full warp (float)
 *   mpcc_warp_sum(v), mpcc_warp_max(v)  butterfly reductions over the warp
 *   mpcc_cp_async16(smem, gmem)         16-byte cp.async.cg global -> shared
 *   mpcc_cp_async16_pred(smem, gmem, ok) the same; ok == 0 writes 16 zero bytes (gmem not read)
 *   mpcc_cp_async_commit()              close a group of cp.async
 *   mpcc_cp_async_wait<N>()             wait until at most N groups are pending
 *   mpcc_ldmatrix_x4(r, smem)           ldmatrix.sync.aligned.m8n8.x4.shared.b16
 *   mpcc_ldmatrix_x2_trans(r, smem)     ldmatrix ... .x2.trans
 *   mpcc_mma_bf16(d, a, b)              mma.sync m16n8k16 row.col f32 += bf16 x bf16
 *   mpcc_mma_f16(d, a, b)               mma.sync m16n8k16 row.col f32 += f16 x f16
 *   mpcc_mma_tf32(d, a, b)              mma.sync m16n8k8  row.col f32 += tf32 x tf32
 *   mpcc_mma_s8(d, a, b)                mma.sync m16n8k32 row.col s32 += s8 x s8
 *   mpcc_dp4a(a, b, c)                  __dp4a: c + dot of 4 signed bytes
 *   mpcc_f2bf / mpcc_bf2f, mpcc_f2h / mpcc_h2f   scalar conversions (bits in uint16_t,
 *                                       round to nearest even; NaN stays NaN; the same bits as
 *                                       the CPU runtime's rt_f32_to_bf16 / rt_f32_to_f16)
 *   mpcc_pack_bf16x2 / mpcc_pack_f16x2  two floats -> one 32-bit register (low = first)
 *   mpcc_f2tf32(x)                      round to tf32 (bits of a float)
 *
 * Fragment layouts are PTX's (ISA guide, "Matrix Fragments for mma.m16n8k16"):
 * with lane = threadIdx.x % 32, g = lane / 4, t = lane % 4,
 *   A (16x16, row): a[0] = A[g][2t..2t+1], a[1] = A[g+8][2t..], a[2] = A[g][2t+8..], a[3] = A[g+8][2t+8..]
 *   B (16x8,  col): b[0] = B[2t..2t+1][g], b[1] = B[2t+8..2t+9][g]
 *   C/D (16x8):     d[0..1] = C[g][2t..2t+1], d[2..3] = C[g+8][2t..2t+1]
 * (tf32 m16n8k8: a[0] = A[g][t], a[1] = A[g+8][t], a[2] = A[g][t+4], a[3] = A[g+8][t+4];
 *  b[0] = B[t][g], b[1] = B[t+4][g]. s8 m16n8k32: as bf16 with 4 bytes per register:
 *  a[0] = A[g][4t..4t+3], a[1] = A[g+8][4t..], a[2] = A[g][4t+16..], a[3] = A[g+8][4t+16..];
 *  b[0] = B[4t..4t+3][g], b[1] = B[4t+16..4t+19][g].)
 *
 * Launches go through MPCC_LAUNCH(kernel, grid, block, smem_bytes, stream, args...) and
 * dynamic shared memory through MPCC_DYN_SMEM(type, name), so that the emulator can
 * run them. Nothing here allocates.
 */
#ifndef MPCC_CUDA_CUH
#define MPCC_CUDA_CUH

#if defined(MPCC_CUDA_EMU)
#include "mpcc_cuda_emu.h"
#else

#if !defined(__CUDACC_RTC__)
#include <stdint.h>
#else
typedef signed char int8_t;
typedef unsigned char uint8_t;
typedef short int16_t;
typedef unsigned short uint16_t;
typedef int int32_t;
typedef unsigned int uint32_t;
typedef long long int64_t;
typedef unsigned long long uint64_t;
#endif

#define MPCC_DEV __device__ __forceinline__
#define MPCC_LAUNCH(kernel, grid, block, smem, stream, ...) kernel<<<(grid), (block), (smem), (stream)>>>(__VA_ARGS__)
#define MPCC_DYN_SMEM(type, name) extern __shared__ __align__(16) unsigned char mpcc_dyn_smem_[]; type *name = (type *)mpcc_dyn_smem_

MPCC_DEV void mpcc_sync(void) { __syncthreads(); }
MPCC_DEV float mpcc_shfl_xor(float v, int mask) { return __shfl_xor_sync(0xffffffffu, v, mask); }
MPCC_DEV float mpcc_warp_sum(float v) {
    for (int m = 16; m > 0; m >>= 1) v += __shfl_xor_sync(0xffffffffu, v, m);
    return v;
}
MPCC_DEV float mpcc_warp_max(float v) {
    for (int m = 16; m > 0; m >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, m));
    return v;
}

MPCC_DEV uint32_t mpcc_smem_addr(const void *p) { return (uint32_t)__cvta_generic_to_shared(p); }

MPCC_DEV void mpcc_cp_async16(void *smem, const void *gmem) {
#if __CUDA_ARCH__ >= 800
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(mpcc_smem_addr(smem)), "l"(gmem));
#else
    *(uint4 *)smem = *(const uint4 *)gmem;
#endif
}
MPCC_DEV void mpcc_cp_async16_pred(void *smem, const void *gmem, int ok) {
#if __CUDA_ARCH__ >= 800
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(mpcc_smem_addr(smem)), "l"(gmem),
                 "r"(ok ? 16 : 0));
#else
    if (ok) *(uint4 *)smem = *(const uint4 *)gmem;
    else *(uint4 *)smem = make_uint4(0, 0, 0, 0);
#endif
}
MPCC_DEV void mpcc_cp_async_commit(void) {
#if __CUDA_ARCH__ >= 800
    asm volatile("cp.async.commit_group;\n" ::);
#endif
}
template <int N> MPCC_DEV void mpcc_cp_async_wait(void) {
#if __CUDA_ARCH__ >= 800
    asm volatile("cp.async.wait_group %0;\n" ::"n"(N));
#endif
}

MPCC_DEV void mpcc_ldmatrix_x4(uint32_t r[4], const void *smem) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(mpcc_smem_addr(smem)));
}
MPCC_DEV void mpcc_ldmatrix_x2_trans(uint32_t r[2], const void *smem) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0,%1}, [%2];\n"
                 : "=r"(r[0]), "=r"(r[1])
                 : "r"(mpcc_smem_addr(smem)));
}

MPCC_DEV void mpcc_mma_bf16(float d[4], const uint32_t a[4], const uint32_t b[2]) {
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
                 "{%0,%1,%2,%3};\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}
MPCC_DEV void mpcc_mma_f16(float d[4], const uint32_t a[4], const uint32_t b[2]) {
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
                 "{%0,%1,%2,%3};\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}
MPCC_DEV void mpcc_mma_tf32(float d[4], const uint32_t a[4], const uint32_t b[2]) {
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
                 "{%0,%1,%2,%3};\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}
MPCC_DEV void mpcc_mma_s8(int32_t d[4], const uint32_t a[4], const uint32_t b[2]) {
    asm volatile("mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
                 "{%0,%1,%2,%3};\n"
                 : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}
MPCC_DEV int32_t mpcc_dp4a(int32_t a, int32_t b, int32_t c) { return __dp4a(a, b, c); }

MPCC_DEV uint32_t mpcc_f2tf32(float x) {
    uint32_t r;
    asm("cvt.rna.tf32.f32 %0, %1;\n" : "=r"(r) : "f"(x));
    return r;
}

#endif /* !MPCC_CUDA_EMU */

/* Scalar conversions, plain integer code shared by every build (bit-exact with
 * the CPU runtime's rt_f32_to_bf16 / rt_f32_to_f16). */
MPCC_DEV uint16_t mpcc_f2bf(float f) {
    union { float f; uint32_t u; } v;
    v.f = f;
    if ((v.u & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((v.u >> 16) | 0x40u);
    if ((v.u & 0x7f800000u) == 0) return (uint16_t)((v.u >> 16) & 0x8000u); /* subnormal: zero */
    return (uint16_t)((v.u + 0x7fffu + ((v.u >> 16) & 1u)) >> 16);
}
MPCC_DEV float mpcc_bf2f(uint16_t h) {
    union { float f; uint32_t u; } v;
    v.u = (uint32_t)h << 16;
    return v.f;
}
MPCC_DEV uint16_t mpcc_f2h(float f) {
    union { float f; uint32_t u; } v;
    v.f = f;
    uint32_t sign = (v.u >> 16) & 0x8000u, a = v.u & 0x7fffffffu;
    if (a > 0x7f800000u) return (uint16_t)(sign | 0x7e00u);
    if (a >= 0x477ff000u) return (uint16_t)(sign | 0x7c00u); /* rounds to >= 65520: inf */
    if (a < 0x38800000u) {                                    /* subnormal or zero in f16 */
        if (a < 0x33000000u) return (uint16_t)sign;           /* < 2^-25: rounds to 0 */
        uint32_t mant = (a & 0x7fffffu) | 0x800000u;
        int shift = 126 - (int)(a >> 23);                     /* 14 .. 24 */
        uint32_t q = mant >> shift, rem = mant & ((1u << shift) - 1u), half = 1u << (shift - 1);
        if (rem > half || (rem == half && (q & 1u))) q++;
        return (uint16_t)(sign | q);
    }
    uint32_t r = a - 0x38000000u; /* rebias 127 -> 15 */
    r = (r + 0xfffu + ((r >> 13) & 1u)) >> 13;
    return (uint16_t)(sign | r);
}
MPCC_DEV float mpcc_h2f(uint16_t h) {
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16, e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
    union { float f; uint32_t u; } v;
    if (e == 0x1f) v.u = sign | 0x7f800000u | (m << 13);
    else if (e) v.u = sign | ((e + 112u) << 23) | (m << 13);
    else if (!m) v.u = sign;
    else {
        int s = 0;
        while (!(m & 0x400u)) { m <<= 1; s++; }
        v.u = sign | ((uint32_t)(113 - s) << 23) | ((m & 0x3ffu) << 13);
    }
    return v.f;
}
MPCC_DEV uint32_t mpcc_pack_bf16x2(float lo, float hi) { return (uint32_t)mpcc_f2bf(lo) | ((uint32_t)mpcc_f2bf(hi) << 16); }
MPCC_DEV uint32_t mpcc_pack_f16x2(float lo, float hi) { return (uint32_t)mpcc_f2h(lo) | ((uint32_t)mpcc_f2h(hi) << 16); }

#endif
