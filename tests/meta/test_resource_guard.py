"""The resource guard (tests/resources.py, wired in tests/conftest.py): a test not marked
`kernel`, `quarto` or `browser` that starts a Jupyter kernel, real Quarto or chromium
fails. The refusals are checked here with a guard of their own; the last test plants
an unmarked test that checks a book in a nested pytest run and requires it to fail."""
from __future__ import annotations

import asyncio
import os
import re
import subprocess
import sys
import textwrap

import pytest

from bookcheck.run import forkserver, kernelspec
from tests import REPO
from tests.conftest import RESOURCE_FIXTURES
from tests.resources import Guard


@pytest.fixture
def guard(monkeypatch):
    """A guard of this test's own (its log is not the suite's), refusing everything."""
    own = Guard()
    for name, value in own.environment(set()).items():
        monkeypatch.setenv(name, value)
    return own


def test_the_checker_finds_the_refusing_kernelspec(guard):
    argv = kernelspec.kernel_spec()["argv"]
    assert argv[:3] == [sys.executable, str(guard.refuse), "kernel"]
    assert forkserver.kernel_argv() == argv
    # the fork server would refuse to fork it: no ipykernel_launcher to run
    assert forkserver.KERNEL_MODULE not in argv


def test_a_launched_kernel_is_refused_loudly_and_logged(guard):
    argv = [a.replace("{connection_file}", "k.json") for a in kernelspec.kernel_spec()["argv"]]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=60)
    assert done.returncode == 1
    assert "a Jupyter kernel was started by a test not marked `kernel`" in done.stderr
    assert guard.since(0) == [done.stderr.strip()]


def test_the_fork_server_does_not_start_under_the_guard(guard, tmp_path):
    """The fork server runs the argv before `-m`: the refusal, which exits at once."""
    server = forkserver.ForkServer(tmp_path, dict(os.environ), kernelspec.kernel_spec()["argv"])
    try:
        assert asyncio.run(server.ready()) is False
    finally:
        server.close()
    assert len(guard.since(0)) == 1 and "forkserver_side" in guard.since(0)[0]


def test_quarto_and_chromium_are_refused_only_where_they_would_be_found(tmp_path, monkeypatch):
    own = Guard()
    monkeypatch.setenv("PATH", str(tmp_path))                   # neither on PATH
    env = own.environment(set())
    assert "PATH" not in env                                    # "no quarto on PATH" stays true
    assert env["REAL_QUARTO"] == str(own.shims["quarto"])       # tests/skip_policy.real_quarto
    for name in ("quarto", "chromium"):
        (tmp_path / name).write_text("#!/bin/sh\necho real\n")
        (tmp_path / name).chmod(0o755)
    env = own.environment(set())
    assert env["PATH"].split(os.pathsep)[:2] == [str(own.shims["quarto"].parent),
                                                 str(own.shims["browser"].parent)]
    env = own.environment({"kernel", "quarto", "browser"})
    assert env == {}
    done = subprocess.run([own.shims["browser"], "--headless"], capture_output=True, text=True)
    assert done.returncode == 1 and "not marked `browser`" in done.stderr


def test_every_fixture_that_marks_a_test_exists():
    """A renamed fixture would silently stop marking the tests that use it."""
    missing = []
    conftests = "\n".join(p.read_text(encoding="utf-8") for p in (REPO / "tests").rglob("conftest.py"))
    for marker, fixtures in RESOURCE_FIXTURES.items():
        for fixture in fixtures:
            path, _, name = fixture.rpartition("::")
            text = (REPO / path).read_text(encoding="utf-8") if path else conftests
            if not re.search(rf"@pytest\.fixture[^\n]*\n(?:@[^\n]*\n)*def {name}\(", text):
                missing.append(f"{marker}: {fixture}")
    assert missing == []


PLANT = '''
import pytest
from tests.bookkit import make_book

BOOK = {"_quarto.yml": "project:\\n  type: book\\nbook:\\n  title: T\\n  chapters:\\n    - index.qmd\\n",
        "index.qmd": "# I\\n\\n```{python}\\nx = 1\\n```\\n"}

def test_plant_checks_a_book(tmp_path):
    from bookcheck.verify.check import check_book
    check_book(make_book(tmp_path, BOOK))

def test_plant_expects_the_kernel_to_die(tmp_path):
    from bookcheck.verify.check import check_book
    assert not check_book(make_book(tmp_path, BOOK)).ok     # satisfied by the refusal: still fails

def test_plant_asks_for_real_quarto():
    from tests.skip_policy import real_quarto
    real_quarto()                                             # a skip here becomes a failure

def test_plant_starts_nothing():
    pass
'''


@pytest.mark.slow
def test_an_unmarked_test_that_starts_a_kernel_or_quarto_fails(tmp_path):
    (tmp_path / "test_plant.py").write_text(textwrap.dedent(PLANT), encoding="utf-8")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(REPO), str(REPO / "scripts")]))
    env.pop("PYTEST_ADDOPTS", None)
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           "-p", "tests.conftest", "-c", str(REPO / "pyproject.toml"),
                           "--rootdir", str(REPO), "-n", "0", str(tmp_path / "test_plant.py")],
                          cwd=REPO, env=env, capture_output=True, text=True, timeout=600)
    out = done.stdout
    assert done.returncode == 1, out[-3000:]
    assert "3 failed, 1 passed" in out, out[-3000:]
    assert out.count("a Jupyter kernel was started by a test not marked `kernel`") >= 4, out[-3000:]
    assert "forkserver_side" in out                # the fork server refused as well as the launch
    assert "real Quarto was started by a test not marked `quarto`" in out, out[-3000:]
