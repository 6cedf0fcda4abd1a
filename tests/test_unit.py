"""Runs the C unit tests (tests/unit/test_*.c, built by `make unit` under ASan+UBSan)."""

import subprocess

import pytest

from mpcc_paths import BUILD_DIR, ROOT

UNITS = sorted((ROOT / "tests" / "unit").glob("test_*.c"))


@pytest.mark.parametrize("src", UNITS, ids=lambda p: p.stem)
def test_unit(src):
    exe = BUILD_DIR / "unit" / src.stem
    assert exe.exists(), f"{exe} not built (run `make unit`)"
    proc = subprocess.run([str(exe)], capture_output=True, text=True, timeout=600)
    print(proc.stdout[-5000:])
    fails = [l for l in proc.stdout.splitlines() if l.startswith("FAIL")]
    passes = [l for l in proc.stdout.splitlines() if l.startswith("PASS")]
    print(f"{src.stem}: {len(passes)} checks passed, {len(fails)} failed")
    assert proc.returncode == 0 and not fails, "\n".join(fails) + proc.stderr[-3000:]
    skips = [l for l in proc.stdout.splitlines() if l.startswith("SKIP")]
    if not passes and skips:  # e.g. test_jit on a machine without NVRTC: skipped, not passed
        pytest.skip("; ".join(skips))
    assert passes, "the unit test reported no checks"
