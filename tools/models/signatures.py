"""Multi-signature models: tests/models/sig_two_f32.tflite, sig_shared_f32.tflite.

sig_two: a tf.Module with two tf.functions, saved with both as signatures ("double": 2x + 1 on
[2, 4], "square": x * x on [3]) and converted from the SavedModel: two subgraphs, one per
signature, as LLM exports' prefill and decode.
sig_shared: "encode" (x @ W + b, tanh, on [2, 16] -> [2, 8]) and "decode" (y @ W^T, on [1, 8] ->
[1, 16]) read the same 16x8 weight W, whose buffer the converter stores once; a third signature,
"decode-v2!" (same as decode, plus 1), has a key that is no C identifier. mpcc compiles every
signature as its own entry point (docs/signatures.md).

    python tools/models/signatures.py
"""

import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402

common.setup()

import tensorflow as tf  # noqa: E402


class Two(tf.Module):
    @tf.function(input_signature=[tf.TensorSpec([2, 4], tf.float32, name="x")])
    def double(self, x):
        return {"y": x * 2.0 + 1.0}

    @tf.function(input_signature=[tf.TensorSpec([3], tf.float32, name="v")])
    def square(self, v):
        return {"sq": v * v}


class Shared(tf.Module):
    def __init__(self):
        super().__init__()
        self.w = tf.Variable(tf.random.normal([16, 8], seed=1))
        self.b = tf.Variable(tf.random.normal([8], seed=2))

    @tf.function(input_signature=[tf.TensorSpec([2, 16], tf.float32, name="x")])
    def encode(self, x):
        return {"code": tf.tanh(tf.matmul(x, self.w) + self.b)}

    @tf.function(input_signature=[tf.TensorSpec([1, 8], tf.float32, name="code")])
    def decode(self, y):
        return {"recon": tf.matmul(y, self.w, transpose_b=True)}

    @tf.function(input_signature=[tf.TensorSpec([1, 8], tf.float32, name="code")])
    def decode2(self, y):
        return {"recon": tf.matmul(y, self.w, transpose_b=True) + 1.0}


def shared():
    common.reseed(0)
    m = Shared()
    sigs = {"encode": m.encode, "decode": m.decode, "decode-v2!": m.decode2}
    with tempfile.TemporaryDirectory() as d:
        tf.saved_model.save(m, d, signatures=sigs)
        conv = tf.lite.TFLiteConverter.from_saved_model(d, signature_keys=list(sigs))
        data = conv.convert()
    common.write(os.path.join(common.TESTS_MODELS, "sig_shared_f32.tflite"), data)


def main():
    common.reseed(0)
    m = Two()
    with tempfile.TemporaryDirectory() as d:
        tf.saved_model.save(m, d, signatures={"double": m.double, "square": m.square})
        conv = tf.lite.TFLiteConverter.from_saved_model(d, signature_keys=["double", "square"])
        data = conv.convert()
    common.write(os.path.join(common.TESTS_MODELS, "sig_two_f32.tflite"), data)
    shared()


if __name__ == "__main__":
    main()
