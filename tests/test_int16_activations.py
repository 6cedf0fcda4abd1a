"""int16 LOGISTIC and TANH (TFLite's reference kernels interpolate in a sigmoid table): every one
of the 65,536 inputs, for power-of-two and other input scales, through `mpcc run` and the
generated C, bit-exact against TFLite. The zoo's op_{logistic,tanh}_*_int16 models (16x8
quantization by the converter) are checked by test_models.py too."""

import numpy as np
import pytest

import oracle
from mpcc_paths import MPCC_ASAN
from mpcc_tools import build_exe, compile_model, mpcc_run, new_workdir, run_exe, write_harness
from schema_models import OP, S, TT, buffer, model, operator, pack, tensor

# Input scales: 2^-12 and 2^-11 (the power-of-two paths: TANH takes both, LOGISTIC the first),
# then calibration-like scales from tiny to large.
SCALES = [2.0 ** -12, 2.0 ** -11, 3.1e-4, 1.7e-3, 0.0123, 2.5e-5]


def act_model(op, in_scale):
    q_in, q_out = S.QuantizationParametersT(), S.QuantizationParametersT()
    q_in.scale, q_in.zeroPoint = [in_scale], [0]
    q_out.scale, q_out.zeroPoint = [1.0 / 32768], [0]
    x = tensor("x", [1, 65536], TT.INT16)
    y = tensor("y", [1, 65536], TT.INT16)
    x.quantization, y.quantization = q_in, q_out
    return pack(model([x, y], [operator(0, [0], [1])], [(op, 3 if op == OP.LOGISTIC else 3)], [buffer()], [0], [1]))


@pytest.mark.parametrize("op", ["LOGISTIC", "TANH"])
@pytest.mark.parametrize("scale", SCALES, ids=[f"{s:.3g}" for s in SCALES])
def test_every_int16_input(op, scale, tmp_path):
    path = tmp_path / f"{op.lower()}.tflite"
    path.write_bytes(act_model(getattr(OP, op), scale))
    x = np.arange(-32768, 32768, dtype=np.int16).reshape(1, -1)
    ref = oracle.run(path, [x])[0]
    proc, got = mpcc_run(path, [x], tmp_path, n_out=1, mpcc=MPCC_ASAN)
    assert proc.returncode == 0, proc.stderr
    bad = np.flatnonzero(got[0] != ref)
    assert bad.size == 0, (f"{bad.size} of 65536 differ, first at input {int(x.reshape(-1)[bad[0]])}: "
                           f"TFLite {int(ref.reshape(-1)[bad[0]])}, mpcc {int(got[0].reshape(-1)[bad[0]])}")
    if scale == SCALES[2]:  # the generated C too (once per op: the kernel is the same)
        work = new_workdir(f"{op}-i16")
        assert compile_model(path, work, mpcc=MPCC_ASAN).returncode == 0
        write_harness(work, 1, 1)
        p, exe = build_exe(work, "gcc-san")
        assert p.returncode == 0, p.stderr[-2000:]
        p, outs = run_exe(exe, [x], [(ref.dtype, ref.shape)], work)
        assert p.returncode == 0 and np.array_equal(outs[0], ref), p.stderr[-2000:]
