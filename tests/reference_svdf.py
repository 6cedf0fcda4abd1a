"""An independent reference for the integer SVDF, for the variant the LiteRT interpreter cannot run:
TFLite Micro's 8-bit SVDF (int8 weights_time and state, the state with a zero point). A plain
transcription of the semantics of TFLM's EvalIntegerSvdfReference (tflite-micro, kernels/
svdf_common.cc) in numpy, int16 variant included (it must equal the interpreter there):

  - effective scales in float32 arithmetic (the kernels multiply the tensors' float scales):
    s1 = in_scale * wf_scale / state_scale, s2 = state_scale * wt_scale / out_scale, each
    turned into a Q31 multiplier and shift by QuantizeMultiplier;
  - each step shifts the state left by one, writes clamp(MBQM(sum wf*(x - in_zp), s1) + state_zp)
    into each filter's last slot, sums wt*(state - state_zp) over memory, adds the bias and the
    rank filters of each unit, and writes clamp(MBQM(acc, s2) + out_zp) as int8.

Used as a sidecar "reference": "tflm_svdf" (tests/oracle.py)."""

import math

import numpy as np


def quantize_multiplier(x):
    if x == 0.0:
        return 0, 0
    m, e = math.frexp(x)
    q = int(round(m * (1 << 31)))
    if q == 1 << 31:
        q //= 2
        e += 1
    return q, e


def srdhm(a, b):
    """SaturatingRoundingDoublingHighMul on int64 numpy arrays."""
    ab = a.astype(np.int64) * np.int64(b)
    nudge = np.where(ab >= 0, 1 << 30, 1 - (1 << 30))
    r = (ab + nudge)
    q = np.where(r >= 0, r >> 31, -((-r) >> 31))  # division truncating toward zero
    return np.where((a == -(1 << 31)) & (b == -(1 << 31)), (1 << 31) - 1, q)


def rdbp(x, e):
    mask = (1 << e) - 1
    rem = x & mask
    thr = (mask >> 1) + np.where(x < 0, 1, 0)
    return (x >> e) + np.where(rem > thr, 1, 0)


def mbqm(x, mult, shift):
    left, right = max(shift, 0), max(-shift, 0)
    return rdbp(srdhm(np.asarray(x, np.int64) * (1 << left), mult), right)


def wrap32(x):
    return ((np.asarray(x, np.int64) + (1 << 31)) % (1 << 32)) - (1 << 31)


class Svdf:
    def __init__(self, model_path):
        from ai_edge_litert import schema_py_generated as S
        m = S.ModelT.InitFromPackedBuf(open(model_path, "rb").read(), 0)
        sg = m.subgraphs[0]
        op = sg.operators[0]
        t = [sg.tensors[i] for i in op.inputs] + [sg.tensors[op.outputs[0]]]
        dt = {S.TensorType.INT8: np.int8, S.TensorType.INT16: np.int16, S.TensorType.INT32: np.int32}

        def data(x):
            return np.frombuffer(bytes(m.buffers[x.buffer].data), dt[x.type]).reshape(x.shape)
        self.wf, self.wt = data(t[1]).astype(np.int64), data(t[2]).astype(np.int64)
        self.bias = data(t[3]).astype(np.int64) if op.inputs[3] >= 0 else np.zeros(self.wf.shape[0])
        self.state_type = dt[t[4].type]
        q = [(np.float32(x.quantization.scale[0]), int(x.quantization.zeroPoint[0])) for x in t]
        (in_s, self.in_z), (wf_s, _), (wt_s, _), _, (st_s, self.st_z), (out_s, self.out_z) = q
        self.m1 = quantize_multiplier(float(np.float32(in_s * wf_s) / st_s))
        self.m2 = quantize_multiplier(float(np.float32(st_s * wt_s) / out_s))
        self.rank = op.builtinOptions.rank
        self.batch, self.memory = t[0].shape[0], self.wt.shape[1]
        self.state = np.full((self.batch, self.wf.shape[0] * self.memory), self.st_z if self.state_type == np.int8 else 0,
                             np.int64)

    def step(self, x):
        info = np.iinfo(self.state_type)
        f, mem = self.wf.shape[0], self.memory
        s = self.state.reshape(-1)
        s[:-1] = s[1:].copy()
        s = s.reshape(self.batch, f, mem)
        dot = wrap32((x.astype(np.int64) - self.in_z) @ self.wf.T)
        s[:, :, mem - 1] = np.clip(mbqm(dot, *self.m1) + self.st_z, info.min, info.max)
        self.state = s.reshape(self.batch, -1)
        acc = wrap32(((s - self.st_z) * self.wt[None]).sum(axis=2))
        units = wrap32(acc.reshape(self.batch, -1, self.rank).sum(axis=2) + self.bias[None])
        return np.clip(mbqm(units, *self.m2) + self.out_z, -128, 127).astype(np.int8)


class Interpreter:
    """The parts of the LiteRT Interpreter API the oracle uses, running Svdf: a drop-in for a
    one-SVDF model (the state persists across invoke() calls, as in TFLite)."""

    def __init__(self, model_path):
        from ai_edge_litert import schema_py_generated as S
        m = S.ModelT.InitFromPackedBuf(open(model_path, "rb").read(), 0)
        sg = m.subgraphs[0]
        self._svdf = Svdf(model_path)
        self._tensors = sg.tensors
        self._op = sg.operators[0]
        self._in, self._out = int(sg.inputs[0]), int(sg.outputs[0])
        self._values = {}

    def _details(self, i):
        t = self._tensors[i]
        q = t.quantization
        return {"name": t.name.decode(), "index": i, "shape": np.array(t.shape, np.int32),
                "dtype": np.int8, "quantization": (float(q.scale[0]), int(q.zeroPoint[0]))}

    def get_input_details(self):
        return [self._details(self._in)]

    def get_output_details(self):
        return [self._details(self._out)]

    def get_tensor_details(self):
        return [self._details(i) for i in (self._in, self._out)]

    def _get_ops_details(self):
        return [{"op_name": "SVDF", "inputs": list(self._op.inputs), "outputs": list(self._op.outputs)}]

    def allocate_tensors(self):
        pass

    def set_tensor(self, index, value):
        self._values[index] = np.array(value)

    def invoke(self):
        self._values[self._out] = self._svdf.step(self._values[self._in])

    def get_tensor(self, index):
        return self._values[index]
