"""family: held-out-style models for the generalization survey (docs/generalization.md), shaped
like MediaPipe's face / palm / pose / iris models, a wake-word embedding CNN and an LSTM keyword
model, but with the shapes the benchmark zoo lacks (untrained, seeded, random BN statistics,
nothing downloaded). Written to build/models/family/fam_NAME_{f32,f16,int8}.tflite (not committed).

- facedet: full-range-like face detector, 192x192x3: stride-2 5x5 conv, BlazeBlocks with 5x5
  depthwise (stride 2 as a depthwise, not only a pool), channel PAD shortcuts, channel counts
  24/28/40/48/88/96/136 (not multiples of 16), two anchor heads, LOGISTIC scores.
- palm: palm-detector-like FPN, 160x160x3: encoder to 5x5, RESIZE_BILINEAR (half_pixel and
  align_corners) and RESIZE_NEAREST upsampling, ADD and CONCATENATION merges, TRANSPOSE_CONV
  stride 2, anchor heads at 20x20 and 10x10.
- pose: pose-detector/landmark-like, 256x256x3, many inverted-residual blocks with HARD_SWISH,
  stride-2 5x5 depthwise, dilated depthwise, channels 24/40/88/144/192/288, MEAN head, FULLY_CONNECTED
  landmarks and a LOGISTIC flag.
- iris: iris/face-landmark-like, 64x64x3 f32: PRELU after conv and after depthwise, channel PAD
  residuals, odd spatial sizes (64 -> 32 -> 16 -> 8 -> 4 with VALID convs to 3x3), AVERAGE_POOL head.
- wake: wake-word embedding CNN, 76x32x1 log-mel frames: 3x3 convs with LEAKY_RELU, max-pools with
  odd sizes, FULLY_CONNECTED embedding of 96.
- hands: hand-landmark-like, 224x224x3: inverted residuals with ReLU6, channels 24/40/80/112/160/
  192, MEAN + FULLY_CONNECTED heads (63 landmarks, handedness LOGISTIC).
- lstmkw: LSTM(88) over 61 frames of 40 features, Dense 10 softmax (int8 integer LSTM).
- mini: tests/models/fam_mini_{f32,int8}.tflite, committed (see mini()).

    python tools/models/family.py [--only facedet pose ...]"""

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402

common.setup()

import keras  # noqa: E402
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

L = keras.layers
K = keras.ops
OUT = os.path.join(common.BIG_MODELS, "family")


def emit(name, model, shape, **kw):
    common.emit("fam_" + name, model, [tf.TensorSpec(shape, tf.float32, name="input")], out_dir=OUT, limit=None,
                rep_samples=8, **kw)


def pad_channels(x, c_out):
    c_in = x.shape[-1]
    return x if c_in == c_out else K.pad(x, [[0, 0], [0, 0], [0, 0], [0, c_out - c_in]])


def prelu(x):
    return L.PReLU(shared_axes=[1, 2], alpha_initializer=keras.initializers.RandomUniform(0.05, 0.3))(x)


def bn(x):
    return L.BatchNormalization()(x)


# ------------------------------------------------------------------------------------ facedet

def blaze(x, c_out, stride=1):
    h = bn(L.DepthwiseConv2D(5, strides=stride, padding="same", use_bias=False)(x))
    h = bn(L.Conv2D(c_out, 1, use_bias=False)(h))
    s = L.MaxPooling2D(2)(x) if stride == 2 else x
    return L.ReLU()(L.Add()([h, pad_channels(s, c_out)]))


def facedet():
    common.reseed(40)
    inp = keras.Input((192, 192, 3), batch_size=1)
    h = L.ReLU()(bn(L.Conv2D(24, 5, strides=2, padding="same", use_bias=False)(inp)))   # 96
    for c, s in [(24, 1), (28, 1), (40, 2), (40, 1), (48, 1), (88, 2), (88, 1), (96, 1)]:
        h = blaze(h, c, s)                                                              # 24x24x96
    f24 = h
    # a stride-2 5x5 depthwise without a pool shortcut (full-range's down-sampling)
    h = L.ReLU()(bn(L.DepthwiseConv2D(5, strides=2, padding="same", use_bias=False)(h)))  # 12x12x96
    h = L.ReLU()(bn(L.Conv2D(136, 1, use_bias=False)(h)))
    for c in (136, 136, 136):
        h = blaze(h, c)
    f12 = h
    regs, clss = [], []
    for feat, anchors in [(f24, 2), (f12, 6)]:
        n = feat.shape[1] * feat.shape[2] * anchors
        regs.append(L.Reshape((n, 16))(L.Conv2D(anchors * 16, 1)(feat)))
        clss.append(L.Reshape((n, 1))(L.Conv2D(anchors, 1)(feat)))
    reg = L.Concatenate(axis=1)(regs)
    cls = L.Activation("sigmoid")(L.Concatenate(axis=1)(clss))
    model = keras.Model(inp, [reg, cls])
    common.randomize_batchnorm(model)
    emit("facedet", model, [1, 192, 192, 3])


# ------------------------------------------------------------------------------------ palm

def resize(x, size, mode):
    if mode == "align":
        return L.Lambda(lambda t: tf.compat.v1.image.resize_bilinear(t, size, align_corners=True))(x)
    if mode == "half":
        return L.Lambda(lambda t: tf.compat.v1.image.resize_bilinear(t, size, half_pixel_centers=True))(x)
    return L.Lambda(lambda t: tf.compat.v1.image.resize_nearest_neighbor(t, size))(x)


def palm():
    common.reseed(41)
    inp = keras.Input((160, 160, 3), batch_size=1)
    h = L.ReLU()(bn(L.Conv2D(32, 3, strides=2, padding="same", use_bias=False)(inp)))   # 80
    feats = []
    for c, s in [(32, 1), (48, 2), (48, 1), (96, 2), (96, 1), (144, 2), (144, 1), (192, 2), (192, 1)]:
        h = blaze(h, c, s)
        feats.append(h)
    c40, c20, c10, c5 = feats[2], feats[4], feats[6], feats[8]                         # 40/20/10/5
    p10 = L.ReLU()(bn(L.Conv2D(144, 1, use_bias=False)(resize(c5, (10, 10), "align"))))
    p10 = L.Add()([p10, c10])
    p10 = blaze(p10, 144)
    p20 = L.Conv2DTranspose(96, 2, strides=2, padding="same", activation="relu")(p10)   # 20x20x96
    p20 = L.Concatenate()([p20, resize(c10, (20, 20), "half")])                         # 20x20x240
    p20 = L.ReLU()(bn(L.Conv2D(96, 1, use_bias=False)(p20)))
    p20 = L.Add()([p20, c20])
    p20 = blaze(p20, 96)
    p40 = L.ReLU()(bn(L.Conv2D(48, 1, use_bias=False)(resize(p20, (40, 40), "nearest"))))
    p40 = blaze(L.Add()([p40, c40]), 48)
    p20b = blaze(p40, 96, 2)
    regs, clss = [], []
    for feat, anchors in [(p20b, 2), (p10, 6)]:
        n = feat.shape[1] * feat.shape[2] * anchors
        regs.append(L.Reshape((n, 18))(L.Conv2D(anchors * 18, 1)(feat)))
        clss.append(L.Reshape((n, 1))(L.Conv2D(anchors, 1)(feat)))
    model = keras.Model(inp, [L.Concatenate(axis=1)(regs), L.Concatenate(axis=1)(clss)])
    common.randomize_batchnorm(model)
    emit("palm", model, [1, 160, 160, 3])


# ------------------------------------------------------------------------------------ pose

def hswish(x):
    return x * K.relu6(x + 3.0) / 6.0


def inv_res(x, c_out, expand, k=3, stride=1, dilation=1, act="hswish"):
    a = (lambda t: L.Lambda(hswish)(t)) if act == "hswish" else (lambda t: L.ReLU(6.0)(t))
    c_in = x.shape[-1]
    h = a(bn(L.Conv2D(c_in * expand, 1, use_bias=False)(x))) if expand != 1 else x
    h = a(bn(L.DepthwiseConv2D(k, strides=stride, padding="same", dilation_rate=dilation, use_bias=False)(h)))
    h = bn(L.Conv2D(c_out, 1, use_bias=False)(h))
    return L.Add()([h, x]) if stride == 1 and c_in == c_out else h


def pose():
    common.reseed(42)
    inp = keras.Input((256, 256, 3), batch_size=1)
    h = L.Lambda(hswish)(bn(L.Conv2D(24, 3, strides=2, padding="same", use_bias=False)(inp)))  # 128
    h = inv_res(h, 24, 1)
    for c, e, k, s, d in [(40, 3, 3, 2, 1), (40, 3, 3, 1, 1), (88, 3, 5, 2, 1), (88, 3, 5, 1, 1), (88, 3, 3, 1, 2),
                          (144, 3, 5, 2, 1), (144, 3, 3, 1, 2), (144, 3, 5, 1, 1), (192, 3, 5, 2, 1), (192, 3, 3, 1, 1),
                          (288, 2, 3, 2, 1), (288, 2, 3, 1, 1)]:
        h = inv_res(h, c, e, k, s, d)                                                     # -> 4x4x288
    g = L.GlobalAveragePooling2D()(h)
    pts = L.Dense(39 * 5, name="landmarks")(L.Lambda(hswish)(L.Dense(256)(g)))
    flag = L.Dense(1, activation="sigmoid", name="flag")(g)
    model = keras.Model(inp, [pts, flag])
    common.randomize_batchnorm(model)
    emit("pose", model, [1, 256, 256, 3])


# ------------------------------------------------------------------------------------ iris

def iris_block(x, c_out, stride=1):
    h = prelu(bn(L.Conv2D(x.shape[-1] // 2 or 1, 1, use_bias=False)(x)))
    h = prelu(bn(L.DepthwiseConv2D(3, strides=stride, padding="same", use_bias=False)(h)))
    h = bn(L.Conv2D(c_out, 1, use_bias=False)(h))
    s = L.MaxPooling2D(2)(x) if stride == 2 else x
    return prelu(L.Add()([h, pad_channels(s, c_out)]))


def iris():
    common.reseed(43)
    inp = keras.Input((64, 64, 3), batch_size=1)
    h = prelu(bn(L.Conv2D(28, 3, strides=2, padding="same", use_bias=False)(inp)))    # 32x32x28
    for c, s in [(28, 1), (40, 1), (40, 2), (48, 1), (72, 2), (72, 1), (88, 2), (88, 1)]:
        h = iris_block(h, c, s)                                                         # 4x4x88
    h = prelu(bn(L.Conv2D(96, 2, padding="valid", use_bias=False)(h)))                 # 3x3x96
    pts = L.Reshape((71 * 3,))(L.Conv2D(213, 3, padding="valid")(h))
    p = L.AveragePooling2D(3)(h)
    flag = L.Reshape((1,))(L.Conv2D(1, 1, activation="sigmoid")(p))
    model = keras.Model(inp, [pts, flag])
    common.randomize_batchnorm(model)
    emit("iris", model, [1, 64, 64, 3], variants=("f32", "f16", "int8"))


# ------------------------------------------------------------------------------------ wake

def wake():
    common.reseed(44)
    inp = keras.Input((76, 32, 1), batch_size=1)
    h = inp
    for c, pool in [(24, None), (24, (2, 2)), (48, None), (48, (2, 2)), (72, None), (72, (3, 2)), (96, None)]:
        h = L.LeakyReLU(0.2)(bn(L.Conv2D(c, 3, padding="same", use_bias=False)(h)))
        if pool:
            h = L.MaxPooling2D(pool)(h)
    h = L.Conv2D(96, (h.shape[1], 1), padding="valid")(h)                               # 1x4x96
    emb = L.Dense(96)(L.Flatten()(h))
    model = keras.Model(inp, emb)
    common.randomize_batchnorm(model)
    emit("wake", model, [1, 76, 32, 1], ranges=[(-4.0, 4.0)])


# ------------------------------------------------------------------------------------ hands

def hands():
    common.reseed(45)
    inp = keras.Input((224, 224, 3), batch_size=1)
    h = L.ReLU(6.0)(bn(L.Conv2D(24, 3, strides=2, padding="same", use_bias=False)(inp)))  # 112
    for c, e, s in [(24, 1, 1), (40, 4, 2), (40, 4, 1), (80, 4, 2), (80, 4, 1), (112, 4, 2), (112, 4, 1),
                    (160, 4, 2), (160, 4, 1), (192, 4, 2)]:
        h = inv_res(h, c, e, 3, s, act="relu6")                                           # 4x4x192 (7x7)
    g = L.GlobalAveragePooling2D()(h)
    pts = L.Dense(63, name="landmarks")(g)
    hand = L.Dense(1, activation="sigmoid")(g)
    model = keras.Model(inp, [pts, hand])
    common.randomize_batchnorm(model)
    emit("hands", model, [1, 224, 224, 3])


# ------------------------------------------------------------------------------------ lstmkw

def lstmkw():
    import tf_keras

    common.reseed(46)
    tf_keras.utils.set_random_seed(common.SEED + 46)
    inp = tf_keras.Input((61, 40), batch_size=1, name="input")
    h = tf_keras.layers.LSTM(88)(inp)
    out = tf_keras.layers.Dense(10, activation="softmax")(h)
    model = tf_keras.Model(inp, out)
    rng = np.random.default_rng(common.SEED + 46)
    model.set_weights([(rng.standard_normal(w.shape) * 0.15).astype(np.float32) for w in model.get_weights()])
    common.emit("fam_lstmkw", model, [tf.TensorSpec([1, 61, 40], tf.float32, name="input")], out_dir=OUT,
                limit=None, ranges=[(-4.0, 4.0)], from_keras=True)


# ------------------------------------------------------------------------------------ mini (committed)

def mini():
    """tests/models/fam_mini_{f32,int8}.tflite (a few KB): the activations the survey found on reference
    kernels (LEAKY_RELU and HARD_SWISH after a convolution, int8 PRELU per channel after a depthwise and after a
    convolution, HARD_SWISH), on channel counts not multiples of 8 and odd sizes."""
    common.reseed(47)
    inp = keras.Input((37, 41, 3), batch_size=1)
    h = L.LeakyReLU(0.1)(bn(L.Conv2D(12, 3, strides=2, padding="same", use_bias=False)(inp)))   # 19x21x12
    h = prelu(bn(L.DepthwiseConv2D(3, padding="same", use_bias=False)(h)))
    h = prelu(bn(L.Conv2D(20, 1, use_bias=False)(h)))
    h = L.Lambda(hswish)(bn(L.DepthwiseConv2D(5, strides=2, padding="same", use_bias=False)(h)))  # 10x11x20
    h = L.Lambda(hswish)(bn(L.Conv2D(22, 1, use_bias=False)(h)))                                # fused HARD_SWISH
    h = L.LeakyReLU(0.2)(bn(L.Conv2D(28, 1, use_bias=False)(h)))
    h = L.LeakyReLU(0.3)(L.MaxPooling2D(2)(h))                                                   # standalone
    out = L.Dense(5)(L.GlobalAveragePooling2D()(h))
    model = keras.Model(inp, out)
    common.randomize_batchnorm(model)
    common.emit("fam_mini", model, [tf.TensorSpec([1, 37, 41, 3], tf.float32, name="input")], variants=("f32", "int8"),
                rep_samples=8)


ALL = {"mini": mini, "facedet": facedet, "palm": palm, "pose": pose, "iris": iris, "wake": wake, "hands": hands, "lstmkw": lstmkw}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--big", action="store_true", help="(accepted for make_all.py; the family is always in build/)")
    ap.add_argument("--only", nargs="+", choices=sorted(ALL))
    args = ap.parse_args()
    for name in args.only or ALL:
        print(f"{name}:")
        ALL[name]()


if __name__ == "__main__":
    main()
