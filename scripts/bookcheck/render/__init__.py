"""Render the checked book to HTML or PDF.

    from bookcheck.render import render_book, RenderError
    render_book(result, "html")   # -> _book/index.html
    render_book(result, "pdf")    # -> _book/<Title-Slug>.pdf

With `quarto` on PATH the project is rendered by Quarto; otherwise by the
built-in path (engine_md.py -> pandoc + Lua filters -> html.py / pdf.py),
which reuses the checker's executed results. Either way the output is built
in a staging directory next to `_book/` and moved into place only on
success; on failure RenderError (a one-line reason) is raised and the
previous `_book/` is untouched. Every render, built-in or Quarto's, is
audited before it is moved into place (bookcheck.verify.audit, docs/audit.md): a
finding raises AuditError, a RenderError that lists them. `make html` keeps an
earlier PDF and `make pdf` adds its PDF to the existing `_book/`.
"""
from __future__ import annotations

import posixpath
import sys
import tempfile
from pathlib import Path

from bookcheck.read.output_dir import add_to_manifest, write_manifest

from . import downloads, links_out, quarto, quarto_look
from .atomic import carry_over, disk_full, replace_file, staging_dir, swap_in
from .errors import AuditError, RenderError

FORMATS = ("html", "pdf")

__all__ = ["render_book", "RenderError", "AuditError", "output_dir", "audit"]
AUDIT_SECONDS: list[float] = []         # time of each audit this process ran (make bench)


def output_dir(project) -> Path:
    """`project.output-dir` of _quarto.yml, default `_book`."""
    return Path(project.root) / project.output_dir


def _builtin(result, fmt: str, dest: Path) -> Path:
    from .book import prepare
    from .incremental import RenderCache
    cache = RenderCache(Path(result.project.root), fmt)      # incremental.py
    with tempfile.TemporaryDirectory(prefix="render-") as work:
        if fmt == "html":
            from .html import body_job, write_html
            book = prepare(result, Path(work), cache, speculate=body_job)
            produced = write_html(book, dest)
        else:
            from .pdf import write_pdf
            book = prepare(result, Path(work), cache)
            produced = write_pdf(book, dest)
    cache.prune()
    return produced


def _quarto(result, fmt: str, dest: Path) -> Path:
    frozen = fmt == "html"              # freeze entries are per format; HTML is handed over
    if frozen:
        from . import freeze
        _, problems = freeze.write_entries(result)       # every document the checker read
        if problems:
            first = problems[0]
            more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
            raise RenderError(f"{first.location()}: {first.reason}{more}")
    else:                               # not silent: Quarto runs the chapters a second time
        print(f"quarto executes the chapters again for {fmt}: only HTML is handed the checked "
              "runs (docs/quarto-compat.md)", file=sys.stderr)
    with tempfile.TemporaryDirectory(prefix="quarto-look-") as work:
        look = None                     # the math font and dark scheme, asked for (quarto_look.py)
        if fmt == "html" and result.project.quarto_look:
            look = quarto_look.write_metadata_file(result.project.metadata, Path(result.project.root),
                                                   Path(work))
        log = quarto.render(Path(result.project.root), fmt, dest, result.project.formats,
                            frozen=frozen, profiles=result.project.profiles,
                            output_dir=result.project.output_dir, metadata_file=look)
        if fmt == "html":
            log = _render_again_if_incomplete(result, dest, frozen, log, look)
            if look is not None:
                quarto_look.copy_licence(dest)
    links_out.drop_copies(result.project.root, result.project.source_files(), dest)
    for line in quarto.warnings(log):
        print(f"quarto: {line}", file=sys.stderr)
    if fmt == "html":   # a project without index.qmd (a lone document): x.qmd -> x.html
        first = result.project.documents[:1]
        index = dest / "index.html"
        if not index.is_file() and first:
            index = dest / (posixpath.splitext(first[0])[0] + ".html")
        if not index.is_file():
            raise RenderError(f"quarto produced no {index.relative_to(dest).as_posix()}")
        return index
    pdfs = sorted(dest.rglob("*.pdf"))
    if not pdfs:
        raise RenderError("quarto produced no PDF")
    return pdfs[0]


def incomplete_pages(result, dest: Path) -> list[str]:
    """The pages Quarto left empty or out of its search index (a Quarto 1.7 race:
    render/quarto_search.py), each with the reason: "contents/x.html (empty)"."""
    from . import quarto_search
    pages = [posixpath.splitext(doc)[0] + ".html" for doc in result.project.documents
             if getattr(result.parsed.get(doc), "search", True)]
    return [f"{page} (empty)" for page in quarto_search.empty_pages(dest, pages)] + \
        [f"{page} (no search entry)" for page in quarto_search.unindexed_pages(dest, pages)]


def _render_again_if_incomplete(result, dest: Path, frozen: bool, log: str,
                                metadata_file: Path | None = None) -> str:
    """Render once more when Quarto left a page empty or out of its search index (a
    Quarto 1.7 race: render/quarto_search.py); raise if the second render does too.
    Returns the log of the render kept."""
    missing = incomplete_pages(result, dest)
    if not missing:
        return log
    print(f"Quarto left {', '.join(missing)} (Quarto 1.7 indexes pages it is still "
          "rewriting): rendering once more", file=sys.stderr)
    log = quarto.render(Path(result.project.root), "html", dest, result.project.formats,
                        frozen=frozen, profiles=result.project.profiles,
                        output_dir=result.project.output_dir, metadata_file=metadata_file)
    missing = incomplete_pages(result, dest)
    if missing:
        raise RenderError(f"quarto left {', '.join(missing)}, twice: the book would be "
                          "incomplete")
    return log


def audit(result, fmt: str, out_dir: Path, produced: Path, by_quarto: bool = False) -> None:
    """Audit a render in `out_dir` (before anything is moved into `_book/`); raise
    AuditError with its findings. Quarto's pages sit where Quarto puts them
    (`contents/x.html`, the audit's default layout); the built-in renderer's where
    `book.page_for` says."""
    import time
    from bookcheck.verify.audit import audit_rendered, seconds_record
    from .book import page_for
    started = time.perf_counter()
    findings = audit_rendered(result, fmt, out_dir, produced if fmt == "pdf" else None,
                              page_of=None if by_quarto else page_for)
    AUDIT_SECONDS.append(time.perf_counter() - started)
    try:                    # for `make bench`: the audit's share of a render
        from bookcheck.files import atomic_write
        record = seconds_record(result.project.root, fmt)
        record.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(record, f"{AUDIT_SECONDS[-1]:.4f}\n")
    except OSError:
        pass
    from bookcheck.verify.baseline import judge, unused
    from bookcheck.verify.report import unused_lines, verdict_lines
    verdict = judge(result.project.root, findings, fmt, mode=getattr(result, "baseline_mode", None))
    checked = [result.verdict] if getattr(result, "verdict", None) else []
    for line in verdict_lines(verdict, result.project.root, fmt) + unused_lines(
            unused(verdict, *checked)):             # the audit's share; stale suppressions
        print(f"audit: {line}")
    if verdict.active:
        raise AuditError(fmt, verdict.active)


def render_book(result, fmt: str, use_quarto: bool | None = None, audited: bool = True) -> Path:
    """Render a checked book; return the main output file inside `_book/`.

    `use_quarto` None means: Quarto when `quarto` is on PATH. `audited=False` skips the
    audit: only for a caller that renders a book with findings on purpose, to compare
    its pages (the conformance replay); `make html`/`make pdf` always audit.
    """
    if fmt not in FORMATS:
        raise RenderError(f"unknown format {fmt!r} (expected html or pdf)")
    if not getattr(result, "ok", True):
        raise RenderError("the check reported problems; fix them before rendering")
    if use_quarto is None:
        use_quarto = quarto.quarto_path() is not None
        if use_quarto:
            reason = quarto.too_old_for(fmt, result.project.formats, quarto.quarto_version())
            if reason:
                print(reason, file=sys.stderr)
                use_quarto = False
    final = output_dir(result.project)
    build = _quarto if use_quarto else _builtin
    try:
        with staging_dir(final) as tmp:
            if fmt == "html" and not use_quarto:
                carry_over(final, tmp, "*.pdf")   # before the build: the pages link it
            produced = build(result, fmt, tmp)
            if audited:
                audit(result, fmt, tmp, produced, by_quarto=use_quarto)
            if disk_full(tmp):            # some write may have failed unseen: keep the old book
                raise RenderError(f"the disk holding {final} is full: the {fmt} output may be "
                                  "incomplete, so the previous one is kept; free some space")
            rel = produced.relative_to(tmp)
            if fmt == "html":
                carry_over(final, tmp, "*.pdf")
                write_manifest(tmp)         # what a later render may replace (read/output_dir.py)
                swap_in(tmp, final)
            elif final.is_dir():
                replace_file(produced, final / rel)
                add_to_manifest(final, [rel.as_posix()])
                if not use_quarto:
                    downloads.link_pdf(final, rel.as_posix())
            else:
                write_manifest(tmp)
                swap_in(tmp, final)
    except OSError as exc:
        raise RenderError(f"cannot write the {fmt} output under {final}: {exc}") from exc
    return final / rel
