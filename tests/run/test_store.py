"""The one store (scripts/bookcheck/store.py): an entry is a miss when damaged, and every key
includes the code that produced it, so an edit to a checker module is never served
an entry of the old code (issue 32: inline_values.py edited, 5 chapters served the
old text; a stricter audit rule passed until --force)."""
from __future__ import annotations

import ast
import shutil
from pathlib import Path

import pytest

from bookcheck import store
from bookcheck.model import ChapterRun, InlineRun, ParsedChapter
from bookcheck.run import cache
from bookcheck.verify import audit


@pytest.fixture
def entries(tmp_path):
    found = store.Store(tmp_path, "things", ("bookcheck.store",))
    found.put("k", b"payload")
    return found


@pytest.mark.parametrize("damage", ["truncate", "flip", "garbage", "empty", "no-header", "other-code"])
def test_a_damaged_entry_is_a_miss_and_deleted(entries, damage):
    path = entries.path("k")
    raw = path.read_bytes()
    damaged = {"truncate": raw[:-2], "flip": raw[:-1] + b"X", "garbage": b"\xff\xfe\x00",
               "empty": b"", "no-header": b"payload",
               "other-code": raw.replace(entries.code.encode(), b"0" * len(entries.code))}[damage]
    path.write_bytes(damaged)
    assert entries.get("k") is None
    assert not path.exists()
    entries.put("k", b"payload")                    # recomputed and stored again
    assert entries.get("k") == b"payload"


def test_json_records_round_trip_and_prune_keeps_them(entries):
    entries.put_json(".record", {"b": [1, 2], "a": "é"})
    entries.put("old", b"x")
    (entries.dir / ".half.tmp").write_bytes(b"torn")
    fresh = store.Store(entries.dir.parents[1], "things", ("bookcheck.store",))
    assert fresh.get_json(".record") == {"b": [1, 2], "a": "é"}
    assert fresh.get("k") == b"payload"
    assert fresh.prune() == 2                       # "old" and the temp file; records stay
    assert sorted(p.name for p in entries.dir.iterdir()) == [".record", "k"]


def test_nothing_but_the_store_names_the_build_folder(tmp_path):
    assert store.build_dir(tmp_path) == tmp_path / "_bookcheck"
    assert store.Store(tmp_path, "x").dir == tmp_path / "_bookcheck" / "x"


def test_the_kernel_lists_no_folder_of_the_checker_state():
    """The kernel-side observer spells the build folder itself (it imports nothing of
    bookcheck, and the checker imports it too: a name handed over when the kernel
    installs it would be module state set in two processes): the two names must agree,
    or every cached run sees its folder appear."""
    from bookcheck.run.facts_side import BUILD_NAME, SKIP_NAMES
    assert store.BUILD == BUILD_NAME and BUILD_NAME in SKIP_NAMES


SCRIPTS = Path(store.__file__).resolve().parents[1]


def _named(call: ast.Call) -> str:
    return getattr(call.func, "attr", getattr(call.func, "id", ""))


def store_name_spellings(root: Path = SCRIPTS) -> list[str]:
    """A Store made with a literal name, or a store's folder spelled after `build_dir`
    (`build_dir(root) / "cache"`): each store's name is one constant, beside the Store
    it names, imported where the folder is needed (or the store's own `.dir`)."""
    bad = []
    for path in sorted(root.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and _named(node) == "Store" and len(node.args) > 1 \
                    and isinstance(node.args[1], ast.Constant):
                bad.append(f"{path.relative_to(root)}:{node.lineno}: Store {node.args[1].value!r}")
            if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div) \
                    and isinstance(node.left, ast.Call) and _named(node.left) == "build_dir" \
                    and isinstance(node.right, ast.Constant):
                bad.append(f"{path.relative_to(root)}:{node.lineno}: build_dir / {node.right.value!r}")
    return bad


def test_every_store_name_is_spelled_once():
    assert store_name_spellings() == []


def test_a_store_name_spelled_twice_is_caught(tmp_path):
    (tmp_path / "bench.py").write_text(
        "from bookcheck import store\n"
        "STAMPS = store.Store('.', 'stamps')\n"
        "CACHE = store.build_dir('.') / 'cache'\n"
        "FINE = store.Store('.', STAMPS_NAME), store.build_dir('.') / SHARDS / 'x.json'\n")
    assert store_name_spellings(tmp_path) == ["bench.py:2: Store 'stamps'",
                                              "bench.py:3: build_dir / 'cache'"]


# ------------------------------------------------------------------ code digests

@pytest.fixture
def project(tmp_path, monkeypatch):
    """A tiny project: bookcheck.a imports bookcheck.b at the top, bookcheck.c inside a
    function and .d relatively; bookcheck.e is imported by nothing."""
    base = tmp_path / "project"
    (base / "bookcheck" / "sub").mkdir(parents=True)
    files = {"bookcheck/__init__.py": "", "bookcheck/sub/__init__.py": "",
             "bookcheck/a.py": "import json\nfrom bookcheck import b\n\ndef f():\n"
                             "    from bookcheck.sub.c import g\n    from .d import h\n",
             "bookcheck/b.py": "X = 1\n", "bookcheck/sub/c.py": "def g(): pass\n",
             "bookcheck/d.py": "def h(): pass\n", "bookcheck/e.py": "Y = 2\n",
             "bookcheck/sub/filter.lua": "return {}\n"}
    for rel, text in files.items():
        (base / rel).write_text(text)
    monkeypatch.setattr(store, "PROJECT", base)
    store.forget_code()
    yield base
    store.forget_code()


def _digest_after(edit) -> str:
    edit()
    store.forget_code()
    return store.code_digest("bookcheck.a")


def test_the_code_digest_follows_the_import_closure(project):
    before = store.code_digest("bookcheck.a")
    assert store.code_digest("bookcheck.a") == before                      # memoised, stable
    assert _digest_after(lambda: (project / "bookcheck/e.py").write_text("Y = 3\n")) == before
    changed = {_digest_after(lambda: (project / "bookcheck/b.py").write_text("X = 2\n")),
               _digest_after(lambda: (project / "bookcheck/sub/c.py").write_text("def g(): 1\n")),
               _digest_after(lambda: (project / "bookcheck/d.py").write_text("def h(): 1\n"))}
    assert before not in changed and len(changed) == 3
    new = project / "bookcheck" / "new.py"
    last = store.code_digest("bookcheck.a")
    assert _digest_after(lambda: (new.write_text("Z = 1\n"), (project / "bookcheck/b.py").write_text(
        "X = 2\nfrom bookcheck import new\n"))) != last                     # a new module imported
    assert _digest_after(lambda: new.write_text("Z = 2\n")) != last


def test_a_package_digest_covers_every_file_under_it(project):
    before = store.code_digest("bookcheck.sub")
    (project / "bookcheck/sub/filter.lua").write_text("return {1}\n")
    store.forget_code()
    assert store.code_digest("bookcheck.sub") != before


def test_an_entry_of_other_code_is_a_miss(project, tmp_path):
    old = store.Store(tmp_path, "things", ("bookcheck.a",))
    old.put("k", b"made by the old code")
    (project / "bookcheck/b.py").write_text("X = 2\n")
    store.forget_code()
    new = store.Store(tmp_path, "things", ("bookcheck.a",))
    assert new.key("inputs") != old.key("inputs")
    assert new.get("k") is None


# ------------------------------------- the real caches, on a copy of the checker's code

@pytest.fixture(scope="module")
def repo(tmp_path_factory):
    """The bookcheck package (all the store reads) in a folder of their own."""
    dest = tmp_path_factory.mktemp("repo")
    for package in store.PACKAGES:
        shutil.copytree(Path(store.PROJECT) / package, dest / package,
                        ignore=shutil.ignore_patterns("__pycache__"))
    return dest


@pytest.fixture
def in_copy(repo, monkeypatch):
    """The store reads the code of the copy: edits there are edits to the checker."""
    saved = {rel: (repo / rel).read_bytes() for rel in (
        "bookcheck/run/inline_values.py", "bookcheck/verify/audit_html.py", "bookcheck/verify/audit_tokens.py")}
    monkeypatch.setattr(store, "PROJECT", repo)
    store.forget_code()
    yield repo
    for rel, data in saved.items():
        (repo / rel).write_bytes(data)
    (repo / "bookcheck/verify/audit_rule.py").unlink(missing_ok=True)
    store.forget_code()


def _edit(repo, rel: str, old: str, new: str) -> None:
    path = repo / rel
    text = path.read_text(encoding="utf-8")
    assert text.count(old) == 1, f"{old!r} not once in {rel}"
    path.write_text(text.replace(old, new), encoding="utf-8")
    store.forget_code()


def test_an_edit_to_a_checker_module_invalidates_the_chapter_cache(in_copy, tmp_path):
    book = tmp_path / "book"
    (book / "mlsys").mkdir(parents=True)
    chapter = ParsedChapter(path="a.qmd", text="`{python} 1`\n")
    key = cache.chapter_key(book, chapter)
    cache.store(book, key, ChapterRun(path="a.qmd", inlines=[InlineRun(0, "text", "1")]))
    assert cache.load(book, cache.chapter_key(book, chapter)) is not None
    _edit(in_copy, "bookcheck/run/inline_values.py", "import re\n", "import re\nimport sys\n")
    assert cache.chapter_key(book, chapter) != key
    assert cache.load(book, cache.chapter_key(book, chapter)) is None
    assert cache.load(book, key) is None            # the old code's entry: a miss too


PAGE = (b"<html>page</html>", ["values"])


def _reused(book) -> bool:
    """A page audited before is not audited again (and stays recorded)."""
    seen = audit.Seen(book, "html")
    known = seen.known(seen.digest(*PAGE))
    seen.record(seen.digest(*PAGE), [])
    seen.save()
    return known is not None


@pytest.mark.parametrize("change", ["edit a rule", "add a module"])
def test_a_changed_or_added_audit_module_invalidates_the_page_cache(in_copy, tmp_path, change):
    book = tmp_path / "book"
    assert not _reused(book)                        # the first audit
    assert _reused(book)                            # unchanged code: not audited again
    if change == "edit a rule":
        _edit(in_copy, "bookcheck/verify/audit_tokens.py", "import re\n", "import re\nimport os\n")
    else:
        (in_copy / "bookcheck/verify/audit_rule.py").write_text("STRICTER = True\n")
        _edit(in_copy, "bookcheck/verify/audit_html.py", "from __future__ import annotations\n",
              "from __future__ import annotations\nfrom bookcheck.verify import audit_rule\n")
    assert not _reused(book)


def test_a_module_outside_the_package_is_refused():
    """A store keyed on a module name outside bookcheck (a leftover `scripts` after the
    package moved) would have an empty code digest and never see an edit."""
    with pytest.raises(ValueError, match="scripts is not a module of bookcheck"):
        store.code_digest("scripts")
    with pytest.raises(ValueError):
        store.Store(Path("."), "x", ("mlsys.formulas",))
