"""The optimized kernels against the reference kernels (tests/unit/test_opt_kernels.c, the element-wise ops in
tests/unit/test_elementwise_kernels.c, the convolutions in
tests/unit/test_conv_kernels.c, the attention's in tests/unit/test_attention_kernels.c, the resizes' and f32 activations'
in tests/unit/test_cnn_ops_kernels.c, the int8 LSTM's in tests/unit/test_lstm_kernels.c, RMSNorm's in tests/unit/test_rms_norm.c, the hybrid FULLY_CONNECTED's in tests/unit/test_fc_hybrid.c, its and SDPA's split over a parallel-for in
tests/unit/test_fc_hybrid_par.c) and the 16-bit activation kernels against their f32 twins
(tests/unit/test_typed_kernels.c) with the vector paths compiled in: gcc -O3 -march=native, clang -O2
-march=native, and gcc -march=native under
ASan+UBSan (the AVX-512 paths' memory and alignment). (`make unit` runs the same checks on the portable
path under ASan+UBSan.)"""

import hashlib
import os
import subprocess
from concurrent.futures import ThreadPoolExecutor

import pytest

from mpcc_paths import BUILD_DIR, ROOT, BuildLock

INC = ["-Icompiler/passes", "-Iruntime", "-Itests/unit"]


UNITS = [("test_opt_kernels", 300), ("test_conv_kernels", 300), ("test_typed_kernels", 100),
         ("test_attention_kernels", 60), ("test_gemm16_kernels", 100), ("test_cnn_ops_kernels", 300),
         ("test_lstm_kernels", 200), ("test_fc_hybrid", 1), ("test_fc_hybrid_par", 1), ("test_rms_norm", 1000),
         ("test_fc_half_kernels", 80), ("test_elementwise_kernels", 300)]
BUILDS = [("gcc", "-O3"), ("clang", "-O2"), ("gcc", "-O1 -fsanitize=address,undefined -fno-sanitize-recover=all")]
# Every unit with gcc -O3 and gcc + ASan/UBSan; clang -O2 for test_opt_kernels in make test, for the
# others in make test-full (about a minute of CPU each).
CASES = [pytest.param(cc, opt, unit, n, marks=pytest.mark.full) if cc == "clang" and unit != "test_opt_kernels"
         else (cc, opt, unit, n) for unit, n in UNITS for cc, opt in BUILDS]
# RMSNorm built where the compiler contracts a * b + c (gcc's GNU mode): still the decomposition's bits.
CASES += [("gcc", "-O2 -ffp-contract=fast", "test_rms_norm", 1000)]
# The runtime built with -DRT_OPT_SMALL_STACK (no widened stack copies in the 16-bit kernels): its 16-bit units.
CASES += [("gcc", "-O2 -DRT_OPT_SMALL_STACK", unit, n) for unit, n in UNITS
          if unit in ("test_gemm16_kernels", "test_conv_kernels", "test_fc_half_kernels")]


@pytest.mark.parametrize("cc,opt,unit,min_checks", CASES)
def test_opt_kernels_native(cc, opt, unit, min_checks):
    flags = ["-std=c11", "-Wall", "-Wextra", "-Werror", *opt.split(), "-march=native", *INC, '-DMPCC_VERSION="test"']
    objs = _runtime_objects(cc, flags)
    exe = BUILD_DIR / "unit" / f"{unit}-{cc}-native{'-san' if 'sanitize' in opt else ''}"
    exe.parent.mkdir(parents=True, exist_ok=True)
    proc = subprocess.run([cc, *flags, "-o", str(exe), f"tests/unit/{unit}.c", *objs, "-lm"],
                          cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[-4000:]
    seed = os.environ.get("MPCC_SEED", "20261123")
    proc = subprocess.run([str(exe)], capture_output=True, text=True, timeout=600,
                          env=dict(os.environ, MPCC_SEED=seed))
    lines = proc.stdout.splitlines()
    print("\n".join(lines[:1] + lines[-1:]))
    fails = [l for l in lines if l.startswith("FAIL")]
    assert proc.returncode == 0 and not fails, "\n".join(fails[:20])
    assert sum(l.startswith("PASS") for l in lines) > min_checks


def _runtime_objects(cc, flags):
    """The runtime's objects (and the two packing files the units call) built once per compiler and flag set,
    shared by every unit of that build: cached under build/unit/rt-<hash>/, the hash over the flags and every
    source and header they can include, so a changed file rebuilds them."""
    srcs = ["compiler/passes/sched_pack.c", "compiler/passes/sched_float_rq.c"] + \
        [str(p.relative_to(ROOT)) for d in ("runtime", "runtime/kernels") for p in sorted((ROOT / d).glob("*.c"))]
    h = hashlib.sha256(repr((cc, flags)).encode())
    for d in ("runtime", "runtime/kernels", "runtime/arm64", "compiler/passes", "ir"):
        for p in sorted((ROOT / d).glob("*.[ch]")):
            h.update(p.name.encode() + b"\0" + p.read_bytes())
    out = BUILD_DIR / "unit" / f"rt-{h.hexdigest()[:16]}"
    objs = [out / (s.replace("/", "_")[:-2] + ".o") for s in srcs]
    with BuildLock(out.name):
        if not (out / "done").exists():
            out.mkdir(parents=True, exist_ok=True)

            def build(pair):
                src, obj = pair
                return subprocess.run([cc, *flags, "-c", "-o", str(obj), src], cwd=ROOT, capture_output=True, text=True)
            with ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
                for proc in pool.map(build, zip(srcs, objs)):
                    assert proc.returncode == 0, proc.stderr[-4000:]
            (out / "done").write_text("ok\n")
    return [str(o) for o in objs]
