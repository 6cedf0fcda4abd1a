"""The CUDA kernel library (runtime/cuda) on its own, without a GPU:
- the emulator against scalar references (tests/cuda_emu/test_emu.cpp);
- the tensor-core GEMMs and flash attention (tests/cuda/check_gemm.sh, check_attn.sh): nvcc for
  sm_80 and sm_90 with warnings as errors, ptxas -v with zero spill bytes for every kernel, NVRTC,
  and random shapes/masks/modes on the CPU emulator against double-precision references (the
  measured errors are printed)."""

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from mpcc_paths import BUILD_DIR, ROOT

HAVE_NVCC = shutil.which("nvcc") is not None or Path("/usr/local/cuda/bin/nvcc").exists()


def _run(cmd, timeout=1200):
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, cwd=ROOT)
    print(p.stdout[-6000:])
    return p


def test_emulator_self_test():
    exe = BUILD_DIR / "test_emu"
    exe.parent.mkdir(parents=True, exist_ok=True)
    p = _run(["g++", "-std=c++17", "-O1", "-Wall", "-Wextra", "-Werror", "-DMPCC_CUDA_EMU", "-Iruntime/cuda",
              "tests/cuda_emu/test_emu.cpp", "-o", str(exe)])
    assert p.returncode == 0, p.stderr[-3000:]
    p = _run([str(exe)])
    assert p.returncode == 0 and " 0 failed" in p.stdout, p.stdout[-3000:] + p.stderr[-2000:]


@pytest.mark.skipif(not HAVE_NVCC, reason="nvcc not found (the CUDA toolkit is not installed)")
@pytest.mark.parametrize("script", ["check_gemm.sh", "check_attn.sh"])
def test_kernel_checks(script):
    env = dict(os.environ, PATH="/usr/local/cuda/bin:" + os.environ.get("PATH", ""))
    p = subprocess.run(["sh", str(ROOT / "tests" / "cuda" / script)], capture_output=True, text=True, timeout=1800,
                       cwd=ROOT, env=env)
    print(p.stdout[-8000:])
    assert p.returncode == 0, p.stdout[-4000:] + p.stderr[-3000:]
    assert "FAIL" not in p.stdout.replace("0 failed", "")
