"""A tiny Llama-style decoder exported by litert-torch: tests/models/llm_tiny_llama_f32.tflite.

The model is litert-torch's own TinyLlama class (its generative API: RMSNorm, RoPE, grouped-query
attention, SwiGLU feed-forward, an external KV cache) with a tiny config and seeded random weights
(no checkpoint, nothing downloaded), converted as its generative examples do
(`converter.convert_to_tflite`): signatures `prefill_8` (tokens [1,8], input_pos [8], the caches)
and `decode` (tokens [1,1], input_pos [1], the caches), the KV caches as signature inputs and
outputs (kv_cache_k_0, kv_cache_v_0, ...), logits [1,1,256] from decode only (the export's
default). Config: 2 layers, dim 64, 4 heads of 16 (2 KV groups), FFN 128, vocab 256, cache 64.

litert-torch needs torch (a large install), so this script runs in its own venv:

    make models-llm          # makes .venv-llm from tools/models/requirements-llm.txt, runs this
    .venv-llm/bin/python tools/models/llm.py [--int8] [--int4]

--int4 also writes llm_tiny_llama_q4.tflite: litert-torch's `dynamic_int4_block32` recipe (INT4 weights with
block-wise fp16 scales, 32 values a block, in hybrid FULLY_CONNECTED ops and the EMBEDDING_LOOKUP table).
--int8 also writes llm_tiny_llama_q8.tflite: litert-torch's `dynamic_int8` recipe (int8 weights,
hybrid FULLY_CONNECTED).

--size 100m makes the ~100M-parameter config of the decode benchmark instead (tools/bench/llm_bench.py,
`make bench-llm`): the same class, 12 layers, dim 768, 12 heads of 64 (4 KV groups), FFN 2048, vocab
16000, KV cache 1024, prefill 64; 101M parameters. Its files (~400 MB f32, ~100 MB int8) go to
build/models/llm_llama100m_{f32,q8}.tflite (never committed, not used by make test); converting
takes minutes and a few GB of memory.
"""

import argparse
import os
import shutil
import sys
import tempfile

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
TESTS_MODELS = os.path.join(ROOT, "tests", "models")
BUILD_MODELS = os.path.join(ROOT, "build", "models")
SEED = 1234

# name -> (layers, dim, heads, kv groups, ffn, vocab, kv cache length, prefill length, output dir, stem)
SIZES = {
    "tiny": (2, 64, 4, 2, 128, 256, 64, 8, TESTS_MODELS, "llm_tiny_llama"),
    "100m": (12, 768, 12, 4, 2048, 16000, 1024, 64, BUILD_MODELS, "llm_llama100m"),
}

_ENV = {"PYTHONHASHSEED": "0", "OMP_NUM_THREADS": "1", "CUDA_VISIBLE_DEVICES": "",
        "TF_CPP_MIN_LOG_LEVEL": "3"}


def config(size):
    import litert_torch.generative.layers.model_config as cfg
    layers, dim, heads, groups, ffn, vocab, kv_len, _, _, _ = SIZES[size]
    attn = cfg.AttentionConfig(num_heads=heads, head_dim=dim // heads, num_query_groups=groups, rotary_base=10000,
                               rotary_percentage=1.0)
    ff = cfg.FeedForwardConfig(type=cfg.FeedForwardType.GATED,
                               activation=cfg.ActivationConfig(cfg.ActivationType.SILU),
                               intermediate_size=ffn)
    norm = cfg.NormalizationConfig(type=cfg.NormalizationType.RMS_NORM)
    block = cfg.TransformerBlockConfig(attn_config=attn, ff_config=ff, pre_attention_norm_config=norm,
                                       post_attention_norm_config=norm)
    return cfg.ModelConfig(vocab_size=vocab, num_layers=layers, max_seq_len=kv_len, embedding_dim=dim,
                           block_configs=block, final_norm_config=norm,
                           lm_head_share_weight_with_embedding=False)


def build(size):
    import torch
    from litert_torch.generative.examples.tiny_llama import tiny_llama
    torch.manual_seed(SEED)
    model = tiny_llama.TinyLlama(config(size), mask_cache_size=SIZES[size][6])
    with torch.no_grad():
        # Default inits give near-uniform logits; wider weights make the greedy choice clear-cut.
        for name, p in model.named_parameters():
            if p.dim() >= 2:
                p.normal_(0.0, 0.6 / p.shape[-1] ** 0.5 * (4.0 if "tok_embedding" in name else 1.0))
            elif "norm" in name:
                p.uniform_(0.5, 1.5)
    return model.eval()


def convert(model, size, suffix, quantize):
    from litert_torch.generative.utilities import converter
    from litert_torch.generative.utilities import export_config
    _, _, _, _, _, _, kv_len, prefill, out_dir, stem = SIZES[size]
    with tempfile.TemporaryDirectory() as d:
        path = converter.convert_to_tflite(model, output_path=d, output_name_prefix="m", prefill_seq_len=prefill,
                                           kv_cache_max_len=kv_len, quantize=quantize, config=model.config,
                                           export_config=export_config.ExportConfig())
        os.makedirs(out_dir, exist_ok=True)
        out = os.path.join(out_dir, f"{stem}_{suffix}.tflite")
        shutil.copyfile(path, out)
    n = os.path.getsize(out)
    print(f"  {os.path.relpath(out, ROOT)}: {n} bytes")
    if out_dir == TESTS_MODELS and n > 2 << 20:
        sys.exit(f"FAIL: {out} is over 2 MiB")


def main():
    if any(os.environ.get(k) != v for k, v in _ENV.items()):
        os.execve(sys.executable, [sys.executable] + sys.argv, dict(os.environ, **_ENV))
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--int8", action="store_true", help="also the dynamic_int8 variant")
    ap.add_argument("--int4", action="store_true", help="also the dynamic_int4_block32 variant")
    ap.add_argument("--size", choices=sorted(SIZES), default="tiny",
                    help="tiny: the test models (default); 100m: the benchmark's, into build/models/")
    args = ap.parse_args()
    import torch
    torch.use_deterministic_algorithms(True)
    torch.set_num_threads(1)
    convert(build(args.size), args.size, "f32", "none")
    if args.int8:
        convert(build(args.size), args.size, "q8", "dynamic_int8")
    if args.int4:
        convert(build(args.size), args.size, "q4", "dynamic_int4_block32")


if __name__ == "__main__":
    main()
