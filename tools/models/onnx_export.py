"""ONNX models converted by onnx2tf: tests/models/onnx_*.tflite (issue 44).

Three small PyTorch modules with random seeded weights go PyTorch -> ONNX (`torch.onnx.export`,
opset 17, the TorchScript exporter) -> onnx2tf -> TFLite, as models from the ONNX world reach
TFLite:

- `onnx_hardswish_cnn`: Conv -> HardSwish -> depthwise Conv -> a squeeze-excitation gate through
  HardSigmoid (onnx2tf writes it as RELU_0_TO_1 of an affine map) -> GlobalAveragePool -> Gemm, on
  [1,3,32,32] (NCHW in ONNX; onnx2tf makes it NHWC [1,32,32,3]);
- `onnx_wakeword_conv1d`: a keyword-spotting-like 1-D CNN on [1,40,49] features (Conv1d + BN +
  ReLU x 3, mean over time, Linear, sigmoid) whose output is one score reshaped to a scalar: the
  RESHAPE to a scalar that onnx2tf writes with a zero-element shape constant;
- `onnx_transformer_block`: a pre-norm transformer block (LayerNorm, 4-head self-attention written
  out (onnx2tf 1.29.24 fails on nn.MultiheadAttention's export: Mul shapes mixed up by its layout
  guess, and on a Mul of the scores by a scalar: the scale is folded into the query weights), GELU feed-forward, residuals) on [1,16,32]; GELU's Erf written in builtin ops
  (onnx2tf's `replace_to_pseudo_operators=["erf"]`: FlexErf otherwise).

Variants: `_f32`; `_int8` (onnx2tf's full_integer_quant: int8 inside, int8 input and output) and
`_int16` (its integer_quant_with_int16_act: 16x8, float input and output), calibrated on 16 seeded
random inputs in [-1, 1]; no `onnx_transformer_block_int16` (TFLite has no int16 SQUARED_DIFFERENCE).

Two steps in two venvs: `--export` in .venv-llm (torch, onnx) writes build/onnx/NAME.onnx, then
`--convert` in .venv-onnx (onnx2tf 1.29.24 and its TensorFlow 2.19: tools/models/requirements-onnx.txt;
onnx2tf 2.x needs Python >= 3.12) writes tests/models/NAME_{f32,int8,int16}.tflite. `make models-onnx` runs both.
"""

import argparse
import os
import shutil
import sys
import tempfile

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
TESTS_MODELS = os.path.join(ROOT, "tests", "models")
ONNX_DIR = os.path.join(ROOT, "build", "onnx")
SEED = 4402

_ENV = {"PYTHONHASHSEED": "0", "OMP_NUM_THREADS": "1", "CUDA_VISIBLE_DEVICES": "",
        "TF_CPP_MIN_LOG_LEVEL": "3", "TF_ENABLE_ONEDNN_OPTS": "0"}


def hardswish_cnn():
    import torch
    from torch import nn

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.stem = nn.Conv2d(3, 16, 3, stride=2, padding=1)
            self.dw = nn.Conv2d(16, 16, 3, padding=1, groups=16)
            self.se_reduce = nn.Conv2d(16, 8, 1)
            self.se_expand = nn.Conv2d(8, 16, 1)
            self.head = nn.Linear(16, 10)

        def forward(self, x):
            x = nn.functional.hardswish(self.stem(x))
            x = nn.functional.hardswish(self.dw(x))
            s = x.mean(dim=(2, 3), keepdim=True)
            s = nn.functional.hardsigmoid(self.se_expand(torch.relu(self.se_reduce(s))))
            x = x * s
            return self.head(x.mean(dim=(2, 3)))

    return Net(), (1, 3, 32, 32)


def wakeword_conv1d():
    import torch
    from torch import nn

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            layers, c = [], 40
            for k, d in ((3, 1), (3, 2), (3, 4)):
                layers += [nn.Conv1d(c, 24, k, dilation=d), nn.BatchNorm1d(24), nn.ReLU()]
                c = 24
            self.body = nn.Sequential(*layers)
            self.fc = nn.Linear(24, 1)

        def forward(self, x):
            return torch.sigmoid(self.fc(self.body(x).mean(dim=2))).reshape(())

    return Net(), (1, 40, 49)


def transformer_block():
    import torch
    from torch import nn

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.norm1 = nn.LayerNorm(32)
            self.q, self.k, self.v = nn.Linear(32, 32), nn.Linear(32, 32), nn.Linear(32, 32)
            self.proj = nn.Linear(32, 32)
            self.norm2 = nn.LayerNorm(32)
            self.ff = nn.Sequential(nn.Linear(32, 64), nn.GELU(), nn.Linear(64, 32))
            with torch.no_grad():
                self.q.weight *= 8 ** -0.5
                self.q.bias *= 8 ** -0.5

        def forward(self, x):
            # The 1/sqrt(8) scale is folded into the query weights (above): onnx2tf 1.29.24 fails
            # on a Mul of the scores by a scalar (its accuracy correction for Mul builds a Keras
            # model whose output is the constant: "Output tensors of a Functional model must be
            # the output of a TensorFlow `Layer`"). Three projections, not one split in three:
            # onnx2tf writes that Split as the TF op FlexSplitV, which TFLite's builtins lack.
            h = self.norm1(x)
            q, k, v = (f(h).reshape(1, 16, 4, 8).transpose(1, 2) for f in (self.q, self.k, self.v))
            a = torch.softmax(q @ k.transpose(-2, -1), dim=-1)
            x = x + self.proj((a @ v).transpose(1, 2).reshape(1, 16, 32))
            return x + self.ff(self.norm2(x))

    return Net(), (1, 16, 32)


MODELS = {"onnx_hardswish_cnn": hardswish_cnn, "onnx_wakeword_conv1d": wakeword_conv1d,
          "onnx_transformer_block": transformer_block}


def export(name):
    import torch
    torch.manual_seed(SEED)
    model, shape = MODELS[name]()
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, torch.nn.LayerNorm):
                m.weight.uniform_(0.5, 1.5)
                m.bias.uniform_(-0.2, 0.2)
            if isinstance(m, torch.nn.BatchNorm1d):
                m.running_mean.uniform_(-0.2, 0.2)
                m.running_var.uniform_(0.5, 1.5)
                m.weight.uniform_(0.5, 1.5)
                m.bias.uniform_(-0.2, 0.2)
    model.eval()
    os.makedirs(ONNX_DIR, exist_ok=True)
    out = os.path.join(ONNX_DIR, f"{name}.onnx")
    torch.onnx.export(model, (torch.rand(shape) * 2 - 1,), out, opset_version=17, dynamo=False,
                      input_names=["x"], output_names=["y"])
    print(f"  {os.path.relpath(out, ROOT)}: {os.path.getsize(out)} bytes")


# onnx2tf's outputs kept: file suffix in its output folder -> ours
KEEP = {"float32": "f32", "full_integer_quant": "int8", "integer_quant_with_int16_act": "int16"}
# Not kept: the TFLite interpreter cannot run them, so there is nothing to compare with.
SKIP = {("onnx_transformer_block", "int16"): "TFLite: SquaredDifference only supports FLOAT32 and INT32 now, got 7 "
        "(the int16 layer norm)"}


def convert(name):
    import numpy as np
    import onnx
    import onnx2tf
    import onnx2tf.onnx2tf as o2t
    # For inputs shaped like RGB images onnx2tf fetches sample images from the network to check its
    # conversion; nothing is downloaded here: seeded random images of the same shape instead.
    o2t.download_test_image_data = lambda: np.random.default_rng(SEED).random((20, 128, 128, 3), np.float32)
    src = os.path.join(ONNX_DIR, f"{name}.onnx")
    inp = onnx.load(src).graph.input[0]
    dims = [d.dim_value for d in inp.type.tensor_type.shape.dim]
    # onnx2tf moves the channel axis last (NCHW -> NHWC, NCW -> NWC); calibration data is in its layout.
    tf_shape = [dims[0]] + dims[2:] + [dims[1]]
    with tempfile.TemporaryDirectory() as d:
        cal = os.path.join(d, "calibration.npy")
        np.save(cal, np.random.default_rng(SEED).uniform(-1, 1, [16] + tf_shape[1:]).astype(np.float32))
        # Erf (GELU's) as builtin ops: onnx2tf writes it as the TF op FlexErf otherwise. Integer
        # variants calibrated on 16 random inputs in [-1, 1] (mean 0, std 1: used as they are).
        onnx2tf.convert(input_onnx_file_path=src, output_folder_path=d, non_verbose=True,
                        replace_to_pseudo_operators=["erf"], output_integer_quantized_tflite=True,
                        custom_input_op_name_np_data_path=[[inp.name, cal, [0.0], [1.0]]])
        for theirs, ours in KEEP.items():
            if (name, ours) in SKIP:
                print(f"  {name}_{ours}: not kept: {SKIP[name, ours]}")
                continue
            found = os.path.join(d, f"{name}_{theirs}.tflite")
            if not os.path.exists(found):
                sys.exit(f"FAIL: onnx2tf wrote {sorted(os.listdir(d))} for {src}, no {found}")
            out = os.path.join(TESTS_MODELS, f"{name}_{ours}.tflite")
            shutil.copyfile(found, out)
            n = os.path.getsize(out)
            print(f"  {os.path.relpath(out, ROOT)}: {n} bytes")
            if n > 1 << 20:
                sys.exit(f"FAIL: {out} is over 1 MiB")


def main():
    if any(os.environ.get(k) != v for k, v in _ENV.items()):
        os.execve(sys.executable, [sys.executable] + sys.argv, dict(os.environ, **_ENV))
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    step = ap.add_mutually_exclusive_group(required=True)
    step.add_argument("--export", action="store_true", help="torch -> build/onnx/*.onnx (.venv-llm)")
    step.add_argument("--convert", action="store_true", help="onnx2tf -> tests/models (.venv-onnx)")
    ap.add_argument("--only", nargs="*", choices=sorted(MODELS), help="some models (default: all)")
    args = ap.parse_args()
    for name in args.only or sorted(MODELS):
        (export if args.export else convert)(name)


if __name__ == "__main__":
    main()
