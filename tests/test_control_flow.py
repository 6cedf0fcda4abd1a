"""IF and WHILE (tests/models/cf_*, made by the converter): every branch and several loop counts
(0 included) through `mpcc run` and the generated C (gcc, ASan+UBSan) against TFLite; the subgraphs
in --weights file mode; the compile-time checks of the subgraphs' signatures."""

import numpy as np
import pytest

import oracle
from compare import compare_arrays
from mpcc_paths import MODELS_DIR, MPCC_ASAN
from mpcc_tools import (build_exe, build_with_main, compile_model, mpcc_run, new_workdir, run_cmd, run_exe,
                        run_steps, write_harness)
from schema_models import OP, S, TT, buffer, model, operator, pack, tensor

CASES = [("cf_if_f32", [-2, 0, 3]), ("cf_if_int8", [-1, 1]), ("cf_while_f32", [0, 1, 6]),
         ("cf_nested_f32", [0, 2, 5])]


@pytest.mark.parametrize("name,values", CASES, ids=[c[0] for c in CASES])
def test_every_branch_and_loop_count(name, values, seed):
    model_path = MODELS_DIR / f"{name}.tflite"
    interp = oracle.load(model_path)
    x = oracle.draw_inputs(model_path, seed, interp)[0]
    work = new_workdir(name)
    assert compile_model(model_path, work, mpcc=MPCC_ASAN).returncode == 0
    write_harness(work, 2, 1)
    proc, exe = build_exe(work, "gcc-san")
    assert proc.returncode == 0, proc.stderr[-3000:]
    for v in values:
        inputs = [x, np.array([v], np.int32)]
        check_run_and_c(model_path, inputs, oracle.run(model_path, inputs, interp=interp), work, exe,
                        f"control input {v}")


def check_run_and_c(model_path, inputs, ref, work, exe, what):
    """`mpcc run` (the ASan build's reference interpreter) and the built generated C exe on inputs, against
    TFLite's ref."""
    proc, got = mpcc_run(model_path, inputs, work, n_out=1, mpcc=MPCC_ASAN)
    assert proc.returncode == 0, proc.stderr
    ok, msg = compare_arrays(ref[0], got[0], mode="ref")
    assert ok, f"mpcc run, {what}: {msg}"
    proc, got = run_exe(exe, inputs, [(ref[0].dtype, ref[0].shape)], work)
    assert proc.returncode == 0, proc.stderr[-2000:]
    ok, msg = compare_arrays(ref[0], got[0], mode="opt")
    assert ok, f"generated C, {what}: {msg}"


WEIGHTS_MAIN = r"""
#include <stdio.h>
#include <stdlib.h>
#include "model.h"
int main(int argc, char **argv) {
    static float x[MODEL_INPUT0_SIZE], y[MODEL_OUTPUT0_SIZE];
    static int32_t n[1];
    static double w[(MODEL_WEIGHTS_BYTES + 7) / 8 + 1], arena[MODEL_ARENA_BYTES / 8 + 1];
    const void *ins[2];
    void *outs[1];
    FILE *f;
    size_t got;
    if (argc != 5) return 2;
    f = fopen(argv[1], "rb"); got = fread(w, 1, MODEL_WEIGHTS_BYTES, f); fclose(f);
    f = fopen(argv[2], "rb"); got += fread(x, 1, sizeof x, f); fclose(f);
    f = fopen(argv[3], "rb"); got += fread(n, 1, sizeof n, f); fclose(f);
    if (got != MODEL_WEIGHTS_BYTES + sizeof x + sizeof n) return 3;
    ins[0] = x; ins[1] = n; outs[0] = y;
    model_init(arena);
    if (model_run(ins, outs, arena, w)) return 4;
    f = fopen(argv[4], "wb"); fwrite(y, 1, sizeof y, f); fclose(f);
    return 0;
}
"""


def test_subgraph_constants_in_the_weights_file(seed):
    """--weights file: the subgraphs' constants go to the blob too (none left in the C)."""
    model_path = MODELS_DIR / "cf_nested_f32.tflite"
    work = new_workdir("cf-weights")
    assert compile_model(model_path, work, ["--weights", "file"], mpcc=MPCC_ASAN).returncode == 0
    assert "static const float" not in (work / "model.c").read_text()
    p, exe = build_with_main(work, WEIGHTS_MAIN)
    assert p.returncode == 0, p.stderr[-3000:]
    x = oracle.draw_inputs(model_path, seed)[0]
    n = np.array([4], np.int32)
    x.tofile(work / "x.bin")
    n.tofile(work / "n.bin")
    p = run_cmd([exe, work / "model.weights.bin", work / "x.bin", work / "n.bin", work / "y.bin"])
    assert p.returncode == 0, p.stderr[-2000:]
    ref = oracle.run(model_path, [x, n])[0]
    ok, msg = compare_arrays(ref, np.fromfile(work / "y.bin", np.float32).reshape(ref.shape), mode="opt")
    assert ok, msg


def if_model(then_shape):
    """y = IF(cond, x) with then = x + c ([1,4] f32) and an else branch giving then_shape."""
    c = np.arange(4, dtype=np.float32).tobytes()
    opts = S.IfOptionsT()
    opts.thenSubgraphIndex, opts.elseSubgraphIndex = 1, 2
    m = model([tensor("cond", [1], TT.BOOL), tensor("x", [1, 4]), tensor("y", [1, 4])],
              [operator(0, [0, 1], [2], S.BuiltinOptions.IfOptions, opts)], [OP.IF, OP.ADD, OP.RELU],
              [buffer(), buffer(c)], [0, 1], [2])
    for idx, (shape, ops, tensors) in enumerate([
            ([1, 4], [operator(1, [0, 1], [2], S.BuiltinOptions.AddOptions, S.AddOptionsT())],
             [tensor("t_x", [1, 4]), tensor("t_c", [1, 4], buffer=1), tensor("t_y", [1, 4])]),
            (then_shape, [operator(2, [0], [1])], [tensor("e_x", then_shape), tensor("e_y", then_shape)])]):
        sg = S.SubGraphT()
        sg.tensors, sg.operators = tensors, ops
        sg.inputs, sg.outputs = [0], [len(tensors) - 1]
        m.subgraphs.append(sg)
    return pack(m)


def test_if_branches_must_agree(tmp_path):
    good, bad = tmp_path / "good.tflite", tmp_path / "bad.tflite"
    good.write_bytes(if_model([1, 4]))
    bad.write_bytes(if_model([2, 4]))
    for cond in (True, False):
        x = np.array([[1.0, -2.0, 3.0, -4.0]], np.float32)
        ref = oracle.run(good, [np.array([cond]), x])
        proc, got = mpcc_run(good, [np.array([cond]), x], tmp_path, n_out=1, mpcc=MPCC_ASAN)
        assert proc.returncode == 0 and np.array_equal(got[0], ref[0]), proc.stderr
    p = run_cmd([MPCC_ASAN, bad, "-o", tmp_path / "m.c"])
    assert p.returncode == 1
    assert "operator 0 (IF): input 1 and subgraph 2's input 0: 'x' is [1,4] f32 but 'e_x' is [2,4] f32" in p.stderr, \
        p.stderr


STEPS_MAIN = r"""
#include <stdio.h>
#include <stdlib.h>
#include "model.h"
/* STEPS runs on one arena, then PREFIX_init and the first input again (the state must restart). */
int main(int argc, char **argv) {
    static float x[STEPS][MODEL_INPUT0_SIZE], y[STEPS + 1][MODEL_OUTPUT0_SIZE];
    static double arena[MODEL_ARENA_BYTES / 8 + 1];
    const void *ins[1];
    void *outs[1];
    FILE *f;
    int s;
    if (argc != 3) return 2;
    f = fopen(argv[1], "rb");
    if (!f || fread(x, 1, sizeof x, f) != sizeof x) return 3;
    fclose(f);
    model_init(arena);
    for (s = 0; s <= STEPS; s++) {
        if (s == STEPS) model_init(arena);
        ins[0] = x[s == STEPS ? 0 : s];
        outs[0] = y[s];
        if (model_run(ins, outs, arena)) return 4;
    }
    f = fopen(argv[2], "wb");
    if (!f || fwrite(y, 1, sizeof y, f) != sizeof y) return 5;
    fclose(f);
    return 0;
}
"""


def test_resource_variable_persists_across_runs(seed):
    """cf_variable_f32: CALL_ONCE initializes a resource variable, every run reads and updates it.
    The generated code (one arena, several runs) equals TFLite invoked as often; <prefix>_init
    restores the initial value."""
    steps = 4
    model_path = MODELS_DIR / "cf_variable_f32.tflite"
    interp = oracle.load(model_path)
    xs = np.random.default_rng(seed).uniform(-1, 1, (steps, 1, 8)).astype(np.float32)
    refs = [oracle.run(model_path, [x], interp=interp)[0] for x in xs]
    refs.append(oracle.run(model_path, [xs[0]])[0])  # a fresh interpreter: the initial state
    assert not np.allclose(refs[0], refs[1]), "the state does not change the output"
    got = run_steps(model_path, f"#define STEPS {steps}\n" + STEPS_MAIN, xs, np.float32, (steps + 1, 1, 8),
                    "cf-variable")
    for s, ref in enumerate(refs):
        ok, msg = compare_arrays(ref, got[s], mode="opt")
        assert ok, f"run {s}: {msg}"


def if_weights_model(rng):
    """y = IF(cond, x, W, b): the caller's constant weights passed to both branches as operands (what the ONNX
    converter's If does: openWakeWord's classifiers); then = FULLY_CONNECTED(x, W, b), else = RELU of it. x [2,64]
    f32, W [32,64], b [32] from rng."""
    w = (rng.standard_normal((32, 64)) * 0.2).astype(np.float32)
    b = rng.standard_normal(32).astype(np.float32)
    opts = S.IfOptionsT()
    opts.thenSubgraphIndex, opts.elseSubgraphIndex = 1, 2
    m = model([tensor("cond", [1], TT.BOOL), tensor("x", [2, 64]), tensor("w", [32, 64], buffer=1),
               tensor("b", [32], buffer=2), tensor("y", [2, 32])],
              [operator(0, [0, 1, 2, 3], [4], S.BuiltinOptions.IfOptions, opts)],
              [OP.IF, OP.FULLY_CONNECTED, OP.RELU], [buffer(), buffer(w.tobytes()), buffer(b.tobytes())], [0, 1], [4])
    for relu in (False, True):
        T = [tensor("s_x", [2, 64]), tensor("s_w", [32, 64]), tensor("s_b", [32]), tensor("s_fc", [2, 32])]
        ops = [operator(1, [0, 1, 2], [3], S.BuiltinOptions.FullyConnectedOptions, S.FullyConnectedOptionsT())]
        if relu:
            T.append(tensor("s_y", [2, 32]))
            ops.append(operator(2, [3], [4]))
        sg = S.SubGraphT()
        sg.tensors, sg.operators = T, ops
        sg.inputs, sg.outputs = [0, 1, 2], [len(T) - 1]
        m.subgraphs.append(sg)
    return pack(m)


def test_if_branch_weights_passed_as_operands_are_scheduled(seed):
    """A branch subgraph whose weights arrive as the caller's constant IF operands: at -O2 they are bound as
    constants, so its FULLY_CONNECTED is scheduled (weights packed) like the caller's would be (openWakeWord's
    hey_jarvis ran its else branch on reference FCs: 0.24x XNNPACK); -O0 keeps them as inputs. Both branches
    (cond true / false) against TFLite: `mpcc run`, and the generated C (ASan/UBSan)."""
    rng = np.random.default_rng(seed)
    work = new_workdir("cf-if-weights")
    model_path = work / "if_weights.tflite"
    model_path.write_bytes(if_weights_model(rng))
    dump = run_cmd([MPCC_ASAN, model_path, "--dump-ir"])
    assert dump.returncode == 0, dump.stderr
    fcs = [l for l in dump.stdout.splitlines() if "FULLY_CONNECTED" in l]
    assert len(fcs) == 2 and all("schedule=gemm" in l for l in fcs), dump.stdout
    dump0 = run_cmd([MPCC_ASAN, model_path, "--dump-ir", "-O0"])
    assert dump0.returncode == 0 and "schedule=gemm" not in dump0.stdout, dump0.stdout
    assert compile_model(model_path, work, mpcc=MPCC_ASAN).returncode == 0
    write_harness(work, 2, 1)
    proc, exe = build_exe(work, "gcc-san")
    assert proc.returncode == 0, proc.stderr[-3000:]
    x = rng.uniform(-2, 2, (2, 64)).astype(np.float32)
    for cond in (True, False):
        inputs = [np.array([cond]), x]
        ref = oracle.run(model_path, inputs)
        assert (ref[0] < 0).any() == cond, "the branches must differ on this input"
        check_run_and_c(model_path, inputs, ref, work, exe, f"cond {cond}")
