"""Where things are, for the tests."""

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TESTS_DIR = ROOT / "tests"
MODELS_DIR = TESTS_DIR / "models"          # the generated zoo (tools/models/make_all.py)
SAMPLES_DIR = ROOT / "samples"
DIGITS_DIR = SAMPLES_DIR / "digits"
SHARED_MODELS = ROOT.parent / "shared" / "models"  # real third-party models, read in place
BUILD_DIR = ROOT / "build"
BIG_MODELS_DIR = BUILD_DIR / "models"      # large on-demand models (make models MODELS_BIG=1)
MPCC = BUILD_DIR / "mpcc"
MPCC_ASAN = BUILD_DIR / "asan" / "mpcc"


def _cpu_flags():
    """The x86 feature flags of this machine (/proc/cpuinfo), empty where there are none."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("flags"):
                return frozenset(line.split(":", 1)[1].split())
    except OSError:
        pass
    return frozenset()


CPU_FLAGS = _cpu_flags()


def zoo_models():
    """Generated models: tests/models/*.tflite and samples/digits/*.tflite."""
    return sorted(MODELS_DIR.glob("*.tflite")) + sorted(DIGITS_DIR.glob("*.tflite"))


def shared_models():
    """Third-party models under ../shared/models (tflm, tflm/seanet/*), if present."""
    return sorted(SHARED_MODELS.glob("**/*.tflite")) if SHARED_MODELS.is_dir() else []


def big_models():
    """On-demand large models in build/models, if made."""
    return sorted(BIG_MODELS_DIR.glob("*.tflite")) if BIG_MODELS_DIR.is_dir() else []


def all_models(big=False):
    """Every committed model (zoo + samples + shared), plus the big ones when asked."""
    return zoo_models() + shared_models() + (big_models() if big else [])


def model_id(path):
    """A short, stable test id for a model path."""
    path = Path(path)
    for base in (ROOT, SHARED_MODELS.parent):
        try:
            return str(path.relative_to(base))
        except ValueError:
            pass
    return path.name


class BuildLock:
    """A lock held across threads and processes (pytest-xdist workers, a bench run beside the tests):
    a thread lock plus flock on build/locks/NAME.lock. Guards the shared build caches (runtime libraries,
    object files) that several test processes may fill at once."""

    def __init__(self, name):
        import threading
        self.path = BUILD_DIR / "locks" / f"{name}.lock"
        self._thread = threading.RLock()
        self._file = None
        self._depth = 0

    def __enter__(self):
        import fcntl
        self._thread.acquire()
        if self._depth == 0:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._file = open(self.path, "a")
            fcntl.flock(self._file, fcntl.LOCK_EX)
        self._depth += 1
        return self

    def __exit__(self, *exc):
        import fcntl
        self._depth -= 1
        if self._depth == 0:
            fcntl.flock(self._file, fcntl.LOCK_UN)
            self._file.close()
            self._file = None
        self._thread.release()
        return False
