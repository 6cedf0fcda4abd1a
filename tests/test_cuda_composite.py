"""--target cuda with STABLEHLO_COMPOSITE (docs/cuda-control-flow.md): each composite calls its
decomposition subgraph's host function with the op's scratch as the callee's arena, as the C target
does, and without a host sync, so the model still runs captured into a CUDA graph. The only
composite models are litert-torch's decoders (tools/models/llm.py): llm_tiny_llama_f32's two
signatures (prefill_8 = subgraph 0, decode = subgraph 1: RMSNorm, attention and KV-cache composites)
and subgraph 0 through PREFIX_cuda_run_graph, on one emulator context, against TFLite's signature
runners with a printed seed. llm_tiny_llama_q8 (dynamic-range int8 weights) also has the hybrid
EMBEDDING_LOOKUP (int8 table, f32 out) and hybrid FULLY_CONNECTEDs inside its decode subgraph and
its composites' decompositions: their run-time quantized inputs live in the one tail past the whole
model's arena (docs/cuda-hybrid.md); it runs the same checks in make test-full."""

import re

import numpy as np
import pytest

import oracle
from compare import compare_arrays
from mpcc_paths import MODELS_DIR
from mpcc_tools import new_workdir, run_cmd
from test_cuda import MPCC, REFUSED, _rel_l2, _run_emu
from test_cuda_cf import _build_driver, _driver

pytestmark = pytest.mark.xdist_group("cuda")

CACHE = 64  # the KV cache length of the tiny decoders


def _feeds(runner, rng, n_pos):
    """Random inputs of one signature: tokens in the vocabulary, n_pos consecutive positions within
    the cache, random caches."""
    feeds = {}
    start = int(rng.integers(0, CACHE - n_pos + 1))
    for name, det in runner.get_input_details().items():
        shape, dtype = det["shape"], det["dtype"]
        if name == "tokens":
            feeds[name] = rng.integers(0, 256, size=shape).astype(dtype)
        elif name == "input_pos":
            feeds[name] = np.arange(start, start + n_pos).reshape(shape).astype(dtype)
        else:
            feeds[name] = rng.standard_normal(shape).astype(dtype)
    return feeds


def _composites_on_the_emulator(name, seed, tol):
    model, prefix = MODELS_DIR / f"{name}.tflite", "l0"
    work = new_workdir("cuda-composite")
    p = run_cmd([MPCC, "--target", "cuda", model, "-o", work / f"{prefix}.cu", "--name", prefix])
    assert p.returncode == 0, p.stderr
    src = (work / f"{prefix}.cu").read_text()
    assert re.search(rf"{prefix}_subgraph\d+\(ctx, s, in, out, a \+ \d+\)", src), "no composite call with its scratch"
    header = (work / f"{prefix}.h").read_text()
    assert "run_graph runs it" not in header, "a composite must not make the model run uncaptured"
    rng = np.random.default_rng(seed)
    # TFLite's reference kernels: with its default XNNPACK delegate the hybrid FULLY_CONNECTEDs
    # quantize their inputs another way (2e-3 relative L2 off on the q8 decoder's caches)
    interp = oracle.load(model, "ref")
    steps, checks = [], []
    # (signature, C name, function, positions per run)
    for key, c, fn, n_pos in [("prefill_8", "prefill_8", f"{prefix}_prefill_8_cuda_run", 8),
                              ("decode", "decode", f"{prefix}_decode_cuda_run", 1),
                              ("prefill_8", "prefill_8", f"{prefix}_cuda_run_graph", 8)]:
        E = f"{prefix.upper()}_{c.upper()}"
        names = lambda kind: re.findall(rf'#define {E}_{kind}\d+_NAME "([^"]*)"', header)  # noqa: E731
        runner = interp.get_signature_runner(key)
        feeds = _feeds(runner, rng, n_pos)
        ins = [feeds[n] for n in names("INPUT")]
        out = runner(**feeds)
        ref = [out[n] for n in names("OUTPUT")]
        tag = f"{prefix}_{len(steps)}"
        steps.append((fn, tag, ins, [r.nbytes for r in ref], False))
        checks.append((f"{key} through {fn}", tag, ins, ref))
        for i, a in enumerate(ins):
            np.ascontiguousarray(a).tofile(work / f"{tag}_in{i}.bin")
    (work / "driver.cu").write_text(_driver([(prefix, steps)]))
    exe = work / "composite-emu"
    _build_driver(work, exe)
    r = run_cmd([exe, work], timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    for what, tag, _, refs in checks:
        for i, want in enumerate(refs):
            got = np.fromfile(work / f"{tag}_out{i}.bin", dtype=want.dtype).reshape(want.shape)
            ok, msg = compare_arrays(want, got, mode="opt")
            assert ok and _rel_l2(want, got) <= tol, f"{what} output {i} (seed {seed}): {msg}"
    print(f"\nemulated CUDA: {name}, {len(checks)} runs through its composites match TFLite (seed {seed})")
    return src


def test_llm_composites_on_the_emulator(seed):
    _composites_on_the_emulator("llm_tiny_llama_f32", seed, 1e-4)


@pytest.mark.full
def test_q8_decoder_composites_on_the_emulator(seed):
    """Both signatures of the dynamic-range int8 decoder: its hybrid FULLY_CONNECTEDs run in
    subgraph 0, in the decode subgraph and in composite decompositions, all on one tail."""
    src = _composites_on_the_emulator("llm_tiny_llama_q8", seed, 1e-4)
    assert "ctx->arena) +" in src, "no hybrid op of a subgraph addressing the tail"


def test_q8_decoder_compiles_with_subgraph_hybrid_ops():
    """The q8 decoder compiles (no op refused); its subgraphs' hybrid ops share subgraph 0's tail,
    which lies past the whole arena, so ARENA_BYTES counts it."""
    work = new_workdir("cuda-q8")
    p = run_cmd([MPCC, "--target", "cuda", MODELS_DIR / "llm_tiny_llama_q8.tflite", "-o", work / "m.cu"])
    assert p.returncode == 0 and REFUSED not in p.stderr, p.stderr
    src, header = (work / "m.cu").read_text(), (work / "m.h").read_text()
    arena = int(re.search(r"#define M_ARENA_BYTES (\d+)", header).group(1))
    tails = {int(t) for t in re.findall(r"p\.q = \(int8_t \*\)\((?:a|\(\(unsigned char \*\)ctx->arena\)) \+ (\d+)\)", src)}
    subs = re.findall(r"p\.q = \(int8_t \*\)\(\(\(unsigned char \*\)ctx->arena\) \+ \d+\)", src)
    assert len(tails) == 1 and subs, "every hybrid op, subgraphs' included, must use the one tail"
    assert 0 < tails.pop() < arena, header


@pytest.mark.full
@pytest.mark.parametrize("name", ["llm_tiny_llama_f32", "llm_tiny_llama_q8"])
def test_llm_decoder_subgraph0_on_the_emulator(name, seed):
    """Subgraph 0 (prefill_8) against `mpcc run`, through run and run_graph."""
    for graph in (False, True):
        errs = _run_emu(MODELS_DIR / f"{name}.tflite", [], seed, 1e-4, graph=graph)
        assert errs is not None, f"{name} is refused for --target cuda"
        assert all(e <= 1e-4 for e in errs), f"{name} (seed {seed}, graph {graph}): {errs}"
