"""Shared helpers for the model-zoo generators: deterministic setup, conversion, checks.

Every generator script calls `setup()` before importing TensorFlow. It pins the environment
(PYTHONHASHSEED, single-threaded TF, deterministic ops) by re-executing the script if needed,
so that a rerun writes byte-identical .tflite files.
"""

import os
import sys

SEED = 1234
ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
TESTS_MODELS = os.path.join(ROOT, "tests", "models")
SAMPLES_DIGITS = os.path.join(ROOT, "samples", "digits")
BIG_MODELS = os.path.join(ROOT, "build", "models")
MAX_COMMITTED_BYTES = 1 << 20

_ENV = {
    "PYTHONHASHSEED": "0",
    "TF_NUM_INTEROP_THREADS": "1",
    "TF_NUM_INTRAOP_THREADS": "1",
    "TF_DETERMINISTIC_OPS": "1",
    "TF_CPP_MIN_LOG_LEVEL": "3",
    "CUDA_VISIBLE_DEVICES": "-1",
    "TF_ENABLE_ONEDNN_OPTS": "0",
    "OMP_NUM_THREADS": "1",
}


def setup():
    """Pin the environment (re-exec if needed), then seed numpy, Python and TF."""
    if any(os.environ.get(k) != v for k, v in _ENV.items()):
        env = dict(os.environ, **_ENV)
        os.execve(sys.executable, [sys.executable] + sys.argv, env)
    import random

    import numpy as np
    import tensorflow as tf

    tf.config.threading.set_inter_op_parallelism_threads(1)
    tf.config.threading.set_intra_op_parallelism_threads(1)
    tf.config.experimental.enable_op_determinism()
    random.seed(SEED)
    np.random.seed(SEED)
    tf.random.set_seed(SEED)
    import keras

    keras.utils.set_random_seed(SEED)
    import logging

    tf.get_logger().setLevel(logging.ERROR)
    logging.getLogger("absl").setLevel(logging.ERROR)


def reseed(offset=0):
    """Reset every RNG (call before building each model so models don't depend on order)."""
    import random

    import keras
    import numpy as np
    import tensorflow as tf

    random.seed(SEED + offset)
    np.random.seed(SEED + offset)
    tf.random.set_seed(SEED + offset)
    keras.utils.set_random_seed(SEED + offset)
    keras.backend.clear_session()


def concrete(fn_or_model, specs):
    """A concrete function for a Keras model or a plain function, over tf.TensorSpec inputs."""
    import tensorflow as tf

    if hasattr(fn_or_model, "trainable_variables"):
        model = fn_or_model

        def call(*args):
            return model(list(args) if len(args) > 1 else args[0], training=False)
        fn = tf.function(call, input_signature=specs)
    else:
        fn = tf.function(fn_or_model, input_signature=specs)
    # Freeze the weights into constants: the converter otherwise keeps resource variables
    # (VAR_HANDLE / READ_VARIABLE ops) for Keras 3 models.
    from tensorflow.python.framework.convert_to_constants import convert_variables_to_constants_v2

    return convert_variables_to_constants_v2(fn.get_concrete_function())


def convert(fn, variant, rep_data=None, trackable=None, extra_ops=False, in_type=None, out_type=None):
    """Convert a concrete function to TFLite bytes.

    variant: "f32", "f16" (float16 weights, DEQUANTIZE ops), "int8" (full-integer PTQ, int8 in/out;
    needs rep_data, a callable returning an iterable of input lists).
    """
    import tensorflow as tf

    if not isinstance(fn, tf.types.experimental.ConcreteFunction):  # a (tf_keras) model, converted as is
        conv = tf.lite.TFLiteConverter.from_keras_model(fn)
    else:
        conv = tf.lite.TFLiteConverter.from_concrete_functions([fn], trackable)
    if variant == "f16":
        conv.optimizations = [tf.lite.Optimize.DEFAULT]
        conv.target_spec.supported_types = [tf.float16]
    elif variant == "int8":
        conv.optimizations = [tf.lite.Optimize.DEFAULT]
        conv.representative_dataset = rep_data
        conv.target_spec.supported_ops = [tf.lite.OpsSet.TFLITE_BUILTINS_INT8]
        conv.inference_input_type = in_type or tf.int8
        conv.inference_output_type = out_type or tf.int8
    elif variant != "f32":
        raise ValueError(variant)
    if extra_ops:
        conv.target_spec.supported_ops = list(conv.target_spec.supported_ops) + [tf.lite.OpsSet.TFLITE_BUILTINS]
    return conv.convert()


def op_names(data):
    """Builtin op names in a TFLite flatbuffer (bytes), in execution order."""
    from ai_edge_litert.interpreter import Interpreter

    interp = Interpreter(model_content=data)
    return [op["op_name"] for op in interp._get_ops_details()]


def write(path, data, limit=MAX_COMMITTED_BYTES):
    """Write a model if it fits the size limit; returns True when written."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    rel = os.path.relpath(path, ROOT)
    if limit and len(data) > limit:
        print(f"  SKIP {rel}: {len(data)} bytes > {limit}")
        if os.path.exists(path):
            os.remove(path)
        return False
    with open(path, "wb") as f:
        f.write(data)
    print(f"  wrote {rel} ({len(data)} bytes)")
    return True


def rep_from(arrays_list):
    """A representative-dataset callable from a list of input lists (numpy arrays)."""
    def gen():
        for arrays in arrays_list:
            yield [a for a in arrays]
    return gen


def write_variants(name, fn, rep_data, out_dir=TESTS_MODELS, variants=("f32", "int8", "f16"),
                   trackable=None, limit=MAX_COMMITTED_BYTES):
    """Convert fn to each variant and write NAME_VARIANT.tflite; returns {variant: status}."""
    status = {}
    for v in variants:
        try:
            data = convert(fn, v, rep_data if v == "int8" else None, trackable)
        except Exception as e:  # the converter's message goes into the log
            msg = str(e).strip().splitlines()
            status[v] = "convert failed: " + (msg[-1] if msg else type(e).__name__)
            print(f"  FAIL {name}_{v}: {status[v]}")
            continue
        ok = write(os.path.join(out_dir, f"{name}_{v}.tflite"), data, limit)
        status[v] = "ok" if ok else f"too big ({len(data)} bytes)"
    return status


def write_sidecar(path, float_ranges=None, constant_output=False, extra=None, check_ref=False):
    """Write (or remove) NAME.json next to NAME.tflite for the oracle, and check the oracle can
    run the model with its reference kernels; returns the sidecar dict.

    float_ranges: per input (low, high) or None, the real-valued range the input is meant for.
    Float inputs get it as is; int8/int16 inputs get it mapped through their quantization, so a
    quantized model of e.g. LOG or DIV is also fed only valid values.
    If the reference kernels cannot run the model, or (check_ref, for single-op models) disagree
    with the optimized kernels by more than 1 on an integer output (a wrong reference kernel),
    the sidecar picks "builtin". Whole models keep "ref" when it runs: there, differences of a
    few LSB between the kernel sets accumulate legitimately.
    """
    import json

    import numpy as np

    sys.path.insert(0, os.path.join(ROOT, "tests"))
    import oracle

    side_path = os.path.splitext(path)[0] + ".json"
    if os.path.exists(side_path):
        os.remove(side_path)
    side = {}
    if extra and "input_shapes" in extra:  # the oracle reads them from the sidecar when loading
        with open(side_path, "w") as f:
            json.dump({"input_shapes": extra["input_shapes"]}, f)
    interp = oracle.load(path, "builtin")
    details = interp.get_input_details()
    if float_ranges and any(r is not None for r in float_ranges):
        ins = []
        for d, r in zip(details, float_ranges):
            if r is None:
                ins.append({})
            elif np.dtype(d["dtype"]).kind == "f":
                ins.append({"low": float(r[0]), "high": float(r[1])})
            elif d["quantization"][0] == 0.0:  # a plain integer input: the bounds as given
                ins.append({"low": int(r[0]), "high": int(r[1])})
            else:
                scale, zero = d["quantization"]
                info = np.iinfo(d["dtype"])
                lo = int(np.clip(np.ceil(r[0] / scale) + zero, info.min, info.max))
                hi = int(np.clip(np.floor(r[1] / scale) + zero, info.min, info.max))
                if r[0] > 0:
                    lo = max(lo, zero + 1)  # strictly positive: never the zero point
                ins.append({"low": lo, "high": hi})
        side["inputs"] = ins
    if constant_output:
        side["constant_output"] = True
    side.update(extra or {})

    def save():
        if side:
            with open(side_path, "w") as f:
                json.dump(side, f, indent=1, sort_keys=True)
                f.write("\n")
    save()
    # The reference resolver aborts the whole process on some models (in allocate_tensors), so
    # try it in a child process first.
    import subprocess
    probe = subprocess.run([sys.executable, "-c", "import sys; sys.path.insert(0, sys.argv[2]); import oracle; "
                            "oracle.oracle(sys.argv[1], 0, 'ref')", path, os.path.join(ROOT, "tests")],
                           capture_output=True, text=True)
    if probe.returncode != 0:
        err = [ln for ln in probe.stderr.splitlines() if ln.strip()]
        named = [ln for ln in err if "find op" in ln or "Error" in ln] or err
        msg = named[0].strip()[:160] if err and probe.returncode > 0 else f"the process dies (exit {probe.returncode})"
        side.update(resolver="builtin", why="reference kernels cannot run it: " + msg)
    elif check_ref:
        ref = oracle.load(path, "ref")
        for seed in range(3):
            x = oracle.draw_inputs(path, seed, ref)
            a, b = oracle.run(path, x, "ref", ref), oracle.run(path, x, "builtin", interp)
            worst = max([int(np.max(np.abs(p.astype(np.int64) - q.astype(np.int64))))
                         for p, q in zip(a, b) if p.dtype.kind in "iu" and p.size] or [0])
            if worst > 1:
                side.update(resolver="builtin",
                            why=f"reference kernel disagrees with the optimized one by {worst} on an integer output")
                break
    if "resolver" in side:
        print(f"  NOTE {os.path.relpath(path, ROOT)}: oracle uses builtin kernels: {side['why']}")
    save()
    return side


def random_inputs(specs, n, seed, ranges=None):
    """n lists of random arrays for tf.TensorSpec specs: float in the range (default [-1, 1)),
    int32 in [0, high) where ranges gives (0, high) (token ids), mask-named inputs 0/1."""
    import numpy as np

    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n):
        arrays = []
        for i, s in enumerate(specs):
            shape = [1 if d is None else d for d in s.shape.as_list()]
            r = ranges[i] if ranges else None
            if "mask" in s.name:
                a = rng.integers(0, 2, size=shape)
                a.reshape(-1)[0] = 1
                a = a.astype(s.dtype.as_numpy_dtype)
            elif s.dtype.is_floating:
                lo, hi = r or (-1.0, 1.0)
                a = rng.uniform(lo, hi, size=shape).astype(np.float32)
            else:
                lo, hi = r or (0, 100)
                a = rng.integers(lo, hi, size=shape).astype(s.dtype.as_numpy_dtype)
            arrays.append(a)
        out.append(arrays)
    return out


def emit(name, model, specs, variants=("f32", "int8", "f16"), out_dir=TESTS_MODELS, limit=MAX_COMMITTED_BYTES,
         ranges=None, rep_samples=24, from_keras=False):
    """Convert a Keras model (or function) over specs to each variant, write NAME_VARIANT.tflite and
    its sidecar; returns {variant: status}. from_keras: convert a tf_keras model with
    from_keras_model (freezing first would lose the markers the converter fuses LSTMs by)."""
    fn = model if from_keras else concrete(model, specs)
    rep = rep_from(random_inputs(specs, rep_samples, SEED, ranges))
    status = {}
    for v in variants:
        try:
            data = convert(fn, v, rep if v == "int8" else None)
        except Exception as e:
            lines = [ln for ln in str(e).splitlines() if "error" in ln.lower()] or str(e).splitlines() or [type(e).__name__]
            status[v] = "converter error: " + lines[0].strip()[:200]
            print(f"  SKIP {name}_{v}: {status[v]}")
            continue
        path = os.path.join(out_dir, f"{name}_{v}.tflite")
        if write(path, data, limit):
            sr = [r if r is None or not isinstance(r[0], int) else None for r in ranges] if ranges else None
            write_sidecar(path, sr)
            status[v] = "ok " + " ".join(sorted(set(op_names(data))))
            print(f"  {name}_{v} ops: {status[v][3:]}")
        else:
            status[v] = f"too big ({len(data)} bytes > {limit})"
    return status


def family_args():
    import argparse

    ap = argparse.ArgumentParser()
    ap.add_argument("--big", action="store_true", help="also make the large on-demand variant in build/models/")
    return ap.parse_args()


def randomize_batchnorm(model, seed=SEED):
    """Give every BatchNormalization non-trivial statistics (an untrained model's are 0/1), so
    the folded convolutions and the activations have realistic spread."""
    import keras
    import numpy as np

    rng = np.random.default_rng(seed)
    for layer in model.layers:
        if isinstance(layer, keras.layers.BatchNormalization):
            n = layer.moving_mean.shape[0]
            w = {"gamma": rng.uniform(0.5, 1.5, n), "beta": rng.uniform(-0.2, 0.2, n),
                 "moving_mean": rng.uniform(-0.2, 0.2, n), "moving_variance": rng.uniform(0.5, 2.0, n)}
            layer.set_weights([w[v.name].astype(np.float32) for v in layer.weights])
