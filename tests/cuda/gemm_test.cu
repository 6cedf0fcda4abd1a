/* nvcc build of every GEMM instantiation (the ptxas register / spill check of
 * check_gemm.sh) and, where a GPU is present, the same random-shape checks as the
 * emulator test, run on the device. */
#include "mpcc_cuda.cuh"
#include "mpcc_cuda_gemm.cuh"
#include "gemm_kernels.inc"
#include "gemm_check.h"

int main(int argc, char **argv) {
    int ndev = 0;
    if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev == 0) {
        printf("no CUDA device: build checks only\n");
        return 0;
    }
    unsigned seed = argc > 1 ? (unsigned)strtoul(argv[1], nullptr, 0) : 20240611u;
    return gemm_check::run_all(seed, false);
}
