"""--target cuda with a shape input computed at run time (docs/cuda-misc.md): stream_tconv_f32 and
stream_tconv_int8, whose TRANSPOSE_CONV takes its output_shape from a model input. The host copies
that input from the device before the kernel and returns 4 (as the C target's RT_ERR_SHAPE_INPUT)
when it differs from the shape compiled for, so the model is a host-sync model that
PREFIX_cuda_run_graph runs uncaptured. On the CPU emulator, through PREFIX_cuda_run_graph (run twice
by the driver): the planned shape gives `mpcc run`'s outputs (float within 1e-5 relative L2, int8
bit-exact); another output_shape gives status 4."""

import numpy as np
import pytest

from mpcc_paths import MODELS_DIR
from mpcc_tools import count_outputs, model_args, mpcc_run, new_workdir, run_cmd
from oracle import draw_inputs, load
from test_cuda import MPCC, _emu_build, _rel_l2

pytestmark = pytest.mark.xdist_group("cuda")


@pytest.mark.parametrize("name", ["stream_tconv_f32", "stream_tconv_int8"])
def test_emulated_cuda_tconv_runtime_output_shape(name, seed):
    model = MODELS_DIR / f"{name}.tflite"
    work = new_workdir("cuda-tconv-shape-" + name)
    p = run_cmd([MPCC, "--target", "cuda", model, "-o", work / "model.cu", "--name", "model", *model_args(model)])
    assert p.returncode == 0, p.stderr
    header = (work / "model.h").read_text()
    assert "return 4" in header and "runs it as model_cuda_run does" in header
    ins = draw_inputs(model, seed, load(model))
    n_out = count_outputs(model)
    proc, ref = mpcc_run(model, ins, work, n_out)
    assert proc.returncode == 0, proc.stderr
    p, exe = _emu_build(work, len(ins), n_out, True)
    assert p.returncode == 0, p.stderr[-4000:]
    # the output_shape input: the int32 input holding exactly the sidecar's shape
    shape_at = [i for i, a in enumerate(ins) if a.dtype == np.int32 and a.ndim == 1]
    assert len(shape_at) == 1, [a.dtype for a in ins]
    outs = [work / f"out{i}.bin" for i in range(n_out)]
    for i, a in enumerate(ins):
        np.ascontiguousarray(a).tofile(work / f"in{i}.bin")
    args = [exe, *[work / f"in{i}.bin" for i in range(len(ins))], *outs]
    r = run_cmd(args, timeout=300)
    assert r.returncode == 0, r.stderr[-3000:]
    for i, want in enumerate(ref):
        got = np.fromfile(outs[i], dtype=want.dtype).reshape(want.shape)
        if want.dtype.kind == "f":
            err = _rel_l2(want, got)
            assert err <= 1e-5, f"output {i}: relative L2 {err:.2e} (seed {seed})"
        else:
            diff = np.abs(want.astype(np.int64) - got.astype(np.int64)).max(initial=0)
            assert diff == 0, f"output {i}: max |diff| {diff} (seed {seed})"
    # another output_shape (one dimension off): the run returns 4, the driver exits 5
    bad = ins[shape_at[0]].copy()
    bad[1] -= 1
    bad.tofile(work / f"in{shape_at[0]}.bin")
    r = run_cmd(args, timeout=300)
    assert r.returncode == 5 and "run: 4 " in r.stderr and "differs from the shape compiled for" in r.stderr, \
        (r.returncode, r.stderr[-2000:])
    print(f"\n{name}: planned output_shape {ins[shape_at[0]].tolist()} matches mpcc run; {bad.tolist()} -> status 4")
