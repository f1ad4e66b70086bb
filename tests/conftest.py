"""Root of the test suite: the skip policy (tests/skip_policy.py) applied through markers,
and the fixtures tests of several folders share.

- `@pytest.mark.needs_tool("chromium", ...)`: every named executable must be on PATH;
- `@pytest.mark.local_only`: the test reads files outside the repository
  (`../shared/seeds`, `../shared/tools/seed-overlap`); listed in docs/testing.md.

Missing requirements skip locally and fail when `CI` is set, naming what is
missing. Tests in folders this file does not own are marked by node id below.
Markers are registered once, in pyproject.toml.
"""
from __future__ import annotations

import contextlib
import os
import signal
import sys
from pathlib import Path

import pytest

from tests import REPO, skip_policy
from tests.bookkit import check, checked, copy_book, copy_fixture, moved
from tests.processes import child_pids

# A suite started in the background of a shell without job control (`make test &`,
# some CI runners) inherits SIGINT *ignored*, and so would every checker the tests
# start: Ctrl-C tests would then wait forever for an exit that cannot come. The
# tests simulate a terminal user, so the processes they start get SIGINT's default.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

# The checker every test starts (`python -m bookcheck`, a kernel's helpers) is this
# checkout's scripts/bookcheck, also when the suite runs in a copy of the repository
# (the planted bugs): first on every child's import path, before the installed one.
os.environ["PYTHONPATH"] = os.pathsep.join(
    [str(REPO / "scripts")] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep)
                               if p and p != str(REPO / "scripts")])

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


@pytest.fixture
def no_leftover_kernels():
    """Fail if a test leaves a kernel (or any child process) running."""
    before = child_pids()
    yield
    from bookcheck.run import execute
    assert execute.LIVE_KERNEL_PIDS == set()
    assert child_pids() - before == set()


@pytest.fixture
def project_root() -> Path:
    return REPO


@pytest.fixture(scope="session")
def minibook_result(tmp_path_factory):
    """The fixture book checked once per test session."""
    root = copy_fixture("minibook", tmp_path_factory.mktemp("checked"))
    return checked(root)


@pytest.fixture()
def fresh_minibook(tmp_path, minibook_result):
    """A private copy of the fixture book and its checked result."""
    root = copy_fixture("minibook", tmp_path)
    return root, moved(minibook_result, root)


@pytest.fixture(scope="module")
def minibook(tmp_path_factory, minibook_result):
    """A module-wide copy of the fixture book and its checked result."""
    root = copy_fixture("minibook", tmp_path_factory.mktemp("render"))
    return root, moved(minibook_result, root)


@pytest.fixture(scope="session")
def real_book_result(tmp_path_factory):
    """The project's own book, copied to a temporary directory and checked.

    The copy keeps the repository clean (no _book/, _bookcheck/ or ledger
    writes). Ledger differences are accepted in the copy (they do not
    matter for rendering); any other finding fails the test.
    """
    skip_policy.require_path(REPO / "_quarto.yml", "the book's _quarto.yml")
    root = copy_book(tmp_path_factory.mktemp("realbook") / "book")
    result = check(root)
    problems = [f"{f.location()}: {f.reason}" for f in result.findings if f.kind != "ledger"]
    assert not problems, "the book does not check cleanly:\n" + "\n".join(problems[:20])
    if not result.ok:
        result = check(root)
    assert result.ok, [f.reason for f in result.findings]
    return result


@pytest.fixture(scope="session")
def real_book_html(real_book_result):
    """The real book rendered to HTML once per session: (result, _book dir)."""
    from bookcheck.render import render_book
    render_book(real_book_result, "html", use_quarto=False)
    return real_book_result, Path(real_book_result.project.root) / "_book"
