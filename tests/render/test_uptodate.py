"""`bookcheck html` with nothing changed (scripts/bookcheck/render/uptodate.py): the
second run checks and renders nothing; any change it could depend on makes it a
full build again, whose output shows the change."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from bookcheck.render import uptodate

from tests import REPO
from tests.bookkit import checked, copy_fixture

from .conftest import quarto_stub

pytestmark = pytest.mark.slow

UNCHANGED = "nothing has changed since"
PAGE = "_book/contents/scaling.html"
CHAPTER = "contents/scaling.qmd"


def html(root: Path, **env_extra) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items()       # (pytest changes PYTEST_CURRENT_TEST)
           if k not in ("GITHUB_ACTIONS", "_", "PYTEST_CURRENT_TEST")}
    env.update(PYTHONPATH=str(REPO), MPLBACKEND="Agg", **env_extra)
    env["PATH"] = os.pathsep.join(p for p in env.get("PATH", "").split(os.pathsep)
                                  if not (Path(p) / "quarto").exists())
    done = subprocess.run([sys.executable, "-m", "bookcheck", "html"], cwd=root, env=env,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0 or "FAILED" in done.stdout, done.stdout + done.stderr
    return done


def files(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


@pytest.fixture()
def built(tmp_path):
    """A fixture book built once with `html` (its stamp written)."""
    root = copy_fixture("minibook", tmp_path)
    checked(root)                       # runs the kernels once, writes numbers.lock
    first = html(root)
    assert first.returncode == 0 and UNCHANGED not in first.stdout, first.stdout
    return root


def test_second_html_checks_and_renders_nothing(built):
    before = files(built / "_book")
    again = html(built)
    assert again.returncode == 0, again.stdout + again.stderr
    assert UNCHANGED in again.stdout
    assert again.stdout.startswith("ok: 4 chapters checked")
    assert again.stdout.rstrip().endswith(f"html: {built / '_book' / 'index.html'}")
    assert files(built / "_book") == before


def _prose(root):
    path = root / CHAPTER
    path.write_text(path.read_text(encoding="utf-8") + "\nA sentence added later.\n", encoding="utf-8")
    return "A sentence added later."


def _same_size_same_mtime(root):
    """An edit that keeps the file's size and puts its mtime back (only ctime tells)."""
    path = root / CHAPTER
    text, stat = path.read_text(encoding="utf-8"), path.stat()
    assert "Tail latency" in text
    path.write_text(text.replace("Tail latency", "Tail LATENCY"), encoding="utf-8")
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    assert path.stat().st_size == stat.st_size and path.stat().st_mtime_ns == stat.st_mtime_ns
    return "Tail LATENCY"


def _page_deleted(root):
    (root / PAGE).unlink()
    return "Tail latency"


def _page_tampered(root):
    page = root / PAGE
    page.write_text(page.read_text(encoding="utf-8").replace("Tail latency", "Tampered"),
                    encoding="utf-8")
    return "Tail latency"


def _new_file(root):
    (root / "contents" / "notes.txt").write_text("a file no chapter lists yet\n")
    return "Tail latency"


def _new_empty_folder(root):
    (root / "contents" / "figures").mkdir()
    return "Tail latency"


@pytest.mark.parametrize("change", [_prose, _same_size_same_mtime, _page_deleted,
                                    _page_tampered, _new_file, _new_empty_folder])
def test_any_change_makes_a_full_build(built, change):
    expected = change(built)
    again = html(built)
    assert UNCHANGED not in again.stdout, again.stdout
    assert again.stdout.startswith("ok: 4 chapters checked (4 from cache)"), again.stdout
    assert expected in (built / PAGE).read_text(encoding="utf-8")
    assert UNCHANGED in html(built).stdout          # and the new state is stamped


def test_another_environment_makes_a_full_build(built):
    assert UNCHANGED not in html(built, BOOK_TEST_VARIABLE="1").stdout
    assert UNCHANGED in html(built, BOOK_TEST_VARIABLE="1").stdout


def test_a_failed_build_leaves_no_stamp(built):
    """Break a chapter, build (findings), put the exact bytes and mtime back: the next
    build is a full one (the failed build forgot the stamp), and succeeds."""
    path = built / CHAPTER
    original, stat = path.read_bytes(), path.stat()
    path.write_bytes(original + b"\n```{python}\nraise ValueError('broken')\n```\n")
    failed = html(built)
    assert failed.returncode == 1 and "FAILED" in failed.stdout, failed.stdout
    assert not uptodate.stamp_path(built).exists()
    path.write_bytes(original)
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    again = html(built)
    assert again.returncode == 0 and UNCHANGED not in again.stdout, again.stdout


def test_a_file_saved_during_the_build_is_seen_by_the_next_one(built):
    """The inputs are taken when a build starts: an edit made while it runs (after
    `begin`) leaves the stamp it writes stale, so the next build is a full one."""
    options = {"command": "html"}
    _, start = uptodate.begin(built, options)
    _prose(built)
    uptodate.record(start, "_book", "ok: …", str(built / "_book" / "index.html"))
    stamp, start = uptodate.begin(built, options)
    assert stamp is None
    uptodate.record(start, "_book", "ok: …", str(built / "_book" / "index.html"))
    stamp, _ = uptodate.begin(built, options)
    assert stamp is not None and stamp["summary"] == "ok: …"


def test_the_checker_code_counts_when_it_lives_outside_the_book(built, tmp_path, monkeypatch):
    from bookcheck import store
    code = tmp_path / "code"
    (code / "bookcheck" / "render").mkdir(parents=True)
    (code / "bookcheck" / "render" / "filter.lua").write_text("-- v1\n")
    monkeypatch.setattr(store, "PROJECT", code)
    store.forget_code()
    before = uptodate.inputs_digest(built, "_book", {})
    assert uptodate.inputs_digest(built, "_book", {}) == before
    (code / "bookcheck" / "render" / "filter.lua").write_text("-- v2\n")
    store.forget_code()
    assert uptodate.inputs_digest(built, "_book", {}) != before
    monkeypatch.undo()
    store.forget_code()


def test_options_and_settings_that_never_use_the_stamp(monkeypatch, tmp_path):
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path))           # no quarto
    assert uptodate.usable({"command": "html"})
    assert not uptodate.usable({"command": "html", "force": True})
    assert not uptodate.usable({"command": "html", "json": True})
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    assert not uptodate.usable({"command": "html"})
    monkeypatch.delenv("GITHUB_ACTIONS")
    quarto_stub(tmp_path / "bin")
    monkeypatch.setenv("PATH", str(tmp_path / "bin"))
    assert uptodate.usable({"command": "html"})          # Quarto's identity is in the digest


def test_the_quarto_on_path_counts_and_its_build_state_does_not(built, tmp_path, monkeypatch):
    """Another Quarto, or the same one reinstalled, makes a full build; what a build
    writes at the root for Quarto (`.quarto/`, `_freeze/`) does not. PATH stays the
    same throughout (it is in the digest anyway): a symlink on it picks the Quarto."""
    link = tmp_path / "path"
    link.mkdir()
    monkeypatch.setenv("PATH", os.pathsep.join([str(link), os.environ["PATH"]]))
    exe = quarto_stub(tmp_path / "one" / "bin")
    version = tmp_path / "one" / "share" / "version"
    version.parent.mkdir()
    version.write_text("1.7.34")
    (link / "quarto").symlink_to(exe)
    without_state = uptodate.inputs_digest(built, "_book", {})
    for state in (".quarto/idx/ch.qmd.json", "_freeze/contents/scaling/execute-results/html.json"):
        (built / state).parent.mkdir(parents=True, exist_ok=True)
        (built / state).write_text("{}")
    assert uptodate.inputs_digest(built, "_book", {}) == without_state

    def changes_digest(change) -> bool:
        before = uptodate.inputs_digest(built, "_book", {})
        change()
        return uptodate.inputs_digest(built, "_book", {}) != before

    stat = version.stat()
    assert changes_digest(lambda: (version.write_text("1.7.35"),     # same size, same mtime
                                   os.utime(version, ns=(stat.st_atime_ns, stat.st_mtime_ns))))
    assert changes_digest(lambda: exe.write_text(exe.read_text() + "# reinstalled\n"))
    assert changes_digest(lambda: (exe.parent / "pandoc").write_text(""))   # a bundled tool
    other = tmp_path / "two"
    shutil.copytree(tmp_path / "one", other, symlinks=True)       # same files, same mtimes
    for copied in other.rglob("*"):
        original = tmp_path / "one" / copied.relative_to(other)
        os.utime(copied, ns=(original.stat().st_atime_ns, original.stat().st_mtime_ns))
    assert changes_digest(lambda: ((link / "quarto").unlink(),
                                   (link / "quarto").symlink_to(other / "bin" / "quarto")))
    assert changes_digest(lambda: (link / "quarto").unlink())      # no Quarto any more


def test_an_output_directory_moved_by_the_config_is_left_out_after_one_build(tmp_path):
    """`output-dir: docs/book`: the first build's stamp only names the new directory
    (its inputs were digested without it); from the second on, the directory's own
    files are not inputs, while a file beside it still is."""
    root = tmp_path / "book"
    (root / "docs" / "book").mkdir(parents=True)
    (root / "_quarto.yml").write_text("project:\n  output-dir: docs/book\n")
    options = {"command": "html"}
    stamp, start = uptodate.begin(root, options)
    assert stamp is None and start.output_dir == "_book"
    uptodate.record(start, "docs/book", "ok", "docs/book/index.html")
    stamp, start = uptodate.begin(root, options)
    assert stamp is None and start.output_dir == "docs/book"
    (root / "docs" / "book" / "index.html").write_text("<p>built</p>\n")
    uptodate.record(start, "docs/book", "ok", "docs/book/index.html")
    stamp, _ = uptodate.begin(root, options)
    assert stamp is not None and stamp["produced"] == "docs/book/index.html"
    uptodate.record(_, "docs/book", "ok", "docs/book/index.html")
    (root / "docs" / "notes.md").write_text("beside the output, an input\n")
    stamp, _ = uptodate.begin(root, options)
    assert stamp is None


def test_a_tree_too_large_to_list_is_never_stamped(tmp_path, monkeypatch):
    """Past MAX_FILES files (in the project or in the output directory) nothing is
    listed, and an unlisted state never counts as unchanged."""
    root = tmp_path / "book"
    (root / "_book").mkdir(parents=True)
    (root / "_quarto.yml").write_text("project:\n  type: book\n")
    for n in range(3):
        (root / "_book" / f"page{n}.html").write_text("<p>page</p>\n")
    options = {"command": "html"}
    _, start = uptodate.begin(root, options)
    uptodate.record(start, "_book", "ok", "_book/index.html")
    assert uptodate.begin(root, options)[0] is not None          # small enough: stamped
    _, start = uptodate.begin(root, options)
    uptodate.record(start, "_book", "ok", "_book/index.html")
    monkeypatch.setattr(uptodate, "MAX_FILES", 2)     # inputs fit (2 rows each), the output not
    _, start = uptodate.begin(root, options)
    assert start.digest is not None
    uptodate.record(start, "_book", "ok", "_book/index.html")
    assert uptodate.begin(root, options)[0] is None
    (root / "more.txt").write_text("one file too many\n")
    assert uptodate.begin(root, options)[1].digest is None
    (root / "_book" / "page0.html").write_text("<p>tampered</p>\n")
    assert uptodate.begin(root, options)[0] is None


def test_a_reader_gone_costs_no_traceback_and_keeps_the_build(built):
    """stdout is a pipe nobody reads any more (`make html | head -0`): the build
    still renders and writes its stamp (stdout is buffered), then exits 1 quietly."""
    _prose(built)
    read_end, write_end = os.pipe()
    os.close(read_end)
    env = {k: v for k, v in os.environ.items()
           if k not in ("GITHUB_ACTIONS", "_", "PYTEST_CURRENT_TEST", "PYTHONUNBUFFERED")}
    env.update(PYTHONPATH=str(REPO), MPLBACKEND="Agg")
    try:
        done = subprocess.run([sys.executable, "-m", "bookcheck", "html"], cwd=built, env=env,
                              stdout=write_end, stderr=subprocess.PIPE, text=True, timeout=600)
    finally:
        os.close(write_end)
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
    assert "A sentence added later." in (built / PAGE).read_text(encoding="utf-8")
    assert uptodate.stamp_path(built).is_file()
