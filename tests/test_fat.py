"""tools/mpcc_fat.py: one static library of a model for several x86-64 levels, the kernels picked by CPUID at
run time (docs/user-tools.md, "One library for a family of x86 CPUs")."""

import os
import platform
import shutil
import subprocess
import sys

import numpy as np
import pytest

from mpcc_paths import CPU_FLAGS, ROOT
from mpcc_tools import count_outputs, mpcc_run, new_workdir, run_cmd, write_harness
from oracle import draw_inputs, load

FAT = ROOT / "tools" / "mpcc_fat.py"
MODEL = ROOT / "tests" / "models" / "resnet_f32.tflite"

pytestmark = pytest.mark.skipif(platform.machine() != "x86_64" or not shutil.which("objcopy"),
                                reason="x86-64 ELF with binutils only")

_V3 = {"avx2", "fma", "bmi1", "bmi2"}
_V4 = _V3 | {"avx512f", "avx512bw", "avx512cd", "avx512dq", "avx512vl"}
NEEDS = {"x86-64-v3": _V3, "x86-64-v4": _V4, "x86-64-v4-vnni": _V4 | {"avx512_vnni"}}


def best_level():
    for lv in ("x86-64-v4-vnni", "x86-64-v4", "x86-64-v3"):
        if NEEDS[lv] <= CPU_FLAGS:
            return lv
    return "x86-64-v2"


@pytest.fixture(scope="module")
def fat_build():
    work = new_workdir("fat")
    best = best_level()
    levels = ["x86-64", best]
    p = run_cmd([sys.executable, FAT, MODEL, "-o", work / "lib", "--name", "model", "--levels", ",".join(levels)])
    assert p.returncode == 0, p.stdout + p.stderr
    lib = work / "lib" / "libmodel.a"
    n_out = count_outputs(MODEL)
    write_harness(work, 1, n_out)
    exe = work / "model-fat"
    p = run_cmd(["cc", "-O2", "-std=c99", "-Wall", "-Wextra", "-Werror", "-I", work / "lib", work / "harness.c", lib,
                 "-lm", "-o", exe])
    assert p.returncode == 0, p.stderr[-3000:]
    (work / "level.c").write_text('#include <stdio.h>\n#include "model_fat.h"\n'
                                  'int main(void) { puts(model_x86_level()); return 0; }\n')
    lexe = work / "level"
    p = run_cmd(["cc", "-O2", "-std=c99", "-Wall", "-Wextra", "-Werror", "-I", work / "lib", work / "level.c", lib,
                 "-lm", "-o", lexe])
    assert p.returncode == 0, p.stderr[-3000:]
    return work, exe, lexe, levels


def _run(exe, work, x, n_out, level):
    env = dict(os.environ)
    env.pop("MPCC_X86_LEVEL", None)
    if level:
        env["MPCC_X86_LEVEL"] = level
    x.tofile(work / "in0.bin")
    outs = [work / f"out{i}-{level or 'auto'}.bin" for i in range(n_out)]
    return subprocess.run([str(exe), str(work / "in0.bin")] + [str(o) for o in outs], capture_output=True, text=True,
                          env=env, timeout=300), outs


def test_fat_library_runs_every_level_against_the_reference(fat_build, seed):
    work, exe, lexe, levels = fat_build
    print(f"seed {seed}; levels built {levels}")
    (x,) = draw_inputs(MODEL, seed, load(MODEL))
    proc, ref = mpcc_run(MODEL, [x], work)
    assert proc.returncode == 0, proc.stderr
    got = {}
    for level in [None] + levels:
        p, outs = _run(exe, work, x, len(ref), level)
        assert p.returncode == 0, p.stderr[-2000:]
        got[level] = [np.fromfile(o, dtype=r.dtype).reshape(r.shape) for o, r in zip(outs, ref)]
        for g, r in zip(got[level], ref):
            err = float(np.abs(g.astype(np.float64) - r).max() / max(np.abs(r).max(), 1e-30))
            print(f"level {level or 'auto'}: max|diff|/max|ref| {err:.2e}")
            assert err < 1e-4, (level, err)
    # auto takes the highest level this CPU runs, and computes exactly what that level computes when forced
    picked = subprocess.run([str(lexe)], capture_output=True, text=True, timeout=60,
                            env={k: v for k, v in os.environ.items() if k != "MPCC_X86_LEVEL"}).stdout.strip()
    assert picked == levels[-1], picked
    for a, b in zip(got[None], got[levels[-1]]):
        assert np.array_equal(a, b)
    forced = subprocess.run([str(lexe)], capture_output=True, text=True, timeout=60,
                            env=dict(os.environ, MPCC_X86_LEVEL="x86-64")).stdout.strip()
    assert forced == "x86-64", forced


def test_fat_library_refuses_a_level_it_was_not_built_for(fat_build):
    work, exe, lexe, levels = fat_build
    missing = next(lv for lv in ("x86-64-v2", "x86-64-v3") if lv not in levels)
    p = subprocess.run([str(lexe)], capture_output=True, text=True, timeout=60,
                       env=dict(os.environ, MPCC_X86_LEVEL=missing))
    assert p.returncode != 0
    assert f"MPCC_X86_LEVEL={missing}: not a level of this build" in p.stderr, p.stderr


def test_fat_tool_rejects_bad_arguments(tmp_path):
    p = run_cmd([sys.executable, FAT, MODEL, "-o", tmp_path, "--levels", "x86-64-v9"])
    assert p.returncode == 1 and "--levels: unknown level 'x86-64-v9'" in p.stderr, p.stderr
    p = run_cmd([sys.executable, FAT, MODEL, "-o", tmp_path, "--name", "1bad"])
    assert p.returncode == 1 and "not a C identifier" in p.stderr, p.stderr
    p = run_cmd([sys.executable, FAT, MODEL, "-o", tmp_path, "--cflags", "-O2 -march=native"])
    assert p.returncode == 2 and "no -march" in p.stderr, p.stderr


@pytest.mark.parametrize("model,opts", [("resnet_f32", ["--profile"]), ("resnet_f32", ["--weights", "file"]),
                                        ("sig_two_f32", [])])
def test_fat_dispatcher_covers_every_entry_point(model, opts):
    """The dispatcher forwards every function of the header (profiling's clock callback, the weights-file API,
    a signature's entry points) and builds warning-free as C99 (-pedantic) with gcc and clang."""
    sys.path.insert(0, str(ROOT / "tools"))
    import mpcc_fat
    work = new_workdir("fat-api")
    p = run_cmd([ROOT / "build" / "mpcc", ROOT / "tests" / "models" / f"{model}.tflite", *opts, "-o", work / "m.c",
                 "--name", "m"])
    assert p.returncode == 0, p.stderr
    funcs = mpcc_fat.entry_points((work / "m.h").read_text(), "m")
    names = {fn for _, fn, _ in funcs}
    want = {"m_init", "m_run", "m_run_parallel"} | ({"m_profile_start", "m_profile_op"} if "--profile" in opts else set()) \
        | ({"m_check_weights"} if "file" in opts else set()) | ({"m_double_run", "m_square_run"} if "sig" in model else set())
    assert want <= names, want - names
    (work / "m_dispatch.c").write_text(mpcc_fat.dispatcher("m", ["x86-64", "x86-64-v3"], funcs))
    (work / "m_fat.h").write_text("const char *m_x86_level(void);\n")
    for cc in ("gcc", "clang"):
        if shutil.which(cc):
            p = run_cmd([cc, "-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic", "-I", work, "-c",
                         work / "m_dispatch.c", "-o", work / f"d-{cc}.o"])
            assert p.returncode == 0, p.stderr
