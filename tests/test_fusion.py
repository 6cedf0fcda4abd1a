"""Fusion and scheduling passes on small purpose-built models (tests/fusion, made by
tests/fusion/make_fusion.py; cases.json says what each model must show in the IR dump).

For every model:
  - test_fusion_ir: `mpcc MODEL --dump-ir` shows the intended rewrite on the consuming op's line
    (`fused: TRANSPOSE` where a TRANSPOSE folds into BATCH_MATMUL, none where it must not, and
    `schedule=KIND`), the expected number of TRANSPOSE ops survives, and at -O0 nothing is fused
    or scheduled;
  - test_fusion_generated_c_matches: what test_models.py's test_generated_c_matches does: the
    scheduled C (default optimization) built in gcc -O2, gcc -O0 + ASan/UBSan and gcc -O3
    -march=native, and the reference-only C (mpcc -O0, gcc -O2), equal TFLite (reference kernels)
    and `mpcc run` on the same random inputs (seed printed, never all zero);
  - test_fusion_models_up_to_date: make_fusion.py regenerates the committed files byte for byte.
"""

import json
import re
import shutil
import sys
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

import oracle
from mpcc_paths import MPCC, TESTS_DIR
from mpcc_tools import CONFIGS, compile_model, mpcc_run, new_workdir, run_cmd, write_harness
from test_models import _build_and_run, _check

FUSION_DIR = TESTS_DIR / "fusion"
CASES = json.loads((FUSION_DIR / "cases.json").read_text())["cases"]
# The scheduled C is built in these; the reference C (mpcc -O0) in gcc-O2.
SCHED_CONFIGS = [c for c in ("gcc-O2", "gcc-san", "gcc-native") if c in CONFIGS]
OP_LINE = re.compile(r"^\s*op (\d+) \[tflite #(\d+)\] (\S+)(.*)$")


def _case_id(case):
    return case["model"].rsplit(".", 1)[0]


def _dump_ops(model, *extra):
    """{tflite op index: (name, rest of the line, the whole line)} from `mpcc MODEL --dump-ir`."""
    proc = run_cmd([MPCC, model, "--dump-ir", *extra])
    assert proc.returncode == 0, f"mpcc --dump-ir {' '.join(extra)} failed (exit {proc.returncode}): {proc.stderr}"
    ops = {}
    for line in proc.stdout.splitlines():
        m = OP_LINE.match(line)
        if m:
            ops[int(m.group(2))] = (m.group(3), m.group(4), line.strip())
    assert ops, f"no op lines in the dump:\n{proc.stdout}"
    return ops


@pytest.mark.parametrize("case", CASES, ids=_case_id)
def test_fusion_ir(case):
    model = FUSION_DIR / case["model"]
    ops = _dump_ops(model)
    for idx, exp in case["expect"].items():
        assert int(idx) in ops, f"TFLite op #{idx} ({exp['op']}) is missing from the dump: {ops}"
        name, rest, line = ops[int(idx)]
        print(f"dump: {line}")
        assert name == exp["op"], f"TFLite op #{idx} is {name}, expected {exp['op']}: {line}"
        fused = re.search(r"\(fused: ([^)]*)\)", rest)
        if "fused" in exp:
            if exp["fused"]:
                assert fused and fused.group(1) == exp["fused"], f"expected (fused: {exp['fused']}): {line}"
            else:
                assert not fused, f"nothing may be fused into this op: {line}"
        if "fused_contains" in exp:
            assert fused and exp["fused_contains"] in fused.group(1), f"expected fused {exp['fused_contains']}: {line}"
        if "schedule" in exp:
            assert f" schedule={exp['schedule']} " in rest + " ", f"expected schedule={exp['schedule']}: {line}"
        if "direct" in exp:
            assert (" direct" in rest) == exp["direct"], f"expected {'' if exp['direct'] else 'not '}direct: {line}"
    if case["transposes"] is not None:
        left = [line for name, _, line in ops.values() if name == "TRANSPOSE"]
        for line in left:
            print(f"dump: {line}")
        assert len(left) == case["transposes"], f"{len(left)} TRANSPOSE ops left, expected {case['transposes']}"
    # The reference path: nothing fused, nothing scheduled, every TFLite op still there.
    ref = _dump_ops(model, "-O0")
    for name, rest, line in ref.values():
        assert "fused:" not in rest and "schedule=" not in rest, f"-O0 must not fuse or schedule: {line}"
    assert len(ref) >= len(ops)


@pytest.mark.parametrize("case", CASES, ids=_case_id)
def test_fusion_generated_c_matches(case, seed):
    model = FUSION_DIR / case["model"]
    inputs, refs = oracle.oracle(model, seed)
    work = new_workdir("fusion-" + _case_id(case))
    proc = compile_model(model, work)
    assert proc.returncode == 0, f"mpcc compile failed (exit {proc.returncode}): {proc.stderr.strip()}"
    write_harness(work, len(inputs), len(refs))
    ref_work = work / "O0"
    ref_work.mkdir()
    proc = compile_model(model, ref_work, extra=["-O0"])
    assert proc.returncode == 0, f"mpcc -O0 compile failed (exit {proc.returncode}): {proc.stderr.strip()}"
    write_harness(ref_work, len(inputs), len(refs))
    proc, interp_outs = mpcc_run(model, inputs, work, n_out=len(refs))
    assert proc.returncode == 0, f"mpcc run failed (exit {proc.returncode}): {proc.stderr.strip()}"
    _check("mpcc run vs TFLite", refs, interp_outs)
    specs = [(r.dtype, r.shape) for r in refs]
    jobs = [(work, c) for c in SCHED_CONFIGS] + [(ref_work, "gcc-O2")]
    with ThreadPoolExecutor(max_workers=2) as pool:
        results = list(pool.map(lambda j: _build_and_run(j[0], j[1], inputs, specs), jobs))
    errors = [err for err, _ in results if err]
    assert not errors, "\n".join(errors)
    for (w, config), (_, outs) in zip(jobs, results):
        what = f"generated C ({config})" if w == work else f"generated C (mpcc -O0, {config})"
        mode = "opt" if w == work else "ref"  # scheduled kernels sum in another order
        _check(f"{what} vs TFLite", refs, outs, mode=mode)
        _check(f"{what} vs mpcc run", interp_outs, outs, mode=mode)
    shutil.rmtree(work, ignore_errors=True)


def test_fusion_models_up_to_date():
    sys.path.insert(0, str(FUSION_DIR))
    try:
        import make_fusion
    finally:
        sys.path.remove(str(FUSION_DIR))
    files = make_fusion.generate()
    committed = {p.name for p in FUSION_DIR.glob("*.tflite")} | {"cases.json"}
    assert set(files) == committed, f"stale or missing files: {sorted(set(files) ^ committed)}"
    stale = [n for n, data in files.items() if (FUSION_DIR / n).read_bytes() != data]
    assert not stale, f"rerun tests/fusion/make_fusion.py: these differ from what it writes: {stale}"
    for n, data in files.items():
        assert len(data) < 100 * 1024, f"{n}: {len(data)} bytes"


def _arena_bytes(model, *extra):
    proc = run_cmd([MPCC, model, "--report", "-o", str(new_workdir("arena") / "m.c"), *extra])
    assert proc.returncode == 0, f"mpcc --report failed (exit {proc.returncode}): {proc.stderr}"
    m = re.search(r"^arena: (\d+) bytes", proc.stdout + proc.stderr, re.M)
    assert m, f"no arena line in the report:\n{proc.stdout}"
    return int(m.group(1))


def test_fused_attention_arena_grows_linearly():
    """The fused attention never stores the [Lq, Lk] scores: from sequence 128 to 512 its arena grows
    about 4x (linear), where the unfused graph (-O0) grows about 16x (quadratic)."""
    a128, a512 = (_arena_bytes(FUSION_DIR / f"attn_seq{s}_f32.tflite") for s in (128, 512))
    r128, r512 = (_arena_bytes(FUSION_DIR / f"attn_seq{s}_f32.tflite", "-O0") for s in (128, 512))
    print(f"arena fused: seq 128 {a128} B, seq 512 {a512} B (x{a512 / a128:.2f}); "
          f"unfused (-O0): {r128} B, {r512} B (x{r512 / r128:.2f})")
    assert a512 <= 4.5 * a128, "the fused attention's arena grows faster than linearly"
    assert r512 >= 12 * r128, "the unfused reference no longer shows the quadratic growth this test contrasts"
    assert a512 < r512 / 8


def test_attention_and_with_all_true_constant():
    """Keras's attention (zoo bert_f32) ANDs the padding mask with a constant [1, 2, 128, 128] mask that
    is true everywhere: the fused attention reads only the padding mask (m && true is m), and the
    constant is no longer emitted. (test_models checks the generated C against TFLite.)"""
    work = new_workdir("attn-all-true")
    proc = run_cmd([MPCC, TESTS_DIR / "models" / "bert_f32.tflite", "-o", work / "m.c"])
    assert proc.returncode == 0, proc.stderr
    src = (work / "m.c").read_text()
    masks = re.findall(r"\.n_mask = (\d+)", src)
    print(f"fused attentions: {len(masks)}, masks read: {masks}")
    assert masks and all(m == "1" for m in masks)
    assert "LOGICAL_AND" in src and "arith_constant2" not in src
    # A mask that is not all true still takes both operands (tests/fusion attn_and_mask: a causal one).
    proc = run_cmd([MPCC, FUSION_DIR / "attn_and_mask_f32.tflite", "-o", work / "a.c"])
    assert proc.returncode == 0, proc.stderr
    assert re.findall(r"\.n_mask = (\d+)", (work / "a.c").read_text()) == ["2"]


def test_int8_add_float_requant_recorded():
    """ResNet int8's residual ADDs (fused into their convolutions) are requantized in float, a choice
    pass schedule proves exact on all 65536 input pairs (sched_float_rq.c): --report says so per
    ADD, the generated C carries the constants and says how it was proven, and at -O0 (the reference
    path) none of it appears. (That the outputs stay bit-exact is test_models' check on the model.)"""
    model = TESTS_DIR / "models" / "resnet_int8.tflite"
    work = new_workdir("float_rq")
    proc = run_cmd([MPCC, model, "--report", "-o", str(work / "m.c")])
    assert proc.returncode == 0, proc.stderr
    adds = [ln for ln in proc.stdout.splitlines() if "+ADD(op" in ln]
    print("\n".join(adds))
    assert len(adds) == 4, f"expected the 4 residual ADDs fused:\n{proc.stdout}"
    assert all(re.search(r"float-requant \((every input pair|\d+ near-tie input pairs on the integer path)\)", ln)
               for ln in adds), adds
    code = (work / "m.c").read_text()
    assert code.count(".fq_mode = ") == 4 and code.count("requantized in float:") == 4
    proc = run_cmd([MPCC, model, "-O0", "-o", str(work / "ref.c")])
    assert proc.returncode == 0, proc.stderr
    assert ".fq_mode" not in (work / "ref.c").read_text()


def test_prelu_fused_into_conv():
    """pass fuse_prelu on the landmark CNN (tests/models, compared with TFLite end to end by
    test_models.py): a per-channel PRELU after an f32 convolution (alone, #0 -> #1, or after a fused
    residual ADD, #3 + #4 -> #5) runs in the convolution's epilogue; so does the stride-2 block's
    ADD #10 of conv #7 and the channel PAD #9 of MAX_POOL_2D #8 (pass shortcut runs #8 and #9 before
    #7), and its PRELU #11; none with 16-bit weights (--precision fp16: the 16-bit kernels have no such
    epilogue) or -O0."""
    ops = _dump_ops(TESTS_DIR / "models" / "landmark_f32.tflite")
    for idx, fused in ((0, "PRELU"), (3, "ADD, PRELU"), (7, "ADD, PAD, PRELU")):
        name, rest, line = ops[idx]
        print(f"dump: {line}")
        assert name == "CONV_2D" and f"(fused: {fused})" in rest, f"expected (fused: {fused}): {line}"
    assert not {1, 5, 9, 10, 11} & set(ops), "the fused PRELUs #1, #5, #11, PAD #9 and ADD #10 must be gone"
    assert ops[8][0] == "MAX_POOL_2D"
    for extra in (["--precision", "fp16"], ["-O0"]):
        other = _dump_ops(TESTS_DIR / "models" / "landmark_f32.tflite", *extra)
        assert other[1][0] == "PRELU" and "PRELU" not in other[0][1], f"{extra}: {other[0][2]}"


def _check_scheduled_and_o0(model, work, x, refs):
    """The generated C of model (one input x), scheduled and -O0, built with ASan/UBSan, against TFLite's refs."""
    specs = [(r.dtype, r.shape) for r in refs]
    for extra, sub, mode in (([], "opt", "opt"), (["-O0"], "O0", "ref")):
        w = work / sub
        w.mkdir()
        proc = compile_model(model, w, extra=extra)
        assert proc.returncode == 0, proc.stderr
        write_harness(w, 1, len(refs))
        err, outs = _build_and_run(w, "gcc-san", [x], specs)
        assert not err, err
        _check(f"generated C ({sub}) vs TFLite", refs, outs, mode=mode)


def _relu_chain_model(rng):
    """input [1,6,6,3] -> CONV_2D 3x3 (no activation) #0 -> RELU #1 -> DEPTHWISE 3x3 #2 -> RELU6 #3 ->
    ADD with the input of #2 (#4) -> RELU_N1_TO_1 #5 -> RESHAPE [1,288] #6 -> FULLY_CONNECTED 7 #7 ->
    RELU_0_TO_1 #8 (output 0); and CONV_2D 1x1 #9 on the model input -> RELU #10 (output 1) whose conv
    output is also output 2 (two readers: must not fuse). Weights from rng."""
    from schema_models import OP, S, TT, buffer, model, operator, pack, tensor
    w0 = rng.standard_normal((8, 3, 3, 3)).astype(np.float32) * 0.4
    wd = rng.standard_normal((1, 3, 3, 8)).astype(np.float32) * 0.4
    wf = rng.standard_normal((7, 288)).astype(np.float32) * 0.1
    w1 = rng.standard_normal((4, 1, 1, 3)).astype(np.float32)
    consts = [w0, rng.standard_normal(8).astype(np.float32), wd, rng.standard_normal(8).astype(np.float32), wf,
              rng.standard_normal(7).astype(np.float32) * 0.3, np.array([1, 288], np.int32), w1,
              np.zeros(4, np.float32)]
    bufs = [buffer()] + [buffer(c.tobytes()) for c in consts]
    T = [tensor("x", [1, 6, 6, 3]),
         tensor("w0", w0.shape, buffer=1), tensor("b0", [8], buffer=2), tensor("wd", wd.shape, buffer=3),
         tensor("bd", [8], buffer=4), tensor("wf", wf.shape, buffer=5), tensor("bf", [7], buffer=6),
         tensor("shape", [2], TT.INT32, buffer=7), tensor("w1", w1.shape, buffer=8), tensor("b1", [4], buffer=9),
         tensor("conv", [1, 6, 6, 8]), tensor("relu", [1, 6, 6, 8]), tensor("dw", [1, 6, 6, 8]),
         tensor("relu6", [1, 6, 6, 8]), tensor("add", [1, 6, 6, 8]), tensor("clip", [1, 6, 6, 8]),
         tensor("flat", [1, 288]), tensor("fc", [1, 7]), tensor("out0", [1, 7]),
         tensor("conv1", [1, 6, 6, 4]), tensor("out1", [1, 6, 6, 4])]
    ix = {t.name.decode(): i for i, t in enumerate(T)}

    def conv_opts():
        o = S.Conv2DOptionsT()
        o.padding, o.strideW, o.strideH, o.dilationWFactor, o.dilationHFactor = S.Padding.SAME, 1, 1, 1, 1
        return o

    dwo = S.DepthwiseConv2DOptionsT()
    dwo.padding, dwo.strideW, dwo.strideH, dwo.depthMultiplier = S.Padding.SAME, 1, 1, 1
    dwo.dilationWFactor = dwo.dilationHFactor = 1
    codes = [OP.CONV_2D, OP.RELU, OP.DEPTHWISE_CONV_2D, OP.RELU6, OP.ADD, OP.RELU_N1_TO_1, OP.RESHAPE,
             OP.FULLY_CONNECTED, OP.RELU_0_TO_1]
    c = {code: k for k, code in enumerate(codes)}
    ops = [
        operator(c[OP.CONV_2D], [ix["x"], ix["w0"], ix["b0"]], [ix["conv"]], S.BuiltinOptions.Conv2DOptions, conv_opts()),
        operator(c[OP.RELU], [ix["conv"]], [ix["relu"]]),
        operator(c[OP.DEPTHWISE_CONV_2D], [ix["relu"], ix["wd"], ix["bd"]], [ix["dw"]],
                 S.BuiltinOptions.DepthwiseConv2DOptions, dwo),
        operator(c[OP.RELU6], [ix["dw"]], [ix["relu6"]]),
        operator(c[OP.ADD], [ix["relu6"], ix["relu"]], [ix["add"]], S.BuiltinOptions.AddOptions, S.AddOptionsT()),
        operator(c[OP.RELU_N1_TO_1], [ix["add"]], [ix["clip"]]),
        operator(c[OP.RESHAPE], [ix["clip"], ix["shape"]], [ix["flat"]]),
        operator(c[OP.FULLY_CONNECTED], [ix["flat"], ix["wf"], ix["bf"]], [ix["fc"]],
                 S.BuiltinOptions.FullyConnectedOptions, S.FullyConnectedOptionsT()),
        operator(c[OP.RELU_0_TO_1], [ix["fc"]], [ix["out0"]]),
        operator(c[OP.CONV_2D], [ix["x"], ix["w1"], ix["b1"]], [ix["conv1"]], S.BuiltinOptions.Conv2DOptions,
                 conv_opts()),
        operator(c[OP.RELU], [ix["conv1"]], [ix["out1"]]),
    ]
    return pack(model(T, ops, codes, bufs, [ix["x"]], [ix["out0"], ix["out1"], ix["conv1"]]))


def test_standalone_relus_fold_into_producers(seed):
    """pass fuse_act: a standalone f32 RELU / RELU6 / RELU_N1_TO_1 / RELU_0_TO_1 folds into the CONV_2D,
    DEPTHWISE_CONV_2D, ADD or FULLY_CONNECTED that writes its input (their clamp becomes the intersection);
    not where the producer's output has another reader (a graph output), not at -O0. The generated C, scheduled
    and -O0, equals TFLite's reference kernels on random inputs (printed seed)."""
    rng = np.random.default_rng(seed)
    work = new_workdir("fuse-act")
    model = work / "relu_chain.tflite"
    model.write_bytes(_relu_chain_model(rng))
    ops = _dump_ops(model)
    for idx, name, fused in ((0, "CONV_2D", "RELU"), (2, "DEPTHWISE_CONV_2D", "RELU6"), (7, "FULLY_CONNECTED",
                                                                                          "RELU_0_TO_1")):
        print(f"dump: {ops[idx][2]}")
        assert ops[idx][0] == name and f"fused: {fused}" in ops[idx][1], ops[idx][2]
    # the ADD #4 takes RELU_N1_TO_1 #5, then pass fuse_add may move the ADD into the depthwise's consumer: either
    # way no RELU of #1, #3, #5, #8 is left, and #10 stays (its input is also output 2)
    assert not {1, 3, 5, 8} & set(ops), ops
    assert ops[10][0] == "RELU" and "fused" not in ops[9][1], ops[9][2]
    ref = _dump_ops(model, "-O0")
    assert {1, 3, 5, 8, 10} <= set(ref) and all("fused:" not in r for _, r, _ in ref.values())
    x = rng.uniform(-2, 2, (1, 6, 6, 3)).astype(np.float32)
    refs = oracle.run(model, [x])
    _check_scheduled_and_o0(model, work, x, refs)


def _tconv_relu_model(rng):
    """input [1,5,5,4] -> TRANSPOSE_CONV 3x3 stride 2 SAME (bias, no activation) [1,10,10,3] -> RELU6 (output).
    Weights from rng."""
    from schema_models import OP, S, TT, buffer, model, operator, pack, tensor
    w = rng.standard_normal((3, 3, 3, 4)).astype(np.float32) * 2.0
    b = rng.standard_normal(3).astype(np.float32)
    consts = [np.array([1, 10, 10, 3], np.int32), w, b]
    bufs = [buffer()] + [buffer(c.tobytes()) for c in consts]
    T = [tensor("x", [1, 5, 5, 4]), tensor("oshape", [4], TT.INT32, buffer=1), tensor("w", w.shape, buffer=2),
         tensor("b", [3], buffer=3), tensor("tc", [1, 10, 10, 3]), tensor("y", [1, 10, 10, 3])]
    o = S.TransposeConvOptionsT()
    o.padding, o.strideW, o.strideH = S.Padding.SAME, 2, 2
    ops = [operator(0, [1, 2, 0, 3], [4], S.BuiltinOptions.TransposeConvOptions, o), operator(1, [4], [5])]
    return pack(model(T, ops, [(OP.TRANSPOSE_CONV, 3), OP.RELU6], bufs, [0], [5]))


def test_relu_folds_into_transpose_conv(seed):
    """pass fuse_act takes a TRANSPOSE_CONV producer too (segnet's decoder, MediaPipe's
    Convolution2DTransposeBias): its clamp becomes RELU6's; -O0 keeps the RELU6. The generated C, scheduled and
    -O0, equals TFLite on random inputs (printed seed)."""
    rng = np.random.default_rng(seed)
    work = new_workdir("fuse-act-tconv")
    model = work / "tconv_relu.tflite"
    model.write_bytes(_tconv_relu_model(rng))
    ops = _dump_ops(model)
    print(f"dump: {ops[0][2]}")
    assert ops[0][0] == "TRANSPOSE_CONV" and "fused: RELU6" in ops[0][1] and 1 not in ops, ops
    assert 1 in _dump_ops(model, "-O0")
    x = rng.uniform(-2, 2, (1, 5, 5, 4)).astype(np.float32)
    refs = oracle.run(model, [x])
    assert (refs[0] == 6.0).any() and (refs[0] == 0.0).any(), "the inputs should reach both of RELU6's bounds"
    _check_scheduled_and_o0(model, work, x, refs)
