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
