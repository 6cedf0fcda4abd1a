"""Hostile strings in models (issue 8): names never reach generated C or the terminal unescaped.

The models are tests/hostile/*.tflite (made by tests/hostile/make_hostile.py): the digits sample with
one payload ("*/ ... /*", newline + #include, quotes, trigraphs, control bytes, ESC sequences,
invalid UTF-8, a 100 KB name, ...) planted in every tensor name, the signature names and key, the
description, the metadata names and the subgraph name; and tiny models whose CUSTOM operator carries
the payload (compiling them must fail with exit 1). Every payload holds a marker token MPCCPWN<n>.

For each model that compiles:
  - `mpcc MODEL -o m.c --name m` exits 0, and the ASan+UBSan build writes the same files, cleanly;
  - m.c and a probe that expands every M_*_NAME macro of m.h build with gcc and clang
    -std=c99 -Wall -Wextra -Werror -pedantic;
  - the preprocessed m.c and probe hold no marker as a code token (see code_identifiers);
  - the generated code, linked with runtime/, gives byte-identical outputs to the clean model's code
    on the same random input, and the NAME macros hold the signature names byte for byte;
  - m.c and m.h stay within 2x the clean model's files + 64 KB (the 100 KB name is cut).
For every model: `mpcc inspect`, `--dump-ir`, `--report` and every error message (plain and ASan
builds) print only valid UTF-8 without control bytes other than newline and tab, and no line of the
output starts with text that followed a newline in the payload (a forged line).

MPCC_HOSTILE_TREE=/path/to/checkout runs these tests against another checkout's build/mpcc,
build/asan/mpcc and runtime/ (e.g. a tree before the fix, to see them fail)."""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import mpcc_paths
from mpcc_paths import DIGITS_DIR, TESTS_DIR

HOSTILE_DIR = TESTS_DIR / "hostile"
sys.path.insert(0, str(HOSTILE_DIR))
import make_hostile  # noqa: E402  (the payloads, to look for forged output lines)

# one pytest-xdist worker runs this module: its module fixtures build once
pytestmark = pytest.mark.xdist_group("hostile")

TREE = Path(os.environ.get("MPCC_HOSTILE_TREE", mpcc_paths.ROOT)).resolve()
MPCC = TREE / mpcc_paths.MPCC.relative_to(mpcc_paths.ROOT)            # build/mpcc
MPCC_ASAN = TREE / mpcc_paths.MPCC_ASAN.relative_to(mpcc_paths.ROOT)  # build/asan/mpcc
RUNTIME = TREE / "runtime"

GEN_FLAGS = ["-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic"]
SAN_ENV = dict(os.environ, ASAN_OPTIONS="detect_leaks=1:abort_on_error=0", UBSAN_OPTIONS="print_stacktrace=1")
SANITIZER_MARKS = (b"AddressSanitizer", b"LeakSanitizer", b"UndefinedBehaviorSanitizer", b"runtime error:")


def load_cases():
    rows = []
    for line in (HOSTILE_DIR / "cases.txt").read_text().splitlines():
        if line and not line.startswith("#"):
            name, kind, base, markers = line.split("\t")
            rows.append((name, kind, base, markers.split(",")))
    return rows


CASES = load_cases()
COMPILE_CASES = [c for c in CASES if c[1] == "compile"]
PAYLOADS = [p for _, p in make_hostile.PAYLOADS] + [make_hostile.big_name()]


def run(cmd, **kw):
    return subprocess.run([str(c) for c in cmd], capture_output=True, env=SAN_ENV, timeout=300, **kw)


# ---- checks ----------------------------------------------------------------------------------

# A C string or character literal on one line, escapes included. After `cc -E` there are no comments
# left, so a marker can only be (a) part of a longer identifier (cg_sanitize turns tensor names into
# identifiers such as m_w3_MPCCPWN3_abort: not an injection), (b) inside a string literal (the NAME
# macros of m.h hold the signature name, escaped: data, not code), or (c) a token of its own, which
# means text from the model escaped its comment or literal and became code. Removing the literals
# and then comparing whole identifier tokens to the markers separates (c) from (a) and (b). An
# unbalanced quote that an injection leaves behind matches nothing and is simply skipped over.
# (A payload emitted raw in code context with its marker between its own two quotes would hide
# here; such a payload breaks the build, which test_generated_c_builds catches.)
LITERAL = re.compile(rb'"(?:[^"\\\n]|\\.)*"|\'(?:[^\'\\\n]|\\.)*\'')
IDENT = re.compile(rb"[A-Za-z_][A-Za-z0-9_]*")


def code_identifiers(preprocessed):
    return set(IDENT.findall(LITERAL.sub(b" ", preprocessed)))


def terminal_problems(data, payloads=PAYLOADS):
    """What is wrong with `data` as text for a terminal (empty list: nothing)."""
    problems = []
    ctl = sorted({b for b in data if (b < 0x20 and b not in (0x09, 0x0A)) or b == 0x7F})
    if ctl:
        at = min(data.index(bytes([b])) for b in ctl)
        problems.append(f"control bytes {[hex(b) for b in ctl]}, first near {data[max(0, at - 40):at + 20]!r}")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        problems.append(f"invalid UTF-8 at byte {e.start}: {data[max(0, e.start - 40):e.start + 20]!r}")
    else:
        c1 = sorted({hex(ord(ch)) for ch in text if 0x80 <= ord(ch) < 0xA0})
        if c1:
            problems.append(f"C1 control characters {c1}")
    # A newline from the model printed raw starts a line of the model's choosing.
    lines = data.split(b"\n")
    for p in payloads:
        for seg in p.split(b"\n")[1:]:
            if len(seg) >= 4:
                forged = [ln for ln in lines if ln.startswith(seg)]
                if forged:
                    problems.append(f"line forged by a name: {forged[0][:120]!r}")
    return problems


def check_proc(proc, want_rc, what, payloads=PAYLOADS):
    out = proc.stdout + proc.stderr
    for mark in SANITIZER_MARKS:
        assert mark not in out, f"{what}: sanitizer report\n{out[-4000:].decode(errors='replace')}"
    assert proc.returncode == want_rc, \
        f"{what}: exit {proc.returncode}, expected {want_rc}\n{out[-3000:].decode(errors='replace')}"
    problems = terminal_problems(out, payloads)
    assert not problems, f"{what}: output is not safe for a terminal:\n  " + "\n  ".join(problems)


def io_names(model):
    """(input names, output names) the header must carry: signature names, else tensor names."""
    from ai_edge_litert import schema_py_generated as S
    m = S.ModelT.InitFromPackedBuf(Path(model).read_bytes(), 0)
    sg = m.subgraphs[0]
    if m.signatureDefs:
        s = m.signatureDefs[0]
        by_index = lambda maps, idx: next(tm.name for tm in maps if tm.tensorIndex == idx)  # noqa: E731
        return ([by_index(s.inputs, i) for i in sg.inputs], [by_index(s.outputs, i) for i in sg.outputs])
    return [sg.tensors[i].name for i in sg.inputs], [sg.tensors[i].name for i in sg.outputs]


# ---- building the generated code -------------------------------------------------------------

DRIVER = r"""
/* Runs the generated model m on a pseudo-random input drawn from the seed in argv[1]; prints the
 * input, the I/O names of m.h and the outputs as hex. Inputs and outputs of digits: 1 and 1. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "m.h"

static void hex(const char *tag, const void *p, size_t n) {
    const unsigned char *b = (const unsigned char *)p;
    size_t i;
    printf("%s ", tag);
    for (i = 0; i < n; i++) printf("%02x", b[i]);
    printf("\n");
}

int main(int argc, char **argv) {
    static double arena[M_ARENA_BYTES / 8 + 1];
    static M_INPUT0_t in[M_INPUT0_SIZE];
    static M_OUTPUT0_t out[M_OUTPUT0_SIZE];
    const void *ins[1];
    void *outs[1];
    uint64_t s;
    size_t i;
    int rc;
    if (argc != 2) return 2;
    s = (uint64_t)strtoull(argv[1], NULL, 10) * 2654435761u | 1u;
    for (i = 0; i < M_INPUT0_SIZE; i++) {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
#if M_INPUT0_DTYPE == 0
        in[i] = (float)((s >> 40) & 0xFFFFFF) / 16777216.0f;
#else
        in[i] = (M_INPUT0_t)((int)((s >> 56) & 0xFF) - 128);
#endif
    }
    memset(arena, 0xA5, sizeof arena); /* poison */
    memset(out, 0xA5, sizeof out);
    ins[0] = in;
    outs[0] = out;
    m_init(arena);
    rc = m_run(ins, outs, arena);
    if (rc != 0) return 10 + rc;
    hex("input", in, sizeof in);
    hex("name_in0", M_INPUT0_NAME, sizeof M_INPUT0_NAME - 1);
    hex("name_out0", M_OUTPUT0_NAME, sizeof M_OUTPUT0_NAME - 1);
    hex("out0", out, sizeof out);
    return 0;
}
"""


def probe_source(header_text):
    """A file that expands every M_INPUTn_NAME / M_OUTPUTn_NAME macro (so that the compilers and the
    preprocessor see what the macros hold)."""
    n_in = int(re.search(rb"^#define M_NUM_INPUTS (\d+)$", header_text, re.M).group(1))
    n_out = int(re.search(rb"^#define M_NUM_OUTPUTS (\d+)$", header_text, re.M).group(1))
    names = [f"M_INPUT{i}_NAME" for i in range(n_in)] + [f"M_OUTPUT{i}_NAME" for i in range(n_out)]
    return f'#include "m.h"\nconst char *const m_probe_names[] = {{{", ".join(names)}}};\n'


@pytest.fixture(scope="module")
def work(tmp_path_factory):
    return tmp_path_factory.mktemp("hostile")


@pytest.fixture(scope="module")
def runtime_objects(work):
    """runtime/*.c and runtime/kernels/*.c compiled once (two gcc processes: two cores)."""
    srcs = sorted(RUNTIME.glob("*.c")) + sorted((RUNTIME / "kernels").glob("*.c"))
    halves = [srcs[0::2], srcs[1::2]]
    procs = []
    for k, half in enumerate(halves):
        d = work / f"rt{k}"
        d.mkdir()
        procs.append((d, subprocess.Popen(["gcc", *GEN_FLAGS, "-O1", "-I", str(RUNTIME), "-c", *map(str, half)],
                                          cwd=d, stdout=subprocess.PIPE, stderr=subprocess.PIPE)))
    objs = []
    for d, p in procs:
        _, err = p.communicate()
        assert p.returncode == 0, f"runtime build failed:\n{err.decode(errors='replace')[-3000:]}"
        objs += sorted(d.glob("*.o"))
    return objs


_compiled = {}


def compile_model(work, model, key):
    """mpcc MODEL -o work/key/m.c --name m, once per key; returns (process, output dir)."""
    if key not in _compiled:
        d = work / key
        d.mkdir()
        proc = run([MPCC, model, "-o", d / "m.c", "--name", "m"])
        if proc.returncode == 0:
            (d / "probe.c").write_text(probe_source((d / "m.h").read_bytes()))
        _compiled[key] = (proc, d)
    return _compiled[key]


def compiled_ok(work, model, key):
    proc, d = compile_model(work, model, key)
    check_proc(proc, 0, f"mpcc {Path(model).name} -o m.c")
    return d


def run_generated(runtime_objects, d, seed):
    """Builds d/m.c with the driver and the runtime; returns the driver's stdout lines as a dict."""
    exe = d / "driver"
    if not exe.exists():
        (d / "driver.c").write_text(DRIVER)
        p = run(["gcc", *GEN_FLAGS, "-O1", "-I", RUNTIME, "-I", d, d / "m.c", d / "driver.c", *runtime_objects,
                 "-lm", "-o", exe])
        assert p.returncode == 0, f"build of {d.name} failed:\n{p.stderr.decode(errors='replace')[-3000:]}"
    p = run([exe, str(seed)])
    assert p.returncode == 0, f"{d.name}/driver exit {p.returncode}\n{p.stderr.decode(errors='replace')[-2000:]}"
    return dict(line.split(" ", 1) for line in p.stdout.decode().splitlines())


def ids(cases):
    return [c[0].removesuffix(".tflite") for c in cases]


# ---- tests -----------------------------------------------------------------------------------

def test_cases_are_current(tmp_path):
    """The committed models are what make_hostile.py writes (deterministic, nothing stale)."""
    assert len(COMPILE_CASES) >= 15 and len(CASES) - len(COMPILE_CASES) >= 15
    make_hostile.main(tmp_path)
    fresh = sorted(p.name for p in tmp_path.iterdir())
    committed = sorted(p.name for p in HOSTILE_DIR.iterdir() if p.suffix in (".tflite", ".txt"))
    assert fresh == committed, "tests/hostile is stale: run .venv/bin/python tests/hostile/make_hostile.py"
    for name in fresh:
        assert (tmp_path / name).read_bytes() == (HOSTILE_DIR / name).read_bytes(), \
            f"tests/hostile/{name} is stale: run .venv/bin/python tests/hostile/make_hostile.py"


@pytest.mark.parametrize("name,kind,base,markers", COMPILE_CASES, ids=ids(COMPILE_CASES))
def test_generated_c_builds(name, kind, base, markers, work):
    """Exit 0; the ASan build writes the same files; m.c and the header's NAME macros build warning-free
    under gcc and clang in strict C99."""
    d = compiled_ok(work, HOSTILE_DIR / name, name)
    asan_dir = work / (name + ".asan")
    asan_dir.mkdir(exist_ok=True)
    check_proc(run([MPCC_ASAN, HOSTILE_DIR / name, "-o", asan_dir / "m.c", "--name", "m"]), 0,
               f"asan mpcc {name} -o m.c")
    for f in ("m.c", "m.h"):
        assert (asan_dir / f).read_bytes() == (d / f).read_bytes(), f"ASan build wrote a different {f}"
    jobs = []
    for cc in ("gcc", "clang"):
        for src in ("m.c", "probe.c"):
            cmd = [cc, *GEN_FLAGS, "-I", str(RUNTIME), "-I", str(d), "-c", str(d / src), "-o",
                   str(d / f"{src}.{cc}.o")]
            jobs.append((f"{cc} {src}", subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)))
    failures = []
    for what, p in jobs:
        _, err = p.communicate()
        if p.returncode != 0:
            failures.append(f"{what}: exit {p.returncode}\n{err.decode(errors='replace')[:1500]}")
    assert not failures, f"{name}: generated code does not build:\n" + "\n".join(failures)


@pytest.mark.parametrize("name,kind,base,markers", COMPILE_CASES, ids=ids(COMPILE_CASES))
def test_no_injected_tokens(name, kind, base, markers, work):
    """`cc -E` of m.c and of the NAME-macro probe: no marker from a name is left as a code token
    (comments are gone after preprocessing; literals are removed by code_identifiers), and no
    directive from a name ran (#error, #include of a missing file: -E fails)."""
    d = compiled_ok(work, HOSTILE_DIR / name, name)
    for src in ("m.c", "probe.c"):
        p = run(["gcc", "-std=c99", "-E", "-P", "-I", RUNTIME, "-I", d, d / src])
        assert p.returncode == 0, f"cc -E {src} failed:\n{p.stderr.decode(errors='replace')[:2000]}"
        leaked = sorted(set(m.encode() for m in markers) & code_identifiers(p.stdout))
        if leaked:
            code = LITERAL.sub(b" ", p.stdout)
            at = re.search(rb"(?<![A-Za-z0-9_])" + leaked[0] + rb"(?![A-Za-z0-9_])", code).start()
            ctx = code[max(0, at - 200):at + 100].decode(errors="replace")
            pytest.fail(f"{src}: text from a name became code: {leaked}\n...{ctx}...")


@pytest.mark.parametrize("name,kind,base,markers", COMPILE_CASES, ids=ids(COMPILE_CASES))
def test_same_outputs_as_clean(name, kind, base, markers, work, runtime_objects, seed):
    """The hostile model's code computes what the clean model's code computes, byte for byte, and the
    header's NAME macros hold the signature names exactly (or a prefix of a name cut for length)."""
    clean = compiled_ok(work, DIGITS_DIR / base, "clean_" + base)
    hostile = compiled_ok(work, HOSTILE_DIR / name, name)
    want = run_generated(runtime_objects, clean, seed)
    got = run_generated(runtime_objects, hostile, seed)
    assert got["input"] == want["input"]
    assert got["out0"] == want["out0"], f"outputs differ from the clean model's (seed {seed})"
    ins, outs = io_names(HOSTILE_DIR / name)
    for key, expect in (("name_in0", ins[0]), ("name_out0", outs[0])):
        value = bytes.fromhex(got[key])
        if value != expect:
            assert value.endswith(b"...") and expect.startswith(value[:-3]) and len(value) >= 64, \
                f"{key} macro holds {value[:200]!r}, expected the signature name {expect[:200]!r}"


@pytest.mark.parametrize("name,kind,base,markers", COMPILE_CASES, ids=ids(COMPILE_CASES))
def test_generated_size_bounded(name, kind, base, markers, work):
    """A 100 KB name does not make the generated files grow with it (names are cut in comments)."""
    clean = compiled_ok(work, DIGITS_DIR / base, "clean_" + base)
    hostile = compiled_ok(work, HOSTILE_DIR / name, name)
    for f in ("m.c", "m.h"):
        limit = 2 * (clean / f).stat().st_size + 64 * 1024
        size = (hostile / f).stat().st_size
        assert size < limit, f"{f} is {size} bytes, limit {limit} (2 x clean + 64 KB)"


@pytest.mark.parametrize("mpcc", [MPCC, MPCC_ASAN], ids=["mpcc", "asan"])
@pytest.mark.parametrize("name,kind,base,markers", CASES, ids=ids(CASES))
def test_terminal_output_is_safe(name, kind, base, markers, mpcc, tmp_path):
    """inspect, --dump-ir, --report and the error messages of compile and run: printable, valid UTF-8,
    no forged lines."""
    model = HOSTILE_DIR / name
    check_proc(run([mpcc, "inspect", model]), 0, f"mpcc inspect {name}")
    want = 0 if kind == "compile" else 1
    out_c = tmp_path / "m.c"
    for flag in ("--dump-ir", "--report"):
        proc = run([mpcc, flag, model, "-o", out_c, "--name", "m"])
        check_proc(proc, want, f"mpcc {flag} {name}")
    # `mpcc run` with an input of the wrong shape: the error names the input (or the custom op).
    import numpy as np
    wrong = tmp_path / "wrong.npy"
    np.save(wrong, np.ones((1, 3), np.float32))
    proc = run([mpcc, "run", model, "--input", wrong, "--output", tmp_path / "o.npy"])
    check_proc(proc, 1, f"mpcc run {name} --input <wrong shape>")
    if kind == "custom":
        proc = run([mpcc, model, "-o", out_c, "--name", "m"])
        check_proc(proc, 1, f"mpcc {name} -o m.c")
        assert b"custom operator" in proc.stderr, proc.stderr[-2000:]
        assert not out_c.exists(), "a failed compile must not leave output behind"
        # Bound to a kernel, the hostile custom_code reaches the generated C (the kernel's context)
        # only as an escaped string literal: the file builds in strict C99.
        from ai_edge_litert import schema_py_generated as S
        code = bytes(S.ModelT.InitFromPackedBuf(model.read_bytes(), 0).operatorCodes[0].customCode or b"")
        if code and b"\0" not in code and mpcc == MPCC:
            proc = run([mpcc, model, "-o", out_c, "--name", "m", "--custom-op", os.fsdecode(code + b"=user_kernel")])
            check_proc(proc, 0, f"mpcc {name} -o m.c --custom-op <hostile name>=user_kernel")
            p = run(["gcc", *GEN_FLAGS, "-fsyntax-only", "-I", RUNTIME, "-I", tmp_path, out_c])
            assert p.returncode == 0, p.stderr.decode(errors="replace")[-2000:]


def test_hostile_file_name(tmp_path):
    """The model's file name is printed too (in comments of m.c/m.h, by inspect): same rules."""
    # No "/" (a path separator); a backslash-newline instead of the ??/ trigraph.
    name = b"x*\\\n#error MPCCPWN90\n??=define MPCCPWN91 \x1b[2J\xff.tflite"
    evil = tmp_path / os.fsdecode(name)
    evil.write_bytes((DIGITS_DIR / "digits_int8.tflite").read_bytes())
    check_proc(run([MPCC, "inspect", evil]), 0, "mpcc inspect <hostile file name>", [name])
    d = tmp_path / "out"
    d.mkdir()
    check_proc(run([MPCC, evil, "-o", d / "m.c", "--name", "m"]), 0, "mpcc <hostile file name> -o m.c", [name])
    for cc in ("gcc", "clang"):
        p = run([cc, *GEN_FLAGS, "-I", RUNTIME, "-I", d, "-c", d / "m.c", "-o", d / f"m.{cc}.o"])
        assert p.returncode == 0, f"{cc}: {p.stderr.decode(errors='replace')[:2000]}"
    p = run(["gcc", "-std=c99", "-E", "-P", "-I", RUNTIME, "-I", d, d / "m.c"])
    assert p.returncode == 0, p.stderr.decode(errors="replace")[:2000]
    assert not {b"MPCCPWN90", b"MPCCPWN91"} & code_identifiers(p.stdout)


def test_checker_sees_injections():
    """The checks themselves: they flag what the issue describes and pass clean text."""
    assert b"MPCCPWN1" in code_identifiers(b"/* x */ int a; MPCCPWN1 abort(); int b;")
    assert b"MPCCPWN5" in code_identifiers(b'const char *n = ""; MPCCPWN5 abort(); "";')
    assert b"MPCCPWN5" not in code_identifiers(b'const char *n = "\\"; MPCCPWN5 abort(); \\"";')
    assert b"MPCCPWN3" not in code_identifiers(b"static const int m_w3___MPCCPWN3_abort[1] = {0};")
    assert terminal_problems(b"inputs:\n  0 image\t[1,8,8,1]\n") == []
    assert terminal_problems(b"name \x1b[2J")
    assert terminal_problems(b"name \xc0\xaf")
    assert terminal_problems("name \u009b2J".encode())
    assert terminal_problems(b"error: tensor '\n#error MPCCPWN4 pwned\n'")
