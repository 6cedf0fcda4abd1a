"""CMake integration (cmake/mpcc.cmake): the digits sample (samples/CMakeLists.txt) configured with
Debian's cmake, built (mpcc_add_model runs mpcc at build time, the runtime a static library) and
run, from the source tree and from `make install`'s package (find_package); a second build re-runs
mpcc only for what changed: the model file, or the mpcc executable."""

import os
import re
import shutil
import subprocess

import pytest

from mpcc_paths import MPCC, ROOT, SAMPLES_DIR

# one pytest-xdist worker runs this module: its module fixtures build once
pytestmark = pytest.mark.xdist_group("cmake")

# The runtime is compiled once per configuration; -O0 keeps that short on a 2-core CI machine.
CFLAGS = "-O0"


def run(cmd, **kw):
    p = subprocess.run(cmd, capture_output=True, text=True, **kw)
    assert p.returncode == 0, f"{' '.join(map(str, cmd))} failed ({p.returncode}):\n{p.stdout[-4000:]}\n{p.stderr[-4000:]}"
    return p.stdout + p.stderr


def copy_sample(dst):
    dst.mkdir()
    shutil.copy(SAMPLES_DIR / "CMakeLists.txt", dst)
    shutil.copy(SAMPLES_DIR / "demo.c", dst)
    shutil.copytree(SAMPLES_DIR / "digits", dst / "digits")


def accuracy(exe, data):
    out = run([str(exe), str(data)])
    m = re.search(r"accuracy: ([0-9.]+) \((\d+) of (\d+)", out)
    assert m, out
    return float(m.group(1)), int(m.group(3))


def compiled(out):
    """The models mpcc_add_model compiled in a build's output."""
    return sorted(re.findall(r"mpcc: compiling (\S+) to", out))


@pytest.fixture(scope="module")
def cmake():
    """Debian's cmake, installed with apt-get when missing (a clear failure when that is impossible)."""
    p = subprocess.run([str(ROOT / "tools" / "ensure_tool.sh"), "cmake", "cmake"], capture_output=True, text=True)
    assert p.returncode == 0, f"cmake is needed and could not be installed:\n{p.stderr[-3000:]}"
    return p.stdout.strip()


def test_cmake_sample_builds_runs_and_rebuilds(cmake, tmp_path):
    src, bld, bindir = tmp_path / "src", tmp_path / "build", tmp_path / "bin"
    copy_sample(src)
    bindir.mkdir()
    mpcc = bindir / "mpcc"
    shutil.copy2(MPCC, mpcc)
    run([cmake, "-S", src, "-B", bld, f"-DMPCC_SOURCE_DIR={ROOT}", f"-DMPCC_EXECUTABLE={mpcc}",
         f"-DCMAKE_C_FLAGS={CFLAGS}"])
    out = run([cmake, "--build", bld, "-j2"])
    assert compiled(out) == ["digits/digits_f32.tflite", "digits/digits_int8.tflite"], out
    for exe in ("digits-f32", "digits-int8"):
        acc, n = accuracy(bld / exe, src / "digits")
        assert n > 400 and acc >= 0.95, (exe, acc, n)
    # Nothing changed: mpcc does not run again.
    assert compiled(run([cmake, "--build", bld, "-j2"])) == []
    # A newer model file: only that model is compiled again. (The generated files are made older,
    # not the inputs newer: a file dated in the future would stay newer than what the rule writes.)
    def age(target):
        for f in (bld / "mpcc" / target).iterdir():
            t = os.path.getmtime(f) - 100
            os.utime(f, (t, t))
    age("digits_f32")
    os.utime(src / "digits" / "digits_f32.tflite")
    assert compiled(run([cmake, "--build", bld, "-j2"])) == ["digits/digits_f32.tflite"]
    # A newer mpcc: every model is compiled again.
    age("digits_f32")
    age("digits_int8")
    os.utime(mpcc)
    assert compiled(run([cmake, "--build", bld, "-j2"])) == ["digits/digits_f32.tflite", "digits/digits_int8.tflite"]
    acc, n = accuracy(bld / "digits-int8", src / "digits")
    assert n > 400 and acc >= 0.95


def test_cmake_package_after_make_install(cmake, tmp_path):
    prefix = tmp_path / "prefix"
    run(["make", "-s", "install", f"PREFIX={prefix}"], cwd=ROOT)
    assert (prefix / "share" / "mpcc" / "cmake" / "mpccConfig.cmake").is_file()
    src, bld = tmp_path / "src", tmp_path / "build"
    copy_sample(src)
    run([cmake, "-S", src, "-B", bld, "-DMPCC_USE_PACKAGE=ON", f"-DCMAKE_PREFIX_PATH={prefix}",
         f"-DCMAKE_C_FLAGS={CFLAGS}"])
    cache = (bld / "CMakeCache.txt").read_text()
    assert f"mpcc_DIR:PATH={prefix}/share/mpcc/cmake" in cache, "find_package did not take the installed package"
    out = run([cmake, "--build", bld, "-j2", "--target", "digits-f32"])
    assert compiled(out) == ["digits/digits_f32.tflite"]
    rules = (bld / "CMakeFiles" / "digits_f32.dir" / "build.make").read_text()
    assert f"{prefix}/bin/mpcc" in rules and f"{prefix}/share/mpcc/runtime" in (bld / "CMakeCache.txt").read_text() + \
        (bld / "CMakeFiles" / "mpcc_runtime.dir" / "build.make").read_text(), "not the installed mpcc and runtime"
    acc, n = accuracy(bld / "digits-f32", src / "digits")
    assert n > 400 and acc >= 0.95


def test_cmake_errors_are_clear(cmake, tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    (src / "CMakeLists.txt").write_text(
        "cmake_minimum_required(VERSION 3.13)\nproject(p C)\n"
        f'include("{ROOT}/cmake/mpcc.cmake")\nmpcc_add_model(m PREFIX m)\n')
    p = subprocess.run([cmake, "-S", src, "-B", tmp_path / "b"], capture_output=True, text=True)
    assert p.returncode != 0 and "MODEL <file.tflite> is required" in p.stderr, p.stderr
