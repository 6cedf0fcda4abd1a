"""svdf: SVDF models (rank 2, 4 units, memory 5), written with the TFLite schema's object API.

The TF 2.21 converter never emits SVDF (no TF op or Keras layer fuses into it, tensorflow#63035,
tflite-micro#2529); models that use it come from older toolchains (TFLM's keyword models). These
are built the same way, with weights and scales drawn here:

    svdf_f32        float
    svdf_int8       TFLite's full-integer SVDF: int8 input/output/weights_feature, int16 weights_time
                    and state, int32 bias, RELU (TFLite requires it)
    svdf_int8_w8    TFLite Micro's 8-bit SVDF: int8 weights_time and int8 state with a zero point
                    (the LiteRT interpreter reads weights_time as int16 and cannot run it: the sidecar
                    names tests/reference_svdf.py, a transcription of TFLM's EvalIntegerSvdfReference,
                    as the oracle)
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402

sys.path.insert(0, os.path.join(common.ROOT, "tests"))
import numpy as np  # noqa: E402
from schema_models import OP, TT, S, buffer, model, operator, pack, tensor  # noqa: E402

BATCH, INPUT, FILTERS, RANK, MEMORY = 1, 12, 8, 2, 5
UNITS = FILTERS // RANK


def quant(scale, zero_point=0):
    q = S.QuantizationParametersT()
    q.scale, q.zeroPoint = [float(scale)], [int(zero_point)]
    return q


def svdf(variant, rng):
    wf = rng.standard_normal((FILTERS, INPUT)).astype(np.float32) * 0.3
    wt = rng.standard_normal((FILTERS, MEMORY)).astype(np.float32) * 0.3
    bias = rng.standard_normal(UNITS).astype(np.float32) * 0.1
    opts = S.SVDFOptionsT()
    opts.rank = RANK
    opts.fusedActivationFunction = S.ActivationFunctionType.RELU
    names = ["input", "weights_feature", "weights_time", "bias", "state", "output"]
    shapes = [[BATCH, INPUT], [FILTERS, INPUT], [FILTERS, MEMORY], [UNITS], [BATCH, MEMORY * FILTERS], [BATCH, UNITS]]
    if variant == "f32":
        tensors = [tensor(n, s, buffer=i) for i, (n, s) in enumerate(zip(names, shapes))]
        data = [None, wf, wt, bias, None, None]
    else:
        w8 = variant == "int8_w8"
        # Scales as a calibration gives them (no powers of two: the kernels' multipliers come from
        # float products of these, which a double computation would round differently).
        in_s, in_z = 1.03 / 128, 3
        wf_s = float(np.abs(wf).max()) / 127
        st_s, st_z = (4.1 / 127, -6) if w8 else (4.1 / 32767, 0)
        wt_s = float(np.abs(wt).max()) / (127 if w8 else 32767)
        out_s, out_z = 6.3 / 255, -20
        st_t = TT.INT8 if w8 else TT.INT16
        tensors = [tensor("input", shapes[0], TT.INT8, 0), tensor("weights_feature", shapes[1], TT.INT8, 1),
                   tensor("weights_time", shapes[2], st_t, 2), tensor("bias", shapes[3], TT.INT32, 3),
                   tensor("state", shapes[4], st_t, 4), tensor("output", shapes[5], TT.INT8, 5)]
        for t, q in zip(tensors, [quant(in_s, in_z), quant(wf_s), quant(wt_s), quant(st_s * wt_s),
                                  quant(st_s, st_z), quant(out_s, out_z)]):
            t.quantization = q
        tmax = 127 if w8 else 32767
        data = [None, np.clip(np.round(wf / wf_s), -127, 127).astype(np.int8),
                np.clip(np.round(wt / wt_s), -tmax, tmax).astype(np.int8 if w8 else np.int16),
                np.round(bias / (st_s * wt_s)).astype(np.int32), None, None]
    for t in tensors:
        t.buffer = 0
    buffers = [buffer()]
    for t, a in zip(tensors, data):
        if a is not None:
            t.buffer = len(buffers)
            buffers.append(buffer(np.ascontiguousarray(a).tobytes()))
    tensors[4].isVariable = True
    ops = [operator(0, [0, 1, 2, 3, 4], [5], S.BuiltinOptions.SVDFOptions, opts)]
    m = model(tensors, ops, [OP.SVDF], buffers, [0], [5])
    m.description = f"mpcc zoo: SVDF {variant} (schema-built, see tools/models/svdf.py)".encode()
    return pack(m)


def main():
    common.family_args()
    rng = np.random.default_rng(common.SEED + 21)
    for variant in ("f32", "int8", "int8_w8"):
        path = os.path.join(common.TESTS_MODELS, f"svdf_{variant}.tflite")
        if common.write(path, svdf(variant, rng)):
            extra = {"reference": "tflm_svdf", "why": "the LiteRT interpreter has no 8-bit weights_time SVDF"} \
                if variant == "int8_w8" else None
            if extra:  # the interpreter cannot even load it: write the sidecar only
                import json
                with open(os.path.splitext(path)[0] + ".json", "w") as f:
                    json.dump(extra, f, indent=1, sort_keys=True)
                    f.write("\n")
            else:
                common.write_sidecar(path)


if __name__ == "__main__":
    main()
