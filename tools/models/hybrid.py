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
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402

common.setup()

import keras  # noqa: E402
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402


def convert(fn, per_tensor=False):
    conv = tf.lite.TFLiteConverter.from_concrete_functions([fn])
    conv.optimizations = [tf.lite.Optimize.DEFAULT]
    if per_tensor:
        conv._experimental_disable_per_channel_quantization_for_dense_layers = True
    return conv.convert()


def fc_ops(m):
    """The FULLY_CONNECTED operators of a model (schema object API)."""
    from ai_edge_litert import schema_py_generated as S

    codes = m.operatorCodes
    return [op for op in m.subgraphs[0].operators
            if max(codes[op.opcodeIndex].builtinCode, codes[op.opcodeIndex].deprecatedBuiltinCode)
            == S.BuiltinOperator.FULLY_CONNECTED]


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


if __name__ == "__main__":
    main()
