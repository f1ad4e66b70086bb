"""The interposer (scripts/bookcheck/run/interpose.c) and what observe_side makes of its log."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from bookcheck.run import deps, facts_side, interpose
from tests.run.test_observed_inputs import DRIVER, HELPERS, REPO

SIDE = REPO / "scripts" / "bookcheck" / "run"


@pytest.fixture(scope="module")
def preload_env(tmp_path_factory) -> dict:
    """The variables that load the interposer (built once into a scratch book's store)."""
    env = interpose.environment(tmp_path_factory.mktemp("store"))
    if not env:
        pytest.skip(f"the interposer cannot be built here: {interpose.library(Path('.'))[1]}")
    return env


def test_it_is_built_once_into_the_store_keyed_on_its_source(tmp_path):
    lib, why = interpose.library(tmp_path)
    if lib is None:
        pytest.skip(why)
    assert lib.parent == tmp_path / "_bookcheck" / "interpose"
    assert lib.name.startswith(interpose.store.file_digest(interpose.SOURCE)[:16])
    interpose._built.clear()
    mtime = lib.stat().st_mtime_ns
    assert interpose.library(tmp_path) == (lib, None) and lib.stat().st_mtime_ns == mtime


def test_without_a_compiler_the_check_says_so_once(tmp_path, monkeypatch):
    monkeypatch.setenv("CC", "no-such-compiler-here")
    interpose._built.pop(str(tmp_path.resolve()), None)
    assert interpose.environment(tmp_path) == {}
    note = interpose.note(tmp_path)
    assert note and "no C compiler (no-such-compiler-here)" in note
    assert interpose.note(tmp_path) is None             # said once
    interpose._built.pop(str(tmp_path.resolve()), None)


def _book(tmp_path: Path) -> tuple[Path, Path]:
    root = tmp_path / "book"
    (root / "contents").mkdir(parents=True)
    (root / "_build").mkdir()
    (root / "helpers.py").write_text(HELPERS)
    (root / "data.json").write_text("{}")
    (root / "alias.json").symlink_to("data.json")
    outside = tmp_path / "outside.txt"
    outside.write_text("far")
    (root / "booklib").mkdir()
    (root / "booklib" / "__init__.py").write_text("import os\ndef read():\n    return os.getenv('BOOK_LIB')\n")
    return root, outside


def test_the_interposer_sees_every_kind_of_touch(tmp_path, preload_env):
    """The same run as test_observed_inputs' (Python's own calls, a subprocess), seen
    at the libc boundary: stats are stat facts (what was asked), the subprocess is
    no longer opaque (its reads are logged too)."""
    root, outside = _book(tmp_path)
    env = {"PATH": os.environ["PATH"], "BOOK_SCALE": "2", "BOOK_LIB": "lib",
           "BOOK_OUTSIDE": str(outside), **preload_env}
    proc = subprocess.run([sys.executable, "-c", DRIVER, str(root), str(SIDE)],
                          capture_output=True, text=True, env=env, timeout=60)
    assert proc.returncode == 0, proc.stderr
    seen = json.loads(proc.stdout.splitlines()[-1])
    facts = {k: v for k, v in seen["facts"].items() if not k.startswith(("find ", "env ", "environ "))}
    digest = lambda p: facts_side.path_fact(str(p))        # noqa: E731
    stat = lambda p: facts_side.stat_fact(str(p))          # noqa: E731
    assert facts == {
        "path data.json": digest(root / "data.json"), "path contents/optional.json": None,
        "path out.txt": None, "path helpers.py": digest(root / "helpers.py"),
        f"path {outside}": digest(outside),
        "stat .": stat(root), "stat contents": stat(root / "contents"), "stat flag": None,
        "stat data.json": stat(root / "data.json"), "stat helpers.py": stat(root / "helpers.py"),
        "link alias.json": "link data.json",
        "list contents": facts_side.list_fact(str(root / "contents")),
    }
    assert facts["stat data.json"].startswith("f ") and facts["stat contents"].startswith("d ")
    assert seen["facts"]["env QMD_OBSERVE_ID"] == preload_env["QMD_OBSERVE_ID"] == \
        interpose.store.file_digest(interpose.SOURCE)[:16]
    assert (seen["products"], seen["opaque"]) == (["path out.txt"], [])
    assert not list((root / "_bookcheck" / "observe").glob("*/*.log"))     # read and removed


def test_a_stat_fact_holds_what_was_asked_not_the_content(tmp_path):
    path = tmp_path / "x.json"
    path.write_text("{}")
    snap = deps.snapshot(tmp_path, {"facts": {"stat x.json": facts_side.stat_fact(str(path)),
                                              "path x.json": facts_side.path_fact(str(path))}})
    assert snap["unstable"] is None and deps.changed(tmp_path, snap, {}) is None
    os.utime(path, (1000, 1000))
    assert deps.changed(tmp_path, snap, {}) == "x.json changed (its mode, size or time)"
    only_read = {"facts": {"path x.json": snap["facts"]["path x.json"]}}
    assert deps.changed(tmp_path, only_read, {}) is None       # same bytes: a reader keeps its run
    stamped = deps.snapshot(tmp_path, {"facts": {"stat x.json": facts_side.stat_fact(str(path))}})
    path.chmod(0o600)
    assert deps.changed(tmp_path, stamped, {}) == "x.json changed (its mode, size or time)"


TREE_DRIVER = r"""
import json, os, sys
root, side, site = sys.argv[1:4]
sys.path.insert(0, side)
sys.path.insert(0, site)
import observe_side
observe_side.install(root, skip=[site, side])
observe_side.start(0)
import loosemod, pkgmod
observe_side.stop()
print(json.dumps({k: v for k, v in observe_side.observed()["facts"].items() if k.startswith(f"tree {site}")}))
"""


def test_an_installed_module_edited_in_place_changes_its_tree_fact(tmp_path):
    """A loose module (no dist-info) and a package in a site-packages folder: editing
    either in place (same version) changes the run's facts."""
    site = tmp_path / "lib" / "site-packages"
    (site / "pkgmod").mkdir(parents=True)
    (site / "pkgmod" / "__init__.py").write_text("from .inner import NODES\n")
    (site / "pkgmod" / "inner.py").write_text("NODES = 16\n")
    (site / "pkgmod-1.0.dist-info").mkdir()
    (site / "pkgmod-1.0.dist-info" / "METADATA").write_text("Name: pkgmod\nVersion: 1.0\n")
    (site / "loosemod.py").write_text("NODES = 16\n")
    root = tmp_path / "book"
    root.mkdir()
    proc = subprocess.run([sys.executable, "-c", TREE_DRIVER, str(root), str(SIDE), str(site)],
                          capture_output=True, text=True, timeout=60,
                          env={"PATH": os.environ["PATH"], "PYTHONDONTWRITEBYTECODE": "1"})
    assert proc.returncode == 0, proc.stderr
    trees = json.loads(proc.stdout.splitlines()[-1])
    assert {k: v[1] for k, v in trees.items()} == {f"tree {site}/loosemod.py": [""],
                                                   f"tree {site}/pkgmod": ["__init__.py", "inner.py"]}
    snap = {"facts": trees}
    assert deps.changed(root, snap, {}) is None
    for path in (site / "pkgmod" / "inner.py", site / "loosemod.py"):
        before = path.stat()
        path.write_text("NODES = 32\n")             # same size: only the mtime tells
        os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns + 1_000_000))
        where = path.parent if path.parent.name == "pkgmod" else path
        assert deps.changed(root, snap, {}) == f"an installed module under {where} changed"
        os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert deps.changed(root, snap, {}) is None


CHILD_DRIVER = r"""
import os, subprocess, sys
sys.path.insert(0, sys.argv[1])
import oslog_side
log = oslog_side.attach(sys.argv[2])
log.active(True)
subprocess.run(["/bin/cat", "data.txt"], env={}, stdout=subprocess.DEVNULL)     # no LD_PRELOAD given
os.system("read n < shell.txt")
log.active(False)
print(sorted({(t.op, os.path.basename(t.path)) for t in log.touches() if t.path.endswith(".txt")}))
"""


def test_children_inherit_the_interposer_even_from_an_empty_environment(tmp_path, preload_env):
    (tmp_path / "data.txt").write_text("16")
    (tmp_path / "shell.txt").write_text("16")
    proc = subprocess.run([sys.executable, "-c", CHILD_DRIVER, str(SIDE), str(tmp_path / "logs")],
                          capture_output=True, text=True, timeout=60, cwd=tmp_path,
                          env={"PATH": os.environ["PATH"], **preload_env})
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "[('open', 'data.txt'), ('open', 'shell.txt')]"


STEPS_DRIVER = r"""
import json, os, sys
root, side = sys.argv[1:3]
sys.path.insert(0, side)
import observe_side
observe_side.install(root, skip=[side])
os.chdir(root)
for step, name in enumerate(["first.txt", "second.txt", "third.txt"]):
    observe_side.start(step)
    open(name).read()
    observe_side.stop()
print(json.dumps(sorted(k for k in observe_side.observed()["facts"] if k.endswith(".txt"))))
"""


def test_every_step_is_observed_not_only_the_first(tmp_path, preload_env):
    """The log is read at the end of each step while the library keeps writing to it."""
    for name in ("first.txt", "second.txt", "third.txt"):
        (tmp_path / name).write_text(name)
    proc = subprocess.run([sys.executable, "-c", STEPS_DRIVER, str(tmp_path), str(SIDE)],
                          capture_output=True, text=True, timeout=60,
                          env={"PATH": os.environ["PATH"], **preload_env})
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout.splitlines()[-1]) == ["path first.txt", "path second.txt", "path third.txt"]
