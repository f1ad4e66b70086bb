"""The per-chapter cache: what the key depends on, and that entries are never trusted blindly."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

from bookcheck.read.qmd import parse_chapter
from bookcheck.run import cache, facts_side
from bookcheck.model import CellRun, ChapterRun, Finding, InlineRun, Kind, Output, ParsedChapter
from tests.bookkit import make_book


@pytest.fixture
def book(tmp_path):
    return make_book(tmp_path, {"mlsys/__init__.py": "from .constants import *\n",
                                "mlsys/constants.py": "GPU_MTTF_HOURS = 50_000\n"})


def parsed(text="# A\n\n`{python} 1 + 1`\n", path="contents/a.qmd") -> ParsedChapter:
    return ParsedChapter(path=path, text=text)


def sample_run(path="contents/a.qmd") -> ChapterRun:
    return ChapterRun(
        path=path,
        cells=[CellRun(index=0, outputs=[Output("markdown", "| a |\n|---|\n| > 99.9 % → |"),
                                         Output("image/png", "iVBORw0KGgo=")])],
        inlines=[InlineRun(index=0, kind="text", text="2")],
        findings=[Finding(path=path, line=3, kind=Kind.INVARIANT, reason="x < y", label="tbl-a")],
        invariants=4, seconds=1.25)


# ------------------------------------------------------------------- the key

def test_key_is_stable(book):
    assert cache.chapter_key(book, parsed()) == cache.chapter_key(book, parsed())


def _read(text: str) -> ParsedChapter:
        return parse_chapter("contents/a.qmd", text)


CODE = "# A\n\nProse.\n\n```{python}\nx = 1\n```\n\nValue `{python} x`.\n"


def test_key_changes_with_the_chapter_code_not_its_prose(book):
    key = cache.chapter_key(book, _read(CODE))
    assert cache.chapter_key(book, _read(CODE.replace("x = 1", "x = 2"))) != key
    assert cache.chapter_key(book, _read(CODE.replace("{python} x", "{python} x + 1"))) != key
    assert cache.chapter_key(book, _read(CODE.replace("```{python}\n", "```{python}\n#| eval: false\n"))) != key
    assert cache.chapter_key(book, _read(CODE.replace("Prose.", "New prose,\non two lines."))) == key


def test_key_changes_with_the_timeout_and_execute_options(book):
    key = cache.chapter_key(book, _read(CODE), {"timeout": 120.0})
    assert cache.chapter_key(book, _read(CODE), {"timeout": 1.0}) != key
    assert cache.chapter_key(book, _read(CODE), {"timeout": 120.0, "execute": {"error": True}}) != key


def test_key_changes_with_the_chapter_path(book):
    assert cache.chapter_key(book, parsed()) != cache.chapter_key(book, parsed(path="contents/b.qmd"))


def test_key_changes_when_any_file_of_a_book_package_changes(book):
    """The book's own package (a folder beside _quarto.yml with an __init__.py, named
    mlsys here as in any book) is keyed whole; another folder is not a package."""
    before = cache.chapter_key(book, parsed())
    (book / "mlsys" / "constants.py").write_text("GPU_MTTF_HOURS = 40_000\n")   # same size
    edited = cache.chapter_key(book, parsed())
    (book / "mlsys" / "data").mkdir()
    (book / "mlsys" / "data" / "table.csv").write_text("a,b\n")
    added = cache.chapter_key(book, parsed())
    assert len({before, edited, added}) == 3
    (book / "notes").mkdir()
    (book / "notes" / "todo.py").write_text("x = 1\n")
    assert cache.chapter_key(book, parsed()) == added
    assert facts_side.book_packages(str(book)) == ["mlsys"]


def test_key_ignores_bytecode_caches(book):
    before = cache.chapter_key(book, parsed())
    (book / "mlsys" / "__pycache__").mkdir()
    (book / "mlsys" / "__pycache__" / "constants.cpython-311.pyc").write_bytes(b"\0junk")
    assert cache.chapter_key(book, parsed()) == before


def test_key_does_not_change_when_another_chapter_changes(book):
    (book / "contents").mkdir()
    (book / "contents" / "b.qmd").write_text("first")
    before = cache.chapter_key(book, parsed())
    (book / "contents" / "b.qmd").write_text("second")
    assert cache.chapter_key(book, parsed()) == before


def key_with(book, monkeypatch, name: str, stand_in) -> str:
    """The chapter's key with `cache.<name>` replaced by `stand_in` (the environment
    digest recomputed), the real one restored afterwards."""
    monkeypatch.setattr(cache, name, stand_in)
    cache.forget_environment()
    try:
        return cache.chapter_key(book, parsed())
    finally:
        monkeypatch.undo()
        cache.forget_environment()


def test_key_changes_with_a_package_version(book, monkeypatch):
    before = cache.chapter_key(book, parsed())
    real = cache.package_versions()
    assert key_with(book, monkeypatch, "package_versions",
                    lambda names=cache.PACKAGES: {**real, "nbclient": "0.0.1"}) != before
    assert cache.chapter_key(book, parsed()) == before


def test_key_changes_with_the_kernel_and_the_options(book, monkeypatch):
    before = cache.chapter_key(book, parsed())
    assert cache.chapter_key(book, parsed(), {"timeout": 5}) != before
    assert key_with(book, monkeypatch, "kernel_spec",
                    lambda: {"name": "python3", "argv": ["other"]}) != before


def test_package_versions_match_importlib_metadata():
    from importlib import metadata
    versions = cache.package_versions()
    assert set(versions) == set(cache.PACKAGES)
    for name, version in versions.items():
        assert version == metadata.version(name)


def test_computing_a_key_imports_nothing_heavy(tmp_path):
    code = ("import sys; from bookcheck.run import cache; from bookcheck.model import ParsedChapter;"
            "cache.chapter_key('.', ParsedChapter(path='a.qmd', text='x'));"
            "heavy = {'pint', 'pandas', 'numpy', 'matplotlib', 'jupyter_client', 'nbclient',"
            " 'IPython', 'ipykernel'} & set(sys.modules); print(sorted(heavy))")
    out = subprocess.run([sys.executable, "-c", code], cwd=cache.Path(__file__).parents[2],
                         capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


# ------------------------------------------------------------------ entries

def test_store_then_load_round_trips(book):
    key = cache.chapter_key(book, parsed())
    run = sample_run()
    cache.store(book, key, run)
    loaded = cache.load(book, key)
    assert loaded is not None and loaded.cached and loaded.cache_key == key
    assert loaded.cells == run.cells and loaded.inlines == run.inlines
    assert loaded.findings == run.findings and loaded.invariants == 4
    assert loaded.findings[0].kind is Kind.INVARIANT        # rebuilt from the JSON, not a str


def test_missing_entry_is_none(book):
    assert cache.load(book, "0" * 64) is None


@pytest.mark.parametrize("damage", ["truncate", "tamper", "garbage", "empty", "wrong-key", "shape",
                                    "kind"])
def test_damaged_entry_is_ignored_deleted_and_recomputed(book, damage):
    key = cache.chapter_key(book, parsed())
    cache.store(book, key, sample_run())
    path = cache.entries(book).path(key)
    raw = path.read_bytes()
    if damage == "truncate":
        path.write_bytes(raw[: len(raw) // 2])
    elif damage == "tamper":                       # valid JSON, one published value changed
        header, _, payload = raw.partition(b"\n")
        run = json.loads(payload)
        run["inlines"][0]["text"] = "3"
        path.write_bytes(header + b"\n" + json.dumps(run).encode())
    elif damage == "garbage":
        path.write_bytes(b"\xff\xfe not json")
    elif damage == "empty":
        path.write_bytes(b"")
    elif damage == "wrong-key":                    # an intact entry copied under another name
        other = "f" * 64
        path = cache.entries(book).path(other)
        path.write_bytes(raw)
        key = other
    elif damage in ("shape", "kind"):   # checksum consistent, payload not a run / an unknown kind
        payload = {"not": "a run"} if damage == "shape" else json.loads(raw.partition(b"\n")[2])
        if damage == "kind":
            payload["findings"][0]["kind"] = "no-such-kind"
        cache.entries(book).put_json(key, {**payload, "cache_key": key})
    assert cache.load(book, key) is None
    assert not path.exists()
    cache.store(book, key, sample_run())           # the recomputed result is stored again
    assert cache.load(book, key) is not None


def test_store_is_atomic_and_leaves_no_temp_files(book):
    for n in range(3):
        cache.store(book, f"{n:064x}", sample_run())
    cache.store(book, f"{0:064x}", sample_run())
    names = sorted(p.name for p in cache.cache_dir(book).iterdir())
    assert names == [f"{n:064x}" for n in range(3)]


def test_prune_keeps_only_current_keys_and_clear_removes_all(book):
    for n in range(3):
        cache.store(book, f"{n:064x}", sample_run())
    (cache.cache_dir(book) / ".stray.tmp").write_text("half")
    assert cache.prune(book, {f"{1:064x}"}) == 3
    assert [p.name for p in cache.cache_dir(book).iterdir()] == [f"{1:064x}"]
    cache.clear(book)
    assert not cache.cache_dir(book).exists()
    assert cache.prune(book, set()) == 0
