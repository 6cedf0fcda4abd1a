"""Property test for issue 8: mutated tensor and signature names never inject code.

From a fixed seed (MPCC_SEED when set, else DEFAULT_SEED; printed), draws N_NAMES names: random bytes
1..255 of random length up to 300, random concatenations of dangerous fragments ("*/", "??/" + newline,
quotes, backslashes, #include, ESC sequences, invalid UTF-8, the payloads of tests/hostile), and random
bytes with a marker spliced in. Each name that can carry one holds a marker token MPCCPWN<1000+k>.
NAMES_PER_MODEL names at a time go into tensor names of the digits int8 model (and the signature
input/output names and key), which build/mpcc compiles (half of them with --weights file). Then:
  - every generated m.c and a probe expanding the header's NAME macros pass
    `gcc -std=c99 -fsyntax-only -Wall -Wextra -Werror -pedantic` (batched: one gcc per core),
    and clang on every fourth model;
  - `cc -E` of a sample holds no marker as a code token (see test_hostile.code_identifiers);
  - `mpcc inspect` of every model prints only terminal-safe text.
The assertion is 0 injections; a failure lists the offending names (repr) to reproduce."""

import os
import random
import re
import subprocess
from pathlib import Path

import pytest

from mpcc_paths import DIGITS_DIR
from test_hostile import (GEN_FLAGS, MPCC, PAYLOADS, RUNTIME, check_proc, code_identifiers, probe_source, run,
                          terminal_problems)

DEFAULT_SEED = 20261123
SEED = int(os.environ["MPCC_SEED"]) if os.environ.get("MPCC_SEED") else DEFAULT_SEED
N_NAMES = 200
NAMES_PER_MODEL = 5
SAMPLE_EVERY = 4  # cc -E and clang on every 4th model

FRAGMENTS = [b"*/", b"/*", b"//", b"*", b"/", b"\n", b"\r\n", b"\r", b"\t", b"\\", b"\\\n", b"??/", b"??/\n",
             b"??=", b"??'", b"??(", b"??)", b"??!", b"??<", b"??>", b"??-", b"\"", b"'", b"\\\"", b"#",
             b"#include \"/etc/passwd\"", b"#error e", b"#define X", b"#pragma once", b"%s", b"%n", b"%%",
             b"\x1b[2J", b"\x1b]0;t\x07", b"\x1b[31m", b"\x07", b"\x7f", b"\xff\xfe", b"\xc0\xaf", b"\x80",
             b"\xe2\x80\xae", b"\xc2\x9b", b"\xe2\x80\xa8", b"abort();", b"}", b"{", b";", b" ", b"x"] + PAYLOADS[:-1]


def draw_names(rng):
    """[(name bytes, marker or None)]."""
    names = []
    for k in range(N_NAMES):
        mk = f"MPCCPWN{1000 + k}".encode()
        kind = rng.randrange(3)
        if kind == 0:  # random bytes, no marker
            names.append((bytes(rng.randint(1, 255) for _ in range(rng.randint(1, 300))), None))
            continue
        if kind == 1:  # dangerous fragments around a marker
            parts = [rng.choice(FRAGMENTS) for _ in range(rng.randint(1, 8))]
            parts.insert(rng.randint(0, len(parts)), b" " + mk + b" ")
            name = b"".join(parts)
        else:  # random bytes with a marker spliced in
            noise = bytes(rng.randint(1, 255) for _ in range(rng.randint(0, 280)))
            at = rng.randint(0, len(noise))
            name = noise[:at] + b" " + mk + b" " + noise[at:]
        names.append((name, mk))
    return names


def plant(names, rng):
    """The digits int8 model with these names on random tensors (and the signature)."""
    from ai_edge_litert import schema_py_generated as S
    import flatbuffers
    m = S.ModelT.InitFromPackedBuf((DIGITS_DIR / "digits_int8.tflite").read_bytes(), 0)
    tensors = m.subgraphs[0].tensors
    for name, t in zip(names, rng.sample(range(len(tensors)), len(names))):
        tensors[t].name = name
    sig = m.signatureDefs[0]
    sig.inputs[0].name = names[0]
    sig.outputs[0].name = names[-1]
    sig.signatureKey = names[len(names) // 2]
    m.description = names[1 % len(names)]
    b = flatbuffers.Builder(1 << 16)
    b.Finish(m.Pack(b), file_identifier=b"TFL3")
    return bytes(b.Output())


def syntax_check(cc, files):
    """One compiler process per half of the files (two cores); returns [(file, error text)]."""
    bad = []
    procs = []
    for half in (files[0::2], files[1::2]):
        if half:
            cmd = [cc, *GEN_FLAGS, "-fsyntax-only", "-I", str(RUNTIME), *map(str, half)]
            procs.append((half, subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)))
    for half, p in procs:
        _, err = p.communicate()
        if p.returncode != 0:
            text = err.decode(errors="replace")
            for f in half:
                if str(f) in text:
                    bad.append((f, text[text.index(str(f)):][:800]))
            if not any(str(f) in text for f in half):
                bad.append((half[0], text[:800]))
    return bad


def test_mutated_names_never_inject(tmp_path):
    print(f"hostile names seed: {SEED} (MPCC_SEED={os.environ.get('MPCC_SEED', '')!r}, default {DEFAULT_SEED})")
    rng = random.Random(SEED)
    names = draw_names(rng)
    groups = [names[i:i + NAMES_PER_MODEL] for i in range(0, len(names), NAMES_PER_MODEL)]
    dirs, unsafe = [], []
    for g, group in enumerate(groups):
        d = tmp_path / f"g{g:03d}"
        d.mkdir()
        model = d / "model.tflite"
        model.write_bytes(plant([n for n, _ in group], rng))
        extra = ["--weights", "file"] if g % 2 else []
        proc = run([MPCC, model, "-o", d / "m.c", "--name", "m", *extra])
        check_proc(proc, 0, f"mpcc group {g} -o m.c (names {[n for n, _ in group]!r})")
        ins = run([MPCC, "inspect", model])
        problems = terminal_problems(ins.stdout + ins.stderr) + ([f"exit {ins.returncode}"] if ins.returncode else [])
        if problems:
            unsafe.append(f"g{g:03d} mpcc inspect: {'; '.join(problems)[:300]}")
        (d / "probe.c").write_text(probe_source((d / "m.h").read_bytes()))
        dirs.append(d)

    injections = []
    files = [d / f for d in dirs for f in ("m.c", "probe.c")]
    for f, err in syntax_check("gcc", files):
        injections.append(f"gcc {f.parent.name}/{f.name}: {err}")
    sample = dirs[::SAMPLE_EVERY]
    for f, err in syntax_check("clang", [d / f for d in sample for f in ("m.c", "probe.c")]):
        injections.append(f"clang {f.parent.name}/{f.name}: {err}")
    for d in sample:
        g = int(d.name[1:])
        markers = {mk for name, _ in groups[g] for mk in re.findall(rb"MPCCPWN[0-9]+", name)}
        for src in ("m.c", "probe.c"):
            p = run(["gcc", "-std=c99", "-E", "-P", "-I", RUNTIME, "-I", d, d / src])
            if p.returncode != 0:
                injections.append(f"cc -E {d.name}/{src} failed: {p.stderr.decode(errors='replace')[:500]}")
            leaked = markers & code_identifiers(p.stdout)
            if leaked:
                injections.append(f"{d.name}/{src}: markers {sorted(leaked)} became code")

    if injections or unsafe:
        shown, lines = set(), []
        for line in injections + unsafe:  # C injections first, a few groups only
            g = int(re.search(r"g(\d{3})", line).group(1)) if re.search(r"g(\d{3})", line) else -1
            if g in shown or len(shown) >= 6:
                continue
            shown.add(g)
            names_repr = ", ".join(repr(n)[:120] for n, _ in groups[g]) if g >= 0 else ""
            lines.append(f"group {g} (names {names_repr}):\n  {line[:700]}")
        detail = "\n".join(lines)
        pytest.fail(f"{len(injections)} injection(s) into C, {len(unsafe)} unsafe inspect output(s) (seed {SEED}):\n"
                    f"{detail}")
