"""Freeze entries (scripts/bookcheck/render/freeze.py) and the engine Markdown they hold
(engine_md.py), from hand-made runs: no kernel, no Quarto."""
from __future__ import annotations

import base64
import hashlib
import json
import struct
import zlib
from types import SimpleNamespace

from bookcheck.model import CellRun, ChapterRun, InlineRun, Kind, Output
from bookcheck.read.book import read_book
from bookcheck.render import freeze
from bookcheck.render.engine_md import engine_markdown
from tests.bookkit import make_book

CONFIG = "project:\n  type: book\nbook:\n  chapters:\n    - index.qmd\n    - contents/ch.qmd\n"
CHAPTER = ("# Ch {#sec-ch}\n\n"
           "```{python}\n#| echo: false\nx = 1\n```\n\n"
           "Value `{python} x`.\n\n"
           "```{python}\n#| label: tbl-t\n#| tbl-cap: \"It's a table\"\n#| echo: false\nt\n```\n\n"
           "```{python}\n#| label: fig-f\n#| fig-cap: \"A figure\"\n#| fig-alt: \"Alt 'text'\"\n"
           "#| echo: false\nplot()\n```\n")


def png(width: int, height: int, dpi: int | None = None) -> bytes:
    """A PNG header: IHDR, a pHYs chunk saying `dpi` (as matplotlib writes it), IEND."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    phys = chunk(b"pHYs", struct.pack(">IIB", round(dpi / .0254), round(dpi / .0254), 1)) \
        if dpi else b""
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + phys + chunk(b"IEND", b"")


IMAGE = png(301, 201, dpi=192)      # Quarto's retina PNG: twice its 96 dpi, odd sizes


def book(tmp_path, chapter: str = CHAPTER, config: str = CONFIG):
    make_book(tmp_path, {"index.qmd": "# Preface {.unnumbered}\n", "contents/ch.qmd": chapter}, config)
    read = read_book(tmp_path)
    image = base64.b64encode(IMAGE).decode()
    run = ChapterRun(path="contents/ch.qmd", cells=[
        CellRun(0, []),
        CellRun(1, [Output("markdown", "| a |\n|---|\n| 1 |", result=True)]),
        CellRun(2, [Output("text", "[<matplotlib.lines.Line2D at 0x1>]", result=True),
                    Output("image/png", image)])],
        inlines=[InlineRun(0, "text", "1", "1")])
    return SimpleNamespace(project=read.project, parsed=read.parsed,
                           runs={"contents/ch.qmd": run}, ok=True)


EXPECTED_MD = (
    "# Ch {#sec-ch}\n\n\n\n"          # a hidden cell without output leaves its newline
    "Value 1.\n\n"
    "::: {#tbl-t .cell tbl-cap='It\\'s a table' execution_count=2}\n\n"
    "::: {.cell-output .cell-output-display .cell-output-markdown execution_count=2}\n"
    "| a |\n|---|\n| 1 |\n:::\n:::\n\n\n"
    "::: {#cell-fig-f .cell execution_count=3}\n\n"
    "::: {.cell-output .cell-output-display}\n"
    "![A figure](ch_files/figure-html/fig-f-output-1.png){#fig-f width=151 height=101 "
    "fig-alt='Alt \\'text\\''}\n:::\n:::\n\n\n")


def test_engine_markdown_is_what_quartos_jupyter_engine_writes(tmp_path):
    result = book(tmp_path)
    md = engine_markdown(result.parsed["contents/ch.qmd"], result.runs["contents/ch.qmd"], tmp_path)
    assert md.markdown == EXPECTED_MD
    assert list(md.files) == ["ch_files/figure-html/fig-f-output-1.png"]


def test_a_figures_size_is_the_one_quarto_writes():
    """mdImageOutput: retina PNG at twice fig-dpi -> half its pixels rounded (JS
    Math.round); at another dpi -> IPython's metadata, half floored; `png`/`svg`
    figures carry no size."""
    from bookcheck.render.figure_size import image_size, png_dpi
    retina = {"fig-format": "retina", "fig-dpi": 96}
    assert png_dpi(IMAGE) == (192, 192) and png_dpi(png(2, 2)) == (-1, -1)
    assert image_size(IMAGE, retina) == (151, 101)
    assert image_size(png(301, 201, dpi=220), retina) == (150, 100)
    assert image_size(png(301, 201), retina) == (150, 100)
    assert image_size(IMAGE, {"fig-format": "png", "fig-dpi": 96}) == (0, 0)


def test_entry_is_quartos_json_in_the_hidden_freezer(tmp_path):
    result = book(tmp_path)
    written, findings = freeze.write_entries(result)
    assert (written, findings) == (["contents/ch.qmd"], [])      # index.qmd has no cells
    entry_dir = tmp_path / ".quarto" / "_freeze" / "contents" / "ch"
    text = (entry_dir / "execute-results" / "html.json").read_text(encoding="utf-8")
    assert json.loads(text) == {"hash": hashlib.md5(CHAPTER.encode()).hexdigest(), "result": {
        "engine": "jupyter", "markdown": EXPECTED_MD, "supporting": ["ch_files"],
        "filters": [], "includes": {}}}
    assert text.startswith('{\n  "hash": "') and '\n    "filters": [],\n' in text
    assert (entry_dir / "figure-html" / "fig-f-output-1.png").read_bytes() == IMAGE
    assert not (tmp_path / "_freeze").exists()


def test_freeze_auto_puts_the_entry_in_the_visible_freezer(tmp_path):
    result = book(tmp_path, config=CONFIG + "execute:\n  freeze: auto\n")
    freeze.write_entries(result)
    assert (tmp_path / "_freeze" / "contents" / "ch" / "execute-results" / "html.json").is_file()


def test_a_source_changed_after_the_check_is_a_finding_and_gets_no_entry(tmp_path):
    result = book(tmp_path)
    (tmp_path / "contents" / "ch.qmd").write_text(CHAPTER + "\nMore.\n")
    written, findings = freeze.write_entries(result)
    assert written == [] and [(f.path, f.kind) for f in findings] == [("contents/ch.qmd", Kind.FREEZE)]
    assert "changed since it was checked" in findings[0].reason
    assert not (tmp_path / ".quarto").exists()


def test_a_chapter_starting_with_a_bom_is_handed_over_with_quartos_hash(tmp_path):
    """Quarto (Deno.readTextFileSync) hashes the text without its UTF-8 BOM, and the check
    read it without: the BOM made it "changed since it was checked" for ever."""
    result = book(tmp_path)
    (tmp_path / "contents" / "ch.qmd").write_bytes(b"\xef\xbb\xbf" + CHAPTER.encode())
    assert freeze.write_entries(result) == (["contents/ch.qmd"], [])
    entry = tmp_path / ".quarto" / "_freeze" / "contents" / "ch" / "execute-results" / "html.json"
    assert json.loads(entry.read_text())["hash"] == hashlib.md5(CHAPTER.encode()).hexdigest()


def test_a_run_with_findings_is_never_handed_over(tmp_path):
    result = book(tmp_path)
    from bookcheck.model import Finding
    result.runs["contents/ch.qmd"].findings.append(Finding("contents/ch.qmd", 3, Kind.INVARIANT, "no"))
    written, findings = freeze.write_entries(result)
    assert written == [] and findings[0].kind == Kind.FREEZE


def test_a_run_whose_findings_the_baseline_accepts_is_handed_over(tmp_path):
    """A book adopted with a baseline (verify/baseline.py) passes its check with those
    findings; Quarto must publish its checked runs all the same, not execute them."""
    from bookcheck.model import Finding
    from bookcheck.verify.baseline import Verdict
    result = book(tmp_path)
    known = Finding("contents/ch.qmd", 3, Kind.INVARIANT, "known")
    result.runs["contents/ch.qmd"].findings.append(known)
    result.verdict = Verdict(baselined=[Finding("contents/ch.qmd", 3, Kind.INVARIANT, "known")])
    assert freeze.write_entries(result) == (["contents/ch.qmd"], [])
    result.runs["contents/ch.qmd"].findings.append(Finding("contents/ch.qmd", 4, Kind.INVARIANT, "new"))
    written, findings = freeze.write_entries(result)
    assert written == [] and findings[0].kind == Kind.FREEZE


def test_the_hash_is_quartos_md5_of_the_lf_text():
    """freezeInputHash: the same hash for a file saved with CRLF line endings."""
    assert freeze.source_hash("a\r\nb\r\n") == hashlib.md5(b"a\nb\n").hexdigest()


def test_a_display_offering_html_brings_quartos_widget_scripts(tmp_path):
    """A DataFrame (text/html among its MIME types, even when another one is shown)
    makes Quarto's engine load require.js and jQuery: the entry says so too."""
    result = book(tmp_path)
    entry = tmp_path / ".quarto" / "_freeze" / "contents" / "ch" / "execute-results" / "html.json"
    freeze.write_entries(result)
    assert json.loads(entry.read_text(encoding="utf-8"))["result"]["includes"] == {}
    result.runs["contents/ch.qmd"].cells[1].outputs[0].scripted = True
    freeze.write_entries(result)
    (head,) = json.loads(entry.read_text(encoding="utf-8"))["result"]["includes"]["include-in-header"]
    assert head.count("<script") == 3 and "jquery/3.5.1/jquery.min.js" in head
