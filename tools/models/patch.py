"""patch: small conv chains at high resolution for pass patch (patch-based execution, docs/patch-exec.md),
one per pattern: stride 2 with SAME padding, VALID padding with dilation (the chain ends at the graph
output), max and average pooling, residual ADDs (two inverted residual blocks), explicit PADs; every model's output is spatial, so a wrong row shows (untrained, seeded). tests/patch/patch_{s2_same,valid_dil,pool,residual,pad}_{int8,f32}.tflite (their own folder: the
model-wide tests of tests/models would compile them in every configuration)"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402

common.setup()

import keras  # noqa: E402
import tensorflow as tf  # noqa: E402

SIZE = 40
OUT_DIR = os.path.join(os.path.dirname(common.TESTS_MODELS), "patch")


def tail(h, L):
    # The spatial output itself: a wrong row anywhere shows (a pooled tail could hide it).
    return L.Conv2D(4, 1)(h)


def s2_same(L, inp):
    h = L.Conv2D(8, 3, strides=2, padding="same", activation="relu6")(inp)
    h = L.DepthwiseConv2D(3, padding="same", activation="relu6")(h)
    h = L.Conv2D(16, 1, activation="relu6")(h)
    h = L.DepthwiseConv2D(3, strides=2, padding="same", activation="relu6")(h)
    h = L.Conv2D(8, 1)(h)
    return tail(h, L)


def valid_dil(L, inp):
    h = L.Conv2D(8, 3, padding="valid", activation="relu")(inp)
    h = L.Conv2D(16, 3, padding="same", dilation_rate=2, activation="relu6")(h)
    h = L.DepthwiseConv2D(3, padding="valid", dilation_rate=2, activation="relu6")(h)
    h = L.Conv2D(4, 3, strides=2, padding="valid")(h)
    return h


def pool(L, inp):
    h = L.Conv2D(16, 3, padding="same", activation="relu6")(inp)
    h = L.AveragePooling2D(3, strides=1, padding="same")(h)
    h = L.Conv2D(16, 3, padding="valid", activation="relu6")(h)
    h = L.MaxPooling2D(3, strides=2, padding="valid")(h)
    h = L.Conv2D(8, 1)(h)
    return tail(h, L)


def residual(L, inp):
    # MobileNetV2's inverted residual blocks: the ADD needs the block input's rows, the expansion its halo.
    h = L.Conv2D(8, 3, strides=2, padding="same", activation="relu6")(inp)
    for dil in (1, 2):
        e = L.Conv2D(24, 1, activation="relu6")(h)
        e = L.DepthwiseConv2D(3, padding="same", dilation_rate=dil, activation="relu6")(e)
        h = L.Add()([h, L.Conv2D(8, 1)(e)])
    h = L.DepthwiseConv2D(3, strides=2, padding="same", activation="relu6")(h)
    return tail(h, L)


def pad(L, inp):
    # Explicit PAD ops (as PyTorch exports have; fold_pad folds them only from -O1), top != bottom.
    h = L.ZeroPadding2D(((1, 2), (1, 0)))(inp)
    h = L.Conv2D(8, 3, strides=2, padding="valid", activation="relu6")(h)
    h = L.ZeroPadding2D(((2, 1), (1, 1)))(h)
    h = L.DepthwiseConv2D(3, padding="valid", activation="relu6")(h)
    h = L.Conv2D(16, 1, activation="relu6")(h)
    return tail(h, L)


def main():
    common.family_args()
    L = keras.layers
    for k, (name, body) in enumerate([("patch_s2_same", s2_same), ("patch_valid_dil", valid_dil), ("patch_pool", pool),
                                        ("patch_residual", residual), ("patch_pad", pad)]):
        common.reseed(40 + k)
        inp = keras.Input((SIZE, SIZE, 3), batch_size=1, name="image")
        model = keras.Model(inp, body(L, inp), name=name)
        common.emit(name, model, [tf.TensorSpec([1, SIZE, SIZE, 3], tf.float32, name="image")], variants=("f32", "int8"),
                    out_dir=OUT_DIR)


if __name__ == "__main__":
    main()
