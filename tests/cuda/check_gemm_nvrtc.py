#!/usr/bin/env python3
"""Compile runtime/cuda/mpcc_cuda_gemm.cuh and the test wrappers (gemm_kernels.inc) with
NVRTC, as the JIT will: headers passed in memory, no include path, no host headers.
Usage: check_gemm_nvrtc.py REPO_ROOT [arch ...]   (default archs: sm_80 sm_90)"""
import ctypes, os, sys

root = sys.argv[1]
archs = sys.argv[2:] or ["sm_80", "sm_90"]
cuda = os.environ.get("CUDA_HOME", "/usr/local/cuda")
lib = ctypes.CDLL(os.path.join(cuda, "lib64", "libnvrtc.so"))
lib.nvrtcGetErrorString.restype = ctypes.c_char_p

hdrs = {
    "mpcc_cuda.cuh": os.path.join(root, "runtime/cuda/mpcc_cuda.cuh"),
    "mpcc_cuda_args.h": os.path.join(root, "runtime/cuda/mpcc_cuda_args.h"),
    "mpcc_cuda_args_s16.h": os.path.join(root, "runtime/cuda/mpcc_cuda_args_s16.h"),
    "mpcc_cuda_args_misc.h": os.path.join(root, "runtime/cuda/mpcc_cuda_args_misc.h"),
    "mpcc_cuda_args_rnn.h": os.path.join(root, "runtime/cuda/mpcc_cuda_args_rnn.h"),
    "mpcc_cuda_gemm.cuh": os.path.join(root, "runtime/cuda/mpcc_cuda_gemm.cuh"),
    "gemm_kernels.inc": os.path.join(root, "tests/cuda/gemm_kernels.inc"),
    "mpcc_cuda_args_hybrid.h": os.path.join(root, "runtime/cuda/mpcc_cuda_args_hybrid.h"),
}
src = b'#include "mpcc_cuda.cuh"\n#include "mpcc_cuda_gemm.cuh"\n#include "gemm_kernels.inc"\n'
names = list(hdrs)
n = len(names)
H = (ctypes.c_char_p * n)(*[open(hdrs[k], "rb").read() for k in names])
N = (ctypes.c_char_p * n)(*[k.encode() for k in names])
fails = 0
for arch in archs:
    prog = ctypes.c_void_p()
    r = lib.nvrtcCreateProgram(ctypes.byref(prog), src, b"gemm_nvrtc.cu", n, H, N)
    assert r == 0, lib.nvrtcGetErrorString(r)
    opts = [b"--gpu-architecture=" + arch.encode(), b"-std=c++17"]
    O = (ctypes.c_char_p * len(opts))(*opts)
    r = lib.nvrtcCompileProgram(prog, len(opts), O)
    size = ctypes.c_size_t()
    lib.nvrtcGetProgramLogSize(prog, ctypes.byref(size))
    log = ctypes.create_string_buffer(size.value)
    lib.nvrtcGetProgramLog(prog, log)
    text = log.value.decode(errors="replace").strip()
    if r != 0:
        print(f"NVRTC {arch}: FAILED: {lib.nvrtcGetErrorString(r).decode()}\n{text}")
        fails += 1
    else:
        csize = ctypes.c_size_t()
        lib.nvrtcGetCUBINSize(prog, ctypes.byref(csize))
        print(f"NVRTC {arch}: ok, cubin {csize.value} bytes" + (f"\n{text}" if text else ""))
        if "warning" in text:
            fails += 1
    lib.nvrtcDestroyProgram(ctypes.byref(prog))
sys.exit(1 if fails else 0)
