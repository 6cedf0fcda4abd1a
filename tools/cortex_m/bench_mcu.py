"""`make bench-mcu`: instructions retired per inference, flash and RAM of mpcc's C on Cortex-M
boards under QEMU (not a test; docs/cortex-m.md shows a table).

    python tools/cortex_m/bench_mcu.py [--boards m4,m55] [--models person_detect,...] [--opt -O2] [--profile]

Instructions: a TCG plugin (tools/cortex_m/insn_count.c, built against qemu-plugin.h from
Debian's qemu source package, fetched with apt-get source into build/mcu/qemu-src) counts every
guest instruction; one inference is the difference between programs that run the model 2N and N
times (start-up, input set-up and printing cancel out). Instructions, not cycles: QEMU does not
model timing. Flash: .text + .rodata + .data of the program (the model's weights included; the
test harness and libc are a few KB of it). RAM: the arena (.bss) + the stack high-water mark
measured on the board (startup.c paints the stack). --profile adds each row's instructions per
function (tools/cortex_m/insn_profile.c's block counts, mapped to symbols with nm).

The peer: with MCU_PEER_DIR (or --peer-dir) naming a folder of TensorFlow Lite Micro, CMSIS-NN,
flatbuffers, gemmlowp and ruy sources (tools/cortex_m/peer_tflm.py says which), each row also
gets TFLM + CMSIS-NN's program for the same model, board, compiler and flags, counted the same
way, and the ratio; without it the table says the peer columns are left out.
"""

import argparse
import glob
import os
import re
import subprocess
import sys
import tarfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT / "tests"))
import mcu  # noqa: E402
import peer_tflm  # noqa: E402

SHARED = ROOT.parent / "shared" / "models" / "tflm"
MODELS = {
    "person_detect": SHARED / "person_detect.tflite",
    "micro_speech": SHARED / "micro_speech_quantized.tflite",
    "mobilenetv2_0.35_int8": ROOT / "tests" / "models" / "mobilenetv2_int8.tflite",
    "keyword_svdf": SHARED / "keyword_scrambled.tflite",
}
SRC = mcu.BUILD / "qemu-src"
DEB_SRC = """Types: deb-src
URIs: http://deb.debian.org/debian
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
"""


def sh(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, **kw)


def plugin_header():
    """The directory holding qemu-plugin.h of the installed QEMU (Debian's source package)."""
    hdr = SRC / "qemu-plugin.h"
    if hdr.exists():
        return SRC
    SRC.mkdir(parents=True, exist_ok=True)
    if not any("deb-src" in Path(p).read_text(errors="replace")
               for p in glob.glob("/etc/apt/sources.list.d/*.sources") + glob.glob("/etc/apt/sources.list")):
        Path("/etc/apt/sources.list.d/mpcc-deb-src.sources").write_text(DEB_SRC)
        sh(["apt-get", "update", "-q"])
    version = sh(["dpkg-query", "-W", "-f=${source:Version}", "qemu-system-arm"]).stdout.strip()
    proc = sh(["apt-get", "source", "--download-only", f"qemu={version}" if version else "qemu"], cwd=SRC)
    tars = sorted(SRC.glob("qemu_*.orig.tar.*"))
    if not tars:
        sys.exit(f"bench-mcu: apt-get source qemu failed:\n{proc.stdout[-1000:]}{proc.stderr[-2000:]}")
    with tarfile.open(tars[0]) as t:
        member = next(m for m in t.getmembers() if m.name.endswith("include/qemu/qemu-plugin.h"))
        hdr.write_bytes(t.extractfile(member).read())
    return SRC


def plugin(name="insn_count"):
    so = mcu.BUILD / f"{name}.so"
    src = HERE / f"{name}.c"
    if so.exists() and so.stat().st_mtime >= src.stat().st_mtime:
        return so
    inc = plugin_header()
    proc = sh(["cc", "-std=c99", "-O2", "-Wall", "-Wextra", "-Werror", "-shared", "-fPIC", "-I", str(inc),
               "-o", str(so), str(src)])
    if proc.returncode != 0:
        sys.exit(f"bench-mcu: building the plugin failed:\n{proc.stderr}")
    return so


def count(board, elf, so):
    proc, result = mcu.run(board, elf, timeout=1800, plugin=so)
    m = re.search(r"^insns (\d+)$", proc.stderr, re.M)
    if result is None or not m:
        sys.exit(f"bench-mcu: {elf} failed under QEMU: {proc.stdout[-1000:]}{proc.stderr[-1000:]}")
    return int(m.group(1)), result


def bench_mpcc(name, model, board, opt, so, runs):
    from oracle import draw_inputs, load
    work = mcu.BUILD / "bench" / f"{name}-{board}{opt}"
    work.mkdir(parents=True, exist_ok=True)
    isa = mcu.BOARDS[board][4]
    proc = sh([str(ROOT / "build" / "mpcc"), str(model), "-o", str(work / "model.c"), "--name", "model",
               "--isa", isa, opt])
    if proc.returncode != 0:
        sys.exit(f"bench-mcu: mpcc {model} failed: {proc.stderr}")
    inputs = draw_inputs(model, 1)
    n_out = len(load(model).get_output_details())
    counts = []
    for r in (runs, 2 * runs):
        proc, elf = mcu.build(board, work, inputs, n_out, runs=r)
        if proc.returncode != 0:
            sys.exit(f"bench-mcu: build for {board} failed:\n{proc.stderr[-3000:]}")
        n, result = count(board, elf, so)
        counts.append(n)
    flash, static_ram = mcu.size(elf)
    per = (counts[1] - counts[0]) / runs
    return {"insns": per, "flash": flash, "arena": result["arena"], "stack": result["stack"],
            "static_ram": static_ram - result["stack_size"]}


def profile(name, model, board, opt, runs, top=12):
    """Per-function instructions of one inference (insn_profile.c's block counts of the programs
    running the model 2N and N times, mapped to symbols with nm): [(instructions, symbol)]."""
    so = plugin("insn_profile")
    work = mcu.BUILD / "bench" / f"{name}-{board}{opt}"
    per = {}
    for sign, r in ((-1, runs), (1, 2 * runs)):
        elf = work / f"model-{board}{'-r%d' % r if r != 1 else ''}.elf"
        syms = []
        for line in sh(["arm-none-eabi-nm", "-S", "--defined-only", str(elf)]).stdout.splitlines():
            f = line.split()
            if len(f) == 4 and f[2] in "tTwW":
                syms.append((int(f[0], 16) & ~1, int(f[1], 16), f[3]))
        syms.sort()
        proc = sh(mcu.qemu_cmd(board, elf, so), timeout=1800)
        for pc, n in re.findall(r"^pc ([0-9a-f]+) (\d+)$", proc.stderr, re.M):
            pc = int(pc, 16)
            sym = next((s for a, size, s in syms if a <= pc < a + max(size, 1)), f"0x{pc:x}")
            per[sym] = per.get(sym, 0) + sign * int(n)
    return sorted(((n / runs, s) for s, n in per.items() if n), reverse=True)[:top]


def bench_peer(name, model, board, so, runs, root):
    """TFLite Micro + CMSIS-NN's figures for the same model and board (peer_tflm.py)."""
    from oracle import draw_inputs
    work = mcu.BUILD / "bench" / f"peer-{name}-{board}"
    inputs = draw_inputs(model, 1)
    counts = []
    for r in (runs, 2 * runs):
        proc, elf = peer_tflm.build(board, name, model, work, inputs, r, root)
        if elf is None or proc.returncode != 0:
            sys.exit(f"bench-mcu: the peer's build for {name} on {board} failed:\n{proc.stderr[-3000:]}")
        n, result = count(board, elf, so)
        counts.append(n)
    flash, _ = mcu.size(elf)
    return {"insns": (counts[1] - counts[0]) / runs, "flash": flash, "arena": result["arena"],
            "stack": result["stack"], "out": result["out"]}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--boards", default="m4,m55")
    ap.add_argument("--models", default="person_detect,micro_speech,mobilenetv2_0.35_int8")
    ap.add_argument("--opt", default="-O2", help="mpcc's -O level (-O0: reference kernels only)")
    ap.add_argument("--runs", type=int, default=1, help="N: inferences = (count(2N) - count(N)) / N")
    ap.add_argument("--profile", action="store_true", help="also print each row's instructions per function")
    ap.add_argument("--peer-dir", default=None, help="TFLM + CMSIS-NN sources (default: $MCU_PEER_DIR)")
    a = ap.parse_args(argv)
    peer = peer_tflm.peer_dir(a.peer_dir)
    why = mcu.toolchain(peer=bool(peer))
    if why:
        sys.exit(f"bench-mcu: {why}")
    so = plugin()
    rows = []
    print("Instructions retired per inference under QEMU (TCG plugin), not cycles; "
          "arm-none-eabi-gcc -O2, -mthumb -mcpu=<core> -mfloat-abi=hard")
    if peer:
        print(f"Peer: TFLite Micro + CMSIS-NN from {peer} (peer_tflm.py), same board, compiler, flags and inputs")
        print(f"| model | board | mpcc {a.opt} instructions | TFLM+CMSIS-NN | ratio | MACs | instr/MAC | "
              "flash B mpcc / TFLM | arena B mpcc / TFLM | stack B mpcc / TFLM |")
        print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    else:
        print("Peer columns left out: MCU_PEER_DIR (or --peer-dir) does not name the TFLite Micro + CMSIS-NN "
              "sources (tools/cortex_m/peer_tflm.py)")
        print(f"| model | board | mpcc {a.opt} instructions | MACs | instr/MAC | flash B | arena B | stack B |")
        print("|---|---|---:|---:|---:|---:|---:|---:|")
    for name in a.models.split(","):
        model = MODELS[name]
        macs = model_macs(model)
        for board in a.boards.split(","):
            r = bench_mpcc(name, model, board, a.opt, so, a.runs)
            rows.append((name, board, r))
            if a.profile:
                for n, sym in profile(name, model, board, a.opt, a.runs):
                    print(f"    {n / 1e6:8.3f} M  {sym}", flush=True)
            if peer and name in peer_tflm.OPS:
                q = bench_peer(name, model, board, so, a.runs, peer)
                print(f"| {name} | {board} ({mcu.BOARDS[board][0]}) | {r['insns'] / 1e6:.2f} M | "
                      f"{q['insns'] / 1e6:.2f} M | {r['insns'] / q['insns']:.2f}x | {macs / 1e6:.2f} M | "
                      f"{r['insns'] / macs:.2f} | {r['flash']:,} / {q['flash']:,} | {r['arena']:,} / {q['arena']:,} | "
                      f"{r['stack']:,} / {q['stack']:,} |", flush=True)
                continue
            print(f"| {name} | {board} ({mcu.BOARDS[board][0]}) | {r['insns'] / 1e6:.2f} M | {macs / 1e6:.2f} M | "
                  f"{r['insns'] / macs:.2f} | {r['flash']:,} | {r['arena']:,} | {r['stack']:,} |", flush=True)
    return 0


def model_macs(model):
    """MACs of the model, from --report (it lists the MACs of the ops that run optimized kernels
    and every kind's share of the total)."""
    proc = sh([str(ROOT / "build" / "mpcc"), str(model), "-o", os.devnull, "--report"])
    listed = sum(int(m) for m in re.findall(r" MACs (\d+)$", proc.stdout, re.M))
    share = sum(float(p) for k, p in re.findall(r"^  (\S+) +\d+ ops, +([0-9.]+)% of MACs", proc.stdout, re.M)
                if k != "ref")
    return listed * 100.0 / share if share > 0 else 1


if __name__ == "__main__":
    sys.exit(main())
