"""--target cuda with several subgraphs or host-side ops (docs/cuda-control-flow.md), on the CPU emulator:
IF / WHILE as host code around each subgraph's kernels (cf_if_f32 through both branches, cf_if_int8
bit-exact, cf_while_f32, cf_nested_f32: an IF inside a WHILE body) against mpcc's reference
interpreter; a resource variable kept across runs and reset by PREFIX_cuda_init (cf_variable_f32)
and every signature's PREFIX_<key>_cuda_run (sig_two_f32, sig_shared_f32) against TFLite; a CUSTOM
op through the C target's user kernel, run on the host (custom_sinh_f32) against `mpcc run`. All the
models build into one emulator program (one g++ run: the emulator headers dominate the cost)."""

import os
import re

import numpy as np
import pytest

import oracle
from compare import compare_arrays
from mpcc_paths import MODELS_DIR, ROOT
from mpcc_tools import model_args, mpcc_run, new_workdir, run_cmd
from test_cuda import CUDA_INC, MPCC, NVCC, ON_DEVICE, REFUSED, _rel_l2

pytestmark = pytest.mark.xdist_group("cuda")

# model -> the entry points to drive (C identifier of the signature, or "" for PREFIX_cuda_run)
SIGS = {"sig_two_f32": [("double", "double"), ("square", "square")],
        "sig_shared_f32": [("decode", "decode"), ("decode-v2!", "decode_v2_"), ("encode", "encode")]}
# single-entry models checked against `mpcc run`; custom_sinh_f32's CUSTOM op runs the C target's
# user kernel (tests/custom/user_kernels.c) on the host
CF = ["cf_if_f32", "cf_if_int8", "cf_while_f32", "cf_nested_f32", "custom_sinh_f32"]
VAR_STEPS = 4


def _driver(cases):
    """C++ main: for each case (prefix, [(function, tag, inputs, output bytes, reinit)]) runs the
    entry points in order on one context, inputs from DIR/<tag>_in<i>.bin, outputs to DIR/<tag>_out<i>.bin."""
    src = ["#include <cstdio>", "#include <vector>", "#ifndef MPCC_CUDA_EMU", "#include <cuda_runtime.h>", "#endif"]
    src += [f'#include "{p}.cu"' for p, _ in cases]
    src += ["template <class Ctx>",
            "static int step(Ctx *ctx, int (*fn)(Ctx *, void *, const void *const *, void *const *), const char *dir,",
            "                const char *tag, std::vector<size_t> ib, std::vector<size_t> ob, cudaStream_t s) {",
            "    std::vector<void *> din(ib.size() + 1), dout(ob.size() + 1);",
            "    char path[600];",
            "    for (size_t i = 0; i < ib.size(); i++) {",
            "        std::vector<unsigned char> h(ib[i]);",
            '        snprintf(path, sizeof path, "%s/%s_in%zu.bin", dir, tag, i);',
            '        FILE *f = fopen(path, "rb");',
            "        if (!f || fread(h.data(), 1, h.size(), f) != h.size()) return 4;",
            "        fclose(f);",
            "        cudaMalloc(&din[i], h.size());",
            "        cudaMemcpy(din[i], h.data(), h.size(), cudaMemcpyHostToDevice);",
            "    }",
            "    for (size_t i = 0; i < ob.size(); i++) cudaMalloc(&dout[i], ob[i]);",
            "    int rc = fn(ctx, s, din.data(), dout.data());",
            '    if (rc) { fprintf(stderr, "%s: %d\\n", tag, rc); return 5; }',
            "    cudaStreamSynchronize(s);",
            "    for (size_t i = 0; i < ob.size(); i++) {",
            "        std::vector<unsigned char> h(ob[i]);",
            "        cudaMemcpy(h.data(), dout[i], h.size(), cudaMemcpyDeviceToHost);",
            '        snprintf(path, sizeof path, "%s/%s_out%zu.bin", dir, tag, i);',
            '        FILE *f = fopen(path, "wb");',
            "        if (!f || fwrite(h.data(), 1, h.size(), f) != h.size()) return 6;",
            "        fclose(f);",
            "    }",
            "    for (void *p : din) cudaFree(p);",
            "    for (void *p : dout) cudaFree(p);",
            "    return 0;",
            "}",
            "int main(int argc, char **argv) {",
            "    cudaStream_t s;",
            "    if (argc != 2 || cudaStreamCreate(&s) != cudaSuccess) return 2;"]
    for p, steps in cases:
        src += ["    {", f"        static {p}_cuda_ctx ctx;",
                f'        if ({p}_cuda_init(&ctx)) {{ fprintf(stderr, "%s\\n", {p}_cuda_error(&ctx)); return 3; }}']
        for fn, tag, ins, obytes, reinit in steps:
            if reinit:
                src += [f"        {p}_cuda_free(&ctx);", f"        if ({p}_cuda_init(&ctx)) return 3;"]
            ib = ", ".join(str(a.nbytes) for a in ins)
            ob = ", ".join(str(n) for n in obytes)
            src.append(f'        if (int rc = step(&ctx, {fn}, argv[1], "{tag}", {{{ib}}}, {{{ob}}}, s)) return rc;')
        src += [f"        {p}_cuda_free(&ctx);", "    }"]
    src += ["    return 0;", "}", ""]
    return "\n".join(src)


def _build_driver(work, exe, objs=()):
    """Builds work/driver.cu (and objs) into exe: g++ against the emulator, or nvcc with
    MPCC_CUDA_DEVICE=1 (a machine with a GPU: the runs then go to the device)."""
    if ON_DEVICE:
        p = run_cmd([NVCC, "-std=c++17", f"-arch={os.environ.get('MPCC_CUDA_ARCH', 'sm_90')}", "-O2", "-I", CUDA_INC,
                     "-I", work, work / "driver.cu", *objs, "-o", exe])
    else:
        p = run_cmd(["g++", "-std=c++17", "-O1", "-Wall", "-Wextra", "-Werror", "-DMPCC_CUDA_EMU", "-I", CUDA_INC,
                     "-I", work, "-x", "c++", work / "driver.cu", "-x", "none", *objs, "-o", exe, "-lm"])
    assert p.returncode == 0, p.stderr[-4000:]


def test_control_flow_and_signatures_on_the_emulator(seed):
    work = new_workdir("cuda-cf")
    rng = np.random.default_rng(seed)
    cases, checks = [], []  # checks: (tag, [reference arrays], exact or float rule)
    for ix, name in enumerate(CF + ["cf_variable_f32"] + list(SIGS)):
        model, prefix = MODELS_DIR / f"{name}.tflite", f"c{ix}"
        p = run_cmd([MPCC, "--target", "cuda", model, "-o", work / f"{prefix}.cu", "--name", prefix, *model_args(model)])
        assert p.returncode == 0, f"{name}: {p.stderr}"
        header = (work / f"{prefix}.h").read_text()
        steps = []
        if name in CF:
            ins = oracle.draw_inputs(model, int(rng.integers(1 << 30)))
            variants = [ins]
            if name == "cf_if_f32":  # input 1 is the flag (range -3..3): one run per branch
                variants = [[ins[0], np.full_like(ins[1], v)] for v in (3, -3)]
            for vi, v in enumerate(variants):
                tag = f"{prefix}_{vi}"
                (work / tag).mkdir()
                proc, ref = mpcc_run(model, v, work / tag)
                assert proc.returncode == 0, proc.stderr
                # cf_while_f32 through run_graph: a model with IF/WHILE runs uncaptured, as run does
                fn = f"{prefix}_cuda_run_graph" if name == "cf_while_f32" else f"{prefix}_cuda_run"
                steps.append((fn, tag, v, [r.nbytes for r in ref], False))
                checks.append((f"{name} #{vi}", tag, v, ref))
        elif name == "cf_variable_f32":
            interp = oracle.load(model)
            xs = rng.uniform(-1, 1, (VAR_STEPS, 1, 8)).astype(np.float32)
            refs = [oracle.run(model, [x], interp=interp) for x in xs] + [oracle.run(model, [xs[0]])]
            assert not np.allclose(refs[0][0], refs[1][0]), "the state does not change the output"
            for s, x in enumerate(list(xs) + [xs[0]]):
                tag = f"{prefix}_{s}"
                steps.append((f"{prefix}_cuda_run", tag, [x], [r.nbytes for r in refs[s]], s == VAR_STEPS))
                checks.append((f"{name} run {s}{' (after a new init)' if s == VAR_STEPS else ''}", tag, [x], refs[s]))
        else:
            from ai_edge_litert.interpreter import Interpreter
            interp = Interpreter(model_path=str(model))
            for key, c in SIGS[name]:
                fn = f"{prefix}_{c}_cuda_run"
                assert f"int {fn}({prefix}_cuda_ctx *ctx, void *stream, const void *const *inputs, void *const *outputs);" in header
                E = f"{prefix.upper()}_{c.upper()}"
                names = lambda kind: [m.group(1).encode().decode("unicode_escape")  # noqa: E731
                                      for m in re.finditer(rf'#define {E}_{kind}\d+_NAME "((?:[^"\\]|\\.)*)"', header)]
                runner = interp.get_signature_runner(key)
                feeds = {n: rng.standard_normal(runner.get_input_details()[n]["shape"]).astype(
                    runner.get_input_details()[n]["dtype"]) for n in names("INPUT")}
                out = runner(**feeds)
                ref = [out[n] for n in names("OUTPUT")]
                tag = f"{prefix}_{c}"
                steps.append((fn, tag, list(feeds.values()), [r.nbytes for r in ref], False))
                checks.append((f"{name} signature {key!r}", tag, list(feeds.values()), ref))
        cases.append((prefix, steps))
    for _, tag, ins, _ in checks:
        for i, a in enumerate(ins):
            np.ascontiguousarray(a).tofile(work / f"{tag}_in{i}.bin")
    (work / "driver.cu").write_text(_driver(cases))
    exe = work / "cf-emu"
    p = run_cmd(["gcc", "-std=c99", "-Wall", "-Wextra", "-Werror", "-I", ROOT / "runtime", "-c",
                 ROOT / "tests" / "custom" / "user_kernels.c", "-o", work / "user_kernels.o"])
    assert p.returncode == 0, p.stderr
    _build_driver(work, exe, [work / "user_kernels.o"])
    r = run_cmd([exe, work], timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    for what, tag, _, refs in checks:
        for i, want in enumerate(refs):
            got = np.fromfile(work / f"{tag}_out{i}.bin", dtype=want.dtype).reshape(want.shape)
            if want.dtype.kind == "f":
                ok, msg = compare_arrays(want, got, mode="opt")
                assert ok and _rel_l2(want, got) <= 1e-4, f"{what} output {i} (seed {seed}): {msg}"
            else:
                assert np.array_equal(want, got), f"{what} output {i} (seed {seed}): not bit-exact"
    print(f"\nemulated CUDA: {len(checks)} runs of {len(cases)} models with control flow, state, signatures or a custom op match")


def test_jit_refuses_control_flow_with_the_reason():
    work = new_workdir("cuda-cf-jit")
    p = run_cmd([MPCC, "--target", "cuda", "--jit", MODELS_DIR / "cf_if_f32.tflite", "-o", work / "m.c"])
    assert p.returncode == 1 and "not available with --target cuda --jit" in p.stderr and "control flow" in p.stderr, p.stderr


def test_a_subgraph_operator_without_kernel_is_named():
    """An op of a signature's subgraph that cannot run on CUDA is listed with its subgraph:
    stream_tconv_f32's TRANSPOSE_CONV (its run-time shape input), its subgraph copied into a
    second signature's subgraph 1 (every zoo model with subgraphs now compiles)."""
    import copy

    from ai_edge_litert import schema_py_generated as S
    from schema_models import pack
    m = S.ModelT.InitFromPackedBuf((MODELS_DIR / "stream_tconv_f32.tflite").read_bytes(), 0)
    m.subgraphs.append(copy.deepcopy(m.subgraphs[0]))
    m.signatureDefs = []
    for k, sg in enumerate(m.subgraphs):
        sd = S.SignatureDefT()
        sd.signatureKey, sd.subgraphIndex = f"s{k}".encode(), k
        sd.inputs, sd.outputs = [], []
        for ids, maps in ((sg.inputs, sd.inputs), (sg.outputs, sd.outputs)):
            for i in ids:
                t = S.TensorMapT()
                t.name, t.tensorIndex = sg.tensors[i].name, i
                maps.append(t)
        m.signatureDefs.append(sd)
    work = new_workdir("cuda-cf-sub")
    (work / "two.tflite").write_bytes(pack(m))
    p = run_cmd([MPCC, "--target", "cuda", work / "two.tflite", "-o", work / "m.cu"])
    assert p.returncode == 1 and REFUSED in p.stderr, p.stderr
    assert re.search(r"; subgraph 1 operator 0 \(TRANSPOSE_CONV, i32 input\): its shape input is a run-time tensor", p.stderr), p.stderr
    assert run_cmd([MPCC, work / "two.tflite", "-o", work / "c.c"]).returncode == 0