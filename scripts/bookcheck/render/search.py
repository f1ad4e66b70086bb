"""Static full-text search for the built-in HTML book.

Two indexes are written under `_book/` at render time, both offline:

* `pagefind/`: Pagefind's index (the `pagefind` binary of the PyPI package
  `pagefind-bin`), used by `assets/search.js` when the book is served over
  http(s). Pagefind loads its index with fetch() and WebAssembly, which
  browsers refuse for `file://` pages.
* `search-index.js`: a small index of every section (page, heading anchor,
  heading, text) as a classic script, used from `file://` (and whenever
  Pagefind is unavailable). Search is a plain all-words match.

Only `<main>` is indexed (the HTML writer marks it `data-pagefind-body`);
elements marked `data-pagefind-ignore` (the previous/next links) and the content no
reader sees as text (`NOT_TEXT`: the TeX source of each formula that MathML carries as
an `<annotation>`, a `<script>` or `<style>` a cell's HTML output brings) are left out;
a formula is indexed as one line of text (math_text.py: "τₒₚₜ = √(2δM)"), which
is also the excerpt search.js shows for a Pagefind result.
Each section starts at a heading that has an id, so a result links to it.
"""
from __future__ import annotations

import io
import json
import subprocess
from dataclasses import asdict, dataclass
from html.parser import HTMLParser
from pathlib import Path
from typing import Callable

from . import math_text, pagefind_check
from .errors import RenderError
from ..store import stamp
from .incremental import RENDERED, RenderCache, package_dir

INDEX_JS = "search-index.js"
#: elements whose content no reader sees as text (Pagefind skips them too): a formula's
#: TeX, a cell's or the page's script and stylesheet, a template
NOT_TEXT = {"annotation", "script", "style", "template", "noscript"}
HEADINGS = {"h1", "h2", "h3", "h4", "h5", "h6"}
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta",
        "source", "track", "wbr"}


@dataclass
class Section:
    """One searchable section: the text from a heading to the next one."""
    url: str          # page-relative to the book root, with #anchor when there is one
    page: str         # the page's title
    title: str        # the heading's text ("" for text before the first heading)
    text: str


class _Sections(HTMLParser):
    """Split `<main data-pagefind-body>` into sections at headings with ids."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.depth_main = 0          # >0 while inside main
        self.ignore_depth = 0        # >0 while inside a data-pagefind-ignore element
        self.stack: list[str] = []   # open tags inside main
        self.heading: str | None = None   # open heading tag name
        self.sections: list[dict] = [{"anchor": "", "title": "", "text": []}]
        self.math: list = []         # the open elements of a formula being read (math_text)

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if not self.depth_main:
            if tag == "main" and "data-pagefind-body" in a:
                self.depth_main = 1
            return
        if self.math:                                    # inside a formula: its tree
            node = (tag, [])
            self.math[-1][1].append(node)
            self.math.append(node)
            return
        if tag == "math" and not self.ignore_depth:
            self.math = [("math", [])]
            return
        if tag in VOID:
            return
        self.stack.append(tag)
        if self.ignore_depth or "data-pagefind-ignore" in a or tag in NOT_TEXT:
            self.ignore_depth += 1
            return
        if tag in HEADINGS and a.get("id"):
            self.heading = tag
            self.sections.append({"anchor": a["id"], "title": [], "text": []})

    def handle_endtag(self, tag):
        if self.math:
            while len(self.math) > 1 and self.math.pop()[0] != tag:
                pass
            if tag == "math":
                self._text(math_text.linear(self.math[0]))
                self.math = []
            return
        if not self.depth_main or tag in VOID:
            return
        if tag == "main":
            self.depth_main, self.stack, self.ignore_depth, self.heading = 0, [], 0, None
            return
        while self.stack:
            top = self.stack.pop()
            if self.ignore_depth:
                self.ignore_depth -= 1
            elif top == self.heading:
                self.heading = None
            if top == tag:
                break

    def handle_data(self, data):
        if self.math:
            self.math[-1][1].append(data)
        elif self.depth_main and not self.ignore_depth:
            self._text(data)

    def _text(self, text: str) -> None:
        self.sections[-1]["title" if self.heading else "text"].append(text)


def _squash(parts) -> str:
    text = parts if isinstance(parts, str) else " ".join(parts)
    return " ".join(text.replace("\u00a0", " ").split())


def page_sections(page_url: str, page_title: str, html_text: str) -> list[Section]:
    """The sections of one page's `<main data-pagefind-body>`, in order."""
    parser = _Sections()
    parser.feed(html_text)
    parser.close()
    out = []
    for s in parser.sections:
        title, text = _squash(s["title"]), _squash(s["text"])
        if not title and not text:
            continue
        url = f"{page_url}#{s['anchor']}" if s["anchor"] else page_url
        out.append(Section(url, page_title, title, text))
    return out


def cached_page_sections(cache: RenderCache | None, page_url: str, page_title: str,
                         html_text: str) -> list[Section]:
    """`page_sections`, reused from `cache` while the page's HTML is unchanged."""
    if cache is None:
        return page_sections(page_url, page_title, html_text)
    key = cache.key("search-sections", page_url, page_title, html_text.encode())
    stored = cache.get(key)
    if stored is not None:
        return [Section(**row) for row in json.loads(stored)]
    sections = page_sections(page_url, page_title, html_text)
    cache.put(key, json.dumps([asdict(s) for s in sections]))
    return sections


def write_fallback_index(dest: Path, sections: list[Section]) -> Path:
    """Write `search-index.js` (a classic script: it loads from file://)."""
    data = json.dumps([asdict(s) for s in sections], ensure_ascii=False, separators=(",", ":"))
    path = dest / INDEX_JS
    # "</" cannot end the script early: the file is not inline, but keep it safe anyway.
    path.write_text("window.BOOK_SEARCH_INDEX=" + data.replace("</", "<\\/") + ";\n",
                    encoding="utf-8")
    return path


def pagefind_executable() -> Path | None:
    """The Pagefind binary shipped by the `pagefind-bin` package, if installed: the
    files its get_executable() looks for, in its order, found without importing it
    (its import costs ~20 ms)."""
    package = package_dir("pagefind_bin")
    if package is None:
        return None
    for name in ("pagefind_extended", "pagefind_extended.exe", "pagefind", "pagefind.exe"):
        if (package / name).is_file():
            return package / name
    return None


def start_pagefind(dest: Path, cache: RenderCache | None = None,
                   pages: dict | None = None) -> Callable[[], bool]:
    """Start indexing the pages under `dest` into `dest/pagefind/`; returns the function
    that waits for it: True when indexed, False without Pagefind, RenderError when it
    failed. Every HTML page must be in `dest` already; other files may still be written
    while it runs. With a `cache` and the `pages` written ({path: html}), an index built
    before from the same pages by the same Pagefind is unpacked at once instead."""
    exe = pagefind_executable()
    if exe is None:
        return lambda: False
    key = None
    if cache is not None and pages is not None:
        key = cache.key("pagefind", stamp(exe), {k: v.encode() for k, v in sorted(pages.items())})
        stored = cache.get_bytes(key)
        if stored is not None:
            import zipfile
            with zipfile.ZipFile(io.BytesIO(stored)) as archive:
                archive.extractall(dest / "pagefind")
            return lambda: True
    RENDERED.append("pagefind")
    proc = subprocess.Popen([str(exe), "--site", str(dest), "--output-subdir", "pagefind",
                             "--silent"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

    def wait() -> bool:
        stdout, stderr = proc.communicate()
        if proc.returncode != 0 or not (dest / "pagefind" / "pagefind.js").is_file():
            reason = " ".join((stderr or stdout or "no output").split())[:300]
            raise RenderError(f"pagefind failed to index the book: {reason}")
        broken = pagefind_check.problem(dest / "pagefind")     # it ignores a failed write
        if broken:
            raise RenderError(f"pagefind did not write its index whole: {broken} "
                              "(is the disk full?)")
        if key is not None:
            cache.put(key, _zipped(dest / "pagefind"))
        return True

    return wait


def _zipped(folder: Path) -> bytes:
    buffer = io.BytesIO()
    import zipfile
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_STORED) as archive:
        for path in sorted(folder.rglob("*")):
            if path.is_file():
                archive.write(path, path.relative_to(folder).as_posix())
    return buffer.getvalue()


