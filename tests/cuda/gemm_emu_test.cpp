/* CPU run of the GEMM kernels through the emulator:
 *   g++ -std=c++17 -O2 -DMPCC_CUDA_EMU -Iruntime/cuda tests/cuda/gemm_emu_test.cpp -o gemm_emu_test
 *   ./gemm_emu_test [seed]                                                      */
#include "mpcc_cuda.cuh"
#include "mpcc_cuda_gemm.cuh"
#include "gemm_kernels.inc"
#include "gemm_check.h"

int main(int argc, char **argv) {
    unsigned seed = argc > 1 ? (unsigned)strtoul(argv[1], nullptr, 0) : 20240611u;
    return gemm_check::run_all(seed, true);
}
