"""--isa and --threads: the scheduled C for each ISA this machine runs, built for that ISA (and once
under ASan/UBSan with the AVX-512 paths), single-threaded and on a 2-thread mpcc_pool, equals TFLite
and `mpcc run` on random inputs (seed printed). Models cover every threaded kernel: convolution and
depthwise (f32, int8), fully connected, fused attention (bert), PAD folded into convolutions, and a
1x1 expansion fused with its depthwise convolution split by channels."""

import shutil
from pathlib import Path

import pytest

import oracle
from mpcc_paths import CPU_FLAGS, MPCC, MODELS_DIR, SHARED_MODELS, TESTS_DIR
from mpcc_tools import compile_model, mpcc_run, new_workdir, run_cmd, run_exe, write_harness, build_exe
from test_models import _check


FLAGS = CPU_FLAGS
# (isa, build config) pairs this machine can run.
ISAS = [("generic", "gcc-O2")]
if {"avx2", "fma"} <= FLAGS:
    ISAS.append(("avx2", "gcc-avx2"))
if {"avx2", "fma", "avx512f", "avx512bw", "avx512_vnni"} <= FLAGS:
    ISAS += [("avx512", "gcc-avx512"), ("avx512", "gcc-avx512-san")]

MODELS = [MODELS_DIR / "bert_f32.tflite", MODELS_DIR / "resnet_int8.tflite", MODELS_DIR / "vit_int8.tflite",
          MODELS_DIR / "mobilenetv2_int8.tflite", SHARED_MODELS / "tflm" / "person_detect.tflite",
          # a fused expansion + depthwise (f32) whose threads split the channels, one with a batch of 2
          TESTS_DIR / "fusion" / "expdw_3x3_wide_s1_f32.tflite", TESTS_DIR / "fusion" / "expdw_3x3_wide_s2_batch2_f32.tflite"]
MODELS = [m for m in MODELS if m.exists()]


def test_isa_list():
    print("ISA builds on this machine:", ", ".join(f"{i} ({c})" for i, c in ISAS))
    assert ISAS[0][0] == "generic"


@pytest.mark.parametrize("isa,config", ISAS, ids=[f"{i}-{c}" for i, c in ISAS])
@pytest.mark.parametrize("model", MODELS, ids=lambda m: m.stem)
def test_isa_and_threads_match(model, isa, config, seed):
    inputs, refs = oracle.oracle(model, seed)
    work = new_workdir(f"isa-{isa}-{model.stem}")
    proc = compile_model(model, work, extra=["--isa", isa, "--threads", "2"])
    assert proc.returncode == 0, f"mpcc --isa {isa} failed (exit {proc.returncode}): {proc.stderr.strip()}"
    write_harness(work, len(inputs), len(refs))
    proc, interp_outs = mpcc_run(model, inputs, work, n_out=len(refs))
    assert proc.returncode == 0, proc.stderr
    specs = [(r.dtype, r.shape) for r in refs]
    for threads in (0, 2):
        proc, exe = build_exe(work, config, threads=threads)
        assert proc.returncode == 0, f"does not build with {config}:\n{proc.stderr[-3000:]}"
        proc, outs = run_exe(exe, inputs, specs, work)
        assert proc.returncode == 0, f"{exe.name} exited {proc.returncode}:\n{proc.stderr[-3000:]}"
        what = f"--isa {isa} ({config}, {threads or 1} thread{'s' if threads else ''})"
        _check(f"{what} vs TFLite", refs, outs, mode="opt")
        _check(f"{what} vs mpcc run", interp_outs, outs, mode="opt")
    shutil.rmtree(work, ignore_errors=True)


def test_isa_check_stops_a_mismatched_build(tmp_path):
    """Code compiled for --isa avx512 refuses to build without AVX-512 (a clear #error, not wrong code)."""
    model = MODELS_DIR / "resnet_int8.tflite"
    proc = run_cmd([MPCC, model, "-o", tmp_path / "m.c", "--isa", "avx512"])
    assert proc.returncode == 0, proc.stderr
    proc = run_cmd(["gcc", "-std=c99", "-O2", "-mno-avx512f", "-I", Path(MPCC).parent.parent / "runtime",
                    "-c", tmp_path / "m.c", "-o", tmp_path / "m.o"])
    assert proc.returncode != 0 and "mpcc --isa avx512: build this file" in proc.stderr, proc.stderr


def test_isa_rejects_unknown():
    proc = run_cmd([MPCC, MODELS_DIR / "resnet_int8.tflite", "-o", "/dev/null", "--isa", "sse9"])
    assert proc.returncode == 1 and "--isa must be generic, avx2, avx512 or neon" in proc.stderr
    proc = run_cmd([MPCC, MODELS_DIR / "resnet_int8.tflite", "-o", "/dev/null", "--threads", "0"])
    assert proc.returncode == 1 and "--threads must be a number from 1 to 64" in proc.stderr
