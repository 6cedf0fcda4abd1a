"""Weights in any storage and the ops between convolutions (docs/weights-and-ops.md), checked on
the schedule `mpcc MODEL --dump-ir` prints; the numbers themselves are checked against TFLite by
test_models.py, which runs every tests/models/*.tflite.

  - test_f16_weights_scheduled: in every float16-weight model of the zoo (*_f16.tflite: weights
    stored as float16 and expanded by DEQUANTIZE ops), the DEQUANTIZE of each constant is folded at
    compile time (only those writing a variable stay), and the CONV_2D / DEPTHWISE_CONV_2D /
    FULLY_CONNECTED / BATCH_MATMUL ops run the same kernel classes as in the float32 twin, when
    there is one (else: every convolution and FC is scheduled).
"""

import re

import pytest

from mpcc_paths import MODELS_DIR, MPCC, DIGITS_DIR
from mpcc_tools import run_cmd

OP_LINE = re.compile(r"^\s*op (\d+) \[tflite #(\d+)\] (\S+) prec=\S+(?: schedule=(\S+))?")
TENSOR_LINE = re.compile(r"^\s*%(\d+) .*\bvariable\b")
WEIGHT_OPS = ("CONV_2D", "DEPTHWISE_CONV_2D", "FULLY_CONNECTED", "BATCH_MATMUL", "TRANSPOSE_CONV")
F16_MODELS = sorted(MODELS_DIR.glob("*_f16.tflite"))


def dump_ops(model, *extra):
    """[(kind, schedule or 'ref', line)] of the live ops in `mpcc MODEL --dump-ir`."""
    proc = run_cmd([MPCC, model, "--dump-ir", *extra])
    assert proc.returncode == 0, f"mpcc --dump-ir failed (exit {proc.returncode}): {proc.stderr}"
    ops = []
    for line in proc.stdout.splitlines():
        m = OP_LINE.match(line)
        if m:
            ops.append((m.group(3), m.group(4) or "ref", line.strip()))
    assert ops, f"no op lines in the dump:\n{proc.stdout}"
    return ops, proc.stdout


def f32_twin(model):
    stem = model.name[: -len("_f16.tflite")]
    for twin in (MODELS_DIR / f"{stem}_f32.tflite", DIGITS_DIR / f"{stem}_f32.tflite"):
        if twin.exists():
            return twin
    return None


@pytest.mark.parametrize("model", F16_MODELS, ids=lambda m: m.stem)
def test_f16_weights_scheduled(model):
    ops, text = dump_ops(model)
    n_variable_dq = sum(1 for line in text.splitlines() if TENSOR_LINE.match(line))
    dequantizes = [line for kind, _, line in ops if kind == "DEQUANTIZE"]
    print("\n".join(line for _, _, line in ops))
    # Only DEQUANTIZEs writing a variable (an LSTM state reset from a float16 constant) may stay.
    assert len(dequantizes) <= n_variable_dq, f"DEQUANTIZE still runs at inference: {dequantizes}"
    weighted = [(kind, sched) for kind, sched, _ in ops if kind in WEIGHT_OPS]
    twin = f32_twin(model)
    if twin is not None:
        twin_ops, _ = dump_ops(twin)
        want = [(kind, sched) for kind, sched, _ in twin_ops if kind in WEIGHT_OPS]
        assert weighted == want, f"{model.name} schedules {weighted}, its float32 twin {twin.name} {want}"
    else:
        refs = [kind for kind, sched in weighted if sched == "ref"]
        assert not refs, f"{model.name}: {refs} on reference kernels"


SCHEDULED = {"PRELU": "prelu", "PAD": "pad", "PADV2": "pad"}
OP_MODELS = sorted(m for m in MODELS_DIR.glob("op_*.tflite")
                   if m.name.startswith(("op_prelu_", "op_pad_", "op_padv2_")))


@pytest.mark.parametrize("model", OP_MODELS, ids=lambda m: m.stem)
def test_prelu_pad_scheduled(model):
    """PRELU (f32, int8) and PAD / PADV2 (any dtype) run their scheduled kernels at -O2, the reference
    ones at -O0 (test_models.py checks both against TFLite)."""
    ops, _ = dump_ops(model)
    mine = [(kind, sched) for kind, sched, _ in ops if kind in SCHEDULED]
    assert mine, f"{model.name}: no PRELU/PAD op in the dump"
    for kind, sched in mine:
        assert sched == SCHEDULED[kind], f"{model.name}: {kind} runs '{sched}', expected '{SCHEDULED[kind]}'"
    ref, _ = dump_ops(model, "-O0")
    assert all(sched == "ref" for kind, sched, _ in ref if kind in SCHEDULED)


def report(model, tmp_path):
    proc = run_cmd([MPCC, model, "-o", tmp_path / "m.c", "--report"])
    assert proc.returncode == 0, f"mpcc --report failed (exit {proc.returncode}): {proc.stderr}"
    return proc.stdout


def test_report_lists_reference_ops(tmp_path):
    """--report lists each op left on a reference kernel with its estimated share, and warns when the
    share is over 10% (int16 PRELU has no scheduled kernel: all of that model); a scheduled model
    (cnn_f16, its float16 DEQUANTIZEs folded) gets no warning."""
    text = report(MODELS_DIR / "act16_prelu_int16.tflite", tmp_path)
    print(text)
    assert re.search(r"^\s*op 0\s+\[tflite #0\] PRELU\s+i16\s+100\.0%$", text, re.M), text
    assert "warning: reference kernels take about 100% of the estimated time" in text
    text = report(MODELS_DIR / "cnn_f16.tflite", tmp_path)
    print(text)
    assert "warning: reference kernels" not in text and "DEQUANTIZE" not in text


def _fc_f16_model(path, rows, n, k, seed):
    """input [rows, k] f32 -> FULLY_CONNECTED with float16 weights [n, k] expanded by a DEQUANTIZE (as the
    converter writes supported_types = [tf.float16]) and f32 bias -> [rows, n]."""
    import numpy as np
    import schema_models as sm
    rng = np.random.default_rng(seed)
    w = (rng.standard_normal((n, k)) * 0.05).astype(np.float16)
    bias = rng.standard_normal(n).astype(np.float32)
    tensors = [sm.tensor("x", [rows, k]), sm.tensor("w16", [n, k], sm.TT.FLOAT16, buffer=1),
               sm.tensor("w", [n, k]), sm.tensor("b", [n], buffer=2), sm.tensor("y", [rows, n])]
    fc = sm.S.FullyConnectedOptionsT()
    ops = [sm.operator(0, [1], [2]), sm.operator(1, [0, 2, 3], [4], sm.S.BuiltinOptions.FullyConnectedOptions, fc)]
    m = sm.model(tensors, ops, [sm.OP.DEQUANTIZE, sm.OP.FULLY_CONNECTED],
                 [sm.buffer(), sm.buffer(w.tobytes()), sm.buffer(bias.tobytes())], [0], [4])
    path.write_bytes(sm.pack(m))
    return path


@pytest.mark.parametrize("rows,kept", [(1, True), (8, True), (32, False)])
def test_f16_gemv_weights_stay_16bit(tmp_path, rows, kept, seed):
    """A FULLY_CONNECTED over few rows whose float16 weights would take 2 MiB or more in float32 (a GEMV:
    memory-bound) keeps them 16-bit at -O2 (pass fold_dequantize; --report says so, the C calls
    rt_opt_fc_half with .f32_inputs = 1: the inputs as they are, never rounded to float16); more rows and -O0
    fold them to float32 as before. Every build (portable -O2, native, ASan/UBSan)
    matches TFLite on random inputs."""
    import oracle
    from compare import compare_arrays
    from mpcc_tools import build_exe, compile_model, new_workdir, run_exe, write_harness
    model = _fc_f16_model(tmp_path / f"fc16_{rows}.tflite", rows, 640, 1024, seed)
    rep = run_cmd([MPCC, model, "--report", "-o", tmp_path / "r.c"])
    assert rep.returncode == 0, rep.stderr
    note = "fp16 weights as the model stores them"
    src = (tmp_path / "r.c").read_text()
    assert (note in rep.stdout) == kept and (".f32_inputs = 1" in src) == kept and ("rt_opt_fc_half" in src) == kept, \
        rep.stdout
    proc = run_cmd([MPCC, model, "-O0", "-o", tmp_path / "o0.c"])
    assert proc.returncode == 0, proc.stderr
    assert "fully_connected_half" not in (tmp_path / "o0.c").read_text(), "-O0 must run the folded float32 weights"
    inputs, refs = oracle.oracle(model, seed)
    work = new_workdir(f"fc16_gemv_{rows}")
    proc = compile_model(model, work)
    assert proc.returncode == 0, proc.stderr
    write_harness(work, len(inputs), len(refs))
    for config in ("gcc-O2", "gcc-native", "gcc-san"):
        proc, exe = build_exe(work, config)
        assert proc.returncode == 0, proc.stderr[-3000:]
        proc, outs = run_exe(exe, inputs, [(r.dtype, r.shape) for r in refs], work)
        assert proc.returncode == 0, proc.stderr[-3000:]
        ok, msg = compare_arrays(refs[0], outs[0], mode="opt")
        assert ok, f"{config}: {msg}"
