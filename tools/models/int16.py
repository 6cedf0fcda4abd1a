"""int16: 16x8 quantization (int16 activations, int8 weights) by the converter, for the int16
kernels that interpolate in tables (TFLite's LOGISTIC/TANH sigmoid table, LUTPopulate<int16_t>'s
513-entry tables of EXP, LOG and RSQRT) and the 16x8 PRELU.

    act16_logistic_int16, act16_tanh_int16   the op alone on x * 3 (x in [-4, 4])
    act16_gate_int16                         sigmoid(x @ W1) * tanh(x @ W2): an LSTM-style gate
    act16_exp_int16                          exp(x), x in [-4, 2]
    act16_log_int16, act16_rsqrt_int16       log(x), 1/sqrt(x), x in [0.05, 8] (the sidecar keeps the
                                             inputs positive)
    act16_prelu_int16                        PRELU with a per-channel alpha [1, 1, 8] (Keras PReLU with
                                             shared_axes [1, 2]) on [1, 4, 4, 8], x in [-4, 4], built with
                                             the schema API: the TF 2.21 converter refuses it ("Quantization
                                             to 16x8-bit not yet supported for op: 'PRELU'"); int16 input
                                             and output, int8 alpha, scales as a calibration gives them
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402

common.setup()

sys.path.insert(0, os.path.join(common.ROOT, "tests"))
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402
from schema_models import OP, TT, S, buffer, model, operator, pack, tensor  # noqa: E402


def emit(name, fn, shape, lo=-4.0, hi=4.0, ops=None):
    """Converts fn in 16x8 mode with representative x uniform in [lo, hi] (the sidecar's range too);
    ops: the op names the converter must have written (no float fallback, no other op)."""
    conc = tf.function(fn, input_signature=[tf.TensorSpec(shape, tf.float32, name="x")]).get_concrete_function()
    rng = np.random.default_rng(common.SEED)
    conv = tf.lite.TFLiteConverter.from_concrete_functions([conc])
    conv.optimizations = [tf.lite.Optimize.DEFAULT]
    conv.representative_dataset = common.rep_from([[rng.uniform(lo, hi, shape).astype(np.float32)] for _ in range(32)])
    conv.target_spec.supported_ops = [tf.lite.OpsSet.EXPERIMENTAL_TFLITE_BUILTINS_ACTIVATIONS_INT16_WEIGHTS_INT8]
    conv.inference_input_type = tf.int16
    conv.inference_output_type = tf.int16
    data = conv.convert()
    names = common.op_names(data)
    if ops is not None and names != ops:
        raise SystemExit(f"{name}_int16: the converter wrote {names}, expected {ops}")
    path = os.path.join(common.TESTS_MODELS, f"{name}_int16.tflite")
    if common.write(path, data):
        common.write_sidecar(path, [(lo, hi)])
        print(f"  {name}_int16 ops: {' '.join(names)}")


def quant(scale, zero_point=0):
    q = S.QuantizationParametersT()
    q.scale, q.zeroPoint = [float(scale)], [int(zero_point)]
    return q


def prelu16(rng):
    """int16 PRELU as TFLite's 16x8 kernel reads it: int16 x and y (zero point 0), int8 alpha
    (symmetric per-tensor), scales from representative data as the converter's calibration sets
    them (max |v| / 32767), alpha broadcast over H and W. The alpha slopes include negative ones."""
    shape, c = [1, 4, 4, 8], 8
    alpha = rng.uniform(-0.3, 0.6, (1, 1, c)).astype(np.float32)
    xs = rng.uniform(-4, 4, [32] + shape).astype(np.float32)
    ys = np.where(xs >= 0, xs, xs * alpha)
    x_s = float(np.abs(xs).max()) / 32767
    y_s = float(np.abs(ys).max()) / 32767
    a_s = float(np.abs(alpha).max()) / 127
    a_q = np.clip(np.round(alpha / a_s), -127, 127).astype(np.int8)
    x = tensor("x", shape, TT.INT16)
    a = tensor("alpha", [1, 1, c], TT.INT8, buffer=1)
    y = tensor("Identity", shape, TT.INT16)
    x.quantization, a.quantization, y.quantization = quant(x_s), quant(a_s), quant(y_s)
    m = model([x, a, y], [operator(0, [0, 1], [2])], [OP.PRELU], [buffer(), buffer(a_q.tobytes())], [0], [2])
    m.description = b"mpcc zoo: int16 PRELU (16x8, schema-built, see tools/models/int16.py)"
    return pack(m)


def main():
    common.family_args()
    rng = np.random.default_rng(common.SEED + 41)
    w1 = tf.constant(rng.standard_normal((16, 16)).astype(np.float32) * 0.4)
    w2 = tf.constant(rng.standard_normal((16, 16)).astype(np.float32) * 0.4)
    emit("act16_logistic", lambda x: tf.sigmoid(x * 3.0), (1, 64))
    emit("act16_tanh", lambda x: tf.tanh(x * 3.0), (1, 64))
    emit("act16_gate", lambda x: tf.sigmoid(tf.matmul(x, w1)) * tf.tanh(tf.matmul(x, w2)), (1, 16))
    emit("act16_exp", tf.exp, (1, 64), -4.0, 2.0, ops=["EXP"])
    emit("act16_log", tf.math.log, (1, 64), 0.05, 8.0, ops=["LOG"])
    emit("act16_rsqrt", tf.math.rsqrt, (1, 64), 0.05, 8.0, ops=["RSQRT"])
    data = prelu16(np.random.default_rng(common.SEED + 43))
    path = os.path.join(common.TESTS_MODELS, "act16_prelu_int16.tflite")
    if common.write(path, data):
        common.write_sidecar(path, [(-4.0, 4.0)])
        print(f"  act16_prelu_int16 ops: {' '.join(common.op_names(data))}")


if __name__ == "__main__":
    main()
