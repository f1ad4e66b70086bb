"""A failed render leaves the previous _book/ untouched; html and pdf coexist."""
from __future__ import annotations

import dataclasses
import hashlib
from pathlib import Path
from types import SimpleNamespace

import pytest

from bookcheck.render import RenderError, render_book
from bookcheck.render import book as book_module



def snapshot(directory: Path) -> dict[str, str]:
    return {str(p.relative_to(directory)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(directory.rglob("*")) if p.is_file()}


def with_text_appended(result, path: str, extra: str):
    """A copy of `result` whose chapter `path` has `extra` appended to its text."""
    parsed = dict(result.parsed)
    parsed[path] = dataclasses.replace(parsed[path], text=parsed[path].text + extra)
    return SimpleNamespace(project=result.project, parsed=parsed, runs=result.runs,
                           findings=[], ok=True)


@pytest.fixture()
def rendered(fresh_minibook):
    root, result = fresh_minibook
    render_book(result, "html", use_quarto=False)
    return root, result


def assert_untouched(root: Path, before: dict) -> None:
    assert snapshot(root / "_book") == before
    leftovers = [p.name for p in root.iterdir() if p.name.startswith("_book.")]
    assert leftovers == []


def test_filter_error_keeps_previous_book(rendered):
    root, result = rendered
    before = snapshot(root / "_book")
    # a shortcode the built-in renderer cannot show stops its Lua filter (shortcodes.lua)
    broken = with_text_appended(result, "contents/scaling.qmd",
                                "\n\n{{< video https://example.org/v.mp4 >}}\n")
    with pytest.raises(RenderError) as err:
        render_book(broken, "html", use_quarto=False)
    message = str(err.value)
    assert "video" in message
    assert "contents/scaling.qmd" in message and "\n" not in message
    assert_untouched(root, before)


def test_pandoc_error_keeps_previous_book(rendered, monkeypatch):
    root, result = rendered
    before = snapshot(root / "_book")
    monkeypatch.setattr(book_module, "READER", "no-such-reader")
    with pytest.raises(RenderError, match="pandoc failed"):
        render_book(result, "html", use_quarto=False)
    assert_untouched(root, before)


def test_typst_error_keeps_previous_book(rendered):
    root, result = rendered
    render_book(result, "pdf", use_quarto=False)
    before = snapshot(root / "_book")
    assert "Mini-Book.pdf" in before
    broken = with_text_appended(result, "contents/constants.qmd",
                                "\n\n```{=typst}\n#this-function-does-not-exist()\n```\n")
    with pytest.raises(RenderError, match="typst failed"):
        render_book(broken, "pdf", use_quarto=False)
    assert_untouched(root, before)


def test_duplicate_label_is_an_error(rendered):
    root, result = rendered
    before = snapshot(root / "_book")
    broken = with_text_appended(result, "contents/constants.qmd",
                                "\n\n| a |\n|---|\n| 1 |\n\n: Again {#tbl-rates}\n")
    with pytest.raises(RenderError, match="tbl-rates is defined twice"):
        render_book(broken, "html", use_quarto=False)
    assert_untouched(root, before)


def test_html_and_pdf_do_not_destroy_each_other(rendered):
    root, result = rendered
    pdf = render_book(result, "pdf", use_quarto=False)
    assert pdf == root / "_book" / "Mini-Book.pdf"
    assert (root / "_book" / "contents" / "basics.html").is_file()   # html kept
    pdf_bytes = pdf.read_bytes()
    render_book(result, "html", use_quarto=False)
    assert pdf.read_bytes() == pdf_bytes                                 # pdf kept
    assert (root / "_book" / "index.html").is_file()


def test_pdf_first_creates_book_dir(fresh_minibook):
    root, result = fresh_minibook
    pdf = render_book(result, "pdf", use_quarto=False)
    assert pdf.is_file() and pdf.parent == root / "_book"


def test_unknown_format_and_failed_check(rendered):
    _, result = rendered
    with pytest.raises(RenderError, match="unknown format"):
        render_book(result, "docx", use_quarto=False)
    failed = SimpleNamespace(**{**vars(with_text_appended(result, "index.qmd", "")), "ok": False})
    with pytest.raises(RenderError, match="check reported problems"):
        render_book(failed, "html", use_quarto=False)


def test_a_symlink_out_of_the_project_is_not_published(tmp_path, capsys):
    """Quarto copies a linked resource following its symlink: `data.txt -> /outside` put
    the outside file in `_book/` (render/links_out.py drops the copy)."""
    from bookcheck.render import links_out
    outside = tmp_path / "outside.txt"
    outside.write_text("SECRET\n")
    root = tmp_path / "book"
    (root / "contents").mkdir(parents=True)
    (root / "contents" / "data.txt").symlink_to(outside)
    (root / "contents" / "mine.txt").write_text("ours\n")
    (root / "contents" / "near.txt").symlink_to("mine.txt")           # inside: published
    dest = tmp_path / "staging"
    (dest / "contents").mkdir(parents=True)
    for name in ("data.txt", "mine.txt", "near.txt"):
        (dest / "contents" / name).write_text((root / "contents" / name).read_text())
    files = ["contents/data.txt", "contents/mine.txt", "contents/near.txt"]
    assert links_out.drop_copies(root, files, dest) == ["contents/data.txt"]
    assert sorted(p.name for p in (dest / "contents").iterdir()) == ["mine.txt", "near.txt"]
    assert capsys.readouterr().err == (f"contents/data.txt is a symlink out of the project "
                                       f"(to {outside}): not published\n")
