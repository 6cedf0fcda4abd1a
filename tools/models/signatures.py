"""Two-signature model: tests/models/sig_two_f32.tflite.

A tf.Module with two tf.functions, saved with both as signatures ("double": 2x + 1 on [2, 4],
"square": x * x on [3]) and converted from the SavedModel: two subgraphs, one per signature, as
LLM exports' prefill and decode. mpcc compiles subgraph 0 and names the other (docs/llm-exports.md).

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


def main():
    common.reseed(0)
    m = Two()
    with tempfile.TemporaryDirectory() as d:
        tf.saved_model.save(m, d, signatures={"double": m.double, "square": m.square})
        conv = tf.lite.TFLiteConverter.from_saved_model(d, signature_keys=["double", "square"])
        data = conv.convert()
    common.write(os.path.join(common.TESTS_MODELS, "sig_two_f32.tflite"), data)


if __name__ == "__main__":
    main()
