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
