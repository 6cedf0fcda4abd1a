"""mpcc speed benchmark (`make bench`): mpcc-generated C vs TFLite (LiteRT) with XNNPACK, same process.

    python tools/bench/bench.py [--models resnet,bert] [--rounds 15] [--threads 2] [--seed N]
                                [--mpcc-flags "..."] [--isa ISA] [--cflags "..."] [--no-gemm] [--gemm-only]

For each model: compile it with build/mpcc, build the generated C + the runtime into a shared library
(-O3 -march=native -std=c99 -fPIC, everything hidden except tools/bench/shim.c), load it with ctypes,
load the same .tflite into ai_edge_litert's Interpreter with the default op resolver (which applies
the XNNPACK delegate; checked per model), feed both the same random inputs (tests/oracle.py), check
the outputs agree, then time interleaved rounds: a batch of k mpcc runs, a batch of k' TFLite invokes,
... with k, k' chosen so a batch takes ~30 ms; per-run time = batch time / k; medians over rounds.
Before the models: the fp32 FMA peak of one core (peak.c) and the GEMM microbenchmark (gemm_bench.c).
"""

import argparse
import gc
import importlib.metadata
import math
import os
import re
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
import zlib

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tests"))
import oracle  # noqa: E402  (random valid inputs, person_detect's quantized_dimension workaround)
import precision_table  # noqa: E402  (the precision variants' table)

from ai_edge_litert.interpreter import Interpreter, OpResolverType  # noqa: E402

SHARED = os.path.normpath(os.path.join(ROOT, "..", "shared", "models"))
BIG_HINT = "make models MODELS_BIG=1"
FAMILY_HINT = "make models MODELS_BIG=1 (tools/models/family.py; docs/generalization.md)"

# (label, path, note when missing). Order = table order.
MODELS = [
    ("digits_f32", "samples/digits/digits_f32.tflite", None),
    ("digits_int8", "samples/digits/digits_int8.tflite", None),
    ("person_detect", os.path.join(SHARED, "tflm/person_detect.tflite"), None),
    ("mobilenetv2_0.35_96_int8", "tests/models/mobilenetv2_int8.tflite", None),
    ("mobilenet_v2_pytorch_int8", os.path.join(SHARED, "tflm/mobilenet_v2_int8_from_pytorch.tflite"), None),
    ("resnet_f32", "tests/models/resnet_f32.tflite", None),
    ("resnet_int8", "tests/models/resnet_int8.tflite", None),
    ("vit_f32", "tests/models/vit_f32.tflite", None),
    ("vit_int8", "tests/models/vit_int8.tflite", None),
    ("bert_f32", "tests/models/bert_f32.tflite", None),
    ("bert_int8", "tests/models/bert_int8.tflite", None),
    ("lstm_f32", "tests/models/lstm_f32.tflite", None),
    ("blazeface_f32", "tests/models/blazeface_f32.tflite", None),
    ("blazeface_f16", "tests/models/blazeface_f16.tflite", None),
    ("blazeface_int8", "tests/models/blazeface_int8.tflite", None),
    ("landmark_f32", "tests/models/landmark_f32.tflite", None),
    ("landmark_f16", "tests/models/landmark_f16.tflite", None),
    ("landmark_int8", "tests/models/landmark_int8.tflite", None),
    ("segnet_f32", "tests/models/segnet_f32.tflite", None),
    ("segnet_f16", "tests/models/segnet_f16.tflite", None),
    ("segnet_int8", "tests/models/segnet_int8.tflite", None),
    ("kws_conv1d_f32", "tests/models/kws_conv1d_f32.tflite", None),
    ("kws_conv1d_f16", "tests/models/kws_conv1d_f16.tflite", None),
    ("kws_conv1d_int8", "tests/models/kws_conv1d_int8.tflite", None),
    ("kws_lstm_f32", "tests/models/kws_lstm_f32.tflite", None),
    ("kws_lstm_f16", "tests/models/kws_lstm_f16.tflite", None),
    ("kws_lstm_int8", "tests/models/kws_lstm_int8.tflite", None),
    ("fam_wake_f32", "build/models/family/fam_wake_f32.tflite", FAMILY_HINT),
    ("fam_iris_int8", "build/models/family/fam_iris_int8.tflite", FAMILY_HINT),
    ("fam_pose_int8", "build/models/family/fam_pose_int8.tflite", FAMILY_HINT),
    ("mobilenetv2_1.0_224_f32", "build/models/mobilenetv2_1.0_224_f32.tflite", BIG_HINT),
    ("mobilenetv2_1.0_224_int8", "build/models/mobilenetv2_1.0_224_int8.tflite", BIG_HINT),
    ("bert_base_f32", "build/models/bert_base_f32.tflite", BIG_HINT),
]

import bench_build  # noqa: E402
from bench_build import (BENCH_DIR, BUILD, EMBED_LIMIT, HDR_DTYPES, MPCC, SHORT, BenchError,  # noqa: E402,F401
                         Builder, MpccModel, _io_specs, run_quiet, say)


# ------------------------------------------------------------------------------------ TFLite side

_XNN_LOG = None


def load_tflite(path, threads, resolver=OpResolverType.AUTO):
    """Allocated interpreter. AUTO = LiteRT's default op resolver, which applies XNNPACK."""
    global _XNN_LOG
    capture = _XNN_LOG is None and resolver == OpResolverType.AUTO
    if capture:  # the delegate logs "Created TensorFlow Lite XNNPACK delegate for CPU." once per process
        sys.stderr.flush()
        saved, tmp = os.dup(2), tempfile.TemporaryFile(mode="w+b")
        os.dup2(tmp.fileno(), 2)
    try:
        try:
            interp = Interpreter(model_path=path, num_threads=threads, experimental_op_resolver_type=resolver)
        except ValueError as e:
            if "quantized_dimension" not in str(e):
                raise
            # LiteRT 2.3 refuses quantized_dimension != 0 on 1-D biases (person_detect); same fix as the oracle.
            interp = Interpreter(model_content=oracle._fix_vector_quantized_dimension(path), num_threads=threads,
                                 experimental_op_resolver_type=resolver)
        interp.allocate_tensors()
    finally:
        if capture:
            os.dup2(saved, 2)
            os.close(saved)
            tmp.seek(0)
            log = tmp.read().decode(errors="replace")
            tmp.close()
            lines = [ln for ln in log.splitlines() if "XNNPACK" in ln]
            _XNN_LOG = lines[0].strip() if lines else ""
            other = [ln for ln in log.splitlines() if ln.strip() and "XNNPACK" not in ln]
            if other:
                sys.stderr.write("\n".join(other) + "\n")
    return interp


def xnnpack_coverage(interp):
    """(ops run by XNNPACK delegate nodes, original ops, delegate partitions).

    Nodes of the execution plan are not visible from Python, but a delegate node lists the tensors
    entering and leaving its partition: the original ops it replaced are those reached walking
    backwards from its outputs until its inputs."""
    ops = interp._get_ops_details()
    orig = [o for o in ops if o["op_name"] != "DELEGATE"]
    dels = [o for o in ops if o["op_name"] == "DELEGATE"]
    producer = {}
    for o in orig:
        for t in o["outputs"]:
            producer[int(t)] = o["index"]
    by_index = {o["index"]: o for o in orig}
    covered = set()
    for d in dels:
        stop = set(int(t) for t in d["inputs"])
        stack = [int(t) for t in d["outputs"]]
        seen = set()
        while stack:
            t = stack.pop()
            if t in seen or t in stop or t not in producer:
                continue
            seen.add(t)
            op = by_index[producer[t]]
            if op["index"] not in covered:
                covered.add(op["index"])
                stack.extend(int(x) for x in op["inputs"] if x >= 0)
    return len(covered), len(orig), len(dels)


CLOCK = time.perf_counter  # --cpu-time: time.thread_time (1-thread timings on a shared machine)


def tflite_batch_timer(interp):
    inv = interp._interpreter.Invoke  # interp.invoke() minus its Python-side safety check
    perf = CLOCK

    def batch(k):
        t0 = perf()
        for _ in range(k):
            inv()
        return perf() - t0
    return batch


# ------------------------------------------------------------------------------------ checking

def compare(mp_outs, tf_outs):
    """(ok, short text) for mpcc's outputs against TFLite's."""
    if len(mp_outs) != len(tf_outs):
        return False, f"{len(mp_outs)} vs {len(tf_outs)} outputs"
    notes, ok = [], True
    for i, (a, b) in enumerate(zip(mp_outs, tf_outs)):
        a = a.reshape(-1)
        b = np.asarray(b).reshape(-1)
        if a.size != b.size:
            return False, f"out{i}: {a.size} vs {b.size} elements"
        if b.dtype.kind == "f":
            a64, b64 = a.astype(np.float64), b.astype(np.float64)
            if not np.all(np.isfinite(a64) == np.isfinite(b64)):
                ok = False
                notes.append(f"out{i}: non-finite mismatch")
                continue
            fin = np.isfinite(b64)
            scale = max(float(np.max(np.abs(b64[fin]))) if fin.any() else 0.0, 1e-12)
            rel = float(np.max(np.abs(a64[fin] - b64[fin]))) / scale if fin.any() else 0.0
            if rel >= 1e-3:
                ok = False
            notes.append(f"rel {rel:.0e}")
        else:
            d = np.abs(a.astype(np.int64) - b.astype(np.int64))
            if not d.any():
                notes.append("exact")
                continue
            lsb = 1 if b.dtype in (np.int8, np.uint8, np.int16) else 0
            frac = float(np.mean(d <= lsb))
            if frac < 0.95:
                ok = False
            notes.append(f"{100 * frac:.1f}%" + ("<=1" if lsb else "=") + f" max{int(d.max())}")
    # Keep the cell short: the distinct notes, at most two.
    uniq = sorted(set(notes), key=notes.index)
    return ok, (uniq[0] if len(uniq) == 1 else ",".join(uniq[:2]))


# ------------------------------------------------------------------------------------ timing

def calibrate(batch, target):
    """Warm up and choose k so that a batch takes ~target seconds. Returns (k, seconds per run)."""
    t = batch(1)  # first run: page faults, caches
    spent, n = t, 1
    samples = [t]
    while spent < min(0.2, 3 * target) and t < target:
        k = n
        tt = batch(k)
        samples.append(tt / k)
        spent += tt
        n *= 2
    per = min(samples)
    return max(1, int(round(target / per))), per


POOL_PAUSE = 0.012


def interleaved(batches, rounds):
    """batches: list of (fn, k, pause). Runs `rounds` rounds of each in turn; returns medians per run."""
    times = [[] for _ in batches]
    for _ in range(rounds):
        for j, (fn, k, pause) in enumerate(batches):
            times[j].append(fn(k) / k)
            if pause:
                time.sleep(pause)  # let a multi-threaded pool stop spinning before the next batch
    return [statistics.median(t) for t in times]


def timed_rounds(batches, per_round, args):
    """As many interleaved rounds as the time budget allows (3 to args.rounds), with the garbage
    collector off; returns (medians, rounds)."""
    rounds = max(3, min(args.rounds, int(args.budget / max(per_round, 1e-9))))
    gc.disable()
    try:
        return interleaved(batches, rounds), rounds
    finally:
        gc.enable()


# ------------------------------------------------------------------------------------ main

def inspect_macs(path):
    out = run_quiet([MPCC, "inspect", path], "mpcc inspect")
    m = re.search(r"^MACs:\s*(\d+)", out, re.M)
    return int(m.group(1)) if m else None


def reference_share(report):
    """The estimated share of the time (%) on reference kernels, summed from --report's list."""
    m = re.search(r"^reference kernels \(estimated share.*?\n((?:  op .*\n)*)", report, re.M)
    return sum(float(x) for x in re.findall(r"([\d.]+)%\s*$", m.group(1), re.M)) if m else 0.0


def bench_model(label, path, args, builder, mpcc_flags, seed):
    row = {"model": label}
    row["macs"] = inspect_macs(path)
    so, header, weights = builder.model_library(label, path, mpcc_flags, args.weights)
    row["ref"] = reference_share(builder.last_report)
    mp = MpccModel(so, header, weights)

    tf1 = load_tflite(path, 1)
    cov = xnnpack_coverage(tf1)
    row["xnn"] = f"{cov[0]}/{cov[1]}"
    tf2 = load_tflite(path, 2) if args.threads == 2 else None

    inputs = oracle.draw_inputs(path, seed, tf1)
    outs_d = tf1.get_output_details()
    row["dtype"] = SHORT.get(np.dtype(outs_d[0]["dtype"]).name, np.dtype(outs_d[0]["dtype"]).name)
    for interp in (tf1, tf2):
        if interp is not None:
            for d, a in zip(interp.get_input_details(), inputs):
                interp.set_tensor(d["index"], a)
    mp.set_inputs(inputs)

    # Correctness, once, on fresh state (LSTM keeps state across runs).
    mp.init()
    mp.run(1)
    mp_outs = [a.copy() for a in mp.out_arrays]
    tf1.invoke()
    tf_outs = [tf1.get_tensor(d["index"]).copy() for d in outs_d]
    ok, note = compare(mp_outs, tf_outs)
    row["check"] = ("ok " if ok else "WARN ") + note
    if not ok:
        # XNNPACK rounds differently from TFLite's reference kernels, which mpcc follows bit-exactly:
        # if mpcc agrees with the reference interpreter, the difference is XNNPACK's, not mpcc's.
        ref = load_tflite(path, 1, oracle.RESOLVERS[oracle.default_resolver(path)])
        for d, a in zip(ref.get_input_details(), inputs):
            ref.set_tensor(d["index"], a)
        ref.invoke()
        ref_outs = [ref.get_tensor(d["index"]).copy() for d in ref.get_output_details()]
        rok, rnote = compare(mp_outs, ref_outs)
        row["check"] = (f"ok* ref {rnote}; xnn {note}" if rok else f"WRONG xnn {note}; ref {rnote}")
        row["ok"] = rok
        del ref
    else:
        row["ok"] = True

    # Timing.
    target = args.batch_ms / 1000.0
    mb = mp.batch_timer()
    xb = tflite_batch_timer(tf1)
    k_m, t_m = calibrate(mb, target)
    k_x, t_x = calibrate(xb, target)
    batches = [(mb, k_m, 0), (xb, k_x, 0)]
    per_round = k_m * t_m + k_x * t_x
    if tf2 is not None:
        # mpcc 2 threads: the same library, PREFIX_run_parallel with a 2-thread mpcc_pool.
        mb2 = mp.batch_timer(2)
        k_m2, t_m2 = calibrate(mb2, target)
        xb2 = tflite_batch_timer(tf2)
        k_x2, t_x2 = calibrate(xb2, target)
        # A pause after each 2-thread batch outlasts the pool's spinning worker (mpcc_pool spins ~5 ms,
        # 200000 pause instructions here, before it sleeps): a worker still spinning takes one of the
        # two cores from the next batch (measured: the 2-thread times of both sides went up 1.3-2.3x).
        batches += [(mb2, k_m2, POOL_PAUSE), (xb2, k_x2, POOL_PAUSE)]
        per_round += k_m2 * t_m2 + k_x2 * t_x2 + 2 * POOL_PAUSE
        time.sleep(POOL_PAUSE)
    med, rounds = timed_rounds(batches, per_round, args)
    row.update(t_mpcc=med[0], t_xnn=med[1], k=f"{k_m}/{k_x}", rounds=rounds)
    row["_mpcc_batch"] = (mp, mb, k_m)  # kept for the twin comparison (twin_ratios)
    if tf2 is not None:
        row["t_mpcc2"], row["t_xnn2"] = med[2], med[3]
        row["k"] += f"/{k_m2}/{k_x2}"
    return row


def fmt_macs(n):
    if n is None:
        return "?"
    for unit, div in (("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if n >= div:
            return f"{n / div:.3g}{unit}"
    return str(n)


def print_table(rows, skipped, args):
    two = args.threads == 2
    cols = ["model", "dtype", "MACs", "mpcc ms", "XNN ms", "XNN/mpcc", "mpcc GF/s", "XNN GF/s"]
    if two:
        cols += ["mpccx2 ms", "XNNx2 ms", "XNNx2/mpccx2", "XNNx2 GF/s"]
    cols += ["ref %", "xnn ops", "k", "R", "check"]
    lines = []
    ratios, ratios2 = [], []
    for r in rows:
        if "error" in r:
            lines.append([r["model"], "", "", "", "", "", "", ""] + (["", "", "", ""] if two else []) +
                         ["", "", "", "", "ERROR: " + r["error"]])
            continue
        g = (lambda t: f"{2 * r['macs'] / t / 1e9:.2f}" if r["macs"] else "?")
        ratio = r["t_xnn"] / r["t_mpcc"]
        if r["ok"]:
            ratios.append(ratio)
        line = [r["model"], r["dtype"], fmt_macs(r["macs"]), f"{r['t_mpcc'] * 1e3:.3f}", f"{r['t_xnn'] * 1e3:.3f}",
                f"{ratio:.3f}", g(r["t_mpcc"]), g(r["t_xnn"])]
        if two:
            ratio2 = r["t_xnn2"] / r["t_mpcc2"]
            if r["ok"]:
                ratios2.append(ratio2)
            line += [f"{r['t_mpcc2'] * 1e3:.3f}", f"{r['t_xnn2'] * 1e3:.3f}", f"{ratio2:.3f}", g(r["t_xnn2"])]
        line += [f"{r['ref']:.1f}", r["xnn"], r["k"], str(r["rounds"]), r["check"]]
        lines.append(line)
    widths = [max(len(c), *(len(ln[i]) for ln in lines)) if lines else len(c) for i, c in enumerate(cols)]
    right = {2, 3, 4, 5, 6, 7} | ({8, 9, 10, 11, 12} if two else {8})

    def fmt(vals):
        return "  ".join((v.rjust(w) if i in right else v.ljust(w)) for i, (v, w) in enumerate(zip(vals, widths))
                         ).rstrip()
    say(fmt(cols))
    say(fmt(["-" * w for w in widths]))
    for ln in lines:
        say(fmt(ln))
    n_bad = sum(1 for r in rows if "error" not in r and not r["ok"])

    def gm(v):
        return math.exp(sum(math.log(x) for x in v) / len(v)) if v else float("nan")
    tail = f" ({len(ratios)} models" + (f"; {n_bad} WRONG left out" if n_bad else "") + ")"
    msg = f"geometric mean XNN/mpcc (1 thread vs 1 thread): {gm(ratios):.3f}{tail}"
    if two:
        msg += f";  XNNx2/mpccx2 (2 threads vs 2 threads): {gm(ratios2):.3f}"
    say(msg)
    say("(ratio = time_XNNPACK / time_mpcc: > 1 means mpcc is faster; GF/s = 2*MACs/time; ref % = --report's "
        "estimated share of the time on reference kernels)")
    by = {r["model"]: r for r in rows if "error" not in r}
    twins = twin_ratios(by, args)
    if twins:
        say("fp16-weight models against their f32 twins (mpcc time f16 / f32, 1 thread, the two timed interleaved; "
            "<= 1.10 is the goal): " + ", ".join(f"{a} {t:.3f}" for a, t in twins))
    worst = max(by.values(), key=lambda r: r["ref"], default=None)
    if worst is not None:
        say(f"largest reference-kernel share: {worst['model']} {worst['ref']:.1f}%")
    for s in skipped:
        say(s)


def twin_ratios(by, args):
    """[(f16 label, mpcc time f16 / f32)] for each fp16-weight model whose f32 twin ran too. The two
    are timed again here, interleaved with each other: their rows were timed minutes apart, and the
    machine's speed drifts by more than the 10 % this ratio is about (a 1.43 on a shared machine came
    with XNNPACK 1.42x slower on the f16 row too, for the same generated code)."""
    out = []
    for lab, r in by.items():
        twin = by.get(lab[:-4] + "_f32") if lab.endswith("_f16") else None
        if twin is None:
            continue
        (_, mb16, k16), (_, mb32, k32) = r["_mpcc_batch"], twin["_mpcc_batch"]
        med, _ = timed_rounds([(mb16, k16, 0), (mb32, k32, 0)], k16 * r["t_mpcc"] + k32 * twin["t_mpcc"], args)
        out.append((lab, med[0] / med[1]))
    return out


def glue_values(argv, options):
    """Values of these options may start with '-' ("--mpcc-flags -O0"): glued on as OPTION=VALUE so
    argparse accepts them."""
    argv, glued, i = list(argv), [], 0
    while i < len(argv):
        if argv[i] in options and i + 1 < len(argv):
            glued.append(f"{argv[i]}={argv[i + 1]}")
            i += 2
        else:
            glued.append(argv[i])
            i += 1
    return glued


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--models", default="", help="comma-separated substrings of model labels/paths (default: all)")
    ap.add_argument("--rounds", type=int, default=15, help="interleaved timing rounds (default 15)")
    ap.add_argument("--threads", type=int, choices=(1, 2), default=1,
                    help="2: also time mpcc with 2 threads (compiled --threads 2, mpcc_pool) against TFLite "
                         "with num_threads=2")
    ap.add_argument("--seed", type=int, default=None, help="input seed (default: $MPCC_SEED, else from the time)")
    ap.add_argument("--mpcc-flags", default="", help="extra flags for mpcc when compiling the models")
    ap.add_argument("--isa", default=None, help="passed to mpcc as --isa ISA")
    ap.add_argument("--cflags", default="-O3 -march=native -std=c99",
                    help="C flags for the generated code and runtime (-fPIC -fvisibility=hidden are added)")
    ap.add_argument("--cc", default=os.environ.get("CC", "cc"))
    ap.add_argument("--weights", choices=("auto", "embed", "file"), default="auto",
                    help=f"mpcc --weights mode (auto: file for models over {EMBED_LIMIT >> 20} MB, else embed)")
    ap.add_argument("--batch-ms", type=float, default=30.0, help="target duration of one timed batch (ms)")
    ap.add_argument("--budget", type=float, default=30.0,
                    help="seconds of timing per model; fewer rounds (at least 3) when a round is slow")
    ap.add_argument("--no-gemm", action="store_true", help="skip the peak/GEMM microbenchmarks")
    ap.add_argument("--gemm-only", action="store_true", help="only the peak/GEMM microbenchmarks")
    ap.add_argument("--gemm-args", default="", help="extra arguments for gemm_bench (e.g. \"--shapes 256x256x256\")")
    ap.add_argument("--list", action="store_true", help="list the benchmark models and exit")
    ap.add_argument("--no-precision", action="store_true", help="skip the precision-variant table")
    ap.add_argument("--precisions", default="",
                    help="the precision table's variants, comma-separated, from fp32,int8,bf16,fp16 (default: all, "
                         "but int8 only for models up to 64 MiB: its calibration runs the reference interpreter, over "
                         "10 minutes on BERT-base); fp32 is always timed: the others' ratios are against it")
    ap.add_argument("--extra", action="append", default=[],
                    help="more .tflite models (glob patterns, comma-separated, repeatable), labelled by file "
                         "name, e.g. --extra 'build/models/family/*.tflite' (tools/models/family.py)")
    ap.add_argument("--only-extra", action="store_true", help="only the --extra models")
    ap.add_argument("--cpu-time", action="store_true",
                    help="time by the calling thread's CPU time (1 thread only; for a loaded machine)")
    args = ap.parse_args(glue_values(sys.argv[1:] if argv is None else argv, ("--mpcc-flags", "--cflags", "--gemm-args")))
    args.precisions = ["fp32"] + [v for v in args.precisions.split(",") if v and v != "fp32"] if args.precisions else None
    bad = [v for v in args.precisions or () if v not in precision_table.VARIANTS]
    if bad:
        ap.error(f"--precisions: unknown variant {bad[0]!r} (choose from {', '.join(precision_table.VARIANTS)})")

    os.chdir(ROOT)
    if args.only_extra:
        models = list(extra_models(args.extra))
    else:
        models = MODELS + list(extra_models(args.extra))
    if args.cpu_time:
        if args.threads != 1:
            say("bench: --cpu-time needs --threads 1")
            return 1
        global CLOCK
        CLOCK = time.thread_time
        bench_build.CLOCK = time.thread_time
    if args.list:
        for label, path, _ in models:
            say(f"{label:28s} {os.path.relpath(path, ROOT) if os.path.isabs(path) else path}"
                f"{'' if os.path.exists(path) else '   (not found)'}")
        return 0
    seed = args.seed if args.seed is not None else int(os.environ.get("MPCC_SEED", int(time.time()) % 100000))
    mpcc_flags = shlex.split(args.mpcc_flags) + (["--isa", args.isa] if args.isa else []) + \
        (["--threads", "2"] if args.threads == 2 else [])
    if not os.access(MPCC, os.X_OK):
        say(f"bench: {MPCC} not found (make build/mpcc)")
        return 1
    builder = Builder(args.cc, args.cflags)

    cpu = _cpu_name()
    ccv = subprocess.run([args.cc, "--version"], stdout=subprocess.PIPE, text=True).stdout.splitlines()[0]
    say(f"== mpcc bench: {cpu}, {os.cpu_count()} cores; {ccv}")
    say(f"   seed {seed} (MPCC_SEED={seed} make bench reproduces the inputs)")

    try:
        builder.runtime_objects()
    except BenchError as e:
        say(f"bench: {e}")
        return 1
    try:
        if not args.no_gemm:
            say("")
            say("== fp32 FMA peak, 1 core (tools/bench/peak.c)")
            peak_exe = builder.tool("peak", ["-O3", "-march=native", "-ffp-contract=fast"], False)
            out = run_quiet([peak_exe, "0.05"], "peak")
            say(out.rstrip())
            m = re.search(r"^peak: ([0-9.]+)", out, re.M)
            peak = float(m.group(1)) if m else 0.0
            say("")
            say(f"== GEMM microbenchmark (tools/bench/gemm_bench.c, {args.cflags})")
            try:
                gemm_exe = builder.tool("gemm_bench", shlex.split(args.cflags), True)
            except BenchError as e:
                # The rt_opt adapters follow runtime/rt_opt.h; if that API moved, bench without them.
                gemm_exe = builder.tool("gemm_bench", shlex.split(args.cflags) + ["-DBENCH_NO_RT_OPT"], True)
                say(f"NOTE: gemm_bench's rt_opt adapters do not build against runtime/rt_opt.h any more "
                    f"({e.short}); benchmarking without them: update tools/bench/gemm_bench.c")
            out = run_quiet([gemm_exe, "--peak", str(peak), "--seconds", "0.1"] + shlex.split(args.gemm_args),
                            "gemm_bench")
            say(out.rstrip())
    except BenchError as e:
        say(f"bench: peak/GEMM section failed: {e}")
        if args.gemm_only:
            return 1
    if args.gemm_only:
        return 0

    wanted = [w.strip() for w in args.models.split(",") if w.strip()]
    todo, skipped = [], []
    for label, path, hint in models:
        if wanted and not any(w in label or w in path for w in wanted):
            continue
        rel = os.path.relpath(path, ROOT) if os.path.isabs(path) else path
        if not os.path.exists(path):
            skipped.append(f"{label}: skipped (not found: {rel})" + (f"; made by `{hint}`" if hint else ""))
            continue
        todo.append((label, path))

    ver = importlib.metadata.version("ai-edge-litert")
    say("")
    say(f"== models: mpcc (1 thread, {args.cflags}{' ; mpcc ' + shlex.join(mpcc_flags) if mpcc_flags else ''}) "
        f"vs TFLite ai_edge_litert {ver} + XNNPACK")
    say(f"   {len(todo)} models, up to {args.rounds} interleaved rounds, batches ~{args.batch_ms:g} ms, medians")
    rows = []
    for i, (label, path) in enumerate(todo):
        t0 = time.time()
        mseed = (seed + zlib.crc32(label.encode())) % (1 << 32)
        try:
            row = bench_model(label, path, args, builder, mpcc_flags, mseed)
            say(f"   [{i + 1}/{len(todo)}] {label}: mpcc {row['t_mpcc'] * 1e3:.3f} ms, XNNPACK "
                f"{row['t_xnn'] * 1e3:.3f} ms, {row['check']} ({time.time() - t0:.1f} s)")
        except (BenchError, ValueError, RuntimeError) as e:
            msg = str(e).strip()
            say(f"   [{i + 1}/{len(todo)}] {label}: ERROR\n" + "\n".join("      " + ln for ln in msg.splitlines()))
            short = getattr(e, "short", None) or (msg.splitlines()[0] if msg else type(e).__name__)
            row = {"model": label, "error": short[:100]}
        rows.append(row)
    say("")
    timed = [r for r in rows if "error" not in r]
    if not timed:
        xnn_state = "not measured (no model ran)"
    elif all(r["xnn"].startswith("0/") for r in timed):
        xnn_state = "NOT APPLIED: no model has an XNNPACK delegate node (numbers are TFLite's builtin kernels)"
    else:
        xnn_state = ("ON: default op resolver (OpResolverType.AUTO) applied the XNNPACK delegate"
                     + (f' (log: "{_XNN_LOG}")' if _XNN_LOG else "")
                     + "; 'xnn ops' = original ops inside XNNPACK delegate partitions / all ops")
    say(f"== results: mpcc 1 thread vs TFLite XNNPACK num_threads=1"
        + (" and 2 threads vs num_threads=2 (mpccx2, XNNx2)" if args.threads == 2 else "")
        + f", seed {seed}")
    say(f"   XNNPACK {xnn_state}")
    say("   check: mpcc vs TFLite outputs once (int8: >=95% within 1 LSB; float: max|diff|/max|ref| < 1e-3);"
        " ok* = differs from XNNPACK but matches TFLite's reference kernels; WRONG = matches neither")
    say("   k = runs per timed batch (mpcc/XNN" + ("/mpccx2/XNNx2" if args.threads == 2 else "") +
        "), R = interleaved rounds; mpcc batches loop in C, TFLite batches call Invoke from Python (~1 us each)")
    say("")
    print_table(rows, skipped, args)
    prec_rows = []
    paths = dict((label, path) for label, path in todo)
    for label in precision_table.MODELS:
        if label not in paths or args.no_precision:
            continue
        try:
            prec_rows.append(precision_table.bench(sys.modules[__name__], label, paths[label], args, builder,
                                                   mpcc_flags, (seed + zlib.crc32(label.encode())) % (1 << 32)))
        except (BenchError, ValueError, RuntimeError) as e:
            prec_rows.append({"model": label, "error": (getattr(e, "short", None) or str(e))[:100]})
    if prec_rows:
        say("")
        say("== precision variants: the float models at fp32, int8, bf16, fp16 (mpcc, 1 thread), interleaved "
            "with TFLite XNNPACK on the float model")
        precision_table.show(prec_rows, say)
    if any(r.get("error") for r in rows + prec_rows):
        return 1
    return 0


def extra_models(patterns):
    """(label, path, None) for each file the --extra glob patterns match, in name order."""
    import glob
    seen = set()
    for pat in (p for arg in patterns for p in arg.split(",") if p.strip()):
        for path in sorted(glob.glob(pat.strip())) or [pat.strip()]:
            if path not in seen:
                seen.add(path)
                yield os.path.splitext(os.path.basename(path))[0], path, None


def _cpu_name():
    try:
        with open("/proc/cpuinfo") as f:
            for ln in f:
                if ln.startswith("model name"):
                    return ln.split(":", 1)[1].strip()
    except OSError:
        pass
    return "unknown CPU"


if __name__ == "__main__":
    sys.exit(main())
