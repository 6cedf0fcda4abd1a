"""Driving mpcc from the tests: `mpcc run`, compiling generated C, running it.

Generated code is built in five configurations (the C backend's acceptance):
gcc and clang, each at -O2 and at -O0 with AddressSanitizer + UBSan, and gcc at
-O3 -march=native (the vector paths), always with -std=c99 -Wall -Wextra -Werror -pedantic. The runtime is built once per
configuration into build/rt/<config>/libmpccrt.a.
"""

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import numpy as np

from mpcc_paths import BUILD_DIR, MPCC, ROOT, BuildLock

GEN_FLAGS = ["-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic"]
SAN = ["-O0", "-g", "-fsanitize=address,undefined", "-fno-sanitize-recover=all", "-fno-omit-frame-pointer"]
CONFIGS = {
    "gcc-O2": ("gcc", ["-O2"]),
    "clang-O2": ("clang", ["-O2"]),
    "gcc-san": ("gcc", SAN),
    "clang-san": ("clang", SAN),
    # The vector paths of the optimized kernels (FMA/AVX2 on x86) exist only when the
    # compiler targets the machine.
    "gcc-native": ("gcc", ["-O3", "-march=native"]),
}
# Per-ISA builds (tests/test_isa.py): not in CONFIGS, which every model runs through.
ISA_CONFIGS = {
    "gcc-avx2": ("gcc", ["-O3", "-mavx2", "-mfma"]),
    "gcc-avx512": ("gcc", ["-O3", "-mavx2", "-mfma", "-mavx512f", "-mavx512bw", "-mavx512vnni"]),
    "gcc-avx512-san": ("gcc", SAN + ["-mavx2", "-mfma", "-mavx512f", "-mavx512bw", "-mavx512vnni"]),
}
# The machine's vector paths (AVX512-BF16 here) under ASan/UBSan (tests/test_precision.py's bf16 attention).
NATIVE_SAN_CONFIGS = {"gcc-native-san": ("gcc", SAN + ["-march=native"])}
# Builds that may fuse a multiply and an add into one rounding (tests/test_hybrid.py): kernels whose
# float rounding decides an int8 step must not let them (gcc contracts across statements under
# -ffp-contract=fast, clang within an expression by default).
CONTRACT_CONFIGS = {
    "gcc-contract": ("gcc", ["-O2", "-march=native", "-ffp-contract=fast"]),
    "clang-native": ("clang", ["-O2", "-march=native"]),
}
# ThreadSanitizer, for the code run on several threads (tests/test_llm_decoder.py's 2-thread generation).
TSAN_CONFIGS = {"gcc-tsan": ("gcc", ["-O1", "-g", "-fsanitize=thread", "-march=native"])}
ALL_CONFIGS = {**CONFIGS, **ISA_CONFIGS, **CONTRACT_CONFIGS, **NATIVE_SAN_CONFIGS, **TSAN_CONFIGS}
SAN_ENV = dict(os.environ, ASAN_OPTIONS="detect_leaks=1:abort_on_error=0", UBSAN_OPTIONS="print_stacktrace=1")

_lock = BuildLock("runtime")  # runtime libraries and custom kernels: shared by test processes
_built = {}


def run_cmd(cmd, **kw):
    return subprocess.run([str(c) for c in cmd], capture_output=True, text=True, **kw)


def custom_ops(model):
    """The sidecar's user kernels for custom operators: [{"name", "function", "source"}], the source
    as a Path (given relative to the model's folder)."""
    from oracle import sidecar
    ops = sidecar(model).get("custom_ops", [])
    return [dict(op, source=(Path(model).parent / op["source"]).resolve()) for op in ops]


def model_args(model):
    """The mpcc options a model needs, from its sidecar: --input-shape for the shapes the oracle
    runs a model with dynamic dimensions at, --custom-op for its custom operators."""
    from oracle import input_shape_args
    args = input_shape_args(model)
    for op in custom_ops(model):
        args += ["--custom-op", f"{op['name']}={op['function']}"]
    return args


def custom_lib(model):
    """`mpcc run`'s --custom-lib for a model with custom operators: its kernels built as a shared
    library in build/custom/ (once per source); [] for other models."""
    sources = sorted({op["source"] for op in custom_ops(model)})
    if not sources:
        return []
    with _lock:
        out = BUILD_DIR / "custom"
        out.mkdir(parents=True, exist_ok=True)
        lib = out / ("lib" + "_".join(s.stem for s in sources) + ".so")
        if not lib.exists() or lib.stat().st_mtime < max(s.stat().st_mtime for s in sources):
            p = run_cmd(["gcc", *GEN_FLAGS, "-O2", "-shared", "-fPIC", "-I", ROOT / "runtime", *sources,
                         "-o", lib, "-lm"])
            if p.returncode != 0:
                raise RuntimeError(f"user kernels do not build:\n{p.stderr}")
    return ["--custom-lib", lib]


def mpcc_run(model, inputs, workdir, n_out=None, mpcc=MPCC):
    """Runs `mpcc run` on the inputs; returns (proc, outputs or None)."""
    workdir = Path(workdir)
    cmd = [mpcc, "run", model, *model_args(model), *custom_lib(model)]
    for i, a in enumerate(inputs):
        p = workdir / f"in{i}.npy"
        np.save(p, a)
        cmd += ["--input", p]
    if n_out is None:
        n_out = count_outputs(model)
    outs = [workdir / f"mpcc_out{i}.npy" for i in range(n_out)]
    for p in outs:
        cmd += ["--output", p]
    proc = run_cmd(cmd)
    if proc.returncode != 0:
        return proc, None
    return proc, [np.load(p) for p in outs]


def count_outputs(model):
    from oracle import load
    return len(load(model).get_output_details())


def runtime_lib(config):
    """build/rt/<config>/libmpccrt.a, rebuilt when a runtime source is newer."""
    with _lock:
        if config in _built:
            return _built[config]
        cc, flags = ALL_CONFIGS[config]
        out = BUILD_DIR / "rt" / config
        out.mkdir(parents=True, exist_ok=True)
        lib = out / "libmpccrt.a"
        srcs = sorted((ROOT / "runtime").glob("*.c")) + sorted((ROOT / "runtime" / "kernels").glob("*.c"))
        hdrs = sorted((ROOT / "runtime").glob("**/*.h"))
        newest = max(p.stat().st_mtime for p in srcs + hdrs)
        if not lib.exists() or lib.stat().st_mtime < newest:
            objs = []
            for s in srcs:
                o = out / (s.stem + ".o")
                p = run_cmd([cc, *GEN_FLAGS, *flags, "-I", ROOT / "runtime", "-c", s, "-o", o])
                if p.returncode != 0:
                    raise RuntimeError(f"runtime build failed ({config}): {s}\n{p.stderr}")
                objs.append(o)
            if lib.exists():
                lib.unlink()
            p = run_cmd(["ar", "rcs", lib, *objs])
            if p.returncode != 0:
                raise RuntimeError(p.stderr)
        _built[config] = lib
        return lib


HARNESS = r"""
/* Test harness: reads raw inputs, runs the generated model, writes raw outputs. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "model.h"
#ifdef HARNESS_THREADS
#include "threads/mpcc_pool.h"
#endif

static int read_file(const char *path, void *buf, size_t n) {
    FILE *f = fopen(path, "rb");
    size_t got;
    if (!f) return 1;
    got = fread(buf, 1, n, f);
    fclose(f);
    return got != n;
}

static int write_file(const char *path, const void *buf, size_t n) {
    FILE *f = fopen(path, "wb");
    size_t put;
    if (!f) return 1;
    put = fwrite(buf, 1, n, f);
    return fclose(f) != 0 || put != n;
}

int main(int argc, char **argv) {
    static const size_t in_bytes[] = {IN_BYTES};
    static const size_t out_bytes[] = {OUT_BYTES};
    const void *ins[N_IN + 1];
    void *outs[N_OUT + 1];
    void *arena;
    int i, rc;
    if (argc != 1 + N_IN + N_OUT) return 3;
    arena = malloc(MODEL_ARENA_BYTES + 16);
    if (!arena) return 4;
    memset(arena, 0xA5, MODEL_ARENA_BYTES + 16); /* poison: nothing may be read before written */
    for (i = 0; i < N_IN; i++) {
        void *b = malloc(in_bytes[i] + 1);
        if (!b || read_file(argv[1 + i], b, in_bytes[i])) return 5;
        ins[i] = b;
    }
    for (i = 0; i < N_OUT; i++) {
        outs[i] = malloc(out_bytes[i] + 1);
        if (!outs[i]) return 4;
        memset(outs[i], 0xA5, out_bytes[i] + 1);
    }
    model_init(arena);
#ifdef HARNESS_THREADS
    {
        mpcc_pool *pool = mpcc_pool_create(HARNESS_THREADS);
        mpcc_parallel par;
        if (!pool) return 7;
        par = mpcc_pool_parallel(pool);
        rc = model_run_parallel(ins, outs, arena, &par);
        mpcc_pool_destroy(pool);
    }
#else
    rc = model_run(ins, outs, arena);
#endif
    if (rc != 0) return 10 + rc;
    for (i = 0; i < N_OUT; i++)
        if (write_file(argv[1 + N_IN + i], outs[i], out_bytes[i])) return 6;
    for (i = 0; i < N_IN; i++) free((void *)ins[i]);
    for (i = 0; i < N_OUT; i++) free(outs[i]);
    free(arena);
    return 0;
}
"""


def compile_model(model, workdir, extra=(), mpcc=MPCC):
    """mpcc MODEL -o workdir/model.c --name model (plus the options its sidecar asks for);
    returns the process."""
    workdir = Path(workdir)
    # User kernels of custom operators are built with the generated code (build_exe: *.user.c).
    for op in custom_ops(model):
        shutil.copyfile(op["source"], workdir / (op["source"].stem + ".user.c"))
    return run_cmd([mpcc, model, "-o", workdir / "model.c", "--name", "model", *model_args(model), *extra])


def write_harness(workdir, n_in, n_out):
    names_in = ", ".join(f"MODEL_INPUT{i}_BYTES" for i in range(n_in)) or "0"
    names_out = ", ".join(f"MODEL_OUTPUT{i}_BYTES" for i in range(n_out)) or "0"
    src = f"#define N_IN {n_in}\n#define N_OUT {n_out}\n#define IN_BYTES {names_in}\n#define OUT_BYTES {names_out}\n"
    (Path(workdir) / "harness.c").write_text(src + HARNESS)


def build_exe(workdir, config, threads=0):
    """Builds workdir/model.c + harness.c for config; returns (proc, exe path). threads > 0: the
    harness runs model_run_parallel on a runtime/threads/mpcc_pool of that many threads."""
    workdir = Path(workdir)
    cc, flags = ALL_CONFIGS[config]
    lib = runtime_lib(config)
    exe = workdir / f"model-{config}{f'-t{threads}' if threads else ''}"
    extra = [f"-DHARNESS_THREADS={threads}", "-pthread", ROOT / "runtime" / "threads" / "mpcc_pool.c"] if threads else []
    proc = run_cmd([cc, *GEN_FLAGS, *flags, "-I", ROOT / "runtime", "-I", workdir, workdir / "model.c",
                    workdir / "harness.c", *extra, *sorted(workdir.glob("*.user.c")), lib, "-lm", "-o", exe])
    return proc, exe


def build_with_main(workdir, main_source, config="gcc-san", extra=()):
    """Builds workdir/model.c with a test's own main (written to workdir/main.c) and extra
    sources; returns (proc, exe path)."""
    workdir = Path(workdir)
    cc, flags = ALL_CONFIGS[config]
    (workdir / "main.c").write_text(main_source)
    exe = workdir / f"main-{config}"
    proc = run_cmd([cc, *GEN_FLAGS, *flags, "-I", ROOT / "runtime", "-I", workdir, workdir / "main.c",
                    workdir / "model.c", *extra, runtime_lib(config), "-lm", "-o", exe])
    return proc, exe


def run_steps(model, main_source, xs, out_dtype, out_shape, tag):
    """A stateful model over several runs: compiles it (ASan build of mpcc), builds it with a main
    that reads the raw inputs xs from argv[1] and writes every run's outputs to argv[2], runs that;
    returns the outputs as out_dtype[out_shape]."""
    work = new_workdir(tag)
    proc = compile_model(model, work, mpcc=BUILD_DIR / "asan" / "mpcc")
    assert proc.returncode == 0, proc.stderr
    proc, exe = build_with_main(work, main_source)
    assert proc.returncode == 0, proc.stderr[-3000:]
    xs.tofile(work / "in.bin")
    proc = run_cmd([exe, work / "in.bin", work / "out.bin"], env=SAN_ENV, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return np.fromfile(work / "out.bin", out_dtype).reshape(out_shape)


def run_exe(exe, inputs, out_specs, workdir):
    """Runs a harness executable; out_specs = [(dtype, shape)]; returns (proc, outputs or None)."""
    workdir = Path(workdir)
    args = [exe]
    for i, a in enumerate(inputs):
        p = workdir / f"raw_in{i}_{Path(exe).name}.bin"  # per executable: configs run concurrently
        np.ascontiguousarray(a).tofile(p)
        args.append(p)
    outs = []
    for i in range(len(out_specs)):
        p = workdir / f"raw_out{i}_{Path(exe).name}.bin"
        outs.append(p)
        args.append(p)
    proc = run_cmd(args, env=SAN_ENV, timeout=600)
    if proc.returncode != 0:
        return proc, None
    return proc, [np.fromfile(p, dtype=dt).reshape(shape) for p, (dt, shape) in zip(outs, out_specs)]


def new_workdir(tag):
    base = BUILD_DIR / "tests"
    base.mkdir(parents=True, exist_ok=True)
    return Path(tempfile.mkdtemp(prefix=tag.replace("/", "_")[:60] + "-", dir=base))
