"""MediaPipe's custom operator Convolution2DTransposeBias (the last layer of its selfie and hair segmentation
models), which TFLite runs through its XNNPACK delegate and mpcc imports as a TRANSPOSE_CONV
(compiler/tfl_custom.c). Each case builds a one-op model with the schema's object API, random weights and bias
from the test's printed seed, and checks the generated C (scheduled, ASan+UBSan build) against two oracles:
TFLite running the custom model itself, and TFLite running its builtin TRANSPOSE_CONV twin. Bad custom options
get a message naming the operator and exit status 1."""

import struct

import numpy as np
import pytest

import oracle
from compare import compare_arrays
from mpcc_paths import MPCC, MPCC_ASAN
from mpcc_tools import build_exe, compile_model, new_workdir, run_cmd, run_exe, write_harness
from schema_models import OP, S, TT, buffer, model, operator, pack, tensor

NAME = "Convolution2DTransposeBias"
SAME, VALID = 1, 2  # TfLitePadding as the custom options store it


def _out_hw(h, w, k, stride, pad):
    if pad == SAME:
        return h * stride, w * stride
    return (h - 1) * stride + k, (w - 1) * stride + k


def _models(rng, h, w, cin, cout, k, stride, pad, options=None):
    """(custom model bytes, builtin TRANSPOSE_CONV twin bytes, output shape)."""
    wts = (rng.standard_normal((cout, k, k, cin)) * 0.5).astype(np.float32)
    bias = (rng.standard_normal(cout) * 0.5).astype(np.float32)
    oh, ow = _out_hw(h, w, k, stride, pad)
    out_shape = [1, oh, ow, cout]
    if options is None:
        options = struct.pack("<3i", pad, stride, stride)
    bufs = [buffer(), buffer(wts.tobytes()), buffer(bias.tobytes())]
    tens = [tensor("image", [1, h, w, cin]), tensor("weights", wts.shape, buffer=1), tensor("bias", [cout], buffer=2),
            tensor("segmentation", out_shape)]
    code = S.OperatorCodeT()
    code.builtinCode, code.deprecatedBuiltinCode, code.customCode, code.version = OP.CUSTOM, OP.CUSTOM, NAME.encode(), 1
    op = operator(0, [0, 1, 2], [3])
    op.customOptions = list(options)
    custom = model(tens, [op], [OP.CUSTOM], bufs, [0], [3])
    custom.operatorCodes = [code]
    # the twin: TRANSPOSE_CONV(output_shape, weights, input, bias)
    opts = S.TransposeConvOptionsT()
    opts.padding = S.Padding.SAME if pad == SAME else S.Padding.VALID
    opts.strideW = opts.strideH = stride
    tbufs = bufs + [buffer(np.array(out_shape, np.int32).tobytes())]
    ttens = tens + [tensor("output_shape", [4], TT.INT32, buffer=3)]
    top = operator(0, [4, 1, 0, 2], [3], S.BuiltinOptions.TransposeConvOptions, opts)
    twin = model(ttens, [top], [OP.TRANSPOSE_CONV], tbufs, [0], [3])
    return pack(custom), pack(twin), out_shape


# (h, w, in_c, out_c, kernel, stride, padding): MediaPipe's 2x upsampling (2x2 and 3x3, SAME), VALID, stride 1
CASES = [(8, 12, 16, 1, 2, 2, SAME), (6, 5, 8, 3, 3, 2, SAME), (5, 7, 4, 2, 3, 2, VALID), (4, 4, 8, 5, 3, 1, SAME),
         (3, 6, 3, 16, 4, 2, SAME)]


@pytest.mark.parametrize("case", CASES, ids=lambda c: "x".join(map(str, c)))
def test_mediapipe_transpose_conv_matches_tflite(case, seed):
    rng = np.random.default_rng(seed)
    custom, twin, out_shape = _models(rng, *case)
    work = new_workdir("mediapipe_tconv")
    (work / "custom.tflite").write_bytes(custom)
    (work / "twin.tflite").write_bytes(twin)
    x = rng.uniform(-1, 1, (1, *case[:2], case[2])).astype(np.float32)
    refs = [oracle.run(work / "custom.tflite", [x], "xnnpack")[0], oracle.run(work / "twin.tflite", [x])[0]]
    assert list(refs[0].shape) == out_shape
    proc = compile_model(work / "custom.tflite", work, mpcc=MPCC_ASAN)
    assert proc.returncode == 0, proc.stderr
    write_harness(work, 1, 1)
    proc, exe = build_exe(work, "gcc-san")
    assert proc.returncode == 0, proc.stderr[-3000:]
    proc, outs = run_exe(exe, [x], [(np.float32, out_shape)], work)
    assert proc.returncode == 0, proc.stderr[-3000:]
    for what, ref in zip(("TFLite (XNNPACK, the custom op)", "TFLite's TRANSPOSE_CONV twin"), refs):
        ok, msg = compare_arrays(ref, outs[0], mode="opt")
        assert ok, f"generated C vs {what}: {msg}"
    rep = run_cmd([MPCC, work / "custom.tflite", "--report"])
    assert rep.returncode == 0 and any(l.split()[2:4] == ["TRANSPOSE_CONV", "tconv"] for l in rep.stdout.splitlines()
                                       if l.strip().startswith("op ")), rep.stdout


@pytest.mark.parametrize("options,needle", [
    (struct.pack("<2i", SAME, 2), "12"),
    (struct.pack("<3i", 7, 2, 2), "padding 7"),
    (struct.pack("<3i", SAME, 0, 2), "strides"),
])
def test_mediapipe_transpose_conv_bad_options(options, needle):
    custom, _, _ = _models(np.random.default_rng(1), 4, 4, 4, 2, 2, 2, SAME, options=options)
    work = new_workdir("mediapipe_tconv_bad")
    (work / "bad.tflite").write_bytes(custom)
    proc = run_cmd([MPCC, work / "bad.tflite", "-o", work / "bad.c"])
    assert proc.returncode == 1, (proc.returncode, proc.stderr)
    assert NAME in proc.stderr and "operator 0" in proc.stderr and needle in proc.stderr, proc.stderr
