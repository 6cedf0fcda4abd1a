/* driver.cpp - runs a generated model.cu (prefix "model") on raw input files and writes raw outputs:
 *   model_driver in0.bin ... out0.bin ...
 * Built by tests/test_cuda.py with -DN_IN, -DN_OUT, -DIN_BYTES, -DOUT_BYTES, -DUSE_GRAPH; as host C++
 * with -DMPCC_CUDA_EMU (the CPU emulator: the tests, no GPU) or with nvcc (tests/gpu/run.sh). */
#include "model.h"
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>
#ifdef MPCC_CUDA_EMU
#include "mpcc_cuda.cuh"
#else
#include <cuda_runtime.h>
#endif
/* args: in0.bin ... out0.bin ... ; N_IN/N_OUT, IN_BYTES/OUT_BYTES come from -D */
static const size_t in_bytes[] = {IN_BYTES}, out_bytes[] = {OUT_BYTES};
int main(int argc, char **argv) {
    if (argc != 1 + N_IN + N_OUT) return 2;
    model_cuda_ctx ctx;
    if (model_cuda_init(&ctx)) { fprintf(stderr, "init: %s\n", model_cuda_error(&ctx)); return 3; }
    std::vector<void *> din(N_IN + 1), dout(N_OUT + 1);
    for (int i = 0; i < N_IN; i++) {
        std::vector<unsigned char> h(in_bytes[i]);
        FILE *f = fopen(argv[1 + i], "rb");
        if (!f || fread(h.data(), 1, h.size(), f) != h.size()) return 4;
        fclose(f);
        cudaMalloc(&din[i], h.size() ? h.size() : 1);
        cudaMemcpy(din[i], h.data(), h.size(), cudaMemcpyHostToDevice);
    }
    for (int i = 0; i < N_OUT; i++) cudaMalloc(&dout[i], out_bytes[i] ? out_bytes[i] : 1);
    /* A CUDA graph is captured from a stream of one's own (the legacy default stream cannot be). */
    cudaStream_t stream = NULL;
    if (USE_GRAPH && cudaStreamCreate(&stream) != cudaSuccess) return 7;
    int rc = USE_GRAPH ? model_cuda_run_graph(&ctx, stream, din.data(), dout.data())
                       : model_cuda_run(&ctx, stream, din.data(), dout.data());
    if (!rc && USE_GRAPH) rc = model_cuda_run_graph(&ctx, stream, din.data(), dout.data()); /* replays */
    if (rc) { fprintf(stderr, "run: %d %s\n", rc, model_cuda_error(&ctx)); return 5; }
    cudaStreamSynchronize(stream);
    /* MPCC_BENCH_REPS=N (tests/gpu/run.sh): N more timed runs after 3 warm-ups; prints the median. */
    const char *reps_env = getenv("MPCC_BENCH_REPS");
    int reps = reps_env ? atoi(reps_env) : 0;
    if (reps > 0) {
        std::vector<double> ms;
        for (int r = -3; r < reps; r++) {
            auto t0 = std::chrono::steady_clock::now();
            rc = USE_GRAPH ? model_cuda_run_graph(&ctx, stream, din.data(), dout.data())
                           : model_cuda_run(&ctx, stream, din.data(), dout.data());
            cudaStreamSynchronize(stream);
            auto t1 = std::chrono::steady_clock::now();
            if (rc) { fprintf(stderr, "run: %d %s\n", rc, model_cuda_error(&ctx)); return 5; }
            if (r >= 0) ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
        }
        std::sort(ms.begin(), ms.end());
        printf("median_ms %.4f\n", ms[ms.size() / 2]);
    }
    for (int i = 0; i < N_OUT; i++) {
        std::vector<unsigned char> h(out_bytes[i]);
        cudaMemcpy(h.data(), dout[i], h.size(), cudaMemcpyDeviceToHost);
        FILE *f = fopen(argv[1 + N_IN + i], "wb");
        if (!f || fwrite(h.data(), 1, h.size(), f) != h.size()) return 6;
        fclose(f);
    }
    model_cuda_free(&ctx);
    return 0;
}
