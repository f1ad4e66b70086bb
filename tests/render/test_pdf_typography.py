"""The PDF template's typography (scripts/bookcheck/render/assets/book.typ, issue 35): a
table's header row is bold, captions are ragged (centred), not justified, and a
URL shown as text breaks only after a slash, never at one of its hyphens.

Each document is Markdown set by pandoc with the book's template and typst, and
read back with pdfplumber (fonts, glyph positions, lines)."""
from __future__ import annotations

import subprocess
from statistics import median

import pdfplumber
import pytest

from bookcheck.binaries import pandoc_binary
from bookcheck.render.pdf import TEMPLATE


def typeset(tmp_path, markdown: str):
    """The PDF of `markdown` set with the book's template."""
    source = subprocess.run([pandoc_binary(), "--from=markdown", "--to=typst", f"--template={TEMPLATE}",
                             "--metadata=title:T", "--metadata=pagetitle:T", "--metadata=lang:en"],
                            input=markdown, capture_output=True, text=True, check=True).stdout
    typ = tmp_path / "doc.typ"
    typ.write_text(source, encoding="utf-8")
    import typst
    pdf = tmp_path / "doc.pdf"
    typst.compile(str(typ), output=str(pdf))
    return pdf


def lines_of(page) -> list[list[dict]]:
    """The page's words grouped in lines (by their top), top to bottom."""
    rows: dict[int, list[dict]] = {}
    for word in page.extract_words(extra_attrs=["fontname", "size"], keep_blank_chars=False):
        rows.setdefault(round(word["top"]), []).append(word)
    return [sorted(words, key=lambda w: w["x0"]) for _, words in sorted(rows.items())]


def test_a_tables_header_row_is_bold_and_its_body_is_not(tmp_path):
    pdf = typeset(tmp_path, "# One\n\n| Scope | Count |\n|---|---:|\n| alpha | 12 |\n| beta | 34 |\n\n"
                            ": A table. {#tbl-x}\n")
    with pdfplumber.open(str(pdf)) as doc:
        words = {w["text"]: w["fontname"] for p in doc.pages for w in p.extract_words(extra_attrs=["fontname"])}
    assert "Bold" in words["Scope"] and "Bold" in words["Count"]
    assert "Bold" not in words["alpha"] and "Bold" not in words["12"]


def test_a_long_caption_is_ragged_not_justified(tmp_path):
    caption = ("A caption long enough to run over three lines of the page, so that its first lines "
               "would be stretched to the full measure if captions were justified as the body text is, "
               "which the HTML does not do, and neither should the PDF in any of its figures or tables.")
    pdf = typeset(tmp_path, f"# One\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n: {caption} {{#tbl-x}}\n")
    with pdfplumber.open(str(pdf)) as doc:
        page = next(p for p in doc.pages if "caption" in (p.extract_text() or ""))
        rows = [r for r in lines_of(page) if any(w["text"] in caption.split() for w in r) and len(r) > 3]
    assert len(rows) >= 2

    def gaps(row):
        return [b["x0"] - a["x1"] for a, b in zip(row, row[1:])]
    natural = median(gaps(rows[-1]))            # the last line is never stretched
    for row in rows[:-1]:
        assert median(gaps(row)) == pytest.approx(natural, abs=0.05)   # justified: spaces stretched or shrunk


def test_a_url_breaks_after_a_slash_and_never_at_its_hyphens(tmp_path):
    url = "https://example.org/a-rather-long-path/with-many-hyphens-in-it/and-more-of-them-here/end-of-it/"
    words = " ".join(["word"] * 14)
    pdf = typeset(tmp_path, f"# One\n\n{words} <{url}> after.\n\n{words} words <{url}>.\n")
    with pdfplumber.open(str(pdf)) as doc:
        text = "\n".join(p.extract_text() or "" for p in doc.pages)
    lines = [line for line in text.splitlines() if "example" in line or "hyphens" in line or "-them" in line
             or "end-of" in line.replace("\u2011", "-")]
    assert len(lines) >= 3                       # the URLs did break over lines
    for line in lines:
        assert not line.rstrip().endswith(("-", "\u2011")), line
    joined = text.replace("\u200b", "").replace("\u2011", "-").replace("\n", "")
    assert joined.count(url) == 2                # the URL reads the same, once its line breaks are joined
