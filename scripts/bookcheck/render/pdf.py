"""PDF output: pandoc -> typst -> PDF with the `typst` Python package.

Each chapter goes through the apply pass separately (so numbering and
references are exactly those of the HTML pages) into pandoc's JSON AST;
the chapters are concatenated into one document, which pandoc writes as
typst with our template (title page, contents, page numbers) and citeproc
(one reference list at the end). typst compiles it with the build directory
as root, where the figures were written.
"""
from __future__ import annotations

import json
import re
from pathlib import Path

from . import pandoc, pdf_stamp, typst_math, typst_tables
from .book import Book, apply_job, citeproc_args, write_files
from .errors import RenderError
from .incremental import RENDERED, cached_run, files_digest, run_jobs

TEMPLATE = Path(__file__).with_name("assets") / "book.typ"


def slug(title: str) -> str:
    """A file name from the book title: "ML Systems" -> "ML-Systems"."""
    words = re.findall(r"[A-Za-z0-9]+", title)
    return "-".join(words) or "book"


def pdf_name(book: Book) -> str:
    """`book: output-file:` of _quarto.yml, else the title's slug, + ".pdf"."""
    name = book.output_file or slug(book.title)
    return name if name.endswith(".pdf") else f"{name}.pdf"


def merged_ast(book: Book) -> dict:
    """One pandoc document holding every chapter's blocks, in book order
    (a marker before the first appendix)."""
    jobs = [apply_job(book, chapter, "typst", "json", [], citeproc=False) for chapter in book.chapters]
    docs = [json.loads(text) for text in run_jobs(book.cache, jobs)]
    blocks = []
    for chapter, doc in zip(book.chapters, docs):
        if chapter.appendix and not any(c.appendix for c in book.chapters[:book.chapters.index(chapter)]):
            blocks.append(APPENDICES_MARK)        # the contents' "Appendices" divider (book.typ)
        blocks += doc["blocks"]
    return {"pandoc-api-version": docs[0]["pandoc-api-version"], "meta": {}, "blocks": blocks}


APPENDICES_MARK = {"t": "RawBlock", "c": ["typst", "#metadata(none) <book-appendices>"]}


def typst_string(text: str) -> str:
    """A typst string literal: "…" with backslashes and quotes escaped."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def write_typst(book: Book, dest: Path) -> Path:
    """Write book.typ (and the figures) under `dest`; return its path."""
    ast = merged_ast(book)
    typst_tables.layout_tables(ast["blocks"])      # columns from content, small long tables
    space_widths: list[str] = []
    typst_math.mark_math(ast["blocks"], space_widths)   # TeX spaces texmath floors to whole ems
    args = ["--from=json", "--to=typst", f"--template={TEMPLATE}", "--wrap=none",
            f"--metadata=title:{book.title}", f"--metadata=pagetitle:{book.title}",
            f"--metadata=lang:{book.lang}"]
    if book.subtitle:
        args.append(f"--metadata=subtitle:{book.subtitle}")
    args += [f"--metadata=author:{a}" for a in book.authors]
    if book.authors:   # the PDF's Author field: typst strings, inserted verbatim
        args.append("--variable=pdf-authors:" + "".join(typst_string(a) + "," for a in book.authors))
    args += citeproc_args(book)
    stdin = json.dumps(ast)
    flags = [a.split("=")[0] if a.startswith(("--bibliography=", "--csl=", "--template=")) else a
             for a in args]
    key = ("typst-source", flags, files_digest([TEMPLATE] + book.bibliography + [book.csl]), stdin)
    source = cached_run(book.cache, key, "PDF (typst)",
                        lambda: pandoc.run(args, stdin=stdin, what="PDF (typst)"))
    source = typst_tables.drop_default_columns(source)
    source = typst_math.restore_spaces(source, space_widths)   # \! \; \hspace{…}: their true widths
    write_files(book, dest)
    typ = dest / "book.typ"
    typ.write_text(source, encoding="utf-8")
    return typ


def write_pdf(book: Book, dest: Path) -> Path:
    """Compile the book to `dest/<slug>.pdf`."""
    typ = write_typst(book, dest)
    pdf = dest / pdf_name(book)
    key = book.cache.key("pdf", tree_digest(dest)) if book.cache is not None else None
    if key is not None and book.cache.copy_to(key, pdf):
        pdf_stamp.record(book, pdf)
        return pdf                  # same typst source and figures: the same PDF
    RENDERED.append("PDF (typst compile)")
    pdf.write_bytes(compile_typst(typ, dest))
    if key is not None:
        book.cache.put(key, pdf.read_bytes())
    pdf_stamp.record(book, pdf)     # the HTML pages link it only while it is current
    return pdf


def compile_typst(typ: Path, root: Path) -> bytes:
    """The PDF typst makes of `typ` (files under `root`); RenderError on an error
    or on any warning (a layout that did not converge, a missing font, …),
    naming it: a warning is a PDF that is wrong somewhere."""
    try:
        import typst
    except ImportError as exc:
        raise RenderError("the typst Python package is not installed") from exc
    try:
        data, warnings = typst.compile_with_warnings(str(typ), root=str(root))
    except Exception as exc:  # typst.TypstError and friends
        raise RenderError(f"typst failed: {flat(getattr(exc, 'message', exc))[:300]}") from exc
    if warnings:
        named = "; ".join(warning_text(w) for w in warnings)
        raise RenderError(f"typst warned ({len(warnings)}): {named[:600]}")
    if not data:
        raise RenderError("typst produced no PDF")
    return data


def warning_text(warning) -> str:
    """A typst warning in one line: its message and, if known, where (book.typ:LINE:COL)."""
    where = re.search(r"\u250c\u2500\s*(\S+)", str(getattr(warning, "diagnostic", "") or ""))
    text = flat(getattr(warning, "message", warning))
    return f"{text} (at {Path(where.group(1)).name})" if where else text


def flat(text) -> str:
    return " ".join(str(text).split())


def tree_digest(dest: Path) -> list[str]:
    """Every file under `dest` (the typst source and figures) with its digest."""
    return sorted(f"{p.relative_to(dest).as_posix()}:{files_digest([p])[0]}"
                  for p in dest.rglob("*") if p.is_file())
