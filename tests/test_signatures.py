"""Every signature of a model is its own entry point (docs/signatures.md): each against TFLite's
signature runner on random inputs, the generated C built with -std=c99 -Wall -Wextra -Werror
-pedantic; a weight read by several signatures emitted once; --signature picks some, an unknown
name is a clear error; keys that are no C identifier are sanitized, collisions resolved."""

import re

import numpy as np
import pytest

from compare import compare_arrays
from mpcc_paths import MODELS_DIR, ROOT
from mpcc_tools import build_with_main, compile_model, new_workdir, run_cmd
from test_cli import mpcc


def renamed_model(path):
    """sig_shared_f32 with keys that are no C identifiers and collide once sanitized."""
    from ai_edge_litert import schema_py_generated as S
    from schema_models import pack
    m = S.ModelT.InitFromPackedBuf((MODELS_DIR / "sig_shared_f32.tflite").read_bytes(), 0)
    for s, key in zip(m.signatureDefs, ["a-b", "A_B", "9x\x1b[1m"]):
        s.signatureKey = key.encode()
    path.write_bytes(pack(m))
    return path


# model -> [(signature key, C identifier of its entry point)], in model order
CASES = {
    "sig_two_f32": [("double", "double"), ("square", "square")],
    "sig_shared_f32": [("decode", "decode"), ("decode-v2!", "decode_v2_"), ("encode", "encode")],
    "renamed": [("a-b", "a_b"), ("A_B", "A_B_2"), ("9x\x1b[1m", "s9x__1m")],
}


def header_names(header, E, kind):
    """The NAME macros of entry E's inputs or outputs, in order."""
    return [m.group(2).encode().decode("unicode_escape")
            for m in re.finditer(rf'#define MODEL_{E}_{kind}(\d+)_NAME "((?:[^"\\]|\\.)*)"', header)]


def harness(entries, n_io, weights=False, threads=0):
    """A main that runs each entry point (and model_run as the first one) on the files
    DIR/E_in<i>.bin, writing DIR/E_out<i>.bin; one arena for all of them; with weights, the
    blob DIR/model.weights.bin, checked. threads > 0: also each model_E_run_parallel (and
    model_run_parallel) on a runtime/threads/mpcc_pool of that many threads, writing
    DIR/E_t_out<i>.bin (plain_t_out for model_run_parallel)."""
    src = ['#include <stdio.h>', '#include "model.h"', "static double arena[MODEL_ARENA_BYTES / 8 + 1];",
           "static int io(const char *dir, const char *e, const char *k, int i, void *p, size_t n, int w) {",
           "    char path[512]; FILE *f; size_t got;",
           '    sprintf(path, "%s/%s_%s%d.bin", dir, e, k, i);',
           '    f = fopen(path, w ? "wb" : "rb"); if (!f) return 1;',
           "    got = w ? fwrite(p, 1, n, f) : fread(p, 1, n, f); fclose(f); return got != n;", "}",
           "int main(int argc, char **argv) {", "    int bad = 0;", "    if (argc != 2) return 2;",
           "    model_init(arena);"]
    if threads:
        src[0] += '\n#include "threads/mpcc_pool.h"'
        src += [f"    mpcc_pool *pool = mpcc_pool_create({threads});", "    mpcc_parallel par;",
                "    if (!pool) return 5;", "    par = mpcc_pool_parallel(pool);"]
    wa = ", w" if weights else ""
    if weights:
        src[2] += "\nstatic double w[MODEL_WEIGHTS_BYTES / 8 + 1];"
        src += ['    { char path[512]; FILE *f; size_t got;',
                '      sprintf(path, "%s/model.weights.bin", argv[1]); f = fopen(path, "rb"); if (!f) return 3;',
                "      got = fread(w, 1, MODEL_WEIGHTS_BYTES, f); fclose(f); if (got != MODEL_WEIGHTS_BYTES) return 3; }",
                "    if (model_check_weights(w, MODEL_WEIGHTS_BYTES)) return 4;"]
    for c, (n_in, n_out) in zip(entries, n_io):
        E = c.upper()
        calls = [(f"model_{c}_run(ins, outs, arena{wa})", c)]
        if c == entries[0]:
            calls.append((f"model_run(ins, outs, arena{wa})", "plain"))
        if threads:
            calls.append((f"model_{c}_run_parallel(ins, outs, arena{wa}, &par)", f"{c}_t"))
            if c == entries[0]:
                calls.append((f"model_run_parallel(ins, outs, arena{wa}, &par)", "plain_t"))
        for fn, tag in calls:
            src.append("    {")
            src += [f"        static MODEL_{E}_INPUT{i}_t in{i}[MODEL_{E}_INPUT{i}_SIZE];" for i in range(n_in)]
            src += [f"        static MODEL_{E}_OUTPUT{i}_t out{i}[MODEL_{E}_OUTPUT{i}_SIZE];" for i in range(n_out)]
            src.append(f"        const void *ins[] = {{{', '.join(f'in{i}' for i in range(n_in))}}};")
            src.append(f"        void *outs[] = {{{', '.join(f'out{i}' for i in range(n_out))}}};")
            src += [f'        bad |= io(argv[1], "{c}", "in", {i}, in{i}, sizeof in{i}, 0);' for i in range(n_in)]
            src.append(f"        bad |= {fn};")
            src += [f'        bad |= io(argv[1], "{tag}", "out", {i}, out{i}, sizeof out{i}, 1);' for i in range(n_out)]
            src.append("    }")
    if threads:
        src.append("    mpcc_pool_destroy(pool);")
    src += ["    return bad;", "}", ""]
    return "\n".join(src)


# threads 2: compiled with --threads 2 --threads-min-macs 1 (every threaded kernel of these small
# models forks); each model_E_run_parallel on a pool of 2 gives model_E_run's bytes.
@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("name,weights", [(n, False) for n in CASES] + [("sig_shared_f32", True)])
def test_every_signature_matches_tflite(name, weights, threads, seed, tmp_path):
    from ai_edge_litert.interpreter import Interpreter
    model = renamed_model(tmp_path / "renamed.tflite") if name == "renamed" else MODELS_DIR / f"{name}.tflite"
    work = new_workdir(f"sig_{name}_t{threads}")
    extra = (["--weights", "file"] if weights else []) + (["--threads", "2", "--threads-min-macs", "1"] if threads > 1 else [])
    p = compile_model(model, work, extra=extra)
    assert p.returncode == 0, p.stderr
    assert "warning" not in p.stderr, p.stderr
    header = (work / "model.h").read_text()
    keys = [k for k, _ in CASES[name]]
    entries = [c for _, c in CASES[name]]
    interp = Interpreter(model_path=str(model))
    assert sorted(interp.get_signature_list()) == sorted(keys)
    n_io = []
    for c in entries:
        assert f"int model_{c}_run(const void *const *inputs, void *const *outputs, void *arena" \
               f"{', const void *weights' if weights else ''});" in header
        n_io.append((len(header_names(header, c.upper(), "INPUT")), len(header_names(header, c.upper(), "OUTPUT"))))
        if threads > 1:
            assert f"int model_{c}_run_parallel(const void *const *inputs, void *const *outputs, void *arena" \
                   f"{', const void *weights' if weights else ''},\n" in header
    pool = [ROOT / "runtime" / "threads" / "mpcc_pool.c", "-pthread"] if threads > 1 else []
    proc, exe = build_with_main(work, harness(entries, n_io, weights, threads if threads > 1 else 0), config="gcc-O2",
                                extra=pool)
    assert proc.returncode == 0, proc.stderr[-3000:]
    rng = np.random.default_rng(seed)
    refs = {}
    for key, c in CASES[name]:
        runner = interp.get_signature_runner(key)
        feeds = {}
        for i, iname in enumerate(header_names(header, c.upper(), "INPUT")):
            det = runner.get_input_details()[iname]
            x = rng.standard_normal(det["shape"]).astype(det["dtype"])
            feeds[iname] = x
            x.tofile(work / f"{c}_in{i}.bin")
        refs[c] = runner(**feeds)
    proc = run_cmd([exe, work])
    assert proc.returncode == 0, proc.stderr
    for key, c in CASES[name]:
        for i, oname in enumerate(header_names(header, c.upper(), "OUTPUT")):
            ref = refs[c][oname]
            got = np.fromfile(work / f"{c}_out{i}.bin", ref.dtype).reshape(ref.shape)
            ok, msg = compare_arrays(ref, got, mode="opt")
            assert ok, f"signature {key!r} ({c}), output {oname!r}: {msg}"
    # model_run is the first signature's entry point (subgraph 0 in these models).
    first = entries[0]
    for i in range(n_io[0][1]):
        assert (work / f"plain_out{i}.bin").read_bytes() == (work / f"{first}_out{i}.bin").read_bytes()
    if threads > 1:
        for c, (_, n_out) in zip(entries, n_io):
            for i in range(n_out):
                assert (work / f"{c}_t_out{i}.bin").read_bytes() == (work / f"{c}_out{i}.bin").read_bytes(), (c, i)
        for i in range(n_io[0][1]):
            assert (work / f"plain_t_out{i}.bin").read_bytes() == (work / f"{first}_out{i}.bin").read_bytes()


def const_arrays(c_source):
    """{name: contents} of the generated constant arrays."""
    return {m.group(1): m.group(2) for m in re.finditer(r"static const \w+ (\w+)\[\d+\](?: MPCC_CONST_ALIGN)? = \{(.*?)\};", c_source, re.S)}


@pytest.mark.parametrize("opt", ["-O0", "-O2"])
def test_shared_weight_emitted_once(opt, tmp_path):
    """decode and decode-v2! read the same weight: at -O0 as stored (encode too), at -O2 packed
    the same way; every constant array of the code is distinct."""
    model = MODELS_DIR / "sig_shared_f32.tflite"
    p = mpcc(model, opt, "-o", tmp_path / "m.c")
    assert p.returncode == 0, p.stderr
    arrays = const_arrays((tmp_path / "m.c").read_text())
    assert arrays, "no constant arrays found"
    contents = list(arrays.values())
    assert len(set(contents)) == len(contents), f"{len(contents) - len(set(contents))} constants emitted twice"
    # One signature alone needs no more constants than all three.
    p = mpcc(model, opt, "-o", tmp_path / "d.c", "--signature", "decode-v2!")
    assert p.returncode == 0, p.stderr
    one = const_arrays((tmp_path / "d.c").read_text())
    assert 0 < len(one) <= len(arrays)
    if opt == "-O0":
        # W as stored: decode's 16x8 (subgraph 0) and decode-v2!'s (subgraph 1) are the same
        # buffer, emitted once and read by both; encode's FULLY_CONNECTED weight is W transposed.
        code = (tmp_path / "m.c").read_text()
        w = [n for n, v in arrays.items() if len(re.findall(r"[-\d.e+]+f", v)) == 128]
        assert len(w) == 2, list(arrays)
        sub1 = code[code.index("static int m_subgraph1("):]
        sub1 = sub1[:sub1.index("\n}\n")]
        assert any(n in sub1 for n in w) and not any(n.startswith("m_s1_") for n in w), (w, sub1)


def test_shared_weight_stored_once_in_the_blob(tmp_path):
    """--weights file: the blob of all three signatures is smaller than the blobs of decode and
    decode-v2! compiled alone, which both hold the same packed weight W (512 bytes)."""
    model = MODELS_DIR / "sig_shared_f32.tflite"
    size = {}
    for sig in ("decode", "decode-v2!", "encode", "decode,decode-v2!,encode"):
        p = mpcc(model, "-o", tmp_path / "m.c", "--weights", "file", "--signature", sig)
        assert p.returncode == 0, p.stderr
        size[sig] = (tmp_path / "m.weights.bin").stat().st_size
    header = 64  # the blob's header, padded
    parts = sum(size[s] - header for s in ("decode", "decode-v2!", "encode"))
    assert size["decode,decode-v2!,encode"] - header <= parts - 512, size


def test_signature_selection_and_unknown_names(tmp_path):
    model = MODELS_DIR / "sig_shared_f32.tflite"
    for args, want in ((["--signature", "encode"], {"encode"}),
                       (["--signature", "decode,encode"], {"decode", "encode"}),
                       (["--signature", "encode", "--signature", "decode-v2!"], {"decode_v2_", "encode"})):
        p = mpcc(model, "-o", tmp_path / "m.c", *args)
        assert p.returncode == 0, p.stderr
        header = (tmp_path / "m.h").read_text()
        got = set(re.findall(r"int m_(\w+)_run\(", header))
        assert got == want, (args, got)
        assert "int m_run(" in header  # subgraph 0 stays PREFIX_run
    for bad in ("nope", "decode,nope", "\x1b[31mred"):
        p = mpcc(model, "-o", tmp_path / "x.c", "--signature", bad)
        assert p.returncode == 1, p.stderr
        assert "the model has no signature of that name (it has 'decode', 'decode-v2!', 'encode')" in p.stderr, p.stderr
        assert "\x1b" not in p.stderr, repr(p.stderr)
        assert not (tmp_path / "x.c").exists()
    p = mpcc(model, "-o", tmp_path / "x.c", "--signature", "decode,")
    assert p.returncode == 1 and "empty signature name" in p.stderr, p.stderr
    # A key from the model reaches the terminal escaped.
    renamed = renamed_model(tmp_path / "r.tflite")
    p = mpcc(renamed, "-o", tmp_path / "x.c", "--signature", "zz")
    assert p.returncode == 1 and "'9x\\x1b[1m'" in p.stderr and "\x1b" not in p.stderr, repr(p.stderr)
    p = mpcc("inspect", renamed)
    assert p.returncode == 0 and "\x1b" not in p.stdout, repr(p.stdout)
