"""Shapes given as model inputs (issue: streaming models feed TRANSPOSE_CONV's output_shape as a
graph input while declaring a static output shape). mpcc compiles for the declared shape; the
generated code checks the input at run time and returns 4 (RT_ERR_SHAPE_INPUT) when it differs, and
`mpcc run` reports it. The zoo's stream_tconv_* check the numbers; here: the mismatch path, and the
same for RESHAPE, RESIZE_BILINEAR and BROADCAST_TO shape inputs (models built with the schema API,
checked against TFLite with the right values)."""

import numpy as np
import pytest

import oracle
from mpcc_paths import MODELS_DIR, MPCC_ASAN
from mpcc_tools import build_exe, compile_model, mpcc_run, new_workdir, run_exe, write_harness
from schema_models import OP, S, TT, buffer, model, operator, pack, tensor


def shape_input_model(kind):
    """(model bytes, input shapes of x, the right shape-input values): y = OP(x, shape input)."""
    if kind == "reshape":
        tensors = [tensor("x", [2, 6]), tensor("shape", [3], TT.INT32), tensor("y", [3, 2, 2], signature=[3, 2, 2])]
        ops = [operator(0, [0, 1], [2], S.BuiltinOptions.ReshapeOptions, S.ReshapeOptionsT())]
        return pack(model(tensors, ops, [OP.RESHAPE], [buffer()], [0, 1], [2])), [3, -1, 2]
    if kind == "resize_bilinear":
        opts = S.ResizeBilinearOptionsT()
        tensors = [tensor("x", [1, 3, 4, 2]), tensor("size", [2], TT.INT32), tensor("y", [1, 6, 8, 2])]
        ops = [operator(0, [0, 1], [2], S.BuiltinOptions.ResizeBilinearOptions, opts)]
        return pack(model(tensors, ops, [OP.RESIZE_BILINEAR], [buffer()], [0, 1], [2])), [6, 8]
    tensors = [tensor("x", [1, 3]), tensor("shape", [2], TT.INT32), tensor("y", [4, 3])]
    ops = [operator(0, [0, 1], [2], S.BuiltinOptions.BroadcastToOptions, S.BroadcastToOptionsT())]
    return pack(model(tensors, ops, [(OP.BROADCAST_TO, 2)], [buffer()], [0, 1], [2])), [4, 3]


@pytest.mark.parametrize("kind", ["reshape", "resize_bilinear", "broadcast_to"])
def test_shape_input_of_static_output(kind, tmp_path, seed):
    data, right = shape_input_model(kind)
    path = tmp_path / f"{kind}.tflite"
    path.write_bytes(data)
    interp = oracle.load(path)
    x = np.random.default_rng(seed).uniform(-1, 1, interp.get_input_details()[0]["shape"]).astype(np.float32)
    inputs = [x, np.array(right, np.int32)]
    ref = oracle.run(path, inputs)
    proc, outs = mpcc_run(path, inputs, tmp_path, n_out=1, mpcc=MPCC_ASAN)
    assert proc.returncode == 0, proc.stderr
    np.testing.assert_allclose(outs[0], ref[0], rtol=1e-6, atol=1e-6)
    wrong = [v + 1 if v > 0 else v for v in right]
    proc, _ = mpcc_run(path, [x, np.array(wrong, np.int32)], tmp_path, n_out=1, mpcc=MPCC_ASAN)
    assert proc.returncode == 1 and "at run time, but the model was compiled for" in proc.stderr, proc.stderr


def test_streaming_transpose_conv_checks_its_shape_input(seed):
    """stream_tconv_int8: output_shape is a graph input. The generated C returns 0 on [1,8,8,4]
    and 4 on anything else; `mpcc run` names the input and both shapes."""
    model_path = MODELS_DIR / "stream_tconv_int8.tflite"
    inputs, refs = oracle.oracle(model_path, seed)
    work = new_workdir("stream-tconv")
    assert compile_model(model_path, work, mpcc=MPCC_ASAN).returncode == 0
    header = (work / "model.h").read_text()
    assert "or 4 if a shape input differs from the shape the model was compiled for" in header
    write_harness(work, 2, 1)
    proc, exe = build_exe(work, "gcc-O2")  # (the harness exits early on an error: no leak check)
    assert proc.returncode == 0, proc.stderr[-3000:]
    specs = [(r.dtype, r.shape) for r in refs]
    proc, outs = run_exe(exe, inputs, specs, work)
    assert proc.returncode == 0 and np.array_equal(outs[0], refs[0]), proc.stderr
    bad = [inputs[0], np.array([1, 8, 9, 4], np.int32)]
    proc, _ = run_exe(exe, bad, specs, work)
    assert proc.returncode == 14, f"expected the harness's 10 + RT_ERR_SHAPE_INPUT, got {proc.returncode}"
    proc, _ = mpcc_run(model_path, bad, work, n_out=1, mpcc=MPCC_ASAN)
    assert proc.returncode == 1
    assert ("operator 0 (TRANSPOSE_CONV): input 0 'output_shape' holds [1,8,9,4] at run time, but the model "
            "was compiled for [1,8,8,4]") in proc.stderr, proc.stderr
