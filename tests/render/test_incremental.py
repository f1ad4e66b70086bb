"""Incremental rendering (scripts/bookcheck/render/incremental.py): unchanged pages are reused,
changed ones and those whose cross-reference text changed are re-rendered.

What was re-rendered is observed through `incremental.RENDERED` (the `what` of
every pandoc/typst run the render really made), never through timing.
"""
from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from bookcheck.read.output_dir import MANIFEST
from bookcheck.render import incremental, render_book

from tests import REPO
from tests.bookkit import checked, copy_fixture, moved

pytestmark = [pytest.mark.slow, pytest.mark.kernel]     # every test checks its book before rendering

CHAPTERS = {"index.qmd", "contents/basics.qmd", "contents/scaling.qmd", "contents/constants.qmd"}


def snapshot(book: Path) -> dict[str, bytes]:
    return {p.relative_to(book).as_posix(): p.read_bytes() for p in book.rglob("*") if p.is_file()}


SPECULATIVE = " (speculative)"


def rendered_pages() -> set[str]:
    """Chapters whose apply pass (the page body) ran, speculatively or not."""
    return {w.removesuffix(SPECULATIVE) for w in incremental.RENDERED
            if w.removesuffix(SPECULATIVE) in CHAPTERS}


def runs_of(chapter: str) -> list[str]:
    """The pandoc runs of one chapter, in order (collect, speculative, apply)."""
    return [w for w in incremental.RENDERED if w.startswith(chapter + " ") or w == chapter]


def render(result, fmt="html") -> None:
    incremental.RENDERED.clear()
    render_book(result, fmt, use_quarto=False)


@pytest.fixture(scope="module")
def book(tmp_path_factory):
    root = copy_fixture("minibook", tmp_path_factory.mktemp("incremental"))
    return root, checked(root)


def test_cold_render_runs_every_page_then_nothing_when_unchanged(book):
    root, _ = book
    result = checked(root)      # the book as earlier tests left it (cached: no kernel)
    render(result)
    assert rendered_pages() == CHAPTERS
    assert {f"{c} (collect)" for c in CHAPTERS} <= set(incremental.RENDERED)
    before = snapshot(root / "_book")
    render(result)
    assert incremental.RENDERED == []          # no pandoc (nor pagefind) run at all
    assert snapshot(root / "_book") == before  # byte-identical, every file
    assert not list(root.glob("_book.tmp-*"))
    # the same book named by a relative path: same inputs, nothing re-rendered
    render(moved(result, Path(os.path.relpath(root))))
    assert incremental.RENDERED == []
    assert snapshot(root / "_book") == before


def test_prose_edit_rerenders_only_that_page(book):
    root, _ = book
    result = checked(root)      # the book as earlier tests left it (cached: no kernel)
    render(result)
    before = snapshot(root / "_book")
    path = root / "contents/scaling.qmd"
    path.write_text(path.read_text(encoding="utf-8") + "\nA new closing sentence.\n",
                    encoding="utf-8")
    render(checked(root))
    assert rendered_pages() == {"contents/scaling.qmd"}
    # one pandoc run did both passes: the apply pass, numbered with the chapter's
    # previous facts, also reported them; they were unchanged, so its page was used
    assert runs_of("contents/scaling.qmd") == ["contents/scaling.qmd" + SPECULATIVE]
    after = snapshot(root / "_book")
    assert "A new closing sentence." in after["contents/scaling.html"].decode()
    changed = {name for name in before if before[name] != after.get(name)}
    search = {name for name in changed if name.startswith("pagefind/") or name == "search-index.js"}
    # the output manifest lists the files by name: it changes only as pagefind's
    # content-hashed names do, and always lists exactly what is there
    assert json.loads(after[MANIFEST])["files"] == sorted(set(after) - {MANIFEST})
    assert changed - search - {MANIFEST} == {"contents/scaling.html"}
    assert "A new closing sentence." in after["search-index.js"].decode()   # search follows
    assert "pagefind" in incremental.RENDERED   # a changed page is indexed again


def test_renumbered_label_rerenders_pages_that_cite_it(book):
    """A new table before tbl-constants in the appendix renumbers it (A.1 -> A.2):
    the appendix and basics.qmd (which cites @tbl-constants) are re-rendered;
    scaling.qmd and the preface cite nothing whose text changed."""
    root, _ = book
    result = checked(root)      # the book as earlier tests left it (cached: no kernel)
    render(result)
    before = snapshot(root / "_book")
    assert "Table\u00a0A.1" in before["contents/basics.html"].decode()
    path = root / "contents/constants.qmd"
    text = path.read_text(encoding="utf-8")
    head, sep, rest = text.partition("\n\n")
    path.write_text(head + sep + "| a | b |\n|---|---|\n| 1 | 2 |\n\n: Extra {#tbl-extra}\n\n"
                    + rest, encoding="utf-8")
    render(checked(root))
    assert rendered_pages() == {"contents/constants.qmd", "contents/basics.qmd"}
    # the speculative apply pass, numbered as before the edit, failed on the new
    # label: both passes ran, the apply pass with the new numbers
    assert runs_of("contents/constants.qmd") == ["contents/constants.qmd" + SPECULATIVE,
                                                 "contents/constants.qmd (collect)",
                                                 "contents/constants.qmd"]
    after = snapshot(root / "_book")
    assert "Table\u00a0A.2" in after["contents/basics.html"].decode()
    assert "Table\u00a0A.2" in after["contents/constants.html"].decode()
    assert after["contents/scaling.html"] == before["contents/scaling.html"]


def test_a_speculative_page_is_used_only_when_its_numbers_hold(tmp_path):
    """Adding a table and citing it: the speculative apply pass (old numbers) fails on
    the new label, so both passes run. Removing it again: the speculative pass
    succeeds (the old numbers know every label left) and reports the chapter's
    facts, but they changed, so its page is not used; the apply pass runs again."""
    root = copy_fixture("minibook", tmp_path)
    render(checked(root))
    path = root / "contents/scaling.qmd"
    original = path.read_text(encoding="utf-8")
    head, sep, rest = original.partition("\n\n")
    path.write_text(head + sep + "As @tbl-added shows.\n\n| a | b |\n|---|---|\n| x | y |\n\n"
                    ": Added {#tbl-added}\n\n" + rest, encoding="utf-8")
    render(checked(root))
    assert runs_of("contents/scaling.qmd") == ["contents/scaling.qmd" + SPECULATIVE,
                                               "contents/scaling.qmd (collect)",
                                               "contents/scaling.qmd"]
    page = (root / "_book/contents/scaling.html").read_text(encoding="utf-8")
    assert 'href="scaling.html#tbl-added" class="quarto-xref">Table\u00a02.1</a>' in page
    assert "-caption\">Table\u00a02.2: Failures by cluster size</figcaption>" in page
    path.write_text(original, encoding="utf-8")
    render(checked(root))
    assert runs_of("contents/scaling.qmd") == ["contents/scaling.qmd" + SPECULATIVE,
                                               "contents/scaling.qmd"]
    page = (root / "_book/contents/scaling.html").read_text(encoding="utf-8")
    assert "tbl-added" not in page
    assert "-caption\">Table\u00a02.1: Failures by cluster size</figcaption>" in page  # as before


@pytest.mark.parametrize("change", ["renderer code (a Lua filter)", "pandoc"])
def test_a_code_or_tool_change_rerenders_everything(book, monkeypatch, change):
    from bookcheck import store
    root, _ = book
    result = checked(root)      # the book as earlier tests left it (cached: no kernel)
    render(result)
    if change == "pandoc":
        monkeypatch.setattr(incremental, "tools", lambda: ("another pandoc",))
    else:
        real = store.code_digest
        monkeypatch.setattr(store, "code_digest",
                            lambda *m: real(*m) + ("edited" if "bookcheck.render" in m else ""))
    render(result)
    assert rendered_pages() == CHAPTERS


def test_unchanged_pdf_is_neither_rerendered_nor_recompiled(tmp_path):
    root = copy_fixture("minibook", tmp_path)
    result = checked(root)
    render(result, "pdf")
    assert "PDF (typst compile)" in incremental.RENDERED
    pdf = next((root / "_book").glob("*.pdf"))
    first = pdf.read_bytes()
    render(result, "pdf")
    assert incremental.RENDERED == []
    assert pdf.read_bytes() == first


@pytest.mark.parametrize("fixture", ["minibook", "real book"])
def test_the_apply_pass_reports_the_collect_pass_facts(tmp_path, fixture):
    """Speculation rests on this: for every chapter (callouts, equations, figures,
    tables, parts of the real book), the facts an HTML apply pass writes are exactly
    those of the collect pass."""
    from bookcheck.read.project import load_project
    from bookcheck.render.book import prepare
    from bookcheck.render.html import body_job
    if fixture == "minibook":
        root = copy_fixture(fixture, tmp_path / "book")
    else:
        root = load_project(REPO).copy_to(tmp_path / "book")
    book = prepare(checked(root), tmp_path, cache=None)
    for chapter in book.chapters:
        facts_file = tmp_path / "facts.json"
        facts_file.unlink(missing_ok=True)
        body_job(book, chapter, facts_out=facts_file).run()
        assert json.loads(facts_file.read_text(encoding="utf-8")) == chapter.info.collected, chapter.path


def test_damaged_stored_facts_only_cost_the_speculation(tmp_path):
    """Stored facts that the numbering cannot use (here: a chapter's facts are not a
    mapping): the render still succeeds, with both passes, and stores good facts."""
    root = copy_fixture("minibook", tmp_path)
    render(checked(root))
    stored = incremental.RenderCache(root, "html").previous_facts()
    incremental.RenderCache(root, "html").put_json(
        incremental.FACTS, {**stored, "contents/scaling.qmd": "not facts"})
    path = root / "contents/scaling.qmd"
    path.write_text(path.read_text(encoding="utf-8") + "\nOne more sentence.\n", encoding="utf-8")
    render(checked(root))
    assert runs_of("contents/scaling.qmd") == ["contents/scaling.qmd (collect)",
                                               "contents/scaling.qmd"]
    assert "One more sentence." in (root / "_book/contents/scaling.html").read_text(encoding="utf-8")
    assert incremental.RenderCache(root, "html").previous_facts()["contents/scaling.qmd"] == \
        stored["contents/scaling.qmd"]
