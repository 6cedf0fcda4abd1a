"""Building mpcc's generated C for Cortex-M boards and running it bare-metal under QEMU.

One table of boards (the QEMU machine, the core, the compiler flags, the linker script); the
runtime built once per board into build/mcu/<board>/libmpccrt.a; a program per model made of the
generated model.c, a generated io.c (the inputs as constant arrays, the output buffers) and
samples/cortex-m/startup.c and tools/cortex_m/harness_main.c; run with `qemu-system-arm -M MACHINE -semihosting`,
which prints each output as hex. Used by tests/test_cortex_m.py and tools/cortex_m/bench_mcu.py.
"""

import shutil
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent.parent / "tests"))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "cross"))
import cross  # noqa: E402
from cross import run_cmd  # noqa: E402
from mpcc_paths import BuildLock  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent.parent
HERE = ROOT / "tools" / "cortex_m"
SAMPLE = ROOT / "samples" / "cortex-m"  # startup code and linker scripts
BUILD = ROOT / "build" / "mcu"
CC = "arm-none-eabi-gcc"
QEMU = "qemu-system-arm"

# name: (QEMU machine, -mcpu and float ABI flags, linker script, has an FPU, mpcc --isa)
BOARDS = {
    "m3": ("mps2-an385", ["-mcpu=cortex-m3", "-mfloat-abi=soft"], "mps2-an386.ld", False, "armv7m"),
    "m4": ("mps2-an386", ["-mcpu=cortex-m4", "-mfloat-abi=hard", "-mfpu=fpv4-sp-d16"], "mps2-an386.ld", True, "armv7em"),
    "m7": ("mps2-an500", ["-mcpu=cortex-m7", "-mfloat-abi=hard", "-mfpu=fpv5-d16"], "mps2-an386.ld", True, "armv7em"),
    "m33": ("mps2-an505", ["-mcpu=cortex-m33", "-mfloat-abi=hard", "-mfpu=fpv5-sp-d16"], "mps2-an505.ld", True,
            "armv8m"),
    "m55": ("mps3-an547", ["-mcpu=cortex-m55", "-mfloat-abi=hard"], "mps3-an547.ld", True, "armv81m"),
}
OPT = ["-O2"]
LINK = ["-nostartfiles", "--specs=nano.specs", "--specs=nosys.specs", "-Wl,--gc-sections"]
COMMON = ["-mthumb", "-std=c99", "-Wall", "-Wextra", "-Werror", "-ffunction-sections", "-fdata-sections"]

_lock = BuildLock("mcu-runtime")  # build/mcu/: shared by test processes


PEER_LIB = Path("/usr/lib/arm-none-eabi/newlib/libstdc++_nano.a")  # libstdc++-arm-none-eabi-newlib


def toolchain(peer=False):
    """Installs the cross compiler and QEMU if they are missing (tools/cortex_m/install.sh), with
    peer also the C++ library the TFLite Micro peer needs; returns None, or why they are not there."""
    def ready():
        return shutil.which(CC) and shutil.which(QEMU) and (not peer or PEER_LIB.exists())
    if ready():
        return None
    proc = run_cmd(["sh", HERE / "install.sh", *(["peer"] if peer else [])])
    if ready():
        return None
    return f"tools/cortex_m/install.sh failed: {proc.stdout[-500:]}{proc.stderr[-1500:]}"


def cflags(board, opt=OPT):
    return [*COMMON, *BOARDS[board][1], *opt]


def runtime_lib(board, opt=OPT):
    """build/mcu/<board>[-O..]/libmpccrt.a, rebuilt when a runtime source or header is newer."""
    tag = board + ("" if opt == OPT else "".join(opt).replace("-", "_"))
    return cross.runtime_lib(BUILD / tag, ROOT / "runtime", ("", "kernels", "cortex_m", "cortex_m/helium"), CC, "arm-none-eabi-ar",
                             cflags(board, opt), board, _lock)


def _c_bytes(data):
    rows = [", ".join(str(b) for b in data[i:i + 24]) for i in range(0, len(data), 24)]
    return ",\n    ".join(rows) or "0"


def write_io(workdir, inputs):
    """workdir/io.c: the inputs as constant arrays (in flash), the output buffers."""
    lines = ['#include "model.h"', "", "#include <stdint.h>", ""]
    for i, a in enumerate(inputs):
        data = np.ascontiguousarray(a).tobytes()
        lines.append(f"static const uint8_t mcu_in{i}[{max(len(data), 1)}] __attribute__((aligned(8))) = {{")
        lines.append(f"    {_c_bytes(data)}\n}};")
    names = ", ".join(f"mcu_in{i}" for i in range(len(inputs))) or "0"
    lines.append(f"const void *const mcu_inputs[{max(len(inputs), 1)}] = {{{names}}};")
    lines.append("#define OUT(i) static uint8_t mcu_out##i[MODEL_OUTPUT##i##_BYTES + 1] __attribute__((aligned(8)));")
    n_out = "MODEL_NUM_OUTPUTS"
    lines.append(f"/* outputs 0..{n_out}-1 */")
    Path(workdir, "io.c").write_text("\n".join(lines) + "\n")
    return len(inputs)


def write_outputs(workdir, n_out):
    """Appends the output buffers for n_out outputs to workdir/io.c."""
    lines = [f"OUT({i})" for i in range(n_out)]
    lines.append(f"void *const mcu_outputs[{max(n_out, 1)}] = {{{', '.join(f'mcu_out{i}' for i in range(n_out)) or '0'}}};")
    sizes = ", ".join(f"MODEL_OUTPUT{i}_BYTES" for i in range(n_out)) or "0"
    lines.append(f"const uint32_t mcu_output_bytes[{max(n_out, 1)}] = {{{sizes}}};")
    with open(Path(workdir, "io.c"), "a") as f:
        f.write("\n".join(lines) + "\n")


def build(board, workdir, inputs, n_out, runs=1, opt=OPT, extra=()):
    """Cross-builds workdir/model.c with the inputs for board; returns (proc, elf path)."""
    workdir = Path(workdir)
    write_io(workdir, inputs)
    write_outputs(workdir, n_out)
    lib = runtime_lib(board, opt)
    elf = workdir / f"model-{board}{'-r%d' % runs if runs != 1 else ''}.elf"
    proc = run_cmd([CC, *cflags(board, opt), "-I", ROOT / "runtime", "-I", workdir, "-I", SAMPLE,
                    f"-DMCU_RUNS={runs}", *extra, SAMPLE / "startup.c", HERE / "harness_main.c",
                    workdir / "model.c", workdir / "io.c", lib, *LINK, "-L", SAMPLE / "boards",
                    "-T", SAMPLE / "boards" / BOARDS[board][2], "-lm", "-o", elf])
    return proc, elf


def qemu_cmd(board, elf, plugin=None):
    cmd = [QEMU, "-M", BOARDS[board][0], "-nographic", "-monitor", "none", "-serial", "none",
           "-chardev", "stdio,id=semihosting", "-semihosting-config", "enable=on,target=native,chardev=semihosting",
           "-kernel", elf]
    if plugin:
        cmd += ["-plugin", plugin, "-d", "plugin"]
    return cmd


def run(board, elf, timeout=300, plugin=None):
    """Runs elf under QEMU; returns (proc, {"out": [bytes per output], "stack": n, ...} or None)."""
    proc = run_cmd(qemu_cmd(board, elf, plugin), timeout=timeout)
    if proc.returncode != 0:
        return proc, None
    result = {"out": []}
    for line in proc.stdout.splitlines():
        tag, _, value = line.partition(" ")
        if tag.startswith("out") and tag[3:].isdigit():
            result["out"].append(bytes.fromhex(value.strip()))
        elif tag in ("stack", "stack_size", "arena"):
            result[tag] = int(value)
    return proc, result


def size(elf):
    """(flash bytes, static RAM bytes without the stack region) of an ELF, from its sections."""
    proc = run_cmd(["arm-none-eabi-size", "-A", elf])
    flash = ram = 0
    for line in proc.stdout.splitlines():
        parts = line.split()
        if len(parts) != 3 or not parts[1].isdigit():
            continue
        name, n = parts[0], int(parts[1])
        if name in (".vectors", ".text", ".rodata", ".ARM.exidx", ".ARM.extab", ".init_array", ".fini_array"):
            flash += n
        elif name == ".data":
            flash += n
            ram += n
        elif name == ".bss":
            ram += n
    return flash, ram
