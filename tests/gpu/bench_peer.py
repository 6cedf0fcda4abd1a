"""PyTorch peers for tests/gpu/bench_kernels.cu, in the same run (tests/gpu/run.sh): cuBLAS GEMM plus a
separate bias + GELU epilogue, and scaled_dot_product_attention (flash backend); then the table with
ratios mpcc / peer (higher is better for mpcc). Reads bench_kernels' lines from the file argv[1]."""
import sys

import torch
import torch.nn.functional as F


def timed(fn):
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    ts = []
    for _ in range(20):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        fn()
        b.record()
        b.synchronize()
        ts.append(a.elapsed_time(b))
    return sorted(ts)[len(ts) // 2]


DT = {"bf16": torch.bfloat16, "f16": torch.float16, "tf32": torch.float32, "3xtf32": torch.float32}
rows = []
for line in open(sys.argv[1]):
    f = line.split()
    if f[0] == "gemm":
        mode, m, n, k, ms = f[1], int(f[2]), int(f[3]), int(f[4]), float(f[5])
        torch.backends.cuda.matmul.allow_tf32 = mode == "tf32"
        a = torch.randn(m, k, device="cuda", dtype=DT[mode])
        w = torch.randn(n, k, device="cuda", dtype=DT[mode])
        bias = torch.randn(n, device="cuda", dtype=DT[mode])
        peer = timed(lambda: F.gelu(a @ w.t() + bias))
        flops = 2.0 * m * n * k
        rows.append(f"gemm+bias+gelu {mode:7s} {m}x{n}x{k:<5d}  mpcc {flops / ms / 1e9:7.1f} TFLOP/s  "
                    f"torch {flops / peer / 1e9:7.1f}  ratio {peer / ms:5.2f}")
    elif f[0] == "attn":
        mode, b, h, s, d, causal, ms = f[1], int(f[2]), int(f[3]), int(f[4]), int(f[5]), int(f[6]), float(f[7])
        q, k, v = (torch.randn(b, h, s, d, device="cuda", dtype=DT[mode]) for _ in range(3))
        with torch.nn.attention.sdpa_kernel(torch.nn.attention.SDPBackend.FLASH_ATTENTION):
            peer = timed(lambda: F.scaled_dot_product_attention(q, k, v, is_causal=bool(causal)))
        flops = 4.0 * b * h * s * s * d * (0.5 if causal else 1.0)
        rows.append(f"attention {mode:5s} b{b} h{h} s{s:<6d} d{d:<4d} causal {causal}  mpcc {flops / ms / 1e9:7.1f} "
                    f"TFLOP/s  flash {flops / peer / 1e9:7.1f}  ratio {peer / ms:5.2f}")
print("\n".join(rows))


def encoder_peer(layers, hidden, heads, ffn, batch, seq):
    """A BERT-style encoder of the same shape in PyTorch (post-LN, GELU FFN), fp32: eager and
    torch.compile (mode reduce-overhead: CUDA graphs) medians in ms."""
    layer = torch.nn.TransformerEncoderLayer(hidden, heads, ffn, activation="gelu", batch_first=True, dropout=0.0)
    model = torch.nn.TransformerEncoder(layer, layers, enable_nested_tensor=False).cuda().eval()
    x = torch.randn(batch, seq, hidden, device="cuda")
    with torch.inference_mode():
        eager = timed(lambda: model(x))
        compiled = torch.compile(model, mode="reduce-overhead")
        comp = timed(lambda: compiled(x))
    return eager, comp


for line in open(sys.argv[1]):
    f = line.split()
    if f[0] == "e2e":  # e2e NAME LAYERS HIDDEN HEADS FFN BATCH SEQ MPCC_MS
        name, (layers, hidden, heads, ffn, batch, seq), ms = f[1], map(int, f[2:8]), float(f[8])
        torch.backends.cuda.matmul.allow_tf32 = False
        eager, comp = encoder_peer(layers, hidden, heads, ffn, batch, seq)
        print(f"e2e {name} ({layers}x{hidden}, batch {batch}, seq {seq}) fp32  mpcc {ms:.3f} ms  torch eager "
              f"{eager:.3f} ms (ratio {eager / ms:.2f})  torch.compile {comp:.3f} ms (ratio {comp / ms:.2f})")
