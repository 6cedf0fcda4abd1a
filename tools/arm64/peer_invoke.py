"""Runs one model in TFLite (ai-edge-litert, XNNPACK, 1 thread) inside an arm64 CPython under
qemu-aarch64, for tools/arm64/bench_a64.py (the peer's column; not run by the host's Python).

    python3.11 peer_invoke.py MODEL N IN0.bin [IN1.bin ...]

Sets the inputs from the files (raw bytes, as the mpcc harness reads them), invokes twice to warm
up (XNNPACK finishes its set-up in the first invocations), then marks (lseek(-1, MPCC_MARK, 0),
tools/cross/insn_plugin.h), invokes N times and marks again: the counting plugin reports the
instructions retired so far at each mark, so the start-up of Python and TFLite is left out.
Prints each output's first bytes (a check that it ran) and the address where the TFLite library
is loaded (for --profile: "lib ADDR PATH").
"""

import os
import sys

import numpy as np
from ai_edge_litert.interpreter import Interpreter

MARK = 0x6D706363


def mark():
    try:
        os.lseek(-1, MARK, os.SEEK_SET)
    except OSError:
        pass


def main():
    model, n, files = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
    it = Interpreter(model_path=model, num_threads=1)
    it.allocate_tensors()
    details = it.get_input_details()
    if len(files) != len(details):
        sys.exit(f"peer_invoke: {len(details)} inputs, {len(files)} files")
    for d, f in zip(details, files):
        it.set_tensor(d["index"], np.fromfile(f, dtype=d["dtype"]).reshape(d["shape"]))
    for _ in range(2):
        it.invoke()
    mark()
    for _ in range(n):
        it.invoke()
    mark()
    for d in it.get_output_details():
        print("out", it.get_tensor(d["index"]).tobytes()[:8].hex())
    with open("/proc/self/maps") as maps:
        for line in maps:
            if "libpywrap_litert_common" in line and " 00000000 " in line:
                print("lib", line.split("-")[0], line.split()[-1])
                break


if __name__ == "__main__":
    main()
