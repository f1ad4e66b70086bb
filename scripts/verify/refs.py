"""Book-wide cross-references and citations (the verify stage's link checks)."""
from __future__ import annotations

import difflib
import re

from scripts.model import Finding, Kind, ParsedChapter
from scripts.read.project import CONFIG, Project

BIB_KEY = re.compile(r"^\s*@\w+\s*[{(]\s*([^,\s]+)\s*,", re.MULTILINE)


def did_you_mean(name: str, known) -> str:
    """`; did you mean @tbl-mtbf?` when a known key is close to `name` (difflib, as
    the kernel's NameError suggestions), else ""."""
    close = difflib.get_close_matches(name, list(known), n=1, cutoff=0.7)
    return f"; did you mean @{close[0]}?" if close and close[0] != name else ""


def cross_references(parsed: dict[str, ParsedChapter]) -> list[Finding]:
    """Unknown @references and labels defined more than once (book-wide)."""
    findings: list[Finding] = []
    first: dict[str, tuple[str, int]] = {}
    for chapter in parsed.values():
        for label, line in chapter.labels:
            if label in first:
                path0, line0 = first[label]
                findings.append(Finding(chapter.path, line, Kind.DUPLICATE_LABEL,
                                        f"label {label} is already defined at {path0}:{line0}",
                                        label=label))
            else:
                first[label] = (chapter.path, line)
    for chapter in parsed.values():
        for label, line, col in chapter.references:
            if label not in first:
                findings.append(Finding(chapter.path, line, Kind.UNKNOWN_REF,
                                        f"@{label} refers to a label no chapter defines"
                                        f"{did_you_mean(label, first)}",
                                        col=col))
    return findings


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
            return [Finding(CONFIG, 0, Kind.BIBLIOGRAPHY, f"bibliography file not found: {bib}")]
    where = (f"in {', '.join(project.bibliography)}" if project.bibliography
             else "(no bibliography in _quarto.yml)")
    return [Finding(c.path, line, Kind.UNKNOWN_CITATION,
                    f"@{key}: no such citation key {where}{did_you_mean(key, keys)}", col=col)
            for c, key, line, col in cited if key not in keys]
