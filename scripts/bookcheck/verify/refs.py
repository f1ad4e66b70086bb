"""Book-wide cross-references and citations (the verify stage's link checks)."""
from __future__ import annotations

import difflib
import posixpath
import re

from bookcheck.model import Finding, Kind, ParsedChapter
from bookcheck.read.project import CONFIG, Project

BIB_KEY = re.compile(r"^\s*@\w+\s*[{(]\s*([^,\s]+)\s*,", re.MULTILINE)


def did_you_mean(name: str, known) -> str:
    """`; did you mean @tbl-mtbf?` when a known key is close to `name` (difflib, as
    the kernel's NameError suggestions), else ""."""
    close = difflib.get_close_matches(name, list(known), n=1, cutoff=0.7)
    return f"; did you mean @{close[0]}?" if close and close[0] != name else ""


def cross_references(parsed: dict[str, ParsedChapter], project_type: str = "book") -> list[Finding]:
    """Unknown @references and labels defined more than once.

    A book resolves a reference on any page; any other project (a website, a lone
    document) renders each page on its own, as Quarto does: a label is known on its own
    page only, the same label on two pages is no clash, and a reference to another
    page's label is left unresolved (`?@sec-x` on the page), a `website-ref` finding.
    """
    book = project_type == "book"
    first: dict[tuple[str, str], tuple[str, int]] = {}      # (namespace, label) -> where
    pages: dict[str, list[tuple[str, int]]] = {}            # label -> every (page, line)
    findings: list[Finding] = []
    titles = {(c.path, label): line for c in parsed.values() for label, line in c.labels
              if c.title_heading and line == c.title_heading}
    for chapter in parsed.values():
        for label, line in chapter.labels:
            if (chapter.path, label) in titles:     # Quarto made the heading the page's
                pages.setdefault(label, []).append((chapter.path, line))   # title: gone here
                continue
            key = ("", label) if book else (chapter.path, label)
            if key in first:
                path0, line0 = first[key]
                findings.append(Finding(chapter.path, line, Kind.DUPLICATE_LABEL,
                                        f"label {label} is already defined at {path0}:{line0}",
                                        label=label))
            else:
                first[key] = (chapter.path, line)
                pages.setdefault(label, []).append((chapter.path, line))
    for chapter in parsed.values():
        here = "" if book else chapter.path
        known = [label for space, label in first if space == here]
        for label, line, col in chapter.references:
            if (here, label) in first:
                continue
            if (chapter.path, label) in titles:
                findings.append(Finding(chapter.path, line, Kind.WEBSITE_REF,
                                        _title_heading(label, titles[chapter.path, label]), col=col))
            elif label in pages:
                findings.append(Finding(chapter.path, line, Kind.WEBSITE_REF,
                                        _other_page(chapter.path, label, pages[label], project_type),
                                        col=col))
            else:
                findings.append(Finding(chapter.path, line, Kind.UNKNOWN_REF,
                                        f"@{label} refers to a label no "
                                        f"{'chapter' if book else 'page'} defines"
                                        f"{did_you_mean(label, known)}",
                                        col=col))
    return findings


def _title_heading(label: str, line: int) -> str:
    """What a reference to the heading Quarto made the page's title gets (read/jupyter_title.py)."""
    return (f"@{label} is the heading at line {line}, which Quarto makes this page's title "
            f"(a page run by Jupyter without `title:` outside a book) and drops with its label "
            f"(Quarto shows ?@{label}): give the page a `title:` in its front matter")


def _other_page(page: str, label: str, where: list[tuple[str, int]], project_type: str) -> str:
    """What a reference to a label of another page (of a website) gets, and the way out."""
    target, line = where[0]
    link = posixpath.relpath(target, posixpath.dirname(page) or ".")
    return (f"@{label} is defined on another page ({target}:{line}); a {project_type} project "
            f"resolves a reference only within its page (Quarto shows ?@{label}): link to it "
            f"with `[text]({link}#{label})`, or make the project a book (`project: type: book`)")


def _config_line(project: Project, bib: str) -> int:
    """The line of `_quarto.yml` naming bibliography file `bib` (else its
    `bibliography:` key, else 1): the line that made the finding."""
    try:
        lines = (project.root / CONFIG).read_text("utf-8", errors="replace").splitlines()
    except OSError:
        return 1
    for wanted in (bib, "bibliography:"):
        found = next((i for i, line in enumerate(lines, 1) if wanted in line), 0)
        if found:
            return found
    return 1


def citations(project: Project, parsed: dict[str, ParsedChapter]) -> list[Finding]:
    """Citations whose key is in none of the bibliography files of _quarto.yml."""
    cited = [(c, key, line, col) for c in parsed.values() for key, line, col in c.citations]
    if not cited:
        return []
    keys: set[str] = set()
    for bib in project.bibliography:
        try:
            keys |= set(BIB_KEY.findall((project.root / bib).read_text("utf-8", errors="replace")))
        except OSError:
            return [Finding(CONFIG, _config_line(project, bib), Kind.BIBLIOGRAPHY,
                            f"bibliography file not found: {bib}")]
    where = (f"in {', '.join(project.bibliography)}" if project.bibliography
             else "(no bibliography in _quarto.yml)")
    return [Finding(c.path, line, Kind.UNKNOWN_CITATION,
                    f"@{key}: no such citation key {where}{did_you_mean(key, keys)}", col=col)
            for c, key, line, col in cited if key not in keys]
