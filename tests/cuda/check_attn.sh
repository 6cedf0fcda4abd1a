#!/bin/sh
# check_attn.sh - build checks for runtime/cuda/mpcc_cuda_attention.cuh (no GPU needed).
#  1. nvcc for sm_80 and sm_90, every MODE x D (with and without boolean masks) instantiated (tests/cuda/attn_test.cu), all
#     warnings as errors; fails if ptxas reports any spill for an attention kernel; prints
#     registers, spills and dynamic shared memory per kernel.
#  2. NVRTC (libnvrtc), the headers passed in memory with no include path (no host headers).
#  3. If runtime/cuda/mpcc_cuda_emu.h is present: tests/cuda/attn_emu_test.cpp on the CPU
#     emulator against a double-precision reference (SEED=... to change the data).
# Run from anywhere: sh tests/cuda/check_attn.sh
set -eu
cd "$(dirname "$0")/../.."
CUDA=${CUDA_HOME:-/usr/local/cuda}
NVCC=${NVCC:-$CUDA/bin/nvcc}
OUT=$(mktemp -d "${TMPDIR:-/tmp}/check_attn.XXXXXX")
trap 'rm -rf "$OUT"' EXIT

echo "== nvcc + ptxas (sm_80, sm_90)"
"$NVCC" -std=c++17 -gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=sm_90 \
    -Xptxas -v -Werror all-warnings -Xcompiler -Wall,-Wextra,-Werror -Iruntime/cuda \
    tests/cuda/attn_test.cu -o "$OUT/attn_test" >"$OUT/ptxas.log" 2>&1 || { cat "$OUT/ptxas.log"; exit 1; }
"$OUT/attn_test" >"$OUT/cfg.txt"
awk -v cfg="$OUT/cfg.txt" '
    BEGIN { while ((getline l < cfg) > 0) { split(l, f, " "); smem[f[2]] = f[4] " " f[6] } }
    /Compiling entry function/ { split($0, q, "'\''"); fn = q[2]; arch = q[4] }
    /spill stores/ { st = $5; ld = $9; frame = $1 }
    /Used [0-9]+ registers/ && fn ~ /^mpcc_attn_test_/ {
        for (i = 1; i <= NF; i++) if ($(i + 1) ~ /^registers/) regs = $i
        n++
        printf "%-26s %-6s %3d registers  %3d B stack  %3d B spill stores  %3d B spill loads  %s\n",
               fn, arch, regs, frame, st, ld, smem[fn]
        if (st + ld > 0) { bad++; print "  SPILL in " fn " for " arch }
        fn = ""
    }
    END {
        if (n != 64) { print "expected 64 attention kernels (16 x 2 boolean mask or not x 2 archs), ptxas reported " n; exit 1 }
        if (bad) { print bad " kernel(s) spill"; exit 1 }
        print "no spills in " n " kernels"
    }' "$OUT/ptxas.log"

echo "== NVRTC"
gcc -std=c11 -Wall -Wextra -Werror -I"$CUDA/include" tests/cuda/attn_nvrtc.c -o "$OUT/attn_nvrtc" \
    -L"$CUDA/lib64" -lnvrtc
LD_LIBRARY_PATH="$CUDA/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" "$OUT/attn_nvrtc" runtime/cuda sm_80 sm_90

if [ -f runtime/cuda/mpcc_cuda_emu.h ]; then
    echo "== CPU emulator"
    g++ -std=c++17 -O2 -Wall -Wextra -DMPCC_CUDA_EMU -Iruntime/cuda tests/cuda/attn_emu_test.cpp \
        -o "$OUT/attn_emu_test"
    "$OUT/attn_emu_test" ${SEED:-}
else
    echo "== CPU emulator: runtime/cuda/mpcc_cuda_emu.h not present, skipped"
fi
echo "check_attn: ok"
