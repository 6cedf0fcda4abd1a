"""Numeric and structural edge cases (issue 14), on the small models in tests/edge/ (made by
tests/edge/make_edge.py, described in tests/edge/cases.json):

- numeric cases: int8 SOFTMAX over 512+ classes, int32 sums past 2^31 in MEAN/SUM/AVERAGE_POOL_2D/
  L2_NORMALIZATION, graphs without operators. Through `mpcc run` (ASan+UBSan build) and the generated
  C (gcc -O2 and clang with ASan+UBSan), bit-exact against the TFLite interpreter on seeded inputs.
- rejected cases: element counts of 2^31 or more, a constant graph input, no outputs, tensors beyond
  the interpreter's memory limit: exit 1 with a message naming the tensor, no sanitizer report.
- .npy inputs that numpy rejects (and a few it tolerates but that would be misread) are refused by
  `mpcc run` before anything is allocated; the ones numpy writes are read.
"""

import json
import resource
import shutil
import signal
import struct
import subprocess
import sys

import numpy as np
import pytest

from compare import compare_arrays
from mpcc_paths import MPCC, MPCC_ASAN, TESTS_DIR
from mpcc_tools import SAN_ENV, build_exe, compile_model, mpcc_run, new_workdir, run_exe, write_harness

EDGE_DIR = TESTS_DIR / "edge"
CASES = json.loads((EDGE_DIR / "cases.json").read_text())
NUMERIC = [(name, kind) for name, c in sorted(CASES.items()) if c["kind"] == "numeric" for kind in c["inputs"]]
REJECTED = [(name, cmd) for name, c in sorted(CASES.items()) if c["kind"] == "rejected" for cmd in c["commands"]]
SANITIZER_MARKS = ("AddressSanitizer", "LeakSanitizer", "UndefinedBehaviorSanitizer", "runtime error:")
C_CONFIGS = ["gcc-O2", "clang-san"]


def model_io(model):
    """[(shape, numpy dtype)] of the model's inputs and outputs, read with the schema (TFLite
    itself cannot load some of these models)."""
    from ai_edge_litert import schema_py_generated as S
    m = S.ModelT.InitFromPackedBuf(bytearray(model.read_bytes()), 0)
    sg = m.subgraphs[0]
    types = {S.TensorType.FLOAT32: np.float32, S.TensorType.INT8: np.int8, S.TensorType.INT16: np.int16,
             S.TensorType.INT32: np.int32}
    spec = lambda i: (tuple(int(d) for d in sg.tensors[i].shape), types[sg.tensors[i].type])
    return [spec(i) for i in (sg.inputs if sg.inputs is not None else [])], \
           [spec(i) for i in (sg.outputs if sg.outputs is not None else [])]


def draw(shape, dtype, kind, rng):
    """Inputs of one kind (see make_edge.py); never all zero unless the kind says so."""
    if kind == "zeros":
        return np.zeros(shape, dtype)
    if kind == "equal":  # each row one random nonzero value
        v = rng.integers(1, 128, size=shape[:-1] + (1,)) * rng.choice([-1, 1], size=shape[:-1] + (1,))
        return np.broadcast_to(v, shape).astype(dtype)
    if kind == "mixed":  # rows alternately over the full range and within the 8 largest values
        a = draw(shape, dtype, "random", rng)
        a[1::2] = draw(a[1::2].shape, dtype, "max", rng)
        return a
    if kind == "tie512":  # per row, 512 places at the maximum and the rest at the minimum
        info = np.iinfo(dtype)
        a = np.full(shape, info.min, dtype)
        for row in a.reshape(-1, shape[-1]):
            row[rng.choice(shape[-1], size=512, replace=False)] = info.max
        return a
    if np.dtype(dtype).kind == "f":
        a = rng.uniform(-1.0, 1.0, size=shape).astype(dtype)
    else:
        info = np.iinfo(dtype)
        lo, hi = {"random": (info.min, info.max), "max": (info.max - 7, info.max),
                  "min": (info.min, info.min + 7)}[kind]
        a = rng.integers(lo, hi, size=shape, endpoint=True).astype(dtype)
    if a.size and not np.any(a):
        a.reshape(-1)[0] = 1
    return a


def _oracle(model, input_files, resolver, out):
    """Runs tests/oracle.py in a subprocess (a reference kernel may stop on an assert):
    (outputs or None, returncode, stderr)."""
    p = subprocess.run([sys.executable, str(TESTS_DIR / "oracle.py"), str(model), "--outdir", str(out),
                        "--resolver", resolver, "--inputs", *map(str, input_files)],
                       capture_output=True, text=True, timeout=600)
    if p.returncode != 0:
        return None, p.returncode, p.stderr
    n = len(list(out.glob("out*.npy")))
    return [np.load(out / f"out{i}.npy") for i in range(n)], 0, ""


def _aborted(rc):
    return rc in (-signal.SIGABRT, 128 + signal.SIGABRT)


def tflite_outputs(model, inputs, resolver, work):
    """The TFLite interpreter's outputs: (outputs, what ran). resolver "ref" or "builtin"; or
    "ref|builtin" for a one-input model whose rows (first axis) are independent, like SOFTMAX:
    the reference kernels, and for each row on which they stop on an assert, the optimized ones
    (found by running the row repeated over the whole input)."""
    files = []
    for i, a in enumerate(inputs):
        files.append(work / f"in{i}.npy")
        np.save(files[-1], a)
    first = resolver.split("|")[0]
    outs, rc, err = _oracle(model, files, first, work / "tflite")
    if outs is not None:
        return outs, f"{first} kernels"
    assert resolver == "ref|builtin" and _aborted(rc), f"TFLite ({first}) exited {rc} on {model.name}: {err[-2000:]}"
    assert len(inputs) == 1, "per-row fallback needs a one-input model"
    x, rows, used = inputs[0], [], []
    for r in range(x.shape[0]):
        row_file = work / f"row{r}.npy"
        np.save(row_file, np.repeat(x[r:r + 1], x.shape[0], axis=0))
        for res in ("ref", "builtin"):
            outs, rc, err = _oracle(model, [row_file], res, work / f"tflite_row{r}_{res}")
            if outs is not None:
                break
            assert res == "ref" and _aborted(rc), f"TFLite ({res}) exited {rc} on row {r}: {err[-2000:]}"
        rows.append(outs[0][r])
        used.append(res)
    return [np.stack(rows)], "per row: " + ", ".join(f"row {r} {u}" for r, u in enumerate(used))


def check_all(what, refs, gots):
    assert len(refs) == len(gots), f"{what}: {len(refs)} reference outputs, {len(gots)} produced"
    for i, (r, g) in enumerate(zip(refs, gots)):
        ok, msg = compare_arrays(r, g)
        if r.dtype.kind in "iu":
            msg += f"; {int(np.sum(r != g))} of {r.size} elements differ"
        print(f"{what} output {i}: {msg}")
        assert ok, f"{what} output {i}: {msg}"


@pytest.mark.parametrize("name,kind", NUMERIC, ids=[f"{n}-{k}" for n, k in NUMERIC])
def test_numeric_edge(name, kind, seed):
    case, model = CASES[name], EDGE_DIR / f"{name}.tflite"
    print(f"{name}: {case['what']}; inputs '{kind}'")
    rng = np.random.default_rng(seed)
    in_specs, out_specs = model_io(model)
    inputs = [draw(shape, dt, kind, rng) for shape, dt in in_specs]
    work = new_workdir(f"edge-{name}")
    refs, used = tflite_outputs(model, inputs, case["resolver"], work)
    print(f"reference: TFLite, {used}")

    proc, outs = mpcc_run(model, inputs, work, n_out=len(out_specs), mpcc=MPCC_ASAN)
    assert proc.returncode == 0, f"mpcc run failed (exit {proc.returncode}): {proc.stderr[-3000:]}"
    check_all("mpcc run vs TFLite", refs, outs)

    proc = compile_model(model, work, mpcc=MPCC_ASAN)
    assert proc.returncode == 0, proc.stderr[-3000:]
    write_harness(work, len(inputs), len(refs))
    for config in C_CONFIGS:
        proc, exe = build_exe(work, config)
        assert proc.returncode == 0, f"generated C does not build with {config}:\n{proc.stderr[-3000:]}"
        proc, got = run_exe(exe, inputs, [(r.dtype, r.shape) for r in refs], work)
        assert proc.returncode == 0, f"generated model ({config}) exited {proc.returncode}:\n{proc.stderr[-3000:]}"
        check_all(f"generated C ({config}) vs TFLite", refs, got)
    shutil.rmtree(work, ignore_errors=True)


def check_rejected(proc, message, what):
    out = proc.stdout + proc.stderr
    for mark in SANITIZER_MARKS:
        assert mark not in out, f"{what}: sanitizer report\n{out[-4000:]}"
    assert proc.returncode == 1, f"{what}: exit {proc.returncode}, expected 1\n{out[-2000:]}"
    assert message in out, f"{what}: message lacks {message!r}\n{out[-2000:]}"


@pytest.mark.parametrize("name,command", REJECTED, ids=[f"{n}-{c}" for n, c in REJECTED])
def test_rejected_edge(name, command, seed, tmp_path):
    case, model = CASES[name], EDGE_DIR / f"{name}.tflite"
    if command == "inspect":
        cmd = [MPCC_ASAN, "inspect", model]
    elif command == "compile":
        cmd = [MPCC_ASAN, model, "-o", tmp_path / "out.c"]
    else:
        rng = np.random.default_rng(seed)
        in_specs, out_specs = model_io(model)
        cmd = [MPCC_ASAN, "run", model]
        for i, (shape, dt) in enumerate(in_specs):
            np.save(tmp_path / f"in{i}.npy", draw(shape, dt, "random", rng))
            cmd += ["--input", tmp_path / f"in{i}.npy"]
        for i in range(len(out_specs)):
            cmd += ["--output", tmp_path / f"out{i}.npy"]
    proc = subprocess.run([str(c) for c in cmd], capture_output=True, text=True, env=SAN_ENV, timeout=300)
    check_rejected(proc, case["message"], f"mpcc {command} {name}")
    assert not (tmp_path / "out.c").exists(), "a failed compile must not leave output behind"


# ---- .npy inputs (`mpcc run` of the model without operators whose output is its input, f32 [1, 4]) ----

NPY_MODEL = EDGE_DIR / "no_ops_identity.tflite"
NPY_DICT = "{'descr': '<f4', 'fortran_order': False, 'shape': (1, 4), }"


def npy_bytes(header, data, version=1):
    h = header.encode("latin1")
    h += b" " * ((64 - (10 + (2 if version > 1 else 0) + len(h) + 1) % 64) % 64) + b"\n"
    size = struct.pack("<H", len(h)) if version == 1 else struct.pack("<I", len(h))
    return b"\x93NUMPY" + bytes([version, 0]) + size + h + data


def _data(seed):
    return np.random.default_rng(seed).uniform(-1, 1, size=(1, 4)).astype(np.float32)


NPY_ACCEPTED = {
    "numpy_v1": lambda x: npy_bytes(NPY_DICT, x.tobytes()),
    "numpy_v2": lambda x: npy_bytes(NPY_DICT, x.tobytes(), 2),
    "numpy_v3": lambda x: npy_bytes(NPY_DICT, x.tobytes(), 3),
    "double_quotes_no_trailing_comma": lambda x: npy_bytes(
        '{"shape": (1, 4), "fortran_order": False, "descr": "<f4"}', x.tobytes()),
}

NPY_REJECTED = {
    # name: (file bytes from the data, substring of mpcc's message, does numpy load it?)
    "duplicate_key": (lambda x: npy_bytes(NPY_DICT[:-1] + "'shape': (1, 4), }", x.tobytes()),
                      "key 'shape' appears twice", True),
    "missing_fortran_order": (lambda x: npy_bytes("{'descr': '<f4', 'shape': (1, 4), }", x.tobytes()),
                              "header lacks 'fortran_order'", False),
    "extra_key": (lambda x: npy_bytes(NPY_DICT[:-1] + "'x': 1}", x.tobytes()), "unexpected key 'x'", False),
    "trailing_bytes": (lambda x: npy_bytes(NPY_DICT, x.tobytes() + b"\0"),
                       "data is 17 bytes, the header's shape and dtype need 16 (trailing bytes)", True),
    "truncated": (lambda x: npy_bytes(NPY_DICT, x.tobytes()[:-1]), "data is 15 bytes", False),
    "uint16_as_bf16": (lambda x: npy_bytes(NPY_DICT.replace("<f4", "<u2"), x.tobytes()[:8]),
                       "unsupported .npy dtype '<u2'", True),
    "shape_not_a_tuple": (lambda x: npy_bytes(NPY_DICT.replace("(1, 4)", "(4)"), x.tobytes()),
                          "'shape' (n) is not a tuple", False),
    "fortran_order_not_bool": (lambda x: npy_bytes(NPY_DICT.replace("False", "0"), x.tobytes()),
                               "'fortran_order' must be True or False", False),
    "text_after_dict": (lambda x: npy_bytes(NPY_DICT + " x", x.tobytes()), "text after the header dict", False),
    # A few hundred bytes declaring 16 GiB: refused from the file size, before any allocation.
    "huge_declared_shape": (lambda x: npy_bytes(NPY_DICT.replace("(1, 4)", "(65536, 65536)"), b"\0" * 255),
                            "the header's shape and dtype need 17179869184 (truncated)", False),
}


def _limit_memory():
    resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))  # 1 GiB of address space


def run_npy(path, out):
    # The plain build under a 1 GiB address-space limit: nothing may allocate what a header declares.
    return subprocess.run([str(MPCC), "run", str(NPY_MODEL), "--input", str(path), "--output", str(out)],
                          capture_output=True, text=True, timeout=60, preexec_fn=_limit_memory)


@pytest.mark.parametrize("name", sorted(NPY_ACCEPTED))
def test_npy_accepted(name, seed, tmp_path):
    x = _data(seed)
    path = tmp_path / "x.npy"
    path.write_bytes(NPY_ACCEPTED[name](x))
    np.testing.assert_array_equal(np.load(path), x)  # numpy reads it as written
    proc = run_npy(path, tmp_path / "y.npy")
    assert proc.returncode == 0, proc.stderr
    np.testing.assert_array_equal(np.load(tmp_path / "y.npy"), x)


@pytest.mark.parametrize("name", sorted(NPY_REJECTED))
def test_npy_rejected(name, seed, tmp_path):
    make, message, numpy_loads = NPY_REJECTED[name]
    path = tmp_path / "x.npy"
    path.write_bytes(make(_data(seed)))
    try:
        np.load(path)
        loaded = True
    except (ValueError, EOFError, OSError):
        loaded = False
    assert loaded == numpy_loads, f"numpy {'loads' if loaded else 'rejects'} {name}"
    proc = run_npy(path, tmp_path / "y.npy")
    print(proc.stderr.strip())
    assert proc.returncode == 1 and message in proc.stderr, f"exit {proc.returncode}: {proc.stderr[-2000:]}"
    assert not (tmp_path / "y.npy").exists()
