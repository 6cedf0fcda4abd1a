"""mediapipe: vision models shaped like MediaPipe's (untrained, seeded, random BN statistics).
tests/models/{blazeface,landmark,segnet}_{f32,int8,f16}.tflite

- blazeface: BlazeFace-like detector, 128x128x3. 5x5 conv stride 2, BlazeBlocks (5x5 depthwise,
  1x1 conv; stride-2 blocks take a 2x2 max-pool shortcut; a block that widens pads the shortcut's
  channel axis with zeros (PAD) before the ADD), two anchor heads at 16x16 (2 anchors) and 8x8
  (6 anchors): regressors [1,896,16] and classifiers [1,896,1] through RESHAPE and CONCATENATION.
- landmark: face-mesh/iris-like landmark CNN, 128x128x3, conv+PRELU and depthwise+PRELU residual
  blocks (max-pool + channel-pad shortcut on stride 2), outputs 71x3 landmarks and a face flag.
- segnet: selfie-segmentation-like encoder-decoder, 128x128x3 -> 128x128x1 sigmoid mask:
  stride-2 depthwise-separable encoder, decoder with RESIZE_BILINEAR (UpSampling2D bilinear) and
  skip ADDs, TRANSPOSE_CONV (Conv2DTranspose) for the last two upsamplings."""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402

common.setup()

import keras  # noqa: E402
import tensorflow as tf  # noqa: E402

L = keras.layers
K = keras.ops


def pad_channels(x, c_out):
    """Zero-pad the channel axis up to c_out (BlazeFace's widening shortcut: PAD then ADD)."""
    c_in = x.shape[-1]
    return x if c_in == c_out else K.pad(x, [[0, 0], [0, 0], [0, 0], [0, c_out - c_in]])


def blaze_block(x, c_out, stride=1):
    h = L.DepthwiseConv2D(5, strides=stride, padding="same", use_bias=False)(x)
    h = L.BatchNormalization()(h)
    h = L.Conv2D(c_out, 1, use_bias=False)(h)
    h = L.BatchNormalization()(h)
    s = L.MaxPooling2D(2)(x) if stride == 2 else x
    return L.ReLU()(L.Add()([h, pad_channels(s, c_out)]))


def blazeface():
    common.reseed(20)
    inp = keras.Input((128, 128, 3), batch_size=1, name="image")
    h = L.Conv2D(24, 5, strides=2, padding="same", use_bias=False)(inp)
    h = L.ReLU()(L.BatchNormalization()(h))                                    # 64x64
    for c, s in [(24, 1), (28, 1), (32, 2), (36, 1), (42, 1), (48, 2), (56, 1), (64, 1), (72, 1), (80, 1), (88, 1)]:
        h = blaze_block(h, c, s)                                                # -> 16x16x88
    f16 = h
    for c, s in [(96, 2), (96, 1), (96, 1), (96, 1), (96, 1)]:
        h = blaze_block(h, c, s)                                                # -> 8x8x96
    f8 = h
    regs, clss = [], []
    for feat, anchors in [(f16, 2), (f8, 6)]:
        n = feat.shape[1] * feat.shape[2] * anchors
        regs.append(L.Reshape((n, 16))(L.Conv2D(anchors * 16, 1)(feat)))
        clss.append(L.Reshape((n, 1))(L.Conv2D(anchors, 1)(feat)))
    reg = L.Concatenate(axis=1, name="regressors")(regs)
    cls = L.Concatenate(axis=1, name="classificators")(clss)
    model = keras.Model(inp, [reg, cls], name="blazeface")
    common.randomize_batchnorm(model)
    common.emit("blazeface", model, [tf.TensorSpec([1, 128, 128, 3], tf.float32, name="image")], rep_samples=8)


def prelu(x):
    return L.PReLU(shared_axes=[1, 2], alpha_initializer=keras.initializers.RandomUniform(0.05, 0.3))(x)


def landmark_block(x, c_out, stride=1):
    h = L.DepthwiseConv2D(3, strides=stride, padding="same", use_bias=False)(x)
    h = L.BatchNormalization()(h)
    h = L.Conv2D(c_out, 1, use_bias=False)(h)
    h = L.BatchNormalization()(h)
    s = L.MaxPooling2D(2)(x) if stride == 2 else x
    return prelu(L.Add()([h, pad_channels(s, c_out)]))


def landmark():
    common.reseed(21)
    inp = keras.Input((128, 128, 3), batch_size=1, name="image")
    h = L.Conv2D(16, 3, strides=2, padding="same", use_bias=False)(inp)
    h = prelu(L.BatchNormalization()(h))                                       # 64x64x16
    for c, s in [(16, 1), (32, 2), (32, 1), (64, 2), (64, 1), (96, 2), (96, 1), (128, 2), (128, 1), (128, 2)]:
        h = landmark_block(h, c, s)                                            # -> 2x2x128
    pts = L.Conv2D(71 * 3, 2, padding="valid")(h)                              # 1x1x213
    pts = L.Reshape((71 * 3,), name="landmarks")(pts)
    flag = L.Conv2D(1, 2, padding="valid", activation="sigmoid")(h)
    flag = L.Reshape((1,), name="face_flag")(flag)
    model = keras.Model(inp, [pts, flag], name="landmark")
    common.randomize_batchnorm(model)
    common.emit("landmark", model, [tf.TensorSpec([1, 128, 128, 3], tf.float32, name="image")], rep_samples=8)


def sep_conv(x, c_out, stride=1):
    h = L.DepthwiseConv2D(3, strides=stride, padding="same", use_bias=False)(x)
    h = L.ReLU()(L.BatchNormalization()(h))
    h = L.Conv2D(c_out, 1, use_bias=False)(h)
    return L.ReLU()(L.BatchNormalization()(h))


def segnet():
    common.reseed(22)
    inp = keras.Input((128, 128, 3), batch_size=1, name="image")
    e1 = L.Conv2D(16, 3, strides=2, padding="same", use_bias=False)(inp)
    e1 = L.ReLU()(L.BatchNormalization()(e1))                                 # 64x64x16
    e2 = sep_conv(e1, 32, 2)                                                   # 32x32x32
    e3 = sep_conv(e2, 64, 2)                                                   # 16x16x64
    e4 = sep_conv(sep_conv(e3, 96, 2), 96)                                     # 8x8x96
    d = L.UpSampling2D(2, interpolation="bilinear")(L.Conv2D(64, 1)(e4))       # 16x16x64
    d = sep_conv(L.Add()([d, e3]), 64)
    d = L.UpSampling2D(2, interpolation="bilinear")(L.Conv2D(32, 1)(d))        # 32x32x32
    d = sep_conv(L.Add()([d, e2]), 32)
    d = L.Conv2DTranspose(16, 2, strides=2, padding="same", activation="relu")(d)  # 64x64x16
    d = sep_conv(L.Add()([d, e1]), 16)
    out = L.Conv2DTranspose(1, 2, strides=2, padding="same", activation="sigmoid", name="mask")(d)
    model = keras.Model(inp, out, name="segnet")
    common.randomize_batchnorm(model)
    common.emit("segnet", model, [tf.TensorSpec([1, 128, 128, 3], tf.float32, name="image")], rep_samples=8)


def main():
    common.family_args()
    blazeface()
    landmark()
    segnet()


if __name__ == "__main__":
    main()
