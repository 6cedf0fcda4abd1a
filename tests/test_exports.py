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

import pytest

from llm_gen import build_generation, drift_of, generate_and_compare, logits_within_rule
from mpcc_paths import MODELS_DIR

KV = 64             # the export's cache length: the mask's columns


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
    "hf_tiny_llama_sdpat_f32": {"STABLEHLO_COMPOSITE", "COS", "SIN", "EMBEDDING_LOOKUP"},
}

# The composites each litert-torch decoder must keep, per signature subgraph (use_sdpa_composite: the
# GPU composites; prefill's last attention is dead, prefill returning no logits).
COMPOSITES = {
    "hf_tiny_llama_sdpat_f32": {0: {"odml.rms_norm": 3, "odml.cache_update": 2, "odml.sdpa_transposed": 1},
                                1: {"odml.rms_norm": 5, "odml.cache_update": 2, "odml.sdpa_transposed": 2}},
}


def composites(name):
    """{subgraph: {composite name: count}} of a model's STABLEHLO_COMPOSITE operators."""
    from ai_edge_litert import schema_py_generated as S
    m = S.ModelT.InitFromPackedBuf((MODELS_DIR / f"{name}.tflite").read_bytes(), 0)
    codes = [max(c.builtinCode, c.deprecatedBuiltinCode) for c in m.operatorCodes]
    found = {}
    for s, sg in enumerate(m.subgraphs):
        for op in sg.operators:
            if codes[op.opcodeIndex] == S.BuiltinOperator.STABLEHLO_COMPOSITE:
                n = op.builtinOptions2.name.decode()
                found.setdefault(s, {})[n] = found.get(s, {}).get(n, 0) + 1
    return found


@pytest.mark.parametrize("name", sorted(COMPOSITES))
def test_decoders_hold_their_composites(name):
    assert composites(name) == COMPOSITES[name]


@pytest.mark.parametrize("name", sorted(HOLDS))
def test_converter_models_hold_their_ops(name):
    ops, interp = ops_of(name)
    assert HOLDS[name] <= ops, f"{name}: missing {sorted(HOLDS[name] - ops)}; has {sorted(ops)}"
    assert not any(o.startswith("Flex") for o in ops), f"{name}: TF (Flex) ops {sorted(ops)}"
    if name.startswith("onnx_wakeword_conv1d"):
        # The scalar output and the zero-element shape constant onnx2tf writes for it.
        assert list(interp.get_output_details()[0]["shape"]) == []
        assert any(0 in list(t["shape"]) for t in interp.get_tensor_details())


@pytest.mark.parametrize("config", ["gcc-O2", "gcc-native"])
@pytest.mark.parametrize("name", ["hf_tiny_llama_f32", "hf_tiny_llama_q8", "hf_tiny_llama_sdpat_f32"])
def test_hf_greedy_generation_matches_tflite(name, config, seed):
    model = MODELS_DIR / f"{name}.tflite"
    # sdpat: the caches are written by odml.cache_update composites, calls of their decomposition whose
    # DYNAMIC_UPDATE_SLICEs update the caller's buffers: in place too (codegen/emit_inplace.c).
    work, exe = build_generation(model, config, mask_kv=KV)
    if "sdpat" in name:
        # Each odml.sdpa_transposed runs the SDPA kernel on the caches as they lie (composite_sdpa_transposed).
        code = (work / "model.c").read_text()
        assert code.count(".transposed = 1, .mask_fill = -10000.0f") == 3, "odml.sdpa_transposed not mapped"
        assert code.count("rt_opt_sdpa_f32(&p, ") == 3
    drift = drift_of(model)
    got_logits, ref_logits = generate_and_compare(model, work, exe, seed, mask_kv=KV, tie=drift)
    logits_within_rule(got_logits, ref_logits, drift)
