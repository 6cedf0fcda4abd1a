"""SVDF over many steps (its state carries from one run to the next): the generated C, called
repeatedly with one arena, against TFLite invoked repeatedly (float, and TFLite's int16-state
integer SVDF) and against tests/reference_svdf.py (TFLite Micro's 8-bit SVDF, which the interpreter
cannot run; the reference is checked against TFLite on the int16 variant here too)."""

import numpy as np
import pytest

import oracle
from compare import compare_arrays
from mpcc_paths import MODELS_DIR, MPCC_ASAN
from mpcc_tools import mpcc_run, new_workdir, run_steps
from reference_svdf import Svdf

STEPS = 40
# An input on which a multiplier computed from the scales in double (instead of TFLite's float
# arithmetic) changes svdf_int8's first output: TFLite gives [-17, -63, -20, -40].
SCALE_ROUNDING_INPUT = [126, 48, -121, -57, -20, 31, -36, 112, 126, -76, 104, 113]

MAIN = r"""
#include <stdio.h>
#include <stdlib.h>
#include "model.h"
int main(int argc, char **argv) {
    static MODEL_INPUT0_t in[STEPS][MODEL_INPUT0_SIZE];
    static MODEL_OUTPUT0_t out[STEPS][MODEL_OUTPUT0_SIZE];
    void *arena = malloc(MODEL_ARENA_BYTES + 16);
    FILE *f;
    int s;
    if (argc != 3 || !arena) return 2;
    f = fopen(argv[1], "rb");
    if (!f || fread(in, 1, sizeof in, f) != sizeof in) return 3;
    fclose(f);
    model_init(arena);
    for (s = 0; s < STEPS; s++) {
        const void *ins[1];
        void *outs[1];
        ins[0] = in[s];
        outs[0] = out[s];
        if (model_run(ins, outs, arena) != 0) return 4;
    }
    f = fopen(argv[2], "wb");
    if (!f || fwrite(out, 1, sizeof out, f) != sizeof out) return 5;
    fclose(f);
    free(arena);
    return 0;
}
"""


def steps_input(model, seed):
    interp = oracle.load(model)
    d = interp.get_input_details()[0]
    rng = np.random.default_rng(seed)
    if np.dtype(d["dtype"]).kind == "f":
        xs = rng.uniform(-1, 1, (STEPS, *d["shape"])).astype(np.float32)
    else:
        xs = rng.integers(-128, 128, (STEPS, *d["shape"])).astype(np.int8)
    if model.name == "svdf_int8.tflite":
        xs[0] = np.array(SCALE_ROUNDING_INPUT, np.int8).reshape(d["shape"])
    return interp, xs


@pytest.mark.parametrize("name", ["svdf_f32", "svdf_int8", "svdf_int8_w8"])
def test_svdf_steps(name, seed):
    model = MODELS_DIR / f"{name}.tflite"
    interp, xs = steps_input(model, seed)
    refs = np.stack([oracle.run(model, [x], interp=interp)[0] for x in xs])
    if name == "svdf_int8":
        assert refs[0].reshape(-1).tolist() == [-17, -63, -20, -40]
        ref = Svdf(model)  # the 8-bit oracle's int16 twin equals TFLite
        assert np.array_equal(np.stack([ref.step(x) for x in xs]), refs)
    got = run_steps(model, f"#define STEPS {STEPS}\n" + MAIN, xs, refs.dtype, refs.shape, name)
    ok, msg = compare_arrays(refs, got, mode="ref")
    print(f"{name}, {STEPS} steps: {msg}")
    assert ok, msg
    # The interpreter (one step from a fresh state) on the first input.
    work = new_workdir(name)
    proc, outs = mpcc_run(model, [xs[0]], work, n_out=1, mpcc=MPCC_ASAN)
    assert proc.returncode == 0, proc.stderr
    ok, msg = compare_arrays(refs[0], outs[0], mode="ref")
    assert ok, msg
