"""Regenerate the whole model zoo: every family script, each in its own fresh process.

    python tools/models/make_all.py [--big] [--only digits ops ...] [-j N]

A fresh process per family keeps Keras' global state (layer-name counters, RNGs) from leaking
between families, so each family's files depend on its own script only. --big also makes the
large on-demand models into build/models/ (not committed).
"""

import argparse
import os
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
FAMILIES = ["digits", "ops", "mlp", "cnn", "resnet", "mobilenetv2", "bert", "vit", "lstm", "lstm_ln", "dynamic", "custom", "sparse", "streaming", "svdf", "control_flow", "int16", "hybrid", "guard", "mediapipe", "kws", "signatures", "deep", "patch"]
TOTAL_LIMIT = 15 << 20


def run_family(name, big):
    cmd = [sys.executable, os.path.join(HERE, f"{name}.py")] + (["--big"] if big else [])
    t = time.time()
    p = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    log = "\n".join(line for line in (p.stdout + p.stderr).splitlines()
                    if line.startswith(("  ", "FAIL", "SKIP", "Traceback", "digits", "Error"))
                    or p.returncode != 0)
    return name, p.returncode, time.time() - t, log


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--big", action="store_true", help="also make the large models in build/models/")
    ap.add_argument("--only", nargs="+", choices=FAMILIES + ["family"], help="just these families")
    ap.add_argument("-j", type=int, default=2, help="families to run at once")
    args = ap.parse_args()

    # family.py writes the held-out-style survey models into build/models/family/ (docs/generalization.md):
    # with the large models only.
    families = args.only or FAMILIES + (["family"] if args.big else [])
    failed = []
    with ThreadPoolExecutor(max_workers=max(1, args.j)) as pool:
        for name, rc, secs, log in pool.map(lambda f: run_family(f, args.big), families):
            print(f"== {name}: {'ok' if rc == 0 else f'FAILED (exit {rc})'} in {secs:.0f}s")
            if log:
                print(log)
            if rc != 0:
                failed.append(name)

    committed = [os.path.join(d, f) for d in (os.path.join(ROOT, "tests", "models"), os.path.join(ROOT, "samples", "digits"))
                 if os.path.isdir(d) for f in os.listdir(d) if f.endswith(".tflite")]
    total = sum(os.path.getsize(f) for f in committed)
    print(f"{len(committed)} committed models, {total / (1 << 20):.2f} MiB in all (limit {TOTAL_LIMIT >> 20} MiB)")
    if total > TOTAL_LIMIT:
        print("FAIL: committed models exceed the size limit")
        failed.append("size")
    if failed:
        print("failed: " + ", ".join(failed))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
