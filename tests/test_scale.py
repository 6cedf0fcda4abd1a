"""Large graphs, hostile sizes, weights integrity and memory budgets (issue 13).

- 50,000 ops in a chain and 50,000 tensors live at once (tests/scale/fbgraph.py writes them in
  milliseconds) each compile in under 5 s; the live set plans at its lower bound. A 2,000-tensor
  live set (planned by the sweep placer) is built with gcc and matches TFLite.
- Hostile sizes end in under 10 s: 10^6 operators are refused with a message, tensors of 8 GB
  compile with a warning naming them (an error under --max-arena), and an arena beyond a 64-bit
  address space is refused. (Single hostile tensors, e.g. 10^12 bytes, are in tests/bad.)
- --weights file: PREFIX_check_weights accepts the model's own blob and refuses one of another
  model (size), of the same model with one weight changed (hash) or damaged; PREFIX_run refuses a
  blob whose header belongs to other weights.
- --max-arena with person_detect: fits 64 KB (the scheduler's scratch blocks shrink to fit), not
  32 KB, and the message names the largest tensors live at the peak; --max-weights likewise.
- --weights embed is refused above 64 MiB of constants with a message naming --weights file.

Longer measurements (BERT-base, 10^6 ops, gcc build times) are in tests/scale/measure.py (`make scale`).
"""

import re
import struct
import subprocess
import sys
import time

import numpy as np
import pytest

import oracle
from compare import compare_arrays
from mpcc_paths import DIGITS_DIR, MPCC, ROOT, SHARED_MODELS, TESTS_DIR
from mpcc_tools import GEN_FLAGS, build_exe, compile_model, new_workdir, run_cmd, run_exe, runtime_lib, write_harness

sys.path.insert(0, str(TESTS_DIR / "scale"))
import fbgraph  # noqa: E402

PERSON = SHARED_MODELS / "tflm" / "person_detect.tflite"


def timed(cmd, limit):
    t = time.time()
    proc = run_cmd(cmd, timeout=max(60, 4 * limit))
    secs = time.time() - t
    print(f"{' '.join(str(c) for c in cmd[:2])} ...: {secs:.2f} s, exit {proc.returncode}")
    return proc, secs


def header_define(h, name):
    m = re.search(rf"#define \w+_{name} (\d+)", h.read_text())
    assert m, f"{name} not in {h}"
    return int(m.group(1))


@pytest.mark.parametrize("kind", ["chain", "live"])
def test_50k_graph_compiles_in_time(kind):
    work = new_workdir(f"scale-{kind}")
    model = work / f"{kind}.tflite"
    model.write_bytes(fbgraph.chain(50000) if kind == "chain" else fbgraph.live_set(50000))
    proc, secs = timed([MPCC, model, "-o", work / "model.c", "--name", "model"], 5)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert secs < 5, f"50k-op {kind}: {secs:.2f} s (limit 5 s)"
    arena = header_define(work / "model.h", "ARENA_BYTES")
    if kind == "live":
        # t_1..t_n are all live when the second half starts (16 bytes each), plus the running sum.
        assert 50000 * 16 <= arena <= 50001 * 16, arena
    else:
        assert arena <= 2 * 16, arena  # a chain needs two buffers (ADD writes over its input: one)


def test_sweep_plan_matches_tflite(seed):
    """2,000 tensors live at once: over a million overlapping pairs, so the sweep placer plans it."""
    work = new_workdir("scale-live2000")
    model = work / "live.tflite"
    model.write_bytes(fbgraph.live_set(2000, width=8))
    proc = compile_model(model, work)
    assert proc.returncode == 0, proc.stderr
    write_harness(work, 1, 1)
    proc, exe = build_exe(work, "gcc-O2")
    assert proc.returncode == 0, proc.stderr[-3000:]
    rng = np.random.default_rng(seed)
    x = rng.uniform(-1, 1, (1, 8)).astype(np.float32)
    ref = oracle.run(model, [x])
    proc, got = run_exe(exe, [x], [(np.float32, (1, 8))], work)
    assert proc.returncode == 0, proc.stderr
    ok, msg = compare_arrays(ref[0], got[0], mode="opt")
    print(msg)
    assert ok, msg


def test_million_ops_refused_quickly():
    work = new_workdir("scale-1M")
    model = work / "chain.tflite"
    model.write_bytes(fbgraph.chain(999998))
    proc, secs = timed([MPCC, model, "-o", work / "model.c"], 10)
    assert proc.returncode == 1 and "999998 operators, more than the 250000 the C backend compiles" in proc.stderr, proc.stderr
    assert secs < 10
    assert not (work / "model.c").exists() and not (work / "model.c.tmp").exists()
    proc, secs = timed([MPCC, "inspect", model], 10)
    assert proc.returncode == 0 and "ADD                            999998" in proc.stdout, proc.stdout[-1000:]
    assert secs < 10


def test_huge_tensors_warn_or_fail():
    """Three f32 tensors of 2^31-1 elements (8 GB each): compiles with a warning naming them;
    --max-arena makes it an error with the same names."""
    work = new_workdir("scale-8gb")
    model = work / "big.tflite"
    model.write_bytes(fbgraph.live_set(2, width=2**31 - 1))
    proc, secs = timed([MPCC, model, "-o", work / "model.c"], 10)
    assert proc.returncode == 0, proc.stderr
    assert secs < 10
    assert "warning: the arena is 17179869184 bytes (16.0 GiB), more than 1 GiB" in proc.stderr, proc.stderr
    assert "'tensor1' [1,2147483647] f32 8589934592 bytes" in proc.stderr, proc.stderr
    proc, secs = timed([MPCC, model, "--max-arena", "1G", "-o", work / "model.c"], 10)
    assert proc.returncode == 1 and "more than --max-arena 1073741824" in proc.stderr, proc.stderr
    assert "'tensor1' [1,2147483647] f32 8589934592 bytes" in proc.stderr


def test_arena_beyond_address_space_refused():
    work = new_workdir("scale-256tb")
    model = work / "big.tflite"
    model.write_bytes(fbgraph.live_set(20000, width=2**31 - 1))  # 20,000 live tensors of 8 GB
    proc, secs = timed([MPCC, model, "-o", work / "model.c"], 10)
    assert proc.returncode == 1, proc.stderr
    assert "more than a 64-bit address space holds (140737488355328)" in proc.stderr, proc.stderr
    assert secs < 10


# ---- weights integrity -----------------------------------------------------------------------

def perturbed_copy(model, out):
    """The model with one byte of its largest constant buffer changed (same sizes, other weights)."""
    from ai_edge_litert import schema_py_generated as S
    data = bytearray(model.read_bytes())
    m = S.Model.GetRootAs(data, 0)
    best = max(range(m.BuffersLength()), key=lambda i: m.Buffers(i).DataLength())
    b = m.Buffers(best)
    pos = b._tab.Vector(b._tab.Offset(4))
    data[pos + 9] ^= 0x01  # low mantissa bit of a float
    out.write_bytes(bytes(data))


def build_weights_harness(work, model, n_out):
    proc = compile_model(model, work, ["--weights", "file"])
    assert proc.returncode == 0, proc.stderr
    out_bytes = ", ".join(f"MODEL_OUTPUT{i}_BYTES" for i in range(n_out))
    exe = work / "harness"
    proc = run_cmd(["gcc", *GEN_FLAGS, "-O2", "-DN_IN=1", f"-DN_OUT={n_out}", f"-DOUT_BYTES={out_bytes}",
                    "-I", ROOT / "runtime", "-I", work, work / "model.c", TESTS_DIR / "scale" / "harness_weights.c",
                    runtime_lib("gcc-O2"), "-lm", "-o", exe])
    assert proc.returncode == 0, proc.stderr[-3000:]
    return exe


def test_weights_hash_mismatch(seed):
    model = DIGITS_DIR / "digits_f32.tflite"
    work = new_workdir("weights-hash")
    exe = build_weights_harness(work, model, 1)
    blob = (work / "model.weights.bin").read_bytes()
    h = (work / "model.h").read_text()
    assert f"#define MODEL_WEIGHTS_BYTES {len(blob)}" in h and "MODEL_WEIGHTS_HASH UINT64_C(0x" in h
    assert "int model_check_weights(const void *weights, size_t bytes);" in h
    hash_hex = re.search(r"MODEL_WEIGHTS_HASH UINT64_C\(0x([0-9a-f]{16})\)", h).group(1)
    assert blob[:8] == b"mpccwts1" and struct.unpack("<Q", blob[8:16])[0] == int(hash_hex, 16)

    inputs, refs = oracle.oracle(model, seed)
    x = work / "in.bin"
    inputs[0].astype(np.float32).tofile(x)

    def run(mode, weights):
        p = work / "w.bin"
        p.write_bytes(weights)
        return run_cmd([exe, mode, p, x, work / "out.bin"]).returncode

    assert run("check", blob) == 0
    got = np.fromfile(work / "out.bin", dtype=np.float32).reshape(refs[0].shape)
    ok, msg = compare_arrays(refs[0], got, mode="opt")
    assert ok, msg

    # Another model's blob: its size differs; run alone sees its header is not this model's.
    other = new_workdir("weights-other")
    assert compile_model(DIGITS_DIR / "digits_int8.tflite", other, ["--weights", "file"]).returncode == 0
    other_blob = (other / "model.weights.bin").read_bytes()
    assert run("check", other_blob) == 22
    assert run("run", other_blob) == 13
    # The same model with one weight changed: same size, other hash.
    changed = new_workdir("weights-changed")
    perturbed_copy(model, changed / "m.tflite")
    assert compile_model(changed / "m.tflite", changed, ["--weights", "file"]).returncode == 0
    changed_blob = (changed / "model.weights.bin").read_bytes()
    assert len(changed_blob) == len(blob) and changed_blob != blob
    assert run("check", changed_blob) == 23
    assert run("run", changed_blob) == 13
    # A damaged copy of the right blob: the check finds it; run alone reads only the header.
    damaged = bytearray(blob)
    damaged[len(blob) // 2] ^= 0x10
    assert run("check", bytes(damaged)) == 23
    assert run("run", bytes(damaged)) == 0
    assert run("check", blob[:-16]) == 22


# ---- budgets ---------------------------------------------------------------------------------

@pytest.mark.skipif(not PERSON.exists(), reason="needs ../shared/models/tflm/person_detect.tflite")
@pytest.mark.parametrize("opt", ["-O0", "-O2"])
def test_max_arena_person_detect(opt, seed):
    work = new_workdir(f"max-arena{opt}")
    # Below what row bands (pass patch) and smaller scratch reach: refused, naming the largest tensors.
    proc = run_cmd([MPCC, PERSON, opt, "--max-arena", "16K", "-o", work / "model.c", "--name", "model"])
    assert proc.returncode == 1, proc.stderr
    assert "more than --max-arena 16384" in proc.stderr and "; the largest: " in proc.stderr, proc.stderr
    assert "'MobilenetV1/MobilenetV1/Conv2d_1_pointwise/Relu6' [1,48,48,16] i8 36864 bytes" in proc.stderr, proc.stderr
    assert not (work / "model.c").exists()
    # 32K, below the op-by-op bound (55,296 B): the early layers run in row bands (docs/patch-exec.md).
    proc = run_cmd([MPCC, PERSON, opt, "--max-arena", "32K", "-o", work / "model.c", "--name", "model"])
    assert proc.returncode == 0, proc.stderr
    arena = header_define(work / "model.h", "ARENA_BYTES")
    print(f"{opt}: arena {arena} bytes", proc.stderr)
    assert arena <= 32768
    # The row bands and smaller scratch blocks compute the same int8 outputs as TFLite.
    write_harness(work, 1, 1)
    proc, exe = build_exe(work, "gcc-O2")
    assert proc.returncode == 0, proc.stderr[-3000:]
    inputs, refs = oracle.oracle(PERSON, seed)
    proc, got = run_exe(exe, inputs, [(r.dtype, r.shape) for r in refs], work)
    assert proc.returncode == 0, proc.stderr
    ok, msg = compare_arrays(refs[0], got[0])
    assert ok, msg


def test_max_weights_and_embed_limit():
    model = DIGITS_DIR / "digits_f32.tflite"
    work = new_workdir("max-weights")
    proc = run_cmd([MPCC, model, "--max-weights", "1K", "-o", work / "model.c"])
    assert proc.returncode == 1 and "more than --max-weights 1024; the largest constants: '" in proc.stderr, proc.stderr
    assert run_cmd([MPCC, model, "--max-weights", "1M", "-o", work / "model.c"]).returncode == 0
    proc = run_cmd([MPCC, model, "--max-arena", "12x", "-o", work / "model.c"])
    assert proc.returncode == 1 and "--max-arena: '12x' is not a byte count" in proc.stderr
    # 80 MB of constants: --weights embed (the default) refuses and names --weights file.
    big = work / "big.tflite"
    big.write_bytes(fbgraph.chain(1, width=20 << 20))
    proc, secs = timed([MPCC, big, "-o", work / "big.c"], 10)
    assert proc.returncode == 1 and "use --weights file" in proc.stderr, proc.stderr
    assert "more than the 67108864 bytes that --weights embed" in proc.stderr
    assert not (work / "big.c").exists() and not (work / "big.h").exists()
    proc, secs = timed([MPCC, big, "--weights", "file", "-o", work / "big.c"], 10)
    assert proc.returncode == 0, proc.stderr
    # the 16-byte header and zeros to 64 (each constant starts 64 bytes aligned), then the 80 MB
    assert (work / "big.weights.bin").stat().st_size == 64 + (80 << 20)
