"""UNIDIRECTIONAL_SEQUENCE_LSTM over many runs: its output and cell states are variable tensors that
carry from one run to the next. The generated C, called repeatedly with one arena, against TFLite
invoked repeatedly, for the converter's LSTM and the layer-norm LSTMs (float and fully integer;
tools/models/lstm.py, tools/models/lstm_ln.py)."""

import numpy as np
import pytest

import oracle
from compare import compare_arrays
from mpcc_paths import MODELS_DIR
from mpcc_tools import run_steps
from test_svdf import MAIN, STEPS, steps_input


@pytest.mark.parametrize("name", ["lstm_int8", "lstm_ln_f32", "lstm_ln_int8", "lstm_ln_cifg_int8"])
def test_lstm_steps(name, seed):
    model = MODELS_DIR / f"{name}.tflite"
    interp, xs = steps_input(model, seed)
    refs = np.stack([oracle.run(model, [x], interp=interp)[0] for x in xs])
    # The state carries: some of the later runs give another output than a fresh interpreter.
    assert any(not np.array_equal(oracle.run(model, [x])[0], r) for x, r in zip(xs[1:6], refs[1:6]))
    got = run_steps(model, f"#define STEPS {STEPS}\n" + MAIN, xs, refs.dtype, refs.shape, name)
    # The generated code runs the optimized kernels (default -O2): float is held to the "opt" rule
    # (1e-4), as in test_models. With "ref" (1e-5) the layer-norm LSTM failed at one seed in ~10^2:
    # 1.13e-5 at run 23 of 40, rounding carried through the recurrent state.
    ok, msg = compare_arrays(refs, got, mode="opt")
    print(f"{name}, {STEPS} runs: {msg}")
    assert ok, msg
