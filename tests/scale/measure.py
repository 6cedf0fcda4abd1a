"""Scale measurements for mpcc (issue 13): `make scale`, or
    .venv/bin/python tests/scale/measure.py [--bert PATH] [--skip-bert]

Prints one line per measurement: wall time and peak RSS of each mpcc run, for
- chains of 2k/10k/50k/250k ADDs and sets of 2k/10k/50k/125k tensors live at once, and gcc -O2
  on the 10k-op chain's C;
- 10^6 ops (refused) and an arena beyond the address space (refused);
- BERT-base f32 (build/models/bert_base_f32.tflite, from `make models MODELS_BIG=1`): compile
  with --weights file (time, peak RSS against the model file's size) and with --weights embed
  (refused above 64 MiB), gcc -O2 build of the generated C, a run checked with
  model_check_weights and compared with TFLite under the float rule of tests/compare.py.
Nothing here is part of `make test`: it takes minutes (BERT through TFLite and portable C).
"""

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT / "tests"))

import fbgraph  # noqa: E402

MPCC = ROOT / "build" / "mpcc"
GEN_FLAGS = ["-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic"]


def measure(cmd):
    """(exit status, seconds, peak RSS in MB, stderr) of one command. The peak comes from GNU
    time when installed: a forked child's own ru_maxrss starts at its parent's (this script's)."""
    gnu_time = Path("/usr/bin/time")
    with tempfile.NamedTemporaryFile("r", suffix=".rss") as rss_file:
        pre = [gnu_time, "-q", "-f", "%M", "-o", rss_file.name] if gnu_time.exists() else []
        t = time.time()
        p = subprocess.Popen([str(c) for c in pre + list(cmd)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        err = p.stderr.read().decode(errors="replace")
        _, status, usage = os.wait4(p.pid, 0)
        secs = time.time() - t
        kb = int(rss_file.read().split()[-1]) if pre else usage.ru_maxrss
    return os.waitstatus_to_exitcode(status), secs, kb / 1024.0, err


def line(what, rc, secs, rss, extra=""):
    print(f"{what:<48} exit {rc}  {secs:7.2f} s  {rss:8.1f} MB peak RSS  {extra}", flush=True)


def graphs(work):
    cases = [("chain", n) for n in (2000, 10000, 50000, 250000)] + \
            [("live", n) for n in (2000, 10000, 50000, 124999)]
    for kind, n in cases:
        model = work / f"{kind}{n}.tflite"
        model.write_bytes(fbgraph.chain(n) if kind == "chain" else fbgraph.live_set(n))
        rc, secs, rss, err = measure([MPCC, model, "-o", work / "g.c"])
        c_mb = (work / "g.c").stat().st_size / 1e6 if rc == 0 else 0
        ops = n if kind == "chain" else 2 * n
        line(f"{kind} of {n} ({ops} ops)", rc, secs, rss, f"{c_mb:.0f} MB of C" + (f"; {err.strip()}" if rc else ""))
        if rc == 0 and ops == 10000:
            rc, secs, rss, err = measure(["gcc", *GEN_FLAGS, "-O2", "-I", ROOT / "runtime", "-I", work, "-c",
                                          work / "g.c", "-o", work / "g.o"])
            line(f"  gcc -O2 -c of its C ({ops // 512 + 1} functions)", rc, secs, rss, err[-200:])
    model = work / "chain1M.tflite"
    model.write_bytes(fbgraph.chain(999998))
    rc, secs, rss, err = measure([MPCC, model, "-o", work / "g.c"])
    line("chain of 999998 ops (refused)", rc, secs, rss, err.strip()[:110])
    model = work / "huge.tflite"
    model.write_bytes(fbgraph.live_set(20000, width=2**31 - 1))
    rc, secs, rss, err = measure([MPCC, model, "-o", work / "g.c"])
    line("20000 live tensors of 8 GB (refused)", rc, secs, rss, err.strip()[:110])


def bert(path, work):
    import numpy as np
    import oracle
    from compare import compare_arrays
    size = path.stat().st_size
    print(f"\n{path} ({size / 1e6:.1f} MB)")
    rc, secs, rss, err = measure([MPCC, path, "--name", "model", "-o", work / "embed.c"])
    line("mpcc --weights embed", rc, secs, rss, err.strip()[:100])
    rc, secs, rss, err = measure([MPCC, path, "--weights", "file", "--name", "model", "-o", work / "model.c"])
    line("mpcc --weights file", rc, secs, rss, f"{rss * 1048576 / size:.2f} x the model file")
    if rc:
        print(err)
        return
    blob = work / "model.weights.bin"
    print(f"  model.c {(work / 'model.c').stat().st_size / 1e3:.0f} KB, model.weights.bin {blob.stat().st_size / 1e6:.1f} MB")
    rt = sorted((ROOT / "runtime").glob("*.c")) + sorted((ROOT / "runtime" / "kernels").glob("*.c"))
    rc, secs, rss, err = measure(["gcc", *GEN_FLAGS, "-O2", "-I", ROOT / "runtime", "-I", work, "-c", work / "model.c",
                                  "-o", work / "model.o"])
    line("gcc -O2 -c model.c", rc, secs, rss, err[-300:])
    objs = []
    t = time.time()
    for s in rt:
        o = work / (s.stem + ".o")
        subprocess.run(["gcc", *GEN_FLAGS, "-O2", "-I", str(ROOT / "runtime"), "-c", str(s), "-o", str(o)], check=True)
        objs.append(o)
    print(f"{'gcc -O2 runtime (once per build)':<48}          {time.time() - t:7.2f} s")
    exe = work / "bert"
    n_out = 2
    rc, secs, rss, err = measure(["gcc", *GEN_FLAGS, "-O2", f"-DN_IN=2", f"-DN_OUT={n_out}",
                                  "-DOUT_BYTES=MODEL_OUTPUT0_BYTES,MODEL_OUTPUT1_BYTES", "-I", ROOT / "runtime", "-I", work,
                                  work / "model.o", HERE / "harness_weights.c", *objs, "-lm", "-o", exe])
    line("gcc -O2 harness + link", rc, secs, rss, err[-300:])
    inputs, refs = oracle.oracle(path, 13)
    args = [exe, "check", blob]
    for i, a in enumerate(inputs):
        p = work / f"in{i}.bin"
        np.ascontiguousarray(a).tofile(p)
        args.append(p)
    outs = [work / f"out{i}.bin" for i in range(n_out)]
    rc, secs, rss, err = measure(args + outs)
    line("run (check_weights + one inference, portable C)", rc, secs, rss)
    for i, r in enumerate(refs):
        got = np.fromfile(outs[i], dtype=r.dtype).reshape(r.shape)
        ok, msg = compare_arrays(r, got, mode="opt")
        print(f"  output {i} vs TFLite: {msg}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bert", type=Path, default=ROOT / "build" / "models" / "bert_base_f32.tflite")
    ap.add_argument("--skip-bert", action="store_true")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="mpcc-scale-", dir=ROOT / "build") as tmp:
        work = Path(tmp)
        graphs(work)
        if args.skip_bert:
            return 0
        if not args.bert.exists():
            print(f"\n{args.bert} is missing: `make models MODELS_BIG=1` makes it (needs TensorFlow)")
            return 0
        bert(args.bert, work)
    return 0


if __name__ == "__main__":
    sys.exit(main())
