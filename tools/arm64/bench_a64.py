"""Instructions retired per inference under qemu-aarch64, mpcc's C and TFLite + XNNPACK side by
side (not a test; docs/arm64.md shows the table).

    python tools/arm64/bench_a64.py [--targets dotprod,base] [--models person_detect,...] [--no-peer]
                                    [--runtime DIR --tag NAME] [--isa ISA] [--profile N]
                                    [--mpcc-flags "--precision bf16"]

A TCG plugin (tools/cortex_m/insn_count.c, built by tools/cortex_m/bench_mcu.py against
qemu-plugin.h of Debian's qemu source package) counts every guest instruction. mpcc: one
inference is the difference between the program run 11 times and once, divided by 10 (start-up,
reading the inputs and writing the outputs cancel out). The peer: TFLite (ai-edge-litert, the
version of tests/requirements.txt, its XNNPACK delegate, 1 thread) in an arm64 CPython under the
same QEMU and CPU model (tools/arm64/peer_install.sh puts both into build/arm64/peer); it invokes
twice to warm up, then N times between two marks (tools/arm64/peer_invoke.py), and the plugin's
counts at the marks give the N inferences (Python's start-up varies by millions of instructions
from run to run; the marks leave it out). Both run on the same inputs (seed 1) and the same
emulated CPU: dotprod on a Neoverse N1 (Armv8.2-A + dot product + FP16, no i8mm: QEMU's `max`
would let XNNPACK use SMMLA), base on a Cortex-A53 (Armv8-A). XNNPACK picks its kernels from the
CPU it detects (HWCAP, and the core's MIDR from /proc/cpuinfo, which qemu-user shows as the
host's: a matching Arm /proc/cpuinfo is bind-mounted in a private mount namespace, `unshare -m`,
which needs root). Instructions, not time: QEMU models no timing.
--runtime DIR builds against another runtime folder (an older commit's `git archive`, for a
before/after figure); --isa overrides the target's mpcc --isa (e.g. neon, the portable path);
--mpcc-flags adds options to the mpcc command (e.g. "--precision fp16"; each set of flags has its own
work folder; the peer runs the model as it is).
--profile N prints the N functions that retire the most instructions in one inference, for both
(the plugin tools/arm64/insn_prof.c counts per translated block; blocks map to functions by `nm`:
mpcc's program, and the peer's TFLite library, where XNNPACK's kernels are named).
"""

import argparse
import bisect
import math
import re
import shlex
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT / "tools" / "cortex_m"))
sys.path.insert(0, str(ROOT / "tests"))
import a64  # noqa: E402
import bench_mcu  # noqa: E402  (the instruction-counting plugin)

TFLM = ROOT.parent / "shared" / "models" / "tflm"
TESTS = ROOT / "tests" / "models"
MODELS = {  # `make bench`'s set (tools/bench/bench.py), the models it runs by default
    "digits_f32": ROOT / "samples" / "digits" / "digits_f32.tflite",
    "digits_int8": ROOT / "samples" / "digits" / "digits_int8.tflite",
    "person_detect": TFLM / "person_detect.tflite",
    "mobilenetv2_0.35_int8": TESTS / "mobilenetv2_int8.tflite",
    "mobilenet_v2_224_int8": TFLM / "mobilenet_v2_int8_from_pytorch.tflite",
    "resnet_f32": TESTS / "resnet_f32.tflite",
    "resnet_int8": TESTS / "resnet_int8.tflite",
    "vit_f32": TESTS / "vit_f32.tflite",
    "vit_int8": TESTS / "vit_int8.tflite",
    "bert_f32": TESTS / "bert_f32.tflite",
    "bert_int8": TESTS / "bert_int8.tflite",
}
# the emulated CPU per target (both programs): QEMU's model, and what /proc/cpuinfo says of it
# (MIDR fields and the HWCAP feature names that QEMU gives that model)
CPUS = {
    "dotprod": "neoverse-n1",
    "base": "cortex-a53",
}
CPUINFO = {
    "neoverse-n1": (0xD0C, 3, 1, "fp asimd evtstrm aes pmull sha1 sha2 crc32 atomics fphp asimdhp cpuid asimdrdm "
                                 "lrcpc dcpop asimddp ssbs"),
    "cortex-a53": (0xD03, 0, 4, "fp asimd evtstrm aes pmull sha1 sha2 crc32 cpuid"),
}
PEER = a64.BUILD / "peer"
PEER_RUNS = 5  # invocations between the marks


def count(target, prog, inputs, work, so, runs):
    proc, outs = a64.run(target, prog, inputs, work, runs=runs, timeout=3600, plugin=so, cpu=CPUS[target])
    m = re.search(r"^insns (\d+)$", proc.stderr, re.M)
    if outs is None or not m:
        sys.exit(f"bench-arm64: {prog} failed under QEMU: {proc.stderr[-2000:]}")
    return int(m.group(1))


def prof_plugin():
    so = a64.BUILD / "insn_prof.so"
    src = HERE / "insn_prof.c"
    if so.exists() and so.stat().st_mtime >= src.stat().st_mtime:
        return so
    proc = subprocess.run(["cc", "-std=c99", "-O2", "-Wall", "-Wextra", "-Werror", "-shared", "-fPIC", "-I",
                           str(bench_mcu.plugin_header()), "-o", str(so), str(src)], capture_output=True, text=True)
    if proc.returncode != 0:
        sys.exit(f"bench-arm64: building the profiling plugin failed:\n{proc.stderr}")
    return so


def functions(binary, base=0):
    """(sorted start addresses, names) of the functions in binary (nm), moved by base."""
    syms = []
    for line in subprocess.run(["aarch64-linux-gnu-nm", "-n", str(binary)], capture_output=True, text=True).stdout.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] in "tTwW":
            syms.append((base + int(parts[0], 16), parts[2]))
    return [a for a, _ in syms], [n for _, n in syms]


def per_function(text, addrs, names, end=None):
    """Instructions per function from the plugin's "tb PC N" lines (blocks past end: "other")."""
    funcs = {}
    for m in re.finditer(r"^tb ([0-9a-f]+) (\d+)$", text, re.M):
        pc = int(m.group(1), 16)
        i = bisect.bisect_right(addrs, pc) - 1
        name = names[i] if i >= 0 and (end is None or pc < end) else "(other: Python, libc, ...)"
        funcs[name] = funcs.get(name, 0) + int(m.group(2))
    return funcs


def print_top(before, after, runs, top):
    diff = {f: (after.get(f, 0) - before.get(f, 0)) / runs for f in after}
    total = sum(diff.values())
    for f, n in sorted(diff.items(), key=lambda kv: -kv[1])[:top]:
        print(f"    {n / 1e6:8.2f}M {100 * n / total:5.1f}%  {f}")


def profile(target, prog, inputs, work, top):
    """The top functions by instructions retired in one inference (11 runs minus 1, / 10)."""
    addrs, names = functions(prog)
    per = []
    for runs in (1, 11):
        proc, outs = a64.run(target, prog, inputs, work, runs=runs, timeout=3600, plugin=prof_plugin(),
                             cpu=CPUS[target])
        if outs is None:
            sys.exit(f"bench-arm64: {prog} failed under QEMU: {proc.stderr[-2000:]}")
        per.append(per_function(proc.stderr, addrs, names))
    print("  mpcc:")
    print_top(per[0], per[1], 10, top)


def peer_install():
    proc = subprocess.run(["sh", str(HERE / "peer_install.sh")], capture_output=True, text=True)
    if proc.returncode != 0:
        sys.exit(f"bench-arm64: tools/arm64/peer_install.sh failed:\n{proc.stdout[-1000:]}{proc.stderr[-2000:]}")


def peer_model(model, work):
    """The model the peer runs: model itself, or (as tests/oracle.py does, for the TFLite version that
    refuses it) a copy with only the quantized_dimension of 1-D tensors reset to 0."""
    from oracle import _fix_vector_quantized_dimension
    from ai_edge_litert.interpreter import Interpreter
    try:
        Interpreter(model_path=str(model))
        return model
    except ValueError as e:
        if "quantized_dimension" not in str(e):
            raise
    fixed = work / "peer_model.tflite"
    fixed.write_bytes(_fix_vector_quantized_dimension(model))
    return fixed


def peer_run(name, model, target, inputs, work, so):
    """Runs the peer under the plugin so; returns (instructions per inference or None, the process)."""
    cpu = CPUS[target]
    part, variant, revision, features = CPUINFO[cpu]
    cpuinfo = work / f"cpuinfo-{cpu}"
    cpuinfo.write_text(f"processor\t: 0\nBogoMIPS\t: 50.00\nFeatures\t: {features}\nCPU implementer\t: 0x41\n"
                       f"CPU architecture: 8\nCPU variant\t: {variant:#x}\nCPU part\t: {part:#x}\n"
                       f"CPU revision\t: {revision}\n\n")
    files = a64.write_inputs(inputs, work)
    qemu = [a64.QEMU, "-L", PEER / "sysroot", "-cpu", cpu, "-plugin", so, "-d", "plugin",
            "-E", f"PYTHONPATH={PEER / 'site'}", "-E", "PYTHONHASHSEED=0",
            PEER / "sysroot" / "usr" / "bin" / "python3.11", HERE / "peer_invoke.py", model, PEER_RUNS, *files]
    cmd = ["unshare", "-m", "sh", "-c", 'mount --bind "$0" /proc/cpuinfo && exec "$@"', cpuinfo, *qemu]
    proc = subprocess.run([str(c) for c in cmd], capture_output=True, text=True, timeout=7200)
    marks = re.findall(r"^mark \d+( \d+)?$", proc.stderr, re.M)
    if proc.returncode != 0 or "out " not in proc.stdout or len(marks) != 2:
        sys.exit(f"bench-arm64: the peer failed on {name} ({target}):\n{proc.stdout[-1000:]}{proc.stderr[-3000:]}")
    return ((int(marks[1]) - int(marks[0])) / PEER_RUNS if marks[0] else None), proc


def peer_profile(name, model, target, inputs, work, top):
    """The peer's top functions in one inference: blocks in TFLite's library named by its symbols."""
    _, proc = peer_run(name, model, target, inputs, work, prof_plugin())
    m = re.search(r"^lib ([0-9a-f]+) (\S+)$", proc.stdout, re.M)
    lib = Path(m.group(2))
    addrs, names = functions(lib, int(m.group(1), 16))
    end = int(m.group(1), 16) + lib.stat().st_size
    parts = re.split(r"^(?:mark \d+|exit)$", proc.stderr, flags=re.M)
    print("  TFLite + XNNPACK:")
    print_top(per_function(parts[1], addrs, names, end), per_function(parts[2], addrs, names, end), PEER_RUNS, top)


def bench(name, model, target, isa, so, runtime, tag, top=0, peer=True, flags=()):
    """(mpcc's instructions per inference, the peer's or None); flags: more mpcc options."""
    from oracle import draw_inputs, load
    fl = re.sub(r"[^A-Za-z0-9]+", "_", " ".join(flags)).strip("_")
    work = a64.BUILD / "bench" / f"{name}-{target}-{isa}{'-' + fl if fl else ''}{'-' + tag if tag else ''}"
    work.mkdir(parents=True, exist_ok=True)
    proc = subprocess.run([str(ROOT / "build" / "mpcc"), str(model), "-o", str(work / "model.c"), "--name", "model",
                           "--isa", isa, *flags], capture_output=True, text=True)
    if proc.returncode != 0:
        sys.exit(f"bench-arm64: mpcc {model} failed: {proc.stderr}")
    inputs = draw_inputs(model, 1, load(model))
    proc, prog = a64.build(target, work, len(inputs), sum(1 for _ in load(model).get_output_details()),
                           runtime=runtime, tag=tag)
    if proc.returncode != 0:
        sys.exit(f"bench-arm64: building {name} failed:\n{proc.stderr[-3000:]}")
    one, eleven = (count(target, prog, inputs, work, so, r) for r in (1, 11))
    if peer:
        model = peer_model(model, work)
    theirs = peer_run(name, model, target, inputs, work, so)[0] if peer else None
    if top:
        profile(target, prog, inputs, work, top)
        if peer:
            peer_profile(name, model, target, inputs, work, top)
    return (eleven - one) / 10, theirs


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--targets", default=",".join(a64.TARGETS))
    ap.add_argument("--models", default=",".join(MODELS), help=f"of {', '.join(MODELS)}")
    ap.add_argument("--no-peer", dest="peer", action="store_false", help="mpcc only (no TFLite + XNNPACK)")
    ap.add_argument("--isa", default=None, help="mpcc --isa instead of the target's")
    ap.add_argument("--runtime", type=Path, default=ROOT / "runtime")
    ap.add_argument("--tag", default="")
    ap.add_argument("--profile", type=int, default=0, metavar="N", help="print the N costliest functions")
    ap.add_argument("--mpcc-flags", default="", metavar="FLAGS",
                    help='more mpcc options, one string (e.g. "--precision fp16"); the peer runs the model as it is')
    args = ap.parse_args()
    flags = shlex.split(args.mpcc_flags)
    unknown = [m for m in args.models.split(",") if m not in MODELS]
    if unknown:
        sys.exit(f"bench-arm64: unknown model {unknown[0]!r} (models: {', '.join(MODELS)})")
    why = a64.toolchain()
    if why:
        sys.exit(why)
    if args.peer:
        peer_install()
    so = bench_mcu.plugin()
    print("Instructions retired per inference under qemu-aarch64 (TCG plugin), not time; "
          "the peer: TFLite + XNNPACK, 1 thread.")
    if flags:
        print(f"mpcc flags: {' '.join(flags)}")
    print(f"{'model':24} {'target':8} {'QEMU -cpu':12} {'mpcc --isa':18} {'mpcc':>10} {'XNNPACK':>10} {'mpcc/XNN':>9}")
    ratios = {}
    for name in args.models.split(","):
        for target in args.targets.split(","):
            isa = args.isa or a64.TARGETS[target][2]
            ours, theirs = bench(name, MODELS[name], target, isa, so, args.runtime, args.tag, args.profile, args.peer,
                               flags)
            peer = f"{theirs / 1e6:9.2f}M {ours / theirs:9.2f}" if theirs else f"{'-':>10} {'-':>9}"
            if theirs:
                ratios.setdefault(target, []).append(ours / theirs)
            print(f"{name:24} {target:8} {CPUS[target]:12} {isa:18} {ours / 1e6:9.3f}M {peer}", flush=True)
    for target, r in ratios.items():
        print(f"geometric mean of mpcc/XNN, {target}: {math.exp(sum(map(math.log, r)) / len(r)):.2f} "
              f"({len(r)} models, worst {max(r):.2f})")


if __name__ == "__main__":
    main()
