"""Building mpcc's generated C for AArch64 Linux and running it under qemu-aarch64 (user mode).

One table of targets (the -march flags, the QEMU CPU model, mpcc's --isa); the runtime built once
per target into build/arm64/<target>/libmpccrt.a (`aarch64-linux-gnu-gcc -O2`, static); a program
per model made of the generated model.c and tools/arm64/harness_main.c, which reads the inputs from
files and writes each output to OUTDIR/outI.bin. Used by tests/test_arm64.py and
tools/arm64/bench_a64.py. The toolchain comes from tools/arm64/install.sh (Debian packages).
"""

import shutil
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent.parent / "tests"))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "cross"))
import cross  # noqa: E402
from cross import run_cmd  # noqa: E402  (also a64.run_cmd for tests/test_arm64.py)
from mpcc_paths import BuildLock  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent.parent
HERE = ROOT / "tools" / "arm64"
BUILD = ROOT / "build" / "arm64"
CC = "aarch64-linux-gnu-gcc"
AR = "aarch64-linux-gnu-ar"
QEMU = "qemu-aarch64"

# name: (-march flags, QEMU CPU model, mpcc --isa)
TARGETS = {
    # Armv8.2-A with the dot product (SDOT): Neoverse N1, Cortex-A76 and later; QEMU's `max` has it
    "dotprod": (["-march=armv8.2-a+dotprod"], "max", "armv8.2a+dotprod"),
    # plain Armv8-A (Cortex-A53/A72): NEON without SDOT
    "base": (["-march=armv8-a"], "cortex-a53", "armv8a"),
}
OPT = ["-O2"]
COMMON = ["-std=c99", "-Wall", "-Wextra", "-Werror"]
RUNTIME_DIRS = ("", "kernels", "arm64")  # under the runtime folder

_lock = BuildLock("a64-runtime")  # build/arm64/: shared by test processes


def toolchain():
    """Installs the cross compiler and QEMU if they are missing (tools/arm64/install.sh);
    returns None, or why they are not there."""
    have = lambda: shutil.which(CC) and shutil.which(QEMU) and Path("/usr/aarch64-linux-gnu/lib/libc.a").exists()
    if have():
        return None
    proc = run_cmd(["sh", HERE / "install.sh"])
    if have():
        return None
    return f"tools/arm64/install.sh failed: {proc.stdout[-500:]}{proc.stderr[-1500:]}"


def cflags(target, opt=OPT):
    return [*COMMON, *TARGETS[target][0], *opt]


def runtime_lib(target, opt=OPT, runtime=ROOT / "runtime", tag=""):
    """build/arm64/<target>[-O..][-tag]/libmpccrt.a, rebuilt when a runtime source or header is newer
    (runtime: another copy of the runtime folder, e.g. an older commit's for a comparison, with a tag)."""
    tag = target + ("" if opt == OPT else "".join(opt).replace("-", "_")) + (f"-{tag}" if tag else "")
    return cross.runtime_lib(BUILD / tag, runtime, RUNTIME_DIRS, CC, AR, cflags(target, opt), target, _lock)


def build(target, workdir, n_in, n_out, opt=OPT, extra=(), runtime=ROOT / "runtime", tag=""):
    """Cross-builds workdir/model.c (mpcc --name model; custom operators' kernels as
    workdir/*.user.c) with the harness for target; returns (proc, program path)."""
    workdir = Path(workdir)
    ins = " ".join(f"MODEL_INPUT{i}_BYTES," for i in range(n_in))
    outs = " ".join(f"MODEL_OUTPUT{i}_BYTES," for i in range(n_out))
    (workdir / "io_sizes.h").write_text(f"#define IO_IN_BYTES {ins}\n#define IO_OUT_BYTES {outs}\n")
    lib = runtime_lib(target, opt, runtime, tag)
    prog = workdir / f"model-{target}{'-' + tag if tag else ''}"
    proc = run_cmd([CC, *cflags(target, opt), "-static", "-I", runtime, "-I", workdir, *extra,
                    HERE / "harness_main.c", workdir / "model.c", *sorted(workdir.glob("*.user.c")), lib, "-lm", "-o", prog])
    return proc, prog


def qemu_cmd(target, prog, args, plugin=None, cpu=None):
    cmd = [QEMU, "-cpu", cpu or TARGETS[target][1]]
    if plugin:
        cmd += ["-plugin", plugin, "-d", "plugin"]
    return cmd + [prog, *args]


def write_inputs(inputs, workdir):
    """The input arrays as raw bytes in workdir/inI.bin; returns the paths."""
    files = []
    for i, a in enumerate(inputs):
        f = Path(workdir) / f"in{i}.bin"
        f.write_bytes(np.ascontiguousarray(a).tobytes())
        files.append(f)
    return files


def run(target, prog, inputs, workdir, runs=1, timeout=600, plugin=None, cpu=None):
    """Runs prog under qemu-aarch64 (the target's CPU model, or cpu) on inputs (arrays, written to
    workdir/inI.bin); returns (proc, [bytes per output] or None)."""
    workdir = Path(workdir)
    files = write_inputs(inputs, workdir)
    outdir = workdir / f"out-{target}"
    outdir.mkdir(exist_ok=True)
    for old in outdir.glob("out*.bin"):
        old.unlink()
    proc = run_cmd(qemu_cmd(target, prog, [runs, outdir, *files], plugin, cpu), timeout=timeout)
    if proc.returncode != 0:
        return proc, None
    outs = []
    i = 0
    while (outdir / f"out{i}.bin").exists():
        outs.append((outdir / f"out{i}.bin").read_bytes())
        i += 1
    return proc, outs
