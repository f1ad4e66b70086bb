"""The suite catches the planted bugs of tests/meta/planted_bugs.py.

For each plant: copy the project to a temporary folder, apply the mutation
there, run the tests the plant names, and require them to fail (pytest exit
status 1: tests ran and some failed; an import or collection error does not
count). The same tests must pass on the unmutated copy first, so a failure is
the plant's doing.

`make test` runs the plants marked `ci`; `make mutate-tests` sets
PLANTED_BUGS=all and runs every plant.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from tests.meta.planted_bugs import PLANTS

ROOT = Path(__file__).resolve().parents[2]
COPY_IGNORE = shutil.ignore_patterns(".git", ".venv", "_bookcheck", "_book", "__pycache__",
                                     ".pytest_cache", ".hypothesis", "*.pyc")
RUN_ALL = os.environ.get("PLANTED_BUGS") == "all"
SELECTED = [p for p in PLANTS if RUN_ALL or p.ci]


def run_tests(root: Path, tests) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("PLANTED_BUGS", "PYTEST_ADDOPTS")}
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider",
                           "-p", "no:randomly", *tests],
                          cwd=root, env=env, capture_output=True, text=True, timeout=900)


@pytest.fixture(scope="module")
def pristine(tmp_path_factory) -> Path:
    """An unmutated copy of the project, on which every selected plant's tests pass."""
    root = tmp_path_factory.mktemp("pristine") / "project"
    shutil.copytree(ROOT, root, ignore=COPY_IGNORE, symlinks=True)
    tests = sorted({t for p in SELECTED for t in p.tests})
    done = run_tests(root, tests)
    assert done.returncode == 0, f"the plants' tests fail without any plant:\n{done.stdout[-3000:]}"
    return root


def test_plant_ids_are_unique_and_every_plant_applies(tmp_path):
    assert len({p.id for p in PLANTS}) == len(PLANTS)
    for plant in PLANTS:
        copy = tmp_path / plant.id
        copy.mkdir()
        shutil.copy2(ROOT / plant.path, copy / Path(plant.path).name)
        moved = type(plant)(**{**plant.__dict__, "path": Path(plant.path).name})
        moved.apply(copy)
        assert (copy / moved.path).read_bytes() != (ROOT / plant.path).read_bytes(), plant.id


def test_every_test_a_plant_names_exists():
    """A moved or renamed test file (or test) is followed here, not silently lost."""
    missing = []
    for plant in PLANTS:
        for test in plant.tests:
            path, _, name = test.partition("::")
            source = ROOT / path
            function = name.split("[")[0]
            if not source.is_file() or (name and f"def {function}(" not in source.read_text()):
                missing.append(f"{plant.id}: {test}")
    assert missing == []


@pytest.fixture(scope="module")
def outcomes(pristine, tmp_path_factory) -> dict[str, subprocess.CompletedProcess]:
    """Each selected plant applied to its own copy and its tests run, two plants at a time."""
    def run(plant):
        root = tmp_path_factory.mktemp(plant.id) / "project"
        shutil.copytree(pristine, root, ignore=COPY_IGNORE, symlinks=True)
        plant.apply(root)
        return plant.id, run_tests(root, plant.tests)
    with ThreadPoolExecutor(max_workers=2) as pool:
        return dict(pool.map(run, SELECTED))


@pytest.mark.slow
@pytest.mark.parametrize("plant", SELECTED, ids=[p.id for p in SELECTED])
def test_the_suite_catches_the_planted_bug(plant, outcomes):
    done = outcomes[plant.id]
    tail = (done.stdout + done.stderr)[-3000:]
    # caught: a test failed, or the planted bug broke a test's setup (the fault book's
    # check exits non-zero); a collection error (exit 2) is not a catch
    summary = done.stdout.strip().splitlines()[-1] if done.stdout.strip() else ""
    caught = " failed" in summary or " error" in summary
    assert done.returncode == 1 and caught, (
        f"planted bug {plant.id} ({plant.promise}) was not caught by {', '.join(plant.tests)}:"
        f"\n{tail}")
