"""--target cuda: the recurrent ops (UNIDIRECTIONAL_SEQUENCE_LSTM, SVDF; codegen/cuda_emit_rnn.c,
runtime/cuda/mpcc_cuda_rnn.cuh) on the CPU emulator, over several runs of one context: their state
tensors carry from one run to the next, so every run's output is checked against the TFLite
interpreter invoked as many times (and the first run against mpcc's reference interpreter too).
Integers bit-exact, floats by the "opt" rule (tests/compare.py).

The models, one of each kind, built into one emulator program (one compile of runtime/cuda):
  kws_lstm_f32       f32 LSTM, 49 time steps, peephole, cell clip (keyword spotting)
  lstm_ln_cifg_int8  int8 LSTM: layer norm, CIFG, peephole, projection, time-major, batch 2
  svdf_int8          int8 SVDF with TFLite's int16 state
The other models with these ops run on the emulator in test_cuda.py's covering sample (against the
reference interpreter) and under make test-full."""

import numpy as np

import oracle
from compare import compare_arrays
from mpcc_paths import MODELS_DIR, MPCC
from mpcc_tools import count_outputs, model_args, mpcc_run, new_workdir, run_cmd
from test_cuda import CUDA_INC, NVCC, ON_DEVICE

MODELS = ["kws_lstm_f32", "lstm_ln_cifg_int8", "svdf_int8"]
STEPS = 6

RUN_MODEL = r"""
/* Runs model {p} STEPS times on one context: inputs from argv[{a}], every run's output to argv[{b}]. */
static int run_{p}(char **argv) {{
    const size_t in_bytes = {P}_INPUT0_BYTES, out_bytes = {P}_OUTPUT0_BYTES;
    std::vector<unsigned char> in(in_bytes * STEPS), out(out_bytes * STEPS);
    FILE *f = fopen(argv[{a}], "rb");
    if (!f || fread(in.data(), 1, in.size(), f) != in.size()) return 4;
    fclose(f);
    {p}_cuda_ctx ctx;
    if ({p}_cuda_init(&ctx)) {{
        fprintf(stderr, "{p}: init: %s\n", {p}_cuda_error(&ctx));
        return 3;
    }}
    void *din = NULL, *dout = NULL;
    cudaMalloc(&din, in_bytes);
    cudaMalloc(&dout, out_bytes);
    for (int s = 0; s < STEPS; s++) {{
        const void *ins[1] = {{din}};
        void *outs[1] = {{dout}};
        cudaMemcpy(din, in.data() + s * in_bytes, in_bytes, cudaMemcpyHostToDevice);
        if ({p}_cuda_run(&ctx, NULL, ins, outs)) {{
            fprintf(stderr, "{p}: run %d: %s\n", s, {p}_cuda_error(&ctx));
            return 5;
        }}
        cudaMemcpy(out.data() + s * out_bytes, dout, out_bytes, cudaMemcpyDeviceToHost);
    }}
    f = fopen(argv[{b}], "wb");
    if (!f || fwrite(out.data(), 1, out.size(), f) != out.size()) return 6;
    fclose(f);
    cudaFree(din);
    cudaFree(dout);
    {p}_cuda_free(&ctx);
    return 0;
}}
"""


def _inputs(model, rng):
    interp = oracle.load(model)
    d = interp.get_input_details()
    assert len(d) == 1 and count_outputs(model) == 1, model.name
    shape, dt = (STEPS, *d[0]["shape"]), np.dtype(d[0]["dtype"])
    if dt.kind == "f":
        xs = rng.uniform(-1, 1, shape).astype(dt)
    else:
        xs = rng.integers(np.iinfo(dt).min, np.iinfo(dt).max + 1, shape).astype(dt)
    return interp, xs


def test_emulated_cuda_rnn_models_over_steps(seed):
    rng = np.random.default_rng(seed)
    work = new_workdir("cuda-rnn")
    src = [f'#include "m{k}.cu"\n' for k in range(len(MODELS))]
    src += ["#include <cstdio>\n#include <vector>\n", f"#define STEPS {STEPS}\n"]
    cases = []
    for k, name in enumerate(MODELS):
        model = MODELS_DIR / f"{name}.tflite"
        p = run_cmd([MPCC, "--target", "cuda", model, "-o", work / f"m{k}.cu", "--name", f"m{k}", *model_args(model)])
        assert p.returncode == 0, p.stderr
        interp, xs = _inputs(model, rng)
        refs = np.stack([oracle.run(model, [x], interp=interp)[0] for x in xs])
        # The state carries: a later run gives another output than a fresh interpreter.
        assert any(not np.array_equal(oracle.run(model, [x])[0], r) for x, r in zip(xs[1:], refs[1:])), name
        proc, first = mpcc_run(model, [xs[0]], work, 1)
        assert proc.returncode == 0, proc.stderr
        xs.tofile(work / f"in{k}.bin")
        src.append(RUN_MODEL.format(p=f"m{k}", P=f"M{k}", a=1 + 2 * k, b=2 + 2 * k))
        cases.append((name, refs, first[0]))
    src.append("int main(int argc, char **argv) {\n    if (argc != %d) return 2;\n" % (1 + 2 * len(MODELS)))
    src += [f"    if (int rc = run_m{k}(argv)) return rc;\n" for k in range(len(MODELS))]
    src.append("    return 0;\n}\n")
    (work / "driver.cu").write_text("".join(src))
    exe = work / "rnn-driver"
    if ON_DEVICE:
        cmd = [NVCC, "-std=c++17", "-arch=sm_90", "-O2", "-I", CUDA_INC, "-I", work, work / "driver.cu", "-o", exe]
    else:
        cmd = ["g++", "-std=c++17", "-O1", "-Wall", "-Wextra", "-Werror", "-DMPCC_CUDA_EMU", "-I", CUDA_INC, "-I", work,
               "-x", "c++", work / "driver.cu", "-o", exe]
    p = run_cmd(cmd)
    assert p.returncode == 0, p.stderr[-4000:]
    args = [exe]
    for k in range(len(MODELS)):
        args += [work / f"in{k}.bin", work / f"out{k}.bin"]
    r = run_cmd(args, timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    failures = []
    for k, (name, refs, first) in enumerate(cases):
        got = np.fromfile(work / f"out{k}.bin", refs.dtype).reshape(refs.shape)
        ok, msg = compare_arrays(refs, got, mode="opt")
        ok1, msg1 = compare_arrays(first.reshape(refs.shape[1:]), got[0], mode="opt")
        print(f"{name}, {STEPS} runs against TFLite: {msg}; run 1 against the reference interpreter: {msg1}")
        if not (ok and ok1):
            failures.append(f"{name}: {msg}; {msg1}")
    assert not failures, "\n".join(failures)
