"""Observed inputs: what the kernel-side observer records, and how snapshots are verified."""
from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

from bookcheck.model import ChapterRun, CodeCell, Finding, InlineExpr, Kind, ParsedChapter
from bookcheck.run import deps, facts_side, fingerprint
from bookcheck.verify.html_tables import html_tables

REPO = Path(__file__).resolve().parents[2]

DRIVER = r"""
import json, os, sys
root = sys.argv[1]
sys.path.insert(0, sys.argv[2])
import observe_side
observe_side.install(root, skip=[os.path.join(root, "booklib"), sys.argv[2]])
sys.path.insert(0, root)
os.chdir(root)
HOME_SEEN = os.environ.get("HOME")          # before observing began: not recorded
observe_side.start(0)
import helpers
helpers.work()
import booklib                              # skipped as a file, but its env reads count
booklib.read()
observe_side.stop()
seen = observe_side.observed()
seen["facts"] = {k: v for k, v in seen["facts"].items() if not k.startswith(("link /", "tree /"))}
print(json.dumps(seen))
"""

HELPERS = """\
import glob, json, os, pathlib, subprocess
def work():
    os.environ.get("BOOK_SCALE")
    os.getenv("BOOK_UNSET")
    dict(os.environ)
    json.load(open("data.json"))
    try:
        open("contents/optional.json")
    except FileNotFoundError:
        pass
    open("out.txt", "w").write("product")
    open("out.txt").read()
    open("_build/skipped.txt", "w").close()
    glob.glob("contents/*.csv")
    os.path.exists("flag")
    os.path.getsize("data.json")
    pathlib.Path("contents").is_dir()
    os.readlink("alias.json")
    open(sys_outside).read()
    try:
        import overrides
    except ImportError:
        pass
    subprocess.run(["true"])
sys_outside = os.environ["BOOK_OUTSIDE"]
"""


def test_the_observer_records_every_kind_of_touch(tmp_path):
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
    env = {"PATH": os.environ["PATH"], "BOOK_SCALE": "2", "BOOK_LIB": "lib", "BOOK_OUTSIDE": str(outside),
           "PWD": "/somewhere", "TERM": "dumb"}
    proc = subprocess.run([sys.executable, "-c", DRIVER, str(root), str(REPO / "scripts" / "bookcheck" / "run")],
                          capture_output=True, text=True, env=env, timeout=60)
    assert proc.returncode == 0, proc.stderr
    seen = json.loads(proc.stdout.splitlines()[-1])
    digest = lambda text: hashlib.sha256(text.encode()).hexdigest()   # noqa: E731
    facts = seen["facts"]
    if "env LC_CTYPE" in facts:         # set by Python itself (C locale coercion)
        env["LC_CTYPE"] = facts.pop("env LC_CTYPE")
    finds = {k: facts.pop(k)[1] for k in list(facts) if k.startswith("find ")}
    site = next(p for p in sys.path if p.endswith("-packages"))
    assert set(finds) == {"find .", f"find {site}"}     # (scripts/bookcheck/run is skipped)
    for names in finds.values():        # searched the root ('' = cwd) and sys.path
        assert "overrides" in names and "_locale" not in names      # (builtins: never searched)
    assert {"booklib", "helpers", "glob"} <= set(finds["find ."])   # a glob.py there would shadow
    assert "glob" not in finds[f"find {site}"]      # found before: its distribution decides
    assert facts == {
        "env BOOK_LIB": "lib", "env BOOK_OUTSIDE": str(outside), "env BOOK_SCALE": "2",
        "env BOOK_UNSET": None, "env PATH": os.environ["PATH"],
        "environ *": facts_side.environ_fact(env),
        "path data.json": digest("{}"), "path contents/optional.json": None,
        "path out.txt": None, "path flag": None, "path contents": "dir",
        "path helpers.py": digest(HELPERS),
        "link alias.json": "link data.json",
        f"path {outside}": digest("far"),
        "list contents": facts_side.list_fact(str(root / "contents")),
        "env QMD_OBSERVE_ID": None,         # observed without the interposer
    }
    assert seen["products"] == ["path out.txt"]
    assert [o["reason"] for o in seen["opaque"]] == ["starts a subprocess (true ['true'])"]
    assert "PWD" not in json.dumps(facts) and "TERM" not in json.dumps(facts)


def test_a_snapshot_notices_every_kind_of_change(tmp_path):
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "a.csv").write_text("1")
    (tmp_path / "x.json").write_text("{}")
    root = str(tmp_path)
    observed = {"facts": {"path x.json": facts_side.path_fact(str(tmp_path / "x.json")),
                          "path later.json": None, "list d": facts_side.list_fact(str(tmp_path / "d")),
                          "env V": "1", "env U": None,
                          "find d": facts_side.find_fact(str(tmp_path / "d"), ["overrides"])}}
    snap = deps.snapshot(tmp_path, observed)
    assert snap["unstable"] is None
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
    (tmp_path / "d" / "overrides.py").write_text("X = 1")
    assert deps.changed(tmp_path, snap, env).startswith("a module looked for in d/")
    (tmp_path / "d" / "overrides.py").unlink()
    (tmp_path / "x.json").unlink()
    assert deps.changed(tmp_path, snap, env) == "x.json was removed"
    assert root


def test_an_input_changed_while_the_run_went_on_is_not_stable(tmp_path):
    (tmp_path / "x.json").write_text("{}")
    first = {"facts": {"path x.json": facts_side.path_fact(str(tmp_path / "x.json"))}}
    (tmp_path / "x.json").write_text("{ }")
    assert deps.snapshot(tmp_path, first)["unstable"] == "x.json changed while the chapter ran"
    product = {"facts": {"path out.txt": None}, "products": ["path out.txt"]}
    (tmp_path / "out.txt").write_text("made")
    snap = deps.snapshot(tmp_path, product)
    assert snap["unstable"] is None and snap["facts"]["path out.txt"] == facts_side.path_fact(str(tmp_path / "out.txt"))


def _chapter(text: str) -> ParsedChapter:
    """The chapter as read_book gives it: parsed, its options resolved."""
    from bookcheck.read.options import resolve
    from bookcheck.read.project import Project
    from bookcheck.read.qmd import parse_chapter
    parsed = parse_chapter("contents/c.qmd", text)
    resolve(Project(root=Path(".")), parsed)
    return parsed


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
        Finding("contents/c.qmd", 7, Kind.INVARIANT, "x is big", label=None,
                detail="contents/c.qmd:7 in <module>: check(x > 2, 'x is big')"),
        Finding("contents/c.qmd", 10, Kind.INLINE_EMPTY, "nothing", col=7),
        Finding("contents/c.qmd", 0, Kind.KERNEL_DIED, "whole file")])
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


def test_every_imported_package_is_recorded_with_its_distribution(tmp_path, monkeypatch):
    from importlib import metadata
    snap = deps.snapshot(tmp_path, {"facts": {}, "dists": ["yaml", "numpy", "no_such_module_here"]})
    assert snap["facts"] == {"dist no_such_module_here": None,
                             "dist numpy": f"numpy {metadata.version('numpy')}",
                             "dist yaml": f"pyyaml {metadata.version('PyYAML')}"}   # named apart
    assert deps.changed(tmp_path, snap, {}) is None
    deps.forget_distributions()
    deps._scan()
    monkeypatch.setattr(deps, "_installed", {d for d in deps._installed if not d.startswith("numpy ")})
    monkeypatch.setitem(deps._dists, "numpy", "numpy 0.0.1")
    assert deps.changed(tmp_path, snap, {}) == (f"the package providing numpy changed "
                                                f"(numpy {metadata.version('numpy')} → numpy 0.0.1)")
    monkeypatch.undo()
    deps.forget_distributions()
