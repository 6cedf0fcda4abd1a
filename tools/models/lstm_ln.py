"""lstm_ln: layer-norm LSTMs (UNIDIRECTIONAL_SEQUENCE_LSTM with the 4 layer-norm coefficient
inputs), written with the TFLite schema's object API.

The TF 2.21 converter fuses only Keras 2's plain LSTM into UNIDIRECTIONAL_SEQUENCE_LSTM; no layer
it accepts carries layer-norm coefficients, so these models are built here, the way TFLite's own
quantizer lays out a layer-norm LSTM (tensorflow/lite/tools/optimize/operator_property.cc):

    lstm_ln_f32 / lstm_ln_int8            input [1, 6, 8] batch-major, 12 units, input gate,
                                          peephole, no projection
    lstm_ln_cifg_f32 / lstm_ln_cifg_int8  input [6, 2, 8] time-major (2 batch rows go through the
                                          layer norm together), CIFG, no peephole (TFLite's integer
                                          peephole assumes n_output == n_cell), 16 cells projected
                                          to 8 outputs, cell and projection clipping

The int8 models are TFLite's fully integer 8x8->16 LSTM: int8 input, weights, output state and
output; int16 cell state with a power-of-two scale; int16 peephole and layer-norm coefficients
(symmetric); int32 gate biases at scale layer_norm_scale * 2^-10 (they are added inside the layer
norm); int32 projection bias at projection_weight_scale * hidden_scale. The operator's 5
`intermediates` carry the int16 scales of the 4 gate matmul outputs (the layer norm inputs) and the
int8 scale/zero point of the hidden o * tanh(c). Every scale comes from a float run of the same
weights (numpy, TFLite's float layer-norm LSTM) over random inputs, as a calibration gives them.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402

sys.path.insert(0, os.path.join(common.ROOT, "tests"))
import numpy as np  # noqa: E402
from schema_models import OP, TT, S, buffer, model, operator, pack, tensor  # noqa: E402

T_STEPS, N_INPUT = 6, 8
CONFIGS = {
    # name: batch, cells, outputs, cifg, peephole, projection, time_major, cell_clip, proj_clip
    "lstm_ln": dict(batch=1, n_cell=12, n_output=12, cifg=False, peep=True, proj=False, time_major=False,
                    cell_clip=0.0, proj_clip=0.0),
    "lstm_ln_cifg": dict(batch=2, n_cell=16, n_output=8, cifg=True, peep=False, proj=True, time_major=True,
                         cell_clip=1.5, proj_clip=0.5),
}
GATES = "ifco"  # input, forget, cell, output: TFLite's input order within each group


def quant(scale, zero_point=0):
    q = S.QuantizationParametersT()
    q.scale, q.zeroPoint = [float(scale)], [int(zero_point)]
    return q


def draw_weights(cfg, rng):
    nc, no = cfg["n_cell"], cfg["n_output"]
    w = {}
    for g in GATES:
        if g == "i" and cfg["cifg"]:
            continue
        w["W" + g] = rng.standard_normal((nc, N_INPUT)).astype(np.float32) * 0.5
        w["R" + g] = rng.standard_normal((nc, no)).astype(np.float32) * 0.4
        w["b" + g] = rng.standard_normal(nc).astype(np.float32) * 0.3
        if cfg.get("ln", True):
            w["L" + g] = rng.uniform(0.5, 1.5, nc).astype(np.float32)
        if cfg["peep"] and g != "c":
            w["P" + g] = rng.standard_normal(nc).astype(np.float32) * 0.3
    w["bf"] += 1.0  # the usual forget-gate bias: cells keep part of their state
    if cfg["proj"]:
        w["proj_w"] = rng.standard_normal((no, nc)).astype(np.float32) * 0.3
        w["proj_b"] = rng.standard_normal(no).astype(np.float32) * 0.05
    return w


def float_lstm(cfg, w, x, record=None):
    """TFLite's float layer-norm LSTM (lstm_eval.cc LstmStepFloat) on x [T, B, N_INPUT] (time-major
    here; the models' layout is applied by the caller). record: dict of lists collecting the gate
    pre-norm values, cell states, hidden o * tanh(c) and outputs, for the calibration."""
    n_t, nb = x.shape[0], x.shape[1]
    nc, no = cfg["n_cell"], cfg["n_output"]
    h = np.zeros((nb, no), np.float32)
    c = np.zeros((nb, nc), np.float32)
    out = np.zeros((n_t, nb, no), np.float32)

    def gate(g, act, cell):
        acc = x_t @ w["W" + g].T + h @ w["R" + g].T
        if cfg["peep"] and g != "c":
            acc = acc + w["P" + g] * cell
        if record is not None:
            record.setdefault("pre_" + g, []).append(acc)
        if ("L" + g) not in w:
            return act(acc + w["b" + g])
        mean = acc.mean(axis=1, keepdims=True)
        var = ((acc - mean) ** 2).mean(axis=1, keepdims=True)
        y = (acc - mean) / np.sqrt(var + 1e-8) * w["L" + g] + w["b" + g]
        return act(y)

    sig = lambda v: 0.5 + 0.5 * np.tanh(0.5 * v)  # noqa: E731  (no overflow for large |v|)
    for t in range(n_t):
        x_t = x[t]
        f = gate("f", sig, c)
        i = 1.0 - f if cfg["cifg"] else gate("i", sig, c)
        g = gate("c", np.tanh, None)
        c = f * c + i * g
        if cfg["cell_clip"] > 0:
            c = np.clip(c, -cfg["cell_clip"], cfg["cell_clip"])
        o = gate("o", sig, c)
        hidden = o * np.tanh(c)
        if cfg["proj"]:
            h = hidden @ w["proj_w"].T + w["proj_b"]
            if cfg["proj_clip"] > 0:
                h = np.clip(h, -cfg["proj_clip"], cfg["proj_clip"])
        else:
            h = hidden
        if record is not None:
            record.setdefault("cell", []).append(c)
            record.setdefault("hidden", []).append(hidden)
            record.setdefault("out", []).append(h)
        out[t] = h
    return out


def asym_int8(lo, hi):
    """TFLite's asymmetric int8 (scale, zero point) for a real range that includes 0."""
    lo, hi = min(lo, 0.0), max(hi, 0.0)
    scale = (hi - lo) / 255.0
    zp = int(np.clip(round(-128 - lo / scale), -128, 127))
    return scale, zp


def q32(a, scale):
    """int32 bias values (saturated: a hand-drawn scale may be far too small)."""
    return np.clip(np.round(np.asarray(a, np.float64) / scale), -2**31 + 1, 2**31 - 1).astype(np.int32)


def sym(a, bits):
    qmax = (1 << (bits - 1)) - 1
    scale = float(np.abs(a).max()) / qmax
    return scale, np.clip(np.round(a / scale), -qmax, qmax)


def build(name, variant, cfg, w, in_q, calib):
    nb, nc, no = cfg["batch"], cfg["n_cell"], cfg["n_output"]
    tm = cfg["time_major"]
    in_shape = [T_STEPS, nb, N_INPUT] if tm else [nb, T_STEPS, N_INPUT]
    out_shape = in_shape[:2] + [no]
    q8 = variant == "int8"
    tensors, buffers = [], [buffer()]
    inputs = [-1] * 24

    def add(tname, shape, dtype, data=None, q=None, variable=False):
        t = tensor(tname, shape, dtype, 0)
        if data is not None:
            t.buffer = len(buffers)
            buffers.append(buffer(np.ascontiguousarray(data).tobytes()))
        if q is not None:
            t.quantization = q
        t.isVariable = variable
        tensors.append(t)
        return len(tensors) - 1

    # Scales from the calibration run.
    hidden_s, hidden_zp = asym_int8(*calib["hidden"])
    out_s, out_zp = asym_int8(*calib["out"]) if cfg["proj"] else (hidden_s, hidden_zp)
    cell_log2 = max(0, int(np.ceil(np.log2(calib["cell"]))))
    cell_s = 2.0 ** (cell_log2 - 15)
    inputs[0] = add("input", in_shape, TT.INT8 if q8 else TT.FLOAT32, q=quant(*in_q) if q8 else None)
    for k, g in enumerate(GATES):
        if ("W" + g) not in w:
            continue
        if q8:
            s, qw = sym(w["W" + g], 8)
            inputs[1 + k] = add(f"input_to_{g}_w", [nc, N_INPUT], TT.INT8, qw.astype(np.int8), quant(s))
            s, qw = sym(w["R" + g], 8)
            inputs[5 + k] = add(f"recurrent_to_{g}_w", [nc, no], TT.INT8, qw.astype(np.int8), quant(s))
            if ("L" + g) in w:  # the bias is added inside the layer norm, in its units
                ln_scale, qw = sym(w["L" + g], 16)
                inputs[20 + k] = add(f"{g}_layer_norm", [nc], TT.INT16, qw.astype(np.int16), quant(ln_scale))
                bias_s = ln_scale * 2.0 ** -10
            else:  # the bias is added to the input matmul
                bias_s = in_q[0] * tensors[inputs[1 + k]].quantization.scale[0]
            inputs[12 + k] = add(f"{g}_bias", [nc], TT.INT32, q32(w["b" + g], bias_s), quant(bias_s))
            if ("P" + g) in w:
                s, qw = sym(w["P" + g], 16)
                inputs[9 + (2 if g == "o" else k)] = add(f"cell_to_{g}_w", [nc], TT.INT16, qw.astype(np.int16),
                                                         quant(s))
        else:
            inputs[1 + k] = add(f"input_to_{g}_w", [nc, N_INPUT], TT.FLOAT32, w["W" + g])
            inputs[5 + k] = add(f"recurrent_to_{g}_w", [nc, no], TT.FLOAT32, w["R" + g])
            if ("L" + g) in w:
                inputs[20 + k] = add(f"{g}_layer_norm", [nc], TT.FLOAT32, w["L" + g])
            inputs[12 + k] = add(f"{g}_bias", [nc], TT.FLOAT32, w["b" + g])
            if ("P" + g) in w:
                inputs[9 + (2 if g == "o" else k)] = add(f"cell_to_{g}_w", [nc], TT.FLOAT32, w["P" + g])
    if cfg["proj"]:
        if q8:
            s, qw = sym(w["proj_w"], 8)
            inputs[16] = add("projection_w", [no, nc], TT.INT8, qw.astype(np.int8), quant(s))
            inputs[17] = add("projection_b", [no], TT.INT32,
                             q32(w["proj_b"], s * hidden_s), quant(s * hidden_s))
        else:
            inputs[16] = add("projection_w", [no, nc], TT.FLOAT32, w["proj_w"])
            inputs[17] = add("projection_b", [no], TT.FLOAT32, w["proj_b"])
    inputs[18] = add("output_state", [nb, no], TT.INT8 if q8 else TT.FLOAT32,
                     q=quant(out_s, out_zp) if q8 else None, variable=True)
    inputs[19] = add("cell_state", [nb, nc], TT.INT16 if q8 else TT.FLOAT32,
                     q=quant(cell_s) if q8 else None, variable=True)
    out = add("output", out_shape, TT.INT8 if q8 else TT.FLOAT32, q=quant(out_s, out_zp) if q8 else None)
    intermediates = []
    if q8:
        for g in GATES:  # the gate matmul outputs, int16 symmetric (all 4, as the quantizer writes them)
            if "Lf" in w:
                lim = calib.get("pre_" + g, 1.0)
                intermediates.append(add(f"{g}_gate_intermediate", [0], TT.INT16, q=quant(lim / 32767.0)))
            else:  # Q3.12 without layer norm: unused, unquantized (as the converter writes them)
                intermediates.append(add(f"{g}_gate_intermediate", [0], TT.FLOAT32))
        intermediates.append(add("effective_hidden_scale_intermediate", [0], TT.INT8, q=quant(hidden_s, hidden_zp)))

    opts = S.UnidirectionalSequenceLSTMOptionsT()
    opts.fusedActivationFunction = S.ActivationFunctionType.TANH
    opts.cellClip, opts.projClip, opts.timeMajor = cfg["cell_clip"], cfg["proj_clip"], tm
    op = operator(0, inputs, [out], S.BuiltinOptions.UnidirectionalSequenceLSTMOptions, opts)
    op.intermediates = intermediates or None
    m = model(tensors, [op], [OP.UNIDIRECTIONAL_SEQUENCE_LSTM], buffers, [inputs[0]], [out])
    m.description = f"mpcc zoo: layer-norm LSTM {name}_{variant} (schema-built, see tools/models/lstm_ln.py)".encode()
    return pack(m)


def calibrate(cfg, w, rng):
    """Real ranges of the gate pre-norm sums, cell state, hidden and output over random sequences."""
    rec = {}
    for _ in range(16):
        x = rng.uniform(-1.0, 1.0, (T_STEPS, cfg["batch"], N_INPUT)).astype(np.float32)
        float_lstm(cfg, w, x, rec)
    calib = {k: float(np.abs(np.concatenate(v)).max()) for k, v in rec.items() if k.startswith("pre_")}
    calib["cell"] = float(np.abs(np.concatenate(rec["cell"])).max())
    for k in ("hidden", "out"):
        a = np.concatenate(rec[k])
        calib[k] = (float(a.min()), float(a.max()))
    return calib


def main():
    common.family_args()
    for seed_off, (name, cfg) in enumerate(CONFIGS.items()):
        rng = np.random.default_rng(common.SEED + 40 + seed_off)
        w = draw_weights(cfg, rng)
        calib = calibrate(cfg, w, rng)
        # Inputs live in [-1, 1): an asymmetric int8 input with a nonzero zero point.
        in_q = (2.0 / 255.0, -1)
        for variant in ("f32", "int8"):
            path = os.path.join(common.TESTS_MODELS, f"{name}_{variant}.tflite")
            if common.write(path, build(name, variant, cfg, w, in_q, calib)):
                common.write_sidecar(path)


if __name__ == "__main__":
    main()
