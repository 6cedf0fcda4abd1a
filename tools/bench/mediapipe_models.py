"""Real third-party models for `make bench-mediapipe`: the .tflite files Google ships inside the `mediapipe`
wheel on PyPI (version 0.10.14, the last one that bundles its "solutions" models: face detection and
landmarks, iris, hands, palm, pose, selfie segmentation). Nobody in this project made them; they are
downloaded (pip download, no install), extracted into build/mediapipe/ and never committed.

    python tools/bench/mediapipe_models.py [--dest build/mediapipe]   # prints the paths it wrote

face_landmark_with_attention.tflite needs MediaPipe's custom operator Landmarks2TransformMatrix, which neither
mpcc nor TFLite runs without a user kernel: it is extracted but left out of the printed list (--all keeps it).
"""

import argparse
import os
import subprocess
import sys
import tempfile
import zipfile

VERSION = "0.10.14"
NEEDS_USER_KERNEL = {"face_landmark_with_attention.tflite"}


def fetch(dest, keep_all=False):
    os.makedirs(dest, exist_ok=True)
    have = sorted(f for f in os.listdir(dest) if f.endswith(".tflite"))
    if not have:
        with tempfile.TemporaryDirectory() as tmp:
            subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--only-binary=:all:",
                            "--python-version", "3.11", "--platform", "manylinux2014_x86_64",
                            f"mediapipe=={VERSION}", "-d", tmp], check=True)
            wheels = [f for f in os.listdir(tmp) if f.endswith(".whl")]
            if len(wheels) != 1:
                raise SystemExit(f"expected one mediapipe wheel, pip gave {wheels}")
            with zipfile.ZipFile(os.path.join(tmp, wheels[0])) as z:
                for name in z.namelist():
                    base = os.path.basename(name)
                    if name.startswith("mediapipe/modules/") and base.endswith(".tflite"):
                        with z.open(name) as src, open(os.path.join(dest, base), "wb") as out:
                            out.write(src.read())
        have = sorted(f for f in os.listdir(dest) if f.endswith(".tflite"))
    return [os.path.join(dest, f) for f in have if keep_all or f not in NEEDS_USER_KERNEL]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--dest", default=os.path.join("build", "mediapipe"))
    ap.add_argument("--all", action="store_true", help="also list the model that needs a user kernel")
    args = ap.parse_args(argv)
    print(",".join(fetch(args.dest, args.all)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
