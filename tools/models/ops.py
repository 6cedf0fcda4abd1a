"""Single-op models: tests/models/op_OPNAME_VARIANT_{f32,int8}.tflite.

Each case is a tf.function over tf.TensorSpec inputs built from raw tf ops, so the op the
converter emits is under our control. After conversion the file must contain the intended
TFLite op (checked with the interpreter's op list); a variant the converter cannot produce is
not written and is listed at the end (and in tools/models/README.md).

Float inputs are drawn by the oracle from [-1, 1) unless the case gives another range; then the
f32 model gets a sidecar op_..._f32.json with {"inputs": [{"low": .., "high": ..}, ...]}.
A range for an int32 input is its inclusive integer bounds (default [-100, 100]), e.g. a divisor
kept away from zero. input_shapes (with None dimensions in the shapes) go to the sidecar: the
model is compiled and run at those shapes (--input-shape), as a converter's dynamic model is.
The int8 models need no sidecar: their input scale comes from the same range.

    python tools/models/ops.py [--only SUBSTRING ...] [--list]
"""

import argparse
import os
import sys
import zlib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402

common.setup()

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

CASES = []
F32 = tf.float32
I32 = tf.int32


class Case:
    def __init__(self, op, var, shapes, fn, ranges=None, dtypes=None, int8=True, f32=True, expect=None,
                 constant_output=False, in_type=None, out_type=None, f16=False, patch=None, input_shapes=None):
        self.op, self.var, self.shapes, self.fn = op, var, shapes, fn
        self.dtypes = dtypes or [F32] * len(shapes)
        self.ranges = ranges or [None] * len(shapes)
        self.int8, self.f32, self.f16 = int8, f32, f16
        self.expect = expect or op
        self.constant_output = constant_output
        self.in_type, self.out_type = in_type, out_type
        self.patch = patch
        self.input_shapes = input_shapes  # dynamic (None) dimensions: the shapes to compile and run at

    @property
    def name(self):
        return f"op_{self.op.lower()}_{self.var}"


def case(*args, **kw):
    CASES.append(Case(*args, **kw))


def const(key, shape, scale=0.5, low=None):
    """A weight tensor, a function of its key only (so cases don't depend on each other)."""
    rng = np.random.default_rng(zlib.crc32(key.encode()))
    if low is not None:
        return tf.constant(rng.uniform(low, scale, size=shape).astype(np.float32))
    return tf.constant((rng.standard_normal(shape) * scale).astype(np.float32))


# --------------------------------------------------------------------------------------------
# Convolutions and matmuls
for var, strides, pad, dil, act, hw in [
    ("s1_same", 1, "SAME", 1, None, 8),
    ("s2_valid_relu", 2, "VALID", 1, tf.nn.relu, 9),
    ("s2_same_relu6", 2, "SAME", 1, tf.nn.relu6, 9),
    ("dil2_same", 1, "SAME", 2, None, 8),
    ("s1_valid_k1", 1, "VALID", 1, None, 6),
]:
    k = 1 if var.endswith("k1") else 3

    def conv(x, var=var, strides=strides, pad=pad, dil=dil, act=act, k=k):
        y = tf.nn.conv2d(x, const("conv" + var, [k, k, 3, 4]), strides=strides, padding=pad, dilations=dil)
        y = y + const("convb" + var, [4], 0.1)
        return act(y) if act else y
    case("CONV_2D", var, [[1, hw, hw, 3]], conv)

for var, strides, pad, dil, mult, act in [
    ("s1_same", 1, "SAME", 1, 1, None),
    ("s2_valid_relu6", 2, "VALID", 1, 1, tf.nn.relu6),
    ("mult2_same_relu", 1, "SAME", 1, 2, tf.nn.relu),
    ("dil2_same", 1, "SAME", 2, 1, None),
]:
    def dw(x, var=var, strides=strides, pad=pad, dil=dil, mult=mult, act=act):
        y = tf.nn.depthwise_conv2d(x, const("dw" + var, [3, 3, 4, mult]), strides=[1, strides, strides, 1],
                                   padding=pad, dilations=[dil, dil])
        y = y + const("dwb" + var, [4 * mult], 0.1)
        return act(y) if act else y
    case("DEPTHWISE_CONV_2D", var, [[1, 9, 9, 4]], dw)

for var, strides, pad, k, bias in [("s2_same", 2, "SAME", 3, False), ("s2_valid", 2, "VALID", 3, False),
                                   ("s1_same_bias", 1, "SAME", 3, True), ("s2_same_k2", 2, "SAME", 2, False)]:
    def tconv(x, var=var, strides=strides, pad=pad, k=k, bias=bias):
        h = 5 * strides if pad == "SAME" else (5 - 1) * strides + k
        y = tf.nn.conv2d_transpose(x, const("tc" + var, [k, k, 3, 4]), output_shape=[1, h, h, 3],
                                   strides=strides, padding=pad)
        return y + const("tcb" + var, [3], 0.1) if bias else y
    case("TRANSPOSE_CONV", var, [[1, 5, 5, 4]], tconv)

for var, shape, act, bias in [("basic", [1, 16], None, True), ("relu", [1, 16], tf.nn.relu, True),
                              ("nobias", [1, 16], None, False), ("batch3_relu6", [3, 16], tf.nn.relu6, True)]:
    def fc(x, var=var, act=act, bias=bias):
        y = tf.matmul(x, const("fc" + var, [16, 8]))
        if bias:
            y = y + const("fcb" + var, [8], 0.1)
        return act(y) if act else y
    case("FULLY_CONNECTED", var, [shape], fc)

for var, sa, sb, ta, tb in [("basic", [2, 4, 8], [2, 8, 5], False, False),
                            ("adj_y", [2, 4, 8], [2, 5, 8], False, True),
                            ("adj_x", [2, 8, 4], [2, 8, 5], True, False),
                            ("bcast", [1, 4, 8], [3, 8, 5], False, False),
                            ("rank4", [1, 2, 4, 8], [1, 2, 8, 6], False, False)]:
    case("BATCH_MATMUL", var, [sa, sb],
         lambda a, b, ta=ta, tb=tb: tf.matmul(a, b, transpose_a=ta, transpose_b=tb))

# --------------------------------------------------------------------------------------------
# Pooling
for op, fn in [("AVERAGE_POOL_2D", tf.nn.avg_pool2d), ("MAX_POOL_2D", tf.nn.max_pool2d)]:
    for var, k, s, pad, hw in [("k2s2_valid", 2, 2, "VALID", 8), ("k3s1_same", 3, 1, "SAME", 7),
                               ("k3s2_same", 3, 2, "SAME", 9), ("k3x2s2x1_valid", [3, 2], [2, 1], "VALID", 8)]:
        case(op, var, [[1, hw, hw, 4]], lambda x, fn=fn, k=k, s=s, pad=pad: fn(x, k, s, pad))
    case(op, "k2s2_relu", [[1, 8, 8, 4]], lambda x, fn=fn: tf.nn.relu(fn(x, 2, 2, "VALID")))

# --------------------------------------------------------------------------------------------
# Elementwise binary
def bind_const(fn, c):
    # A closure, not a default argument: a tensor default would become a function input.
    return lambda x: fn(x, c)


POS = (0.25, 2.0)
BINARY = [
    ("ADD", tf.add, None), ("SUB", tf.subtract, None), ("MUL", tf.multiply, None),
    ("DIV", tf.divide, [None, POS]), ("SQUARED_DIFFERENCE", tf.math.squared_difference, None),
    ("MAXIMUM", tf.maximum, None), ("MINIMUM", tf.minimum, None),
    ("POW", tf.pow, [(0.25, 2.0), (-2.0, 2.0)]),
]
for op, fn, rng in BINARY:
    case(op, "same", [[1, 4, 4, 3], [1, 4, 4, 3]], fn, ranges=rng)
    case(op, "bcast_c", [[1, 4, 4, 3], [3]], fn, ranges=rng)
    case(op, "bcast_4d", [[1, 4, 1, 3], [1, 1, 5, 3]], fn, ranges=rng)
    c = const(op + "c", [1, 1, 1, 3], 0.5, low=0.25) if op in ("DIV", "POW") else const(op + "c", [1, 1, 1, 3])
    if op == "DIV":  # x / c becomes MUL by 1/c, so divide the constant by the input
        case(op, "const", [[1, 4, 4, 3]], bind_const(lambda x, c: c / x, c), ranges=[POS])
    else:
        case(op, "const", [[1, 4, 4, 3]], bind_const(fn, c), ranges=[rng[0]] if rng else None)
    if op in ("ADD", "SUB", "MUL", "DIV"):
        case(op, "relu", [[1, 4, 4, 3], [1, 4, 4, 3]], lambda a, b, fn=fn: tf.nn.relu(fn(a, b)), ranges=rng)
        case(op, "relu6", [[2, 20], [2, 20]], lambda a, b, fn=fn: tf.nn.relu6(fn(a, b)), ranges=rng)
    if op in ("ADD", "MUL"):
        case(op, "rank5", [[1, 2, 3, 2, 4], [1, 2, 1, 1, 4]], fn)
case("ADD", "int32", [[4, 6], [4, 6]], tf.add, dtypes=[I32, I32], int8=False)
case("MUL", "int32", [[4, 6], [6]], tf.multiply, dtypes=[I32, I32], int8=False)

# --------------------------------------------------------------------------------------------
# Activations and elementwise unary
WIDE = [(-8.0, 8.0)]
case("RELU", "basic", [[1, 6, 6, 4]], tf.nn.relu)
case("RELU6", "basic", [[1, 6, 6, 4]], tf.nn.relu6, ranges=WIDE)
case("RELU_N1_TO_1", "basic", [[1, 6, 6, 4]], lambda x: tf.clip_by_value(x, -1.0, 1.0), ranges=[(-3.0, 3.0)])
case("LEAKY_RELU", "a0p2", [[1, 6, 6, 4]], lambda x: tf.nn.leaky_relu(x, 0.2))
case("LEAKY_RELU", "a0p01", [[2, 50]], lambda x: tf.nn.leaky_relu(x, 0.01))


def prelu(key, shape, shared_axes):
    # The converter only recognises the exact graph Keras' PReLU layer makes, so use the layer.
    import keras
    layer = keras.layers.PReLU(shared_axes=shared_axes)
    layer.build(shape)
    alpha = np.random.default_rng(zlib.crc32(key.encode())).uniform(0.05, 0.3, size=layer.alpha.shape)
    layer.set_weights([alpha.astype(np.float32)])
    return lambda x: layer(x)


case("PRELU", "chan", [[1, 6, 6, 4]], prelu("prelu", [1, 6, 6, 4], [1, 2]))
case("PRELU", "hw_chan", [[1, 5, 6, 4]], prelu("prelu2", [1, 5, 6, 4], [1]))
case("PRELU", "2d", [[3, 8]], prelu("prelu3", [3, 8], None))
case("LOGISTIC", "basic", [[1, 6, 6, 4]], tf.sigmoid, ranges=[(-6.0, 6.0)])
case("TANH", "basic", [[1, 6, 6, 4]], tf.tanh, ranges=[(-4.0, 4.0)])
case("HARD_SWISH", "basic", [[1, 6, 6, 4]], lambda x: x * tf.nn.relu6(x + 3.0) * (1.0 / 6.0), ranges=[(-5.0, 5.0)])
case("GELU", "exact", [[1, 6, 6, 4]], lambda x: tf.nn.gelu(x, approximate=False), ranges=[(-4.0, 4.0)])
case("GELU", "tanh", [[1, 6, 6, 4]], lambda x: tf.nn.gelu(x, approximate=True), ranges=[(-4.0, 4.0)])
case("EXP", "basic", [[1, 6, 6, 4]], tf.exp, ranges=[(-3.0, 3.0)])
case("LOG", "basic", [[1, 6, 6, 4]], tf.math.log, ranges=[(0.05, 4.0)])
case("SQRT", "basic", [[1, 6, 6, 4]], tf.sqrt, ranges=[(0.01, 4.0)])
case("RSQRT", "basic", [[1, 6, 6, 4]], tf.math.rsqrt, ranges=[(0.1, 4.0)])
case("ABS", "basic", [[1, 6, 6, 4]], tf.abs)
case("NEG", "basic", [[1, 6, 6, 4]], tf.negative)
case("ABS", "int32", [[4, 6]], tf.abs, dtypes=[I32], int8=False)

# --------------------------------------------------------------------------------------------
# Reductions, softmax, normalization
for op, fn in [("MEAN", tf.reduce_mean), ("SUM", tf.reduce_sum), ("REDUCE_MAX", tf.reduce_max),
               ("REDUCE_MIN", tf.reduce_min)]:
    case(op, "hw_keep", [[1, 5, 6, 4]], lambda x, fn=fn: fn(x, axis=[1, 2], keepdims=True))
    case(op, "hw", [[1, 5, 6, 4]], lambda x, fn=fn: fn(x, axis=[1, 2]))
    case(op, "last", [[2, 3, 8]], lambda x, fn=fn: fn(x, axis=-1))
    case(op, "first_keep", [[3, 4, 5]], lambda x, fn=fn: fn(x, axis=0, keepdims=True))
    case(op, "all", [[3, 4, 5]], lambda x, fn=fn: fn(x, axis=[0, 1, 2]))
# REDUCE_PROD: float and int32 (converters use it for shape arithmetic); no integer-quantized kernel.
case("REDUCE_PROD", "hw", [[1, 5, 6, 4]], lambda x: tf.reduce_prod(x, axis=[1, 2]), ranges=[(0.5, 1.5)], int8=False)
case("REDUCE_PROD", "int32_last", [[3, 4, 6]], lambda x: tf.reduce_prod(x, axis=-1), dtypes=[I32], int8=False)
for var, shape, axis, ot in [("last", [2, 3, 10], -1, tf.int32), ("axis1", [2, 7, 5], 1, tf.int32),
                             ("i64", [1, 20], 1, tf.int64)]:
    case("ARG_MAX", var, [shape], lambda x, axis=axis, ot=ot: tf.argmax(x, axis=axis, output_type=ot))
case("SOFTMAX", "2d", [[2, 10]], tf.nn.softmax, ranges=[(-4.0, 4.0)])
case("SOFTMAX", "4d", [[1, 3, 4, 8]], tf.nn.softmax, ranges=[(-4.0, 4.0)])
case("LOG_SOFTMAX", "2d", [[2, 10]], tf.nn.log_softmax, ranges=[(-4.0, 4.0)])
case("LOG_SOFTMAX", "3d", [[2, 3, 8]], tf.nn.log_softmax, ranges=[(-4.0, 4.0)])
case("L2_NORMALIZATION", "last", [[1, 4, 4, 8]], lambda x: tf.math.l2_normalize(x, axis=-1))
case("L2_NORMALIZATION", "2d", [[3, 16]], lambda x: tf.math.l2_normalize(x, axis=-1))

# --------------------------------------------------------------------------------------------
# Shape and data movement
case("RESHAPE", "flatten", [[1, 4, 4, 3]], lambda x: tf.reshape(x, [1, 48]))
case("RESHAPE", "split_dims", [[2, 12]], lambda x: tf.reshape(x, [2, 3, 4]))
# With static shapes the converter turns SQUEEZE / EXPAND_DIMS into RESHAPE; a dynamic dim keeps them.
case("SQUEEZE", "axis", [[1, 4, 1, 3]], lambda x: tf.squeeze(x, axis=[2]))
case("SQUEEZE", "dyn_axis", [[None, 4, 1, None]], lambda x: tf.squeeze(x, axis=[2]))
case("EXPAND_DIMS", "axis1", [[4, 6]], lambda x: tf.expand_dims(x, 1))
case("EXPAND_DIMS", "dyn_axis1", [[None, 6]], lambda x: tf.expand_dims(x, 1))
case("EXPAND_DIMS", "dyn_last", [[None, 4, 6]], lambda x: tf.expand_dims(x, -1))
case("TRANSPOSE", "nhwc_nchw", [[1, 4, 5, 3]], lambda x: tf.transpose(x, [0, 3, 1, 2]))
case("TRANSPOSE", "2d", [[6, 9]], lambda x: tf.transpose(x))
case("TRANSPOSE", "3d_021", [[2, 5, 7]], lambda x: tf.transpose(x, [0, 2, 1]))
case("TRANSPOSE", "5d", [[1, 2, 3, 4, 2]], lambda x: tf.transpose(x, [0, 4, 2, 1, 3]))
case("CONCATENATION", "channels", [[1, 4, 4, 3], [1, 4, 4, 5]], lambda a, b: tf.concat([a, b], -1))
case("CONCATENATION", "axis1_3in", [[1, 2, 6], [1, 3, 6], [1, 1, 6]], lambda a, b, c: tf.concat([a, b, c], 1))
case("CONCATENATION", "axis0", [[2, 5], [3, 5]], lambda a, b: tf.concat([a, b], 0))
case("SPLIT", "last3", [[1, 4, 4, 6]], lambda x: tf.split(x, 3, axis=-1))
case("SPLIT", "axis1", [[2, 6, 5]], lambda x: tf.split(x, 2, axis=1))
case("SPLIT_V", "sizes", [[1, 4, 9]], lambda x: tf.split(x, [2, 3, 4], axis=-1))
case("SPLIT_V", "axis1", [[2, 7, 3]], lambda x: tf.split(x, [4, 3], axis=1))
case("SLICE", "basic", [[2, 6, 6, 3]], lambda x: tf.slice(x, [0, 1, 2, 0], [1, 4, 3, 2]))
case("SLICE", "2d", [[5, 8]], lambda x: tf.slice(x, [1, 2], [3, -1]))
case("STRIDED_SLICE", "stride2", [[1, 8, 8, 3]], lambda x: x[:, 1:7:2, ::2, :])
case("STRIDED_SLICE", "neg_stride", [[4, 10]], lambda x: x[::-1, 8:1:-3])
case("STRIDED_SLICE", "shrink", [[3, 6, 4]], lambda x: x[1, :, 1:3])
case("STRIDED_SLICE", "masks", [[2, 9, 5]], lambda x: x[..., 2:, tf.newaxis, :4])
case("PACK", "axis0", [[3, 4], [3, 4]], lambda a, b: tf.stack([a, b], axis=0))
case("PACK", "last_3in", [[2, 5], [2, 5], [2, 5]], lambda a, b, c: tf.stack([a, b, c], axis=-1))
case("UNPACK", "axis0", [[3, 4, 5]], lambda x: tf.unstack(x, axis=0))
case("UNPACK", "axis1", [[2, 3, 4]], lambda x: tf.unstack(x, axis=1))
case("PAD", "hw", [[1, 5, 5, 3]], lambda x: tf.pad(x, [[0, 0], [1, 2], [2, 1], [0, 0]]))
case("PAD", "2d", [[4, 6]], lambda x: tf.pad(x, [[1, 0], [0, 3]]))
case("PAD", "chan", [[1, 6, 5, 8]], lambda x: tf.pad(x, [[0, 0], [0, 0], [0, 0], [0, 8]]))
case("PADV2", "hw_const", [[1, 5, 5, 3]], lambda x: tf.pad(x, [[0, 0], [1, 1], [2, 0], [0, 0]], constant_values=0.5))
case("PADV2", "2d_neg", [[4, 6]], lambda x: tf.pad(x, [[2, 1], [1, 1]], constant_values=-1.0))
table = const("gather", [10, 6])
case("GATHER", "axis0", [[10, 6]], lambda x: tf.gather(x, tf.constant([3, 0, 9, 3, 5], tf.int32), axis=0))
case("GATHER", "axis1", [[4, 8, 3]], lambda x: tf.gather(x, tf.constant([[7, 1], [0, 2]], tf.int32), axis=1))
case("GATHER", "indices_in", [[2, 7]], lambda i: tf.gather(table, i, axis=0), dtypes=[I32], int8=False)
case("GATHER", "both_in", [[10, 6], [5]], lambda x, i: tf.gather(x, i, axis=0), dtypes=[F32, I32])
# The converter always emits GATHER for tf.nn.embedding_lookup; EMBEDDING_LOOKUP (1-D ids only) is
# made by rewriting a converted GATHER(table, ids) into EMBEDDING_LOOKUP(ids, table) in the flatbuffer.
case("EMBEDDING_LOOKUP", "ids_in", [[7]], lambda i: tf.gather(table, i, axis=0), dtypes=[I32], int8=False,
     patch="gather_to_embedding_lookup")
case("SHAPE", "dyn_batch", [[None, 4, 3]], lambda x: tf.shape(x), constant_output=True, int8=False)
case("BROADCAST_TO", "rows", [[1, 4, 1]], lambda x: tf.broadcast_to(x, [2, 4, 3]))
case("BROADCAST_TO", "rank4", [[3, 1]], lambda x: tf.broadcast_to(x, [1, 2, 3, 5]))
for var, size, ac, hp in [("up2", [8, 8], False, False), ("up2_half_pixel", [8, 8], False, True),
                          ("align_corners", [7, 9], True, False), ("down", [3, 2], False, True)]:
    case("RESIZE_BILINEAR", var, [[1, 4, 5, 3]],
         lambda x, size=size, ac=ac, hp=hp: tf.compat.v1.image.resize_bilinear(x, size, align_corners=ac,
                                                                                half_pixel_centers=hp))
    case("RESIZE_NEAREST_NEIGHBOR", var, [[1, 4, 5, 3]],
         lambda x, size=size, ac=ac, hp=hp: tf.compat.v1.image.resize_nearest_neighbor(
             x, size, align_corners=ac, half_pixel_centers=hp))
# Channels enough for the scheduled kernels' vector loops and their tails (rt_opt_resize.c).
for var, size, ac, hp in [("up2_c20", [12, 14], False, True), ("down_c20_align", [4, 5], True, False)]:
    case("RESIZE_BILINEAR", var, [[1, 6, 7, 20]],
         lambda x, size=size, ac=ac, hp=hp: tf.compat.v1.image.resize_bilinear(x, size, align_corners=ac,
                                                                                half_pixel_centers=hp))
    case("RESIZE_NEAREST_NEIGHBOR", var, [[1, 6, 7, 20]],
         lambda x, size=size, ac=ac, hp=hp: tf.compat.v1.image.resize_nearest_neighbor(
             x, size, align_corners=ac, half_pixel_centers=hp))
case("DEPTH_TO_SPACE", "b2", [[1, 3, 4, 8]], lambda x: tf.nn.depth_to_space(x, 2))
case("DEPTH_TO_SPACE", "b3", [[1, 2, 2, 9]], lambda x: tf.nn.depth_to_space(x, 3))
case("SPACE_TO_DEPTH", "b2", [[1, 6, 4, 3]], lambda x: tf.nn.space_to_depth(x, 2))
case("SPACE_TO_DEPTH", "b3", [[1, 6, 3, 2]], lambda x: tf.nn.space_to_depth(x, 3))

# --------------------------------------------------------------------------------------------
# Ops of LLM and ONNX exports (docs/llm-exports.md): rotary tables, causal masks, KV-cache writes,
# onnx2tf's HardSigmoid clamp.
case("COS", "basic", [[1, 6, 8]], tf.cos, ranges=[(-6.0, 6.0)], int8=False)
case("SIN", "basic", [[1, 6, 8]], tf.sin, ranges=[(-6.0, 6.0)], int8=False)

# RFFT2D into complex64 and the ops reading it (audio front ends: tf.signal.stft, spectrograms). The models'
# outputs are float: complex model outputs are not supported. "rfft" in every name (pytest -k rfft).
case("RFFT2D", "real", [[1, 4, 8, 16]], lambda x: tf.math.real(tf.signal.rfft2d(x, fft_length=[8, 16])), int8=False)
case("IMAG", "rfft2d_pad", [[2, 3, 5, 6]], lambda x: tf.math.imag(tf.signal.rfft2d(x, fft_length=[4, 8])),
     int8=False)
case("REAL", "rfft2d_crop", [[1, 10, 20]], lambda x: tf.math.real(tf.signal.rfft2d(x, fft_length=[8, 16])),
     int8=False)
case("COMPLEX_ABS", "rfft2d", [[3, 16, 32]], lambda x: tf.abs(tf.signal.rfft2d(x, fft_length=[16, 32])), int8=False)
# BirdNET's spectrogram: a 1-D rfft of each frame ([1, frames, 1, N] with fft_length [1, N]), squeezed, CAST to
# float (the real part) and scaled.
case("CAST", "rfft_frames", [[1, 6, 1, 256]],
     lambda x: tf.cast(tf.squeeze(tf.signal.rfft2d(x, fft_length=[1, 256]), axis=2), tf.float32) * 0.5, int8=False)
# The same with the frame count dynamic, as BirdNET's: the converter keeps the SQUEEZE of complex64.
case("SQUEEZE", "rfft_frames_dynamic", [[None, None, 1, 128]],
     lambda x: tf.cast(tf.squeeze(tf.signal.rfft2d(x, fft_length=[1, 128]), axis=2), tf.float32), int8=False,
     input_shapes=[[1, 7, 1, 128]])
case("EXPAND_DIMS", "rfft_c64_dynamic", [[None, 4, 8]],
     lambda x: tf.math.imag(tf.expand_dims(tf.signal.rfft2d(x, fft_length=[4, 8]), 1)), int8=False,
     input_shapes=[[3, 4, 8]])
# The TF converter writes clip(x, 0, 1) as MINIMUM(RELU): a converted RELU is renamed (onnx2tf emits the op).
case("RELU_0_TO_1", "basic", [[1, 6, 6, 4]], tf.nn.relu, ranges=[(-2.0, 2.0)], patch="relu_to_relu_0_to_1")
# Bool reductions: the float input is compared first, the bool result selects a float output.
# Thresholds put each reduced value near an even chance of true for inputs uniform in [-1, 1] (0.89^6,
# 1 - 0.89^6, 0.944^12, 1 - 0.944^12), so the outputs depend on the input (test_oracle's self-check).
for op, fn, t6, t12 in [("REDUCE_ALL", tf.reduce_all, -0.78, 0.89), ("REDUCE_ANY", tf.reduce_any, 0.78, -0.89)]:
    case(op, "last", [[3, 4, 6]], lambda x, fn=fn, t=t6: tf.where(fn(x > t, axis=-1), 1.0, -1.0), int8=False)
    case(op, "hw_keep", [[1, 3, 4, 2]],
         lambda x, fn=fn, t=t12: tf.where(fn(x < t, axis=[1, 2], keepdims=True), 2.0, 0.5), int8=False)
case("GATHER_ND", "pairs", [[4, 5, 3]], lambda x: tf.gather_nd(x, tf.constant([[1, 2], [3, 0], [0, 4]], tf.int32)))
case("GATHER_ND", "batched_rows", [[4, 6]],
     lambda x: tf.gather_nd(x, tf.constant([[[2], [0]], [[3], [3]], [[1], [2]]], tf.int32)))
case("GATHER_ND", "full", [[3, 4]], lambda x: tf.gather_nd(x, tf.constant([[2, 3], [0, 0], [1, 2]], tf.int64)),
     int8=False)


def dus(operand, update, start):
    from tensorflow.compiler.tf2xla.python import xla
    return xla.dynamic_update_slice(operand, update, start)


case("DYNAMIC_UPDATE_SLICE", "const_start", [[1, 8, 4], [1, 2, 4]],
     lambda c, u: dus(c, u, tf.constant([0, 3, 0], tf.int32)), int8=False)
case("DYNAMIC_UPDATE_SLICE", "cache_row", [[2, 6, 3], [2, 1, 3]],
     lambda c, u: dus(c, u, tf.constant([0, 5, 0], tf.int32)) * 2.0, int8=False)
# Start indices from an input ([-100, 100]: mostly clamped to the edges, as TFLite does).
case("DYNAMIC_UPDATE_SLICE", "start_in", [[3, 5], [2, 2], [2]], lambda c, u, s: dus(c, u, s),
     dtypes=[F32, F32, I32], int8=False)
# A RESHAPE to a scalar: the converter's new-shape constant is int32 [0] with an empty buffer.
case("RESHAPE", "to_scalar", [[1, 1]], lambda x: tf.reshape(x, []) * 3.0, int8=False)

# --------------------------------------------------------------------------------------------
# Integer and rounding arithmetic (FLOOR_DIV, FLOOR_MOD, RANGE: BirdNET's STFT framing)
NONZERO = (0.25, 3.0)
for op, fn in [("FLOOR_DIV", tf.math.floordiv), ("FLOOR_MOD", tf.math.floormod)]:
    case(op, "same", [[2, 4, 6], [2, 4, 6]], fn, ranges=[(-8.0, 8.0), NONZERO], int8=False)
    case(op, "bcast_neg", [[2, 4, 6], [6]], fn, ranges=[(-8.0, 8.0), (-3.0, -0.25)], int8=False)
    case(op, "int32", [[4, 6], [4, 6]], fn, ranges=[None, (1, 9)], dtypes=[I32, I32], int8=False)
    case(op, "int32_neg_bcast", [[4, 6], [6]], fn, ranges=[None, (-9, -1)], dtypes=[I32, I32], int8=False)
    # Mixed-sign constant divisors (x // c is not rewritten for integers).
    case(op, "int32_const", [[3, 6]], bind_const(fn, tf.constant([3, -3, 7, -7, 1, -1], tf.int32)),
         dtypes=[I32], int8=False)


def frames(x):
    """BirdNET's framing: the frame count from the (dynamic) length, the start indices by RANGE."""
    n = tf.shape(x)[1]
    count = tf.math.floordiv(n - 4, 3) + 1 + tf.math.floormod(n, 2)
    starts = tf.range(0, count) * 3
    return tf.gather(x, starts, axis=1) * 2.0


for op in ("FLOOR_DIV", "FLOOR_MOD", "RANGE"):
    case(op, "frames", [[1, None]], frames, int8=False, input_shapes=[[1, 23]])
case("RANGE", "down", [[1, None]], lambda x: tf.gather(x, tf.range(tf.shape(x)[1] - 1, -1, -2), axis=1), int8=False,
     input_shapes=[[1, 11]])
case("RANGE", "f32", [[1, None]],
     lambda x: x[:, :1] * tf.range(0.5, tf.cast(tf.shape(x)[1], tf.float32), 1.5), int8=False,
     input_shapes=[[1, 20]])
case("FLOOR", "basic", [[1, 6, 6, 4]], tf.floor, ranges=[(-4.0, 4.0)], int8=False)
case("SQUARE", "basic", [[1, 6, 6, 4]], tf.square, ranges=[(-3.0, 3.0)], int8=False)
case("REVERSE_V2", "axis1", [[1, 3, 96]], lambda x: tf.reverse(x, [1]) * 2.0)
case("REVERSE_V2", "last", [[2, 5, 7]], lambda x: tf.reverse(x, [-1]))
# TFLite reverses several axes only when they are adjacent (it fails on [0, 2]; mpcc takes any set).
case("REVERSE_V2", "two_axes", [[2, 3, 4, 5]], lambda x: tf.reverse(x, [1, 2]))
case("REVERSE_V2", "int32", [[3, 4]], lambda x: tf.reverse(x, [0]), dtypes=[I32], int8=False)
case("TILE", "basic", [[2, 3, 4]], lambda x: tf.tile(x, [1, 2, 3]))
case("TILE", "rank4_all", [[1, 2, 1, 3]], lambda x: tf.tile(x, [2, 3, 4, 2]) * 2.0)
case("TILE", "int32", [[2, 3]], lambda x: tf.tile(x, [3, 1]), dtypes=[I32], int8=False)
case("FILL", "value_in", [[1, 4]], lambda x: tf.fill([2, 3], tf.reduce_sum(x)) * 2.0, int8=False)
case("FILL", "dyn_dims", [[1, None]], lambda x: tf.fill(tf.shape(x), tf.reduce_max(x)) - x, int8=False,
     input_shapes=[[1, 9]])
case("ZEROS_LIKE", "dyn", [[1, None]], lambda x: tf.concat([tf.zeros_like(x), x], 0), int8=False,
     input_shapes=[[1, 7]])

# --------------------------------------------------------------------------------------------
# Type conversions
case("CAST", "i32_f32", [[4, 6]], lambda x: tf.cast(x, tf.float32), dtypes=[I32], int8=False)
case("CAST", "f32_i32", [[4, 6]], lambda x: tf.cast(x, tf.int32), ranges=[(-50.0, 50.0)], int8=False)
case("CAST", "f32_i8", [[4, 6]], lambda x: tf.cast(x, tf.int8), ranges=[(-100.0, 100.0)], int8=False)
case("CAST", "i8_f32", [[4, 6]], lambda x: tf.cast(x, tf.float32), dtypes=[tf.int8], int8=False)
# QUANTIZE: float in, int8 out (PTQ with a float input); DEQUANTIZE: int8 in, float out.
case("QUANTIZE", "f32_i8", [[1, 6, 6, 4]], lambda x: tf.nn.relu(x), f32=False, in_type=tf.float32)
case("DEQUANTIZE", "i8_f32", [[1, 6, 6, 4]], lambda x: tf.nn.relu(x), f32=False, out_type=tf.float32)
# DEQUANTIZE of float16 weights (what an _f16 model is made of).
case("DEQUANTIZE", "f16_weights", [[1, 16]], lambda x: tf.matmul(x, const("deqf16", [16, 8])),
     f32=False, int8=False, f16=True)


# --------------------------------------------------------------------------------------------
def gather_to_embedding_lookup(data):
    from tensorflow.lite.python import schema_py_generated as schema
    from tensorflow.lite.tools import flatbuffer_utils

    model = flatbuffer_utils.convert_bytearray_to_object(bytearray(data))
    for code in model.operatorCodes:
        if max(code.builtinCode, code.deprecatedBuiltinCode) == schema.BuiltinOperator.GATHER:
            code.builtinCode = code.deprecatedBuiltinCode = schema.BuiltinOperator.EMBEDDING_LOOKUP
            code.version = 1
    for op in model.subgraphs[0].operators:
        if model.operatorCodes[op.opcodeIndex].builtinCode == schema.BuiltinOperator.EMBEDDING_LOOKUP:
            op.inputs = [op.inputs[1], op.inputs[0]]
            op.builtinOptionsType, op.builtinOptions = 0, None
    return bytes(flatbuffer_utils.convert_object_to_bytearray(model))


def relu_to_relu_0_to_1(data):
    from tensorflow.lite.python import schema_py_generated as schema
    from tensorflow.lite.tools import flatbuffer_utils

    model = flatbuffer_utils.convert_bytearray_to_object(bytearray(data))
    for code in model.operatorCodes:
        if max(code.builtinCode, code.deprecatedBuiltinCode) == schema.BuiltinOperator.RELU:
            code.builtinCode = schema.BuiltinOperator.RELU_0_TO_1
            code.deprecatedBuiltinCode = schema.BuiltinOperator.PLACEHOLDER_FOR_GREATER_OP_CODES
            code.version = 1
    return bytes(flatbuffer_utils.convert_object_to_bytearray(model))


def draw(case, rng):
    arrays = []
    for shape, dtype, rg in zip(case.shapes, case.dtypes, case.ranges):
        shape = [1 if s is None else s for s in shape]
        if dtype == F32:
            lo, hi = rg or (-1.0, 1.0)
            arrays.append(rng.uniform(lo, hi, size=shape).astype(np.float32))
        elif rg:
            lo, hi = rg
        else:
            hi = 9 if case.op in ("GATHER", "EMBEDDING_LOOKUP") else 100
            lo = 0 if hi == 9 else -100
            arrays.append(rng.integers(lo, hi, size=shape, endpoint=True).astype(dtype.as_numpy_dtype))
    return arrays


def build(c):
    """(status per variant) for one case."""
    names = ["x", "y", "z"] if c.op not in ("GATHER", "EMBEDDING_LOOKUP") else ["x", "indices"]
    if c.dtypes[0] == I32 and len(c.shapes) == 1 and c.op in ("GATHER", "EMBEDDING_LOOKUP"):
        names = ["indices"]
    specs = [tf.TensorSpec(s, d, name=n) for s, d, n in zip(c.shapes, c.dtypes, names)]
    fn = common.concrete(c.fn, specs)
    rng = np.random.default_rng(zlib.crc32(c.name.encode()))
    rep = common.rep_from([draw(c, rng) for _ in range(32)])
    status = {}
    variants = [v for v, on in (("f32", c.f32), ("int8", c.int8), ("f16", c.f16)) if on]
    for v in variants:
        path = os.path.join(common.TESTS_MODELS, f"{c.name}_{v}.tflite")
        try:
            data = common.convert(fn, v, rep if v == "int8" else None, in_type=c.in_type, out_type=c.out_type)
        except Exception as e:
            lines = [ln for ln in str(e).splitlines() if "error" in ln.lower()] or str(e).splitlines() or [type(e).__name__]
            status[v] = "converter error: " + lines[0].strip()[:200]
            continue
        if c.patch:
            data = globals()[c.patch](data)
        ops = common.op_names(data)
        if c.expect not in ops:
            status[v] = f"converter emits {ops} instead of {c.expect}"
            if os.path.exists(path):
                os.remove(path)
            continue
        from ai_edge_litert.interpreter import Interpreter
        it = Interpreter(model_content=data)
        if v == "int8":
            # The intended op must itself run in integers, not be wrapped in DEQUANTIZE/QUANTIZE.
            dtypes = {t["index"]: t["dtype"] for t in it.get_tensor_details()}
            float_op = [op for op in it._get_ops_details() if op["op_name"] == c.expect
                        and any(dtypes.get(i) == np.float32 for i in op["inputs"] if i >= 0)]
            if float_op and c.op not in ("QUANTIZE", "DEQUANTIZE"):
                status[v] = f"no integer kernel: converter runs it in float ({' '.join(ops)})"
                if os.path.exists(path):
                    os.remove(path)
                continue
        if v == "int8" and c.in_type is None and c.out_type is None:
            float_io = [d["name"] for d in it.get_input_details() + it.get_output_details() if d["dtype"] == np.float32]
            if float_io:
                status[v] = f"int8 model keeps float32 inputs/outputs {float_io} (ops {ops})"
                continue
        common.write(path, data)
        extra = {"input_shapes": c.input_shapes} if c.input_shapes else None
        common.write_sidecar(path, c.ranges, c.constant_output, extra=extra, check_ref=True)
        status[v] = "ok " + " ".join(ops)
    return status


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--only", nargs="+", help="cases whose name contains one of these")
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--big", action="store_true", help="(no big single-op models; accepted for make_all)")
    args = ap.parse_args()
    cases = [c for c in CASES if not args.only or any(s.lower() in c.name for s in args.only)]
    if args.list:
        for c in cases:
            print(c.name)
        return
    missing = []
    for c in cases:
        common.reseed(0)
        st = build(c)
        for v, s in st.items():
            if not s.startswith("ok"):
                missing.append(f"{c.name}_{v}: {s}")
                print(f"  SKIP {c.name}_{v}: {s}")
    made = {op: 0 for op in dict.fromkeys(c.op for c in CASES)}
    for c in cases:
        for v in ("f32", "int8", "f16"):
            if os.path.exists(os.path.join(common.TESTS_MODELS, f"{c.name}_{v}.tflite")):
                made[c.op] += 1
    none = [op for op, n in made.items() if n == 0 and any(c.op == op for c in cases)]
    print(f"  {len(cases)} cases, {len(missing)} variants not made; ops with no model at all: {none or 'none'}")


if __name__ == "__main__":
    main()
