"""Building and loading mpcc's generated C for the benchmarks (tools/bench/bench.py, profile.py,
llm_bench.py): the runtime objects once per flag set, one shared library per model (cached by content
hash under build/bench/), and a ctypes wrapper that runs it on numpy inputs."""

import ctypes
import hashlib
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tests"))
from mpcc_paths import BuildLock  # noqa: E402  (build/bench/obj/ is shared with the test processes)

BUILD = os.path.join(ROOT, "build")
BENCH_DIR = os.path.join(BUILD, "bench")
MPCC = os.path.join(BUILD, "mpcc")

# Models above this size are compiled with --weights file (a multi-100-MB C array is slow to build).
EMBED_LIMIT = 16 << 20
CLOCK = time.perf_counter  # bench.py --cpu-time sets time.thread_time (1-thread batches)

# dtype codes of the generated header -> numpy
HDR_DTYPES = {0: np.float32, 1: np.float16, 2: np.uint16, 3: np.int8, 4: np.uint8, 5: np.int16,
              6: np.int32, 7: np.int64, 8: np.bool_}
SHORT = {"float32": "f32", "float16": "f16", "int8": "int8", "uint8": "uint8", "int16": "int16",
         "int32": "i32", "int64": "i64", "bool": "bool"}


class BenchError(Exception):
    """short: one line for the table; str(): the full message (command and its output)."""

    def __init__(self, msg, short=None):
        super().__init__(msg)
        self.short = short or (msg.strip().splitlines()[0] if msg.strip() else "error")


def say(msg=""):
    print(msg, flush=True)


# ------------------------------------------------------------------------------------ building

def run_quiet(cmd, what):
    """Run cmd; on failure raise BenchError with its output (trimmed)."""
    p = subprocess.run(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if p.returncode != 0:
        lines = p.stdout.strip().splitlines()
        if len(lines) > 40:
            lines = lines[:40] + [f"... ({len(lines) - 40} more lines)"]
        first = next((ln.strip() for ln in lines if "error" in ln),
                     next((ln.strip() for ln in lines if ln.strip()), ""))
        raise BenchError(f"{what} failed (exit {p.returncode}): {shlex.join(cmd)}\n" + "\n".join(lines),
                         f"{what}: {first}" if first else f"{what} failed (exit {p.returncode})")
    return p.stdout


class Builder:
    """Builds the runtime objects once per flag set (cached under build/bench/obj/HASH/) and one
    shared library per model (cached under build/bench/models/LABEL/ by content hash)."""

    def __init__(self, cc, cflags):
        self.cc = cc
        self.cflags = shlex.split(cflags)
        self.pic = self.cflags + ["-fPIC", "-fvisibility=hidden"]
        key = hashlib.sha256(repr((cc, self.pic)).encode()).hexdigest()[:12]
        self.obj_dir = os.path.join(BENCH_DIR, "obj", key)
        self.objs = None

    def runtime_objects(self):
        if self.objs is not None:
            return self.objs
        with BuildLock("bench-obj"):
            self.objs = self._runtime_objects()
        return self.objs

    def _runtime_objects(self):
        srcs = sorted(f for d in ("runtime", "runtime/kernels", "runtime/threads")
                      for f in _glob(os.path.join(ROOT, d), ".c"))
        hdr_mtime = max((os.path.getmtime(h) for d in ("runtime", "runtime/kernels", "runtime/threads")
                         for h in _glob(os.path.join(ROOT, d), ".h")), default=0)
        os.makedirs(self.obj_dir, exist_ok=True)
        todo, objs = [], []
        for src in srcs:
            rel = os.path.relpath(src, ROOT)
            obj = os.path.join(self.obj_dir, rel.replace("/", "__")[:-2] + ".o")
            objs.append(obj)
            if not os.path.exists(obj) or os.path.getmtime(obj) < max(os.path.getmtime(src), hdr_mtime):
                todo.append((src, obj))
        if todo:
            t0 = time.time()
            cmds = [[self.cc] + self.pic + ["-pthread", "-Iruntime", "-c", src, "-o", obj] for src, obj in todo]
            with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as ex:
                list(ex.map(lambda c: run_quiet(c, "compiling the runtime"), cmds))
            say(f"built {len(todo)} runtime objects in {time.time() - t0:.1f} s "
                f"({shlex.join(self.pic)})")
        return objs

    def model_library(self, label, model_path, mpcc_flags, weights_mode="auto", shim="shim.c", defines=()):
        """Compile model_path with mpcc and build LABEL's shared library. Returns (so path, header
        text, weights path or None). weights_mode: embed, file, or auto (file above EMBED_LIMIT).
        shim: the exported entry points (a file next to this one), compiled with -D defines."""
        out = os.path.join(BENCH_DIR, "models", label)
        os.makedirs(out, exist_ok=True)
        weights = weights_mode == "file" or (weights_mode == "auto" and os.path.getsize(model_path) > EMBED_LIMIT)
        gen = tempfile.mkdtemp(prefix="gen-", dir=out)
        try:
            cmd = [MPCC] + mpcc_flags + (["--weights", "file"] if weights else []) + \
                  [model_path, "-o", os.path.join(gen, "m.c"), "--name", "m", "--report"]
            self.last_report = run_quiet(cmd, "mpcc")
            files = ["m.c", "m.h"] + (["m.weights.bin"] if weights else [])
            h = hashlib.sha256(repr((self.cc, self.pic, weights, list(defines))).encode())
            for f in files[:2] + [os.path.join(HERE, shim)]:
                with open(os.path.join(gen, f) if not os.path.isabs(f) else f, "rb") as fh:
                    h.update(fh.read())
            stamp = h.hexdigest()
            so = os.path.join(out, "model.so")
            stamp_path = os.path.join(out, "stamp")
            newest_obj = max(os.path.getmtime(o) for o in self.runtime_objects())
            if weights:
                shutil.move(os.path.join(gen, "m.weights.bin"), os.path.join(out, "m.weights.bin"))
            fresh = (os.path.exists(so) and os.path.exists(stamp_path) and open(stamp_path).read() == stamp
                     and os.path.getmtime(so) >= newest_obj)
            if not fresh:
                for f in ("m.c", "m.h"):
                    shutil.move(os.path.join(gen, f), os.path.join(out, f))
                mo, sh = os.path.join(out, "m.o"), os.path.join(out, "shim.o")
                run_quiet([self.cc] + self.pic + ["-Iruntime", "-I" + out, "-c", os.path.join(out, "m.c"),
                                                  "-o", mo], "compiling the generated C")
                run_quiet([self.cc] + self.pic + ["-Iruntime", "-I" + out, '-DMPCC_BENCH_HEADER="m.h"'] +
                          ["-D" + d for d in defines] + ["-c", os.path.join(HERE, shim), "-o", sh],
                          "compiling the shim")
                run_quiet([self.cc] + self.pic + ["-shared", "-pthread", "-o", so + ".tmp", mo, sh] + self.objs + ["-lm"],
                          "linking the model library")
                os.replace(so + ".tmp", so)
                with open(stamp_path, "w") as f:
                    f.write(stamp)
            with open(os.path.join(out, "m.h")) as f:
                header = f.read()
            return so, header, (os.path.join(out, "m.weights.bin") if weights else None)
        finally:
            shutil.rmtree(gen, ignore_errors=True)

    def tool(self, name, extra_flags, with_runtime):
        src = os.path.join(HERE, f"{name}.c")
        exe = os.path.join(self.obj_dir, name)
        deps = [src] + (self.runtime_objects() if with_runtime else [])
        with BuildLock("bench-obj"):
            if not os.path.exists(exe) or os.path.getmtime(exe) < max(os.path.getmtime(d) for d in deps):
                run_quiet([self.cc] + extra_flags + ["-Iruntime", "-o", exe, src] +
                          (self.runtime_objects() if with_runtime else []) + ["-lm"], f"building {name}")
        return exe


def _glob(d, ext):
    return [os.path.join(d, f) for f in os.listdir(d) if f.endswith(ext)] if os.path.isdir(d) else []


# ------------------------------------------------------------------------------------ mpcc side

class MpccModel:
    def __init__(self, so, header, weights_path):
        self.lib = ctypes.CDLL(so)
        self.lib.bench_arena_bytes.restype = ctypes.c_size_t
        self.lib.bench_weights_bytes.restype = ctypes.c_size_t
        self.lib.bench_init.argtypes = [ctypes.c_void_p]
        self.lib.bench_run_n.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p,
                                         ctypes.c_long]
        self.lib.bench_run_n.restype = ctypes.c_int
        self.lib.bench_run_parallel_n.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p,
                                                  ctypes.c_long, ctypes.c_int]
        self.lib.bench_run_parallel_n.restype = ctypes.c_int
        self.inputs = _io_specs(header, "INPUT")
        self.outputs = _io_specs(header, "OUTPUT")
        self._keep = []
        self.arena = self._aligned(int(self.lib.bench_arena_bytes()))
        self.weights = None
        if weights_path:
            n = int(self.lib.bench_weights_bytes())
            self.weights = self._aligned(n)
            self.weights[:] = np.fromfile(weights_path, dtype=np.uint8, count=n)
        # inputs and outputs 64-byte aligned, as TFLite's own tensors are (its arena): numpy gives 16, and a model
        # whose first or last op is a convolution then loads or stores split cache lines
        self.out_arrays = [self._aligned_array(s["shape"], s["dtype"]) for s in self.outputs]
        self.in_ptrs = None
        self.out_ptrs = (ctypes.c_void_p * max(1, len(self.out_arrays)))(
            *[a.ctypes.data for a in self.out_arrays])

    def _aligned(self, n, align=64):
        buf = np.zeros(n + align, dtype=np.uint8)
        off = (-buf.ctypes.data) % align
        view = buf[off:off + n]
        self._keep.append(buf)
        return view

    def _aligned_array(self, shape, dtype):
        dt = np.dtype(dtype)
        n = int(np.prod(shape, dtype=np.int64)) * dt.itemsize
        return self._aligned(max(n, 1))[:n].view(dt).reshape(shape)

    def set_inputs(self, arrays):
        if len(arrays) != len(self.inputs):
            raise BenchError(f"mpcc model has {len(self.inputs)} inputs, TFLite {len(arrays)}")
        self.in_arrays = []
        for spec, a in zip(self.inputs, arrays):
            a = np.ascontiguousarray(a)
            if a.nbytes != spec["bytes"] or np.dtype(a.dtype).itemsize != np.dtype(spec["dtype"]).itemsize:
                raise BenchError(f"input {spec['name']!r}: mpcc wants {spec['bytes']} bytes of "
                                 f"{np.dtype(spec['dtype'])}, TFLite input is {a.dtype}{list(a.shape)}")
            aligned = self._aligned_array(a.shape, a.dtype)
            aligned[...] = a
            self.in_arrays.append(aligned)
        self.in_ptrs = (ctypes.c_void_p * max(1, len(self.in_arrays)))(*[a.ctypes.data for a in self.in_arrays])

    def init(self):
        self.lib.bench_init(self.arena.ctypes.data)

    def run(self, n=1):
        w = self.weights.ctypes.data if self.weights is not None else None
        rc = self.lib.bench_run_n(self.in_ptrs, self.out_ptrs, self.arena.ctypes.data, w, n)
        if rc != 0:
            raise BenchError(f"m_run returned {rc}")

    def batch_timer(self, threads=1):
        w = self.weights.ctypes.data if self.weights is not None else None
        perf = CLOCK if threads == 1 else time.perf_counter
        if threads > 1:
            def batch(k):
                t0 = perf()
                self.lib.bench_run_parallel_n(self.in_ptrs, self.out_ptrs, self.arena.ctypes.data, w, k, threads)
                return perf() - t0
            return batch
        fn, args = self.lib.bench_run_n, (self.in_ptrs, self.out_ptrs, self.arena.ctypes.data, w)

        def batch(k):
            t0 = perf()
            fn(*args, k)
            return perf() - t0
        return batch


def _io_specs(header, kind):
    specs = []
    for m in re.finditer(rf"#define M_{kind}(\d+)_BYTES (\d+)", header):
        i = int(m.group(1))
        dt = int(re.search(rf"#define M_{kind}{i}_DTYPE (\d+)", header).group(1))
        dims = re.search(rf"#define M_{kind}{i}_DIMS \{{([^}}]*)\}}", header)
        name = re.search(rf'#define M_{kind}{i}_NAME "((?:[^"\\]|\\.)*)"', header)
        shape = tuple(int(x) for x in dims.group(1).split(",") if x.strip()) if dims else ()
        specs.append({"name": name.group(1) if name else str(i), "dtype": HDR_DTYPES[dt], "shape": shape,
                      "bytes": int(m.group(2))})
    return specs
