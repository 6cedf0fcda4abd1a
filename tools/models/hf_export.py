"""A tiny Hugging Face `transformers` Llama exported by litert-torch's HF path: tests/models/hf_*.tflite.

litert-torch 0.10.0's `litert_torch.generative.export_hf.export` takes a transformers checkpoint
directory. Here that directory is made locally: `LlamaForCausalLM(LlamaConfig(hidden 64, 2 layers,
4 heads / 2 KV heads, intermediate 128, vocab 256))` with seeded random weights, saved with
`save_pretrained`, and a 256-token word-level tokenizer built with the `tokenizers` package (the
export also writes the tokenizer); nothing downloaded. Exported with prefill length 8, KV cache 64,
no LiteRT-LM bundle (`bundle_litert_lm=False`: plain .tflite files). One export writes both
files: `_f32` (model.tflite) and `_q8` (model_quantized.tflite: its default `dynamic_wi8_afp32`
recipe, int8 weights). Signatures `prefill_8` and `decode` take tokens, input_pos, an additive
float mask [1,1,T,64] and the KV caches (K [1,2,64,16], V transposed [1,2,16,64]).

`hf_tiny_llama_sdpat_f32`: the same checkpoint exported with `use_sdpa_composite=True` (the export's
GPU composites): attention is the `odml.sdpa_transposed` composite (K [1,2,64,16], V [1,2,16,64],
the query heads of a KV group packed into its rows, a boolean mask) and each layer's cache write the
`odml.cache_update` composite; both signatures take one more input, `param_tensor` [1,1,1,7] int32
(LiteRT-LM's runtime parameters for the GPU kernels; the decompositions do not read it).

Runs in .venv-llm (make models-hf).
"""

import argparse
import os
import shutil
import sys
import tempfile

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
TESTS_MODELS = os.path.join(ROOT, "tests", "models")
SEED = 4403

_ENV = {"PYTHONHASHSEED": "0", "OMP_NUM_THREADS": "1", "CUDA_VISIBLE_DEVICES": "",
        "TF_CPP_MIN_LOG_LEVEL": "3", "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}


def checkpoint(d):
    import torch
    import transformers
    from tokenizers import Tokenizer, models, pre_tokenizers
    torch.manual_seed(SEED)
    cfg = transformers.LlamaConfig(hidden_size=64, num_hidden_layers=2, num_attention_heads=4,
                                   num_key_value_heads=2, intermediate_size=128, vocab_size=256,
                                   max_position_embeddings=64, bos_token_id=1, eos_token_id=2,
                                   tie_word_embeddings=False)
    model = transformers.LlamaForCausalLM(cfg).eval()
    with torch.no_grad():
        for name, p in model.named_parameters():
            if p.dim() >= 2:
                p.normal_(0.0, 0.6 / p.shape[-1] ** 0.5 * (4.0 if "embed" in name else 1.0))
            elif "norm" in name:
                p.uniform_(0.5, 1.5)
    model.save_pretrained(d)
    vocab = {"<unk>": 0, "<s>": 1, "</s>": 2}
    vocab.update({f"w{i}": i for i in range(3, 256)})
    tok = Tokenizer(models.WordLevel(vocab, unk_token="<unk>"))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    fast = transformers.PreTrainedTokenizerFast(tokenizer_object=tok, unk_token="<unk>", bos_token="<s>",
                                                eos_token="</s>")
    fast.save_pretrained(d)


def convert(sdpat=False):
    from litert_torch.generative.export_hf import export
    with tempfile.TemporaryDirectory() as d:
        ckpt, out_dir = os.path.join(d, "ckpt"), os.path.join(d, "out")
        checkpoint(ckpt)
        # The default recipe writes the float model.tflite, then model_quantized.tflite from it.
        export.export(model=ckpt, output_dir=out_dir, prefill_lengths=[8], cache_length=64,
                      quantization_recipe="dynamic_wi8_afp32", bundle_litert_lm=False,
                      keep_temporary_files=True, **({"use_sdpa_composite": True} if sdpat else {}))
        files = (("model.tflite", "sdpat_f32"),) if sdpat else \
            (("model.tflite", "f32"), ("model_quantized.tflite", "q8"))
        for src, suffix in files:
            path = os.path.join(out_dir, src)
            if not os.path.exists(path):
                sys.exit(f"FAIL: litert-torch wrote {sorted(os.listdir(out_dir))}, no {src}")
            out = os.path.join(TESTS_MODELS, f"hf_tiny_llama_{suffix}.tflite")
            shutil.copyfile(path, out)
            n = os.path.getsize(out)
            print(f"  {os.path.relpath(out, ROOT)}: {n} bytes")
            if n > 2 << 20:
                sys.exit(f"FAIL: {out} is over 2 MiB")


def main():
    if any(os.environ.get(k) != v for k, v in _ENV.items()):
        os.execve(sys.executable, [sys.executable] + sys.argv, dict(os.environ, **_ENV))
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", choices=["plain", "sdpat"], help="one export (default: both)")
    args = ap.parse_args()
    import torch
    torch.set_num_threads(1)
    if args.only != "sdpat":
        convert()
    if args.only != "plain":
        convert(sdpat=True)


if __name__ == "__main__":
    main()
