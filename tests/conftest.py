"""Root of the test suite: the skip policy (tests/skip_policy.py) applied through markers.

- `@pytest.mark.needs_tool("chromium", ...)`: every named executable must be on PATH;
- `@pytest.mark.local_only`: the test reads files outside the repository
  (`../shared/seeds`, `../shared/tools/seed-overlap`); listed in docs/testing.md.

Missing requirements skip locally and fail when `CI` is set, naming what is
missing. Tests in folders this file does not own are marked by node id below.
"""
from __future__ import annotations

import contextlib
import signal
import sys
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent

# A suite started in the background of a shell without job control (`make test &`,
# some CI runners) inherits SIGINT *ignored*, and so would every checker the tests
# start: Ctrl-C tests would then wait forever for an exit that cannot come. The
# tests simulate a terminal user, so the processes they start get SIGINT's default.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)
if str(TESTS) not in sys.path:
    sys.path.append(str(TESTS))          # after the project root: `mlsys` stays the package

import skip_policy  # noqa: E402

# Tests that need the reference texts in ../shared (not part of the repository).
LOCAL_ONLY = {
    "tests/mlsys/test_seed_appendix.py": [
        (skip_policy.SEEDS / "000_29f3eea53790adb1.txt", "the upstream reliability appendix (seed)")],
    "tests/book/test_book_sources.py::test_seed_overlap_reports_nothing": [
        (skip_policy.SEED_OVERLAP_TOOL, "the seed-overlap tool"),
        (skip_policy.SEEDS, "the seeds folder")],
    "tests/conformance/test_conformance.py": [
        (skip_policy.CONFORMANCE, "the Quarto conformance corpus")],
}


def pytest_configure(config):
    config.addinivalue_line("markers", "needs_tool(*names): executables the test drives "
                            "(skipped locally, an error under CI when absent)")
    config.addinivalue_line("markers", "local_only: needs files outside the repository "
                            "(../shared); skipped only when SKIP_LOCAL_ONLY is set")


def _local_only_paths(nodeid: str):
    for prefix, paths in LOCAL_ONLY.items():
        if nodeid == prefix or nodeid.startswith(prefix + "::"):
            return paths
    return None


def pytest_collection_modifyitems(config, items):
    for item in items:
        if _local_only_paths(item.nodeid) is not None:
            item.add_marker(pytest.mark.local_only)


@pytest.fixture(autouse=True)
def matplotlib_state():
    """Every test leaves matplotlib's rcParams as it found them, with no figure open
    (mlsys.plotting holds its style only while a figure is open: a test that never
    shows one, or sets rcParams itself, must not restyle the next test's figures)."""
    matplotlib = sys.modules.get("matplotlib")
    with matplotlib.rc_context() if matplotlib else contextlib.nullcontext():
        yield
        if "matplotlib.pyplot" in sys.modules:
            sys.modules["matplotlib.pyplot"].close("all")
    if matplotlib is None and "matplotlib" in sys.modules:
        sys.modules["matplotlib"].rc_file_defaults()


def pytest_runtest_setup(item):
    for marker in item.iter_markers("needs_tool"):
        for name in marker.args:
            skip_policy.require_tool(name)
    if item.get_closest_marker("local_only"):
        for path, what in _local_only_paths(item.nodeid) or []:
            skip_policy.require_path(path, what, local_only=True)
