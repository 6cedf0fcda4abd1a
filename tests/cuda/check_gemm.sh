#!/bin/sh
# Build checks of runtime/cuda/mpcc_cuda_gemm.cuh (no GPU needed):
#  1. nvcc for sm_80 and sm_90 with every warning an error; ptxas -v must report zero
#     spill stores / loads for every GEMM kernel (registers per kernel printed);
#  2. NVRTC compile of the header and wrappers (sm_80, sm_90; no host headers);
#  3. bank-conflict count of every fragment read pattern (check_gemm_banks.py);
#  4. the CPU emulator run (tests/cuda/gemm_emu_test.cpp) when runtime/cuda/mpcc_cuda_emu.h exists.
# Usage: tests/cuda/check_gemm.sh [seed]    (from anywhere; builds under ${TMPDIR:-/tmp})
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
out=$(mktemp -d "${TMPDIR:-/tmp}/mpcc_gemm.XXXXXX")
trap 'rm -rf "$out"' EXIT
NVCC=${NVCC:-nvcc}
status=0

echo "== nvcc sm_80 + sm_90"
"$NVCC" -std=c++17 -gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=sm_90 \
    -Xptxas -v -Werror all-warnings -Xcompiler -Wall,-Wextra,-Werror \
    -I"$root/runtime/cuda" -I"$root/tests/cuda" "$root/tests/cuda/gemm_test.cu" -o "$out/gemm_test" \
    >"$out/ptxas.log" 2>&1 || { cat "$out/ptxas.log"; echo "nvcc build FAILED"; exit 1; }
awk '
/Compiling entry function/ { match($0, /'\''[^'\'']*'\''/); fn = substr($0, RSTART + 1, RLENGTH - 2);
                              match($0, /for '\''sm_[0-9]+'\''/); arch = substr($0, RSTART + 5, RLENGTH - 6) }
/spill stores/ { split($0, f, ","); st = f[2] + 0; ld = f[3] + 0; stack = f[1] + 0 }
/Used [0-9]+ registers/ && fn != "" {
    match($0, /Used [0-9]+ registers/); regs = substr($0, RSTART + 5, RLENGTH - 15) + 0
    bad = (st != 0 || ld != 0)
    printf "%-28s %-6s regs %3d  stack %3d  spill stores %d  spill loads %d%s\n", fn, arch, regs, stack, st, ld, bad ? "  <-- SPILL" : ""
    if (bad) nbad++
    n++; fn = ""
}
END { printf "%d kernel builds, %d with spills\n", n, nbad; if (nbad || n == 0) exit 1 }
' "$out/ptxas.log" || { echo "ptxas spill check FAILED"; status=1; }

echo "== NVRTC"
python3 "$root/tests/cuda/check_gemm_nvrtc.py" "$root" sm_80 sm_90 || { echo "NVRTC FAILED"; status=1; }

echo "== shared-memory banks of the fragment reads"
python3 "$root/tests/cuda/check_gemm_banks.py" || { echo "bank check FAILED"; status=1; }

if [ -f "$root/runtime/cuda/mpcc_cuda_emu.h" ]; then
    echo "== CPU emulator"
    ${CXX:-g++} -std=c++17 -O2 -Wall -Wextra -Werror -DMPCC_CUDA_EMU -I"$root/runtime/cuda" -I"$root/tests/cuda" \
        "$root/tests/cuda/gemm_emu_test.cpp" -o "$out/gemm_emu_test" || { echo "emulator build FAILED"; exit 1; }
    "$out/gemm_emu_test" "$@" || status=1
else
    echo "== CPU emulator: runtime/cuda/mpcc_cuda_emu.h not present, skipped"
fi
exit $status
