#!/bin/sh
# tests/gpu/run.sh - everything that needs an NVIDIA GPU, in one call (the CI machine has none):
#  1. the CUDA tests of tests/test_cuda.py with the generated code built by nvcc and run on the
#     device instead of the CPU emulator (every zoo model that compiles for CUDA against the
#     reference interpreter, 16-bit tensor cores, CUDA-graph replay, nvcc/NVRTC/ptxas checks);
#  2. the JIT's unit test, whose GPU section (load, launch, check) runs when a device is present;
#  3. compute-sanitizer (memcheck) on one generated model;
#  4. the benchmark: mpcc's GEMM + fused epilogue and flash attention against PyTorch (cuBLAS +
#     separate epilogue, scaled_dot_product_attention's flash backend), and BERT end to end (CUDA
#     graph) against a PyTorch encoder of the same shape (eager, torch.compile), one table with ratios.
# Needs: nvcc, nvidia-smi, compute-sanitizer, python3 with torch; `make venv` (PyPI) for step 1, or
# PYTHON=python3 where that one has numpy, pytest and ai_edge_litert (PYTEST_ARGS: e.g. "-n 8").
set -eu
cd "$(dirname "$0")/../.."
export PATH="/usr/local/cuda/bin:$PATH"
cc=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -1 | tr -d .)
arch="sm_$cc"
echo "== GPU: $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1), $arch"
make -s build/mpcc
status=0

echo "== 1. generated code on the device"
# PYTHON: a python3 that has numpy, pytest and ai_edge_litert already (a machine without PyPI); else .venv.
if [ -n "${PYTHON:-}" ] || make -s venv >/dev/null 2>&1; then
    MPCC_CUDA_DEVICE=1 MPCC_CUDA_ARCH=$arch ${PYTHON:-.venv/bin/python} -m pytest -q -s ${PYTEST_ARGS:-} tests/test_cuda.py || status=1
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
# End to end: the zoo BERT (2 layers, hidden 128, 2 heads, FFN 128, seq 128) through the CUDA graph
# path against a PyTorch encoder of the same shape. BERT-base (12 x 768) needs
# build/models/bert_base_f32.tflite from `make models MODELS_BIG=1` (TensorFlow), used when present.
for spec in "bert_f32 tests/models/bert_f32.tflite 2 128 2 128" "bert_base build/models/bert_base_f32.tflite 12 768 12 3072"; do
    set -- $spec
    [ -f "$2" ] || { echo "SKIPPED e2e $1: $2 not made"; continue; }
    mkdir -p $w/e2e
    ./build/mpcc --target cuda "$2" -o $w/e2e/model.cu --name model || { status=1; continue; }
    nvcc -O3 -std=c++17 -arch=$arch -Iruntime/cuda -I$w/e2e $w/e2e/model.cu -x cu tests/cuda/driver.cpp -DN_IN=2 -DN_OUT=2 \
        -DIN_BYTES=MODEL_INPUT0_BYTES,MODEL_INPUT1_BYTES -DOUT_BYTES=MODEL_OUTPUT0_BYTES,MODEL_OUTPUT1_BYTES \
        -DUSE_GRAPH=1 -o $w/e2e/model_gpu || { status=1; continue; }
    python3 -c "import numpy as np; np.random.seed(1); np.random.randint(0, 100, 128).astype(np.int32).tofile('$w/e2e/ids.bin'); np.ones(128, np.int32).tofile('$w/e2e/mask.bin')"
    ms=$(MPCC_BENCH_REPS=50 $w/e2e/model_gpu $w/e2e/ids.bin $w/e2e/mask.bin $w/e2e/o0.bin $w/e2e/o1.bin | awk '/median_ms/ {print $2}')
    echo "e2e $1 $3 $4 $5 $6 1 128 $ms" >> $w/bench.txt
done
python3 tests/gpu/bench_peer.py $w/bench.txt || status=1
exit $status
