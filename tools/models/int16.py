"""int16: 16x8 quantization (int16 activations, int8 weights) by the converter, for the int16
LOGISTIC and TANH kernels (TFLite's table-interpolating reference kernels).

    act16_logistic_int16, act16_tanh_int16   the op alone on x * 3 (x in [-4, 4])
    act16_gate_int16                         sigmoid(x @ W1) * tanh(x @ W2): an LSTM-style gate
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402

common.setup()

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402


def emit(name, fn, shape):
    conc = tf.function(fn, input_signature=[tf.TensorSpec(shape, tf.float32, name="x")]).get_concrete_function()
    rng = np.random.default_rng(common.SEED)
    conv = tf.lite.TFLiteConverter.from_concrete_functions([conc])
    conv.optimizations = [tf.lite.Optimize.DEFAULT]
    conv.representative_dataset = common.rep_from([[rng.uniform(-4, 4, shape).astype(np.float32)] for _ in range(32)])
    conv.target_spec.supported_ops = [tf.lite.OpsSet.EXPERIMENTAL_TFLITE_BUILTINS_ACTIVATIONS_INT16_WEIGHTS_INT8]
    conv.inference_input_type = tf.int16
    conv.inference_output_type = tf.int16
    data = conv.convert()
    path = os.path.join(common.TESTS_MODELS, f"{name}_int16.tflite")
    if common.write(path, data):
        common.write_sidecar(path, [(-4.0, 4.0)])
        print(f"  {name}_int16 ops: {' '.join(common.op_names(data))}")


def main():
    common.family_args()
    rng = np.random.default_rng(common.SEED + 41)
    w1 = tf.constant(rng.standard_normal((16, 16)).astype(np.float32) * 0.4)
    w2 = tf.constant(rng.standard_normal((16, 16)).astype(np.float32) * 0.4)
    emit("act16_logistic", lambda x: tf.sigmoid(x * 3.0), (1, 64))
    emit("act16_tanh", lambda x: tf.tanh(x * 3.0), (1, 64))
    emit("act16_gate", lambda x: tf.sigmoid(tf.matmul(x, w1)) * tf.tanh(tf.matmul(x, w2)), (1, 16))


if __name__ == "__main__":
    main()
