"""--target cuda: BATCH_MATMUL f32 in layouts the tiled GEMM has none for (adj_x: mpcc_bmm_f32_body, one
thread per output) and fused attention whose head dimension is not 16, 32, 64 or 128 (run zero-padded to the
next of them; deep_bert's heads are 8 wide), on the CPU emulator against mpcc's reference interpreter within
1e-4 relative L2 (the float rule of test_cuda.py)."""

import pytest

from mpcc_paths import ROOT
from test_cuda import _run_emu


@pytest.mark.parametrize("name", ["op_batch_matmul_adj_x_f32", "deep_bert_f32"])
def test_emulated_cuda_bmm(name, seed):
    errs = _run_emu(ROOT / "tests" / "models" / f"{name}.tflite", [], seed, 1e-4)
    print(f"{name}: errors per output {errs}")
    assert errs is not None, f"{name} was refused for --target cuda"
    assert all(e <= 1e-4 for e in errs), errs
