"""--target cuda without a GPU (CI has the CUDA toolkit, no device).

1. Every model (zoo, samples, shared) either compiles with --target cuda or is refused with exit 1
   and a message naming each operator that has no CUDA kernel (never a crash or exit 2).
2. Every generated .cu builds with nvcc for sm_80 and sm_90, warnings as errors (host and device),
   several models per translation unit (their symbols are prefixed), and ptxas reports zero spill
   bytes for every tensor-core GEMM and attention kernel.
3. The generated .cu files run on the CPU through the emulator (runtime/cuda/mpcc_cuda_emu.h: every
   CUDA thread a fiber, mma/ldmatrix/shuffles by their PTX fragment layouts) and match mpcc's
   reference interpreter: fp32 (3xTF32 tensor cores) within 1e-4 relative L2, bf16/fp16 within 1e-2.
4. NVRTC compiles the kernels of every generated .cu (the JIT's compiler; needs no GPU).
"""

import ctypes
import os
import re
import shutil
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest

from mpcc_paths import MPCC, ROOT, all_models, model_id, shared_models, zoo_models
from mpcc_tools import count_outputs, custom_lib, model_args, mpcc_run, new_workdir, run_cmd
from oracle import draw_inputs, load

# one pytest-xdist worker runs this module: its module fixtures build once
pytestmark = pytest.mark.xdist_group("cuda")

CUDA_INC = ROOT / "runtime" / "cuda"
NVCC = shutil.which("nvcc") or ("/usr/local/cuda/bin/nvcc" if Path("/usr/local/cuda/bin/nvcc").exists() else None)
REFUSED = "cannot run on --target cuda"


def _compile_all():
    """{model path: (returncode, stderr)} for every model, compiled into build/tests/cuda-all-*/ (one per process:
    xdist workers without --dist loadgroup each build their own)."""
    work = new_workdir("cuda-all")
    models = all_models()

    def one(ix_m):
        ix, m = ix_m
        out = work / f"m{ix}.cu"
        p = run_cmd([MPCC, "--target", "cuda", m, "-o", out, "--name", f"m{ix}", *model_args(m)])
        return m, (p.returncode, p.stderr, out)

    with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as ex:
        return dict(ex.map(one, enumerate(models)))


@pytest.fixture(scope="module")
def compiled():
    return _compile_all()


def test_every_model_compiles_or_names_its_ops(compiled):
    ok = [m for m, (rc, _, _) in compiled.items() if rc == 0]
    refused = {m: err for m, (rc, err, _) in compiled.items() if rc == 1}
    bad = {m: (rc, err) for m, (rc, err, _) in compiled.items() if rc not in (0, 1)}
    assert not bad, "crash or internal error:\n" + "\n".join(f"{model_id(m)}: rc {rc}: {e[-400:]}" for m, (rc, e) in bad.items())
    for m, err in refused.items():
        assert REFUSED in err or "not available with --target cuda" in err, \
            f"{model_id(m)}: unclear refusal: {err[-600:]}"
        if REFUSED in err:
            assert re.search(r"operator \d+ \([A-Z_0-9]+, \w+ input\)", err), f"{model_id(m)}: no operator named: {err}"
    print(f"\n--target cuda: {len(ok)} of {len(compiled)} models compile, {len(refused)} refused with the ops named")
    assert len(ok) >= 50, f"only {len(ok)} models compile for CUDA"


def _groups(paths, size):
    return [paths[i:i + size] for i in range(0, len(paths), size)]


def _covering(cus):
    """The generated .cu files, smallest first (then in model order), that each bring a kernel body
    (with its template arguments: the tile configuration) no earlier one launched: a fixed sample that
    still builds and runs every kernel `make test` can generate, at the least nvcc and emulator time
    (a big model is taken only for a body no small one has). The other files run under `make test-full`."""
    picked, seen = [], set()
    for cu in sorted(cus, key=lambda p: (Path(p).stat().st_size, int(Path(p).stem[1:]))):
        bodies = frozenset(re.findall(r"\{ (mpcc_\w+(?:<[^>]*>)?)\(p\); \}", Path(cu).read_text()))
        if bodies - seen:
            seen |= bodies
            picked.append(cu)
    return picked


def _part(cus, part):
    """part "sample": the covering set (make test); "rest": every other file (make test-full)."""
    picked = _covering(cus)
    return picked if part == "sample" else [c for c in cus if c not in set(picked)]


SAMPLE_OR_REST = [pytest.param("sample"), pytest.param("rest", marks=pytest.mark.full)]


@pytest.mark.skipif(NVCC is None, reason="nvcc not found (the CUDA toolkit is not installed)")
@pytest.mark.parametrize("part", SAMPLE_OR_REST)
def test_nvcc_builds_every_generated_cu_for_sm80_sm90(compiled, part):
    cus = _part([out for rc, _, out in compiled.values() if rc == 0], part)
    assert cus
    work = cus[0].parent
    units = []
    for gi, group in enumerate(_groups(cus, 40)):
        unit = work / f"unit-{part}{gi}.cu"
        unit.write_text("".join(f'#include "{p.name}"\n' for p in group))
        units.append(unit)

    def build(unit):
        return run_cmd([NVCC, "-std=c++17", "-gencode", "arch=compute_80,code=sm_80", "-gencode",
                        "arch=compute_90,code=sm_90", "-Werror", "all-warnings", "-Xptxas", "-v",
                        "-Xcompiler", "-Wall,-Wextra,-Werror", "-I", CUDA_INC, "-I", work, "-c", unit,
                        "-o", unit.with_suffix(".o")])

    with ThreadPoolExecutor(max_workers=2) as ex:
        procs = list(ex.map(build, units))
    kernels = spills = 0
    for unit, p in zip(units, procs):
        assert p.returncode == 0, f"{unit.name}:\n{p.stderr[-4000:]}"
        # ptxas -v: "Compiling entry function 'mN_kK' for 'sm_80'" then "... bytes spill stores, ... bytes spill loads"
        current = None
        for line in p.stderr.splitlines():
            m = re.search(r"Compiling entry function '(\w+)'", line)
            if m:
                current = m.group(1)
            m = re.search(r"(\d+) bytes spill stores, (\d+) bytes spill loads", line)
            if m and current:
                kernels += 1
                if int(m.group(1)) or int(m.group(2)):
                    spills += 1
                    print("spill:", current, line.strip())
    print(f"\nnvcc ({part}): {len(cus)} generated .cu files in {len(units)} units, sm_80 + sm_90; {kernels} kernel builds, {spills} with spills")
    assert kernels > 0 and spills == 0


# ---- the CPU emulator ----------------------------------------------------------------------

# MPCC_CUDA_DEVICE=1 (tests/gpu/run.sh, on a machine with a GPU): the same tests build the generated
# code with nvcc and run it on the device instead of the emulator.
ON_DEVICE = os.environ.get("MPCC_CUDA_DEVICE") == "1"


def _emu_build(work, n_in, n_out, graph, lib=None):
    """lib: a shared library to link (a custom op's user kernel, build/custom/lib*.so) or None."""
    link = ["-L", lib.parent, "-l" + lib.stem[3:], "-Xlinker", "-rpath", "-Xlinker", lib.parent] if lib else []
    ins = ",".join(f"MODEL_INPUT{i}_BYTES" for i in range(n_in)) or "0"
    outs = ",".join(f"MODEL_OUTPUT{i}_BYTES" for i in range(n_out)) or "0"
    defs = [f"-DN_IN={n_in}", f"-DN_OUT={n_out}", f"-DIN_BYTES={ins}", f"-DOUT_BYTES={outs}", f"-DUSE_GRAPH={int(graph)}"]
    exe = work / f"model-{'gpu' if ON_DEVICE else 'emu'}{'-graph' if graph else ''}"
    if ON_DEVICE:
        arch = os.environ.get("MPCC_CUDA_ARCH", "sm_90")
        p = run_cmd([NVCC, "-std=c++17", f"-arch={arch}", "-O2", "-I", CUDA_INC, "-I", work, work / "model.cu",
                     "-x", "cu", ROOT / "tests" / "cuda" / "driver.cpp", *defs, "-o", exe, *link])
        return p, exe
    p = run_cmd(["g++", "-std=c++17", "-O1", "-Wall", "-Wextra", "-Werror", "-DMPCC_CUDA_EMU", "-I", CUDA_INC,
                 "-I", work, "-x", "c++", work / "model.cu", "-x", "c++", ROOT / "tests" / "cuda" / "driver.cpp",
                 *defs, "-o", exe, *link])
    return p, exe


def _rel_l2(ref, got):
    ref = ref.astype(np.float64).ravel()
    got = got.astype(np.float64).ravel()
    den = np.linalg.norm(ref)
    return float(np.linalg.norm(ref - got) / den) if den > 0 else float(np.abs(got).max(initial=0))


def _run_emu(model, extra, seed, tol, graph=False):
    """Compiles model for CUDA (None if refused), runs it on the emulator (or the device) and
    returns per output the relative L2 error (float) or max |diff| (integer) against `mpcc run`."""
    work = new_workdir("cuda-emu-" + model.stem)
    p = run_cmd([MPCC, "--target", "cuda", model, "-o", work / "model.cu", "--name", "model", *model_args(model), *extra])
    if p.returncode == 1 and REFUSED in p.stderr:
        return None
    assert p.returncode == 0, p.stderr
    ins = draw_inputs(model, seed, load(model))
    n_out = count_outputs(model)
    proc, ref = mpcc_run(model, ins, work, n_out)
    assert proc.returncode == 0, proc.stderr
    lib = custom_lib(model)  # a custom op's user kernel (run on the host), as `mpcc run` loads it
    p, exe = _emu_build(work, len(ins), n_out, graph, Path(lib[1]) if lib else None)
    assert p.returncode == 0, p.stderr[-4000:]
    args = [exe]
    for i, a in enumerate(ins):
        np.ascontiguousarray(a).tofile(work / f"in{i}.bin")
        args.append(work / f"in{i}.bin")
    args += [work / f"out{i}.bin" for i in range(n_out)]
    r = run_cmd(args, timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    errs = []
    for i, want in enumerate(ref):
        got = np.fromfile(work / f"out{i}.bin", dtype=want.dtype).reshape(want.shape)
        if want.dtype.kind == "f":
            errs.append(_rel_l2(want, got))
        else:
            errs.append(float(np.abs(want.astype(np.int64) - got.astype(np.int64)).max(initial=0)))
    return errs


@pytest.mark.parametrize("part", SAMPLE_OR_REST)
def test_emulated_cuda_matches_reference(compiled, part):
    """Every zoo model that compiles for CUDA, run on the emulator, against the reference interpreter:
    float outputs within 1e-4 relative L2 (3xTF32 GEMMs), integer outputs exact. make test runs the
    models that cover every kernel body (_covering), make test-full the others."""
    zoo = set(zoo_models())
    eligible = {out: m for m, (rc, _, out) in compiled.items()
                if rc == 0 and m in zoo and m.stat().st_size < 2_000_000}
    models = [eligible[cu] for cu in _part(list(eligible), part)]
    assert models
    failures, worst = [], 0.0

    def one(m):
        seed = 1000 + sum(m.name.encode()) % 1000
        return m, seed, _run_emu(m, [], seed, 1e-4)

    # Each model builds and runs in its own work directory: one per core.
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as ex:
        results = list(ex.map(one, models))
    for m, seed, errs in results:
        int_out = [e for e in errs if float(e).is_integer() and e >= 1]
        if any(e > 1e-4 for e in errs):
            failures.append(f"{model_id(m)} (seed {seed}): {errs}")
        worst = max([worst] + [e for e in errs if e not in int_out])
    print(f"\nemulated CUDA ({part}): {len(models)} zoo models against the reference interpreter, worst float rel L2 "
          f"{worst:.2e}, {len(failures)} failures")
    assert not failures, "\n".join(failures)


@pytest.mark.parametrize("name", ["landmark_f32", "segnet_int8"])
def test_emulated_cuda_mediapipe_style_cnn(name, seed):
    """The converter-made MediaPipe-style CNNs run whole on the emulator, whatever the covering sample picks:
    landmark_f32 (PRELU, channel PAD residuals, 5x5 depthwise) within 1e-4 relative L2, segnet_int8
    (RESIZE_BILINEAR, TRANSPOSE_CONV) exact, against the reference interpreter."""
    errs = _run_emu(ROOT / "tests" / "models" / f"{name}.tflite", [], seed, 1e-4)
    assert errs is not None, f"{name} was refused for --target cuda"
    assert all(e <= 1e-4 for e in errs) and (name.endswith("_f32") or all(e == 0 for e in errs)), errs


@pytest.mark.parametrize("flags,tol", [(["--precision", "bf16"], 1e-2), (["--precision", "fp16"], 2e-3),
                                       (["--tf32"], 3e-3)], ids=["bf16", "fp16", "tf32"])
def test_emulated_cuda_low_precision_tensor_cores(flags, tol):
    """16-bit and single-pass TF32 tensor cores: within their tolerance of the fp32 reference, and
    not bit-equal to it (the low-precision path really ran)."""
    model = ROOT / "tests" / "models" / "mlp_f32.tflite"
    errs = _run_emu(model, flags, 7, tol)
    print(f"{flags}: rel L2 {errs}")
    assert errs is not None and all(e <= tol for e in errs) and any(e > 1e-6 for e in errs), errs


@pytest.mark.parametrize("mode,tol", [("bf16", 1e-2), ("fp16", 2e-3)])
def test_emulated_cuda_half_conv(mode, tol):
    """--precision bf16/fp16 stores CONV_2D filters in 16 bits: the CUDA convolution reads them (inputs
    rounded to the same type), within the precision's tolerance of the fp32 reference."""
    model = ROOT / "tests" / "models" / "cnn_f32.tflite"
    errs = _run_emu(model, ["--precision", mode], 7, tol)
    print(f"{mode}: rel L2 {errs}")
    assert errs is not None and all(0 < e <= tol for e in errs), errs


def test_emulated_cuda_graph_replay():
    model = ROOT / "tests" / "models" / "cnn_f32.tflite"
    errs = _run_emu(model, [], 3, 1e-4, graph=True)
    assert errs is not None and all(e <= 1e-4 for e in errs), errs


# Shared (third-party) models whose emulated run takes over ~60 s (a CUDA thread is a fiber there):
# compiled and built by the tests above, not run on the emulator.
EMU_TOO_SLOW = {"mobilenet_v2_int8_from_pytorch.tflite"}  # 224x224 int8 MobileNetV2: ~45 s emulated


def test_emulated_cuda_shared_int8_models(compiled):
    """The shared int8 models (TFLM's) that compile for CUDA, on the emulator: outputs bit-exact with the
    reference interpreter. int8 models: their generated code launches int8 kernels (mpcc_*_s8_*)."""
    shared = set(shared_models())
    models = [m for m, (rc, _, out) in compiled.items() if rc == 0 and m in shared and "_s8_args" in Path(out).read_text()]
    if not models:
        pytest.skip("no shared int8 model compiles for CUDA (../shared/models absent?)")
    ran, failures = [], []
    for m in models:
        if m.name in EMU_TOO_SLOW:
            continue
        errs = _run_emu(m, [], 4242, 0)
        ran.append(model_id(m))
        if errs is None or any(e != 0 for e in errs):
            failures.append(f"{model_id(m)}: {errs}")
    print(f"\nemulated CUDA: {len(ran)} shared int8 models bit-exact against the reference interpreter "
          f"({', '.join(ran)}); skipped as too slow emulated: {sorted(EMU_TOO_SLOW)}")
    assert not failures, "\n".join(failures)


def test_emulated_cuda_shared_models_with_kernels_no_zoo_model_has(compiled):
    """Shared models whose generated code launches a kernel body that no zoo model launches (e.g.
    the int16 PAD of TFLM's seanet models), one per such body (_covering), on the emulator: outputs
    bit-exact (integer) or within 1e-4 (float) of the reference interpreter."""
    zoo, shared = set(zoo_models()), set(shared_models())
    ok = {out: m for m, (rc, _, out) in compiled.items() if rc == 0}
    zoo_bodies = set()
    for out, m in ok.items():
        if m in zoo:
            zoo_bodies |= set(re.findall(r"\{ (mpcc_\w+(?:<[^>]*>)?)\(p\); \}", Path(out).read_text()))
    cands = [out for out, m in ok.items() if m in shared and m.name not in EMU_TOO_SLOW and
             set(re.findall(r"\{ (mpcc_\w+(?:<[^>]*>)?)\(p\); \}", Path(out).read_text())) - zoo_bodies]
    if not cands:
        pytest.skip("no shared model brings a kernel body of its own (../shared/models absent?)")
    failures = []
    for out in _covering(cands):
        errs = _run_emu(ok[out], [], 4242, 0)
        print(f"{model_id(ok[out])}: {errs}")
        if errs is None or any(e > 1e-4 for e in errs):
            failures.append(f"{model_id(ok[out])}: {errs}")
    assert not failures, "\n".join(failures)


# ---- NVRTC -----------------------------------------------------------------------------------

def _nvrtc():
    for name in (os.environ.get("MPCC_NVRTC_LIB"), "libnvrtc.so", "/usr/local/cuda/lib64/libnvrtc.so"):
        if not name:
            continue
        try:
            return ctypes.CDLL(name)
        except OSError:
            pass
    return None


def _inline_headers(src):
    """The kernel part of a generated .cu with runtime/cuda's headers pasted in (NVRTC has no
    include path here), each once."""
    seen = set()

    def expand(text):
        out = []
        for line in text.splitlines():
            m = re.match(r'#include "(mpcc_cuda[a-z0-9_]*\.(?:cuh|h))"', line)
            if m:
                if m.group(1) not in seen:
                    seen.add(m.group(1))
                    out.append(expand((CUDA_INC / m.group(1)).read_text()))
                continue
            out.append(line)
        return "\n".join(out)

    kernels = src.split("/* ---- kernels ---- */", 1)[1].split("/* ---- host ---- */", 1)[0]
    head = "\n".join(l for l in src.splitlines() if l.startswith('#include "mpcc_cuda'))
    return expand(head) + "\n" + kernels


@pytest.mark.skipif(_nvrtc() is None, reason="libnvrtc not found (the CUDA toolkit is not installed)")
def test_nvrtc_compiles_generated_kernels(compiled):
    lib = _nvrtc()
    # The kernel bodies are shared: the covering sample has every body and tile config.
    picked = _covering([out for rc, _, out in compiled.values() if rc == 0])
    assert picked
    for cu in picked:
        src = _inline_headers(cu.read_text()).encode()
        prog = ctypes.c_void_p()
        assert lib.nvrtcCreateProgram(ctypes.byref(prog), src, cu.name.encode(), 0, None, None) == 0
        opts = [b"--gpu-architecture=sm_80", b"-std=c++17"]
        arr = (ctypes.c_char_p * len(opts))(*opts)
        rc = lib.nvrtcCompileProgram(prog, len(opts), arr)
        size = ctypes.c_size_t()
        lib.nvrtcGetProgramLogSize(prog, ctypes.byref(size))
        log = ctypes.create_string_buffer(size.value)
        lib.nvrtcGetProgramLog(prog, log)
        lib.nvrtcDestroyProgram(ctypes.byref(prog))
        assert rc == 0, f"{cu.name}: NVRTC failed:\n{log.value.decode(errors='replace')[-3000:]}"
    print(f"\nNVRTC (sm_80): {len(picked)} generated kernel sources covering every kernel body compile")


# ---- --jit: C99 host code + kernel source for the NVRTC JIT ----------------------------------

JIT_MODELS = ["cnn_f32", "mlp_int8", "mlp_f32", "vit_f32", "bert_f32", "lstm_ln_cifg_int8"]  # the last: state reset under --jit


@pytest.mark.skipif(_nvrtc() is None, reason="libnvrtc not found (the CUDA toolkit is not installed)")
@pytest.mark.parametrize("name", JIT_MODELS)
def test_jit_output_builds_as_c99_and_nvrtc_compiles_it(name):
    """--jit output: C99 that gcc and clang build with -Wall -Wextra -Werror -pedantic against
    runtime/cuda/mpcc_jit.c (no CUDA toolkit needed); NVRTC compiles its embedded kernel source
    for sm_80 and sm_90 through the JIT loader (cache in a fresh directory) and every kernel the
    host code looks up is in it; without a GPU, model_cuda_init fails with the loader's message."""
    model = ROOT / "tests" / "models" / f"{name}.tflite"
    work = new_workdir("cuda-jit-" + name)
    p = run_cmd([MPCC, "--target", "cuda", "--jit", model, "-o", work / "model.c", "--name", "model"])
    if p.returncode == 1 and REFUSED in p.stderr:
        pytest.skip("refused by --target cuda")
    assert p.returncode == 0, p.stderr
    for cc, flags in (("gcc", ["-O1"]), ("clang", ["-O0", "-g", "-fsanitize=address,undefined", "-fno-sanitize-recover=all"])):
        exe = work / f"jit_check_{cc}"
        b = run_cmd([cc, "-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic", *flags, "-I", CUDA_INC, "-I", work,
                     ROOT / "tests" / "cuda" / "jit_check.c", CUDA_INC / "mpcc_jit.c", "-ldl", "-o", exe])
        assert b.returncode == 0, b.stderr[-3000:]
    r = run_cmd([work / "jit_check_clang", work / "cache"], timeout=600)
    print(r.stdout)
    assert r.returncode == 0 and "PASSED" in r.stdout, r.stdout + r.stderr[-2000:]
