"""Re-render only the pages a change affects (the built-in HTML path, kept warm).

A page depends on its own chapter's markdown (values and outputs in place)
and on what the whole book knows of every chapter: titles, numbers, headings
and labels (the sidebar, the pager and cross-references show them). So:

1. assemble every chapter's markdown (cheap, no pandoc) and compare it with
   the previous build's; the chapters whose markdown or figures changed run
   pandoc's collect pass again, their apply pass beside it (book.collect_all);
2. renumber the book; when any chapter's collected facts changed, or the
   project's configuration did, every page is rewritten, else only the changed ones.

The first build, any configuration change and an output missing a page or
the stylesheet (`_book/` deleted while previewing) render everything with
`make html`'s writer into a new folder swapped in for the old one (a removed
chapter's page does not stay behind to be served); afterwards each rewritten page is written atomically, so
the server never serves half a page. Scratch files live in one temporary
directory removed by `close()`; pandoc's outputs are `make html`'s render cache.
"""
from __future__ import annotations

import json
import shutil
import tempfile
from dataclasses import asdict
from pathlib import Path

from bookcheck import store
from bookcheck.files import atomic_write
from bookcheck.read.output_dir import add_to_manifest, listing, write_manifest
from bookcheck.render import output_dir
from bookcheck.render.atomic import carry_over, staging_dir, swap_in
from bookcheck.render.book import (Book, Chapter, assemble, chapter_info, collect_all, new_book,
                                 new_chapter, number, write_chapter_files)
from bookcheck.render.html import CSS, body_job, page, page_bodies, write_html
from bookcheck.render.incremental import RenderCache
from bookcheck.render.downloads import linked_pdf

def configuration(project) -> str:
    """Everything besides the chapters that every page depends on: the resolved
    options and the bytes of the bibliography and CSL files."""
    options = {k: v for k, v in asdict(project).items() if k != "findings"}
    files = {rel: store.file_digest(Path(project.root) / rel, None)
             for rel in [*project.bibliography, *([project.csl] if project.csl else [])]}
    return store.digest(options, files)


class PageRenderer:
    """Keeps the last build's book in memory; `render(result)` returns the pages written."""

    def __init__(self):
        self.work = Path(tempfile.mkdtemp(prefix="preview-render-"))
        self.book: Book | None = None
        self.config = ""
        self.markdown: dict[str, tuple[str, dict]] = {}
        self.collected: dict[str, str] = {}
        self.dest: Path | None = None

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
        self.dest = output_dir(project)
        config = configuration(project)
        fresh: dict[str, tuple[str, dict]] = {}
        for path in project.documents:
            parsed = result.parsed[path]
            md = assemble(project, parsed, result.runs.get(path))
            fresh[path] = (md.markdown, md.files)
        full = self.book is None or config != self.config or self._output_gone()
        if full:
            appendices = set(project.appendices)
            self.book = new_book(project, [new_chapter(self.work, p, p in appendices, *fresh[p])
                                           for p in project.documents], self.work)
            self.book.cache = RenderCache(Path(project.root), "html")   # shared with make html
            self.collected = {}
            changed = [c for c in self.book.chapters]
        else:
            changed = [c for c in self.book.chapters if fresh[c.path] != self.markdown.get(c.path)]
            for chapter in changed:
                chapter.markdown_file.write_text(fresh[chapter.path][0], encoding="utf-8")
                chapter.files = fresh[chapter.path][1]
        self.markdown, self.config = fresh, config
        if not changed:
            return []
        previous = {path: json.loads(text) for path, text in self.collected.items()}
        found = collect_all(self.book, changed, previous, speculate=body_job)
        facts_moved = full
        for chapter, collected in zip(changed, found):
            text = json.dumps(collected, sort_keys=True)
            facts_moved |= self.collected.get(chapter.path) != text
            self.collected[chapter.path] = text
            chapter.info = chapter_info(self.book, chapter, collected)
        number(self.book)
        pages = self.book.chapters if facts_moved else changed
        self._write(pages, full)
        return [c.page for c in pages]

    def _output_gone(self) -> bool:
        """True when a page or the stylesheet of the last build is missing from the output
        (`_book/` deleted or cleaned while previewing): everything is written again."""
        if self.book is None or self.dest is None:
            return True
        return not (self.dest / CSS).is_file() or any(
            not (self.dest / c.page).is_file() for c in self.book.chapters)

    def _write(self, pages: list[Chapter], full: bool) -> None:
        """A full render is `make html`'s own writer (pages, figures, assets, search);
        otherwise only `pages` are rewritten, each atomically."""
        book, dest = self.book, self.dest
        if full:        # built beside and swapped in: a removed chapter's page goes with it
            with staging_dir(dest) as tmp:
                carry_over(dest, tmp, "*.pdf")
                write_html(book, tmp)
                write_manifest(tmp)
                swap_in(tmp, dest)
            return
        dest.mkdir(parents=True, exist_ok=True)
        before = set(listing(dest))
        index = {c.path: i for i, c in enumerate(book.chapters)}
        pdf = linked_pdf(book, dest, say=False)        # write_html said it on the full build
        bodies = page_bodies(book, pages)
        for chapter, body in zip(pages, bodies):
            write_chapter_files(book, chapter, dest)
            target = dest / chapter.page
            target.parent.mkdir(parents=True, exist_ok=True)
            atomic_write(target, page(book, index[chapter.path], body, pdf))
        add_to_manifest(dest, sorted(set(listing(dest)) - before))   # read/output_dir.py
