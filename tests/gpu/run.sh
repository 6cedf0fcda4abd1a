#!/bin/sh
# tests/gpu/run.sh - everything that needs an NVIDIA GPU, in one call (the CI machine has none):
#  1. the CUDA tests of tests/test_cuda.py with the generated code built by nvcc and run on the
#     device instead of the CPU emulator (every zoo model that compiles for CUDA against the
#     reference interpreter, 16-bit tensor cores, CUDA-graph replay, nvcc/NVRTC/ptxas checks);
#  2. the JIT's unit test, whose GPU section (load, launch, check) runs when a device is present;
#  3. compute-sanitizer (memcheck) on one generated model;
#  4. the benchmark: mpcc's GEMM + fused epilogue and flash attention against PyTorch (cuBLAS +
#     separate epilogue, scaled_dot_product_attention's flash backend), one table with ratios.
# Needs: nvcc, nvidia-smi, compute-sanitizer, python3 with torch; `make venv` (PyPI) for step 1.
set -eu
cd "$(dirname "$0")/../.."
export PATH="/usr/local/cuda/bin:$PATH"
cc=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -1 | tr -d .)
arch="sm_$cc"
echo "== GPU: $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1), $arch"
make -s build/mpcc
status=0

echo "== 1. generated code on the device"
if make -s venv >/dev/null 2>&1; then
    MPCC_CUDA_DEVICE=1 MPCC_CUDA_ARCH=$arch .venv/bin/python -m pytest -q -s tests/test_cuda.py || status=1
else
    echo "SKIPPED: make venv failed (no PyPI here?): the model checks need the TFLite interpreter"
fi

echo "== 2. JIT"
make -s build/unit/test_jit && ./build/unit/test_jit || status=1

echo "== 3. compute-sanitizer"
w=build/gpu && mkdir -p $w
./build/mpcc --target cuda tests/models/cnn_f32.tflite -o $w/model.cu --name model
nvcc -std=c++17 -arch=$arch -Iruntime/cuda -I$w $w/model.cu -x cu tests/cuda/driver.cpp -DN_IN=1 -DN_OUT=1 \
    -DIN_BYTES=MODEL_INPUT0_BYTES -DOUT_BYTES=MODEL_OUTPUT0_BYTES -DUSE_GRAPH=0 -o $w/model_gpu
head -c 3072 /dev/urandom > $w/in0.bin
compute-sanitizer --tool memcheck --error-exitcode 1 $w/model_gpu $w/in0.bin $w/out0.bin || status=1

echo "== 4. benchmark"
nvcc -O3 -std=c++17 -arch=$arch -Iruntime/cuda tests/gpu/bench_kernels.cu -o $w/bench_kernels
$w/bench_kernels > $w/bench.txt
python3 tests/gpu/bench_peer.py $w/bench.txt || status=1
exit $status
