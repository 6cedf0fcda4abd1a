"""The model builder of tests/fusion/make_fusion.py: a small graph described once (class Net) and
emitted as f32 or int8 TFLite FlatBuffers (int8 activation ranges calibrated with TFLite's reference
interpreter), plus the op helpers the cases share."""

import zlib
from pathlib import Path

import flatbuffers
import numpy as np
from ai_edge_litert import schema_py_generated as S
from ai_edge_litert.interpreter import Interpreter, OpResolverType

HERE = Path(__file__).resolve().parent
OP = S.BuiltinOperator
TT = S.TensorType
BO = S.BuiltinOptions
ACT = S.ActivationFunctionType
PAD = S.Padding
MAX_BYTES = 100 * 1024


def rng_for(key):
    return np.random.default_rng(zlib.crc32(key.encode()))


# ---- a graph, described once, emitted as f32 or int8 ----------------------------------------

class Net:
    """Tensors are dicts: kind input | weight | bias | int | act. `q` is the int8 quantization of
    inputs (given) and activations (calibrated, or copied from `same_as`)."""

    def __init__(self, name):
        self.name = name
        self.tensors = []
        self.ops = []
        self.inputs = []
        self.outputs = []

    def _add(self, **t):
        t.setdefault("q", None)
        self.tensors.append(t)
        return len(self.tensors) - 1

    def input(self, name, shape, q=(0.02, 0), dtype="f32"):
        i = self._add(kind="input", name=name, shape=list(shape), q=q, dtype=dtype)
        self.inputs.append(i)
        return i

    def weight(self, name, shape, std=None, channel_dim=None, gain=1.0):
        """Float weights ~ N(0, std * gain); int8: symmetric, per-channel along channel_dim (or
        per-tensor). gain > 1 pushes outputs past 6 so that RELU6 clamps."""
        r = rng_for(f"{self.name}/{name}")
        fan_in = int(np.prod(shape)) // (shape[channel_dim] if channel_dim is not None else shape[0])
        std = (std if std is not None else 1.0 / np.sqrt(max(fan_in, 1))) * gain
        w = (r.standard_normal(shape) * std).astype(np.float32)
        return self._add(kind="weight", name=name, shape=list(shape), data=w, channel_dim=channel_dim)

    def bias(self, name, n, x, w):
        r = rng_for(f"{self.name}/{name}")
        b = (r.standard_normal(n) * 0.2).astype(np.float32)
        return self._add(kind="bias", name=name, shape=[n], data=b, x=x, w=w)

    def ints(self, name, values):
        v = np.asarray(values, dtype=np.int32)
        return self._add(kind="int", name=name, shape=list(v.shape), data=v)

    def const(self, name, data, dtype="f32"):
        """A constant with given values (f32 or bool; f32-only models)."""
        v = np.asarray(data, dtype=np.float32 if dtype == "f32" else np.bool_)
        return self._add(kind="const", name=name, shape=list(v.shape), data=v, dtype=dtype)

    def act(self, name, shape, same_as=None, dtype="f32"):
        return self._add(kind="act", name=name, shape=list(shape), same_as=same_as, dtype=dtype)

    def op(self, code, ins, outs, opt_type=0, opts=None):
        self.ops.append((code, list(ins), list(outs), opt_type, opts))

    def output(self, *ts):
        self.outputs.extend(ts)

    # -- int8 numbers --
    def _wq(self, t):
        """(int8 weights, scales) of a weight tensor."""
        w, cd = t["data"], t["channel_dim"]
        if cd is None:
            scales = np.array([max(float(np.abs(w).max()), 1e-6) / 127.0], dtype=np.float32)
            q = np.clip(np.round(w / scales[0]), -127, 127).astype(np.int8)
        else:
            axes = tuple(a for a in range(w.ndim) if a != cd)
            scales = (np.maximum(np.abs(w).max(axis=axes), 1e-6) / 127.0).astype(np.float32)
            shp = [1] * w.ndim
            shp[cd] = -1
            q = np.clip(np.round(w / scales.reshape(shp)), -127, 127).astype(np.int8)
        return q, scales

    def _bq(self, t):
        """(int32 bias, scales) of a bias tensor."""
        xs = np.float32(self.tensors[t["x"]]["q"][0])
        _, ws = self._wq(self.tensors[t["w"]])
        scales = (xs * ws).astype(np.float32)  # one scale for per-tensor weights (TFLite reads params.scale)
        q = np.round(t["data"] / scales.astype(np.float64)).astype(np.int32)
        return q, scales

    def _resolve_same(self):
        for t in self.tensors:
            if t["kind"] == "act" and t["same_as"] is not None:
                src = self.tensors[t["same_as"]]
                assert src["q"] is not None, (self.name, t["name"])
                t["q"] = src["q"]

    # -- emitting --
    def build(self, int8, float_outputs=None):
        """Flatbuffer bytes. int8 True: the int8 model; False: the f32 model; None: the f32 model
        with the int8 model's weights dequantized (for calibration). float_outputs overrides the
        graph outputs."""
        dequant = int8 is None
        int8 = bool(int8)
        buffers = [S.BufferT()]
        tensors = []

        def add_buffer(arr):
            b = S.BufferT()
            b.data = np.frombuffer(np.ascontiguousarray(arr).tobytes(), dtype=np.uint8).copy()
            buffers.append(b)
            return len(buffers) - 1

        for t in self.tensors:
            st = S.TensorT()
            st.name = t["name"].encode()
            st.shape = list(t["shape"])
            st.buffer = 0
            st.type = TT.FLOAT32
            kind = t["kind"]
            if kind == "int":
                st.type = TT.INT32
                st.buffer = add_buffer(t["data"])
            elif kind == "const":
                st.type = TT.BOOL if t["dtype"] == "bool" else TT.FLOAT32
                st.buffer = add_buffer(t["data"])
            elif kind in ("input", "act") and t.get("dtype") == "bool":
                st.type = TT.BOOL
            elif kind == "weight":
                if int8 or dequant:
                    q, scales = self._wq(t)
                    if int8:
                        st.type = TT.INT8
                        st.buffer = add_buffer(q)
                        st.quantization = quant(scales, [0] * len(scales),
                                                t["channel_dim"] if t["channel_dim"] is not None else 0)
                    else:
                        shp = [1] * q.ndim
                        if t["channel_dim"] is not None:
                            shp[t["channel_dim"]] = -1
                        st.buffer = add_buffer((q.astype(np.float32) * scales.reshape(shp)).astype(np.float32))
                else:
                    st.buffer = add_buffer(t["data"])
            elif kind == "bias":
                if int8 or dequant:
                    q, scales = self._bq(t)
                    if int8:
                        st.type = TT.INT32
                        st.buffer = add_buffer(q)
                        st.quantization = quant(scales, [0] * len(scales), 0)
                    else:
                        st.buffer = add_buffer((q.astype(np.float64) * scales).astype(np.float32))
                else:
                    st.buffer = add_buffer(t["data"])
            elif int8:  # input / act
                st.type = TT.INT8
                s, z = t["q"]
                st.quantization = quant([s], [z], 0)
            tensors.append(st)

        codes, code_index, ops = [], {}, []
        for code, ins, outs, opt_type, opts in self.ops:
            if code not in code_index:
                code_index[code] = len(codes)
                c = S.OperatorCodeT()
                c.builtinCode = code
                c.deprecatedBuiltinCode = min(code, 127)
                c.version = 1
                codes.append(c)
            o = S.OperatorT()
            o.opcodeIndex = code_index[code]
            o.inputs = ins
            o.outputs = outs
            o.builtinOptionsType = opt_type
            o.builtinOptions = opts
            ops.append(o)

        sg = S.SubGraphT()
        sg.tensors = tensors
        sg.inputs = list(self.inputs)
        sg.outputs = list(float_outputs if float_outputs is not None else self.outputs)
        sg.operators = ops
        sg.name = b"main"
        m = S.ModelT()
        m.version = 3
        m.description = b"mpcc fusion/scheduling test"
        m.operatorCodes = codes
        m.subgraphs = [sg]
        m.buffers = buffers
        b = flatbuffers.Builder(4096)
        b.Finish(m.Pack(b), file_identifier=b"TFL3")
        return bytes(b.Output())

    def calibrate(self):
        """Sets q of every activation without same_as from the float graph's observed range."""
        self._resolve_same()
        todo = [i for i, t in enumerate(self.tensors) if t["kind"] == "act" and t["q"] is None]
        if not todo:
            return
        data = self.build(None, float_outputs=todo)
        # Reference kernels: the calibration (hence every int8 scale) must not depend on the
        # machine's optimized kernels.
        interp = Interpreter(model_content=data, experimental_op_resolver_type=OpResolverType.BUILTIN_REF)
        interp.allocate_tensors()
        r = rng_for(self.name + "/calibration")
        lo = np.full(len(todo), np.inf)
        hi = np.full(len(todo), -np.inf)
        for _ in range(8):
            for d, i in zip(interp.get_input_details(), self.inputs):
                s, z = self.tensors[i]["q"]
                qv = r.integers(-128, 127, size=tuple(d["shape"]), endpoint=True)
                interp.set_tensor(d["index"], ((qv - z) * s).astype(np.float32))
            interp.invoke()
            for k, d in enumerate(interp.get_output_details()):
                v = interp.get_tensor(d["index"])
                lo[k] = min(lo[k], float(v.min()))
                hi[k] = max(hi[k], float(v.max()))
        for k, i in enumerate(todo):
            a, b = min(lo[k], 0.0), max(hi[k], 0.0)
            if b - a < 1e-6:
                b = a + 1e-6
            scale = float(np.float32((b - a) / 255.0))
            zp = int(np.clip(np.round(-128 - a / scale), -128, 127))
            self.tensors[i]["q"] = (scale, zp)
        self._resolve_same()


def quant(scales, zero_points, dim):
    q = S.QuantizationParametersT()
    q.scale = [float(s) for s in scales]
    q.zeroPoint = [int(z) for z in zero_points]
    q.quantizedDimension = int(dim)
    return q


# ---- op helpers -------------------------------------------------------------------------------

def transpose(n, x, perm, name):
    shape = [n.tensors[x]["shape"][p] for p in perm]
    p = n.ints(name + ".perm", perm)
    y = n.act(name, shape, same_as=x)
    n.op(OP.TRANSPOSE, [x, p], [y], BO.TransposeOptions, S.TransposeOptionsT())
    return y


def batch_matmul(n, a, b, adj_x=False, adj_y=False, name="out"):
    la, lb = n.tensors[a]["shape"], n.tensors[b]["shape"]
    m = la[-1] if adj_x else la[-2]
    k = la[-2] if adj_x else la[-1]
    kb = lb[-1] if adj_y else lb[-2]
    nn = lb[-2] if adj_y else lb[-1]
    assert k == kb, (n.name, la, lb)
    br = max(len(la), len(lb)) - 2
    pa = [1] * (br - (len(la) - 2)) + la[:-2]
    pb = [1] * (br - (len(lb) - 2)) + lb[:-2]
    batch = [max(x, y) for x, y in zip(pa, pb)]
    out = n.act(name, batch + [m, nn])
    o = S.BatchMatMulOptionsT()
    o.adjX, o.adjY = adj_x, adj_y
    n.op(OP.BATCH_MATMUL, [a, b], [out], BO.BatchMatMulOptions, o)
    return out


def add(n, a, b, shape, name):
    out = n.act(name, shape)
    n.op(OP.ADD, [a, b], [out], BO.AddOptions, S.AddOptionsT())
    return out
