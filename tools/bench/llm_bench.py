"""Decoder benchmark (`make bench-llm`): prefill ms and decode tokens/s of mpcc's generated C vs TFLite
(LiteRT) with XNNPACK on the same litert-torch export, at 1 and 2 threads, same process.

    python tools/bench/llm_bench.py [--models tiny,100m] [--threads 1,2] [--rounds 9] [--steps N] [--mpcc-flags "..."]

Models: the tiny Llama of the tests (tests/models/llm_tiny_llama_{f32,q8,q4}.tflite) and the ~100M one
made by `make models-llm-100m` (build/models/llm_llama100m_{f32,q8,q4}.tflite; skipped when missing).
mpcc's side: the model compiled with build/mpcc into a shared library (as tools/bench/bench.py, with
tools/bench/llm_shim.c), the KV caches one buffer each, passed as input and output (in place, as
the header allows). TFLite's: the signature runners' interpreter with the default op resolver
(XNNPACK applied; the `xnn ops` column counts the ops it took), num_threads as mpcc's; only Invoke is
timed (setting input_pos is not), and its caches are not carried between steps (that would be
copies mpcc does not make), so TFLite's figures leave out costs a real decode loop pays.

Each round: one prefill (positions 0..P-1) and then `steps` decode steps (positions P, P+1, ...)
on mpcc, the same on TFLite; rounds interleave the two; per-thread CPU time
(CLOCK_THREAD_CPUTIME_ID / time.thread_time_ns: the machine is shared); medians over rounds.
`--threads` (a comma list, default 1,2): one row per model and thread count. N > 1: mpcc compiled
with `--threads N` and its signatures' _run_parallel entry points run on a runtime/threads/mpcc_pool
of N threads, TFLite's num_threads=N, and wall time (CLOCK_MONOTONIC / time.perf_counter_ns) since
the other threads work too: on a shared machine those figures count other processes' time. A short
pause after each side's turn lets the pool's spinning workers (and XNNPACK's) stop before the other
side is timed.
Before timing, one prefill and one decode step are compared (max |diff| / max |ref| of the
decode logits; int8 weights: XNNPACK's hybrid FULLY_CONNECTED quantizes activations its own way,
so ~1e-2 is expected there).
"""

import argparse
import ctypes
import gc
import os
import re
import shlex
import statistics
import sys
import time

import numpy as np

import bench
import bench_build  # noqa: E402  (where Builder reads MPCC)
from bench import BenchError, Builder, load_tflite, say, xnnpack_coverage

ROOT = bench.ROOT
HINT = "make models-llm-100m"
MODELS = [
    ("tiny_llama_f32", "tests/models/llm_tiny_llama_f32.tflite", None),
    ("tiny_llama_q8", "tests/models/llm_tiny_llama_q8.tflite", None),
    ("tiny_llama_q4", "tests/models/llm_tiny_llama_q4.tflite", None),
    ("llama100m_f32", "build/models/llm_llama100m_f32.tflite", HINT),
    ("llama100m_q8", "build/models/llm_llama100m_q8.tflite", HINT),
    ("llama100m_q4", "build/models/llm_llama100m_q4.tflite", HINT),
]
CACHE = re.compile(r"kv_cache_[kv]_\d+$")


def signature_io(header, sig, kind):
    """[(name, dtype code, dims)] of signature sig's inputs or outputs in the generated header."""
    up = sig.upper()
    out = []
    for k in range(int(re.search(rf"#define M_{up}_NUM_{kind}S (\d+)", header).group(1))):
        name = re.search(rf'#define M_{up}_{kind}{k}_NAME "([^"]*)"', header).group(1)
        dtype = int(re.search(rf"#define M_{up}_{kind}{k}_DTYPE (\d+)", header).group(1))
        dims = [int(d) for d in re.search(rf"#define M_{up}_{kind}{k}_DIMS \{{([^}}]*)\}}", header).group(1).split(",")]
        out.append((name, dtype, dims))
    return out


class MpccDecoder:
    def __init__(self, so, header, weights_path, prefill, rng):
        self.lib = lib = ctypes.CDLL(so)
        lib.llm_arena_bytes.restype = lib.llm_weights_bytes.restype = ctypes.c_size_t
        lib.llm_init.argtypes = [ctypes.c_void_p]
        lib.llm_prefill.restype = lib.llm_decode.restype = ctypes.c_int64
        lib.llm_prefill.argtypes = [ctypes.c_void_p] * 4
        lib.llm_decode.argtypes = [ctypes.c_void_p] * 5 + [ctypes.c_long]
        self.arena = aligned(int(lib.llm_arena_bytes()))
        self.weights = None
        if weights_path:
            n = int(lib.llm_weights_bytes())
            self.weights = aligned(n)
            self.weights[:] = np.fromfile(weights_path, dtype=np.uint8, count=n)
        lib.llm_init(self.arena.ctypes.data)
        self.bufs = {}
        self.io = {}
        for sig in (prefill, "decode"):
            ins, outs = signature_io(header, sig, "INPUT"), signature_io(header, sig, "OUTPUT")
            in_arrs = [self.buffer(sig, n, bench.HDR_DTYPES[t], d, rng) for n, t, d in ins]
            out_arrs = [self.bufs[n] if CACHE.match(n) else np.zeros(d, bench.HDR_DTYPES[t]) for n, t, d in outs]
            self.io[sig] = (pointers(in_arrs), pointers(out_arrs), dict(zip([n for n, _, _ in ins], in_arrs)),
                            dict(zip([n for n, _, _ in outs], out_arrs)))
        self.prefill = prefill

    def buffer(self, sig, name, dtype, dims, rng):
        if CACHE.match(name):
            return self.bufs.setdefault(name, np.zeros(dims, dtype))
        if name == "input_pos":
            return np.zeros(dims, dtype)
        return rng.integers(0, 256, dims).astype(dtype)  # tokens (below the tiny vocabulary)

    def run_prefill(self, tokens):
        ins, outs, named, _ = self.io[self.prefill]
        named["tokens"][:] = tokens
        named["input_pos"][:] = np.arange(named["input_pos"].size)
        for c in self.bufs.values():
            c[:] = 0
        w = self.weights.ctypes.data if self.weights is not None else None
        return self.lib.llm_prefill(ins, outs, self.arena.ctypes.data, w)

    def run_decode(self, token, pos, n):
        ins, outs, named, _ = self.io["decode"]
        named["tokens"][:] = token
        named["input_pos"][:] = pos
        w = self.weights.ctypes.data if self.weights is not None else None
        return self.lib.llm_decode(ins, outs, self.arena.ctypes.data, w,
                                   named["input_pos"].ctypes.data_as(ctypes.POINTER(ctypes.c_int32)), n)

    def logits(self):
        return self.io["decode"][3]["logits"]


def aligned(n, align=64):
    raw = np.zeros(n + align, np.uint8)
    off = (-raw.ctypes.data) % align
    return raw[off:off + n]


def pointers(arrays):
    arr = (ctypes.c_void_p * max(1, len(arrays)))()
    for i, a in enumerate(arrays):
        arr[i] = a.ctypes.data
    arr._keep = arrays
    return arr


class TfliteDecoder:
    def __init__(self, path, threads=1):
        self.interp = load_tflite(path, threads)
        sigs = list(self.interp.get_signature_list())
        self.prefill = next((s for s in sigs if s.startswith("prefill")), None)
        if self.prefill is None or "decode" not in sigs:
            raise BenchError(f"{path}: no prefill_N and decode signatures (has {sigs})")
        self.pre = self.interp.get_signature_runner(self.prefill)
        self.dec = self.interp.get_signature_runner("decode")
        self.caches = {n: np.zeros(d["shape"], d["dtype"]) for n, d in self.dec.get_input_details().items()
                       if CACHE.match(n)}
        self.plen = self.pre.get_input_details()["tokens"]["shape"][-1]
        self.threads = threads

    def first(self, tokens, token, pos):
        """Prefill then one decode step through the runners (allocates; carries the caches): logits."""
        out = self.pre(tokens=tokens.reshape(1, -1).astype(np.int32), input_pos=np.arange(self.plen, dtype=np.int32),
                       **self.caches)
        caches = {n: out[n] for n in self.caches}
        out = self.dec(tokens=np.array([[token]], np.int32), input_pos=np.array([pos], np.int32), **caches)
        return out["logits"].reshape(-1)

    def timers(self):
        w = self.pre._interpreter_wrapper
        sp, sd = self.pre._subgraph_index, self.dec._subgraph_index
        pos = self.dec._inputs["input_pos"]
        clock = time.thread_time_ns if self.threads == 1 else time.perf_counter_ns

        def prefill():
            t0 = clock()
            w.Invoke(sp)
            return clock() - t0

        def decode(p0, n):
            t = 0
            for i in range(n):
                w.SetTensor(pos, np.array([p0 + i], np.int32), sd)
                t0 = clock()
                w.Invoke(sd)
                t += clock() - t0
            return t
        return prefill, decode


def bench_model(label, path, args, builder, rng, threads):
    tf = TfliteDecoder(path, threads)
    prefill = tf.prefill
    flags = shlex.split(args.mpcc_flags) + (["--threads", str(threads)] if threads > 1 else [])
    entry = "_run_parallel" if threads > 1 else "_run"
    so, header, weights = builder.model_library("llm_" + label + (f"_t{threads}" if threads > 1 else ""),
                                                 path, flags, "auto", "llm_shim.c",
                                                 (f"LLM_PREFILL=m_{prefill}{entry}", f"LLM_DECODE=m_decode{entry}") +
                                                 ((f"LLM_THREADS={threads}", "LLM_WALL=1") if threads > 1 else ()))
    mp = MpccDecoder(so, header, weights, prefill, rng)
    ops, total, _ = xnnpack_coverage(tf.interp)  # subgraph 0 (the prefill) only: Python sees no other plan
    plen = tf.plen
    tokens = rng.integers(0, 256, plen)
    token = int(rng.integers(0, 256))
    ref = tf.first(tokens, token, plen)
    if mp.run_prefill(tokens) < 0 or mp.run_decode(token, plen, 1) < 0:
        raise BenchError(f"{label}: the generated code returned an error")
    got = mp.logits().reshape(-1)
    err = float(np.max(np.abs(got - ref)) / max(float(np.max(np.abs(ref))), 1e-30))
    kv = max(d[1] for d in (c.shape for c in mp.bufs.values()))
    steps = args.steps or max(1, min(64, kv - plen))
    steps = min(steps, kv - plen)
    tf_prefill, tf_decode = tf.timers()
    times = {"mp_pre": [], "tf_pre": [], "mp_dec": [], "tf_dec": []}
    # Threads: let the other side's spinning workers stop (mpcc_pool spins ~5 ms) before a timed turn.
    pause = (lambda: time.sleep(0.02)) if threads > 1 else (lambda: None)
    t_start = time.time()
    gc.disable()
    try:
        for r in range(args.rounds):
            times["mp_pre"].append(mp.run_prefill(tokens))
            pause()
            times["tf_pre"].append(tf_prefill())
            pause()
            times["mp_dec"].append(mp.run_decode(token, plen, steps) / steps)
            pause()
            times["tf_dec"].append(tf_decode(plen, steps) / steps)
            pause()
            if r >= 2 and time.time() - t_start > args.budget:
                break
    finally:
        gc.enable()
    if min(min(v) for v in times.values()) < 0:
        raise BenchError(f"{label}: the generated code returned an error")
    med = {k: statistics.median(v) for k, v in times.items()}
    return dict(label=label, threads=threads, plen=plen, kv=kv, steps=steps, rounds=len(times["mp_pre"]), err=err,
                xnn=f"{ops}/{total}", **med)


def print_table(rows, skipped):
    say(f"{'model':<16} {'thr':>3} {'P':>3} {'KV':>5} {'xnn ops':>9} {'rel err':>8} | {'prefill ms':>10} {'XNN ms':>8} "
        f"{'XNN/mpcc':>8} | {'decode tok/s':>12} {'XNN tok/s':>9} {'XNN/mpcc':>8} | rounds x steps")
    for r in rows:
        say(f"{r['label']:<16} {r['threads']:>3} {r['plen']:>3} {r['kv']:>5} {r['xnn']:>9} {r['err']:>8.1e} | "
            f"{r['mp_pre'] / 1e6:>10.3f} {r['tf_pre'] / 1e6:>8.3f} {r['tf_pre'] / r['mp_pre']:>8.2f} | "
            f"{1e9 / r['mp_dec']:>12.1f} {1e9 / r['tf_dec']:>9.1f} {r['tf_dec'] / r['mp_dec']:>8.2f} | "
            f"{r['rounds']} x {r['steps']}")
    for label, why in skipped:
        say(f"{label:<16} skipped ({why})")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--models", default="", help="comma list: keep models whose label contains one of these")
    ap.add_argument("--rounds", type=int, default=9, help="interleaved rounds (default 9)")
    ap.add_argument("--steps", type=int, default=0, help="decode steps per round (default: up to 64)")
    ap.add_argument("--budget", type=float, default=120.0, help="seconds of timing per model, after 3 rounds")
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--mpcc-flags", default="", help="extra flags for mpcc")
    ap.add_argument("--mpcc", default=bench.MPCC, help="the compiler (default build/mpcc; another build for a before/after)")
    ap.add_argument("--cflags", default="-O3 -march=native -std=c99")
    ap.add_argument("--cc", default=os.environ.get("CC", "cc"))
    ap.add_argument("--threads", default="1,2",
                    help="comma list of thread counts of both sides, a row each (default 1,2; above 1: wall time)")
    args = ap.parse_args(bench.glue_values(sys.argv[1:] if argv is None else argv, ("--mpcc-flags", "--cflags")))
    bench.MPCC = bench_build.MPCC = os.path.abspath(args.mpcc)  # the builder reads bench_build's
    seed = args.seed if args.seed is not None else int(os.environ.get("MPCC_SEED", time.time_ns() % 2**31))
    try:
        thread_counts = [int(t) for t in args.threads.split(",") if t]
    except ValueError:
        ap.error(f"--threads: a comma list of thread counts, not {args.threads!r}")
    if not thread_counts or min(thread_counts) < 1:
        ap.error(f"--threads: a comma list of thread counts of at least 1, not {args.threads!r}")
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    say(f"mpcc decoder benchmark on {bench._cpu_name()} ({os.cpu_count()} CPUs, load average {load:.2f}), threads "
        f"{','.join(map(str, thread_counts))} (1: per-thread CPU time; more: wall time), seed {seed}")
    rng = np.random.default_rng(seed)
    builder = Builder(args.cc, args.cflags)
    keep = [k for k in args.models.split(",") if k]
    rows, skipped, failed = [], [], 0
    for label, rel, hint in MODELS:
        if keep and not any(k in label for k in keep):
            continue
        path = os.path.join(ROOT, rel)
        if not os.path.exists(path):
            skipped.append((label, f"not found: {rel}" + (f"; {hint}" if hint else "")))
            continue
        for threads in thread_counts:
            try:
                rows.append(bench_model(label, path, args, builder, rng, threads))
                r = rows[-1]
                say(f"  {label}, {threads} thread{'s' if threads > 1 else ''}: prefill {r['mp_pre'] / 1e6:.3f} ms "
                    f"(XNN {r['tf_pre'] / 1e6:.3f}), decode {1e9 / r['mp_dec']:.1f} tok/s (XNN {1e9 / r['tf_dec']:.1f})")
            except BenchError as e:
                say(f"  {label}, {threads} threads: {e}")
                skipped.append((f"{label} t{threads}", e.short))
                failed += 1
    say()
    print_table(rows, skipped)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
