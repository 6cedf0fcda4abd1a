"""TFLite-interpreter oracle: random valid inputs for a model, and its outputs.

Used as a module by the tests and as a CLI:

    python tests/oracle.py MODEL --seed N --outdir DIR [--inputs a.npy b.npy] [--resolver ref|builtin]

writes DIR/in0.npy, DIR/in1.npy, ... and DIR/out0.npy, ... in the model's input and output order.

How inputs are drawn (one numpy Generator seeded with N, inputs drawn in model order):
  - a sidecar NAME.json next to NAME.tflite may give per-input {"low": .., "high": ..}
    (inclusive for integers), or {"value": [...]} (a shape-like input: exactly these values);
    it wins over everything below;
  - inputs whose name contains "mask": 0/1 with at least one 1;
  - integer inputs feeding a GATHER / EMBEDDING_LOOKUP as indices: [0, rows of the table);
  - float inputs: uniform in [-1, 1);
  - int8 / uint8 / int16 inputs, and quantized int32 inputs (nonzero scale): the full range of the type;
  - other integer inputs (int32, int64): [-100, 100]; bool: 0/1.
  No input is ever all zero.
The interpreter runs the reference kernels (OpResolverType.BUILTIN_REF) by default: they are the
bit-exact specification. `resolver="builtin"` picks BUILTIN_WITHOUT_DEFAULT_DELEGATES (optimized
kernels, no XNNPACK). A sidecar may say {"resolver": "builtin", "why": ...} for models whose
reference kernel is missing or wrong in this LiteRT version; that becomes the default for them.
A sidecar may also say {"constant_output": true} (e.g. SHAPE): the output does not depend on values,
and {"input_shapes": [[1, 20, 8], null, ...]}: the shapes to run a model with dynamic dimensions at
(mpcc gets them as --input-shape, see input_shape_args); and {"oracle_model": "oracle/x.tflite"}: a
model with custom operators is checked against that twin (the same computation in builtin ops);
and {"reference": "tflm_svdf"}: TFLite Micro's 8-bit SVDF, which this interpreter cannot run, is
checked against tests/reference_svdf.py.
"""

import argparse
import json
import os
import sys

import numpy as np
from ai_edge_litert.interpreter import Interpreter, OpResolverType

RESOLVERS = {
    "ref": OpResolverType.BUILTIN_REF,
    "builtin": OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES,
    # with the XNNPACK delegate: runs MediaPipe's custom Convolution2DTransposeBias (tests/test_mediapipe_ops.py)
    "xnnpack": OpResolverType.AUTO,
}

# Ops that only move or relabel data: an index input passing through them is still an index.
_PASS_THROUGH = {"RESHAPE", "CAST", "SQUEEZE", "EXPAND_DIMS", "IDENTITY", "SLICE", "STRIDED_SLICE"}


def load(model_path, resolver=None):
    """An allocated interpreter for model_path. resolver None: the sidecar's "resolver", else "ref"."""
    resolver = resolver or default_resolver(model_path)
    # A model the interpreter cannot run at all names an independent reference instead.
    if sidecar(model_path).get("reference") == "tflm_svdf":
        from reference_svdf import Interpreter as SvdfReference
        return SvdfReference(str(model_path))
    # A model TFLite cannot run (a custom operator) names a twin computing the same in builtin ops.
    twin = sidecar(model_path).get("oracle_model")
    if twin:
        model_path = os.path.join(os.path.dirname(str(model_path)), twin)
    try:
        interp = Interpreter(model_path=str(model_path), experimental_op_resolver_type=RESOLVERS[resolver])
    except ValueError as e:
        if "quantized_dimension" not in str(e):
            raise
        interp = Interpreter(model_content=_fix_vector_quantized_dimension(model_path),
                             experimental_op_resolver_type=RESOLVERS[resolver])
    # A model with dynamic dimensions runs at the shapes its sidecar gives (mpcc gets the same
    # shapes as --input-shape, see input_shape_args).
    for d, shape in zip(interp.get_input_details(), sidecar(model_path).get("input_shapes", [])):
        if shape is not None:
            interp.resize_tensor_input(d["index"], list(shape), strict=True)
    try:
        interp.allocate_tensors()
    except RuntimeError as e:
        # A custom operator only TFLite's XNNPACK delegate runs (MediaPipe's Convolution2DTransposeBias).
        if "unresolved custom op" not in str(e) or resolver == "xnnpack":
            raise
        return load(model_path, "xnnpack")
    return interp


def input_shape_args(model_path):
    """mpcc options for the sidecar's input shapes: ["--input-shape", "0=1,20,8", ...]."""
    args = []
    for i, shape in enumerate(sidecar(model_path).get("input_shapes", [])):
        if shape is not None:
            args += ["--input-shape", f"{i}=" + ",".join(str(int(x)) for x in shape)]
    return args


def _fix_vector_quantized_dimension(model_path):
    """The model's bytes with quantized_dimension reset to 0 on 1-D per-channel tensors.

    Some converters copy the filter's quantized_dimension (e.g. 3) onto the 1-D bias, which
    this LiteRT version refuses to load (older TFLite and TFLM accept it; for a vector the
    channel axis can only be 0). Only that metadata field changes: weights, scales and graph
    are untouched, so the interpreter still checks mpcc on the real model."""
    import flatbuffers
    from ai_edge_litert import schema_py_generated as schema

    with open(model_path, "rb") as f:
        buf = f.read()
    model = schema.ModelT.InitFromPackedBuf(bytearray(buf), 0)
    for sg in model.subgraphs or []:
        for t in sg.tensors or []:
            q = t.quantization
            shape = list(t.shape) if t.shape is not None else []
            if q is not None and len(shape) == 1 and q.quantizedDimension not in (0, None):
                q.quantizedDimension = 0
    b = flatbuffers.Builder(len(buf) + 1024)
    b.Finish(model.Pack(b), file_identifier=b"TFL3")
    return bytes(b.Output())


def sidecar(model_path):
    """The model's sidecar dict (NAME.json next to NAME.tflite), or {}."""
    path = os.path.splitext(str(model_path))[0] + ".json"
    if os.path.exists(path):
        with open(path) as f:
            return json.load(f)
    return {}


def default_resolver(model_path):
    """"ref", unless the model's sidecar names another resolver: a few models hit a missing or
    wrong reference kernel in this LiteRT version (the sidecar's "why" says which)."""
    return sidecar(model_path).get("resolver", "ref")


def _index_bounds(interp):
    """{tensor index: number of rows} for tensors used as GATHER / EMBEDDING_LOOKUP indices,
    following pass-through ops back to the model inputs."""
    ops = interp._get_ops_details()
    tensors = {t["index"]: t for t in interp.get_tensor_details()}
    bounds = {}
    for op in ops:
        name, ins = op["op_name"], list(op["inputs"])
        if name == "GATHER" and len(ins) >= 2:
            table, idx = ins[0], ins[1]
        elif name == "EMBEDDING_LOOKUP" and len(ins) >= 2:
            idx, table = ins[0], ins[1]
        else:
            continue
        if table < 0 or table not in tensors or len(tensors[table]["shape"]) == 0:
            continue
        rows = int(tensors[table]["shape"][0])
        bounds[idx] = min(rows, bounds.get(idx, rows))
    # Propagate backwards through pass-through ops until nothing changes.
    changed = True
    while changed:
        changed = False
        for op in ops:
            if op["op_name"] not in _PASS_THROUGH or len(op["outputs"]) != 1 or len(op["inputs"]) == 0:
                continue
            out, src = op["outputs"][0], op["inputs"][0]
            if out in bounds and bounds.get(src, 1 << 62) > bounds[out]:
                bounds[src] = bounds[out]
                changed = True
    return bounds


def input_ranges(model_path, interp=None):
    """Per model input: dict(name, shape, dtype, low, high, kind) describing how it is drawn.
    For integer kinds low/high are inclusive."""
    interp = interp or load(model_path)
    side = sidecar(model_path).get("inputs", [])
    bounds = _index_bounds(interp)
    specs = []
    for i, d in enumerate(interp.get_input_details()):
        dtype = np.dtype(d["dtype"])
        spec = {"name": d["name"], "shape": tuple(int(s) for s in d["shape"]), "dtype": dtype}
        if dtype.kind == "f":
            spec.update(kind="float", low=-1.0, high=1.0)
        elif dtype.kind == "b":
            spec.update(kind="int", low=0, high=1)
        else:
            info = np.iinfo(dtype)
            if "mask" in d["name"].lower():
                spec.update(kind="mask", low=0, high=1)
            elif d["index"] in bounds:
                spec.update(kind="index", low=0, high=max(0, bounds[d["index"]] - 1))
            elif dtype.itemsize <= 2 or d["quantization"][0] != 0.0:
                # Narrow types and quantized int32 (a real value with a scale): full range.
                spec.update(kind="int", low=int(info.min), high=int(info.max))
            else:
                spec.update(kind="int", low=-100, high=100)
        if dtype.kind == "f" and "mask" in d["name"].lower():
            spec.update(kind="mask", low=0, high=1)
        if i < len(side) and side[i]:
            for key in ("low", "high", "value"):
                if key in side[i]:
                    spec[key] = side[i][key]
            if "kind" in side[i]:
                spec["kind"] = side[i]["kind"]
        specs.append(spec)
    return specs


def draw_inputs(model_path, seed, interp=None):
    """Random valid inputs for the model, a list of arrays in input order."""
    rng = np.random.default_rng(seed)
    arrays = []
    for spec in input_ranges(model_path, interp):
        shape, dtype, lo, hi = spec["shape"], spec["dtype"], spec["low"], spec["high"]
        if "value" in spec:  # a shape-like input: the values the model was made for
            arrays.append(np.asarray(spec["value"], dtype=dtype).reshape(shape))
            continue
        if spec["kind"] == "mask":
            a = rng.integers(0, 2, size=shape)
            a.reshape(-1)[0] = 1  # at least one position is attended to
        elif dtype.kind == "f":
            a = rng.uniform(lo, hi, size=shape)
        else:
            a = rng.integers(int(lo), int(hi), size=shape, endpoint=True)
        a = np.asarray(a).astype(dtype)
        flat = a.reshape(-1)
        if flat.size and not np.any(flat):
            # Never all zero: put the range's largest magnitude value in one place.
            flat[rng.integers(0, flat.size)] = hi if hi != 0 else lo
        arrays.append(a)
    return arrays


def draw_samples(model_path, seed, n):
    """n random input sets (seeds seed, seed+1, ...), stacked per input: a list of [n, ...] arrays
    (calibration and evaluation samples for --precision)."""
    per_input = None
    for s in range(n):
        xs = draw_inputs(model_path, seed + s)
        per_input = per_input or [[] for _ in xs]
        for i, a in enumerate(xs):
            per_input[i].append(a)
    return [np.stack(p) for p in per_input]


def run(model_path, inputs, resolver=None, interp=None):
    """Outputs (list of arrays, model output order) of the model on the given inputs."""
    interp = interp or load(model_path, resolver)
    details = interp.get_input_details()
    if len(inputs) != len(details):
        raise ValueError(f"{model_path}: model has {len(details)} inputs, got {len(inputs)}")
    for d, a in zip(details, inputs):
        a = np.asarray(a)
        if a.dtype != d["dtype"] or tuple(a.shape) != tuple(d["shape"]):
            raise ValueError(
                f"{model_path}: input {d['name']!r} wants {np.dtype(d['dtype'])}{list(d['shape'])}, "
                f"got {a.dtype}{list(a.shape)}")
        interp.set_tensor(d["index"], a)
    interp.invoke()
    return [interp.get_tensor(d["index"]).copy() for d in interp.get_output_details()]


def oracle(model_path, seed, resolver=None):
    """(inputs, outputs) for the model with inputs drawn from seed."""
    interp = load(model_path, resolver)
    inputs = draw_inputs(model_path, seed, interp)
    return inputs, run(model_path, inputs, resolver, interp)


def op_names(model_path):
    """Names of the builtin ops the model runs, in execution order."""
    interp = Interpreter(model_path=str(model_path))
    return [op["op_name"] for op in interp._get_ops_details()]


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("model")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--outdir", required=True)
    p.add_argument("--inputs", nargs="+", help="use these .npy files as inputs instead of random ones")
    p.add_argument("--resolver", choices=sorted(RESOLVERS), default=None,
                   help="kernels to run: ref (default, unless the sidecar says otherwise) or builtin")
    args = p.parse_args(argv)

    interp = load(args.model, args.resolver)
    if args.inputs:
        inputs = [np.load(f) for f in args.inputs]
    else:
        inputs = draw_inputs(args.model, args.seed, interp)
    outputs = run(args.model, inputs, args.resolver, interp)
    os.makedirs(args.outdir, exist_ok=True)
    for i, a in enumerate(inputs):
        np.save(os.path.join(args.outdir, f"in{i}.npy"), a)
    for i, a in enumerate(outputs):
        np.save(os.path.join(args.outdir, f"out{i}.npy"), a)
    print(f"{args.model}: seed {args.seed}, {len(inputs)} inputs, {len(outputs)} outputs -> {args.outdir}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
