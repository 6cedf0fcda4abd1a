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
    .venv-llm/bin/python tools/models/llm.py [--int8]

--int8 also writes llm_tiny_llama_q8.tflite: litert-torch's `dynamic_int8` recipe (int8 weights,
hybrid FULLY_CONNECTED).
"""

import argparse
import os
import sys
import tempfile

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
TESTS_MODELS = os.path.join(ROOT, "tests", "models")
SEED = 1234
PREFILL = 8
KV_LEN = 64

_ENV = {"PYTHONHASHSEED": "0", "OMP_NUM_THREADS": "1", "CUDA_VISIBLE_DEVICES": "",
        "TF_CPP_MIN_LOG_LEVEL": "3"}


def config():
    import litert_torch.generative.layers.model_config as cfg
    attn = cfg.AttentionConfig(num_heads=4, head_dim=16, num_query_groups=2, rotary_base=10000,
                               rotary_percentage=1.0)
    ff = cfg.FeedForwardConfig(type=cfg.FeedForwardType.GATED,
                               activation=cfg.ActivationConfig(cfg.ActivationType.SILU),
                               intermediate_size=128)
    norm = cfg.NormalizationConfig(type=cfg.NormalizationType.RMS_NORM)
    block = cfg.TransformerBlockConfig(attn_config=attn, ff_config=ff, pre_attention_norm_config=norm,
                                       post_attention_norm_config=norm)
    return cfg.ModelConfig(vocab_size=256, num_layers=2, max_seq_len=KV_LEN, embedding_dim=64,
                           block_configs=block, final_norm_config=norm,
                           lm_head_share_weight_with_embedding=False)


def build():
    import torch
    from litert_torch.generative.examples.tiny_llama import tiny_llama
    torch.manual_seed(SEED)
    model = tiny_llama.TinyLlama(config(), mask_cache_size=KV_LEN)
    with torch.no_grad():
        # Default inits give near-uniform logits; wider weights make the greedy choice clear-cut.
        for name, p in model.named_parameters():
            if p.dim() >= 2:
                p.normal_(0.0, 0.6 / p.shape[-1] ** 0.5 * (4.0 if "tok_embedding" in name else 1.0))
            elif "norm" in name:
                p.uniform_(0.5, 1.5)
    return model.eval()


def convert(model, name, quantize):
    from litert_torch.generative.utilities import converter
    from litert_torch.generative.utilities import export_config
    with tempfile.TemporaryDirectory() as d:
        path = converter.convert_to_tflite(model, output_path=d, output_name_prefix="m", prefill_seq_len=PREFILL,
                                           kv_cache_max_len=KV_LEN, quantize=quantize, config=model.config,
                                           export_config=export_config.ExportConfig())
        data = open(path, "rb").read()
    out = os.path.join(TESTS_MODELS, name + ".tflite")
    with open(out, "wb") as f:
        f.write(data)
    print(f"  {os.path.relpath(out, ROOT)}: {len(data)} bytes")
    if len(data) > 2 << 20:
        sys.exit(f"FAIL: {out} is over 2 MiB")


def main():
    if any(os.environ.get(k) != v for k, v in _ENV.items()):
        os.execve(sys.executable, [sys.executable] + sys.argv, dict(os.environ, **_ENV))
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--int8", action="store_true", help="also the dynamic_int8 variant")
    args = ap.parse_args()
    import torch
    torch.use_deterministic_algorithms(True)
    torch.set_num_threads(1)
    convert(build(), "llm_tiny_llama_f32", "none")
    if args.int8:
        convert(build(), "llm_tiny_llama_q8", "dynamic_int8")


if __name__ == "__main__":
    main()
