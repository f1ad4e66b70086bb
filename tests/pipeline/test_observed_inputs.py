"""Observed inputs: what the kernel-side observer records, and how snapshots are verified."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from scripts.model import CodeCell, Finding, InlineExpr, ParsedChapter, ChapterRun
from scripts.run import deps, fingerprint
from scripts.verify.html_tables import html_tables

REPO = Path(__file__).resolve().parents[2]

DRIVER = r"""
import json, os, sys
root = sys.argv[1]
sys.path.insert(0, sys.argv[2])
import observe_side
observe_side.install(root, skip=[os.path.join(root, "_build"), os.path.join(root, "booklib")])
sys.path.insert(0, root)
os.chdir(root)
HOME_SEEN = os.environ.get("HOME")          # this script is not under the root: not recorded
import helpers
helpers.work()
import booklib                              # skipped as a file, but its env reads count
booklib.read()
print(json.dumps(observe_side.observed()))
"""

HELPERS = """\
import glob, json, os
def work():
    os.environ.get("BOOK_SCALE")
    os.getenv("BOOK_UNSET")
    json.load(open("data.json"))
    try:
        open("contents/optional.json")
    except FileNotFoundError:
        pass
    open("out.txt", "w").write("product")
    open("out.txt").read()
    open("_build/skipped.txt", "w").close()
    open("_build/skipped.txt").read()
    glob.glob("contents/*.csv")
"""


def test_the_observer_records_files_modules_listings_and_variables(tmp_path):
    root = tmp_path / "book"
    (root / "contents").mkdir(parents=True)
    (root / "_build").mkdir()
    (root / "helpers.py").write_text(HELPERS)
    (root / "data.json").write_text("{}")
    (root / "booklib").mkdir()
    (root / "booklib" / "__init__.py").write_text("import os\ndef read():\n    return os.getenv('BOOK_LIB')\n")
    env = dict(os.environ, BOOK_SCALE="2", BOOK_LIB="lib")
    env.pop("BOOK_UNSET", None)
    proc = subprocess.run([sys.executable, "-c", DRIVER, str(root), str(REPO / "scripts" / "run")],
                          capture_output=True, text=True, env=env, timeout=60)
    assert proc.returncode == 0, proc.stderr
    seen = json.loads(proc.stdout.splitlines()[-1])
    assert seen == {"files": ["contents/optional.json", "data.json", "helpers.py"],
                    "dirs": ["contents"],
                    "env": {"BOOK_LIB": "lib", "BOOK_SCALE": "2", "BOOK_UNSET": None}}


def test_a_snapshot_notices_every_kind_of_change(tmp_path):
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "a.csv").write_text("1")
    (tmp_path / "x.json").write_text("{}")
    observed = {"files": ["x.json", "later.json"], "dirs": ["d"], "env": {"V": "1", "U": None}}
    snap = deps.snapshot(tmp_path, observed)
    assert snap["files"]["later.json"] is None
    env = {"V": "1"}
    assert deps.changed(tmp_path, snap, env) is None
    (tmp_path / "x.json").write_text("{ }")
    assert deps.changed(tmp_path, snap, env) == "x.json changed"
    (tmp_path / "x.json").write_text("{}")
    (tmp_path / "later.json").write_text("{}")
    assert deps.changed(tmp_path, snap, env) == "later.json appeared"
    (tmp_path / "later.json").unlink()
    (tmp_path / "d" / "b.csv").write_text("2")
    assert deps.changed(tmp_path, snap, env) == "the listing of d/ changed"
    (tmp_path / "d" / "b.csv").unlink()
    assert deps.changed(tmp_path, snap, {"V": "2"}) == "environment variable V changed"
    assert deps.changed(tmp_path, snap, {"V": "1", "U": "set"}) == "environment variable U changed"
    (tmp_path / "x.json").unlink()
    assert deps.changed(tmp_path, snap, env) == "x.json was removed"


def test_snapshot_refuses_paths_outside_the_root(tmp_path):
    snap = deps.snapshot(tmp_path / "in", {"files": ["../outside.txt"]})
    assert snap["files"] == {}


def _chapter(text: str) -> ParsedChapter:
    from scripts.read.qmd import parse_chapter
    return parse_chapter("contents/c.qmd", text)


CHAPTER = "# C\n\nProse.\n\n```{python}\nx = 1\ncheck(x > 2, 'x is big')\n```\n\nValue `{python} x` here.\n"


def test_the_execution_digest_ignores_prose_but_not_code():
    base = fingerprint.execution_digest(_chapter(CHAPTER))
    prose = CHAPTER.replace("Prose.", "Other prose,\nover two lines.").replace("Value", "The value")
    assert fingerprint.execution_digest(_chapter(prose)) == base
    assert fingerprint.execution_digest(_chapter(CHAPTER.replace("x = 1", "x = 2"))) != base
    assert fingerprint.execution_digest(_chapter(CHAPTER.replace("`{python} x`", "`{python} x + 1`"))) != base
    moved = CHAPTER.replace("\nValue `{python} x` here.\n", "\n").replace("Prose.", "Value `{python} x` here.")
    assert fingerprint.execution_digest(_chapter(moved)) != base      # now before the cell
    assert fingerprint.execution_digest(_chapter("---\nexecute:\n  error: true\n---\n" + CHAPTER)) != base


def test_findings_move_with_their_cell_and_inline_expression():
    old = _chapter(CHAPTER)
    run = ChapterRun(path="contents/c.qmd", findings=[
        Finding("contents/c.qmd", 7, "invariant", "x is big", label=None,
                detail="contents/c.qmd:7 in <module>: check(x > 2, 'x is big')"),
        Finding("contents/c.qmd", 10, "inline-empty", "nothing", col=7),
        Finding("contents/c.qmd", 0, "kernel-died", "whole file")])
    anchors = fingerprint.anchors(old)
    new = _chapter(CHAPTER.replace("Prose.", "More\nprose\nhere.").replace("Value", "So the value"))
    fingerprint.remap_run(run, anchors, new)
    assert [(f.line, f.col) for f in run.findings] == [(9, None), (12, 14), (0, None)]
    assert run.findings[0].detail.startswith("contents/c.qmd:9 in <module>")


def test_html_tables_of_a_dataframe():
    html = ("<table border=\"1\" class=\"dataframe\"><thead><tr style=\"text-align: right;\">"
            "<th></th><th>Nodes</th><th>MTBF &amp; more</th></tr></thead><tbody>"
            "<tr><th>0</th><td>1</td><td>10.5</td></tr><tr><th>1</th><td>2</td><td>5.25</td></tr>"
            "</tbody></table>")
    assert html_tables(html) == [(["", "Nodes", "MTBF & more"], [["0", "1", "10.5"], ["1", "2", "5.25"]])]
