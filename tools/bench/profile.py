"""Per-op times of a model's generated C (`make profile MODEL=...`), like TFLite's
`benchmark_model --enable_op_profiling`.

    python tools/bench/profile.py MODEL [--mpcc-flags "..."] [--runs N] [--seconds S] [--write FILE]

Compiles MODEL with `build/mpcc --profile` (plus --mpcc-flags), builds it with the runtime as
`make bench` does (-O3 -march=native, tools/bench/shim.c; cached under build/bench/models/),
feeds random valid inputs (tests/oracle.py, printed seed), runs it a few times to warm up, then
for --seconds (at least --runs runs) with the clock set, and prints the ops sorted by time with
each one's share and the running total, then the same by kernel class. --write FILE saves
"OP<TAB>NANOSECONDS" per op (op index as in `mpcc --report`) for `mpcc report --profile-data FILE`
(give it the same compile options, without --profile).
"""

import argparse
import ctypes
import os
import re
import shlex
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import bench  # noqa: E402  (Builder, MpccModel, oracle inputs)


def profile(model, mpcc_flags, runs, seconds, seed, cc, cflags):
    builder = bench.Builder(cc, cflags)
    label = "profile-" + re.sub(r"[^A-Za-z0-9_.-]", "_", os.path.basename(model))
    so, header, weights = builder.model_library(label, model, mpcc_flags + ["--profile"])
    mp = bench.MpccModel(so, header, weights)
    lib = mp.lib
    lib.bench_profile_ops.restype = ctypes.c_int
    lib.bench_profile_start.argtypes = [ctypes.c_void_p]
    lib.bench_profile.argtypes = [ctypes.c_void_p]
    lib.bench_profile.restype = ctypes.POINTER(ctypes.c_uint64)
    lib.bench_profile_runs.argtypes = [ctypes.c_void_p]
    lib.bench_profile_runs.restype = ctypes.c_uint64
    lib.bench_profile_op.argtypes = [ctypes.c_int]
    lib.bench_profile_op.restype = ctypes.c_char_p
    mp.set_inputs(bench.oracle.draw_inputs(model, seed))
    mp.init()
    mp.run(3)  # warm-up, untimed (no clock yet)
    lib.bench_profile_start(mp.arena.ctypes.data)
    t0, n = time.perf_counter(), 0
    while n < runs or time.perf_counter() - t0 < seconds:
        mp.run(1)
        n += 1
    wall = (time.perf_counter() - t0) / n
    ops = lib.bench_profile_ops()
    ticks = lib.bench_profile(mp.arena.ctypes.data)
    got_runs = lib.bench_profile_runs(mp.arena.ctypes.data)
    if got_runs != n:
        raise bench.BenchError(f"the profile counted {got_runs} runs, {n} were made")
    rows = []
    for k in range(ops):
        name = lib.bench_profile_op(k).decode("ascii", "replace")
        # the operator may carry fused names with spaces ("CONV_2D+ADD, PRELU"): kernel and dtype are the last two words
        m = re.match(r"op (\d+) \[TFLite #(-?\d+)\] (.+?) (\S+) (\S+)(?: \(in place\))?$", name)
        rows.append({"op": int(m.group(1)), "tfl": int(m.group(2)), "name": m.group(3).replace(", ", "+"),
                     "kernel": m.group(4),
                     "dtype": m.group(5), "ns": ticks[k] / n, "inplace": name.endswith("(in place)")})
    return rows, n, wall


def print_table(rows, n, wall, out=sys.stdout):
    total = sum(r["ns"] for r in rows) or 1.0
    w = max([len(r["name"]) for r in rows] + [8])
    print(f"Operator-wise profiling, {n} runs: {wall * 1e3:.3f} ms a run, {total / 1e6:.3f} ms in the kernels "
          f"(the rest: timing and run overhead)", file=out)
    print(f"{'op':>5} {'TFLite#':>7}  {'operator':<{w}}  {'kernel':<11} {'dtype':<5} {'avg ms':>9} {'%':>6} {'cdf%':>6}",
          file=out)
    cdf = 0.0
    for r in sorted(rows, key=lambda r: -r["ns"]):
        cdf += r["ns"]
        print(f"{r['op']:>5} {r['tfl']:>7}  {r['name']:<{w}}  {r['kernel']:<11} {r['dtype']:<5} {r['ns'] / 1e6:>9.4f} "
              f"{100 * r['ns'] / total:>5.1f}% {100 * cdf / total:>5.1f}%", file=out)
    by = {}
    for r in rows:
        k = by.setdefault(r["kernel"], [0, 0.0])
        k[0] += 1
        k[1] += r["ns"]
    print("\nBy kernel class:", file=out)
    print(f"{'kernel':<11} {'ops':>5} {'ms':>9} {'%':>6}", file=out)
    for kern, (cnt, ns) in sorted(by.items(), key=lambda kv: -kv[1][1]):
        print(f"{kern:<11} {cnt:>5} {ns / 1e6:>9.4f} {100 * ns / total:>5.1f}%", file=out)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("model")
    ap.add_argument("--mpcc-flags", default="", help="compile options (e.g. \"--precision int8 --calibrate c.npy\")")
    ap.add_argument("--runs", type=int, default=20, help="at least this many timed runs (default 20)")
    ap.add_argument("--seconds", type=float, default=2.0, help="and at least this long (default 2 s)")
    ap.add_argument("--seed", type=int, default=None, help="input seed (default: $MPCC_SEED, else from the time)")
    ap.add_argument("--cflags", default="-O3 -march=native -std=c99")
    ap.add_argument("--cc", default=os.environ.get("CC", "cc"))
    ap.add_argument("--write", metavar="FILE", help="per-op times for mpcc report --profile-data")
    args = ap.parse_args(bench.glue_values(sys.argv[1:] if argv is None else argv, ("--mpcc-flags", "--cflags")))
    model = os.path.abspath(args.model)
    os.chdir(bench.ROOT)
    seed = args.seed if args.seed is not None else int(os.environ.get("MPCC_SEED", int(time.time()) % 100000))
    flags = shlex.split(args.mpcc_flags)
    print(f"== mpcc profile: {os.path.relpath(model, bench.ROOT)} {shlex.join(flags)}".rstrip())
    print(f"   {bench._cpu_name()}, seed {seed}, clock CLOCK_MONOTONIC (ns), {shlex.join(shlex.split(args.cflags))}")
    try:
        rows, n, wall = profile(model, flags, args.runs, args.seconds, seed, args.cc, args.cflags)
    except bench.BenchError as e:
        print(f"profile: {e}", file=sys.stderr)
        return 1
    print_table(rows, n, wall)
    if args.write:
        with open(args.write, "w") as f:
            f.write(f"# mpcc profile of {os.path.basename(model)} ({shlex.join(flags)}), {n} runs: op<TAB>ns per run\n")
            for r in rows:
                f.write(f"{r['op']}\t{r['ns']:.1f}\n")
        print(f"wrote {args.write} (mpcc report {os.path.relpath(model, bench.ROOT)} {shlex.join(flags)} "
              f"--profile-data {args.write} -o report.html)".replace("  ", " "))
    return 0


if __name__ == "__main__":
    sys.exit(main())
