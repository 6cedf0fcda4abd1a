"""dynamic: models with dynamic dimensions (shape_signature -1), compiled with --input-shape.

    dyn_batch_cnn_{f32,int8}     Conv2D + Flatten + Dense on [None, 8, 8, 1]: the converter computes the
                                 Flatten shape at run time (SHAPE, STRIDED_SLICE, PACK, RESHAPE); run at batch 3
    dyn_time_conv1d_{f32,int8}   Conv1D(k=3) + Dense on [1, None, 8] (a streaming-style time axis, stored as 1:
                                 the filter does not fit without --input-shape); run at 20 frames

The sidecar's "input_shapes" gives the shapes the oracle resizes the inputs to; the tests pass the
same shapes to mpcc as --input-shape.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402

common.setup()

import keras  # noqa: E402
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402


def emit_dynamic(name, model, spec, run_shape):
    """Converts model over the (partly None) spec to f32 and int8; representative data and the
    sidecar use run_shape."""
    fn = common.concrete(model, [spec])
    rng = np.random.default_rng(common.SEED)
    rep = common.rep_from([[rng.uniform(-1, 1, run_shape).astype(np.float32)] for _ in range(24)])
    for v in ("f32", "int8"):
        data = common.convert(fn, v, rep if v == "int8" else None)
        path = os.path.join(common.TESTS_MODELS, f"{name}_{v}.tflite")
        if common.write(path, data):
            common.write_sidecar(path, extra={"input_shapes": [list(run_shape)]})
            print(f"  {name}_{v} ops: {' '.join(sorted(set(common.op_names(data))))}")


def main():
    common.family_args()
    common.reseed(1)
    inp = keras.Input((8, 8, 1), name="image")
    h = keras.layers.Conv2D(4, 3, activation="relu")(inp)
    h = keras.layers.Flatten()(h)
    out = keras.layers.Dense(5)(h)
    emit_dynamic("dyn_batch_cnn", keras.Model(inp, out), tf.TensorSpec([None, 8, 8, 1], tf.float32, name="image"),
                 (3, 8, 8, 1))

    common.reseed(2)
    inp = keras.Input((None, 8), name="frames")
    h = keras.layers.Conv1D(6, 3, activation="relu")(inp)
    out = keras.layers.Dense(4)(h)
    emit_dynamic("dyn_time_conv1d", keras.Model(inp, out), tf.TensorSpec([1, None, 8], tf.float32, name="frames"),
                 (1, 20, 8))


if __name__ == "__main__":
    main()
