"""pytest setup shared by all Python tests.

- A session seed: $MPCC_SEED, or derived from the clock; printed at the start as "mpcc test seed: N".
  Rerun a failure with MPCC_SEED=N.
- The `seed` fixture: session seed + crc32(test node id), printed by the test that uses it.
- `make test` runs the tests in one pytest-xdist worker per core (`--dist loadgroup`): a module whose
  tests share an expensive module fixture marks itself `xdist_group` and stays on one worker; shared
  build caches are guarded by mpcc_paths.BuildLock.
- Tests marked `full` (heavy suites beyond the fixed representative sample) run only with MPCC_FULL=1
  (`make test-full`); `make test` deselects them.
- The very last line of the run is "N passed, N failed" (", N skipped" when some were skipped).
"""

import os
import sys
import time
import zlib

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

_SEED_ENV = os.environ.get("MPCC_SEED") or os.environ.get("MPCC_SESSION_SEED")
SESSION_SEED = int(_SEED_ENV) if _SEED_ENV else int(time.time() * 1000) % 1_000_000_007
# pytest-xdist workers (`make test` runs one per core) inherit the controller's environment: they all
# draw from the one printed session seed.
os.environ.setdefault("MPCC_SESSION_SEED", str(SESSION_SEED))

_outcomes = {}  # nodeid -> "passed" | "failed" | "skipped"


def pytest_report_header(config):
    return f"mpcc test seed: {SESSION_SEED}"


def pytest_sessionstart(session):
    tr = session.config.pluginmanager.get_plugin("terminalreporter")
    # With -q pytest hides the report header; print the seed ourselves then.
    if tr is not None and session.config.get_verbosity() < 0:
        tr.write_line(f"mpcc test seed: {SESSION_SEED}")


FULL = os.environ.get("MPCC_FULL") == "1"


def pytest_configure(config):
    config.addinivalue_line("markers", "full: heavy checks that only `make test-full` (MPCC_FULL=1) runs")


def _xdist_groups(config, items):
    """pytest-xdist 3.8 marks an `xdist_group` test for `--dist loadgroup` by appending "@group" to
    item._nodeid, which pytest 9 no longer reads (the node id lives in item._id): do it here, in the
    workers, so a group really stays on one worker."""
    if not getattr(config.option, "loadgroup", False):
        return
    try:
        from _pytest.nodeid import coerce_node_id
    except ImportError:  # an older pytest: xdist's own suffix works there
        return
    for it in items:
        names = sorted({str(m.args[0] if m.args else m.kwargs.get("name", "default"))
                        for m in it.iter_markers("xdist_group")})
        if names and "@" not in it.nodeid and hasattr(it, "_id"):
            it._id = coerce_node_id(f"{it.nodeid}@{'_'.join(names)}")


def pytest_collection_modifyitems(config, items):
    """`make test` runs a fixed representative sample; tests marked `full` run under `make test-full`."""
    _xdist_groups(config, items)
    if FULL:
        return
    kept = [it for it in items if it.get_closest_marker("full") is None]
    if len(kept) != len(items):
        config.hook.pytest_deselected(items=[it for it in items if it.get_closest_marker("full") is not None])
        items[:] = kept


@pytest.fixture
def seed(request):
    s = (SESSION_SEED + zlib.crc32(request.node.nodeid.encode())) % (1 << 32)
    print(f"seed: {s} (MPCC_SEED={SESSION_SEED})")
    return s


def pytest_runtest_logreport(report):
    prev = _outcomes.get(report.nodeid)
    if report.failed:
        _outcomes[report.nodeid] = "failed"
    elif report.skipped:
        if prev != "failed":
            _outcomes[report.nodeid] = "skipped"
    elif report.when == "call" and prev is None:
        _outcomes[report.nodeid] = "passed"


def pytest_collectreport(report):
    if report.failed:
        _outcomes[report.nodeid or "<collection>"] = "failed"


@pytest.hookimpl(trylast=True)
def pytest_unconfigure(config):
    if not hasattr(config, "workerinput") and config.option.collectonly is False:
        counts = {k: sum(1 for v in _outcomes.values() if v == k) for k in ("passed", "failed", "skipped")}
        line = f"{counts['passed']} passed, {counts['failed']} failed"
        if counts["skipped"]:
            line += f", {counts['skipped']} skipped"
        sys.stdout.flush()
        sys.stdout.write(line + "\n")
        sys.stdout.flush()
