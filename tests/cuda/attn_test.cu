/* attn_test.cu - build check for runtime/cuda/mpcc_cuda_attention.cuh:
 * instantiates every MODE x D the way the generated code does (one
 * extern "C" __global__ wrapper per op) so that ptxas reports registers and
 * spills for each; main() prints each configuration (no GPU needed).
 * Built by tests/cuda/check_attn.sh. */
#include <stdio.h>
#include "mpcc_cuda_attention.cuh"

#define MPCC_ATTN_KERNEL(MODE, D)                                                                      \
    extern "C" __global__ void __launch_bounds__(mpcc_attn_cfg<MODE, D>::threads)                      \
        mpcc_attn_test_m##MODE##_d##D(mpcc_attn_args p) {                                              \
        mpcc_attn_body<MODE, D>(p);                                                                    \
    }
#define MPCC_ATTN_BKERNEL(MODE, D)                                                                     \
    extern "C" __global__ void __launch_bounds__(mpcc_attn_cfg<MODE, D>::threads)                      \
        mpcc_attn_test_m##MODE##_d##D##_bool(mpcc_attn_args p) {                                       \
        mpcc_attn_body<MODE, D, true>(p);                                                              \
    }
#define MPCC_ATTN_KERNELS(MODE) \
    MPCC_ATTN_BKERNEL(MODE, 16) MPCC_ATTN_BKERNEL(MODE, 32) MPCC_ATTN_BKERNEL(MODE, 64) MPCC_ATTN_BKERNEL(MODE, 128) \
    MPCC_ATTN_KERNEL(MODE, 16) MPCC_ATTN_KERNEL(MODE, 32) MPCC_ATTN_KERNEL(MODE, 64) MPCC_ATTN_KERNEL(MODE, 128)
MPCC_ATTN_KERNELS(0)
MPCC_ATTN_KERNELS(1)
MPCC_ATTN_KERNELS(2)
MPCC_ATTN_KERNELS(3)

template <int MODE, int D> static void print_cfg(void) {
    typedef mpcc_attn_cfg<MODE, D> C;
    printf("cfg mpcc_attn_test_m%d_d%d block_m=%d block_n=%d threads=%d smem_bytes=%d\n", MODE, D, C::block_m,
           C::block_n, C::threads, C::smem_bytes);
}
template <int MODE> static void print_mode(void) {
    print_cfg<MODE, 16>();
    print_cfg<MODE, 32>();
    print_cfg<MODE, 64>();
    print_cfg<MODE, 128>();
}

int main(void) {
    print_mode<0>();
    print_mode<1>();
    print_mode<2>();
    print_mode<3>();
    return 0;
}
