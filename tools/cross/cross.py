"""What the cross-target tools share (tools/arm64/a64.py, tools/cortex_m/mcu.py): the runtime
built once per target into a static library with a cross compiler.
"""

import os
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path


def run_cmd(cmd, **kw):
    return subprocess.run([str(c) for c in cmd], capture_output=True, text=True, **kw)


def runtime_lib(out, runtime, dirs, cc, ar, flags, what, lock):
    """out/libmpccrt.a made of the .c files in runtime/<dir> for each of dirs ("" is runtime itself),
    each compiled by `cc *flags -pedantic -I runtime -c`, archived by ar; rebuilt when a source or
    header of those folders is newer. what names the target in an error; lock guards out."""
    out = Path(out)
    lib = out / "libmpccrt.a"
    srcs = [p for d in dirs for p in sorted((runtime / d).glob("*.c"))]
    hdrs = [p for d in dirs for p in (runtime / d).glob("*.h")]
    with lock:
        newest = max(p.stat().st_mtime for p in srcs + hdrs)
        if lib.exists() and lib.stat().st_mtime >= newest:
            return lib
        out.mkdir(parents=True, exist_ok=True)

        def compile_one(src):
            obj = out / (src.parent.name + "_" + src.stem + ".o")
            proc = run_cmd([cc, *flags, "-pedantic", "-I", runtime, "-c", src, "-o", obj])
            if proc.returncode != 0:
                raise RuntimeError(f"{cc} {src} for {what} failed:\n{proc.stderr[-3000:]}")
            return obj

        with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
            objs = list(pool.map(compile_one, srcs))
        tmp = out / "libmpccrt.a.tmp"
        tmp.unlink(missing_ok=True)
        proc = run_cmd([ar, "rcs", tmp, *objs])
        if proc.returncode != 0:
            raise RuntimeError(proc.stderr)
        tmp.replace(lib)
    return lib
