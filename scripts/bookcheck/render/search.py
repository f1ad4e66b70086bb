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
from pathlib import Path
from typing import Callable

from . import math_text, pagefind_check
from .errors import RenderError
from ..store import stamp
from ..verify.html_tables import html_tree
from .incremental import RENDERED, RenderCache, package_dir

INDEX_JS = "search-index.js"
#: elements whose content no reader sees as text (Pagefind skips them too): a formula's
#: TeX, a cell's or the page's script and stylesheet, a template
NOT_TEXT = {"annotation", "script", "style", "template", "noscript"}
HEADINGS = {"h1", "h2", "h3", "h4", "h5", "h6"}


@dataclass
class Section:
    """One searchable section: the text from a heading to the next one."""
    url: str          # page-relative to the book root, with #anchor when there is one
    page: str         # the page's title
    title: str        # the heading's text ("" for text before the first heading)
    text: str


def page_sections(page_url: str, page_title: str, html_text: str) -> list[Section]:
    """The sections of one page's `<main data-pagefind-body>`, in order."""
    sections: list[dict] = [{"anchor": "", "title": [], "text": []}]
    for main in html_tree(html_text).xpath(
            "//main[@data-pagefind-body][not(ancestor::main[@data-pagefind-body])]"):
        _read(main, sections, heading=False)
    out = []
    for s in sections:
        title, text = _squash(s["title"]), _squash(s["text"])
        if not title and not text:
            continue
        url = f"{page_url}#{s['anchor']}" if s["anchor"] else page_url
        out.append(Section(url, page_title, title, text))
    return out


def _read(element, sections: list[dict], heading: bool) -> None:
    """Add the text in `element` to the last section (to its title in a `heading`),
    starting a section at each heading with an id; a formula is one text (math_text)."""
    def add(text: str | None) -> None:
        if text:
            sections[-1]["title" if heading else "text"].append(text)

    add(element.text)
    for child in element:
        if child.tag == "math":
            add(math_text.linear(_formula(child)))
        elif isinstance(child.tag, str) and child.tag not in NOT_TEXT \
                and "data-pagefind-ignore" not in child.attrib:
            if child.tag in HEADINGS and child.get("id"):
                sections.append({"anchor": child.get("id"), "title": [], "text": []})
                _read(child, sections, heading=True)
            else:
                _read(child, sections, heading)
        add(child.tail)


def _formula(element) -> math_text.Tree:
    """A `<math>` element as math_text reads it: (tag, [child tree or text])."""
    children = [element.text] if element.text else []
    for child in element:
        if isinstance(child.tag, str):
            children.append(_formula(child))
        if child.tail:
            children.append(child.tail)
    return element.tag, children


def _squash(parts: list[str]) -> str:
    return " ".join(" ".join(parts).replace("\u00a0", " ").split())


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


