"""guard: the fp16 range-guard test model. tests/models/guard_f32.tflite

One self-attention block with the additive mask that BERT-style exporters build from a 0/1 padding
mask, (1 - mask) * -1e9 (beyond fp16's 65504: -inf in fp16), and a residual branch whose values
reach ~1e5 before a LayerNorm (stored in fp16 it becomes inf, and the LayerNorm NaN). Inputs x float
[1,16,32] and mask float [1,16] (1 keep, 0 padding); output the normalized [1,16,32]. With
--precision fp16 --calibrate, pass half_storage keeps exactly those two tensors in f32; with
--no-range-guard they are stored in fp16 and the output is not finite."""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402

common.setup()

import keras  # noqa: E402
import tensorflow as tf  # noqa: E402

SEQ, HID = 16, 32


def main():
    common.family_args()
    common.reseed(21)
    L = keras.layers
    x = keras.Input((SEQ, HID), batch_size=1, name="x")
    mask = keras.Input((SEQ,), batch_size=1, name="mask")
    q, k, v = (L.Dense(HID, name=n)(x) for n in ("query", "key", "value"))
    scores = keras.ops.matmul(q, keras.ops.transpose(k, (0, 2, 1))) * (1.0 / HID ** 0.5)
    additive = (1.0 - keras.ops.expand_dims(mask, 1)) * -1e9
    probs = keras.ops.softmax(scores + additive, axis=-1)
    y = L.Dense(HID, name="attention_output")(keras.ops.matmul(probs, v))
    big = L.Dense(HID, name="wide_residual",
                  kernel_initializer=keras.initializers.RandomNormal(stddev=12000.0, seed=common.SEED))(x)
    out = L.LayerNormalization(epsilon=1e-6, name="ln")(big + y)
    model = keras.Model([x, mask], out, name="guard")
    specs = [tf.TensorSpec([1, SEQ, HID], tf.float32, name="x"), tf.TensorSpec([1, SEQ], tf.float32, name="mask")]
    common.emit("guard", model, specs, variants=("f32",), ranges=[(-1.0, 1.0), (0.0, 1.0)])


if __name__ == "__main__":
    main()
