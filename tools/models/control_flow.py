"""control_flow: IF and WHILE (TFLite subgraphs), made by the converter from tf.cond and tf.while_loop.

    cf_if_{f32,int8}   y = flag > 0 ? relu(x @ W) : tanh(x) * 2 (IF with two branch subgraphs; the
                       int8 model quantizes around the IF and runs parts of the branches in float)
    cf_while_f32       y = x; repeat n times: y = tanh(y @ W) + x (WHILE with cond and body subgraphs;
                       the loop count is the input n, drawn from 0..6)
    cf_nested_f32      a WHILE whose body holds an IF (the first two iterations scale, later ones multiply): nested
                       subgraph calls
    cf_variable_f32    a tf.Variable accumulator kept as a resource variable (converted unfrozen with
                       experimental_enable_resource_variables): CALL_ONCE runs an init subgraph that assigns its
                       initial value, VAR_HANDLE / READ_VARIABLE / ASSIGN_VARIABLE use it; the output depends on
                       every earlier invocation

The sidecars keep the integer inputs in small ranges (flag in -3..3, n in 0..6).
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402

common.setup()

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402


def emit(name, fn, specs, variants, int_range):
    conc = tf.function(fn, input_signature=specs).get_concrete_function()
    rng = np.random.default_rng(common.SEED)
    rep = common.rep_from([[rng.uniform(-1, 1, (1, 8)).astype(np.float32),
                            np.array([rng.integers(int_range[0], int_range[1] + 1)], np.int32)]
                           for _ in range(24)])
    for v in variants:
        try:
            data = common.convert(conc, v, rep if v == "int8" else None)
        except Exception as e:  # noqa: BLE001 - the converter's message goes into the log
            print(f"  SKIP {name}_{v}: {str(e).strip().splitlines()[-1][:160]}")
            continue
        path = os.path.join(common.TESTS_MODELS, f"{name}_{v}.tflite")
        if common.write(path, data):
            common.write_sidecar(path, extra={"inputs": [{}, {"low": int_range[0], "high": int_range[1]}]})
            print(f"  {name}_{v} ops: {' '.join(common.op_names(data))}")


def main():
    common.family_args()
    rng = np.random.default_rng(common.SEED + 31)
    w = tf.constant(rng.standard_normal((8, 8)).astype(np.float32) * 0.3)
    x_spec = tf.TensorSpec([1, 8], tf.float32, name="x")

    def f_if(x, flag):
        return tf.cond(flag[0] > 0, lambda: tf.nn.relu(tf.matmul(x, w)), lambda: tf.tanh(x) * 2.0)
    emit("cf_if", f_if, [x_spec, tf.TensorSpec([1], tf.int32, name="flag")], ("f32", "int8"), (-3, 3))

    def f_while(x, n):
        _, y = tf.while_loop(lambda i, y: i < n[0], lambda i, y: (i + 1, tf.tanh(tf.matmul(y, w)) + x),
                             [tf.constant(0), x])
        return y
    emit("cf_while", f_while, [x_spec, tf.TensorSpec([1], tf.int32, name="n")], ("f32",), (0, 6))

    def f_nested(x, n):
        def body(i, y):
            y = tf.cond(i < 2, lambda: y * 0.5, lambda: tf.matmul(y, w) + 1.0)
            return i + 1, y
        _, y = tf.while_loop(lambda i, y: i < n[0], body, [tf.constant(0), x])
        return y
    emit("cf_nested", f_nested, [x_spec, tf.TensorSpec([1], tf.int32, name="n")], ("f32",), (0, 6))
    emit_variable_model()


def emit_variable_model():
    rng = np.random.default_rng(common.SEED + 32)

    class Accumulator(tf.Module):
        def __init__(self):
            super().__init__()
            self.w = tf.constant(rng.standard_normal((8, 8)).astype(np.float32) * 0.3)
            self.acc = tf.Variable(rng.uniform(-0.5, 0.5, (1, 8)).astype(np.float32))

        @tf.function(input_signature=[tf.TensorSpec([1, 8], tf.float32, name="x")])
        def __call__(self, x):
            self.acc.assign(0.5 * self.acc + tf.tanh(tf.matmul(x, self.w)))
            return self.acc * 2.0

    m = Accumulator()
    conv = tf.lite.TFLiteConverter.from_concrete_functions([m.__call__.get_concrete_function()], m)
    conv.experimental_enable_resource_variables = True
    data = conv.convert()
    path = os.path.join(common.TESTS_MODELS, "cf_variable_f32.tflite")
    if common.write(path, data):
        common.write_sidecar(path)
        print(f"  cf_variable_f32 ops: {' '.join(common.op_names(data))}")


if __name__ == "__main__":
    main()
