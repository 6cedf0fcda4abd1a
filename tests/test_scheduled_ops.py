"""The ops between the convolutions of real CNNs run scheduled kernels at -O2, not reference ones
(docs/scheduled-ops.md): `mpcc --report` names each op's schedule, and a regression that sends one
of these zoo models' ops back to its reference kernel fails here. (Their numbers against TFLite:
tests/test_models.py; the kernels against the reference ones: tests/unit/test_cnn_ops_kernels.c.)"""

import re
import subprocess

import pytest

from mpcc_paths import MODELS_DIR, MPCC

# zoo model glob -> (op name, the schedule --report must show for it)
EXPECTED = {
    "op_resize_bilinear_*": ("RESIZE_BILINEAR", "resize"),
    "op_resize_nearest_neighbor_*": ("RESIZE_NEAREST_NEIGHBOR", "resize"),
    "op_logistic_*_f32": ("LOGISTIC", "act"),
    "op_tanh_*_f32": ("TANH", "act"),
    "op_logistic_*_int8": ("LOGISTIC", "lut"),
    "op_tanh_*_int8": ("TANH", "lut"),
    "op_relu_basic_int8": ("RELU", "lut"),
    "op_relu6_*_int8": ("RELU6", "lut"),
    "op_relu_n1_to_1_*_int8": ("RELU_N1_TO_1", "lut"),
    "op_relu_0_to_1_*_int8": ("RELU_0_TO_1", "lut"),
    "op_transpose_conv_*": ("TRANSPOSE_CONV", "tconv"),
    "op_maximum_*_f32": ("MAXIMUM", "binary"),
    "op_maximum_*_int8": ("MAXIMUM", "binary"),
    "op_minimum_*_f32": ("MINIMUM", "binary"),
    "op_minimum_*_int8": ("MINIMUM", "binary"),
    "op_softmax_*_int8": ("SOFTMAX", "softmax"),
    "bert_int8": ("SELECT_V2", "select"),
    "op_reduce_max_*_f32": ("REDUCE_MAX", "reduce"),
    "op_reduce_min_*_f32": ("REDUCE_MIN", "reduce"),
    "op_cast_rfft_frames_f32": ("CAST", "cast"),
    "op_range_frames_f32": ("GATHER", "gather-rows"),
    "op_range_down_f32": ("GATHER", "gather-rows"),
}
CASES = [(m, *want) for pattern, want in EXPECTED.items() for m in sorted(MODELS_DIR.glob(pattern + ".tflite"))]


def test_every_pattern_has_models():
    for pattern in EXPECTED:
        assert list(MODELS_DIR.glob(pattern + ".tflite")), f"no zoo model matches {pattern}"


@pytest.mark.parametrize("model,op,sched", CASES, ids=lambda v: getattr(v, "stem", str(v)))
def test_op_is_scheduled(model, op, sched):
    p = subprocess.run([str(MPCC), str(model), "--report"], capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    rows = [l.split() for l in p.stdout.splitlines() if re.match(r"\s+op \d+\s", l)]
    ops = [r for r in rows if r[2] == op]
    assert ops, f"{op} not in the schedule at -O2 (reference kernel):\n{p.stdout}"
    assert all(r[3] == sched for r in ops), p.stdout
    p0 = subprocess.run([str(MPCC), str(model), "--report", "-O0"], capture_output=True, text=True, timeout=60)
    assert p0.returncode == 0 and not any(re.match(rf"\s+op \d+\s+{op}\s", l) for l in p0.stdout.splitlines()), \
        "at -O0 every op should run its reference kernel"
