"""The usage example in every generated header is valid C99 (issue 14, item 6): the documented
`static double arena[...]` declaration compiles -pedantic for models whose arena is 0 bytes too."""

import re
import subprocess

import pytest

from mpcc_paths import DIGITS_DIR, MODELS_DIR, MPCC, ROOT
from mpcc_tools import new_workdir

MODELS = [MODELS_DIR / "op_add_same_f32.tflite", MODELS_DIR / "op_add_relu_f32.tflite",
          DIGITS_DIR / "digits_int8.tflite"]


@pytest.mark.parametrize("model", MODELS, ids=lambda p: p.stem)
@pytest.mark.parametrize("cc", ["gcc", "clang"])
def test_header_usage_example_compiles(model, cc):
    assert model.is_file(), model
    work = new_workdir("header-" + model.stem)
    proc = subprocess.run([str(MPCC), str(model), "-o", str(work / "m.c"), "--name", "m"], capture_output=True,
                          text=True)
    assert proc.returncode == 0, proc.stderr
    header = (work / "m.h").read_text()
    decl = re.search(r"^ \*\s+(static double arena\[[^\]]+\];)", header, re.M)
    assert decl, "the header documents no arena declaration"
    arena = int(re.search(r"#define M_ARENA_BYTES (\d+)", header).group(1))
    print(f"{model.stem}: arena {arena} bytes, example: {decl.group(1)}")
    (work / "use.c").write_text('#include "m.h"\n' + decl.group(1) + "\n"
                                "int main(void) { m_init(arena); return 0; }\n")
    proc = subprocess.run([cc, "-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic", "-I", str(work),
                           "-I", str(ROOT / "runtime"), "-c", str(work / "use.c"), "-o", str(work / "use.o")],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
