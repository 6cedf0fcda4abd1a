"""Writes tests/hostile/*.tflite and tests/hostile/cases.txt: valid models whose strings are hostile.

Issue 8: every string a model file holds (tensor names, signature names and key, the description,
metadata names, subgraph name, custom operator names) is attacker-controlled and must reach the
generated C only inside a comment or a string literal, and the terminal only as printable text.

Each case takes a sample model (samples/digits/digits_int8.tflite, or digits_f32.tflite), reads it
with the TFLite schema's object API, and plants one payload everywhere a string can go:
  - every tensor name (input, output, weights, intermediates),
  - the signature_def input and output names and the signature key (a signature mapping the real
    input/output is added if the model has none),
  - the model description, every metadata name, the subgraph name.
The weights, graph and quantization are untouched, so the generated code must compute exactly what
the clean model's code computes.

Every payload carries its own marker token MPCCPWN<n>, placed so that an escaping bug puts the
marker outside any comment or string literal (e.g. "*/ MPCCPWN1 abort(); /*"). tests/test_hostile.py
runs the preprocessor over the generated code and asserts no marker survives as a code token.

Error path: custom_<payload>.tflite is a tiny model (y = x + c) whose operator is a CUSTOM op named
with the payload and whose tensors carry the payload too; compiling it must fail with exit status 1
and a message that is printable, valid UTF-8 text.

The mixed_f32 case puts a different payload in each tensor of the float model (one file covers the
float code paths for every payload). The big_name case is a 100,000-byte name with "*/" inside; one
shared string in the file (FlatBuffers CreateSharedString) keeps the file small.

cases.txt: one line per file: name<TAB>kind<TAB>base model<TAB>markers (comma separated), where
kind is `compile` (mpcc must exit 0) or `custom` (mpcc must exit 1).

Run: .venv/bin/python tests/hostile/make_hostile.py [OUT_DIR]   (deterministic: the same bytes every run;
     tests/test_hostile.py checks that the committed files are current)
"""

import re
import struct
import sys
from pathlib import Path

import flatbuffers
from ai_edge_litert import schema_py_generated as S

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
DIGITS = ROOT / "samples" / "digits"
OP = S.BuiltinOperator
TT = S.TensorType


def marker(n):
    return f"MPCCPWN{n}".encode()


# (case name, payload bytes). The marker sits where a broken escape would leave it in code.
PAYLOADS = [
    # Closes the comment the name is printed in, the example.
    ("comment_close", b"*/ " + marker(1) + b" abort(); /*"),
    # Opens a nested comment (-Wcomment), and a trailing "/" could join the closing "*/".
    ("comment_open", b"/* " + marker(2) + b" x /"),
    # A preprocessor line after a newline: harmless in a block comment, fatal in a literal or macro.
    ("newline_include", b"\n#include \"/etc/passwd\"\n" + marker(3) + b" abort();\n"),
    ("newline_error", b"\n#error " + marker(4) + b" pwned\n"),
    # Ends a string literal.
    ("quote", b"\"; " + marker(5) + b" abort(); \""),
    # A trailing backslash escapes the closing quote of a literal.
    ("backslash_end", marker(6) + b" x\\"),
    # Trigraph ??/ is a backslash in C99 (gcc -std=c99 enables trigraphs): "*??/" newline "/"
    # splices into "*/" and closes the comment.
    ("trigraph_splice", b"*??/\n/ " + marker(7) + b" abort(); /*"),
    # ??= is '#': a directive after a newline.
    ("trigraph_define", b"\n??=define " + marker(8) + b" 1\n??=error x\n"),
    # Backslash-newline splice into "*/".
    ("backslash_splice", b"*\\\n/ " + marker(9) + b" abort(); /*"),
    # Every control byte (no NUL), and every byte 0x7f..0xff.
    ("control_bytes", marker(10) + b" " + bytes(range(1, 0x20))),
    ("high_bytes", marker(11) + b" " + bytes(range(0x7F, 0x100))),
    # Terminal escape sequences: clear screen, set window title (OSC ... BEL), colour.
    ("escape_sequences", b"\x1b[2J\x1b]0;" + marker(12) + b" title\x07\x1b[31mred\x1b[0m"),
    # Invalid UTF-8: stray bytes, overlong '/', lone continuation, truncated sequence, surrogate.
    ("invalid_utf8", b"\xff\xfe " + marker(13) + b" \xc0\xaf \x80 \xe2\x82 \xed\xa0\x80 end"),
    # Valid UTF-8 that reorders text on a terminal (Trojan Source: RLO, isolates, line separator).
    ("bidi_controls", "\u202e " .encode() + marker(14) + " \u2066x\u2069 \u2028 \u00e9".encode()),
    # printf conversions, in case a name is ever used as a format.
    ("format_string", b"%s%s%n%x " + marker(15) + b" %99999999d %"),
    # Plain code on its own line.
    ("newline_code", b"x\n" + marker(16) + b" abort();\n}\nint y = 1;\n/"),
    # The combinations: close the comment, then a directive on a line of its own.
    ("close_include", b"*/\n#include \"/etc/passwd\"\n" + marker(18) + b" abort();\n/*"),
    ("close_error", b"*/\n#error " + marker(19) + b" pwned\n/*"),
]

BIG_MARKER = 17


def markers_in(payload):
    return re.findall(rb"MPCCPWN[0-9]+", payload)


def big_name():
    """100,000 bytes: "*/" + marker near the start (inside any 64-byte cut), in the middle, at the end."""
    inj = b"*/ " + marker(BIG_MARKER) + b" abort(); /*"
    body = bytearray(b"A" * 100_000)
    for at in (10, 50_000, 100_000 - len(inj)):
        body[at:at + len(inj)] = inj
    return bytes(body)


# ---- planting --------------------------------------------------------------------------------

def load(path):
    return S.ModelT.InitFromPackedBuf(path.read_bytes(), 0)


class SharedStringBuilder(flatbuffers.Builder):
    """Stores each distinct string once (the object API's Pack calls CreateString per field)."""

    def CreateString(self, s, encoding="utf-8", errors="strict"):
        if not self.sharedStrings:
            self.sharedStrings = {}
        if s not in self.sharedStrings:
            self.sharedStrings[s] = super().CreateString(s, encoding, errors)
        return self.sharedStrings[s]


def pack(m, shared_strings=False):
    b = (SharedStringBuilder if shared_strings else flatbuffers.Builder)(1 << 16)
    b.Finish(m.Pack(b), file_identifier=b"TFL3")
    return bytes(b.Output())


def ensure_signature(m):
    """Returns the model's first signature_def, adding one for the real input/output if none."""
    if not m.signatureDefs:
        sg = m.subgraphs[0]
        s = S.SignatureDefT()
        s.signatureKey = b"serving_default"
        s.subgraphIndex = 0
        s.inputs, s.outputs = [], []
        for idx, lst in ((sg.inputs, s.inputs), (sg.outputs, s.outputs)):
            for k, t in enumerate(idx):
                tm = S.TensorMapT()
                tm.name = b"io%d" % k
                tm.tensorIndex = int(t)
                lst.append(tm)
        m.signatureDefs = [s]
    return m.signatureDefs[0]


def plant_everywhere(m, name_for_tensor):
    """Puts name_for_tensor(i) on tensor i, and name_for_tensor(0) on every other string."""
    s = name_for_tensor(0)
    sg = m.subgraphs[0]
    for i, t in enumerate(sg.tensors):
        t.name = name_for_tensor(i)
    sg.name = s
    for sig in m.signatureDefs or []:
        sig.signatureKey = s
        for tm in (sig.inputs or []) + (sig.outputs or []):
            tm.name = name_for_tensor(tm.tensorIndex)
    m.description = s
    for md in m.metadata or []:
        md.name = s


def hostile_digits(base, payload_for_tensor, shared=False):
    m = load(DIGITS / base)
    ensure_signature(m)
    plant_everywhere(m, payload_for_tensor)
    return pack(m, shared_strings=shared)


def custom_model(payload):
    """y = x + c with the operator replaced by CUSTOM op `payload`; tensors named with the payload."""
    def tensor(shape, buf):
        t = S.TensorT()
        t.name = payload
        t.shape = list(shape)
        t.type = TT.FLOAT32
        t.buffer = buf
        return t

    def buffer(data=None):
        b = S.BufferT()
        b.data = list(data) if data else None
        return b

    code = S.OperatorCodeT()
    code.builtinCode = OP.CUSTOM
    code.deprecatedBuiltinCode = OP.CUSTOM
    code.version = 1
    code.customCode = payload
    op = S.OperatorT()
    op.opcodeIndex = 0
    op.inputs, op.outputs = [0, 1], [2]
    sg = S.SubGraphT()
    sg.tensors = [tensor([1, 4], 0), tensor([1, 4], 1), tensor([1, 4], 0)]
    sg.inputs, sg.outputs = [0], [2]
    sg.operators = [op]
    sg.name = payload
    m = S.ModelT()
    m.version = 3
    m.description = payload
    m.operatorCodes = [code]
    m.subgraphs = [sg]
    m.buffers = [buffer(), buffer(struct.pack("<4f", 1, 2, 3, 4))]
    ensure_signature(m)
    plant_everywhere(m, lambda i: payload)
    return pack(m)


def main(out=HERE):
    out = Path(out)
    for p in out.glob("*.tflite"):
        p.unlink()
    rows = []

    def write(name, data, kind, base, markers):
        (out / name).write_bytes(data)
        rows.append((name, kind, base, ",".join(m.decode() for m in markers)))

    for key, payload in PAYLOADS:
        mk = markers_in(payload)
        write(f"{key}.tflite", hostile_digits("digits_int8.tflite", lambda i, p=payload: p), "compile",
              "digits_int8.tflite", mk)
    for key, payload in PAYLOADS:
        mk = markers_in(payload)
        write(f"custom_{key}.tflite", custom_model(payload), "custom", "-", mk)

    # The float model, a different payload on each tensor (cycling through the list).
    all_payloads = [p for _, p in PAYLOADS]
    all_markers = [m for p in all_payloads for m in markers_in(p)]
    write("mixed_f32.tflite", hostile_digits("digits_f32.tflite", lambda i: all_payloads[i % len(all_payloads)]),
          "compile", "digits_f32.tflite", all_markers)
    write("big_name.tflite", hostile_digits("digits_int8.tflite", lambda i: big_name(), shared=True), "compile",
          "digits_int8.tflite", [marker(BIG_MARKER)])

    lines = ["# file<TAB>kind (compile: exit 0, custom: exit 1)<TAB>clean base model in samples/digits<TAB>markers",
             "# generated by make_hostile.py; do not edit"]
    lines += ["\t".join(r) for r in rows]
    (out / "cases.txt").write_text("\n".join(lines) + "\n")
    print(f"wrote {len(rows)} cases to {out}")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else HERE)
