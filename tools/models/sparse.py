"""sparse: weights stored in TFLite's sparse format (Tensor.sparsity), made by the converter's
EXPERIMENTAL_SPARSITY optimization from pruned (mostly zero) weights.

    sparse_cnn_{f32,int8}   Conv2D 3x3 (80 % zeros) + ReLU + Dense (80 % zeros): the filters are stored
                            CSR (a dense outer dimension, a compressed inner one, uint8 index vectors)
                            and widened by DENSIFY ops
    sparse_fc_block_f32     Dense whose zeros come in 1x4 blocks: stored block-sparse (block_map [1],
                            three traversal levels) and read by FULLY_CONNECTED itself, no DENSIFY

mpcc densifies every sparse constant at compile time (DENSIFY folds away).
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402

common.setup()

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402


def pruned(rng, shape, keep):
    w = rng.standard_normal(shape).astype(np.float32) * 0.4
    return w * (rng.random(shape) < keep)


def emit(name, fn, in_shape, variants):
    conc = tf.function(fn, input_signature=[tf.TensorSpec(in_shape, tf.float32, name="x")]).get_concrete_function()
    rng = np.random.default_rng(common.SEED)
    for v in variants:
        conv = tf.lite.TFLiteConverter.from_concrete_functions([conc])
        conv.optimizations = [tf.lite.Optimize.EXPERIMENTAL_SPARSITY]
        if v == "int8":
            conv.optimizations += [tf.lite.Optimize.DEFAULT]
            conv.representative_dataset = common.rep_from(
                [[rng.uniform(-1, 1, in_shape).astype(np.float32)] for _ in range(24)])
            conv.target_spec.supported_ops = [tf.lite.OpsSet.TFLITE_BUILTINS_INT8]
            conv.inference_input_type = tf.int8
            conv.inference_output_type = tf.int8
        data = conv.convert()
        from ai_edge_litert import schema_py_generated as S
        m = S.ModelT.InitFromPackedBuf(bytearray(data), 0)
        n_sparse = sum(t.sparsity is not None for t in m.subgraphs[0].tensors)
        if not n_sparse:
            print(f"  FAIL {name}_{v}: the converter stored no sparse tensor")
            continue
        path = os.path.join(common.TESTS_MODELS, f"{name}_{v}.tflite")
        if common.write(path, data):
            common.write_sidecar(path)
            print(f"  {name}_{v}: {n_sparse} sparse tensors, ops {' '.join(common.op_names(data))}")


def main():
    common.family_args()
    rng = np.random.default_rng(common.SEED + 7)
    wc = tf.constant(pruned(rng, (3, 3, 3, 8), 0.2))
    bc = tf.constant(rng.standard_normal(8).astype(np.float32) * 0.1)
    wf = tf.constant(pruned(rng, (8 * 6 * 6, 10), 0.2))

    def cnn(x):
        h = tf.nn.relu(tf.nn.conv2d(x, wc, 1, "SAME") + bc)
        return tf.matmul(tf.reshape(h, [1, -1]), wf)
    emit("sparse_cnn", cnn, (1, 6, 6, 3), ("f32", "int8"))

    w = rng.standard_normal((32, 16)).astype(np.float32) * 0.4
    w *= np.repeat(rng.random((8, 16)) < 0.3, 4, axis=0)  # zero 1x4 blocks along the input axis
    wb = tf.constant(w)
    emit("sparse_fc_block", lambda x: tf.nn.relu(tf.matmul(x, wb)), (1, 32), ("f32",))


if __name__ == "__main__":
    main()
