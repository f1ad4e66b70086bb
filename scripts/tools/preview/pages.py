"""Re-render only the pages a change affects (the built-in HTML path, kept warm).

A page depends on its own chapter's markdown (values and outputs in place)
and on what the whole book knows of every chapter: titles, numbers, headings
and labels (the sidebar, the pager and cross-references show them). So:

1. assemble every chapter's markdown (cheap, no pandoc) and compare it with
   the previous build's; the chapters whose markdown or figures changed run
   pandoc's collect pass again;
2. renumber the book; when any chapter's collected facts changed, or the
   project configuration did, every page is rewritten, else only the changed ones.

The first build and any configuration change render everything. Each page is
written atomically (temp file + os.replace), so the server never serves half
a page. Scratch files live in one temporary directory removed by `close()`.
"""
from __future__ import annotations

import json
import os
import posixpath
import shutil
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from scripts.render import output_dir
from scripts.render.book import (Book, Chapter, _bibliography, _book_config, _collect,
                                 _copy_static_images, _crossref, _csl, _lang, _authors,
                                 page_for)
from scripts.render.html import ASSETS, CSS, _body, page
from scripts.render.markdown import chapter_markdown
from scripts.render.numbering import ChapterInfo, number_book


def _write_atomic(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise


class PageRenderer:
    """Keeps the last build's book in memory; `render(result)` returns the pages written."""

    def __init__(self):
        self.work = Path(tempfile.mkdtemp(prefix="preview-render-"))
        self.book: Book | None = None
        self.config_json = ""
        self.markdown: dict[str, tuple[str, dict]] = {}
        self.collected: dict[str, str] = {}

    @property
    def dest(self) -> Path:
        return self._dest

    def close(self) -> None:
        shutil.rmtree(self.work, ignore_errors=True)

    def render(self, result) -> list[str]:
        """Write the pages `result` changes into the output directory; return their paths.

        On any error the next call renders everything again (no half-updated state).
        """
        try:
            return self._render(result)
        except BaseException:
            self.book = None
            raise

    def _render(self, result) -> list[str]:
        project = result.project
        self._dest = output_dir(project)
        config_json = json.dumps(project.config, sort_keys=True, default=str)
        full = self.book is None or config_json != self.config_json or \
            [c.path for c in self.book.chapters] != project.documents
        execute = getattr(project, "execute", None) or {}
        fresh: dict[str, tuple[str, dict]] = {}
        for path in project.documents:
            stem = posixpath.splitext(posixpath.basename(path))[0]
            md = chapter_markdown(result.parsed[path], result.runs.get(path), execute,
                                  files_dir=f"{stem}_files/figure-html")
            fresh[path] = (md.text, md.files)
        if full:
            self.book = self._new_book(result, fresh)
            changed = list(project.documents)
        else:
            changed = [p for p in project.documents if fresh[p] != self.markdown.get(p)]
            for chapter in self.book.chapters:
                if chapter.path in changed:
                    chapter.markdown_file.write_text(fresh[chapter.path][0], encoding="utf-8")
                    chapter.files = fresh[chapter.path][1]
        self.markdown, self.config_json = fresh, config_json
        if not changed:
            return []
        targets = [c for c in self.book.chapters if c.path in changed]
        with ThreadPoolExecutor(max_workers=min(8, os.cpu_count() or 2)) as pool:
            found = list(pool.map(lambda c: _collect(self.book, c), targets))
        facts_moved = full
        for chapter, collected in zip(targets, found):
            text = json.dumps(collected, sort_keys=True)
            facts_moved |= self.collected.get(chapter.path) != text
            self.collected[chapter.path] = text
            chapter.info = ChapterInfo(chapter.path, chapter.appendix, collected)
        infos = [c.info for c in self.book.chapters]
        self.book.refs = number_book(infos, str(self.book.crossref.get("appendix-title",
                                                                       "Appendix")))
        pages = self.book.chapters if facts_moved else targets
        self._write(pages, full)
        return [c.page for c in pages]

    def _new_book(self, result, fresh) -> Book:
        project = result.project
        chapters = []
        appendices = set(project.appendices)
        for path in project.documents:
            page = page_for(path)
            md_file = self.work / (page.replace("/", "__") + ".md")
            md_file.write_text(fresh[path][0], encoding="utf-8")
            chapters.append(Chapter(path, page, path in appendices, md_file, fresh[path][1]))
        self.collected = {}
        book_config = _book_config(project)
        return Book(root=Path(project.root), title=str(project.title or "Book"),
                    chapters=chapters, refs={}, bibliography=_bibliography(project),
                    csl=_csl(project), work=self.work, lang=_lang(project),
                    subtitle=str(book_config.get("subtitle") or ""), authors=_authors(project),
                    crossref=_crossref(project),
                    output_file=str(book_config.get("output-file") or ""))

    def _write(self, pages: list[Chapter], full: bool) -> None:
        book = self.book
        index = {c.path: i for i, c in enumerate(book.chapters)}
        with ThreadPoolExecutor(max_workers=min(8, os.cpu_count() or 2)) as pool:
            bodies = list(pool.map(lambda c: _body(book, c), pages))
        for chapter, body in zip(pages, bodies):
            for rel, data in chapter.files.items():
                _write_atomic(self._dest / chapter.page_dir / rel, data)
            _copy_static_images(book, chapter, self._dest)
            html = page(book, index[chapter.path], body)
            _write_atomic(self._dest / chapter.page, html.encode("utf-8"))
        if full:
            _write_atomic(self._dest / CSS, (ASSETS / CSS).read_bytes())
            if not (self._dest / "index.html").exists() and book.chapters:
                first = book.chapters[0].page
                _write_atomic(self._dest / "index.html",
                              f'<!DOCTYPE html><meta charset="utf-8"><meta http-equiv="refresh" '
                              f'content="0; url={first}"><a href="{first}">{first}</a>'
                              .encode("utf-8"))
