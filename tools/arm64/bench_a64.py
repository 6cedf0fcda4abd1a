"""Instructions retired per inference of mpcc's C on AArch64 under qemu-aarch64 (not a test;
docs/arm64.md shows a table).

    python tools/arm64/bench_a64.py [--targets dotprod,base] [--models person_detect,...]
                                    [--runtime DIR --tag NAME] [--isa ISA]

A TCG plugin (tools/cortex_m/insn_count.c, built by tools/cortex_m/bench_mcu.py against
qemu-plugin.h of Debian's qemu source package) counts every guest instruction; one inference is
the difference between the program run 11 times and once, divided by 10 (start-up, reading the
inputs and writing the outputs cancel out). Instructions, not time: QEMU models no timing.
--runtime DIR builds against another runtime folder (an older commit's `git archive`, for a
before/after figure); --isa overrides the target's mpcc --isa (e.g. neon, the portable path).
--profile N prints the N functions that retire the most instructions in one inference (the
plugin tools/arm64/insn_prof.c counts per translated block; blocks map to functions by `nm`).
"""

import argparse
import re
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

MODELS = {
    "person_detect": ROOT.parent / "shared" / "models" / "tflm" / "person_detect.tflite",
    "mobilenetv2_0.35_int8": ROOT / "tests" / "models" / "mobilenetv2_int8.tflite",
    "digits_int8": ROOT / "samples" / "digits" / "digits_int8.tflite",
    "digits_f32": ROOT / "samples" / "digits" / "digits_f32.tflite",
}


def count(target, prog, inputs, work, so, runs):
    proc, outs = a64.run(target, prog, inputs, work, runs=runs, timeout=3600, plugin=so)
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


def profile(target, prog, inputs, work, top):
    """The top functions by instructions retired in one inference (11 runs minus 1, / 10)."""
    import bisect
    syms = []
    for line in subprocess.run(["aarch64-linux-gnu-nm", "-n", str(prog)], capture_output=True, text=True).stdout.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] in "tTwW":
            syms.append((int(parts[0], 16), parts[2]))
    addrs = [a for a, _ in syms]
    per = []
    for runs in (1, 11):
        proc, outs = a64.run(target, prog, inputs, work, runs=runs, timeout=3600, plugin=prof_plugin())
        if outs is None:
            sys.exit(f"bench-arm64: {prog} failed under QEMU: {proc.stderr[-2000:]}")
        funcs = {}
        for m in re.finditer(r"^tb ([0-9a-f]+) (\d+)$", proc.stderr, re.M):
            i = bisect.bisect_right(addrs, int(m.group(1), 16)) - 1
            name = syms[i][1] if i >= 0 else "?"
            funcs[name] = funcs.get(name, 0) + int(m.group(2))
        per.append(funcs)
    diff = {f: (per[1].get(f, 0) - per[0].get(f, 0)) / 10 for f in per[1]}
    total = sum(diff.values())
    for f, n in sorted(diff.items(), key=lambda kv: -kv[1])[:top]:
        print(f"    {n / 1e6:8.2f}M {100 * n / total:5.1f}%  {f}")


def bench(name, model, target, isa, so, runtime, tag, top=0):
    from oracle import draw_inputs, load
    work = a64.BUILD / "bench" / f"{name}-{target}-{isa}{'-' + tag if tag else ''}"
    work.mkdir(parents=True, exist_ok=True)
    proc = subprocess.run([str(ROOT / "build" / "mpcc"), str(model), "-o", str(work / "model.c"), "--name", "model",
                           "--isa", isa], capture_output=True, text=True)
    if proc.returncode != 0:
        sys.exit(f"bench-arm64: mpcc {model} failed: {proc.stderr}")
    inputs = draw_inputs(model, 1, load(model))
    proc, prog = a64.build(target, work, len(inputs), sum(1 for _ in load(model).get_output_details()),
                           runtime=runtime, tag=tag)
    if proc.returncode != 0:
        sys.exit(f"bench-arm64: building {name} failed:\n{proc.stderr[-3000:]}")
    one, eleven = (count(target, prog, inputs, work, so, r) for r in (1, 11))
    if top:
        profile(target, prog, inputs, work, top)
    return (eleven - one) / 10


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--targets", default=",".join(a64.TARGETS))
    ap.add_argument("--models", default="person_detect,mobilenetv2_0.35_int8")
    ap.add_argument("--isa", default=None, help="mpcc --isa instead of the target's")
    ap.add_argument("--runtime", type=Path, default=ROOT / "runtime")
    ap.add_argument("--tag", default="")
    ap.add_argument("--profile", type=int, default=0, metavar="N", help="print the N costliest functions")
    args = ap.parse_args()
    why = a64.toolchain()
    if why:
        sys.exit(why)
    so = bench_mcu.plugin()
    print("Instructions retired per inference under qemu-aarch64 (TCG plugin), not time.")
    print(f"{'model':24} {'target':8} {'isa':18} {'insns/inference':>16}")
    for name in args.models.split(","):
        for target in args.targets.split(","):
            isa = args.isa or a64.TARGETS[target][2]
            n = bench(name, MODELS[name], target, isa, so, args.runtime, args.tag, args.profile)
            print(f"{name:24} {target:8} {isa:18} {n / 1e6:15.2f}M", flush=True)


if __name__ == "__main__":
    main()
