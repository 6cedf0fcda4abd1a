"""The command line, run as a real binary: help, version, argument errors, file names, `mpcc run` input checks."""

import os
import re
import shutil
import subprocess

import numpy as np
import pytest

from mpcc_paths import DIGITS_DIR, MODELS_DIR, MPCC, ROOT

MODEL = MODELS_DIR / "mlp_f32.tflite"  # one input x [1,32] f32, one output [1,10] f32


def mpcc(*args):
    return subprocess.run([str(MPCC), *map(str, args)], capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("flag", ["--help", "-h"])
def test_help(flag):
    p = mpcc(flag)
    assert p.returncode == 0, p.stderr
    for word in ("inspect", "run", "-o"):
        assert word in p.stdout


def test_version():
    p = mpcc("--version")
    assert p.returncode == 0
    assert p.stdout.startswith("mpcc ") and p.stdout.strip() != "mpcc"


def test_no_args():
    p = mpcc()
    assert p.returncode == 1
    assert "usage" in p.stderr


def test_unknown_option(tmp_path):
    p = mpcc(MODEL, "-o", tmp_path / "m.c", "--frobnicate")
    assert p.returncode == 1
    assert "unknown option '--frobnicate'" in p.stderr
    p = mpcc("run", MODEL, "--frobnicate")
    assert p.returncode == 1
    assert "unknown option '--frobnicate'" in p.stderr


def test_no_output(tmp_path):
    p = mpcc(MODEL)
    assert p.returncode == 1
    assert "no output file given" in p.stderr


def test_missing_file(tmp_path):
    missing = tmp_path / "nope.tflite"
    for args in (("inspect", missing), (missing, "-o", tmp_path / "m.c"), ("run", missing)):
        p = mpcc(*args)
        assert p.returncode == 1, args
        assert "nope.tflite: cannot open file" in p.stderr, args


def test_fb_extension(tmp_path):
    """The file name does not matter: a model named x.fb works like a .tflite."""
    fb = tmp_path / "x.fb"
    shutil.copy(MODEL, fb)
    p = mpcc("inspect", fb)
    assert p.returncode == 0, p.stderr
    assert "FULLY_CONNECTED" in p.stdout
    p = mpcc(fb, "-o", tmp_path / "x.c")
    assert p.returncode == 0, p.stderr
    assert (tmp_path / "x.c").stat().st_size > 0 and (tmp_path / "x.h").is_file()


def test_run_ok(tmp_path, seed):
    x = np.random.default_rng(seed).standard_normal((1, 32)).astype(np.float32)
    np.save(tmp_path / "x.npy", x)
    p = mpcc("run", MODEL, "--input", tmp_path / "x.npy", "--output", tmp_path / "y.npy")
    assert p.returncode == 0, p.stderr
    assert np.load(tmp_path / "y.npy").shape == (1, 10)


@pytest.mark.parametrize("shape,dtype,want", [
    ((1, 31), np.float32, "must be [1,32] f32, the file holds [1,31] f32"),
    ((32,), np.float32, "must be [1,32] f32, the file holds [32] f32"),
    ((1, 32), np.int8, "must be [1,32] f32, the file holds [1,32] i8"),
])
def test_run_wrong_input(tmp_path, shape, dtype, want):
    np.save(tmp_path / "x.npy", np.ones(shape, dtype))
    p = mpcc("run", MODEL, "--input", tmp_path / "x.npy", "--output", tmp_path / "y.npy")
    assert p.returncode == 1, p.stderr
    assert "input 0 'x'" in p.stderr and want in p.stderr


def test_run_wrong_input_count(tmp_path):
    x = np.ones((1, 32), np.float32)
    np.save(tmp_path / "x.npy", x)
    p = mpcc("run", MODEL, "--input", tmp_path / "x.npy", "--input", tmp_path / "x.npy",
             "--output", tmp_path / "y.npy")
    assert p.returncode == 1
    assert "the model has 1 input, 2 --input given" in p.stderr
    p = mpcc("run", MODEL, "--output", tmp_path / "y.npy")
    assert p.returncode == 1
    assert "the model has 1 input, 0 --input given" in p.stderr
    p = mpcc("run", MODEL, "--input", tmp_path / "x.npy")
    assert p.returncode == 1
    assert "the model has 1 output, 0 --output given" in p.stderr


def test_run_bad_npy(tmp_path):
    (tmp_path / "x.npy").write_bytes(b"\x93NUMPY garbage")
    p = mpcc("run", MODEL, "--input", tmp_path / "x.npy", "--output", tmp_path / "y.npy")
    assert p.returncode == 1, p.stderr
    assert "x.npy" in p.stderr


def test_inspect_counts_operators_once():
    """An operator that fails its checks is listed as unsupported but counted once (not twice)."""
    from mpcc_paths import TESTS_DIR
    p = mpcc("inspect", TESTS_DIR / "bad" / "wrong_dtype.tflite")
    assert p.returncode == 0, p.stderr
    assert "1 operators in subgraph 0" in p.stdout
    assert "unsupported (1):" in p.stdout


def test_inspect_never_gives_up_early():
    """On a model it cannot compile, inspect still describes it and exits 0: inputs, outputs, a
    histogram over every subgraph (control flow and custom ops included) and every unsupported op,
    tensor or option with its subgraph and operator index."""
    from mpcc_paths import TESTS_DIR
    p = mpcc("inspect", TESTS_DIR / "bad" / "if_custom_branch.tflite")
    assert p.returncode == 0, p.stderr
    out = p.stdout
    assert "3 subgraphs" in out and "operators per subgraph: 1 1 1" in out
    assert "  0 cond " in out and "  1 x " in out and "  0 y " in out
    for op, n in (("IF", 1), ("custom 'Frob'", 1), ("ADD", 1)):
        assert re.search(rf"^  {re.escape(op)} +{n}$", out, re.M), f"{op} x{n} missing from:\n{out}"
    assert "subgraph 1: custom operator 'Frob': 1 use (operator 0) and no kernel for it" in out
    # Unsupported tensors (sparse storage, dtypes, custom quantization) are listed, not fatal.
    for name, what in (("sparse_tensor", "sparse"), ("string_dtype", "dtype STRING"),
                       ("custom_quant_details", "custom quantization details")):
        p = mpcc("inspect", TESTS_DIR / "bad" / f"{name}.tflite")
        assert p.returncode == 0 and what in p.stdout and "operators:\n  " in p.stdout, p.stdout + p.stderr


def test_signatures_are_listed_and_never_dropped_silently(tmp_path):
    """A model with two signatures on two subgraphs (tools/models/signatures.py): inspect lists
    both with their subgraphs; compile makes each an entry point, silently dropping none
    (docs/signatures.md; tests/test_signatures.py runs them)."""
    model = MODELS_DIR / "sig_two_f32.tflite"
    p = mpcc("inspect", model)
    assert p.returncode == 0, p.stderr
    assert "signature 0 'double': subgraph 0 (compiled" in p.stdout, p.stdout
    assert "signature 1 'square': subgraph 1 (compiled" in p.stdout, p.stdout
    p = mpcc("compile", model, "-o", tmp_path / "m.c")
    assert p.returncode == 0 and "warning" not in p.stderr, p.stderr
    header = (tmp_path / "m.h").read_text()
    for f in ("m_run", "m_double_run", "m_square_run"):
        assert f"int {f}(const void *const *inputs" in header, f
    # A one-signature model compiles without a word about signatures.
    p = mpcc("compile", MODELS_DIR / "op_cos_basic_f32.tflite", "-o", tmp_path / "c.c")
    assert p.returncode == 0 and "signature" not in p.stderr, p.stderr


def test_input_shape_option(tmp_path):
    """A model whose time axis is dynamic (stored as 1): compiling it as stored fails, and the first
    message names the input and suggests --input-shape; with the option it compiles. Wrong uses of
    the option are clean errors."""
    model = MODELS_DIR / "dyn_time_conv1d_f32.tflite"  # input 'frames' [1,-1,8], Conv1D k=3
    p = mpcc(model, "-o", tmp_path / "m.c")
    assert p.returncode == 1
    first = p.stderr.splitlines()[0]
    assert "input 0 'frames' has dynamic dimensions (shape_signature [1,-1,8])" in first, p.stderr
    assert "--input-shape frames=1,N,8" in first, p.stderr
    for arg in ("frames=1,20,8", "0=1,20,8"):
        p = mpcc(model, "-o", tmp_path / "m.c", "--input-shape", arg)
        assert p.returncode == 0, p.stderr
        assert "#define M_INPUT0_DIMS {1, 20, 8}" in (tmp_path / "m.h").read_text()
    for arg, msg in (("nosuch=1,20,8", "the model has no input of that name or index (inputs: 'frames' (0))"),
                     ("frames=2,20,8", "dimension 0 of input 0 'frames' is static (1) in the model"),
                     ("frames=1,20", "has rank 3 ([1,1,8] f32), 2 dimensions given"),
                     ("frames=1,x,8", "dimension 2 is not a number"),
                     ("frames", "expected NAME_OR_INDEX=d0,d1,...")):
        p = mpcc(model, "-o", tmp_path / "m.c", "--input-shape", arg)
        assert p.returncode == 1 and msg in p.stderr, (arg, p.stderr)
    p = mpcc(model, "-o", tmp_path / "m.c", "--input-shape", "frames=1,20,8", "--input-shape", "0=1,30,8")
    assert p.returncode == 1 and "input 0 is given twice" in p.stderr, p.stderr


def test_make_install_gives_a_working_toolchain(tmp_path):
    """`make install PREFIX=...` installs mpcc and the runtime; the installed pieces alone compile,
    build and run a model."""
    import subprocess
    prefix = tmp_path / "inst"
    proc = subprocess.run(["make", "-s", "install", f"PREFIX={prefix}"], cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    mpcc = prefix / "bin" / "mpcc"
    rt = prefix / "share" / "mpcc" / "runtime"
    assert mpcc.exists() and (rt / "mpcc_rt.h").exists()
    out = tmp_path / "digits.c"
    proc = subprocess.run([str(mpcc), str(ROOT / "samples" / "digits" / "digits_int8.tflite"), "-o", str(out),
                           "--name", "digits"], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    srcs = [str(p) for p in sorted(rt.glob("**/*.c"))]
    exe = tmp_path / "demo"
    proc = subprocess.run(["cc", "-std=c99", "-O2", "-Wall", "-Wextra", "-Werror", "-pedantic", f"-I{rt}",
                           f"-I{tmp_path}", str(ROOT / "samples" / "demo.c"), str(out), *srcs, "-lm", "-o", str(exe)],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[-3000:]
    proc = subprocess.run([str(exe), str(ROOT / "samples" / "digits")], capture_output=True, text=True)
    print(proc.stdout[-500:])
    assert proc.returncode == 0 and "accuracy: 0.9" in proc.stdout, proc.stdout + proc.stderr


def test_output_that_is_not_a_regular_file_is_written_in_place(tmp_path):
    """-o naming a FIFO (or /dev/null) is written in place, not replaced by a renamed temporary file
    (which, as root, would turn /dev/null into a regular file)."""
    import stat
    import threading
    fifo = tmp_path / "out.c"
    os.mkfifo(fifo)
    got = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()))
    reader.start()
    proc = subprocess.run([str(MPCC), str(DIGITS_DIR / "digits_f32.tflite"), "-o", str(fifo)],
                          capture_output=True, text=True, timeout=120)
    reader.join(timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert stat.S_ISFIFO(fifo.stat().st_mode), "the FIFO was replaced"
    assert got and b"#include" in got[0] and len(got[0]) > 1000, "the C was not written through the FIFO"
    assert not (tmp_path / "out.c.tmp").exists() and (tmp_path / "out.h").is_file()
