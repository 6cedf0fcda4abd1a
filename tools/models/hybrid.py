"""hybrid: dynamic-range quantization (`Optimize.DEFAULT`, no representative dataset): float32
inputs and outputs, int8 weights, float bias. The converter quantizes the weights of layers with
at least 1024 of them; their FULLY_CONNECTED ops run TFLite's hybrid kernel, which quantizes each
input row at run time.

    hybrid_fc_f32         [2,64] -> Dense 64 relu -> Dense 32 (no bias) -> Dense 10: two hybrid
                          FCs (per-channel weight scales, asymmetric input quantization: the
                          converter's defaults) and a float one (320 weights stay float)
    hybrid_fc_pt_f32      the same, per-tensor weight scales
                          (`_experimental_disable_per_channel_quantization_for_dense_layers`)
    hybrid_fc_sym_f32     the same as hybrid_fc_f32 with symmetric input quantization: the TF 2.21
                          converter always sets `asymmetric_quantize_inputs` on hybrid FCs, so the
                          generator clears it in the flatbuffer
    hybrid_matmul_f32     relu6(x @ W + b) on x [2,3,100]: a rank-3 FC (keep_num_dims), 6 rows,
                          a depth of 100 (not a multiple of 8: the quantizer's scalar tail)

CONV_2D and DEPTHWISE_CONV_2D quantize each batch's whole input at run time: asymmetrically with
distinct per-channel filter scales (the converter's default) and always for depthwise,
symmetrically with per-tensor conv filter scales.

    hybrid_cnn_f32        [1,10,10,8] -> Conv2D 3x3 128 relu (VALID) -> DepthwiseConv2D 3x3 (SAME)
                          -> Conv2D 1x1 32 -> GlobalAveragePooling -> Dense 10: three hybrid
                          convolutions (per-channel scales); the 320-weight Dense stays float
    hybrid_cnn_s2_f32     [2,9,9,5] (two batches, 405 values each: a scalar quantizer tail) ->
                          Conv2D 3x3 stride 2 SAME 32 relu6 -> DepthwiseConv2D 3x3 stride 2 SAME
                          depth multiplier 4 -> Conv2D 1x1 16
    hybrid_cnn_pt_f32     [1,10,10,8] -> Conv2D 3x3 dilation 2 64 relu -> Conv2D 1x1 16: per-tensor
                          scales (`_experimental_disable_per_channel`), symmetric inputs (a
                          per-tensor depthwise filter is refused: TFLite's kernel reads a scale
                          per channel)
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402

common.setup()

import keras  # noqa: E402
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402


def convert(fn, per_tensor=False, per_tensor_conv=False):
    conv = tf.lite.TFLiteConverter.from_concrete_functions([fn])
    conv.optimizations = [tf.lite.Optimize.DEFAULT]
    if per_tensor:
        conv._experimental_disable_per_channel_quantization_for_dense_layers = True
    if per_tensor_conv:
        conv._experimental_disable_per_channel = True
    return conv.convert()


def ops_of(m, code):
    """The operators of a model (schema object API) with builtin `code`."""
    codes = m.operatorCodes
    return [op for op in m.subgraphs[0].operators
            if max(codes[op.opcodeIndex].builtinCode, codes[op.opcodeIndex].deprecatedBuiltinCode) == code]


def fc_ops(m):
    from ai_edge_litert import schema_py_generated as S

    return ops_of(m, S.BuiltinOperator.FULLY_CONNECTED)


def symmetric_inputs(data):
    """The model with asymmetric_quantize_inputs cleared on every FULLY_CONNECTED."""
    import flatbuffers
    from ai_edge_litert import schema_py_generated as S

    m = S.ModelT.InitFromPackedBuf(bytearray(data), 0)
    for op in fc_ops(m):
        op.builtinOptions.asymmetricQuantizeInputs = False
    b = flatbuffers.Builder(len(data) + 1024)
    b.Finish(m.Pack(b), file_identifier=b"TFL3")
    return bytes(b.Output())


def hybrid_fcs(data):
    """(weight scales, asymmetric) of each FULLY_CONNECTED with float input and int8 weights."""
    from ai_edge_litert import schema_py_generated as S

    m = S.ModelT.InitFromPackedBuf(bytearray(data), 0)
    g = m.subgraphs[0]
    out = []
    for op in fc_ops(m):
        x, w = g.tensors[op.inputs[0]], g.tensors[op.inputs[1]]
        if x.type == S.TensorType.FLOAT32 and w.type == S.TensorType.INT8:
            out.append((len(w.quantization.scale), bool(op.builtinOptions.asymmetricQuantizeInputs)))
    return out


def emit(name, data, expect_per_channel, expect_asymmetric):
    fcs = hybrid_fcs(data)
    if not fcs or any((n > 1) != expect_per_channel or a != expect_asymmetric for n, a in fcs):
        raise SystemExit(f"FAIL {name}: hybrid FCs (scales, asymmetric) are {fcs}, expected "
                         f"per_channel={expect_per_channel} asymmetric={expect_asymmetric}")
    path = os.path.join(common.TESTS_MODELS, f"{name}.tflite")
    if common.write(path, data):
        common.write_sidecar(path)
        print(f"  {name} ops: {' '.join(common.op_names(data))}; hybrid FCs (weight scales, asymmetric): {fcs}")


def hybrid_convs(data):
    """(op name, filter scale count) of each CONV_2D / DEPTHWISE_CONV_2D with float input and int8 filter."""
    from ai_edge_litert import schema_py_generated as S

    m = S.ModelT.InitFromPackedBuf(bytearray(data), 0)
    g = m.subgraphs[0]
    out = []
    for name in ("CONV_2D", "DEPTHWISE_CONV_2D"):
        for op in ops_of(m, getattr(S.BuiltinOperator, name)):
            x, w = g.tensors[op.inputs[0]], g.tensors[op.inputs[1]]
            if x.type == S.TensorType.FLOAT32 and w.type == S.TensorType.INT8:
                out.append((name, len(w.quantization.scale)))
    return out


def emit_cnn(name, data, expect):
    convs = sorted(hybrid_convs(data))
    if convs != sorted(expect):
        raise SystemExit(f"FAIL {name}: hybrid convolutions (op, filter scales) are {convs}, expected {sorted(expect)}")
    path = os.path.join(common.TESTS_MODELS, f"{name}.tflite")
    if common.write(path, data):
        common.write_sidecar(path)
        print(f"  {name} ops: {' '.join(common.op_names(data))}; hybrid convolutions: {convs}")


def cnn_models():
    init = keras.initializers.RandomNormal(stddev=0.3)
    L = keras.layers
    common.reseed(62)
    inp = keras.Input((10, 10, 8), batch_size=1, name="x")
    h = L.Conv2D(128, 3, activation="relu", bias_initializer=init)(inp)
    h = L.DepthwiseConv2D(3, padding="same", bias_initializer=init)(h)
    h = L.Conv2D(32, 1, bias_initializer=init)(h)
    out = L.Dense(10, bias_initializer=init)(L.GlobalAveragePooling2D()(h))
    fn = common.concrete(keras.Model(inp, out), [tf.TensorSpec([1, 10, 10, 8], tf.float32, name="x")])
    emit_cnn("hybrid_cnn_f32", convert(fn), [("CONV_2D", 128), ("DEPTHWISE_CONV_2D", 128), ("CONV_2D", 32)])

    common.reseed(63)
    inp = keras.Input((9, 9, 5), batch_size=2, name="x")
    h = L.Conv2D(32, 3, strides=2, padding="same", activation="relu6", bias_initializer=init)(inp)
    h = L.DepthwiseConv2D(3, strides=2, padding="same", depth_multiplier=4, bias_initializer=init)(h)
    out = L.Conv2D(16, 1, bias_initializer=init)(h)
    fn = common.concrete(keras.Model(inp, out), [tf.TensorSpec([2, 9, 9, 5], tf.float32, name="x")])
    emit_cnn("hybrid_cnn_s2_f32", convert(fn), [("CONV_2D", 32), ("DEPTHWISE_CONV_2D", 128), ("CONV_2D", 16)])

    common.reseed(64)
    inp = keras.Input((10, 10, 8), batch_size=1, name="x")
    h = L.Conv2D(64, 3, dilation_rate=2, activation="relu", bias_initializer=init)(inp)
    out = L.Conv2D(16, 1, bias_initializer=init)(h)
    fn = common.concrete(keras.Model(inp, out), [tf.TensorSpec([1, 10, 10, 8], tf.float32, name="x")])
    emit_cnn("hybrid_cnn_pt_f32", convert(fn, per_tensor_conv=True), [("CONV_2D", 1), ("CONV_2D", 1)])


def main():
    common.family_args()
    common.reseed(61)
    init = keras.initializers.RandomNormal(stddev=0.3)
    inp = keras.Input((64,), batch_size=2, name="x")
    h = keras.layers.Dense(64, activation="relu", bias_initializer=init)(inp)
    h = keras.layers.Dense(32, use_bias=False)(h)
    out = keras.layers.Dense(10, bias_initializer=init)(h)
    model = keras.Model(inp, out, name="hybrid_fc")
    fn = common.concrete(model, [tf.TensorSpec([2, 64], tf.float32, name="x")])
    emit("hybrid_fc_f32", convert(fn), True, True)
    emit("hybrid_fc_pt_f32", convert(fn, per_tensor=True), False, True)
    emit("hybrid_fc_sym_f32", symmetric_inputs(convert(fn)), True, False)

    rng = np.random.default_rng(common.SEED + 61)
    w = tf.constant(rng.standard_normal((100, 40)).astype(np.float32) * 0.2)
    b = tf.constant(rng.standard_normal(40).astype(np.float32))
    fn = common.concrete(lambda x: tf.nn.relu6(tf.matmul(x, w) + b), [tf.TensorSpec([2, 3, 100], tf.float32, name="x")])
    emit("hybrid_matmul_f32", convert(fn), True, True)

    cnn_models()


if __name__ == "__main__":
    main()
