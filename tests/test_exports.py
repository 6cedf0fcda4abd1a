"""Converter-made models (docs/llm-exports.md, issue 44): what each file must hold to test what it is
meant to test, and the Hugging Face Llama exported by litert-torch's HF path generating greedily
with mpcc's C against TFLite's signature runners.

The single-signature models (torch_* from litert-torch, onnx_* from onnx2tf) run in
tests/test_models.py like every zoo model: `mpcc run` and the generated C against TFLite on random
inputs. hf_tiny_llama_{f32,q8} (tools/models/hf_export.py): a random 9-token prompt (printed seed),
`prefill_8` on the first 8, then 32 greedy `decode` steps, the additive causal mask built by the
caller (0 up to the query's position, -FLT_MAX after: the export takes it as an input), in one C
program built from the generated code (-Werror -pedantic), once with the caches copied between
steps and once passed in place (bit-identical); tokens identical, every step's logits
within the float rule (`opt`).
"""

import re

import numpy as np
import pytest

from compare import compare_arrays
from mpcc_paths import MODELS_DIR
from mpcc_tools import build_with_main, compile_model, new_workdir, run_cmd

PROMPT = 9          # prefill 8 + the first decode input
STEPS = 32
KV = 64
CACHE = re.compile(r"kv_cache_[kv]_\d+$")
NEG = np.float32(-np.finfo(np.float32).max)


def ops_of(name):
    from ai_edge_litert.interpreter import Interpreter
    i = Interpreter(model_path=str(MODELS_DIR / f"{name}.tflite"))
    return {d["op_name"] for d in i._get_ops_details()}, i


# What each converter-made model is there for: ops it must keep (a re-made file that lost them
# would silently test less).
HOLDS = {
    "torch_mobilenet_v3_small_f32": {"HARD_SWISH", "DEPTHWISE_CONV_2D", "MEAN", "TRANSPOSE"},
    "torch_mobilenet_v3_small_int8": {"HARD_SWISH", "QUANTIZE", "DEQUANTIZE"},
    "torch_mobilenet_v3_small_dq8": {"HARD_SWISH", "CONV_2D"},
    "torch_resnet18_f32": {"CONV_2D", "MAX_POOL_2D", "ADD", "PADV2"},
    "torch_resnet18_int8": {"CONV_2D", "QUANTIZE", "DEQUANTIZE"},
    "torch_resnet18_dq8": {"CONV_2D", "FULLY_CONNECTED"},
    "torch_transformer_encoder_f32": {"BATCH_MATMUL", "SOFTMAX", "SQUARED_DIFFERENCE", "RSQRT"},
    "torch_transformer_encoder_int8": {"BATCH_MATMUL", "QUANTIZE", "DEQUANTIZE"},
    "torch_transformer_encoder_dq8": {"BATCH_MATMUL", "FULLY_CONNECTED"},
    "onnx_hardswish_cnn_f32": {"HARD_SWISH", "RELU_0_TO_1", "DEPTHWISE_CONV_2D"},
    "onnx_hardswish_cnn_int8": {"HARD_SWISH", "RELU_0_TO_1", "DEPTHWISE_CONV_2D"},
    "onnx_hardswish_cnn_int16": {"HARD_SWISH", "RELU_0_TO_1", "QUANTIZE", "DEQUANTIZE"},
    "onnx_wakeword_conv1d_f32": {"CONV_2D", "RESHAPE", "LOGISTIC"},
    "onnx_wakeword_conv1d_int8": {"CONV_2D", "RESHAPE", "LOGISTIC"},
    "onnx_wakeword_conv1d_int16": {"CONV_2D", "RESHAPE", "LOGISTIC", "QUANTIZE"},
    "onnx_transformer_block_int8": {"BATCH_MATMUL", "SOFTMAX", "SQUARED_DIFFERENCE", "QUANTIZE"},
    "onnx_transformer_block_f32": {"BATCH_MATMUL", "SOFTMAX", "EXP", "ABS"},
    "hf_tiny_llama_f32": {"STABLEHLO_COMPOSITE", "DYNAMIC_UPDATE_SLICE", "COS", "SIN"},
    "hf_tiny_llama_q8": {"STABLEHLO_COMPOSITE", "FULLY_CONNECTED"},
}


@pytest.mark.parametrize("name", sorted(HOLDS))
def test_converter_models_hold_their_ops(name):
    ops, interp = ops_of(name)
    assert HOLDS[name] <= ops, f"{name}: missing {sorted(HOLDS[name] - ops)}; has {sorted(ops)}"
    assert not any(o.startswith("Flex") for o in ops), f"{name}: TF (Flex) ops {sorted(ops)}"
    if name.startswith("onnx_wakeword_conv1d"):
        # The scalar output and the zero-element shape constant onnx2tf writes for it.
        assert list(interp.get_output_details()[0]["shape"]) == []
        assert any(0 in list(t["shape"]) for t in interp.get_tensor_details())


def names(header, entry, kind):
    return [m.group(2) for m in re.finditer(rf'#define MODEL_{entry}_{kind}(\d+)_NAME "([^"]*)"', header)]


def generation_main(header):
    """A C main: DIR/prompt.bin (int32 [PROMPT]) -> DIR/tokens.bin (int32 [STEPS]), DIR/logits.bin
    (f32 [STEPS, vocab]); prefill_8 then STEPS greedy decode steps, caches carried by copying;
    `main DIR inplace`: each cache one buffer passed as input and output (_IN_PLACE_OF_INPUT)."""
    pi, po = names(header, "PREFILL_8", "INPUT"), names(header, "PREFILL_8", "OUTPUT")
    di, do = names(header, "DECODE", "INPUT"), names(header, "DECODE", "OUTPUT")
    caches = [n for n in di if CACHE.match(n)]
    assert len(caches) == 4 and sorted(caches) == sorted(n for n in pi if CACHE.match(n)), (pi, di)
    assert sorted(caches) == sorted(po) == sorted(n for n in do if CACHE.match(n)), (po, do)
    assert sorted(set(di) - set(caches)) == ["input_pos", "mask", "tokens"], di
    assert [n for n in do if not CACHE.match(n)] == ["logits"], do
    src = ["#include <float.h>", "#include <stdio.h>", "#include <string.h>", '#include "model.h"',
           "static double arena[MODEL_ARENA_BYTES / 8 + 1];"]
    for c, n in enumerate(caches):
        k = di.index(n)
        src.append(f"static float cache{c}[MODEL_DECODE_INPUT{k}_SIZE], next{c}[MODEL_DECODE_INPUT{k}_SIZE];")
    src += [f"static float logits[MODEL_DECODE_OUTPUT{do.index('logits')}_SIZE];",
            f"static float mask[8 * {KV}];",
            "static void causal(int rows, const int *pos) {",
            "    int r, j;",
            f"    for (r = 0; r < rows; r++) for (j = 0; j < {KV}; j++) mask[r * {KV} + j] = j <= pos[r] ? 0.0f : -FLT_MAX;",
            "}",
            "static int io(const char *dir, const char *name, void *p, size_t n, int w) {",
            "    char path[512]; FILE *f; size_t got;",
            '    sprintf(path, "%s/%s", dir, name);',
            '    f = fopen(path, w ? "wb" : "rb"); if (!f) return 1;',
            "    got = w ? fwrite(p, 1, n, f) : fread(p, 1, n, f); fclose(f); return got != n;", "}",
            "int main(int argc, char **argv) {",
            f"    static int prompt[{PROMPT}], out_tokens[{STEPS}];",
            f"    static float all_logits[{STEPS}][sizeof logits / sizeof logits[0]];",
            "    int tok[8], pos[8], step, i, c;",
            "    const void *in[16]; void *out[16];",
            "    int inplace = argc == 3 && !strcmp(argv[2], \"inplace\");",
            "    if (argc < 2 || io(argv[1], \"prompt.bin\", prompt, sizeof prompt, 0)) return 2;",
            "    model_init(arena);",
            "    for (i = 0; i < 8; i++) tok[i] = prompt[i], pos[i] = i;",
            "    causal(8, pos);"]

    def bind(ins, outs):
        lines = []
        for k, n in enumerate(ins):
            buf = {"tokens": "tok", "input_pos": "pos", "mask": "mask"}.get(n) or f"cache{caches.index(n)}"
            lines.append(f"    in[{k}] = {buf};")
        for k, n in enumerate(outs):
            c = caches.index(n) if n != "logits" else -1
            lines.append(f"    out[{k}] = {'logits' if c < 0 else f'inplace ? cache{c} : next{c}'};")
        return lines

    copy = ["        if (!inplace) {"] + [f"            memcpy(cache{c}, next{c}, sizeof cache{c});"
                                           for c in range(len(caches))] + ["        }"]
    src += bind(pi, po)
    src += ["    if (model_prefill_8_run(in, out, arena)) return 3;", "    {"] + copy + ["    }"]
    src += bind(di, do)
    src += [f"    tok[0] = prompt[{PROMPT - 1}];",
            f"    for (step = 0; step < {STEPS}; step++) {{",
            f"        int best = 0; pos[0] = {PROMPT - 1} + step; causal(1, pos);",
            "        if (model_decode_run(in, out, arena)) return 4;"] + copy + [
            "        for (c = 1; c < (int)(sizeof logits / sizeof logits[0]); c++) if (logits[c] > logits[best]) best = c;",
            "        memcpy(all_logits[step], logits, sizeof logits);",
            "        out_tokens[step] = tok[0] = best;",
            "    }",
            "    if (io(argv[1], \"tokens.bin\", out_tokens, sizeof out_tokens, 1)) return 5;",
            "    return io(argv[1], \"logits.bin\", all_logits, sizeof all_logits, 1) ? 5 : 0;", "}", ""]
    return "\n".join(src)


def causal(pos):
    return np.where(np.arange(KV)[None, :] <= np.asarray(pos)[:, None], np.float32(0), NEG)[None, None].astype(np.float32)


def tflite_generate(model, prompt):
    from ai_edge_litert.interpreter import Interpreter, OpResolverType
    # The reference kernels, as tests/oracle.py: XNNPACK runs the int8-weight FCs its own way.
    interp = Interpreter(model_path=str(model), experimental_op_resolver_type=OpResolverType.BUILTIN_REF)
    prefill, decode = interp.get_signature_runner("prefill_8"), interp.get_signature_runner("decode")
    caches = {n: np.zeros(d["shape"], d["dtype"]) for n, d in decode.get_input_details().items() if CACHE.match(n)}
    out = prefill(tokens=prompt[None, :8].astype(np.int32), input_pos=np.arange(8, dtype=np.int32),
                  mask=causal(np.arange(8)), **caches)
    caches = {n: out[n] for n in caches}
    tok, tokens, logits = int(prompt[-1]), [], []
    for step in range(STEPS):
        p = PROMPT - 1 + step
        out = decode(tokens=np.array([[tok]], np.int32), input_pos=np.array([p], np.int32), mask=causal([p]),
                     **caches)
        caches = {n: out[n] for n in caches}
        lg = out["logits"].reshape(-1)
        tok = int(np.argmax(lg))
        tokens.append(tok)
        logits.append(lg)
    return np.array(tokens, np.int32), np.array(logits, np.float32)


@pytest.mark.parametrize("config", ["gcc-O2", "gcc-native"])
@pytest.mark.parametrize("name", ["hf_tiny_llama_f32", "hf_tiny_llama_q8"])
def test_hf_greedy_generation_matches_tflite(name, config, seed):
    model = MODELS_DIR / f"{name}.tflite"
    work = new_workdir(f"{name}-{config}")
    p = compile_model(model, work)
    assert p.returncode == 0, p.stderr
    assert "warning" not in p.stderr, p.stderr
    header = (work / "model.h").read_text()
    proc, exe = build_with_main(work, generation_main(header), config=config)
    assert proc.returncode == 0, proc.stderr[-3000:]
    # Every cache output of both signatures may share its input's buffer.
    for entry in ("PREFILL_8", "DECODE"):
        ins, outs = names(header, entry, "INPUT"), names(header, entry, "OUTPUT")
        for j, n in enumerate(outs):
            m = re.search(rf"#define MODEL_{entry}_OUTPUT{j}_IN_PLACE_OF_INPUT (\d+)", header)
            assert (m is not None) == bool(CACHE.match(n)), (entry, n)
            assert m is None or ins[int(m.group(1))] == n, (entry, n, m.group(1))
    rng = np.random.default_rng(seed)
    prompt = rng.integers(0, 256, PROMPT, dtype=np.int32)
    prompt.tofile(work / "prompt.bin")
    proc = run_cmd([exe, work, "inplace"], timeout=300)
    assert proc.returncode == 0, (proc.returncode, proc.stderr[-2000:])
    inplace = (work / "tokens.bin").read_bytes(), (work / "logits.bin").read_bytes()
    proc = run_cmd([exe, work], timeout=300)
    assert proc.returncode == 0, (proc.returncode, proc.stderr[-2000:])
    assert inplace == ((work / "tokens.bin").read_bytes(), (work / "logits.bin").read_bytes()), \
        "caches in place and copied differ"
    ref_tokens, ref_logits = tflite_generate(model, prompt)
    got_tokens = np.fromfile(work / "tokens.bin", np.int32)
    got_logits = np.fromfile(work / "logits.bin", np.float32).reshape(ref_logits.shape)
    top2 = np.sort(ref_logits, axis=1)[:, -2:]
    print(f"prompt {prompt.tolist()}\ntokens {ref_tokens.tolist()}\nsmallest top-2 logit gap "
          f"{float(np.min(top2[:, 1] - top2[:, 0])):.3g}, max |logit diff| "
          f"{float(np.max(np.abs(got_logits - ref_logits))):.3g}")
    assert len(set(ref_tokens.tolist())) > 1, "degenerate model: one token repeated"
    assert got_tokens.tolist() == ref_tokens.tolist(), f"mpcc {got_tokens.tolist()}\ntflite {ref_tokens.tolist()}"
    for step in range(STEPS):
        ok, msg = compare_arrays(ref_logits[step], got_logits[step], mode="opt")
        assert ok, f"decode step {step}: {msg}"
