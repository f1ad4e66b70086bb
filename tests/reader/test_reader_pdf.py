"""Print quality of the real book's PDF (issue 15).

pdftotext/pdfinfo (poppler-utils) and pypdf read the PDF the built-in path
wrote: every table caption shares its page with the table's first rows, a
table that runs over pages repeats its header row, chapters and sections
are bookmarks, the title and authors are document metadata, and
cross-references are internal links.
"""
from __future__ import annotations

import re
import subprocess

import pytest

from bookcheck.render.pdf import typst_string

from .test_real_book_pdf import real_pdf  # noqa: F401  (module fixture: one render)

pytestmark = [pytest.mark.needs_tool("pdftotext", "pdfinfo"), pytest.mark.slow]   # skipped locally, an error under CI

CAPTION = re.compile(r"^\s*Table\s+([0-9]+|[A-Z])\.[0-9]+:")
ROW = re.compile(r"\S {2,}\S")        # two cells side by side in pdftotext -layout


def pages_text(pdf) -> list[str]:
    text = subprocess.run(["pdftotext", "-layout", str(pdf), "-"], capture_output=True,
                          text=True, check=True).stdout
    return text.split("\f")


def orphaned_captions(pages: list[str]) -> list[str]:
    """Table captions with no table row after them on their page.

    A caption may wrap over a few lines; the table's header row (cells
    separated by wide gaps in -layout) must follow on the same page, before
    the page number line.
    """
    orphans = []
    for number, page in enumerate(pages, start=1):
        lines = [line for line in page.splitlines() if line.strip()]
        body = lines[:-1] if lines and lines[-1].strip().isdigit() else lines
        for i, line in enumerate(body):
            if CAPTION.match(line) and not any(ROW.search(after) for after in body[i + 1:i + 6]):
                orphans.append(f"page {number}: {line.strip()[:60]}")
    return orphans


def test_orphan_detector_bites():
    page_end = "Some prose.\nTable A.2: Cluster MTBF by scale\nfor the reference node.\n17\n"
    next_page = "GPUs     Nodes     MTBF\n8        1         3,000 h\n18\n"
    assert orphaned_captions([page_end, next_page]) == ["page 1: Table A.2: Cluster MTBF by scale"]
    together = "Prose.\nTable A.2: Cluster MTBF by scale\nGPUs     Nodes     MTBF\n8   1   3 h\n17\n"
    assert orphaned_captions([together]) == []


def test_no_caption_ends_a_page(real_pdf):
    _, pdf = real_pdf
    pages = pages_text(pdf)
    captions = sum(1 for page in pages for line in page.splitlines() if CAPTION.match(line))
    assert captions >= 10, "expected the book's numbered tables in the PDF text"
    assert orphaned_captions(pages) == []


def vector_drawing_pages(pdf, min_curves: int = 50) -> set[int]:
    """Pages whose content (with its form XObjects) draws at least
    `min_curves` Bézier segments: a vector figure (text is set in fonts, so a
    page of prose draws none)."""
    import pypdf
    found = set()
    for number, page in enumerate(pypdf.PdfReader(str(pdf)).pages, start=1):
        contents = page.get_contents()
        data = contents.get_data() if contents is not None else b""
        xobjects = (page.get("/Resources") or {}).get("/XObject") or {}
        data += b"".join(x.get_object().get_data() for x in xobjects.values())
        if len(re.findall(rb"\bc\b", data)) >= min_curves:
            found.add(number)
    return found


def test_figure_captions_share_their_page_with_the_image(real_pdf):
    """A figure never breaks: the page with "Figure X.Y:" holds the figure,
    a raster image or (the book's SVG figures) a vector drawing."""
    _, pdf = real_pdf
    listing = subprocess.run(["pdfimages", "-list", str(pdf)], capture_output=True,
                             text=True, check=True).stdout.splitlines()[2:]
    image_pages = {int(row.split()[0]) for row in listing if row.split()[2] == "image"}
    image_pages |= vector_drawing_pages(pdf)
    caption_pages = [number for number, page in enumerate(pages_text(pdf), start=1)
                     for line in page.splitlines()
                     if re.match(r"^\s*Figure\s+([0-9]+|[A-Z])\.[0-9]+:", line)]
    assert len(caption_pages) >= 5
    assert [p for p in caption_pages if p not in image_pages] == []


def test_long_tables_repeat_their_header_row(real_pdf):
    """Appendix B's constants table spans pages: its header row starts each of them."""
    _, pdf = real_pdf
    pages = pages_text(pdf)
    header = re.compile(r"^\s*Constant\s{2,}Value\s{2,}Unit\b", re.M)
    first = next(i for i, page in enumerate(pages) if header.search(page))
    last = next(i for i, page in enumerate(pages) if re.match(r"\s*References\b", page))
    spanned = pages[first:last]
    assert len(spanned) >= 2, "the constants table should run over several pages"
    assert [len(header.findall(page)) for page in spanned] == [1] * len(spanned)
    # below the running header ("Reliability at Scale … Appendix B — …")
    body = [page.lstrip("\n").split("\n", 1)[1].lstrip("\n") for page in spanned[1:]]
    assert all(header.match(page) for page in body)


def outline_titles(pdf) -> list[tuple[int, str]]:
    import pypdf
    reader = pypdf.PdfReader(str(pdf))
    out: list[tuple[int, str]] = []

    def walk(items, depth):
        for item in items:
            if isinstance(item, list):
                walk(item, depth + 1)
            else:
                out.append((depth, " ".join(item.title.replace("\u00a0", " ").split())))
    walk(reader.outline, 0)
    return out


def numbered_chapter_titles(project) -> list[str]:
    """"N Title" of each numbered chapter, from the book's own sources (a chapter an
    author adds is expected without a test edit)."""
    titles = []
    for rel in project.chapters:
        first = next(line for line in (project.root / rel).read_text(encoding="utf-8").splitlines()
                     if line.startswith("# "))
        if ".unnumbered" not in first:
            titles.append(f"{len(titles) + 1} {re.sub(r' *[{].*[}] *$', '', first[2:]).strip()}")
    return titles


def test_bookmarks_for_chapters_and_sections(real_pdf):
    result, pdf = real_pdf
    titles = outline_titles(pdf)
    top = [t for depth, t in titles if depth == 0]
    assert top[0] == "Preface"
    assert [t for t in top if re.match(r"^\d+ ", t)] == numbered_chapter_titles(result.project)
    assert sum(1 for t in top if t.startswith("Appendix ")) == len(result.project.appendices)
    assert ("1.1 The failure contract") in [t for depth, t in titles if depth == 1]
    assert any(depth == 2 and re.match(r"A\.\d+\.\d+ ", t) for depth, t in titles)


def test_title_and_author_metadata(real_pdf):
    result, pdf = real_pdf
    info = subprocess.run(["pdfinfo", str(pdf)], capture_output=True, text=True, check=True).stdout
    fields = dict(line.split(":", 1) for line in info.splitlines() if ":" in line)
    assert fields["Title"].strip() == "Reliability at Scale"
    assert fields["Author"].strip() == "The Reliability at Scale authors"


def test_cross_references_are_internal_links(real_pdf):
    """@sec-/@tbl-/@fig- references (and the contents) jump inside the PDF."""
    import pypdf
    _, pdf = real_pdf
    reader = pypdf.PdfReader(str(pdf))
    names = set(reader.named_destinations)
    dests = [a.get_object().get("/Dest") for page in reader.pages
             for a in (page.get("/Annots") or []) if a.get_object().get("/Subtype") == "/Link"]
    named = [d for d in dests if isinstance(d, str)]
    assert set(named) <= names
    assert "sec-rf-checkpoint-optimization" in named
    internal = [d for d in dests if d is not None]
    assert len(internal) >= 100


def test_typst_string_escapes_quotes_and_backslashes():
    assert typst_string('A "quoted" \\ name') == '"A \\"quoted\\" \\\\ name"'


def test_each_explorer_prints_its_default_table_and_says_the_html_has_it(real_pdf):
    """Issue 37: the PDF shows each explorer's default view (its Quantity | Value rows at
    the book's values, as the checked run computed them) and a line naming the HTML."""
    import json

    from bookcheck.verify.explorer_data import checked_grids
    result, pdf = real_pdf
    text = " ".join(pages_text(pdf))
    flat = " ".join(text.replace("\u2019", "'").split())
    grids = [grid for path, parsed in result.parsed.items()
             for _, _, grid in checked_grids(parsed, result.runs[path])]
    assert sorted(g["explorer"] for g in grids) == ["cascade", "checkpointing", "stacking"]
    for grid in grids:
        point = ",".join(str(s["default"]) for s in grid["settings"])
        rows = ([(s["label"], s["shown"][s["default"]]) for s in grid["settings"]]
                + list(zip(grid["outputs"], grid["grid"][point])))
        for label, value in rows:
            assert f"{label} {value}" in flat, (grid["explorer"], label, value, json.dumps(rows)[:200])
    assert flat.count("The HTML edition of this page lets you change these settings.") == 3
