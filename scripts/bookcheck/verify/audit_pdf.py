"""The text a reader sees of a PDF, chapter by chapter, with the numbers the renderer made.

`chapter_texts(pdf, documents)` reads the PDF's text layer (`pdftotext` from
poppler-utils when it is on PATH, else pypdf; both in layout mode, which keeps
table cells apart) and splits it by its top-level bookmarks (docs/audit.md, "What
a page is"). Within a document's text the page number, a heading's number (a line
starting with a bookmark's title) and a list item's number are the renderer's
(`exempt`; a list's number only when it counts on from 1, `list_numbers`), and so
are the lines under a continuation page's running header that repeat lines of the
document's earlier pages (a long table's header row, which typst sets again on each
page the table continues on).

A text layer cannot mark a citation (HTML's `span.citation`): a year closing a
parenthesis (`(Grattafiori et al. 2024)`, a table cell's `al. 2024)`) that is the year
of an entry of the book's bibliography is the citation's label (`citation_year_spans`).

`soft_numbers(parsed)`: the numbers of the chapter's math and inline code as
written in its source, and of the cells whose code it shows (`echo` true, Quarto's
default, or `fenced`) (a text layer cannot say where code or math is): an unmatched
number among them is accounted for, once each. A superscript loses its position in a text layer (10^9 reads
"109"), so the joined digits of neighbouring numbers in one formula count as well.
"""
from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

from bookcheck.verify.audit_tokens import number_tokens, visible

LIST_ITEM = re.compile(r"^[ \t]*(\d+)[.)][ \t]", re.M)
MATH = re.compile(r"(?<!\\)\$\$.+?\$\$|(?<!\\)\$[^$\n]+?(?<!\\)\$", re.S)
COLUMN = re.compile(r"\S+(?: \S+)*")     # a run of text without two spaces in a row
INLINE_CODE = re.compile(r"`[^`\n]*`")


def page_texts(pdf: Path, wanted: range | None = None, reader=None) -> dict[int, str]:
    """The text of the pages in `wanted` (0-based; default all), by page."""
    tool = shutil.which("pdftotext")
    if tool:
        done = subprocess.run([tool, "-layout", "-enc", "UTF-8", str(pdf), "-"],
                              capture_output=True, timeout=300)
        if done.returncode == 0:
            pages = done.stdout.decode("utf-8", errors="replace").split("\f")
            return {i: visible(text) for i, text in enumerate(pages)
                    if wanted is None or i in wanted}
    if reader is None:
        from pypdf import PdfReader
        reader = PdfReader(str(pdf))
    numbers = wanted if wanted is not None else range(len(reader.pages))
    return {i: visible(reader.pages[i].extract_text(extraction_mode="layout") or "")
            for i in numbers}


def bookmarks(reader) -> tuple[list[tuple[str, int]], list[str]]:
    """(top-level bookmarks as (title, 0-based page), every bookmark's title)."""
    top, titles = [], []

    def walk(items, depth):
        for item in items:
            if isinstance(item, list):
                walk(item, depth + 1)
                continue
            titles.append(" ".join(str(item.title).split()))
            if depth == 0:
                top.append((titles[-1], reader.get_destination_page_number(item)))
    walk(reader.outline, 0)
    return top, titles


def list_numbers(text: str) -> list[tuple[int, int]]:
    """The spans of the list numbers at the start of a line that the renderer made: 1,
    and each number one more than a list number before it. A list's first number other
    than 1 (`9999.`) is the author's: it is audited."""
    spans, seen = [], set()
    for m in LIST_ITEM.finditer(text):
        n = int(m.group(1))
        if n == 1 or n - 1 in seen:
            spans.append((m.start(1), m.end(1)))
        seen.add(n)
    return spans


def _exempt(text: str, titles: list[str]) -> list[tuple[int, int]]:
    spans = list_numbers(text)
    numbered = [t for t in titles if re.match(r"(?:\d+|[A-Z])(?:\.\d+)*\s", t)]
    offset = 0
    for line in text.split("\n"):
        # a heading's line, or a column of one (the running header sets the book's
        # title and the chapter's numbered title apart on one line)
        parts = [(len(line) - len(line.lstrip()), line)]
        parts += [(column.start(), column.group(0)) for column in COLUMN.finditer(line)][1:]
        for at, part in parts:
            flat = " ".join(part.split())
            for title in numbered:
                number, _, words = title.partition(" ")
                if flat.startswith(number + " ") and flat[len(number) + 1:].startswith(words[:12]):
                    spans.append((offset + at, offset + at + len(number)))
                    break
        offset += len(line) + 1
    return spans


def _page_number_span(page: str, base: int) -> list[tuple[int, int]]:
    stripped = page.rstrip()
    last = stripped.rsplit("\n", 1)[-1]
    if last.strip().isdigit():
        end = base + len(stripped)
        return [(end - len(last), end)]
    return []


def _repeated_top_lines(page: str, earlier: str, title: str, base: int) -> list[tuple[int, int]]:
    """The lines at the top of a continuation `page` that repeat lines of the
    `earlier` pages of the same document, after its running header (the first line,
    when it holds the document's bookmark `title`), up to the first that does not:
    a long table's header row, which typst sets again on each page the table
    continues on. Spans in the document text, which holds `page` from `base`."""
    seen = {" ".join(line.split()) for line in earlier.split("\n") if line.strip()}
    spans, offset, first = [], base, True
    for line in page.split("\n"):
        if line.strip():
            flat = " ".join(line.split())
            if first and title and title in flat:
                first = False
                offset += len(line) + 1
                continue
            first = False
            if flat not in seen:
                break
            spans.append((offset, offset + len(line)))
        offset += len(line) + 1
    return spans


def chapter_texts(pdf: Path, documents: list[str]):
    """({document: (pages "5–13", text, exempt spans)}, problems)."""
    from pypdf import PdfReader
    reader = PdfReader(str(pdf))
    top, titles = bookmarks(reader)
    problems = []
    if len(top) < len(documents):
        problems.append(f"{pdf.name} has {len(top)} top-level bookmarks for {len(documents)} "
                        "documents: its pages cannot be mapped back to chapters")
        return {}, problems
    starts = [page for _, page in top] + [len(reader.pages)]
    pages = page_texts(pdf, range(starts[0], starts[len(documents)]), reader)
    out = {}
    for i, path in enumerate(documents):
        first, stop = starts[i], starts[i + 1]
        text, exempt = "", []
        for n in range(first, stop):
            page = pages.get(n, "")
            exempt += _page_number_span(page, len(text))
            if n > first:
                exempt += _repeated_top_lines(page, text, top[i][0], len(text))
            text += page.rstrip() + "\n"
        exempt += _exempt(text, titles)
        label = f"{first + 1}" if stop - first <= 1 else f"{first + 1}–{stop}"
        out[path] = (label, text, exempt)
    return out, problems


def soft_numbers(parsed) -> list[str]:
    """The numbers of the chapter's math and inline code outside its cells, and of the
    source of the cells whose code is shown (see above)."""
    lines = parsed.text.splitlines(keepends=True)
    inside = set()
    numbers = []
    for cell in parsed.cells:
        inside.update(range(cell.fence_line, cell.end_line + 1))
        if cell.resolved.shows_code:
            numbers += [n for n, _, _ in number_tokens(cell.source)]
    prose = "".join(line for i, line in enumerate(lines, start=1) if i not in inside)
    for pattern in (MATH, INLINE_CODE):
        for match in pattern.finditer(prose):
            if match.group(0).startswith("`{python}"):
                continue
            found = [n for n, _, _ in number_tokens(match.group(0))]
            numbers += found
            numbers += [a + b for a, b in zip(found, found[1:])]
    return numbers


BIB_YEAR = re.compile(r"\byear\s*=\s*[{\"]?\s*((?:19|20)\d\d)")
CITED_YEAR = re.compile(r"(?<![\w.,])((?:19|20)\d\d)[a-z]?\)")


def bibliography_years(project) -> set[str]:
    """The years of the entries of the project's bibliography files."""
    years: set[str] = set()
    for bib in getattr(project, "bibliography", None) or []:
        try:
            years |= set(BIB_YEAR.findall((Path(project.root) / bib).read_text("utf-8", errors="replace")))
        except OSError:
            continue                    # a missing bibliography is the check's finding
    return years


def citation_year_spans(text: str, years: set[str]) -> list[tuple[int, int]]:
    """The spans of the years in `text` that close a citation: a bibliography year
    before `)`."""
    return [m.span(1) for m in CITED_YEAR.finditer(text) if m.group(1) in years]
