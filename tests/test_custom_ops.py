"""Custom operators with user kernels (--custom-op NAME=FUNC, runtime/mpcc_custom.h): the messages
without a kernel, the context a kernel gets, and a failing kernel's status through `mpcc run` and
the generated <prefix>_run. The numbers of the zoo model custom_sinh_f32 are checked against
TFLite by test_models.py (through its builtin-op twin, see the sidecar)."""

import numpy as np

from mpcc_paths import MODELS_DIR, MPCC_ASAN, ROOT, TESTS_DIR
from mpcc_tools import GEN_FLAGS, build_with_main, custom_lib, new_workdir, run_cmd

MODEL = MODELS_DIR / "custom_sinh_f32.tflite"  # FC -> CUSTOM "Sinh" (operator 1) -> FC

# A kernel that checks everything the context says about operator 1 of the model, then fails
# when its first input element is beyond +-100 (to see the status come back).
CHECKING_KERNEL = r"""
#include <string.h>
#include "mpcc_custom.h"
int checked_sinh(const mpcc_custom_ctx *ctx, const void *const *inputs, void *const *outputs) {
    static const unsigned char opts[] = {OPTIONS};
    const float *x = (const float *)inputs[0];
    float *y = (float *)outputs[0];
    int i;
    if (strcmp(ctx->op_name, "Sinh") != 0 || ctx->op_index != 1) return 10;
    if (ctx->options_size != (int)sizeof opts || memcmp(ctx->options, opts, sizeof opts) != 0) return 11;
    if (ctx->num_inputs != 1 || ctx->num_outputs != 1) return 12;
    if (ctx->inputs[0].dtype != MPCC_F32 || ctx->inputs[0].rank != 2 || ctx->inputs[0].dims[0] != 1 ||
        ctx->inputs[0].dims[1] != 12 || ctx->inputs[0].size != 12 || ctx->inputs[0].scale != 0.0f) return 13;
    if (strcmp(ctx->outputs[0].name, "Sinh") != 0 || ctx->outputs[0].size != 12) return 14;
    if (x[0] > 100.0f || x[0] < -100.0f) return 42;
    for (i = 0; i < 12; i++) y[i] = x[i];
    return 0;
}
"""

MAIN = r"""
#include <stdio.h>
#include <stdlib.h>
#include "model.h"
int main(void) {
    static float in[MODEL_INPUT0_SIZE], out[MODEL_OUTPUT0_SIZE];
    static double arena[MODEL_ARENA_BYTES / 8 + 1];
    const void *ins[1] = {in};
    void *outs[1] = {out};
    int i, rc;
    for (i = 0; i < MODEL_INPUT0_SIZE; i++) in[i] = 0.01f * (float)i;
    model_init(arena);
    rc = model_run(ins, outs, arena);
    printf("rc %d\n", rc);
    for (i = 0; i < MODEL_INPUT0_SIZE; i++) in[i] = 1000.0f;  /* makes the kernel fail */
    rc = model_run(ins, outs, arena);
    printf("rc %d\n", rc);
    return 0;
}
"""


def custom_options():
    from ai_edge_litert import schema_py_generated as S
    m = S.ModelT.InitFromPackedBuf(MODEL.read_bytes(), 0)
    return bytes(m.subgraphs[0].operators[1].customOptions)


def test_custom_op_without_kernel_is_named_with_its_uses(tmp_path):
    p = run_cmd([MPCC_ASAN, MODEL, "-o", tmp_path / "m.c"])
    assert p.returncode == 1
    assert ("custom operator 'Sinh': 1 use (operator 1) and no kernel for it: give one with "
            "--custom-op Sinh=FUNCTION") in p.stderr, p.stderr
    assert not (tmp_path / "m.c").exists()
    p = run_cmd([MPCC_ASAN, "inspect", TESTS_DIR / "bad" / "custom_op.tflite"])
    assert p.returncode == 0 and "custom operator 'MyFancyOp': 1 use (operator 0)" in p.stdout, p.stdout


def test_custom_op_option_errors(tmp_path):
    for arg, msg in (("Nope=f", "--custom-op Nope=f: the model has no custom operator of that name (it has: 'Sinh')"),
                     ("Sinh=1f", "'1f' is not a C identifier"),
                     ("Sinh=rt_sinh", "belong to mpcc's runtime"),
                     ("Sinh", "expected NAME=FUNCTION")):
        p = run_cmd([MPCC_ASAN, MODEL, "-o", tmp_path / "m.c", "--custom-op", arg])
        assert p.returncode == 1 and msg in p.stderr, (arg, p.stderr)
    p = run_cmd([MPCC_ASAN, MODEL, "-o", tmp_path / "m.c", "--custom-op", "Sinh=a", "--custom-op", "Sinh=b"])
    assert p.returncode == 1 and "given twice" in p.stderr, p.stderr
    np.save(tmp_path / "x.npy", np.ones((1, 16), np.float32))
    run_args = ["run", MODEL, "--input", tmp_path / "x.npy", "--output", tmp_path / "y.npy", "--custom-op",
                "Sinh=user_sinh"]
    p = run_cmd([MPCC_ASAN, *run_args])
    assert p.returncode == 1 and "mpcc run needs its kernel" in p.stderr and "--custom-lib" in p.stderr, p.stderr
    p = run_cmd([MPCC_ASAN, *run_args, "--custom-lib", tmp_path / "missing.so"])
    assert p.returncode == 1 and "--custom-lib" in p.stderr, p.stderr
    lib = custom_lib(MODEL)[1]
    p = run_cmd([MPCC_ASAN, *run_args[:-1], "Sinh=no_such_function", "--custom-lib", lib])
    assert p.returncode == 1 and "no function 'no_such_function'" in p.stderr, p.stderr


def test_user_kernel_context_and_failure():
    """The generated code hands the kernel the documented context (name, index, options bytes,
    shapes, dtypes, names); a kernel's non-zero return stops <prefix>_run with RT_ERR_CUSTOM_OP (5),
    and `mpcc run` reports it."""
    work = new_workdir("custom-ctx")
    opts = ", ".join(str(b) for b in custom_options())
    (work / "kernel.c").write_text(CHECKING_KERNEL.replace("OPTIONS", opts))
    p = run_cmd([MPCC_ASAN, MODEL, "-o", work / "model.c", "--name", "model", "--custom-op", "Sinh=checked_sinh"])
    assert p.returncode == 0, p.stderr
    p, exe = build_with_main(work, MAIN, extra=[work / "kernel.c"])
    assert p.returncode == 0, p.stderr[-3000:]
    p = run_cmd([exe])
    assert p.returncode == 0 and p.stdout.split() == ["rc", "0", "rc", "5"], p.stdout + p.stderr
    lib = work / "libk.so"
    p = run_cmd(["gcc", *GEN_FLAGS, "-shared", "-fPIC", "-I", ROOT / "runtime", work / "kernel.c", "-o", lib])
    assert p.returncode == 0, p.stderr
    for value, want in ((0.5, 0), (1000.0, 1)):
        np.save(work / "x.npy", np.full((1, 16), value, np.float32))
        p = run_cmd([MPCC_ASAN, "run", MODEL, "--input", work / "x.npy", "--output", work / "y.npy",
                     "--custom-op", "Sinh=checked_sinh", "--custom-lib", lib])
        assert p.returncode == want, p.stderr
    assert "custom operator 'Sinh' (operator 1): its kernel checked_sinh returned 42" in p.stderr, p.stderr
