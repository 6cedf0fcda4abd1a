"""libFuzzer targets (tests/fuzz/fuzz_*.c): build them, replay every committed crash repro in
tests/fuzz/regress/<target>/ (none may crash), and fuzz each target briefly from the model zoo.

MPCC_FUZZ_SECONDS sets the smoke run per target (default 20; 0 skips it). Its libFuzzer seed comes from
the session seed (MPCC_SEED) and is printed: MPCC_SEED=N replays the same mutation sequence. Known bugs
inside op files (tests/fuzz/known_op_bugs.txt) are expected failures until their owners fix them (strict:
a repro that stops failing fails the run, so its line must go); the smoke run skips the interpreter for
graphs holding those ops so that it can look for new bugs meanwhile.
`make fuzz FUZZ_SECONDS=N` is the long run (MPCC_SEED=N seeds it too)."""

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from mpcc_paths import BUILD_DIR, MODELS_DIR, ROOT, SAMPLES_DIR, shared_models

# one pytest-xdist worker runs this module: its module fixtures build once
pytestmark = pytest.mark.xdist_group("fuzz")

FUZZ_DIR = ROOT / "tests" / "fuzz"
TARGETS = ["fuzz_fb", "fuzz_import", "fuzz_compile"]
SECONDS = int(os.environ.get("MPCC_FUZZ_SECONDS", "20"))
RUN_FLAGS = ["-rss_limit_mb=2048", "-max_len=4194304", "-timeout=30"]


def known_bugs():
    """[(target, repro path, op name, description)] from known_op_bugs.txt."""
    rows = []
    for line in (FUZZ_DIR / "known_op_bugs.txt").read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            target, repro, op, what = line.split("\t", 3)
            rows.append((target, (ROOT / repro).resolve(), op, what))
    return rows


KNOWN = known_bugs()
KNOWN_REPROS = {(t, p): f"{op}: {what}" for t, p, op, what in KNOWN}


def env():
    return dict(os.environ, ASAN_OPTIONS="detect_leaks=1:abort_on_error=0", UBSAN_OPTIONS="print_stacktrace=1",
                MPCC_FUZZ_SKIP_INTERP_OPS=",".join(sorted({op for _, _, op, _ in KNOWN})))


@pytest.fixture(scope="module")
def fuzzers():
    if shutil.which("clang") is None:
        pytest.skip("clang is not installed")
    p = subprocess.run(["make", "-C", str(ROOT), "-j2", "fuzz-build"], capture_output=True, text=True)
    assert p.returncode == 0, f"make fuzz-build failed\n{p.stdout[-3000:]}\n{p.stderr[-3000:]}"
    return {t: BUILD_DIR / "fuzz" / t for t in TARGETS}


def replay_cases():
    cases = []
    for t in TARGETS:
        for f in sorted((FUZZ_DIR / "regress" / t).glob("*")):
            if f.is_file():
                cases.append((t, f.resolve()))
    for t, p, _, _ in KNOWN:
        if (t, p) not in cases and p.is_file():
            cases.append((t, p))
    params = []
    for t, f in cases:
        marks = []
        if (t, f) in KNOWN_REPROS:
            marks.append(pytest.mark.xfail(reason=f"known op bug: {KNOWN_REPROS[(t, f)]}", strict=True))
        params.append(pytest.param(t, f, id=f"{t}/{f.name}", marks=marks))
    return params


@pytest.mark.parametrize("target,repro", replay_cases())
def test_replay(fuzzers, target, repro):
    e = env()
    if (target, repro) in KNOWN_REPROS:
        e.pop("MPCC_FUZZ_SKIP_INTERP_OPS")  # the repro must show the bug until it is fixed
    p = subprocess.run([str(fuzzers[target]), *RUN_FLAGS, str(repro)], capture_output=True, text=True, env=e,
                       timeout=300)
    assert p.returncode == 0, f"{target} crashes on {repro}\n{p.stderr[-6000:]}"


def seeds():
    return sorted(MODELS_DIR.glob("*.tflite")) + sorted((SAMPLES_DIR / "digits").glob("*.tflite")) + shared_models()


@pytest.mark.skipif(SECONDS <= 0, reason="MPCC_FUZZ_SECONDS=0")
@pytest.mark.parametrize("target", TARGETS)
def test_smoke_fuzz(fuzzers, target, seed):
    fuzz_seed = seed % (1 << 31) or 1  # libFuzzer takes 0 as "pick one"
    base = BUILD_DIR / "fuzz" / "smoke" / target
    shutil.rmtree(base, ignore_errors=True)
    corpus, artifacts = base / "corpus", base / "artifacts"
    corpus.mkdir(parents=True)
    artifacts.mkdir()
    for i, s in enumerate(seeds()):
        shutil.copy(s, corpus / f"seed{i:04d}_{s.name}")
    cmd = [str(fuzzers[target]), *RUN_FLAGS, f"-seed={fuzz_seed}", f"-max_total_time={SECONDS}",
           f"-artifact_prefix={artifacts}/", "-print_final_stats=1", str(corpus)]
    print(f"{target}: libFuzzer -seed={fuzz_seed}")
    p = subprocess.run(cmd, capture_output=True, text=True, env=env(), timeout=SECONDS + 600)
    found = sorted(artifacts.glob("*"))
    stats = [l for l in p.stderr.splitlines() if l.startswith("stat::number_of_executed_units")]
    print(f"{target}: {stats[-1] if stats else 'no stats'}")
    assert p.returncode == 0 and not found, (
        f"{target} found a bug in {SECONDS} s with -seed={fuzz_seed}: {[str(f) for f in found]}\n"
        f"reproduce: {fuzzers[target]} ARTIFACT; then copy it into tests/fuzz/regress/{target}/\n{p.stderr[-6000:]}")
