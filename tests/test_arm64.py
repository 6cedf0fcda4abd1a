"""AArch64: the generated C cross-built with aarch64-linux-gnu-gcc -O2 -static for two targets and
run under qemu-aarch64 (user mode), outputs compared with the TFLite interpreter (integers
bit-exact, floats by tests/compare.py's "opt" rule):
- dotprod: mpcc --isa armv8.2a+dotprod, -march=armv8.2-a+dotprod, `qemu-aarch64 -cpu max`
  (runtime/arm64's SDOT kernels);
- base: mpcc --isa armv8a, -march=armv8-a, `qemu-aarch64 -cpu cortex-a53` (no dot product: the
  plain NEON kernels).
`make test` runs a representative set: person_detect and mobilenetv2_0.35 int8, digits f32 and
int8, a ViT int8, an LSTM int8, and the first single-operator model (op_*) of each operator set
(76 of the 375, whatever their type; the kinds of tests/test_models.py without the type); every
other zoo, sample and shared model runs under `make test-full`. --precision bf16 / fp16 (16-bit
weights, f32 activations and arithmetic: runtime/rt_opt_gemm16_a64.c) on a CNN, ResNet, ViT and
BERT f32 against TFLite's float result, within tests/test_precision.py's budgets.
Inputs are drawn from the test's seed. The toolchain is installed by tools/arm64/install.sh when
missing (`make test` runs it first).
"""

import sys
import threading

import numpy as np
import pytest

from compare import SCALE_FLOOR, compare_arrays
from mpcc_paths import DIGITS_DIR, MODELS_DIR, ROOT, SHARED_MODELS, all_models, model_id
from mpcc_tools import compile_model, new_workdir
from oracle import oracle, sidecar

sys.path.insert(0, str(ROOT / "tools" / "arm64"))
import a64  # noqa: E402

# one pytest-xdist worker runs this module: the runtime libraries build once
pytestmark = pytest.mark.xdist_group("arm64")

MODELS = {
    "person_detect": SHARED_MODELS / "tflm" / "person_detect.tflite",
    "mobilenetv2_0.35_int8": MODELS_DIR / "mobilenetv2_int8.tflite",
    "digits_f32": DIGITS_DIR / "digits_f32.tflite",
    "digits_int8": DIGITS_DIR / "digits_int8.tflite",
    "vit_int8": MODELS_DIR / "vit_int8.tflite",
    "lstm_int8": MODELS_DIR / "lstm_int8.tflite",
    "resnet_int8": MODELS_DIR / "resnet_int8.tflite",
}
TARGETS = list(a64.TARGETS)


def _sample():
    """The first op_* model of each operator set (in name order), besides MODELS."""
    from test_models import _op_kind
    seen, picked = set(), []
    for m in sorted(all_models(), key=lambda p: p.stem):
        ops = _op_kind(m)[0] if m.stem.startswith("op_") and m.exists() else None
        if ops is not None and ops not in seen:
            seen.add(ops)
            picked.append(m)
    return picked


SAMPLE = list(MODELS.values()) + _sample()
CASES = [(t, m) for m in SAMPLE for t in TARGETS]
CASES += [pytest.param(t, m, marks=pytest.mark.full) for m in all_models() if m not in SAMPLE for t in TARGETS]

_compiled = {}
_lock = threading.Lock()


def generated(model, isa, extra=()):
    """mpcc MODEL --isa ISA -o DIR/model.c --name model (plus its sidecar's options and extra), once per
    model, ISA and extra; returns (DIR, None) or (None, why not)."""
    with _lock:
        key = (model, isa, tuple(extra))
        if key not in _compiled:
            tag = "".join(e.strip("-") for e in extra)
            work = new_workdir(f"a64-{model.stem}-{isa}{'-' + tag if tag else ''}")
            proc = compile_model(model, work, extra=["--isa", isa, *extra])
            _compiled[key] = (work, None) if proc.returncode == 0 else (None, proc.stderr)
        return _compiled[key]


@pytest.fixture(scope="module")
def toolchain():
    why = a64.toolchain()
    assert why is None, why


@pytest.mark.parametrize("target,model", CASES, ids=lambda v: model_id(v) if hasattr(v, "stem") else v)
def test_matches_tflite_under_qemu(toolchain, target, model, seed):
    if not model.exists():
        pytest.skip(f"{model} is not here")
    inputs, refs = oracle(model, seed)
    isa = a64.TARGETS[target][2]
    work, err = generated(model, isa)
    assert err is None, f"mpcc --isa {isa} failed: {err}"
    proc, prog = a64.build(target, work, len(inputs), len(refs))
    assert proc.returncode == 0, proc.stderr[-3000:]
    proc, outs = a64.run(target, prog, inputs, work)
    assert outs is not None, f"qemu-aarch64 exit {proc.returncode}: {proc.stderr[-2000:]}"
    assert len(outs) == len(refs)
    for i, (ref, raw) in enumerate(zip(refs, outs)):
        assert len(raw) == ref.nbytes, f"output {i}: {len(raw)} bytes, expected {ref.nbytes}"
        got = np.frombuffer(raw, ref.dtype).reshape(ref.shape)
        ok, msg = compare_arrays(ref, got, mode="opt", scale_floor=sidecar(model).get("scale_floor", SCALE_FLOOR))
        print(f"{model.name} on {target} output {i}: {msg}")
        assert ok, f"{model.name} on {target} ({a64.TARGETS[target][1]}), output {i}: {msg}"


def test_isa_check_stops_a_wrong_build(toolchain, tmp_path):
    """The generated C for armv8.2a+dotprod does not build for plain Armv8-A: #error names the flags."""
    work, err = generated(MODELS["digits_int8"], "armv8.2a+dotprod")
    assert err is None, err
    proc = a64.run_cmd([a64.CC, "-march=armv8-a", "-std=c99", "-I", ROOT / "runtime", "-c", work / "model.c",
                        "-o", tmp_path / "m.o"])
    assert proc.returncode != 0 and "-march=armv8.2-a+dotprod" in proc.stderr, proc.stderr[-2000:]


@pytest.mark.parametrize("target", TARGETS)
def test_neon_requantization_is_tflites(toolchain, target, seed, tmp_path):
    """runtime/arm64/rt_a64.h's SQRDMULH + SRSHL requantization (and the int8 GEMM tile's rows with
    their offset and clamp) equals the scalar TFLite rounding (double and single) on edge values,
    exact ties of every shift and 100000 random triples."""
    prog = tmp_path / "rq_check"
    proc = a64.run_cmd([a64.CC, *a64.cflags(target), "-pedantic", "-static", "-I", ROOT / "runtime",
                        ROOT / "tests" / "arm64" / "rq_check.c", "-lm", "-o", prog])
    assert proc.returncode == 0, proc.stderr[-3000:]
    proc = a64.run_cmd(a64.qemu_cmd(target, prog, [seed, 100000]), timeout=300)
    assert proc.returncode == 0 and proc.stdout.startswith("ok "), proc.stdout[-2000:] + proc.stderr[-2000:]
    assert int(proc.stdout.split()[1]) > 200000, proc.stdout  # every case above ran


def _kernel_check(name, target, seed, cases, tmp_path, extra=()):
    """Builds tests/arm64/NAME.c (tests/arm64/check_main.h's main; extra: more compiler arguments) with the
    runtime library for target, runs `NAME SEED CASES` under qemu-aarch64 and expects "ok COUNT" with
    more than 100000 values compared."""
    prog = tmp_path / name
    proc = a64.run_cmd([a64.CC, *a64.cflags(target), "-pedantic", "-static", "-I", ROOT / "runtime", *extra,
                        ROOT / "tests" / "arm64" / f"{name}.c", a64.runtime_lib(target), "-lm", "-o", prog])
    assert proc.returncode == 0, proc.stderr[-3000:]
    proc = a64.run_cmd(a64.qemu_cmd(target, prog, [seed, cases]), timeout=300)
    assert proc.returncode == 0 and proc.stdout.startswith("ok "), proc.stdout[-2000:] + proc.stderr[-2000:]
    assert int(proc.stdout.split()[1]) > 100000, proc.stdout  # every case ran


@pytest.mark.parametrize("target", TARGETS)
def test_neon_elementwise_s8_is_tflites(toolchain, target, seed, tmp_path):
    """runtime/arm64/rt_a64_mul_s8.h's and rt_a64_addsub_s8.h's int8 MUL, SQUARED_DIFFERENCE, ADD and SUB
    lanes (through rt_opt_mul_i8, ...) equal the reference kernels byte for byte on 4000 random cases:
    shapes with either input broadcast, offsets in and out of the lanes' range, shifts either way."""
    _kernel_check("binary_check", target, seed, 4000, tmp_path)


@pytest.mark.parametrize("target", TARGETS)
def test_neon_depthwise_s8_is_tflites(toolchain, target, seed, tmp_path):
    """runtime/arm64/rt_a64_dwconv_s8.h's int8 depthwise kernel (through rt_opt_dwconv_s8; its 3x3 row
    blocks of 16 channels, edge outputs and rows in the padding read from the zero-point pad) equals the
    reference kernel byte for byte on 1500 random cases: 8..80 channels or one channel with a multiplier, 1..12 x 1..12 images, strides
    1 and 2, padding 0..2, 3x3 filters mostly, weights with and without -128, shifts either way."""
    _kernel_check("dw_check", target, seed, 1500, tmp_path)


@pytest.mark.parametrize("target", TARGETS)
def test_neon_mean_s8_is_tflites(toolchain, target, seed, tmp_path):
    """runtime/arm64/rt_a64_mean_s8.h's int8 MEAN lanes (through rt_opt_mean_i8; global average pooling, 16
    channels at a time, more than 256 rows in int16 blocks) equal the reference kernel byte for byte on 1500
    random cases: 1..30 x 1..30 pixels, 1..70 channels, zero points, multipliers, shifts either way."""
    _kernel_check("mean_check", target, seed, 1500, tmp_path)


@pytest.mark.parametrize("target", TARGETS)
def test_neon_interleave_is_the_transpose(toolchain, target, seed, tmp_path):
    """runtime/arm64/rt_a64_copy.h's interleave of 2..4 byte planes into pixels (through rt_opt_copy: a
    PyTorch export's NCHW image to NHWC) equals its definition byte for byte on 400 random cases: 1..1000
    pixels, planes 0..4 bytes apart beyond their length, the bytes around the output untouched."""
    _kernel_check("copy_check", target, seed, 400, tmp_path)


@pytest.mark.parametrize("target", TARGETS)
def test_neon_conv_s8_is_tflites(toolchain, target, seed, tmp_path):
    """rt_opt_conv_s8 on AArch64 (patches read from the image or its padded copy by the int8 tiles of
    runtime/arm64/rt_a64_gemm_s8.h, or im2col rows) equals the reference CONV_2D byte for byte on 600
    random cases, weights packed as pass schedule does: 3..64 input channels, 1..70 outputs, 1..3 x 1..3
    filters, strides 1 and 2, padding 0..2, slots with and without room for the padded image."""
    passes = ROOT / "compiler" / "passes"
    _kernel_check("conv_check", target, seed, 600, tmp_path, extra=["-I", passes, passes / "sched_pack.c"])


@pytest.mark.parametrize("target", TARGETS)
def test_neon_gemm_s8_is_tflites(toolchain, target, seed, tmp_path):
    """rt_opt_gemm_s8 on AArch64 (runtime/arm64/rt_a64_gemm_s8.h's 4 x 16 and 1 x 16 tiles: int8 rows read in
    place or widened) equals the reference FULLY_CONNECTED byte for byte on 1500 random cases, weights packed
    and the bias folded as pass schedule does for --isa armv8a / armv8.2a+dotprod (a64_init) or --isa neon:
    1..21 rows, K 1..300, 1..70 outputs, per-channel shifts either way."""
    passes = ROOT / "compiler" / "passes"
    _kernel_check("gemm_s8_check", target, seed, 1500, tmp_path, extra=["-I", passes, passes / "sched_pack.c"])


def test_portable_gemm_s8_takes_the_a64_bias(toolchain, seed, tmp_path):
    """The same check with the runtime built without runtime/arm64's kernels (-DRT_OPT_SCALAR): the portable
    kernel takes the 128 x column sums that a bias packed for them holds off again (rt_opt_gemm_s8.c's
    colsum_off), so a model compiled for --isa armv8a still runs right in such a build."""
    passes = ROOT / "compiler" / "passes"
    opt = [*a64.OPT, "-DRT_OPT_SCALAR"]
    prog = tmp_path / "gemm_s8_check"
    proc = a64.run_cmd([a64.CC, *a64.cflags("base", opt), "-pedantic", "-static", "-I", ROOT / "runtime", "-I",
                        passes, passes / "sched_pack.c", ROOT / "tests" / "arm64" / "gemm_s8_check.c",
                        a64.runtime_lib("base", opt, tag="scalar"), "-lm", "-o", prog])
    assert proc.returncode == 0, proc.stderr[-3000:]
    proc = a64.run_cmd(a64.qemu_cmd("base", prog, [seed, 400]), timeout=300)
    assert proc.returncode == 0 and proc.stdout.startswith("ok "), proc.stdout[-2000:] + proc.stderr[-2000:]


@pytest.mark.parametrize("target", TARGETS)
def test_neon_gemm_f32_is_the_fused_oracle(toolchain, target, seed, tmp_path):
    """runtime/arm64/rt_a64_gemm_f32.h's 5 x 16 and 2 x 16 f32 tiles (rt_opt_gemm_f32, and rt_opt_conv_f32's
    patch rows read in place through row tables, edge patches copied, dilation 2 through im2col) equal a
    scalar oracle (bias + a.w in k order, one fmaf a step, then the clamp) value for value on 2000 random
    GEMMs and convolutions (1..23 rows, 1..70 columns and K; 1..9 x 1..9 images, 1..20 channels, 1x1..5x5
    filters, strides 1 and 2, padding 0..2, clamps none, ReLU or random)."""
    _kernel_check("gemm_f32_check", target, seed, 2000, tmp_path)


# tests/test_precision.py's models with a convolution, attention or both (digits is left out: its confident
# 10-class softmax alone gave bf16 1.2e-2 to 1.6e-2 on one input, the weights' rounding)
HALF_MODELS = {name: MODELS_DIR / f"{name}.tflite" for name in ("cnn_f32", "resnet_f32", "vit_f32", "bert_f32")}
HALF_MAX_REL_L2 = {"bf16": 1e-2, "fp16": 2e-3}  # tests/test_precision.py's budgets against TFLite fp32


@pytest.mark.parametrize("mode", ["bf16", "fp16"])
@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("name", list(HALF_MODELS))
def test_half_precision_under_qemu(toolchain, name, target, mode, seed):
    """--precision bf16 / fp16 for AArch64: FULLY_CONNECTED and CONV_2D weights in 16 bits, activations and
    arithmetic f32 (runtime/rt_opt_gemm16_a64.c; pass half_storage keeps the activations f32: the Armv8-A and
    Armv8.2-A targets have no 16-bit products, as --report says); the outputs against TFLite's float result
    within the relative L2 of tests/test_precision.py (1e-2 bf16, 2e-3 fp16; over all outputs together)."""
    model = HALF_MODELS[name]
    inputs, refs = oracle(model, seed)
    isa = a64.TARGETS[target][2]
    work, err = generated(model, isa, ("--precision", mode))
    assert err is None, f"mpcc --isa {isa} --precision {mode} failed: {err}"
    proc, prog = a64.build(target, work, len(inputs), len(refs))
    assert proc.returncode == 0, proc.stderr[-3000:]
    proc, outs = a64.run(target, prog, inputs, work)
    assert outs is not None, f"qemu-aarch64 exit {proc.returncode}: {proc.stderr[-2000:]}"
    num = den = 0.0
    for ref, raw in zip(refs, outs):
        got = np.frombuffer(raw, np.float32).reshape(ref.shape).astype(np.float64)
        num += float(((got - ref.astype(np.float64)) ** 2).sum())
        den += float((ref.astype(np.float64) ** 2).sum())
    rel = (num / max(den, 1e-30)) ** 0.5
    print(f"{name} {mode} on {target}: relative L2 against TFLite fp32 {rel:.3g}")
    assert np.isfinite(rel) and rel <= HALF_MAX_REL_L2[mode]
    proc = a64.run_cmd([ROOT / "build" / "mpcc", model, "--isa", isa, "--precision", mode, "--report",
                        "-o", work / "report.c"])
    assert proc.returncode == 0 and f"16-bit activations: none, --isa {isa} has no 16-bit arithmetic" in proc.stdout, \
        proc.stdout[-2000:] + proc.stderr[-2000:]


@pytest.mark.parametrize("target", TARGETS)
def test_neon_gemm16_is_the_fused_oracle(toolchain, target, seed, tmp_path):
    """runtime/rt_opt_gemm16_a64.c (bf16 and fp16 weights, f32 activations: the one-row GEMV widening in
    registers, the panels widened once for the f32 tiles, the GEMV over a deep K's segments), through
    rt_opt_fc_half and rt_opt_conv_half, equals a scalar oracle (bias + a.w in k order with the weights widened
    exactly, one fmaf a step, then the clamp) value for value on 600 random GEMMs (1..23 rows, one row a third
    of the time, K up to 1100) and convolutions (row tables, im2col, direct 1x1)."""
    _kernel_check("gemm16_check", target, seed, 600, tmp_path)
