"""Cortex-M: the generated C cross-built with arm-none-eabi-gcc -O2 for Cortex-M4 (mps2-an386),
M7 (mps2-an500), M33 (mps2-an505) and M55 (mps3-an547), run bare-metal under qemu-system-arm
with semihosting, outputs compared with the TFLite interpreter (integers bit-exact, floats by
tests/compare.py's "opt" rule). Float models run on the cores with an FPU; the FPU-less Cortex-M3
(mps2-an385) runs the integer models under `make test-full`.

Inputs are drawn from the test's seed and compiled into the program (tools/cortex_m/mcu.py);
the program prints its outputs as hex. The toolchain is installed by tools/cortex_m/install.sh
when missing (`make test` runs it first).
"""

import shutil
import sys
import threading
from pathlib import Path

import numpy as np
import pytest

from compare import compare_arrays
from mpcc_paths import MPCC, MODELS_DIR, ROOT, SHARED_MODELS
from mpcc_tools import new_workdir, run_cmd
from oracle import oracle

sys.path.insert(0, str(ROOT / "tools" / "cortex_m"))
import mcu  # noqa: E402

# one pytest-xdist worker runs this module: its module fixtures build once
pytestmark = pytest.mark.xdist_group("cortex-m")

TFLM = SHARED_MODELS / "tflm"
INT_MODELS = {
    "person_detect": TFLM / "person_detect.tflite",
    "micro_speech": TFLM / "micro_speech_quantized.tflite",
    "hello_world_int8": TFLM / "hello_world_int8.tflite",
    "mobilenetv2_0.35_int8": MODELS_DIR / "mobilenetv2_int8.tflite",
    "keyword_svdf": TFLM / "keyword_scrambled.tflite",
    "lstm_int8": MODELS_DIR / "lstm_int8.tflite",
}
FLOAT_MODELS = {
    "hello_world_float": TFLM / "hello_world_float.tflite",
    "mnist_lstm": TFLM / "mnist_lstm.tflite",
    # an audio front end's spectrogram: RFFT2D into complex64 (double-precision FFT, libm cos/sin), CAST
    "rfft_frames": MODELS_DIR / "op_cast_rfft_frames_f32.tflite",
}
FPU_BOARDS = ["m4", "m7", "m33", "m55"]
# Small int8 models whose depthwise and 1x1 layers take the Helium kernels' edge cases on the M55:
# channel counts that are not a multiple of 4 (3, 5: the predicated tail), 5x5 filters, dilation 2,
# stride 2, VALID and SAME padding (edge pixels, blocks of four), ReLU6; a 1x1 convolution with K = 3
# (13 bytes of K padding, the predicated first chunk) over an odd number of rows (63).
FUSION = ROOT / "tests" / "fusion"
HELIUM_MODELS = {
    "dw_3x3_same_s1_m1": FUSION / "dw_3x3_same_s1_m1_int8.tflite",
    "dw_5x5_valid_s2_m1_relu6": FUSION / "dw_5x5_valid_s2_m1_relu6_int8.tflite",
    "pad_dw_3x3_s1": FUSION / "pad_dw_3x3_s1_int8.tflite",
    "dw_dil2_same": MODELS_DIR / "op_depthwise_conv_2d_dil2_same_int8.tflite",
    "landmark_int8": MODELS_DIR / "landmark_int8.tflite",
    "conv_1x1_s1_direct": FUSION / "conv_1x1_s1_direct_int8.tflite",
}

CASES = [(b, m) for b in FPU_BOARDS for m in [*INT_MODELS, *FLOAT_MODELS]]
CASES += [pytest.param("m3", m, marks=pytest.mark.full) for m in INT_MODELS]
CASES += [("m55", m) for m in HELIUM_MODELS]

_compiled = {}
_lock = threading.Lock()


def generated(name, model, isa):
    """mpcc MODEL --isa ISA -o DIR/model.c, once per model and ISA (M4 and M7 share armv7em)."""
    with _lock:
        if (name, isa) not in _compiled:
            work = new_workdir(f"mcu-{name}-{isa}")
            proc = run_cmd([MPCC, model, "-o", work / "model.c", "--name", "model", "--isa", isa])
            assert proc.returncode == 0, proc.stderr
            _compiled[name, isa] = work
        return _compiled[name, isa]


@pytest.fixture(scope="module")
def toolchain():
    why = mcu.toolchain()
    assert why is None, why


@pytest.mark.parametrize("board,name", CASES)
def test_bit_exact_under_qemu(toolchain, board, name, seed):
    model = {**INT_MODELS, **FLOAT_MODELS, **HELIUM_MODELS}[name]
    if not model.exists():
        pytest.skip(f"{model} is not here")
    inputs, refs = oracle(model, seed)
    work = new_workdir(f"mcu-{board}-{name}")
    src = generated(name, model, mcu.BOARDS[board][4])
    shutil.copyfile(src / "model.c", work / "model.c")
    shutil.copyfile(src / "model.h", work / "model.h")
    proc, elf = mcu.build(board, work, inputs, len(refs))
    assert proc.returncode == 0, proc.stderr[-3000:]
    proc, result = mcu.run(board, elf)
    assert result is not None, f"qemu exit {proc.returncode}: {proc.stdout[-2000:]}{proc.stderr[-2000:]}"
    assert len(result["out"]) == len(refs), proc.stdout[-2000:]
    for i, (ref, raw) in enumerate(zip(refs, result["out"])):
        assert len(raw) == ref.nbytes, f"output {i}: {len(raw)} bytes, expected {ref.nbytes}"
        got = np.frombuffer(raw, ref.dtype).reshape(ref.shape)
        ok, msg = compare_arrays(ref, got, mode="opt")
        assert ok, f"{name} on {board} ({mcu.BOARDS[board][0]}), output {i}: {msg}"
    # The stack stays inside its region with room to spare (the run would fault otherwise).
    assert 0 < result["stack"] < result["stack_size"], result


def arena_of(model, *args):
    work = new_workdir("mcu-arena")
    proc = run_cmd([MPCC, model, "-o", work / "m.c", "--report", *args])
    assert proc.returncode == 0, proc.stderr
    line = [x for x in proc.stdout.splitlines() if x.startswith("arena: ")][-1]
    return int(line.split()[1])


@pytest.mark.parametrize("name", [*INT_MODELS, *FLOAT_MODELS, "cnn_f32", "cnn_int8"])
def test_mcu_arena_at_op_by_op_bound(name):
    """Every -O of a Cortex-M build keeps the arena at -O0's (the op-by-op bound: the tensors live at
    the worst op plus the reference kernels' own scratch); scratch only fits in the gaps."""
    model = {**INT_MODELS, **FLOAT_MODELS, "cnn_f32": MODELS_DIR / "cnn_f32.tflite",
             "cnn_int8": MODELS_DIR / "cnn_int8.tflite"}[name]
    if not model.exists():
        pytest.skip(f"{model} is not here")
    bound = arena_of(model, "-O0")
    for isa in ("armv7m", "armv7em", "armv8m", "armv81m"):
        for opt in ("-O1", "-O2"):
            assert arena_of(model, "--isa", isa, opt) <= bound, f"{name} --isa {isa} {opt}: arena above -O0's {bound}"
