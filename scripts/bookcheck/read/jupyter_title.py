"""The heading Quarto 1.7's Jupyter engine makes a page's title (not in a book).

Outside a book (a website, a lone document, a `default` project without a top-level
`title:`), a document run by the Jupyter engine that has no `title:` gets one from a
heading (src/core/jupyter/jupyter-fixups.ts, fixupFrontMatter): the notebook's first
Markdown cell after the front matter's cell (the document's first one when it has no
front matter) that *starts* with a heading loses that heading, which becomes the page's
title; its label is gone with it. Tried with Quarto 1.7.34 on a tiny website: with
front matter, `# Top` then a cell then `## Second`: the title is "Second", and `@sec-s`
is left unresolved; without front matter, `# Top` itself is the title.
"""
from __future__ import annotations

import json
import re

from bookcheck.model import ParsedChapter

HEADING = re.compile(r"^#+\s+(.*?)\s*(?:\{[^{}]*\})?\s*$")


def applies(project) -> bool:
    """Whether Quarto gives the project's documents this title (its "default" fixups)."""
    return project.type in ("website", "single") or (project.type == "default" and not project.title)


def title_heading(parsed: ParsedChapter) -> int:
    """The line of the heading that becomes the page's title, or 0."""
    if not parsed.cells or parsed.front_matter.get("title"):
        return 0
    lines = parsed.text.split("\n")
    spans, start = [], 1                       # the Markdown cells: (first line, last line)
    for cell in parsed.cells:
        spans.append((start, cell.fence_line - 1))
        start = cell.end_line + 1
    spans.append((start, len(lines)))
    spans = [(a, b) for a, b in spans if "".join(lines[a - 1:b]).strip()]
    if lines and lines[0].strip() == "---":    # the front matter's cell is a raw cell
        spans = spans[1:]
    for first, last in spans[:1]:
        line = next(n for n in range(first, last + 1) if lines[n - 1].strip())
        return line if HEADING.match(lines[line - 1]) else 0
    return 0


def heading_text(line: str) -> str:
    """`## Title {#sec-x}` -> `Title`."""
    found = HEADING.match(line)
    return found.group(1) if found else line.strip()


def title_edits(text: str, line: int, line_start) -> list[tuple[int, int, str]]:
    """The edits of the engine Markdown `text` (render/engine_md.py) that move heading
    `line` into the front matter's `title:`, as fixupFrontMatter does; `line_start(n)`:
    the offset of line n."""
    title = f"title: {json.dumps(heading_text(text[line_start(line):line_start(line + 1)]))}\n"
    head = (line_start(2), line_start(2), title) if text.startswith("---") else (0, 0, f"---\n{title}---\n\n")
    return [head, (line_start(line), line_start(line + 1), "")]
