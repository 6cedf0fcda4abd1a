"""Patch-based execution (pass patch, docs/patch-exec.md): the memory-peak region run in bands of
output rows. The generated C with --patch or a --max-arena the unpatched plan exceeds equals TFLite
bit for bit (int8) on random inputs (seed printed), its arena is below the op-by-op bound, and
--report / --dump-ir show the region. Patterns (tests/patch/*.tflite, tools/models/patch.py):
stride 2, SAME and VALID padding, dilation, max and average pooling, residual ADDs inside the region
(also at -O2, where fuse_add / fuse_dw fused them into the convolutions), f32."""

import re
import shutil
import sys

import numpy as np
import pytest

import oracle
from mpcc_paths import BIG_MODELS_DIR, CPU_FLAGS, MODELS_DIR, ROOT, SHARED_MODELS, TESTS_DIR
from mpcc_tools import build_exe, compile_model, new_workdir, run_cmd, run_exe, write_harness
from mpcc_paths import MPCC

PERSON = SHARED_MODELS / "tflm" / "person_detect.tflite"
MOBILENET = MODELS_DIR / "mobilenetv2_int8.tflite"  # alpha 0.35, 96x96x3
PATTERNS = sorted((TESTS_DIR / "patch").glob("patch_*.tflite"))


def _report(model, *extra):
    proc = run_cmd([MPCC, model, "--report", *extra])
    assert proc.returncode == 0, proc.stderr
    arena = int(re.search(r"^arena: (\d+) bytes", proc.stdout, re.M).group(1))
    m = re.search(r"^patch: .*extra MACs (\d+) \(([\d.]+)% of (\d+)\)", proc.stdout, re.M)
    return arena, (int(m.group(1)), float(m.group(2))) if m else None, proc.stdout


def _run_patched(model, seed, extra, config="gcc-O2"):
    """Compiles with extra, runs the C on random inputs, asserts it equals TFLite (int8 exactly)."""
    inputs, refs = oracle.oracle(model, seed)
    work = new_workdir(f"patch-{model.stem}")
    proc = compile_model(model, work, extra=[*extra, "--report"])
    assert proc.returncode == 0, proc.stderr
    assert re.search(r"^patch: TFLite operators", proc.stdout, re.M), "the pass did not patch:\n" + proc.stdout[-2000:]
    write_harness(work, len(inputs), len(refs))
    proc, exe = build_exe(work, config)
    assert proc.returncode == 0, proc.stderr[-3000:]
    proc, outs = run_exe(exe, inputs, [(r.dtype, r.shape) for r in refs], work)
    assert proc.returncode == 0, proc.stderr[-3000:]
    for i, (r, o) in enumerate(zip(refs, outs)):
        if r.dtype == np.float32:
            np.testing.assert_allclose(o, r, rtol=1e-4, atol=1e-4 * float(np.abs(r).max()), err_msg=f"output {i}")
        else:
            assert np.array_equal(o, r), f"output {i}: {int((o != r).sum())} of {r.size} elements differ from TFLite"
    shutil.rmtree(work, ignore_errors=True)


@pytest.mark.skipif(not PERSON.exists(), reason="shared person_detect model missing")
def test_person_detect_max_arena_half(seed):
    """--max-arena at half the op-by-op bound fits person_detect (it failed before) and stays bit-exact."""
    bound, patch, _ = _report(PERSON, "-O0")
    assert patch is None and bound == 55296
    arena, patch, out = _report(PERSON, "-O0", "--max-arena", str(bound // 2))
    assert patch is not None, out
    assert arena <= bound // 2 and patch[1] <= 15.0, out
    _run_patched(PERSON, seed, ["--max-arena", str(bound // 2)])


def test_mobilenet_patch(seed):
    """--patch: MobileNetV2 0.35/96 int8 below half its op-by-op bound for at most 15% more MACs."""
    bound, _, _ = _report(MOBILENET, "-O0")
    arena, patch, out = _report(MOBILENET, "-O0", "--patch")
    assert patch is not None and arena <= bound // 2 and patch[1] <= 15.0, out
    _run_patched(MOBILENET, seed, ["-O0", "--patch"])


def test_patch_off_by_default_and_dump(tmp_path):
    """No flag: no patching. --dump-ir shows the region line, band ops and row views; mpcc report the line."""
    _, patch, out = _report(MOBILENET)
    assert patch is None and "patch:" not in out
    proc = run_cmd([MPCC, MOBILENET, "-O0", "--patch", "--dump-ir"])
    assert proc.returncode == 0, proc.stderr
    assert re.search(r"patch: TFLite operators #\d+\.\.#\d+ \(\d+ ops\) in \d+ bands", proc.stdout)
    assert re.search(r"\[rows \d+\.\.\d+\] .* alias-of %\d+\+\d+", proc.stdout), proc.stdout[-2000:]
    html = tmp_path / "r.html"
    proc = run_cmd([MPCC, "report", MOBILENET, "-O0", "--patch", "-o", html])
    assert proc.returncode == 0, proc.stderr
    assert re.search(r'<td id="patch">patch: TFLite operators #\d+\.\.#\d+ .* -&gt; \d+ bytes', html.read_text())


@pytest.mark.parametrize("model", PATTERNS, ids=lambda m: m.stem)
def test_patch_patterns(model, seed):
    """Each pattern model patched by --patch (lowest peak) and by --max-arena (fewest extra MACs; another
    region), each equal to TFLite."""
    arena0, _, _ = _report(model, "-O0")
    for extra in (["--patch"], ["--max-arena", str(arena0 * 2 // 3)]):
        arena, patch, out = _report(model, "-O0", *extra)
        assert patch is not None and arena < arena0, out
        _run_patched(model, seed, ["-O0", *extra])


@pytest.mark.parametrize("model", [m for m in PATTERNS if "residual" in m.stem], ids=lambda m: m.stem)
def test_patch_residual_fused(model, seed):
    """-O2: the ADDs (int8: fuse_add; f32: fuse_add and fuse_dw) are fused into the convolutions; the region
    holds the fused ops as their two ops each, ADDs included, their copies on the optimized kernels, and
    stays equal to TFLite."""
    arena0, _, out0 = _report(model)
    assert re.search(r"\+ADD\(op \d+\)", out0), out0[-2000:]
    arena, patch, out = _report(model, "--max-arena", str(arena0 * 2 // 3))
    assert patch is not None and arena <= arena0 * 2 // 3, out
    # The band copies of the ADDs keep their optimized kernel (the schedule lists it; reference ops are not).
    bands = int(re.search(r"^patch: .* in (\d+) bands", out, re.M).group(1))
    adds = len(re.findall(r"^\s*op \d+\s+ADD\s+binary ", out, re.M))
    assert adds == 2 * bands, f"{adds} scheduled ADD ops for 2 ADDs in {bands} bands:\n" + out[-3000:]
    _run_patched(model, seed, ["--max-arena", str(arena0 * 2 // 3)])


@pytest.mark.full
@pytest.mark.skipif(not PERSON.exists(), reason="shared person_detect model missing")
@pytest.mark.parametrize("extra,config", [(["--patch"], "gcc-san"), (["-O0", "--patch"], "clang-san"),
                                          (["--isa", "avx2", "--max-arena", "27648"], "gcc-avx2")])
def test_person_detect_patch_variants(extra, config, seed):
    """The scheduled build (optimized kernels outside the region) under ASan/UBSan, and with the AVX2 ISA."""
    if config == "gcc-avx2" and not {"avx2", "fma"} <= CPU_FLAGS:
        pytest.skip("this CPU has no AVX2/FMA")
    _run_patched(PERSON, seed, extra, config=config)


BIG = [BIG_MODELS_DIR / "mobilenetv2_1.0_224_int8.tflite", SHARED_MODELS / "tflm" / "mobilenet_v2_int8_from_pytorch.tflite"]


@pytest.mark.full
@pytest.mark.parametrize("model", BIG, ids=lambda m: m.stem)
def test_mobilenet_224_patch(model, seed):
    """MobileNetV2 1.0/224 int8 (`make models MODELS_BIG=1`, and the PyTorch export): --patch at -O2 below
    half the op-by-op bound for at most 15% more MACs, equal to TFLite."""
    if not model.exists():
        pytest.skip(f"{model} missing (make models MODELS_BIG=1 makes the first)")
    bound, _, _ = _report(model)
    arena, patch, out = _report(model, "--patch")
    assert patch is not None and arena <= bound // 2 and patch[1] <= 15.0, out
    _run_patched(model, seed, ["--patch"])


@pytest.mark.parametrize("name,model", [("mobilenetv2_0.35", MOBILENET),
                                        pytest.param("person_detect", PERSON, marks=pytest.mark.full)])
def test_patch_cortex_m(name, model, seed):
    """--isa armv7em --patch: the band copies keep the Cortex-M kernels; cross-built for Cortex-M4 and run
    under qemu (tools/cortex_m), equal to TFLite bit for bit."""
    sys.path.insert(0, str(ROOT / "tools" / "cortex_m"))
    import mcu

    why = mcu.toolchain()
    assert why is None, why
    if not model.exists():
        pytest.skip(f"{model} is not here")
    inputs, refs = oracle.oracle(model, seed)
    work = new_workdir(f"patch-m4-{name}")
    proc = run_cmd([MPCC, model, "-o", work / "model.c", "--name", "model", "--isa", "armv7em", "--patch", "--report"])
    assert proc.returncode == 0, proc.stderr
    assert re.search(r"^patch: TFLite operators", proc.stdout, re.M), proc.stdout[-2000:]
    proc, elf = mcu.build("m4", work, inputs, len(refs))
    assert proc.returncode == 0, proc.stderr[-3000:]
    proc, result = mcu.run("m4", elf)
    assert result is not None and len(result["out"]) == len(refs), f"qemu exit {proc.returncode}: {proc.stdout[-2000:]}"
    for i, (ref, raw) in enumerate(zip(refs, result["out"])):
        got = np.frombuffer(raw, ref.dtype).reshape(ref.shape)
        assert np.array_equal(got, ref), f"output {i}: {int((got != ref).sum())} of {ref.size} elements differ"
    shutil.rmtree(work, ignore_errors=True)
