"""The tiny Llama-style decoder exported by litert-torch (tools/models/llm.py): greedy generation
with mpcc's generated C against the TFLite interpreter on the same file (docs/llm-exports.md).

A random prompt of 9 tokens (printed seed): the `prefill_8` signature writes the first 8 into the
KV caches (positions 0..7), then `decode` steps carry the caches: the 9th prompt token at position
8, then each generated token, 32 in all. mpcc's side is one C program (the generated code built
with -Werror -pedantic) running the whole loop, TFLite's the same loop over its signature
runners. The tokens must be identical and every step's logits within the float rule (mode opt).
"""

import re

import numpy as np
import pytest

from llm_gen import (PROMPT, build_generation, drift_of, generate_and_compare, generation_main,
                     logits_within_rule, tflite_generate, tokens_agree)
from mpcc_paths import MODELS_DIR, ROOT
from mpcc_tools import SAN_ENV, build_with_main, compile_model, new_workdir, run_cmd


# gcc-native: the machine's vector kernels (on AVX512-VNNI the hybrid FCs' GEMM and GEMV, the quantizer).
# Hybrid decoders (q8, q4) take the input-quantization rule (llm_gen.HYBRID_DRIFT); the q4 oracle is TFLite's
# builtin kernels (the reference kernels do not run block-wise INT4 weights), whose SOFTMAX and LOGISTIC differ
# from the reference kernels mpcc follows in the last bits (docs/int4.md).
@pytest.mark.parametrize("config", ["gcc-O2", "gcc-native"])
@pytest.mark.parametrize("name", ["llm_tiny_llama_f32", "llm_tiny_llama_q8", "llm_tiny_llama_q4"])
def test_greedy_generation_matches_tflite(name, config, seed):
    model = MODELS_DIR / f"{name}.tflite"
    work, exe = build_generation(model, config)
    drift = drift_of(model)
    got_logits, ref_logits = generate_and_compare(model, work, exe, seed, tie=drift)
    logits_within_rule(got_logits, ref_logits, drift)


# 2 threads: the code compiled with --threads 2 and --threads-min-macs 1 (every threaded kernel forks,
# even the tiny model's: the hybrid FCs split rows or output channels, SDPA its heads, the f32 GEMMs);
# under ASan+UBSan, and ThreadSanitizer where the compiler has it. q4: the block-wise INT4 FCs split their
# output groups (rt_opt_fc_hybrid_w4_par). Tokens: TFLite's (hybrid decoders: llm_gen.tokens_agree's tie rule)
# and bit for bit one thread's.
@pytest.mark.parametrize("config", ["gcc-native", "gcc-san", "gcc-tsan"])
@pytest.mark.parametrize("name", ["llm_tiny_llama_f32", "llm_tiny_llama_q8", "llm_tiny_llama_q4"])
def test_two_threads_generate_tflites_tokens(name, config, seed):
    model = MODELS_DIR / f"{name}.tflite"
    work = new_workdir(f"{name}-t2-{config}")
    p = compile_model(model, work, extra=["--threads", "2", "--threads-min-macs", "1"])
    assert p.returncode == 0, p.stderr
    header = (work / "model.h").read_text()
    for entry in ("prefill_8", "decode"):
        assert f"int model_{entry}_run_parallel(const void *const *inputs, void *const *outputs, void *arena," in header
    code = (work / "model.c").read_text()
    assert re.search(r"rt_opt_sdpa_f32\(&p, .*, par\);", code), "SDPA takes no parallel-for"
    if name.endswith("q8"):
        assert re.search(r"rt_opt_fc_hybrid_par\(&p, .*, 2, par\);", code), "hybrid FCs take no parallel-for"
    if name.endswith("q4"):
        assert re.search(r"rt_opt_fc_hybrid_w4_par\(&p, .*, 2, par\);", code), "int4 FCs take no parallel-for"
    pool = ROOT / "runtime" / "threads" / "mpcc_pool.c"
    built = {}
    for threads in (0, 2):
        (work / f"t{threads}").mkdir()
        wd = work / f"t{threads}"
        (wd / "model.c").write_text(code)
        (wd / "model.h").write_text(header)
        proc, exe = build_with_main(wd, generation_main(header, threads), config=config,
                                    extra=[pool, "-pthread"] if threads else ())
        assert proc.returncode == 0, proc.stderr[-3000:]
        built[threads] = exe
    rng = np.random.default_rng(seed)
    prompt = rng.integers(0, 256, PROMPT, dtype=np.int32)
    got = {}
    for threads, exe in built.items():
        wd = work / f"t{threads}"
        prompt.tofile(wd / "prompt.bin")
        proc = run_cmd([exe, wd, "inplace"], env=SAN_ENV, timeout=600)
        assert proc.returncode == 0, (threads, proc.returncode, proc.stderr[-3000:])
        got[threads] = (np.fromfile(wd / "tokens.bin", np.int32), (wd / "logits.bin").read_bytes())
    ref_tokens, ref_logits = tflite_generate(model, prompt)
    print(f"prompt {prompt.tolist()}\ntokens {ref_tokens.tolist()}")
    tokens_agree(got[2][0], ref_tokens, ref_logits, drift_of(model))
    # Both threads' shares are computed by the same steps: the same bits as one thread.
    assert got[2][0].tolist() == got[0][0].tolist() and got[2][1] == got[0][1]


def edited_model(path, edit):
    """llm_tiny_llama_f32 with edit(model, composites) applied; composites: (subgraph, op index,
    operator) of every STABLEHLO_COMPOSITE, in model order."""
    from ai_edge_litert import schema_py_generated as S
    from schema_models import pack
    m = S.ModelT.InitFromPackedBuf((MODELS_DIR / "llm_tiny_llama_f32.tflite").read_bytes(), 0)
    codes = [max(c.builtinCode, c.deprecatedBuiltinCode) for c in m.operatorCodes]
    comps = [(s, i, op) for s, sg in enumerate(m.subgraphs) for i, op in enumerate(sg.operators)
             if codes[op.opcodeIndex] == S.BuiltinOperator.STABLEHLO_COMPOSITE]
    edit(m, comps)
    path.write_bytes(pack(m))
    return path


def composite_name(op):
    return op.builtinOptions2.name.decode()


def test_composite_errors_name_the_operator(tmp_path):
    """A decomposition index out of range, a composite that calls its own subgraph, and one whose
    decomposition does not take its inputs: exit 1, the operator and subgraph named."""
    from test_cli import mpcc

    def out_of_range(m, comps):
        comps[0][2].builtinOptions2.decompositionSubgraphIndex = 99

    def recursive(m, comps):
        s, _, op = comps[0]
        op.builtinOptions2.decompositionSubgraphIndex = s

    def mismatched(m, comps):
        # An RMSNorm composite pointed at an attention decomposition (other inputs).
        norm = next(c for c in comps if composite_name(c[2]) == "odml.rms_norm")
        sdpa = next(c for c in comps if composite_name(c[2]) == "odml.scaled_dot_product_attention")
        norm[2].builtinOptions2.decompositionSubgraphIndex = sdpa[2].builtinOptions2.decompositionSubgraphIndex

    for edit, want in ((out_of_range, r"operator \d+ \(STABLEHLO_COMPOSITE\): subgraph index 99 out of range"),
                       (recursive, r"subgraph \d+ is called from subgraph \d+ while it runs"),
                       (mismatched, r"operator \d+ \(STABLEHLO_COMPOSITE\): decomposition \(subgraph \d+\) has "
                                    r"\d+ inputs and \d+ outputs, the op passes \d+ and takes \d+")):
        model = edited_model(tmp_path / f"{edit.__name__}.tflite", edit)
        p = mpcc(model, "-o", tmp_path / "m.c")
        assert p.returncode == 1, (edit.__name__, p.returncode, p.stderr)
        assert re.search(want, p.stderr), (edit.__name__, p.stderr)
        assert "internal error" not in p.stderr and not (tmp_path / "m.c").exists(), p.stderr


def rms_norm_decomposition_edit(m, comps):
    """The first odml.rms_norm's decomposition made y = MUL(n, x) in place of MUL(n, w): no longer an
    RMSNorm (mpcc must call the decomposition)."""
    _, _, op = next(c for c in comps if composite_name(c[2]) == "odml.rms_norm")
    sub = m.subgraphs[op.builtinOptions2.decompositionSubgraphIndex]
    x, w = sub.inputs[0], sub.inputs[1]
    last = next(o for o in sub.operators if list(o.outputs) == [sub.outputs[0]])
    last.inputs = [x if int(t) == w else int(t) for t in last.inputs]


@pytest.mark.parametrize("config", ["gcc-O2", "gcc-native"])
def test_rms_norm_composite_runs_one_kernel(tmp_path, config, seed):
    """Every odml.rms_norm composite runs rt_opt_rms_norm_f32 (SCHED_RMS_NORM) instead of a call of its
    decomposition, with the decomposition's bits: the generation (32 decode steps, tokens and logits)
    is byte for byte that of the same model whose composites are renamed (which calls the
    decompositions). A decomposition that is not an RMSNorm is called as before."""
    def rename(m, comps):
        for _, _, op in comps:
            if composite_name(op) == "odml.rms_norm":
                op.builtinOptions2.name = b"odml.rms_norm_renamed"

    original = MODELS_DIR / "llm_tiny_llama_f32.tflite"
    renamed = edited_model(tmp_path / "renamed.tflite", rename)
    out = {}
    for model in (original, renamed):
        work, exe = build_generation(model, config)
        code = (work / "model.c").read_text()
        fused = len(re.findall(r"rt_opt_rms_norm_f32\(&p, ", code))
        called = code.count("/* composite odml.rms_norm")
        if model == original:
            assert fused == 8 and called == 0, (fused, called)
        else:
            assert fused == 0 and called == 8, (fused, called)
        prompt = np.random.default_rng(seed).integers(0, 256, PROMPT, dtype=np.int32)
        prompt.tofile(work / "prompt.bin")
        proc = run_cmd([exe, work], timeout=300)
        assert proc.returncode == 0, proc.stderr[-2000:]
        out[model] = (work / "tokens.bin").read_bytes(), (work / "logits.bin").read_bytes()
    assert out[original] == out[renamed], "the RMSNorm kernel's results differ from its decomposition's"

    edited = edited_model(tmp_path / "not_rms.tflite", rms_norm_decomposition_edit)
    work = new_workdir("rms-norm-edited")
    p = compile_model(edited, work)
    assert p.returncode == 0, p.stderr
    code = (work / "model.c").read_text()
    assert code.count("/* composite odml.rms_norm: its decomposition") >= 1
    assert len(re.findall(r"rt_opt_rms_norm_f32\(&p, ", code)) < 8
