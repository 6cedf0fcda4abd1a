"""INT4 weights (TFLite's dtype 17: two values a byte, the first in the low nibble), as AI Edge
Quantizer's dynamic_wi4 recipes write them: a FULLY_CONNECTED (version 13) with f32 activations and
INT4 constant weights (per-channel or per-tensor scales, zero points 0), which the interpreter runs
as its hybrid kernel on the unpacked int8 values. mpcc unpacks them at import (the reference
kernels read int8) and its scheduled C keeps them packed 4-bit (rt_opt_fc_hybrid_w4).

The models are built here with the schema (tests/schema_models.py): random weights in [-8, 7] and
random sizes around the kernels' 64-value blocks and 4-row groups; inputs drawn from the printed
seed, with rounding ties (test_hybrid.tie_inputs). Outputs must equal TFLite's bit for bit through
`mpcc run`, the reference C (-O0) and the scheduled C (-O2), whose int32 sums are exact too."""

import re

import numpy as np
import pytest
from ai_edge_litert import schema_py_generated as S

import oracle
from mpcc_paths import MPCC, MPCC_ASAN
from mpcc_tools import build_exe, compile_model, mpcc_run, run_cmd, run_exe, write_harness
from schema_models import OP, TT, buffer, model, operator, pack, tensor
from test_hybrid import assert_exe_same, assert_same, tie_inputs


def pack_int4(q):
    """int8 values in [-8, 7] -> TFLite's packed bytes (low nibble first, over the whole tensor)."""
    u = (q.reshape(-1).astype(np.int32) & 15).astype(np.uint8)
    if u.size % 2:
        u = np.append(u, np.uint8(0))
    return (u[0::2] | (u[1::2] << 4)).astype(np.uint8).tobytes()


def fc_int4_model(rng, batches, k, n, per_channel=True, bias=True, asymmetric=False, act=0, raw=None):
    """f32 [batches, k] -> FULLY_CONNECTED with INT4 weights [n, k] -> f32 [batches, n]."""
    q = rng.integers(-8, 8, (n, k)).astype(np.int8)
    scales = rng.uniform(0.005, 0.05, n if per_channel else 1)
    w = tensor("w_int4", [n, k], TT.INT4, 1)
    w.quantization = S.QuantizationParametersT()
    w.quantization.scale = [float(s) for s in scales]
    w.quantization.zeroPoint = [0] * len(scales)
    w.quantization.quantizedDimension = 0
    tensors = [tensor("x", [batches, k]), w, tensor("y", [batches, n])]
    buffers = [buffer(), buffer(pack_int4(q) if raw is None else raw)]
    inputs = [0, 1]
    if bias:
        tensors.append(tensor("b", [n], TT.FLOAT32, 2))
        buffers.append(buffer(rng.uniform(-1, 1, n).astype(np.float32).tobytes()))
        inputs.append(3)
    opts = S.FullyConnectedOptionsT()
    opts.fusedActivationFunction, opts.asymmetricQuantizeInputs = act, asymmetric
    op = operator(0, inputs, [2], S.BuiltinOptions.FullyConnectedOptions, opts)
    return pack(model(tensors, [op], [(OP.FULLY_CONNECTED, 13)], buffers, [0], [2]))


CASES = [  # batches, k, n, per_channel, bias, asymmetric, act (1 = RELU)
    (1, 128, 36, True, True, False, 0),    # decode: one row, whole 64-value blocks
    (1, 100, 9, True, False, True, 1),     # a partial block, a partial 4-row group, asymmetric rows
    (5, 192, 20, False, True, False, 0),   # prefill: rows unpacked once per 4-row group
    (3, 37, 6, True, True, True, 0),       # odd element count (the last byte half used)
]


@pytest.mark.parametrize("batches,k,n,per_channel,bias,asymmetric,act", CASES,
                         ids=[f"b{c[0]}_k{c[1]}_n{c[2]}" for c in CASES])
def test_fc_int4_bit_exact(batches, k, n, per_channel, bias, asymmetric, act, seed, tmp_path):
    rng = np.random.default_rng(seed)
    path = tmp_path / "fc_int4.tflite"
    path.write_bytes(fc_int4_model(rng, batches, k, n, per_channel, bias, asymmetric, act))
    interp = oracle.load(path)
    sets = tie_inputs((batches, k), rng)[:-1]  # the last set is all zero
    refs = [oracle.run(path, [x], interp=interp) for x in sets]
    for i, (x, ref) in enumerate(zip(sets, refs)):
        proc, got = mpcc_run(path, [x], tmp_path, n_out=1, mpcc=MPCC_ASAN)
        assert proc.returncode == 0, proc.stderr
        assert_same(f"mpcc run, input set {i}", ref, got)
    for opt in ([], ["-O0"]):
        sub = tmp_path / ("O0" if opt else "O2")
        sub.mkdir()
        assert compile_model(path, sub, extra=opt).returncode == 0
        src = (sub / "model.c").read_text()
        if not opt:  # the scheduled C holds the weights packed: n rows of k / 2 bytes (k padded to 64)
            assert "rt_opt_fc_hybrid_w4(" in src and "uint8_t" in src, src[:2000]
        # -march=native: the AVX2 path where the machine has it
        assert_exe_same(sub, sets, refs, f"generated C (mpcc {' '.join(opt) or '-O2'})", "gcc-O2" if opt else "gcc-native")


def test_fc_int4_weights_stay_packed(seed, tmp_path):
    """The scheduled C holds the 64 x 256 INT4 weights in 8192 bytes (half of int8's), and no
    unpacked copy."""
    rng = np.random.default_rng(seed)
    path = tmp_path / "fc_int4.tflite"
    path.write_bytes(fc_int4_model(rng, 1, 256, 64))
    proc = run_cmd([MPCC, path, "-o", tmp_path / "m.c"])
    assert proc.returncode == 0, proc.stderr
    src = (tmp_path / "m.c").read_text()
    assert re.search(r"static const uint8_t \w*w_int4_int4\[8192\](?: MPCC_CONST_ALIGN)? = \{", src), src[:3000]
    assert not re.search(r"int8_t \w*w_int4\[16384\]", src)
    assert "rt_opt_fc_hybrid_w4(" in src


@pytest.mark.parametrize("what,raw,message", [
    ("short", b"\x12" * 10, "INT4 buffer 1 has 10 bytes but shape needs 64"),
    ("long", b"\x12" * 65, "INT4 buffer 1 has 65 bytes but shape needs 64"),
])
def test_fc_int4_bad_buffer(what, raw, message, seed, tmp_path):
    rng = np.random.default_rng(seed)
    path = tmp_path / f"fc_int4_{what}.tflite"
    path.write_bytes(fc_int4_model(rng, 1, 16, 8, raw=raw))
    proc = run_cmd([MPCC, path, "-o", tmp_path / "m.c"])
    assert proc.returncode == 1 and message in proc.stderr and "w_int4" in proc.stderr, proc.stderr


def test_int4_activation_rejected(tmp_path):
    """An INT4 tensor that is not a constant (here the FC's input) is refused with its name."""
    t_in = tensor("x_int4", [1, 16], TT.INT4)
    t_in.quantization = S.QuantizationParametersT()
    t_in.quantization.scale, t_in.quantization.zeroPoint = [0.1], [0]
    tensors = [t_in, tensor("y", [1, 16], TT.INT4)]
    op = operator(0, [0], [1])
    path = tmp_path / "int4_act.tflite"
    path.write_bytes(pack(model(tensors, [op], [OP.RELU], [buffer()], [0], [1])))
    proc = run_cmd([MPCC, path, "-o", tmp_path / "m.c"])
    assert proc.returncode == 1 and "'x_int4': dtype INT4 is supported only for constant weights" in proc.stderr, \
        proc.stderr


# ---- Block-wise INT4 (BlockwiseQuantization: litert-torch's dynamic_int4_block32/128) --------------------

def fc_block_model(rng, batches, k, n, block, bias=True, asymmetric=False, edit=None):
    """f32 [batches, k] -> FULLY_CONNECTED (version 5, as litert-torch writes it) with INT4 weights [n, k] whose
    quantization details are BlockwiseQuantization: fp16 scales [n, k / block] in tensor 3, no zero points.
    edit(weights tensor, scales tensor, details) may break it."""
    q = rng.integers(-8, 8, (n, k)).astype(np.int8)
    nb = max(k // block, 1)
    scales = rng.uniform(0.005, 0.05, (n, nb)).astype(np.float16)
    w = tensor("w_int4", [n, k], TT.INT4, 1)
    w.quantization = S.QuantizationParametersT()
    det = S.BlockwiseQuantizationT()
    det.scales, det.zeroPoints, det.blockSize = 3, -1, block
    w.quantization.detailsType, w.quantization.details = S.QuantizationDetails.BlockwiseQuantization, det
    st = tensor("w_scales", [n, nb], TT.FLOAT16, 2)
    tensors = [tensor("x", [batches, k]), w, tensor("y", [batches, n]), st]
    buffers = [buffer(), buffer(pack_int4(q)), buffer(scales.tobytes())]
    inputs = [0, 1]
    if bias:
        tensors.append(tensor("b", [n], TT.FLOAT32, 3))
        buffers.append(buffer(rng.uniform(-1, 1, n).astype(np.float32).tobytes()))
        inputs.append(4)
    if edit:
        edit(w, st, det)
    opts = S.FullyConnectedOptionsT()
    opts.asymmetricQuantizeInputs = asymmetric
    op = operator(0, inputs, [2], S.BuiltinOptions.FullyConnectedOptions, opts)
    return pack(model(tensors, [op], [(OP.FULLY_CONNECTED, 5)], buffers, [0], [2]))


def tflite_builtin(path, x):
    """TFLite's builtin optimized kernels: its reference kernels do not run block-wise weights, and XNNPACK
    rounds the fp16 scales to bf16 (docs/int4.md)."""
    from ai_edge_litert.interpreter import Interpreter, OpResolverType
    it = Interpreter(model_path=str(path), experimental_op_resolver_type=OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES)
    it.allocate_tensors()
    it.set_tensor(it.get_input_details()[0]["index"], x)
    it.invoke()
    return it.get_tensor(it.get_output_details()[0]["index"])


BLOCK_CASES = [  # batches, k, n, block, bias, asymmetric
    (1, 256, 20, 32, True, False),   # decode, litert-torch's block32
    (5, 128, 9, 64, False, False),   # prefill rows, a partial 4-row group
    (3, 384, 6, 128, True, True),    # block128, the option set (the kernel quantizes asymmetrically anyway)
    (2, 48, 5, 16, True, False),     # a block under 32 values: the kernel's scalar path
]


@pytest.mark.parametrize("batches,k,n,block,bias,asymmetric", BLOCK_CASES,
                         ids=[f"b{c[0]}_k{c[1]}_n{c[2]}_blk{c[3]}" for c in BLOCK_CASES])
def test_fc_int4_blockwise(batches, k, n, block, bias, asymmetric, seed, tmp_path):
    """mpcc run, the reference C (-O0) and the scheduled C (-O2, -march=native) equal TFLite's builtin kernel bit
    for bit (its float steps in its order: docs/int4.md)."""
    rng = np.random.default_rng(seed)
    path = tmp_path / "fc_blk.tflite"
    path.write_bytes(fc_block_model(rng, batches, k, n, block, bias, asymmetric))
    sets = [(rng.standard_normal((batches, k)) * 3 + 0.5).astype(np.float32) for _ in range(2)]
    refs = [[tflite_builtin(path, x)] for x in sets]
    for i, (x, ref) in enumerate(zip(sets, refs)):
        proc, got = mpcc_run(path, [x], tmp_path, n_out=1)
        assert proc.returncode == 0, proc.stderr
        assert_same(f"mpcc run, input set {i}", ref, got)
    outs = {}
    for opt in ([], ["-O0"]):
        sub = tmp_path / ("O0" if opt else "O2")
        sub.mkdir()
        assert compile_model(path, sub, extra=opt).returncode == 0
        if not opt:
            assert "rt_opt_fc_hybrid_w4(" in (sub / "model.c").read_text()
        write_harness(sub, 1, 1)
        proc, exe = build_exe(sub, "gcc-O2" if opt else "gcc-native")
        assert proc.returncode == 0, proc.stderr[-3000:]
        mine = []
        for x, ref in zip(sets, refs):
            proc, got = run_exe(exe, [x], [(r.dtype, r.shape) for r in ref], sub)
            assert proc.returncode == 0, proc.stderr[-3000:]
            mine.append(got)
        for i, (ref, got) in enumerate(zip(refs, mine)):
            assert_same(f"generated C (mpcc {' '.join(opt) or '-O2'}), input set {i}", ref, got)
        outs[bool(opt)] = mine
    for a, b in zip(outs[False], outs[True]):
        assert a[0].tobytes() == b[0].tobytes(), "scheduled and reference C differ"


def _bad_scales_index(w, st, det):
    det.scales = 99


def _bad_scales_shape(w, st, det):
    st.shape = [st.shape[1], st.shape[0]]  # as many bytes, transposed


def _bad_scales_dtype(w, st, det):
    st.type = TT.INT16  # as many bytes


def _bad_block(w, st, det):
    det.blockSize = 24


def _zero_points(w, st, det):
    det.zeroPoints = 3


@pytest.mark.parametrize("edit,message", [
    (_bad_scales_index, "tensor 1 'w_int4': block-wise scales tensor index 99 out of range"),
    (_bad_scales_shape, "block-wise scales tensor 3 'w_scales' has rank 2 shape [2, 8], want [8, 2]"),
    (_bad_scales_dtype, "block-wise scales tensor 3 'w_scales' is i16, not FLOAT16"),
    (_bad_block, "tensor 1 'w_int4': block size 24 does not divide its input depth 64"),
    (_zero_points, "tensor 1 'w_int4': block-wise zero points (tensor 3) are not supported"),
], ids=["scales_index", "scales_shape", "scales_dtype", "block_size", "zero_points"])
def test_fc_int4_blockwise_malformed(edit, message, seed, tmp_path):
    rng = np.random.default_rng(seed)
    path = tmp_path / "fc_blk_bad.tflite"
    path.write_bytes(fc_block_model(rng, 1, 64, 8, 32, edit=edit))
    proc = run_cmd([MPCC, path, "-o", tmp_path / "m.c"])
    assert proc.returncode == 1 and message in proc.stderr and "internal" not in proc.stderr, proc.stderr
