"""Writes tests/edge/*.tflite: small single-purpose models for numeric and structural edge cases
(issue 14), built with the TFLite schema's object API, and tests/edge/cases.json describing them.

Numeric cases (run by tests/test_edge.py through `mpcc run` and the generated C, against TFLite):
  - int8 SOFTMAX with 512 or more classes (1000, 32000), where the output shift reaches 32;
  - int8/int16 reductions whose int32 sums pass 2^31 (MEAN, SUM, AVERAGE_POOL_2D, L2_NORMALIZATION);
  - an int8 layer-norm LSTM whose layer-norm bias sum passes 2^31;
  - graphs without operators whose outputs are an input or a constant (accepted).
Rejected cases (must exit 1 with the message in cases.json): element counts of 2^31 or more,
a graph input backed by a constant buffer, a graph with no outputs, a graph whose tensors exceed
the interpreter's memory limit.

Run: .venv/bin/python tests/edge/make_edge.py   (rewrites every file; the output is deterministic)
"""

import json
import struct
from pathlib import Path

import flatbuffers
import numpy as np
from ai_edge_litert import schema_py_generated as S

HERE = Path(__file__).resolve().parent
OP = S.BuiltinOperator
TT = S.TensorType
BO = S.BuiltinOptions


def tensor(name, shape, dtype=TT.FLOAT32, buffer=0, quant=None):
    t = S.TensorT()
    t.name = name.encode()
    t.shape = list(shape)
    t.type = dtype
    t.buffer = buffer
    t.quantization = quant
    return t


def buffer(data=b""):
    b = S.BufferT()
    b.data = list(data) if data else None
    return b


def opcode(code):
    c = S.OperatorCodeT()
    c.builtinCode = code
    c.deprecatedBuiltinCode = min(code, 127)
    c.version = 1
    return c


def operator(opcode_index, inputs, outputs, options_type=0, options=None):
    o = S.OperatorT()
    o.opcodeIndex = opcode_index
    o.inputs = list(inputs)
    o.outputs = list(outputs)
    o.builtinOptionsType = options_type
    o.builtinOptions = options
    return o


def quant(scale, zero_point):
    q = S.QuantizationParametersT()
    q.scale = [float(scale)]
    q.zeroPoint = [int(zero_point)]
    q.quantizedDimension = 0
    return q


def model(tensors, ops, codes, buffers, inputs, outputs):
    m = S.ModelT()
    m.version = 3
    m.description = b"mpcc edge-case test"
    m.operatorCodes = codes
    sg = S.SubGraphT()
    sg.tensors = tensors
    sg.inputs = list(inputs)
    sg.outputs = list(outputs)
    sg.operators = ops
    sg.name = b"main"
    m.subgraphs = [sg]
    # Buffer 0 is the empty sentinel, as the converter writes it.
    m.buffers = [buffer()] + list(buffers)
    return m


def pack(m):
    b = flatbuffers.Builder(1024)
    b.Finish(m.Pack(b), file_identifier=b"TFL3")
    return bytes(b.Output())


def i32_buffer(values):
    return buffer(struct.pack(f"<{len(values)}i", *values))


# ---- numeric cases ---------------------------------------------------------------------------

def softmax_int8(depth, rows=1, in_scale=0.1, in_zp=0, beta=1.0):
    """int8 SOFTMAX over `depth` classes; output scale 1/256, zero point -128."""
    opts = S.SoftmaxOptionsT()
    opts.beta = beta
    tensors = [tensor("logits", [rows, depth], TT.INT8, quant=quant(in_scale, in_zp)),
               tensor("probs", [rows, depth], TT.INT8, quant=quant(1.0 / 256, -128))]
    ops = [operator(0, [0], [1], BO.SoftmaxOptions, opts)]
    return model(tensors, ops, [opcode(OP.SOFTMAX)], [], [0], [1])


def reduce_model(code, shape, axes, dtype, in_q, out_q, keep_dims=False):
    """MEAN or SUM over constant `axes`."""
    opts = S.ReducerOptionsT()
    opts.keepDims = keep_dims
    out_shape = [1 if i in axes else d for i, d in enumerate(shape)] if keep_dims else \
        [d for i, d in enumerate(shape) if i not in axes]
    tensors = [tensor("x", shape, dtype, quant=quant(*in_q)),
               tensor("axes", [len(axes)], TT.INT32, buffer=1),
               tensor("y", out_shape, dtype, quant=quant(*out_q))]
    ops = [operator(0, [0, 1], [2], BO.ReducerOptions, opts)]
    return model(tensors, ops, [opcode(code)], [i32_buffer(axes)], [0], [2])


def avg_pool(shape, dtype, q):
    """AVERAGE_POOL_2D whose window covers the whole (large) image: one output per channel."""
    n, h, w, c = shape
    opts = S.Pool2DOptionsT()
    opts.padding = S.Padding.VALID
    opts.strideH, opts.strideW = 1, 1
    opts.filterHeight, opts.filterWidth = h, w
    tensors = [tensor("x", shape, dtype, quant=quant(*q)), tensor("y", [n, 1, 1, c], dtype, quant=quant(*q))]
    ops = [operator(0, [0], [1], BO.Pool2DOptions, opts)]
    return model(tensors, ops, [opcode(OP.AVERAGE_POOL_2D)], [], [0], [1])


def l2norm(shape, in_zp):
    """int8 L2_NORMALIZATION over a long last axis (output scale 1/128, zero point 0)."""
    tensors = [tensor("x", shape, TT.INT8, quant=quant(0.05, in_zp)),
               tensor("y", shape, TT.INT8, quant=quant(1.0 / 128, 0))]
    ops = [operator(0, [0], [1], BO.L2NormOptions, S.L2NormOptionsT())]
    return model(tensors, ops, [opcode(OP.L2_NORMALIZATION)], [], [0], [1])


def add_f32(x_const=False, with_op=True, outputs=(2,)):
    """y = x + c over f32 [1,4]: x is a graph input (with a constant buffer behind it when
    x_const), c a constant. Without the op, the graph's outputs are x or c themselves."""
    c = struct.pack("<4f", 1.0, 2.0, 3.0, 4.0)
    tensors = [tensor("x", [1, 4], buffer=2 if x_const else 0), tensor("c", [1, 4], buffer=1), tensor("y", [1, 4])]
    ops = [operator(0, [0, 1], [2], BO.AddOptions, S.AddOptionsT())] if with_op else []
    buffers = [buffer(c)] + ([buffer(struct.pack("<4f", 5.0, 6.0, 7.0, 8.0))] if x_const else [])
    return model(tensors, ops, [opcode(OP.ADD)], buffers, [0], list(outputs))


def softmax_f32(rows, depth):
    opts = S.SoftmaxOptionsT()
    opts.beta = 1.0
    tensors = [tensor("logits", [rows, depth]), tensor("probs", [rows, depth])]
    return model(tensors, [operator(0, [0], [1], BO.SoftmaxOptions, opts)], [opcode(OP.SOFTMAX)], [], [0], [1])


def interp_too_big():
    """No inputs; a [1] constant broadcast to 2^31-1 floats (8 GiB), twice added, then summed to
    one float: 24 GiB of intermediate tensors, beyond `mpcc run`'s 16 GiB limit."""
    n = (1 << 31) - 1
    tensors = [tensor("c", [1], buffer=1), tensor("shape", [1], TT.INT32, buffer=2), tensor("big1", [n]),
               tensor("big2", [n]), tensor("big3", [n]), tensor("axis", [1], TT.INT32, buffer=3), tensor("y", [])]
    ops = [operator(0, [0, 1], [2], BO.BroadcastToOptions, S.BroadcastToOptionsT()),
           operator(1, [2, 2], [3], BO.AddOptions, S.AddOptionsT()),
           operator(1, [3, 2], [4], BO.AddOptions, S.AddOptionsT()),
           operator(2, [4, 5], [6], BO.ReducerOptions, S.ReducerOptionsT())]
    codes = [opcode(OP.BROADCAST_TO), opcode(OP.ADD), opcode(OP.SUM)]
    buffers = [buffer(struct.pack("<f", 0.5)), i32_buffer([n]), i32_buffer([0])]
    return model(tensors, ops, codes, buffers, [], [6])


def lstm_ln_overflow():
    """int8 UNIDIRECTIONAL_SEQUENCE_LSTM with layer norm (tools/models/lstm_ln.py builds it), 8 cells,
    whose gate biases sit at the int32 limits on every other cell: the layer norm's
    bias + normalized * coefficient passes 2^31 (TFLite's source writes it in int32, the
    interpreter's compiled code forms it in 64 bits). The other cells keep ordinary biases, so the
    output still follows the input."""
    import sys
    sys.path.insert(0, str(HERE.parent.parent / "tools" / "models"))
    import lstm_ln

    cfg = dict(batch=1, n_cell=8, n_output=8, cifg=False, peep=False, proj=False, time_major=False,
               cell_clip=0.0, proj_clip=0.0)
    rng = np.random.default_rng(14)
    w = lstm_ln.draw_weights(cfg, rng)
    for g in "ifco":
        w["b" + g][::2] = np.where(np.arange(4) % 2, 1e6, -1e6)  # saturates to +-(2^31 - 1)
    calib = lstm_ln.calibrate(cfg, w, rng)
    data = lstm_ln.build("lstm_ln_overflow", "int8", cfg, w, (2.0 / 255, -1), calib)
    return S.ModelT.InitFromPackedBuf(bytearray(data), 0)


# name: (model, [input kinds], resolver, what it checks). Input kinds: "random" (uniform over the
# type's range, or [-1, 1) for float), "max"/"min" (the type's 8 largest or smallest values),
# "equal" (each row one random nonzero value), "mixed" (rows alternately "random" and "max"),
# "tie512" (512 places per row at the maximum, the rest at the minimum), "zeros" (only where
# issue 14 names an all-zero case); tests/test_edge.py draws them. Resolver: "ref" (the reference
# kernels), "builtin" (where LiteRT's reference kernel is wrong, as for int8 SUM, which reads the
# data as uint8), "ref|builtin" (the reference kernels, except for rows on which they stop on an
# assert, as int8 SOFTMAX does once its output shift passes 31).
NUMERIC = {
    "softmax_int8_512": (softmax_int8(512, rows=2, in_scale=0.01), ["random", "equal"], "ref|builtin",
                         "smallest depth whose sum of exps can reach 512 (output shift 32)"),
    "softmax_int8_1000": (softmax_int8(1000, rows=2), ["random", "mixed"], "ref|builtin",
                          "a 1000-class classifier head; rows on both sides of a sum of 512"),
    "softmax_int8_1000_tie": (softmax_int8(1000, rows=2, in_scale=0.5), ["tie512"], "ref|builtin",
                              "sum of exps exactly 512: probabilities of exactly half an output step"),
    "softmax_int8_1000_flat": (softmax_int8(1000, rows=2, in_scale=0.004), ["random"], "ref|builtin",
                               "1000 classes, logits close together: sum of exps above 512"),
    "softmax_int8_1000_allzero": (softmax_int8(1000), ["zeros"], "ref|builtin",
                                  "issue 14: all-zero logits over 1000 classes"),
    "softmax_int8_32000": (softmax_int8(32000), ["random"], "ref|builtin", "a 32,000-token vocabulary"),
    "softmax_int8_32000_flat": (softmax_int8(32000, in_scale=0.01, in_zp=-3), ["random", "max"], "ref|builtin",
                                "32,000 flat logits: the Q12.19 sum of exps wraps"),
    "mean_int8_overflow": (reduce_model(OP.MEAN, [1, 17 << 20], [1], TT.INT8, (0.5, -100), (0.5, -100)),
                           ["max", "min"], "ref", "MEAN int8: the int32 sum of 17.8M values passes 2^31"),
    "mean_int16_overflow": (reduce_model(OP.MEAN, [1, 1 << 17], [1], TT.INT16, (1.0, 0), (1.0, 0)),
                            ["max", "min"], "ref", "MEAN int16: the int32 sum of 131,072 values passes 2^31"),
    "sum_int8_overflow": (reduce_model(OP.SUM, [1, 17 << 20], [1], TT.INT8, (0.5, 0), (0.5, 0)),
                          ["max", "min"], "builtin", "SUM int8, same scale: the int32 sum passes 2^31"),
    "sum_int8_rescale_overflow": (reduce_model(OP.SUM, [1, 17 << 20], [1], TT.INT8, (0.5, 0), (4e6, 0)),
                                  ["max", "min"], "builtin", "SUM int8, rescaled: the int32 sum passes 2^31"),
    "sum_int8_same_scale": (reduce_model(OP.SUM, [3, 64], [1], TT.INT8, (0.25, 5), (0.25, 5)), ["random"],
                            "builtin", "SUM int8, same scale: sums beyond int8 clamp (they wrapped)"),
    "avg_pool_int8_overflow": (avg_pool([1, 4200, 4200, 1], TT.INT8, (0.5, 0)), ["max", "min"], "ref",
                               "AVERAGE_POOL_2D int8 over a 4200x4200 window: the int32 sum passes 2^31"),
    "avg_pool_int16_overflow": (avg_pool([1, 300, 300, 1], TT.INT16, (1.0, 0)), ["max", "min"], "ref",
                                "AVERAGE_POOL_2D int16 over a 300x300 window: the int32 sum passes 2^31"),
    "l2norm_int8_overflow": (l2norm([2, 40000], -128), ["max", "random"], "ref",
                             "L2_NORMALIZATION int8: the int32 sum of squares passes 2^31"),
    "lstm_ln_int8_overflow": (lstm_ln_overflow(), ["random", "max"], "ref",
                              "int8 LSTM with layer norm, gate biases at the int32 limits: the layer "
                              "norm's int32 bias + normalized * coefficient passes 2^31"),
    "no_ops_identity": (add_f32(with_op=False, outputs=[0]), ["random"], "ref",
                        "no operators, the output is the input: accepted"),
    "no_ops_constant": (add_f32(with_op=False, outputs=[1]), ["random"], "ref",
                        "no operators, the output is a constant: accepted"),
}

# name: (model, commands that must fail, substring of the message). Commands: "inspect",
# "compile" (mpcc MODEL -o OUT.c), "run" (mpcc run with random inputs).
REJECTED = {
    "count_2g_mean": (reduce_model(OP.MEAN, [32768, 65537], [1], TT.INT8, (0.5, 0), (0.5, 0)),
                      ["inspect", "compile"], "tensor 0 'x': 2147516416 elements, more than the 2147483647"),
    "count_2g_softmax": (softmax_f32(2, 1 << 30), ["inspect", "compile"],
                         "tensor 0 'logits': 2147483648 elements, more than the 2147483647"),
    "const_input": (add_f32(x_const=True), ["inspect", "compile", "run"],
                    "graph input 0: tensor 'x' has constant data (16 bytes)"),
    "no_outputs": (add_f32(outputs=[]), ["inspect", "compile", "run"], "the graph has no outputs"),
    "interp_too_big": (interp_too_big(), ["run"],
                       "(the largest tensor is 'big1', 8589934588 bytes), more than its limit of 17179869184 bytes"),
}


def main():
    for old in HERE.glob("*.tflite"):
        old.unlink()
    cases = {}
    for name, (m, inputs, resolver, what) in NUMERIC.items():
        (HERE / f"{name}.tflite").write_bytes(pack(m))
        cases[name] = {"kind": "numeric", "inputs": inputs, "resolver": resolver, "what": what}
    for name, (m, commands, message) in REJECTED.items():
        (HERE / f"{name}.tflite").write_bytes(pack(m))
        cases[name] = {"kind": "rejected", "commands": commands, "message": message}
    (HERE / "cases.json").write_text(json.dumps(cases, indent=1, sort_keys=True) + "\n")
    print(f"wrote {len(cases)} models to {HERE}")


if __name__ == "__main__":
    main()
