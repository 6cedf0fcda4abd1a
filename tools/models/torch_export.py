"""PyTorch models converted by litert-torch: tests/models/torch_*.tflite (issue 44).

Plain `litert_torch.convert` of three small PyTorch modules, random seeded weights (no checkpoint,
nothing downloaded):

- `torch_mobilenet_v3_small`: torchvision's `mobilenet_v3_small(weights=None, width_mult=0.25,
  num_classes=10)` on [1,3,64,64] (hard-swish, hard-sigmoid squeeze-excitation, depthwise convs);
- `torch_resnet18`: torchvision's ResNet class with BasicBlocks [2,2,2,2] (resnet18's topology) at
  an eighth of its widths (8/16/32/64 channels) on [1,3,64,64], 10 classes: the full-width
  resnet18 is 45 MB, too large for the committed zoo;
- `torch_transformer_encoder`: `nn.TransformerEncoder` of 2 `nn.TransformerEncoderLayer`s
  (d_model 64, 4 heads, FFN 128, batch_first) on [1,16,64].

BatchNorm statistics are random (seeded), so the folded convolutions are not identities.
Variants: `_f32`; `_int8`: PT2E static quantization (litert-torch's PT2EQuantizer, symmetric
per-channel int8 weights and int8 activations, calibrated on 8 random batches of the test's input
range), converted to TFLite integer ops with float input and output; `_dq8`: PT2E dynamic
quantization (int8 weights, activations quantized at run time: hybrid ops).

Runs in .venv-llm (make models-torch): torch, torchvision, litert-torch.
"""

import argparse
import os
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
TESTS_MODELS = os.path.join(ROOT, "tests", "models")
SEED = 4401

_ENV = {"PYTHONHASHSEED": "0", "OMP_NUM_THREADS": "1", "CUDA_VISIBLE_DEVICES": "",
        "TF_CPP_MIN_LOG_LEVEL": "3"}


def randomize_bn(model, gen):
    import torch
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, (torch.nn.BatchNorm2d, torch.nn.BatchNorm1d)):
                m.running_mean.copy_(torch.randn(m.running_mean.shape, generator=gen) * 0.1)
                m.running_var.copy_(torch.rand(m.running_var.shape, generator=gen) + 0.5)
                m.weight.copy_(torch.rand(m.weight.shape, generator=gen) + 0.5)
                m.bias.copy_(torch.randn(m.bias.shape, generator=gen) * 0.1)
    return model


def mobilenet_v3_small(gen):
    import torch
    import torchvision
    torch.manual_seed(SEED)
    m = torchvision.models.mobilenet_v3_small(weights=None, width_mult=0.25, num_classes=10)
    return randomize_bn(m, gen).eval(), (torch.rand(1, 3, 64, 64, generator=gen) * 2 - 1,)


def resnet18(gen):
    import torch
    from torchvision.models import resnet
    torch.manual_seed(SEED)
    m = resnet.ResNet(resnet.BasicBlock, [2, 2, 2, 2], num_classes=10)
    # resnet18 at an eighth of its widths: the stem and the four stages rebuilt as ResNet.__init__ does.
    m.inplanes = 8
    m.conv1 = torch.nn.Conv2d(3, 8, kernel_size=7, stride=2, padding=3, bias=False)
    m.bn1 = torch.nn.BatchNorm2d(8)
    m.layer1 = m._make_layer(resnet.BasicBlock, 8, 2)
    m.layer2 = m._make_layer(resnet.BasicBlock, 16, 2, stride=2)
    m.layer3 = m._make_layer(resnet.BasicBlock, 32, 2, stride=2)
    m.layer4 = m._make_layer(resnet.BasicBlock, 64, 2, stride=2)
    m.fc = torch.nn.Linear(64, 10)
    return randomize_bn(m, gen).eval(), (torch.rand(1, 3, 64, 64, generator=gen) * 2 - 1,)


def transformer_encoder(gen):
    import torch
    torch.manual_seed(SEED)
    layer = torch.nn.TransformerEncoderLayer(d_model=64, nhead=4, dim_feedforward=128, dropout=0.0,
                                             batch_first=True)
    m = torch.nn.TransformerEncoder(layer, num_layers=2, enable_nested_tensor=False)
    return m.eval(), (torch.rand(1, 16, 64, generator=gen) * 2 - 1,)


MODELS = {"mobilenet_v3_small": mobilenet_v3_small, "resnet18": resnet18,
          "transformer_encoder": transformer_encoder}
VARIANTS = ("f32", "int8", "dq8")


def quantized(model, args, dynamic, gen):
    import torch
    from litert_torch.quantize import pt2e_quantizer
    from litert_torch.quantize.quant_config import QuantConfig
    from torchao.quantization.pt2e import quantize_pt2e
    quantizer = pt2e_quantizer.PT2EQuantizer().set_global(
        pt2e_quantizer.get_symmetric_quantization_config(is_per_channel=True, is_dynamic=dynamic))
    m = torch.export.export(model, args).module()
    m = quantize_pt2e.prepare_pt2e(m, quantizer)
    for _ in range(8):
        m(*(torch.rand(a.shape, generator=gen) * 2 - 1 for a in args))
    m = quantize_pt2e.convert_pt2e(m, fold_quantize=False)
    return m, QuantConfig(pt2e_quantizer=quantizer)


def convert(name, variant):
    import torch
    import litert_torch
    gen = torch.Generator().manual_seed(SEED)
    model, args = MODELS[name](gen)
    if variant == "f32":
        edge = litert_torch.convert(model, args)
    else:
        m, qc = quantized(model, args, variant == "dq8", gen)
        edge = litert_torch.convert(m, args, quant_config=qc)
    out = os.path.join(TESTS_MODELS, f"torch_{name}_{variant}.tflite")
    edge.export(out)
    n = os.path.getsize(out)
    print(f"  {os.path.relpath(out, ROOT)}: {n} bytes")
    if n > 1 << 20:
        sys.exit(f"FAIL: {out} is over 1 MiB")


def main():
    if any(os.environ.get(k) != v for k, v in _ENV.items()):
        os.execve(sys.executable, [sys.executable] + sys.argv, dict(os.environ, **_ENV))
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", nargs="*", choices=sorted(MODELS), help="some models (default: all)")
    ap.add_argument("--variants", nargs="*", choices=VARIANTS, default=list(VARIANTS))
    args = ap.parse_args()
    import torch
    torch.use_deterministic_algorithms(True)
    torch.set_num_threads(1)
    for name in args.only or sorted(MODELS):
        for variant in args.variants:
            convert(name, variant)


if __name__ == "__main__":
    main()
