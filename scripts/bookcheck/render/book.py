"""The built-in render pipeline shared by HTML and PDF.

1. each chapter's markdown is the Jupyter engine's, written from the checker's
   results (engine_md.py: the text handed to Quarto's freeze; filters/cells.lua
   turns its `.cell` divs into the page's blocks);
2. collect pass: crossref.lua lists each chapter's headings and labels
   (`collect_all`; for a prose-edited HTML page the apply pass stands in);
3. numbering.py numbers the whole book;
4. the writers (html.py / pdf.py) run the apply pass per chapter
   (`apply_job`), whose context (`write_context`) carries the numbers and
   every label's link target.
"""
from __future__ import annotations

import json
import os
import posixpath
import shutil
from dataclasses import dataclass, field, replace
from pathlib import Path
from urllib.parse import quote
from typing import Callable

from bookcheck.read import crossref_kinds

from .errors import RenderError
from .footer import footer_sides
from .incremental import (Job, RenderCache, context_for_key, files_digest, lookup,
                          run_missing)
from .engine_md import engine_markdown
from .numbering import ChapterInfo, Ref, number_book
from . import citations, pandoc, shortcodes
from .website import nav_titles, number_pages

FILTERS = ("shortcodes", "cells", "floats", "theorems", "callouts", "crossref", "nobreak")
READER = "markdown"


@dataclass
class Chapter:
    """One page of the book, with everything the writers need."""
    path: str                       # source, e.g. "contents/intro.qmd"
    page: str                       # output, e.g. "contents/intro.html"
    appendix: bool
    markdown_file: Path             # assembled markdown in the work dir
    files: dict[str, bytes] = field(default_factory=dict)   # generated, relative to the page dir
    info: ChapterInfo | None = None

    @property
    def page_dir(self) -> str:
        return posixpath.dirname(self.page)

    @property
    def display_title(self) -> str:
        """"1  Title", "A  Title" or "Title" as in Quarto's sidebar."""
        number = self.info.number if self.info else None
        title = self.info.title if self.info else self.path
        return f"{number}\u00a0\u00a0{title}" if number else title


@dataclass
class Book:
    """The whole book, numbered, ready for a writer."""
    root: Path
    title: str
    chapters: list[Chapter]
    refs: dict[str, Ref]
    bibliography: list[Path]
    csl: Path | None
    work: Path                      # scratch directory for markdown/context files
    lang: str = "en"
    subtitle: str = ""
    date: str = ""                                   # `date:` as written (today/now/last-modified: html.py)
    footer: dict = field(default_factory=dict)       # `page-footer:` sides, HTML-ready (footer.py)
    authors: list[str] = field(default_factory=list)
    crossref: dict = field(default_factory=dict)     # _quarto.yml `crossref:` options
    custom_callouts: dict = field(default_factory=dict)   # an extension's callout types (callouts.lua)
    output_file: str = ""                            # _quarto.yml `book: output-file:`
    parts: frozenset = frozenset()                   # `- part: file.qmd` pages: unnumbered
    number_sections: bool = True                     # the project's `number-sections`
    plain_pages: frozenset = frozenset()             # chapters with `number-sections: false`
    metadata: dict = field(default_factory=dict)     # what `{{< meta >}}` reads below the front matter
    variables: dict = field(default_factory=dict)    # `_variables.yml` (`{{< var >}}`)
    cache: RenderCache | None = None                 # stored pandoc outputs (incremental.py)
    math: tuple[str, str] = ("", "")                 # `html-math-method` and its url ("": unset)
    per_page: bool = False                           # not a book (a website): each page numbered
                                                     # alone, its labels its own (website.py)
    page_refs: dict = field(default_factory=dict)    # per_page: path -> label -> Ref
    sidebars: list = field(default_factory=list)     # a website's sidebars (read/sidebar.py)


def page_for(path: str) -> str:
    """contents/intro.qmd -> contents/intro.html (Quarto's layout)."""
    stem, _ = posixpath.splitext(path)
    return stem + ".html"


def _bibliography(project) -> list[Path]:
    paths = [Path(project.root) / b for b in project.bibliography]
    for p in paths:
        if not p.is_file():
            raise RenderError(f"bibliography {p.name} not found in {project.root}")
    return paths


def write_context(book: Book, chapter: Chapter, mode: str, target: str, out: Path | None = None) -> Path:
    """Write the JSON context the filters read for one chapter and pass (`kinds`: the
    cross-reference kinds, read/crossref_kinds.py, which the filters know only from here)."""
    ctx: dict = {"mode": mode, "target": target, "path": chapter.path,
                 "kinds": crossref_kinds.for_filters()}
    if out is not None:
        ctx["out"] = str(out)
    if chapter.info is not None:
        ctx["chapter"] = {"number": chapter.info.number or "", "appendix": chapter.appendix}
        ctx["headers"] = [n or "" for n in chapter.info.headers]
    if target == "html":        # each page's address relative to this one, computed once
        here = chapter.page_dir or "."
        pages = {c.path: quote(posixpath.relpath(c.page, here)) for c in book.chapters}
    refs = {}
    for rid, ref in (book.page_refs.get(chapter.path, {}) if book.per_page else book.refs).items():
        href = f"{pages[ref.path]}#{rid}" if target == "html" else f"#{rid}"
        refs[rid] = {"kind": ref.kind, "number": ref.number, "text": ref.text, "href": href,
                     "plain": ref.plain}
    ctx["refs"] = refs
    ctx["plain_sections"] = chapter.path in book.plain_pages or not book.number_sections
    ctx["custom_callouts"] = book.custom_callouts
    found = shortcodes.context(chapter.markdown_file, book.metadata, book.variables)
    if found is not None:
        ctx["shortcodes"] = found
    ctx["website"] = book.per_page
    ctx["appendix_title"] = str(book.crossref.get("appendix-title", "Appendix"))
    ctx["appendix_delim"] = str(book.crossref.get("appendix-delim", " —"))
    ctx["image_prefix"] = f"{chapter.page_dir}/" if chapter.page_dir else ""
    path = book.work / f"{chapter.page.replace('/', '__')}.{mode}.{target}.json"
    path.write_text(json.dumps(ctx, default=str), encoding="utf-8")
    return path


def filter_args(context: Path, target: str) -> list[str]:
    """Our filters, in order, and the metadata they read."""
    return [f"--metadata=book-context:{context}", f"--metadata=book-target:{target}",
            *pandoc.filter_args(*FILTERS)]


def citeproc_args(book: Book) -> list[str]:
    """--citeproc with the book's bibliography (nothing without one)."""
    if not book.bibliography:
        return []
    args = ["--citeproc", "--metadata=reference-section-title:References",
            "--metadata=link-citations:true"]
    args += [f"--bibliography={b}" for b in book.bibliography]
    if book.csl:
        args.append(f"--csl={book.csl}")
    return args


def collect_job(book: Book, chapter: Chapter) -> Job:
    """The collect pass of one chapter: its headings and labels (crossref.lua)."""
    out = book.work / f"{chapter.page.replace('/', '__')}.collected.json"
    ctx = write_context(book, chapter, "collect", "html", out)

    def run() -> str:
        pandoc.run([str(chapter.markdown_file), f"--from={READER}", "--to=plain",
                    "--output=" + os.devnull, *filter_args(ctx, "html")],
                   what=f"{chapter.path} (collect)")
        try:
            text = out.read_text(encoding="utf-8")
            json.loads(text)
            return text
        except (OSError, ValueError) as exc:
            raise RenderError(f"{chapter.path}: the collect pass wrote no labels ({exc})") from exc

    markdown = chapter.markdown_file.read_text(encoding="utf-8")
    key = ("collect", READER, context_for_key(ctx, markdown, chapter.path), markdown)
    return Job(key, f"{chapter.path} (collect)", run)


def collect_all(book: Book, chapters: list[Chapter], previous: dict[str, dict] | None = None,
                speculate: Callable[..., Job] | None = None) -> list[dict]:
    """The collected facts of `chapters` (stored ones reused; the others collected at once).

    Speculation, for a prose edit (docs/performance.md, item 7): with `previous`
    (path -> facts of the last render) and `speculate` (the writer's HTML apply pass
    as a Job, `speculate(book, chapter, facts_out)`), a chapter that must be collected
    runs its apply pass instead, numbered with its previous facts, which also writes
    the facts stored as its collect pass's output. A speculative run that fails
    stores nothing: the collect pass runs.
    """
    jobs = [collect_job(book, chapter) for chapter in chapters]
    outputs = lookup(book.cache, jobs)
    missing = [(c, job) for c, job, text in zip(chapters, jobs, outputs) if text is None]
    if book.cache is not None and speculate and previous and missing:
        known = {c.path: json.loads(text) for c, text in zip(chapters, outputs) if text}
        guesses = _speculative_jobs(book, {**previous, **known}, missing, speculate)
        if guesses:
            run_missing(book.cache, guesses, [None] * len(guesses))
            outputs = lookup(book.cache, jobs)
    outputs = run_missing(book.cache, jobs, outputs)
    return [json.loads(text) for text in outputs]


def _speculative_jobs(book: Book, facts: dict[str, dict], missing: list[tuple[Chapter, Job]],
                      speculate) -> list[Job]:
    """Apply-pass jobs for the (chapter, collect job) pairs of `missing`, in a copy of
    `book` numbered from `facts`; none unless `facts` covers every chapter."""
    if any(c.path not in facts for c in book.chapters):
        return []
    try:
        guess = replace(book, chapters=[replace(c, info=chapter_info(book, c, facts[c.path]))
                                        for c in book.chapters])
        number(guess)
        by_path = {c.path: c for c in guess.chapters}
        return [_speculative(book.cache, speculate, guess, by_path[c.path], collect)
                for c, collect in missing]
    except Exception:       # noqa: BLE001 (stored facts the numbering cannot use, e.g. a
        return []           # damaged .facts record: no guess, both passes run as without one)


def _speculative(cache: RenderCache, speculate, guess: Book, chapter: Chapter,
                 collect: Job) -> Job:
    facts_file = guess.work / f"{chapter.page.replace('/', '__')}.facts.json"
    apply = speculate(guess, chapter, facts_file)

    def run() -> str:
        try:
            page = apply.run()
            facts = facts_file.read_text(encoding="utf-8")
            json.loads(facts)
        except (RenderError, OSError, ValueError):
            return ""               # nothing stored: the collect pass will run
        cache.put(cache.key(*collect.key_parts), facts)
        cache.put(cache.key(*apply.key_parts), page)
        return page

    return Job(apply.key_parts, f"{apply.what} (speculative)", run, store=False)


def _copy_static_images(book: Book, chapter: Chapter, dest: Path) -> None:
    """Copy images a chapter refers to from the sources (not the generated ones)."""
    images = chapter.info.collected.get("images") if chapter.info else None
    for src in images if isinstance(images, list) else []:
        if "://" in src or src.startswith(("/", "data:")) or src in chapter.files:
            continue
        source = (book.root / chapter.page_dir / src).resolve()
        target = (dest / chapter.page_dir / src).resolve()
        inside = source.is_relative_to(book.root.resolve()) and target.is_relative_to(dest.resolve())
        if inside and source.is_file():
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)


def write_files(book: Book, dest: Path) -> None:
    """Write generated figures and copy referenced images under `dest`."""
    for chapter in book.chapters:
        write_chapter_files(book, chapter, dest)


def write_chapter_files(book: Book, chapter: Chapter, dest: Path) -> None:
    """One chapter's generated figures and referenced images, under `dest`."""
    for rel, data in chapter.files.items():
        target = dest / chapter.page_dir / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    _copy_static_images(book, chapter, dest)


def assemble(project, parsed, run):
    """A chapter's engine Markdown (values and outputs in place) and its generated
    files, as handed to Quarto's freeze (render/freeze.py)."""
    return engine_markdown(parsed, run, project.root, parsed.figure or project.figure)


def new_chapter(work: Path, path: str, appendix: bool, text: str, files: dict) -> Chapter:
    """A Chapter whose markdown is written to the work dir (not yet collected)."""
    page = page_for(path)
    md_file = work / (page.replace("/", "__") + ".md")
    md_file.write_text(text, encoding="utf-8")
    return Chapter(path, page, appendix, md_file, files)


def new_book(project, chapters: list[Chapter], work: Path) -> Book:
    """A Book of `chapters` with the project's options (not yet numbered)."""
    return Book(root=Path(project.root), title=str(project.title or "Book"), chapters=chapters,
                refs={}, bibliography=_bibliography(project),
                csl=Path(project.root) / project.csl if project.csl else None, work=work,
                footer=footer_sides(getattr(project, "page_footer", {})),
                lang=project.lang, subtitle=project.subtitle, authors=list(project.authors),
                date=getattr(project, "date", ""),
                crossref=dict(project.crossref), output_file=project.output_file,
                custom_callouts=dict(getattr(project, "custom_callouts", {})),
                parts=frozenset(getattr(project, "parts", ())),
                number_sections=getattr(project, "number_sections", True),
                metadata=dict(getattr(project, "metadata", {})),
                variables=dict(getattr(project, "variables", {})),
                math=(getattr(project, "html_math", ""), getattr(project, "html_math_url", "")),
                per_page=getattr(project, "type", "book") != "book",
                sidebars=list(getattr(project, "sidebars", ())))


def chapter_info(book: Book, chapter: Chapter, found) -> ChapterInfo:
    """What numbering needs of one chapter (a part page gets no number)."""
    return ChapterInfo(chapter.path, chapter.appendix, found, unnumbered=chapter.path in book.parts,
                       numbered_page=chapter.path not in book.plain_pages)


def number(book: Book) -> None:
    """Number the whole book from its chapters' collected facts (sets book.refs; a
    website's pages each on its own: book.page_refs)."""
    if book.per_page:
        book.refs, book.page_refs = {}, number_pages(     # `number-sections: true` pages: shown
            [c.info for c in book.chapters],
            frozenset(c.path for c in book.chapters if c.path not in book.plain_pages))
        named = nav_titles(book.sidebars)           # the sidebar's names, the pager's too
        for c in book.chapters:
            c.info.title = named.get(c.path) or c.info.title
        return
    book.refs = number_book([c.info for c in book.chapters],
                            str(book.crossref.get("appendix-title", "Appendix")), book.number_sections,
                            str(book.crossref.get("appendix-delim", " —")))


def prepare(result, work: Path, cache: RenderCache | None = None,
            speculate: Callable[[Book, Chapter], Job] | None = None) -> Book:
    """Assemble, collect and number every chapter of a checked book
    (pandoc outputs come from `cache` when their inputs are unchanged; `speculate`:
    the writer's apply pass, run beside the collect pass as collect_all says)."""
    project = result.project
    listed = [(p, False) for p in project.chapters] + [(p, True) for p in project.appendices]
    if not listed:
        raise RenderError("_quarto.yml lists no chapters")
    chapters = []
    for path, appendix in listed:
        parsed = result.parsed.get(path)
        if parsed is None:
            raise RenderError(f"{path}: not parsed by the checker (is it listed and present?)")
        md = assemble(project, parsed, result.runs.get(path))
        chapters.append(new_chapter(work, path, appendix, shortcodes.marked(md.markdown), md.files))
    book = new_book(project, chapters, work)
    book.cache = cache
    book.plain_pages = frozenset(c.path for c in chapters if not result.parsed[c.path].number_sections)
    previous = cache.previous_facts() if cache is not None else {}
    collected = collect_all(book, chapters, previous, speculate)
    for chapter, found in zip(chapters, collected):
        chapter.info = chapter_info(book, chapter, found)
    number(book)
    if cache is not None:
        cache.remember_facts({c.path: found for c, found in zip(chapters, collected)})
    return book


def apply_job(book: Book, chapter: Chapter, target: str, to: str, extra: list[str],
              citeproc: bool = True, facts_out: Path | None = None) -> Job:
    """The apply pass of one chapter (its numbers and links from `book`); with
    `facts_out` (HTML only) it also writes the chapter's collected facts there."""
    if facts_out is not None and target != "html":
        raise ValueError("only the HTML apply pass sees what the collect pass sees")
    ctx = write_context(book, chapter, "apply", target, facts_out)
    cite = citeproc_args(book) if citeproc else []
    markdown = chapter.markdown_file.read_text(encoding="utf-8")
    inputs = files_digest(book.bibliography + [book.csl]) if citeproc else []
    flags = [a.split("=")[0] if a.startswith(("--bibliography=", "--csl=")) else a for a in cite]
    key = ("apply", READER, target, to, flags, inputs, extra,     # files by content, not path
           context_for_key(ctx, markdown, chapter.path), markdown)
    args = [str(chapter.markdown_file), f"--from={READER}", f"--to={to}", *filter_args(ctx, target)]
    if citations.reusable(book.cache, cite, target):        # same page, often without citeproc
        record_key = citations.record_key(chapter.path, markdown, cite, inputs)
        book.cache.keep(book.cache.key(*record_key))          # pruned only with the chapter
        return Job(key, chapter.path, citations.run_reusing(
            book.cache, record_key, chapter.path, ctx.with_suffix(".citations.json"),
            args, cite, extra))
    return Job(key, chapter.path, lambda: pandoc.run([*args, *cite, *extra], what=chapter.path))

