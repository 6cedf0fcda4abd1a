"""Every model (zoo, samples, ../shared/models) through `mpcc run` and the C
backend, against the TFLite interpreter on random inputs (seed printed)."""

import shutil
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

import oracle
from compare import SCALE_FLOOR, compare_arrays
from mpcc_paths import all_models, model_id
from mpcc_paths import MPCC_ASAN
from mpcc_tools import CONFIGS, build_exe, compile_model, mpcc_run, new_workdir, run_exe, write_harness

# The seanet suite has its own goldens (test_shared_tasks.py); its models are
# still run here against the interpreter.
MODELS = all_models()

# The fp16-weight variants of the benchmark families (tools/models/mediapipe.py, kws.py): their f32 and
# int8 twins build the same graphs, so their five-build C matrix (~15 s a model) runs only under
# `make test-full`; `mpcc run` checks them in `make test`.
# The generated-C build matrix of these runs only under make test-full: the f16 twins (their f32/int8 twins
# cover the same graphs after fold_dequantize), and a second variant where the family already has one in
# make test (landmark f32, kws_conv1d int8, kws_lstm int8, the up-sampling resizes stay). `mpcc run` still
# checks every one of them against TFLite in make test.
C_FULL_ONLY = {f"{name}_f16" for name in ("blazeface", "landmark", "segnet", "kws_conv1d", "kws_lstm")} | {
    "landmark_int8", "kws_conv1d_f32", "kws_lstm_f32"} | {
    # The litert-torch decoders: tests/test_llm_decoder.py and tests/test_exports.py (hf_) build their C and generate with it.
    "llm_tiny_llama_f32", "llm_tiny_llama_q8", "llm_tiny_llama_q4", "hf_tiny_llama_f32", "hf_tiny_llama_q8",
    "hf_tiny_llama_sdpat_f32"} | {
    f"op_resize_{kind}_down_c20_align_{dt}" for kind in ("bilinear", "nearest_neighbor") for dt in ("f32", "int8")}

# The single-op models (op_*, 375 of them) run the five-build matrix where they are the first of their kind
# (the set of operators they hold and their type: 134 kinds); the others run the vector build (gcc -O3
# -march=native) and the ASan+UBSan build in make test, their other three builds under make test-full.
CORE_CONFIGS = ("gcc-native", "gcc-san")
REST_CONFIGS = tuple(c for c in CONFIGS if c not in CORE_CONFIGS)


def _op_kind(model):
    from ai_edge_litert.interpreter import Interpreter
    ops = sorted({d["op_name"] for d in Interpreter(model_path=str(model))._get_ops_details()})
    return tuple(ops), model.stem.rsplit("_", 1)[-1]


def _c_params():
    first_of_kind, params = set(), []
    for m in sorted(MODELS, key=lambda p: p.stem):
        if m.stem in C_FULL_ONLY:
            params.append(pytest.param(m, tuple(CONFIGS), marks=pytest.mark.full, id=f"{model_id(m)}-all"))
            continue
        kind = _op_kind(m) if m.stem.startswith("op_") else None
        if kind is None or kind not in first_of_kind:
            first_of_kind.add(kind)
            params.append(pytest.param(m, tuple(CONFIGS), id=f"{model_id(m)}-all"))
        else:
            params.append(pytest.param(m, CORE_CONFIGS, id=f"{model_id(m)}-core"))
            params.append(pytest.param(m, REST_CONFIGS, marks=pytest.mark.full, id=f"{model_id(m)}-rest"))
    return params


def _floor(model):
    """The comparison's scale floor: the sidecar's "scale_floor" (see tests/compare.py), else 0.05."""
    return oracle.sidecar(model).get("scale_floor", SCALE_FLOOR)


def _check(name, refs, gots, mode="ref", floor=SCALE_FLOOR):
    assert len(refs) == len(gots), f"{name}: {len(refs)} reference outputs, {len(gots)} produced"
    msgs = []
    for i, (r, g) in enumerate(zip(refs, gots)):
        ok, msg = compare_arrays(r, g, mode=mode, scale_floor=floor)
        print(f"{name} output {i}: {msg}")
        if not ok:
            msgs.append(f"output {i}: {msg}")
    assert not msgs, f"{name}: " + "; ".join(msgs)


@pytest.mark.parametrize("model", MODELS, ids=model_id)
def test_mpcc_run_matches_tflite(model, seed):
    inputs, refs = oracle.oracle(model, seed)
    work = new_workdir(model.stem)
    # The compiler and its interpreter run under ASan+UBSan here (build/asan/mpcc).
    proc, outs = mpcc_run(model, inputs, work, n_out=len(refs), mpcc=MPCC_ASAN)
    assert proc.returncode == 0, f"mpcc run failed (exit {proc.returncode}): {proc.stderr.strip()}"
    _check("mpcc run vs TFLite", refs, outs, floor=_floor(model))
    shutil.rmtree(work, ignore_errors=True)


def _build_and_run(work, config, inputs, specs):
    """Builds the harness for one configuration and runs it: (error message or None, outputs)."""
    proc, exe = build_exe(work, config)
    if proc.returncode != 0:
        return f"generated C does not build with {config}:\n{proc.stderr[-3000:]}", None
    proc, outs = run_exe(exe, inputs, specs, work)
    if proc.returncode != 0:
        return f"generated model ({config}) exited {proc.returncode}:\n{proc.stderr[-3000:]}", None
    return None, outs


@pytest.mark.parametrize("model,configs", _c_params())
def test_generated_c_matches(model, configs, seed):
    """The generated C (scheduled, default -O2), built with gcc and clang at -O2 and at -O0 with
    ASan+UBSan and with gcc -O3 -march=native (`configs`: all five, or a part, see _c_params), and the
    reference-only C (mpcc -O0, except for the "rest" part), equal both TFLite and `mpcc run` on the same
    random inputs."""
    inputs, refs = oracle.oracle(model, seed)
    floor = _floor(model)
    work = new_workdir(model.stem)
    proc = compile_model(model, work, mpcc=MPCC_ASAN)
    assert proc.returncode == 0, f"mpcc compile failed (exit {proc.returncode}): {proc.stderr.strip()}"
    write_harness(work, len(inputs), len(refs))
    proc, interp_outs = mpcc_run(model, inputs, work, n_out=len(refs))
    assert proc.returncode == 0, proc.stderr
    specs = [(r.dtype, r.shape) for r in refs]
    with ThreadPoolExecutor(max_workers=2) as pool:
        results = dict(zip(configs, pool.map(lambda c: _build_and_run(work, c, inputs, specs), configs)))
    errors = [err for err, _ in results.values() if err]
    assert not errors, "\n".join(errors)
    for config, (_, outs) in results.items():
        # Scheduled kernels sum in another order than TFLite's: the "opt" float tolerance.
        _check(f"generated C ({config}) vs TFLite", refs, outs, mode="opt", floor=floor)
        _check(f"generated C ({config}) vs mpcc run", interp_outs, outs, mode="opt", floor=floor)
    # The reference path (mpcc -O0: no scheduling, reference kernels only) stays selectable and exact.
    if configs == REST_CONFIGS:
        shutil.rmtree(work, ignore_errors=True)
        return
    ref_work = work / "O0"
    ref_work.mkdir()
    proc = compile_model(model, ref_work, extra=["-O0"])
    assert proc.returncode == 0, f"mpcc -O0 compile failed (exit {proc.returncode}): {proc.stderr.strip()}"
    write_harness(ref_work, len(inputs), len(refs))
    err, outs = _build_and_run(ref_work, "gcc-O2", inputs, specs)
    assert not err, err
    _check("generated C (mpcc -O0, gcc-O2) vs TFLite", refs, outs, floor=floor)
    _check("generated C (mpcc -O0, gcc-O2) vs mpcc run", interp_outs, outs, floor=floor)
    shutil.rmtree(work, ignore_errors=True)
