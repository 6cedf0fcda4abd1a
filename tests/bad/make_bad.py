"""Writes tests/bad/*.tflite: hand-made malformed or hostile models, and tests/bad/cases.txt.

Each case is a small valid model (built with the TFLite schema's object API) that is then broken,
either in the object tree before packing or byte by byte after. cases.txt lists, per file, what
`mpcc inspect` must do (exit 1, or exit 0 when inspect only reports the problem, as it does for
unsupported operators) and a substring the error message must contain; `mpcc FILE -o OUT.c` must
always exit 1 with that substring. tests/test_bad_inputs.py runs them.

Run: .venv/bin/python tests/bad/make_bad.py   (rewrites every file; the output is deterministic)
"""

import struct
from pathlib import Path

import flatbuffers
from ai_edge_litert import schema_py_generated as S

HERE = Path(__file__).resolve().parent
OP = S.BuiltinOperator
TT = S.TensorType


# ---- building valid models -------------------------------------------------------------------

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


def opcode(code, custom=None):
    c = S.OperatorCodeT()
    c.builtinCode = code
    c.deprecatedBuiltinCode = min(code, 127)
    c.version = 1
    if custom is not None:
        c.customCode = custom.encode()
    return c


def operator(opcode_index, inputs, outputs, options_type=0, options=None):
    o = S.OperatorT()
    o.opcodeIndex = opcode_index
    o.inputs = list(inputs)
    o.outputs = list(outputs)
    o.builtinOptionsType = options_type
    o.builtinOptions = options
    return o


def quant(scales, zero_points, dim=0):
    q = S.QuantizationParametersT()
    q.scale = list(scales)
    q.zeroPoint = list(zero_points)
    q.quantizedDimension = dim
    return q


def model(tensors, ops, codes, buffers, inputs, outputs):
    m = S.ModelT()
    m.version = 3
    m.description = b"mpcc bad-input test"
    m.operatorCodes = codes
    sg = S.SubGraphT()
    sg.tensors = tensors
    sg.inputs = list(inputs)
    sg.outputs = list(outputs)
    sg.operators = ops
    sg.name = b"main"
    m.subgraphs = [sg]
    m.buffers = buffers
    return m


def add_model():
    """y = x + c, f32 [1,4]; c is a constant in buffer 1."""
    c = struct.pack("<4f", 1.0, 2.0, 3.0, 4.0)
    tensors = [tensor("x", [1, 4]), tensor("c", [1, 4], buffer=1), tensor("y", [1, 4])]
    ops = [operator(0, [0, 1], [2], S.BuiltinOptions.AddOptions, S.AddOptionsT())]
    return model(tensors, ops, [opcode(OP.ADD)], [buffer(), buffer(c)], [0], [2])


def chain_model():
    """h = x + c; y = h + c (two ops, for graph-structure cases)."""
    m = add_model()
    sg = m.subgraphs[0]
    sg.tensors.append(tensor("h", [1, 4]))
    sg.operators = [operator(0, [0, 1], [3], S.BuiltinOptions.AddOptions, S.AddOptionsT()),
                    operator(0, [3, 1], [2], S.BuiltinOptions.AddOptions, S.AddOptionsT())]
    return m


def fc_int8_model():
    """Per-channel int8 FULLY_CONNECTED: x [1,4] i8, w [3,4] i8 (3 output channels), b [3] i32."""
    w = bytes(range(12))
    b = struct.pack("<3i", 1, 2, 3)
    tensors = [
        tensor("x", [1, 4], TT.INT8, quant=quant([0.5], [0])),
        tensor("w", [3, 4], TT.INT8, buffer=1, quant=quant([0.1, 0.2, 0.3], [0, 0, 0], dim=0)),
        tensor("b", [3], TT.INT32, buffer=2, quant=quant([0.05, 0.1, 0.15], [0, 0, 0])),
        tensor("y", [1, 3], TT.INT8, quant=quant([1.0], [0])),
    ]
    opts = S.FullyConnectedOptionsT()
    ops = [operator(0, [0, 1, 2], [3], S.BuiltinOptions.FullyConnectedOptions, opts)]
    return model(tensors, ops, [opcode(OP.FULLY_CONNECTED)], [buffer(), buffer(w), buffer(b)], [0], [3])


def if_custom_model():
    """y = IF(cond, x): subgraph 1 (then) is a CUSTOM 'Frob' op, subgraph 2 (else) an ADD of a
    constant. For inspect: a histogram over every subgraph, unsupported ops named per subgraph."""
    c = struct.pack("<4f", 1.0, 2.0, 3.0, 4.0)
    tensors = [tensor("cond", [1], TT.BOOL), tensor("x", [1, 4]), tensor("y", [1, 4])]
    opts = S.IfOptionsT()
    opts.thenSubgraphIndex, opts.elseSubgraphIndex = 1, 2
    codes = [opcode(OP.IF), opcode(OP.CUSTOM, "Frob"), opcode(OP.ADD)]
    m = model(tensors, [operator(0, [0, 1], [2], S.BuiltinOptions.IfOptions, opts)], codes,
              [buffer(), buffer(c)], [0, 1], [2])
    then_sg = S.SubGraphT()
    then_sg.name = b"then"
    then_sg.tensors = [tensor("t_x", [1, 4]), tensor("t_y", [1, 4])]
    then_sg.inputs, then_sg.outputs = [0], [1]
    then_sg.operators = [operator(1, [0], [1])]
    else_sg = S.SubGraphT()
    else_sg.name = b"else"
    else_sg.tensors = [tensor("e_x", [1, 4]), tensor("e_c", [1, 4], buffer=1), tensor("e_y", [1, 4])]
    else_sg.inputs, else_sg.outputs = [0], [2]
    else_sg.operators = [operator(2, [0, 1], [2], S.BuiltinOptions.AddOptions, S.AddOptionsT())]
    m.subgraphs += [then_sg, else_sg]
    return pack(m)


def pack(m):
    b = flatbuffers.Builder(1024)
    b.Finish(m.Pack(b), file_identifier=b"TFL3")
    return bytes(b.Output())


# ---- byte-level helpers ----------------------------------------------------------------------

def u32(data, at):
    return struct.unpack_from("<I", data, at)[0]


def root_table(data):
    """(table position, vtable position) of the root table."""
    pos = u32(data, 0)
    soff = struct.unpack_from("<i", data, pos)[0]
    return pos, pos - soff


def field_pos(data, table, field):
    """Byte position of field `field` of the table at `table` (0 if absent)."""
    vt = table - struct.unpack_from("<i", data, table)[0]
    vt_size = struct.unpack_from("<H", data, vt)[0]
    slot = 4 + 2 * field
    if slot + 2 > vt_size:
        return 0
    off = struct.unpack_from("<H", data, vt + slot)[0]
    return table + off if off else 0


def deref(data, at):
    return at + u32(data, at)


def patch(data, at, fmt, value):
    b = bytearray(data)
    struct.pack_into(fmt, b, at, value)
    return bytes(b)


MODEL_SUBGRAPHS, MODEL_DESCRIPTION, MODEL_BUFFERS = 2, 3, 4
SUBGRAPH_TENSORS = 0
TENSOR_SHAPE, TENSOR_NAME = 0, 3


def first_tensor(data):
    _, _ = root_table(data)
    root = u32(data, 0)
    subs = deref(data, field_pos(data, root, MODEL_SUBGRAPHS))
    sg = deref(data, subs + 4)
    tens = deref(data, field_pos(data, sg, SUBGRAPH_TENSORS))
    return deref(data, tens + 4)


# ---- the cases -------------------------------------------------------------------------------

CASES = []  # (file name, inspect exit status, substring)


def case(name, data, substring, inspect_rc=1):
    (HERE / name).write_bytes(data)
    CASES.append((name, inspect_rc, substring))


def mutated(build, change):
    m = build()
    change(m)
    return pack(m)


def main():
    for p in HERE.glob("*.tflite"):
        p.unlink()
    good = pack(add_model())
    root, vtable = root_table(good)

    # Files and containers.
    case("empty.tflite", b"", "buffer is 0 bytes, expected at least 8")
    case("tiny.tflite", b"TFL3", "buffer is 4 bytes, expected at least 8")
    case("truncated.tflite", good[: len(good) // 2], "points outside the buffer")
    case("wrong_identifier.tflite", good[:4] + b"ONNX" + good[8:], "file identifier is 'ONNX', expected 'TFL3'")
    case("not_flatbuffer.tflite", b"\x89PNG\r\n\x1a\n" + bytes(64), "file identifier is '\\x0d\\x0a\\x1a\\x0a', expected 'TFL3'")
    case("root_offset_out_of_range.tflite", patch(good, 0, "<I", 0x7FFFFFF0), "root table offset 2147483632 points outside")
    case("root_unaligned.tflite", patch(good, 0, "<I", root + 2), "table is not 4-byte aligned")
    case("vtable_outside.tflite", patch(good, root, "<i", -0x100000), "vtable offset points outside the buffer")
    case("vtable_size_overrun.tflite", patch(good, vtable, "<H", 0xFFFE), "vtable of 65534 bytes runs past the end")
    case("vtable_size_odd.tflite", patch(good, vtable, "<H", 5), "vtable size is 5, expected an even number")
    case("table_inline_overrun.tflite", patch(good, vtable + 2, "<H", 0xFFF0), "inline size 65520 runs past the end")
    subs_at = field_pos(good, root, MODEL_SUBGRAPHS)
    case("offset_out_of_range.tflite", patch(good, subs_at, "<I", 0x40000000), "vector offset 1073741824 points outside")
    case("vector_length_huge.tflite", patch(good, deref(good, subs_at), "<I", 0xFFFFFFFF),
         "vector of 4294967295 elements x 4 bytes runs past the end")
    name_at = deref(good, field_pos(good, first_tensor(good), TENSOR_NAME))
    case("string_not_terminated.tflite", patch(good, name_at + 4 + u32(good, name_at), "<B", 0x41),
         "string is not NUL-terminated")
    case("string_length_huge.tflite", patch(good, name_at, "<I", 0xFFFFFF00), "string of 4294967040 bytes plus its NUL")

    # Model-level fields.
    case("schema_version_2.tflite", mutated(add_model, lambda m: setattr(m, "version", 2)),
         "schema version 2, only version 3 is supported")
    case("zero_subgraphs.tflite", mutated(add_model, lambda m: setattr(m, "subgraphs", [])), "the model has no subgraphs")

    def sig_bad_subgraph(m):
        s = S.SignatureDefT()
        s.signatureKey = b"serving_default"
        s.subgraphIndex = 7
        m.signatureDefs = [s]
    case("signature_subgraph_out_of_range.tflite", mutated(add_model, sig_bad_subgraph),
         "signature 0 'serving_default': subgraph index 7 out of range (model has 1 subgraph)")

    def sig_bad_tensor(m):
        s = S.SignatureDefT()
        s.signatureKey = b"serving_default"
        tm = S.TensorMapT()
        tm.name = b"input"
        tm.tensorIndex = 42
        s.inputs = [tm]
        m.signatureDefs = [s]
    case("signature_tensor_out_of_range.tflite", mutated(add_model, sig_bad_tensor),
         "signature 0 'serving_default': input 'input' refers to tensor 42, but subgraph 0 has 3 tensors")

    # Tensors.
    def t0(m):
        return m.subgraphs[0].tensors[0]
    case("negative_dim.tflite", mutated(add_model, lambda m: setattr(t0(m), "shape", [1, -4])),
         "tensor 0 'x': dimension 1 is -4 (negative)")
    case("huge_dims.tflite", mutated(add_model, lambda m: setattr(t0(m), "shape", [2147483647] * 4)),
         "tensor 0 'x': size overflows")
    case("tensor_1e12_bytes.tflite",
         mutated(add_model, lambda m: setattr(t0(m), "shape", [1000000, 1000000]) or setattr(t0(m), "type", TT.INT8)),
         "tensor 0 'x': 1000000000000 elements, more than the 2147483647 that the kernels' int32 element counts hold")
    case("rank_9.tflite", mutated(add_model, lambda m: setattr(t0(m), "shape", [1] * 9)),
         "tensor 0 'x': rank 9 exceeds the maximum of 8")
    case("string_dtype.tflite", mutated(add_model, lambda m: setattr(t0(m), "type", TT.STRING)),
         "tensor 0 'x': dtype STRING (5) is not supported", inspect_rc=0)
    case("float64_dtype.tflite", mutated(add_model, lambda m: setattr(t0(m), "type", TT.FLOAT64)),
         "tensor 0 'x': dtype FLOAT64 (10) is not supported", inspect_rc=0)
    case("unknown_dtype.tflite", mutated(add_model, lambda m: setattr(t0(m), "type", 100)),
         "tensor 0 'x': dtype unknown (100) is not supported", inspect_rc=0)
    case("shape_signature_rank.tflite", mutated(add_model, lambda m: setattr(t0(m), "shapeSignature", [-1, 4, 1])),
         "shape_signature has rank 3 but shape has rank 2")

    def sparse(m):
        t0(m).sparsity = S.SparsityParametersT()
        t0(m).sparsity.traversalOrder = [0, 1]
    case("sparse_tensor.tflite", mutated(add_model, sparse),
         "tensor 0 'x': sparse storage is supported only for constants", inspect_rc=0)

    def sparse_const(index):
        """The constant c [1,4] stored CSR: values 1, 2 at columns 0 and `index` of row 0."""
        def f(m):
            c = m.subgraphs[0].tensors[1]
            c.sparsity = S.SparsityParametersT()
            c.sparsity.traversalOrder = [0, 1]
            dense, csr = S.DimensionMetadataT(), S.DimensionMetadataT()
            dense.format, dense.denseSize = S.DimensionType.DENSE, 1
            csr.format = S.DimensionType.SPARSE_CSR
            seg, idx = S.Uint8VectorT(), S.Uint8VectorT()
            seg.values, idx.values = [0, 2], [0, index]
            csr.arraySegmentsType, csr.arraySegments = S.SparseIndexVector.Uint8Vector, seg
            csr.arrayIndicesType, csr.arrayIndices = S.SparseIndexVector.Uint8Vector, idx
            c.sparsity.dimMetadata = [dense, csr]
            m.buffers[1].data = list(struct.pack("<2f", 1.0, 2.0))
        return f
    case("sparse_index_out_of_range.tflite", mutated(add_model, sparse_const(7)),
         "tensor 1 'c': sparse format: an index is out of range for its dimension", inspect_rc=0)
    case("missing_buffer.tflite", mutated(add_model, lambda m: setattr(m.subgraphs[0].tensors[1], "buffer", 99)),
         "tensor 'c': buffer index 99 out of range (model has 2 buffers)")
    case("buffer_size_mismatch.tflite", mutated(add_model, lambda m: setattr(m.buffers[1], "data", [0, 0, 0])),
         "tensor 1 'c': buffer 1 has 3 bytes but shape x dtype needs 16")

    def ext_buffer(m):
        m.buffers[1].data = None
        m.buffers[1].offset = 1 << 40
        m.buffers[1].size = 16
    case("buffer_offset_out_of_range.tflite", mutated(add_model, ext_buffer),
         "tensor 'c': buffer 1 data at byte 1099511627776 + 16 bytes runs past the end of the file")

    # Quantization.
    def fcq(i):
        return lambda m: m.subgraphs[0].tensors[i].quantization
    case("per_channel_scale_count.tflite",
         mutated(fc_int8_model, lambda m: setattr(fcq(1)(m), "scale", [0.1, 0.2]) or setattr(fcq(1)(m), "zeroPoint", [0, 0])),
         "tensor 1 'w': 2 per-channel scales but dimension 0 has 3 channels")
    case("zero_point_count.tflite", mutated(fc_int8_model, lambda m: setattr(fcq(1)(m), "zeroPoint", [0])),
         "tensor 'w': 3 quantization scales but 1 zero points")
    case("quantized_dimension_out_of_range.tflite",
         mutated(fc_int8_model, lambda m: setattr(fcq(1)(m), "quantizedDimension", 5)),
         "tensor 1 'w': quantized_dimension 5 out of range for rank 2")
    case("quant_scale_zero.tflite", mutated(fc_int8_model, lambda m: setattr(fcq(0)(m), "scale", [0.0])),
         "tensor 0 'x': quantization scale[0] = 0 is not a positive finite number")
    case("zero_point_out_of_range.tflite", mutated(fc_int8_model, lambda m: setattr(fcq(0)(m), "zeroPoint", [300])),
         "tensor 0 'x': zero_point[0] = 300 is out of range for i8 (-128..127)")
    case("quant_scale_nan.tflite", mutated(fc_int8_model, lambda m: setattr(fcq(0)(m), "scale", [float("nan")])),
         "tensor 0 'x': quantization scale[0] = nan is not a positive finite number")

    def custom_details(m):
        cq = S.CustomQuantizationT()
        cq.custom = [1, 2, 3]
        fcq(0)(m).detailsType = S.QuantizationDetails.CustomQuantization
        fcq(0)(m).details = cq
    case("custom_quant_details.tflite", mutated(fc_int8_model, custom_details),
         "tensor 'x': custom quantization details are not supported", inspect_rc=0)

    # Operators and graph structure.
    def op0(m):
        return m.subgraphs[0].operators[0]
    case("opcode_index_out_of_range.tflite", mutated(add_model, lambda m: setattr(op0(m), "opcodeIndex", 5)),
         "operator 0: opcode_index 5 out of range (model has 1 operator codes)")
    case("tensor_index_out_of_range.tflite", mutated(add_model, lambda m: setattr(op0(m), "inputs", [0, 99])),
         "operator 0: tensor index 99 at position 1 is out of range (subgraph has 3 tensors)")
    case("output_index_negative.tflite", mutated(add_model, lambda m: setattr(op0(m), "outputs", [-1])),
         "operator 0: tensor index -1 at position 0 is out of range")
    case("too_many_op_inputs.tflite", mutated(add_model, lambda m: setattr(op0(m), "inputs", [0] * 2000)),
         "operator 0: 2000 tensor indices is too many")
    case("graph_input_out_of_range.tflite", mutated(add_model, lambda m: setattr(m.subgraphs[0], "inputs", [7])),
         "subgraph 0 inputs: tensor index 7 at position 0 is out of range")
    case("graph_output_out_of_range.tflite", mutated(add_model, lambda m: setattr(m.subgraphs[0], "outputs", [-3])),
         "subgraph 0 outputs: tensor index -3 at position 0 is out of range")

    def cycle(m):
        ops = m.subgraphs[0].operators
        ops[0].inputs = [2, 1]  # h = y + c, y = h + c
    case("cyclic_graph.tflite", mutated(chain_model, cycle),
         "operator 0 (ADD): input 0 tensor 'y' is used before it is defined")
    case("use_before_define.tflite", mutated(chain_model, lambda m: m.subgraphs[0].operators.reverse()),
         "operator 0 (ADD): input 0 tensor 'h' is used before it is defined")
    case("output_written_twice.tflite", mutated(chain_model, lambda m: setattr(m.subgraphs[0].operators[1], "outputs", [3])),
         "operator 1 (ADD): output 0 tensor 'h' is already written by another operator")
    case("writes_constant.tflite", mutated(add_model, lambda m: setattr(op0(m), "outputs", [1])),
         "operator 0 (ADD): output 0 tensor 'c' is a constant")
    case("writes_graph_input.tflite", mutated(add_model, lambda m: setattr(op0(m), "outputs", [0])),
         "operator 0 (ADD): output 0 tensor 'x' is a graph input or state")
    case("output_never_computed.tflite", mutated(add_model, lambda m: setattr(m.subgraphs[0], "operators", [])),
         "graph output 0: tensor 'y' is never computed")
    case("shape_mismatch.tflite", mutated(add_model, lambda m: setattr(m.subgraphs[0].tensors[2], "shape", [1, 5])),
         "operator 0 (ADD): output 0 tensor 'y' has shape [1,5] f32 in the model, but the inputs give [1,4]", inspect_rc=0)
    case("wrong_dtype.tflite", mutated(add_model, lambda m: setattr(m.subgraphs[0].tensors[0], "type", TT.BOOL)),
         "operator 0 (ADD): input 0 tensor 'x' has dtype bool, expected f32", inspect_rc=0)
    case("wrong_input_count.tflite", mutated(add_model, lambda m: setattr(op0(m), "inputs", [0])),
         "operator 0 (ADD): expected 2 inputs, got 1", inspect_rc=0)

    def reshape_model():
        """y = RESHAPE(x) to new_shape [2^30, 2^30, 2^30, -1]: the known dimensions' product overflows 64 bits."""
        o = S.ReshapeOptionsT()
        o.newShape = [1 << 30, 1 << 30, 1 << 30, -1]
        tensors = [tensor("x", [1, 4]), tensor("y", [1, 4])]
        ops = [operator(0, [0], [1], S.BuiltinOptions.ReshapeOptions, o)]
        return model(tensors, ops, [opcode(OP.RESHAPE)], [buffer()], [0], [1])
    case("reshape_shape_overflow.tflite", pack(reshape_model()),
         "operator 0 (RESHAPE): new_shape: the product of its dimensions overflows", inspect_rc=0)

    # complex64: only RFFT2D makes it and only a few ops read it (op_accepts_complex); anything else is named.
    def rfft_model(fft=(4, 8), then=None):
        """f = RFFT2D(x [1,4,8], fft_length) (complex64 [1,4,5]); y = REAL(f), or `then`'s op on f first."""
        tensors = [tensor("x", [1, 4, 8]), tensor("len", [2], TT.INT32, buffer=1),
                   tensor("f", [1, fft[0], fft[1] // 2 + 1], TT.COMPLEX64), tensor("y", [1, fft[0], fft[1] // 2 + 1])]
        codes = [opcode(OP.RFFT2D), opcode(OP.REAL)]
        ops = [operator(0, [0, 1], [2]), operator(1, [2], [3])]
        if then is not None:  # f -> then -> g (complex64) -> REAL
            tensors.append(tensor("g", [1, fft[0], fft[1] // 2 + 1], TT.COMPLEX64))
            codes.append(opcode(then))
            ops = [ops[0], operator(2, [2, 2], [4]), operator(1, [4], [3])]
        return model(tensors, ops, codes, [buffer(), buffer(struct.pack("<2i", *fft))], [0], [3])
    case("complex_add.tflite", pack(rfft_model(then=OP.ADD)),
         "operator 1 (ADD): input 0 tensor 'f' is complex64, which ADD does not support", inspect_rc=0)
    case("complex_output.tflite", mutated(rfft_model, lambda m: setattr(m.subgraphs[0], "outputs", [2])),
         "subgraph 0 output 'f' is COMPLEX64: complex model inputs and outputs are not supported", inspect_rc=0)

    def complex_constant(m):
        m.subgraphs[0].tensors[2].buffer = 2
        m.buffers.append(buffer(bytes(8 * 20)))
    case("complex_constant.tflite", mutated(rfft_model, complex_constant),
         "tensor 2 'f': a constant COMPLEX64 tensor is not supported (only the results of RFFT2D)", inspect_rc=0)
    case("rfft2d_not_power_of_two.tflite", pack(rfft_model(fft=(4, 6))),
         "operator 0 (RFFT2D): fft_length[1] = 6 must be a power of two", inspect_rc=0)

    def int_op_model(code, specs):
        """y = OP(inputs...), all int32, y [1,4]; specs: (name, shape, values) per input, values None for
        a graph input, else a constant in its own buffer."""
        tensors, buffers, graph_inputs = [], [buffer()], []
        for i, (name, shape, values) in enumerate(specs):
            if values is not None:
                buffers.append(buffer(struct.pack(f"<{len(values)}i", *values)))
            else:
                graph_inputs.append(i)
            tensors.append(tensor(name, shape, TT.INT32, len(buffers) - 1 if values is not None else 0))
        tensors.append(tensor("y", [1, 4], TT.INT32))
        ops = [operator(0, range(len(specs)), [len(specs)])]
        return model(tensors, ops, [opcode(code)], buffers, graph_inputs, [len(specs)])
    case("floor_div_const_zero.tflite",
         pack(int_op_model(OP.FLOOR_DIV, [("x", [1, 4], None), ("c", [1, 4], [3, 0, -2, 5])])),
         "operator 0 (FLOOR_DIV): divisor tensor 'c' is a constant holding 0 at element 1", inspect_rc=0)
    case("range_runtime_limit.tflite",
         pack(int_op_model(OP.RANGE, [("start", [], [0]), ("limit", [], None), ("delta", [], [1])])),
         "operator 0 (RANGE): limit tensor 'limit' is computed at run time", inspect_rc=0)
    case("reverse_axis_out_of_range.tflite",
         pack(int_op_model(OP.REVERSE_V2, [("x", [1, 4], None), ("axis", [1], [5])])),
         "operator 0 (REVERSE_V2): axis 5 is out of range for rank 2", inspect_rc=0)

    # Unsupported operators (and ops failing their checks, above): inspect lists them and exits 0;
    # compiling fails.
    case("custom_op.tflite", mutated(add_model, lambda m: setattr(m, "operatorCodes", [opcode(OP.CUSTOM, "MyFancyOp")])),
         "custom operator 'MyFancyOp': 1 use (operator 0) and no kernel for it: give one with --custom-op "
         "MyFancyOp=FUNCTION", inspect_rc=0)
    case("unsupported_op.tflite", mutated(add_model, lambda m: setattr(m, "operatorCodes", [opcode(OP.LSH_PROJECTION)])),
         "operator 0: LSH_PROJECTION is not supported, output tensor 'y'", inspect_rc=0)
    case("unknown_builtin_code.tflite", mutated(add_model, lambda m: setattr(m, "operatorCodes", [opcode(9999)])),
         "operator 0: unknown builtin operator code 9999", inspect_rc=0)

    # Several subgraphs: inspect lists what each one uses (IF's branches here), with the subgraph.
    case("if_custom_branch.tflite", if_custom_model(),
         "subgraph 1: custom operator 'Frob': 1 use (operator 0) and no kernel for it", inspect_rc=0)

    lines = ["# file<TAB>exit status of `mpcc inspect`<TAB>substring of the message (compiling always exits 1)",
             "# generated by make_bad.py; do not edit"]
    lines += [f"{n}\t{rc}\t{s}" for n, rc, s in CASES]
    (HERE / "cases.txt").write_text("\n".join(lines) + "\n")
    print(f"wrote {len(CASES)} cases to {HERE}")


if __name__ == "__main__":
    main()
