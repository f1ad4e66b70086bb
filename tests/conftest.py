"""Root of the test suite: the skip policy (tests/skip_policy.py) applied through markers,
and the fixtures tests of several folders share.

- `@pytest.mark.needs_tool("chromium", ...)`: every named executable must be on PATH;
- `@pytest.mark.local_only`: the test reads files outside the repository
  (`../shared/seeds`, `../shared/tools/seed-overlap`); listed in docs/testing.md.

Missing requirements skip locally and fail when `CI` is set, naming what is
missing. Tests in folders this file does not own are marked by node id below.
Markers are registered once, in pyproject.toml.

- `kernel`, `quarto`, `browser`: the test starts a Jupyter kernel, real Quarto or
  chromium. Set here for every test using a fixture of RESOURCE_FIXTURES (by hand,
  `pytestmark`, only where a test starts one itself); a test that starts one
  without its marker fails (the guard, tests/resources.py). `make test-fast`
  leaves all three out.
"""
from __future__ import annotations

import contextlib
import os
import signal
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

from tests import REPO, skip_policy
from tests.bookkit import check, checked, copy_book, copy_fixture, moved
from tests.processes import child_pids
from tests.resources import RESOURCES, Guard

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

# Under CI (loaded, two workers on a shared machine) a property test's examples may take
# long: no deadline, no too_slow health check. Tests' own @settings keep their values.
settings.register_profile("ci", deadline=None, suppress_health_check=[HealthCheck.too_slow],
                          print_blob=True)
if skip_policy.on_ci():
    settings.load_profile("ci")

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


# The fixtures that start a resource: a test using one (directly or through another
# fixture) gets the marker. `path::name` is a fixture of that test module only.
RESOURCE_FIXTURES = {
    "kernel": (
        "minibook_result", "real_book_result",              # tests/conftest.py
        "good_book_template", "runner",                      # tests/faults/conftest.py
        "quarto_exe",            # Quarto's own renders execute chapters in Jupyter kernels
        # a module's own fixture that checks (or runs the CLI on) its book once
        "tests/adoption/test_upstream.py::fixed_copy",
        "tests/book/test_book_outputs.py::result",
        "tests/faults/test_explorer_grid.py::clean",
        "tests/faults/test_rendered_audit.py::clean",
        "tests/faults/test_unchecked_digits.py::clean",
        "tests/meta/test_planted_bugs.py::pristine",         # nested pytest runs of kernel tests
        "tests/render/test_uptodate.py::built",
        "tests/run/test_execution.py::book",
        "tests/verify/test_new_values.py::new_chapter",
        "tests/verify/test_shard.py::planted",
    ),
    "quarto": ("quarto_exe",),                               # tests/quarto/conftest.py
    "browser": (),      # the browser fixtures' modules say needs_tool("chromium"): see below
}


def _resources_of(item) -> list[str]:
    module = item.nodeid.split("::")[0]
    found = []
    for marker, fixtures in RESOURCE_FIXTURES.items():
        for fixture in fixtures:
            path, _, name = fixture.rpartition("::")
            if name in item.fixturenames and path in ("", module):
                found.append(marker)
                break
    # a test that declares it drives chromium drives a browser
    if any("chromium" in m.args for m in item.iter_markers("needs_tool")):
        found.append("browser")
    return found


def pytest_collection_modifyitems(config, items):
    for item in items:
        if _local_only_paths(item.nodeid) is not None:
            item.add_marker(pytest.mark.local_only)
        for marker in _resources_of(item):
            if not item.get_closest_marker(marker):
                item.add_marker(marker)


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


_GUARD: list[Guard] = []         # made on first use, one per test process
GUARDED = pytest.StashKey[tuple]()   # the item's (MonkeyPatch, log offset)


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item):
    # The guard is on before any fixture, session-wide ones included: a fixture
    # RESOURCE_FIXTURES misses is caught by the first unmarked test that sets it up.
    if not _GUARD:
        _GUARD.append(Guard())
    patch = pytest.MonkeyPatch()
    allowed = {m for m in RESOURCES if item.get_closest_marker(m)}
    for name, value in _GUARD[0].environment(allowed).items():
        patch.setenv(name, value)
    item.stash[GUARDED] = (patch, _GUARD[0].size())
    _forget_kernelspec()
    for marker in item.iter_markers("needs_tool"):
        for name in marker.args:
            skip_policy.require_tool(name)
    if item.get_closest_marker("local_only"):
        for path, what in _local_only_paths(item.nodeid) or []:
            skip_policy.require_path(path, what, local_only=True)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    """The phase during which an unmarked test started a resource fails, naming it,
    whatever the test made of the failed start (a skip, an expected error)."""
    report = yield
    patch, offset = item.stash.get(GUARDED, (None, None))
    if patch is None:
        return report
    started = _GUARD[0].since(offset)
    if started:
        item.stash[GUARDED] = (patch, _GUARD[0].size())
        report.outcome = "failed"
        report.longrepr = "\n".join(
            ["started without its marker (tests/resources.py; docs/testing.md):"] + started)
        if hasattr(report, "wasxfail"):
            del report.wasxfail
    if call.when == "teardown":
        patch.undo()
        del item.stash[GUARDED]
        _forget_kernelspec()
    return report


def _forget_kernelspec():
    """The cache key's per-process digest names the kernelspec, which the guard just
    changed: computed again, so a test's in-process checks key as its subprocesses do."""
    cache = sys.modules.get("bookcheck.run.cache")
    if cache is not None:
        cache.forget_environment()


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
