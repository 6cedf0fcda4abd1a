"""`mpcc report` (one self-contained HTML page) and `--profile` (per-op kernel times).

Report: person_detect (TFLM), the zoo's BERT and the 317-operator deep_bert_f32 are rendered by
headless Chromium (Debian's package, installed by tools/ensure_tool.sh when missing); the page must
load without console errors or failed requests, its DOM must show the peak (equal to --report's
lower bound), one box per op --report schedules and the fused groups; the screenshots and pages
are kept in build/test-output/report/. Every element and attribute of every report is on an
allow-list (no script, no event handler, nothing fetched), and model strings arrive escaped:
hostile tensor names (tests/hostile, and markup planted in a name here) appear only as text.

Profile: the generated code with --profile builds -pedantic under gcc and clang, gives the same
outputs as without, and with a clock that ticks once per call each timed op gets exactly one tick a
run; without --profile nothing of it is emitted (and the code is the same as before the option
existed: test_codegen_props checks determinism, this checks no symbol leaks in). tools/bench/profile.py
prints the sorted table and writes the file `mpcc report --profile-data` reads."""

import html.parser
import re
import shutil
import subprocess
import sys

import numpy as np
import pytest

from mpcc_paths import BUILD_DIR, DIGITS_DIR, MODELS_DIR, MPCC, ROOT, SHARED_MODELS, TESTS_DIR

sys.path.insert(0, str(ROOT / "tools" / "bench"))
import bench  # noqa: E402  (its cached runtime objects, shared with the profile.py test)

# one pytest-xdist worker runs this module: its module fixtures build once
pytestmark = pytest.mark.xdist_group("report")

OUT_DIR = BUILD_DIR / "test-output" / "report"
BENCH_CFLAGS = "-O1 -std=c99"
RUNTIME = ROOT / "runtime"
GEN_FLAGS = ["-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic"]

REPORT_MODELS = {
    "person_detect": SHARED_MODELS / "tflm" / "person_detect.tflite",
    "bert_f32": MODELS_DIR / "bert_f32.tflite",
    "deep_bert_f32": MODELS_DIR / "deep_bert_f32.tflite",
}

ALLOWED_TAGS = {"html", "head", "meta", "title", "style", "body", "h1", "h2", "p", "table", "tr", "td", "th", "div",
                "svg", "defs", "marker", "path", "g", "rect", "text", "line", "span", "code", "br"}
ALLOWED_ATTRS = {"lang", "charset", "http-equiv", "content", "class", "id", "xmlns", "width", "height", "viewbox",
                 "refx", "refy", "markerwidth", "markerheight", "orient", "d", "fill", "stroke", "stroke-width",
                 "stroke-dasharray", "marker-end", "x", "y", "rx", "x1", "y1", "x2", "y2", "style", "font-family",
                 "font-size"}


def run(cmd, **kw):
    p = subprocess.run([str(c) for c in cmd], capture_output=True, text=True, **kw)
    assert p.returncode == 0, f"{' '.join(map(str, cmd))} failed ({p.returncode}):\n{p.stdout[-3000:]}\n{p.stderr[-3000:]}"
    return p.stdout


class Page(html.parser.HTMLParser):
    """Tags, attributes and text of a report, checked against the allow-lists."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.problems, self.text, self.ids = [], [], {}
        self._id = None

    def handle_starttag(self, tag, attrs):
        if tag not in ALLOWED_TAGS:
            self.problems.append(f"tag <{tag}>")
        for k, v in attrs:
            if k not in ALLOWED_ATTRS:
                self.problems.append(f"attribute {k}= on <{tag}>")
            if v and re.search(r"url\((?!#)|javascript:|https?://(?!www\.w3\.org/2000/svg)", v):
                self.problems.append(f"{k}={v!r} on <{tag}> refers outside the page")
        self._id = dict(attrs).get("id")

    def handle_data(self, data):
        self.text.append(data)
        if self._id:
            self.ids[self._id] = self.ids.get(self._id, "") + data


def check_page(path):
    raw = path.read_bytes()
    text = raw.decode("utf-8")  # valid UTF-8
    assert not re.search(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]", text), "control bytes in the page"
    page = Page()
    page.feed(text)
    assert not page.problems, page.problems[:10]
    return page


@pytest.fixture(scope="module")
def chromium():
    """Debian's chromium, installed with apt-get when missing (a clear failure when that is impossible)."""
    p = subprocess.run([str(ROOT / "tools" / "ensure_tool.sh"), "chromium", "chromium", "chromium-browser"],
                       capture_output=True, text=True)
    assert p.returncode == 0, f"chromium is needed to check the report and could not be installed:\n{p.stderr[-3000:]}"
    return p.stdout.strip()


def headless(chromium, args, page, tmp):
    cmd = [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--no-first-run",
           f"--user-data-dir={tmp}", "--enable-logging=stderr", "--v=0", "--window-size=1400,2400",
           *args, page.as_uri()]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=180)
    assert p.returncode == 0, f"chromium failed ({p.returncode}):\n{p.stderr[-3000:]}"
    # Page problems Chromium logs: console messages (script errors, CSP violations) and failed loads.
    bad = [ln for ln in p.stderr.splitlines()
           if re.search(r"CONSOLE|Uncaught|Refused to|net::ERR_|Failed to load", ln)]
    assert not bad, "the page logged errors:\n" + "\n".join(bad[:20])
    return p.stdout


def report_numbers(model):
    """--report's lower bound and its op count per kernel class (one line per class)."""
    out = run([MPCC, model, "--report"])
    bound = int(re.search(r"lower bound (\d+) bytes", out).group(1))
    ops = sum(int(m) for m in re.findall(r"^  \S+\s+(\d+) ops, ", out, re.M))
    return bound, ops


@pytest.mark.parametrize("name", list(REPORT_MODELS))
def test_report_renders_in_chromium(name, chromium, tmp_path):
    model = REPORT_MODELS[name]
    assert model.is_file(), f"{model} is missing"
    OUT_DIR.mkdir(parents=True, exist_ok=True)
    page_path, png = OUT_DIR / f"{name}.html", OUT_DIR / f"{name}.png"
    run([MPCC, "report", model, "-o", page_path])
    page = check_page(page_path)
    bound, n_ops = report_numbers(model)
    src = page_path.read_text()
    assert "<script" not in src.lower()
    # The page as Chromium built it (no scripts, so the DOM is the document).
    dom = headless(chromium, ["--dump-dom"], page_path, tmp_path / "profile-dom")
    m = re.search(r'id="peak">Peak: (\d+) bytes live at op (\d+)', dom)
    assert m, "the rendered page shows no peak"
    assert int(m.group(1)) == bound, f"peak {m.group(1)} != --report's lower bound {bound}"
    assert len(re.findall(r'<g class="box"><rect[^>]*rx="4"', dom)) == n_ops, "one box per scheduled op"
    assert re.search(r'<rect[^>]*><title>[^<]*: \d+ bytes at offset \d+, ops \d+\.\.\d+</title>', dom), "no plan bars"
    fused = int(re.search(r"\((\d+) fused groups\)", dom).group(1))
    if name != "person_detect":  # BERT: LayerNorm and attention groups, listed in the key
        assert fused > 0 and "fused group" in dom and "SOFTMAX" in dom
    headless(chromium, [f"--screenshot={png}"], page_path, tmp_path / "profile-png")
    head = png.read_bytes()[:24]
    assert head[:8] == b"\x89PNG\r\n\x1a\n" and int.from_bytes(head[16:20], "big") == 1400
    assert png.stat().st_size > 20000, "the screenshot is (nearly) empty"
    print(f"{name}: {page_path} ({page_path.stat().st_size} bytes), {png}; peak {bound} bytes, {n_ops} ops, "
          f"{fused} fused groups")


def plant(data, old, new):
    """The model with one of its strings replaced by another of the same length."""
    new = (new * (len(old) // len(new) + 1))[:len(old)]
    assert data.count(old) >= 1
    return data.replace(old, new)


def test_report_escapes_model_strings(tmp_path):
    markup = b'<img src=x onerror=alert(1)><script>alert("MPCCPWN")</script>&amp;\'"'
    data = (DIGITS_DIR / "digits_f32.tflite").read_bytes()
    data = plant(data, b"digits_1/conv2d_1_2/Relu;digits_1/conv2d_1_2/BiasAdd;digits_1/conv2d_1_2/convolution", markup)
    model = tmp_path / "markup.tflite"
    model.write_bytes(data)
    hostile = sorted((TESTS_DIR / "hostile").glob("*.tflite"))
    for m in [model] + [h for h in hostile if not h.name.startswith("custom_")]:
        page_path = tmp_path / (m.stem + ".html")
        run([MPCC, "report", m, "-o", page_path])
        page = check_page(page_path)
        if m == model:
            text = "".join(page.text)
            assert "<script>alert(" in text and "onerror=alert(1)>" in text, "the name is not shown as text"


def test_report_profile_data_errors(tmp_path):
    model = DIGITS_DIR / "digits_f32.tflite"
    cases = {"bad line": ("0 12\n", "expected 'OP<TAB>NANOSECONDS'"), "dead op": ("99999\t5\n", "not a live op"),
             "empty": ("# nothing\n", "no op times")}
    for what, (content, msg) in cases.items():
        f = tmp_path / "p.tsv"
        f.write_text(content)
        p = subprocess.run([str(MPCC), "report", str(model), "--profile-data", str(f), "-o", str(tmp_path / "r.html")],
                           capture_output=True, text=True)
        assert p.returncode == 1 and msg in p.stderr, (what, p.stderr)
    p = subprocess.run([str(MPCC), "report", str(model)], capture_output=True, text=True)
    assert p.returncode == 1 and "use -o REPORT.html" in p.stderr
    p = subprocess.run([str(MPCC), "report", str(model), "--profile", "-o", str(tmp_path / "r.html")],
                       capture_output=True, text=True)
    assert p.returncode == 1 and "--profile-data" in p.stderr


DRIVER = r"""
#include <stdio.h>
#include <stdint.h>
#include <string.h>
#include "m.h"
static uint64_t ticks;
static uint64_t tick(void) { return ticks++; }  /* one tick per call: each timed op takes exactly 1 */
static double arena[M_ARENA_BYTES / 8 + 1];
static unsigned char in[M_INPUT0_BYTES], out[M_OUTPUT0_BYTES];
int main(int argc, char **argv) {
    const void *ins[1] = {in};
    void *outs[1] = {out};
    FILE *f = fopen(argv[1], "rb");
    if (!f || fread(in, 1, sizeof in, f) != sizeof in) return 2;
    fclose(f);
    m_init(arena);
#ifdef M_PROFILE_OPS
    if (m_run(ins, outs, arena)) return 3;       /* no clock yet: nothing timed, nothing called */
    m_profile_start(arena, tick);
    for (int r = 0; r < 5; r++)
        if (m_run(ins, outs, arena)) return 3;
    printf("runs %llu\n", (unsigned long long)m_profile_runs(arena));
    for (int k = 0; k < M_PROFILE_OPS; k++)
        printf("%llu %s\n", (unsigned long long)m_profile(arena)[k], m_profile_op(k));
    if (m_profile_op(M_PROFILE_OPS) != NULL || m_profile_op(-1) != NULL) return 4;
    (void)argc;
#else
    (void)argc;
    if (m_run(ins, outs, arena)) return 3;
#endif
    f = fopen(argv[2], "wb");
    fwrite(out, 1, sizeof out, f);
    fclose(f);
    return 0;
}
"""


@pytest.fixture(scope="module")
def runtime_objects():
    """The runtime compiled once (tools/bench's cache under build/bench/obj/, -O1)."""
    return bench.Builder("cc", BENCH_CFLAGS).runtime_objects()


@pytest.mark.parametrize("model", ["samples/digits/digits_f32.tflite", "tests/models/resnet_int8.tflite"])
def test_profile_counts_and_outputs(model, tmp_path, seed, runtime_objects):
    model = ROOT / model
    rng = np.random.default_rng(seed)
    (tmp_path / "driver.c").write_text(DRIVER)
    outs = {}
    for variant in ("plain", "profile"):
        d = tmp_path / variant
        d.mkdir()
        run([MPCC, model, "-o", d / "m.c", "--name", "m"] + (["--profile"] if variant == "profile" else []))
        c, h = (d / "m.c").read_text(), (d / "m.h").read_text()
        if variant == "plain":
            assert "prof" not in c.lower() and "prof" not in h.lower(), "profiling code without --profile"
            inp = d / "in.bin"
            n = int(re.search(r"#define M_INPUT0_BYTES (\d+)", h).group(1))
            inp.write_bytes(rng.integers(0, 256, n, dtype=np.uint8).tobytes())
            if "M_INPUT0_DTYPE 0" in h:  # float input: finite values in [-1, 1)
                inp.write_bytes(rng.uniform(-1, 1, n // 4).astype(np.float32).tobytes())
        else:
            assert re.search(r"#define M_PROFILE_OPS \d+", h)
        for cc in ("gcc", "clang"):
            run([cc] + GEN_FLAGS + ["-O1", f"-I{RUNTIME}", f"-I{d}", "-c", d / "m.c", "-o", d / f"m_{cc}.o"])
        exe = d / "drv"
        run(["cc", "-std=c99", "-O1", f"-I{RUNTIME}", f"-I{d}", "-o", exe, tmp_path / "driver.c", d / "m.c",
             *runtime_objects, "-lm", "-pthread"])
        outs[variant] = run([exe, tmp_path / "plain" / "in.bin", d / "out.bin"])
        assert (d / "out.bin").is_file()
    assert (tmp_path / "plain" / "out.bin").read_bytes() == (tmp_path / "profile" / "out.bin").read_bytes()
    lines = outs["profile"].splitlines()
    assert lines[0] == "runs 5"
    report_ops = set()
    for ln in lines[1:]:
        t, name = ln.split(" ", 1)
        assert re.match(r"op \d+ \[TFLite #-?\d+\] \S+ \S+ \S+", name), name
        report_ops.add(int(name.split()[1]))
        assert int(t) == (0 if name.endswith("(in place)") else 5), ln
    # The op indices are --report's: every op --report schedules is among them.
    sched = {int(m) for m in re.findall(r"^  op (\d+) ", run([MPCC, model, "--report"]), re.M)}
    assert sched and sched <= report_ops


def test_profile_tool_and_report(tmp_path, runtime_objects):
    model = DIGITS_DIR / "digits_f32.tflite"
    prof = tmp_path / "prof.tsv"
    out = run([ROOT / ".venv" / "bin" / "python", ROOT / "tools" / "bench" / "profile.py", model, "--runs", "5",
               "--seconds", "0.1", "--cflags", BENCH_CFLAGS, "--seed", "1", "--write", prof])
    rows = [ln for ln in out.splitlines() if re.match(r"\s+\d+\s+-?\d+\s+\S+\s+\S+\s+\S+\s+[0-9.]+\s+[0-9.]+%", ln)]
    assert len(rows) >= 5, out
    shares = [float(r.split()[-2].rstrip("%")) for r in rows]
    cdf = [float(r.split()[-1].rstrip("%")) for r in rows]
    assert shares == sorted(shares, reverse=True) and abs(cdf[-1] - 100) < 0.2, out
    assert "By kernel class:" in out
    page_path = tmp_path / "r.html"
    run([MPCC, "report", model, "--profile-data", prof, "-o", page_path])
    check_page(page_path)
    src = page_path.read_text()
    assert "&micro;s</th><th>share</th>" in src and re.search(r"<td>[0-9.]+</td><td>[0-9.]+%</td>", src)
    assert "measured</td>" in src
    OUT_DIR.mkdir(parents=True, exist_ok=True)
    shutil.copy(page_path, OUT_DIR / "digits_f32_profiled.html")
