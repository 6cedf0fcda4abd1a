"""A fast writer of large, uniform TFLite graphs (for the scale tests, tests/test_scale.py).

The object API of the TFLite schema takes minutes for 10^5..10^6 operators; these graphs are uniform
(every operator has the same opcode, options and input count), so the FlatBuffer is laid out here
directly, front to back, with numpy filling the per-operator records. Tensors that share shape,
dtype and buffer share one Tensor table (names are left out: mpcc names them "tensor<i>").

    data = write_graph(kinds, tensor_kind, inputs, outputs, opcode, op_inputs, op_outputs, buffers)

kinds: list of (shape, tflite dtype, buffer index); tensor_kind: int array, kind of each tensor;
op_inputs/op_outputs: int arrays [n_ops, k]; buffers: list of bytes (buffer 0 must be b"").
Every uoffset points forward, every table and vector is 4-byte aligned, constant data 16-byte aligned.
"""

import struct

import numpy as np

ADD_OPTIONS = 11  # BuiltinOptions.AddOptions


class _Out:
    def __init__(self):
        self.parts, self.pos = [], 0

    def put(self, b):
        at = self.pos
        self.parts.append(bytes(b))
        self.pos += len(b)
        return at

    def align(self, n, extra=0):
        pad = (-(self.pos + extra)) % n
        if pad:
            self.put(bytes(pad))

    def bytes(self):
        return b"".join(self.parts)


def _vtable(obj_size, fields):
    return struct.pack(f"<HH{len(fields)}H", 4 + 2 * len(fields), obj_size, *fields)


def _vec_i32(values):
    return struct.pack("<I", len(values)) + np.asarray(values, dtype="<i4").tobytes()


def write_graph(kinds, tensor_kind, inputs, outputs, opcode, op_inputs, op_outputs, buffers,
                options_type=ADD_OPTIONS):
    tensor_kind = np.asarray(tensor_kind, dtype=np.int64)
    op_inputs = np.asarray(op_inputs, dtype="<i4")
    op_outputs = np.asarray(op_outputs, dtype="<i4")
    n_t, n_ops = len(tensor_kind), len(op_inputs)
    k_in, k_out = op_inputs.shape[1], op_outputs.shape[1]
    o = _Out()
    patches = []  # (position of a uoffset field, key of its target)
    targets = {}

    def ref(key):  # a 4-byte uoffset to `key`, patched later
        patches.append((o.pos, key))
        return b"\0\0\0\0"

    o.put(b"\0\0\0\0TFL3")
    patches.append((0, "model"))
    vt = {}
    # Vtables first (tables point back to them with a positive soffset).
    vt["model"] = o.put(_vtable(20, [4, 8, 12, 0, 16]))        # version, opcodes, subgraphs, -, buffers
    o.align(2)
    vt["opcode"] = o.put(_vtable(12, [8, 0, 0, 4]))             # deprecated code (i8), -, -, builtin code
    vt["subgraph"] = o.put(_vtable(20, [4, 8, 12, 16]))         # tensors, inputs, outputs, operators
    vt["tensor"] = o.put(_vtable(16, [4, 12, 8]))               # shape, type (i8), buffer
    vt["op"] = o.put(_vtable(20, [0, 4, 8, 16, 12]))            # -, inputs, outputs, options type (u8), options
    vt["options"] = o.put(_vtable(4, []))
    vt["buffer"] = o.put(_vtable(8, [4]))                       # data
    vt["empty_buffer"] = vt["options"]

    def table(kind, body_fn):
        o.align(4)
        at = o.pos
        o.put(struct.pack("<i", at - vt[kind]))
        body_fn()
        return at

    targets["model"] = table("model", lambda: (o.put(struct.pack("<I", 3)), o.put(ref("opcodes")),
                                               o.put(ref("subgraphs")), o.put(ref("buffers"))))
    targets["opcodes"] = o.put(struct.pack("<I", 1)); o.put(ref("opcode"))
    targets["opcode"] = table("opcode", lambda: o.put(struct.pack("<ib3x", opcode, min(opcode, 127))))
    targets["subgraphs"] = o.put(struct.pack("<I", 1)); o.put(ref("subgraph"))
    targets["subgraph"] = table("subgraph", lambda: (o.put(ref("tensors")), o.put(ref("g_inputs")),
                                                     o.put(ref("g_outputs")), o.put(ref("operators"))))
    targets["g_inputs"] = o.put(_vec_i32(inputs))
    targets["g_outputs"] = o.put(_vec_i32(outputs))

    # The tensors vector: one uoffset per tensor to its kind's table (placed right after).
    targets["tensors"] = o.put(struct.pack("<I", n_t))
    vec_at = o.pos
    kinds_at = vec_at + 4 * n_t
    kind_size = 20 + 4 + 4 * 8  # table (16 used, padded) + shape vector of up to 8 dims
    kind_pos = kinds_at + kind_size * np.arange(len(kinds))
    entry_pos = vec_at + 4 * np.arange(n_t)
    o.put((kind_pos[tensor_kind] - entry_pos).astype("<u4").tobytes())
    for k, (shape, dtype, buf) in enumerate(kinds):
        assert o.pos == kind_pos[k] and len(shape) <= 8
        at = o.pos
        shape_at = at + 20
        rec = struct.pack("<iIIb3x4x", at - vt["tensor"], shape_at - (at + 4), buf, dtype)
        rec += _vec_i32(shape).ljust(4 + 4 * 8, b"\0")
        o.put(rec)

    # Operators: the vector, then fixed-size records (table, inputs vector, outputs vector),
    # then the one options table they all share.
    o.align(4)
    targets["operators"] = o.put(struct.pack("<I", n_ops))
    vec_at = o.pos
    rec_at = vec_at + 4 * n_ops
    rec_words = 5 + 1 + k_in + 1 + k_out
    rec_size = 4 * rec_words
    opts_at = rec_at + rec_size * n_ops
    starts = rec_at + rec_size * np.arange(n_ops, dtype=np.int64)
    o.put((starts - (vec_at + 4 * np.arange(n_ops, dtype=np.int64))).astype("<u4").tobytes())
    rec = np.zeros((n_ops, rec_words), dtype="<u4")
    rec[:, 0] = (starts - vt["op"]).astype(np.uint32)
    rec[:, 1] = 16                                  # inputs vector right after the 20-byte table
    rec[:, 2] = 16 + 4 * k_in                       # outputs vector after that
    rec[:, 3] = (opts_at - (starts + 12)).astype(np.uint32)
    rec[:, 4] = options_type
    rec[:, 5] = k_in
    rec[:, 6:6 + k_in] = op_inputs.astype(np.int64).astype(np.uint32)
    rec[:, 6 + k_in] = k_out
    rec[:, 7 + k_in:] = op_outputs.astype(np.int64).astype(np.uint32)
    o.put(rec.tobytes())
    assert o.pos == opts_at
    o.put(struct.pack("<i", opts_at - vt["options"]))

    # Buffers: buffer 0 empty, the others with 16-byte aligned data.
    targets["buffers"] = o.put(struct.pack("<I", len(buffers)))
    first = o.pos
    for i in range(len(buffers)):
        o.put(ref(f"buffer{i}"))
    assert first + 4 * len(buffers) == o.pos
    for i, data in enumerate(buffers):
        if not data:
            targets[f"buffer{i}"] = table("empty_buffer", lambda: None)
            continue
        targets[f"buffer{i}"] = table("buffer", lambda: o.put(ref(f"data{i}")))
        o.align(16, extra=4)
        targets[f"data{i}"] = o.put(struct.pack("<I", len(data)))
        o.put(data)
    o.align(4)
    out = bytearray(o.bytes())
    for at, key in patches:
        struct.pack_into("<I", out, at, targets[key] - at)
    return bytes(out)


F32, INT8, INT32 = 0, 9, 2
ADD = 0


def chain(n_ops, width=4):
    """y = ((x + c) + c) ... n_ops ADDs in a chain, f32 [1, width]."""
    c = np.arange(1, width + 1, dtype="<f4").tobytes()
    # tensors: 0 x, 1 c, 2.. t_i (t_{n_ops+1} is the output)
    kind = np.zeros(n_ops + 2, dtype=np.int64)
    kind[1] = 1
    ins = np.stack([np.r_[0, np.arange(2, n_ops + 1)], np.ones(n_ops, dtype=np.int64)], axis=1)
    outs = np.arange(2, n_ops + 2).reshape(-1, 1)
    kinds = [([1, width], F32, 0), ([1, width], F32, 1)]
    return write_graph(kinds, kind, [0], [n_ops + 1], ADD, ins, outs, [b"", c])


def live_set(n_live, width=4):
    """n_live tensors live at once: t_i = t_{i-1} + x for i = 1..n (t_0 = x), then
    s_1 = t_n + t_{n-1}, s_j = s_{j-1} + t_{n-j}: each t_i is read again in reverse order, so all of
    them are live when the second half starts. 2n ops, f32 [1, width] each."""
    n = n_live
    # tensors: 0 x, 1..n t_i, n+1..2n-1 s_j (s_{n-1} = last is the output... see below)
    kind = np.zeros(2 * n + 1, dtype=np.int64)
    a_in = np.stack([np.arange(0, n), np.zeros(n, dtype=np.int64)], axis=1)      # t_i = t_{i-1} + x
    a_out = np.arange(1, n + 1)
    # s_1 = t_n + t_{n-1}; s_j = s_{j-1} + t_{n-j}, j = 2..n ; s_j is tensor n + j
    j = np.arange(1, n + 1)
    lhs = np.where(j == 1, n, n + j - 1)
    rhs = n - j
    b_in = np.stack([lhs, rhs], axis=1)
    b_out = n + j
    ins = np.concatenate([a_in, b_in])
    outs = np.concatenate([a_out, b_out]).reshape(-1, 1)
    kinds = [([1, width], F32, 0)]
    return write_graph(kinds, kind, [0], [2 * n], ADD, ins, outs, [b""])
