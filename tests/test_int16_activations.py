"""int16 LOGISTIC and TANH (TFLite's reference kernels interpolate in a sigmoid table), EXP, LOG
and RSQRT (LUTPopulate<int16_t>'s 513-entry interpolated tables) and PRELU (int8 alpha, two
requantizations): every one of the 65,536 inputs, for power-of-two and other scales, through
`mpcc run` and the generated C, bit-exact against TFLite. The zoo's act16_*_int16 models (16x8
quantization by the converter; PRELU schema-built) are checked by test_models.py too."""

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


def quant(scale, zero_point=0):
    q = S.QuantizationParametersT()
    q.scale, q.zeroPoint = [float(scale)], [int(zero_point)]
    return q


def table_model(op, in_scale, out_scale, n, in_zp=0, out_zp=0):
    x, y = tensor("x", [1, n], TT.INT16), tensor("y", [1, n], TT.INT16)
    x.quantization, y.quantization = quant(in_scale, in_zp), quant(out_scale, out_zp)
    return pack(model([x, y], [operator(0, [0], [1])], [(op, 2)], [buffer()], [0], [1]))


# (op, input scale, output scale): calibration-like pairs, then wide input ranges whose tables
# saturate from one end to the other (TFLite's int16 slope wraps between such neighbours) or
# overflow float (exp(x > 88): infinite samples, NaN entries).
TABLE_CASES = [
    ("EXP", 1.2207e-4, 2.2434e-4), ("EXP", 3.1e-4, 3e-3), ("EXP", 2.0 ** -12, 2.0 ** -10),
    ("EXP", 0.0123, 2.2433e-4), ("EXP", 0.05, 0.7),
    ("LOG", 2.4394e-4, 9.12e-5), ("LOG", 1.7e-3, 2.2433e-4), ("LOG", 2.5e-5, 3e-3),
    ("LOG", 0.0123, 2.0 ** -15), ("LOG", 0.05, 9.12e-5),
    ("RSQRT", 2.4394e-4, 1.36e-4), ("RSQRT", 2.5e-5, 0.05), ("RSQRT", 1.7e-3, 3.05e-5), ("RSQRT", 0.05, 9.12e-5),
]


def check_all_inputs(path, x, tmp_path, generated_c):
    ref = oracle.run(path, [x])[0]
    proc, got = mpcc_run(path, [x], tmp_path, n_out=1, mpcc=MPCC_ASAN)
    assert proc.returncode == 0, proc.stderr
    bad = np.flatnonzero(got[0] != ref)
    assert bad.size == 0, (f"{bad.size} of {x.size} differ, first at input {int(x.reshape(-1)[bad[0]])}: "
                           f"TFLite {int(ref.reshape(-1)[bad[0]])}, mpcc {int(got[0].reshape(-1)[bad[0]])}")
    if generated_c:
        work = new_workdir(path.stem + "-i16")
        assert compile_model(path, work, mpcc=MPCC_ASAN).returncode == 0
        write_harness(work, 1, 1)
        p, exe = build_exe(work, "gcc-san")
        assert p.returncode == 0, p.stderr[-2000:]
        p, outs = run_exe(exe, [x], [(ref.dtype, ref.shape)], work)
        assert p.returncode == 0 and np.array_equal(outs[0], ref), p.stderr[-2000:]


@pytest.mark.parametrize("op,in_scale,out_scale", TABLE_CASES, ids=[f"{o}-{a:.3g}-{b:.3g}" for o, a, b in TABLE_CASES])
def test_every_int16_input_table_ops(op, in_scale, out_scale, tmp_path):
    # RSQRT: TFLite fails at run time on a negative input, so only 0..32767.
    x = np.arange(0 if op == "RSQRT" else -32768, 32768, dtype=np.int16).reshape(1, -1)
    path = tmp_path / f"{op.lower()}.tflite"
    path.write_bytes(table_model(getattr(OP, op), in_scale, out_scale, x.size))
    first = next(c for c in TABLE_CASES if c[0] == op)
    check_all_inputs(path, x, tmp_path, generated_c=(op, in_scale, out_scale) == first)


@pytest.mark.parametrize("op", ["EXP", "LOG", "RSQRT"])
@pytest.mark.parametrize("side", ["input", "output"])
def test_int16_table_ops_need_zero_point_0(op, side, tmp_path):
    """TFLite's Prepare refuses a nonzero int16 zero point; so does mpcc, naming the tensor."""
    path = tmp_path / f"{op.lower()}.tflite"
    zp = {"in_zp": 5} if side == "input" else {"out_zp": 5}
    path.write_bytes(table_model(getattr(OP, op), 3e-4, 2e-4, 64, **zp))
    # exp.cc: "input->params.zero_point != 0", elementwise.cc: "op_data->input_offset != 0"
    with pytest.raises(Exception, match=r"(zero_point|_offset) != 0 \(5 != 0\)"):
        oracle.run(path, [np.ones((1, 64), np.int16)])
    proc, _ = mpcc_run(path, [np.ones((1, 64), np.int16)], tmp_path, n_out=1, mpcc=MPCC_ASAN)
    assert proc.returncode == 1
    assert f"int16 {side} '{'x' if side == 'input' else 'y'}' must have zero point 0, got 5" in proc.stderr


def prelu_model(in_scale, alpha_scale, out_scale, alpha, zps=(0, 0, 0), alpha_type=TT.INT8, n=65536):
    c = len(alpha)
    x, y = tensor("x", [1, n, c], TT.INT16), tensor("y", [1, n, c], TT.INT16)
    a = tensor("alpha", [c], alpha_type, buffer=1)
    x.quantization, a.quantization, y.quantization = (quant(in_scale, zps[0]), quant(alpha_scale, zps[1]),
                                                      quant(out_scale, zps[2]))
    data = np.array(alpha, np.int8 if alpha_type == TT.INT8 else np.int16).tobytes()
    return pack(model([x, a, y], [operator(0, [0, 1], [2])], [OP.PRELU], [buffer(), buffer(data)], [0], [2]))


# (input, alpha, output scale, zero points): TFLite's int16 PRELU checks no zero point.
PRELU_CASES = [(1.2206e-4, 0.0039, 1.2203e-4, (0, 0, 0)), (3e-4, 0.02, 1e-4, (0, 7, 0)),
               (2.0 ** -12, 2.0 ** -7, 2.0 ** -12, (0, 0, 0)), (5e-5, 0.5, 4e-4, (-100, -128, 33)),
               (0.1, 0.001, 0.05, (5, 2, -9))]


@pytest.mark.parametrize("case", PRELU_CASES, ids=[f"{c[0]:.3g}-{c[1]:.3g}-{c[2]:.3g}" for c in PRELU_CASES])
def test_every_int16_input_prelu(case, tmp_path):
    """Each of the 65,536 inputs against 16 alpha values (the extremes among them)."""
    alpha = [-128, -77, -1, 0, 1, 3, 50, 127, 99, -3, -100, 17, 64, -64, 2, -2]
    path = tmp_path / "prelu.tflite"
    path.write_bytes(prelu_model(*case[:3], alpha, case[3]))
    x = np.repeat(np.arange(-32768, 32768, dtype=np.int16), len(alpha)).reshape(1, 65536, len(alpha))
    check_all_inputs(path, x, tmp_path, generated_c=case == PRELU_CASES[0])


def test_int16_prelu_needs_int8_alpha(tmp_path):
    path = tmp_path / "prelu.tflite"
    path.write_bytes(prelu_model(3e-4, 1e-4, 2e-4, [5, -7], alpha_type=TT.INT16, n=4))
    proc, _ = mpcc_run(path, [np.ones((1, 4, 2), np.int16)], tmp_path, n_out=1, mpcc=MPCC_ASAN)
    assert proc.returncode == 1 and "alpha" in proc.stderr and "i8" in proc.stderr, proc.stderr
