"""streaming: a shape given as a model input.

    stream_tconv_{f32,int8}   TRANSPOSE_CONV (3x3, stride 2, SAME, bias, fused ReLU) whose output_shape is the graph
                              input `output_shape` (int32 [4]) rather than a constant, as converters of
                              streaming models write it, with a static output shape [1, 8, 8, 4]

TF 2.21's converter cannot be made to declare the static output here (set_shape is dropped and
EnsureShape does not convert), so after converting, the generator writes the static shape [1,8,8,4]
into the TRANSPOSE_CONV output tensor (shape and shape_signature), which is what the
streaming models' files hold; nothing else in the file changes. mpcc compiles for that shape and the
generated code checks the input at run time (returns 2 when it differs). The sidecar feeds the
oracle output_shape = [1, 8, 8, 4].
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402

common.setup()

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

OUT_SHAPE = [1, 8, 8, 4]


def declare_static_outputs(data):
    """The model with every dynamic activation of subgraph 0 declared as OUT_SHAPE."""
    import flatbuffers
    from ai_edge_litert import schema_py_generated as S
    m = S.ModelT.InitFromPackedBuf(bytearray(data), 0)
    for t in m.subgraphs[0].tensors:
        if t.shapeSignature is not None and len(t.shapeSignature) == 4 and -1 in list(t.shapeSignature):
            t.shape, t.shapeSignature = list(OUT_SHAPE), list(OUT_SHAPE)
    b = flatbuffers.Builder(len(data) + 1024)
    b.Finish(m.Pack(b), file_identifier=b"TFL3")
    return bytes(b.Output())


def main():
    common.family_args()
    rng = np.random.default_rng(common.SEED + 11)
    w = tf.constant(rng.standard_normal((3, 3, 4, 3)).astype(np.float32) * 0.3)
    b = tf.constant(rng.standard_normal(4).astype(np.float32) * 0.1)

    def f(x, output_shape):
        return tf.nn.relu(tf.nn.conv2d_transpose(x, w, output_shape, strides=2, padding="SAME") + b)
    specs = [tf.TensorSpec([1, 4, 4, 3], tf.float32, name="x"), tf.TensorSpec([4], tf.int32, name="output_shape")]
    fn = tf.function(f, input_signature=specs).get_concrete_function()
    rep = common.rep_from([[rng.uniform(-1, 1, (1, 4, 4, 3)).astype(np.float32), np.array(OUT_SHAPE, np.int32)]
                           for _ in range(24)])
    for v in ("f32", "int8"):
        data = declare_static_outputs(common.convert(fn, v, rep if v == "int8" else None))
        path = os.path.join(common.TESTS_MODELS, f"stream_tconv_{v}.tflite")
        if common.write(path, data):
            common.write_sidecar(path, extra={"inputs": [{}, {"value": OUT_SHAPE}]})
            print(f"  stream_tconv_{v} ops: {' '.join(common.op_names(data))}")


if __name__ == "__main__":
    main()
