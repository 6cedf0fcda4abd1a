"""--target cuda: the hybrid kernels (float activations, int8 constant weights: dynamic-range
quantized FULLY_CONNECTED, CONV_2D, DEPTHWISE_CONV_2D; runtime/cuda/mpcc_cuda_hybrid.cuh) on the
CPU emulator, against mpcc's reference interpreter (`mpcc run`, itself bit-exact with TFLite on
these models: tests/test_hybrid.py).

Each model's generated .cu is built once for the emulator and run on several input sets: random
ones of the printed seed and test_hybrid's tie sets (values on rounding ties, +-0.49999997, one-signed
rows, a zero row among random ones), where one different int8 step would show. Models whose every
output comes from hybrid ops must match bit for bit (the integer sums are exact, the float epilogue
follows the reference's order with no fused multiply-add); the others (a float FC after the hybrid
ones: 3xTF32 tensor cores) within the float rule, 1e-4 relative L2.

Also the int16-activation ops with int8 weights (FULLY_CONNECTED 16x8, PRELU 16x8), bit-exact."""

import numpy as np
import pytest

import oracle
from mpcc_paths import MPCC, ROOT
from mpcc_tools import count_outputs, model_args, mpcc_run, new_workdir, run_cmd
from test_cuda import _emu_build, _rel_l2, _run_emu
from test_hybrid import tie_inputs

pytestmark = pytest.mark.xdist_group("cuda")

# (model, per-batch quantization (convolutions), bit-exact); what each covers:
MODELS = [
    ("hybrid_matmul_f32", False, True),   # FULLY_CONNECTED, asymmetric rows, per-channel weight scales
    ("hybrid_cnn_s2_f32", True, True),    # CONV_2D (stride 2) + DEPTHWISE_CONV_2D, asymmetric, per channel
    ("hybrid_cnn_pt_f32", True, True),    # CONV_2D, symmetric, per-tensor filter scale
    ("hybrid_fc_sym_f32", False, False),  # FULLY_CONNECTED, symmetric rows, then a float FC
]


@pytest.mark.parametrize("name,per_batch,exact", MODELS, ids=[m[0] for m in MODELS])
def test_emulated_cuda_hybrid(name, per_batch, exact, seed):
    model = ROOT / "tests" / "models" / f"{name}.tflite"
    work = new_workdir("cuda-hybrid-" + name)
    p = run_cmd([MPCC, "--target", "cuda", model, "-o", work / "model.cu", "--name", "model", *model_args(model)])
    assert p.returncode == 0, p.stderr
    src = (work / "model.cu").read_text()
    assert "mpcc_hybrid_body" in src, "no hybrid kernel in the generated code"
    rng = np.random.default_rng(seed)
    shape = tuple(oracle.load(model).get_input_details()[0]["shape"])
    sets = [rng.uniform(-4, 4, shape).astype(np.float32)]
    sets += [s for s in tie_inputs(shape, rng, per_batch=per_batch) if s.any()]
    n_out = count_outputs(model)
    b, exe = _emu_build(work, 1, n_out, False)
    assert b.returncode == 0, b.stderr[-4000:]
    worst = 0.0
    for i, x in enumerate(sets):
        sub = work / f"set{i}"
        sub.mkdir()
        proc, ref = mpcc_run(model, [x], sub, n_out)
        assert proc.returncode == 0, proc.stderr
        x.tofile(sub / "in0.bin")
        r = run_cmd([exe, sub / "in0.bin", *[sub / f"out{k}.bin" for k in range(n_out)]], timeout=600)
        assert r.returncode == 0, r.stderr[-3000:]
        for k, want in enumerate(ref):
            got = np.fromfile(sub / f"out{k}.bin", dtype=want.dtype).reshape(want.shape)
            if exact:
                bad = int(np.sum(want.view(np.uint32) != got.view(np.uint32)))
                assert bad == 0, f"input set {i}, output {k}: {bad} of {want.size} values differ from the reference " \
                                 f"(max |diff| {np.abs(want - got).max()})"
            else:
                err = _rel_l2(want, got)
                worst = max(worst, err)
                assert err <= 1e-4, f"input set {i}, output {k}: relative L2 {err:.2e} against the reference"
    print(f"{name}: {len(sets)} input sets, {'bit-exact' if exact else f'worst relative L2 {worst:.2e}'}")


@pytest.mark.parametrize("name", ["act16_gate_int16", "act16_prelu_int16"])
def test_emulated_cuda_int16x8(name, seed):
    """act16_gate_int16: two FULLY_CONNECTED 16x8 (with LOGISTIC, TANH, MUL int16); act16_prelu_int16:
    PRELU 16x8. Outputs equal to the reference interpreter's."""
    errs = _run_emu(ROOT / "tests" / "models" / f"{name}.tflite", [], seed, 0)
    assert errs is not None, f"{name} was refused for --target cuda"
    print(f"{name}: max |diff| {errs}")
    assert all(e == 0 for e in errs), errs
