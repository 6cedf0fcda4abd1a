"""Tiny TFLite models built with the schema's object API, for tests that need a layout the
converter does not write (sparse constants, shape inputs declared static)."""

import flatbuffers
from ai_edge_litert import schema_py_generated as S

OP = S.BuiltinOperator
TT = S.TensorType


def tensor(name, shape, dtype=TT.FLOAT32, buffer=0, signature=None):
    t = S.TensorT()
    t.name, t.shape, t.type, t.buffer = name.encode(), list(shape), dtype, buffer
    t.shapeSignature = list(signature) if signature is not None else None
    return t


def operator(opcode_index, inputs, outputs, options_type=0, options=None):
    o = S.OperatorT()
    o.opcodeIndex, o.inputs, o.outputs = opcode_index, list(inputs), list(outputs)
    o.builtinOptionsType, o.builtinOptions = options_type, options
    return o


def buffer(data=b""):
    b = S.BufferT()
    b.data = list(data) if data else None
    return b


def model(tensors, ops, codes, buffers, inputs, outputs):
    """A one-subgraph model; codes are builtin operator codes or (code, version) (their index is the
    opcode_index)."""
    m = S.ModelT()
    m.version = 3
    m.operatorCodes = []
    for code in codes:
        code, version = code if isinstance(code, tuple) else (code, 1)
        oc = S.OperatorCodeT()
        oc.builtinCode, oc.deprecatedBuiltinCode, oc.version = code, min(code, 127), version
        m.operatorCodes.append(oc)
    sg = S.SubGraphT()
    sg.tensors, sg.operators = tensors, ops
    sg.inputs, sg.outputs = list(inputs), list(outputs)
    m.subgraphs = [sg]
    m.buffers = buffers
    return m


def pack(m):
    b = flatbuffers.Builder(4096)
    b.Finish(m.Pack(b), file_identifier=b"TFL3")
    return bytes(b.Output())
