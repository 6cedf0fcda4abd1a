"""custom: a model with a CUSTOM operator, for --custom-op and a user kernel.

    custom_sinh_f32   x [1,16] -> Dense(12) -> tf.math.sinh -> Dense(4). TFLite has no SINH builtin: with
                      allow_custom_ops the converter writes a CUSTOM op "Sinh" (its custom_options are the
                      TF node's attributes as a FlexBuffer). The kernel is user_sinh in
                      tests/custom/user_kernels.c.

TFLite cannot run the custom op, so the oracle runs tests/models/oracle/custom_sinh_f32.tflite instead:
the same weights with sinh(h) written as (exp(h) - exp(-h)) * 0.5 in builtin ops (the user kernel
computes exactly that). The sidecar names the oracle model and the kernel.
"""

import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402

common.setup()

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402


def convert(fn, custom):
    conv = tf.lite.TFLiteConverter.from_concrete_functions([fn])
    conv.allow_custom_ops = custom
    return conv.convert()


def main():
    common.family_args()
    common.reseed(3)
    rng = np.random.default_rng(common.SEED)
    w1 = tf.constant(rng.standard_normal((16, 12)).astype(np.float32) * 0.3)
    b1 = tf.constant(rng.standard_normal(12).astype(np.float32) * 0.1)
    w2 = tf.constant(rng.standard_normal((12, 4)).astype(np.float32) * 0.3)
    b2 = tf.constant(rng.standard_normal(4).astype(np.float32) * 0.1)
    spec = [tf.TensorSpec([1, 16], tf.float32, name="x")]

    def model(sinh):
        return lambda x: tf.matmul(sinh(tf.matmul(x, w1) + b1), w2) + b2

    custom = tf.function(model(tf.math.sinh), input_signature=spec).get_concrete_function()
    twin = tf.function(model(lambda h: (tf.exp(h) - tf.exp(-h)) * 0.5), input_signature=spec).get_concrete_function()
    data = convert(custom, True)  # (the interpreter cannot load it: no op list from it)
    path = os.path.join(common.TESTS_MODELS, "custom_sinh_f32.tflite")
    oracle_path = os.path.join(common.TESTS_MODELS, "oracle", "custom_sinh_f32.tflite")
    common.write(path, data)
    common.write(oracle_path, convert(twin, False))
    side = {"oracle_model": "oracle/custom_sinh_f32.tflite",
            "custom_ops": [{"name": "Sinh", "function": "user_sinh", "source": "../custom/user_kernels.c"}]}
    with open(os.path.splitext(path)[0] + ".json", "w") as f:
        json.dump(side, f, indent=1, sort_keys=True)
        f.write("\n")
    print(f"  custom_sinh_f32 ops: FULLY_CONNECTED, CUSTOM Sinh; oracle twin: "
          f"{' '.join(sorted(set(common.op_names(open(oracle_path, 'rb').read()))))}")


if __name__ == "__main__":
    main()
