"""Findings about what the chapters' runs read (their observed facts, bookcheck.run.deps).

- `mixed_inputs`: a run whose input changed while it ran (`deps.snapshot`'s
  "unstable") may publish numbers of two versions of one file (`v` of the first,
  `w` of the second): `make numbers` records none of them (`input-changed`).
- `later_writers`: a chapter that reads what a *later* chapter (book order) writes.
  The checker runs a reader again after its writers, so its check passes; Quarto
  runs the chapters one after another in book order, so on a fresh clone the reader
  finds the file missing (or the version a previous render left): `read-before-written`.
  Only files of the project count (a fresh clone has them or not; a library's cache
  in the home folder is no order of the book's). A read is the writer's when the
  reader's recorded fact about a path would differ without the writer's products:
  the file itself, or a listing or module lookup of its folder that sees it (the
  fact's value now, with and without those entries).

Each finding is at the first line of a cell that names the file (where it is
opened), else at the chapter's first cell. Stdlib only.
"""
from __future__ import annotations

import os
import re

from bookcheck.model import ChapterRun, Finding, Kind, ParsedChapter
from bookcheck.run import order
from bookcheck.run.facts_side import Facts, absolute, find_fact, list_fact

NAME = re.compile(r"[\w.~+-]*[./][\w./~+-]*")      # a path-like word of a reason


def mixed_inputs(parsed: dict[str, ParsedChapter], runs: dict[str, ChapterRun]) -> list[Finding]:
    """An `input-changed` finding per chapter executed now whose run saw an input change."""
    findings = []
    for rel, run in runs.items():
        reason = (run.deps or {}).get("unstable")
        chapter = parsed.get(rel)
        if not reason or run.cached or chapter is None:
            continue
        names = {n.rstrip("/").rsplit("/", 1)[-1] for n in NAME.findall(reason)} - {""}
        findings.append(chapter.relocate(Finding(
            rel, naming_line(chapter, names), Kind.INPUT_CHANGED,
            f"{reason}, so its numbers may mix two versions of it: nothing recorded; run "
            "`bookcheck numbers` again once nothing changes it during the run (an editor, another "
            "program, the chapter itself appending to it)")))
    return findings


def later_writers(root, parsed: dict[str, ParsedChapter], runs: dict[str, ChapterRun]) -> list[Finding]:
    """A `read-before-written` finding per (reader, path) whose writer comes later in
    book order (`parsed`'s order); one per reader and written path."""
    facts = Facts(str(os.path.realpath(root)), {})
    book = [rel for rel in parsed if rel in runs and runs[rel].deps]
    writes = {rel: order.reads_and_writes(runs[rel].deps)["writes"] for rel in book}
    findings = []
    for i, reader in enumerate(book):
        recorded = runs[reader].deps.get("facts") or {}
        for writer in book[i + 1:]:
            for written in writes[writer]:
                if written.startswith("/") or written in writes[reader]:
                    continue            # not the project's (a user cache), or its own too
                key = next((k for k, v in recorded.items() if _sees(facts, k, v, written)), None)
                if key is None:
                    continue
                names = {written.rsplit("/", 1)[-1], key.partition(" ")[2].rsplit("/", 1)[-1]} - {"", "."}
                chapter = parsed[reader]
                findings.append(chapter.relocate(Finding(
                    reader, naming_line(chapter, names), Kind.READ_BEFORE_WRITTEN,
                    f"reads {written}, which {writer} writes, later in the book: Quarto runs "
                    f"the chapters in book order, so on a fresh clone this finds it missing "
                    f"(or as a previous render left it); write it in this chapter or an "
                    f"earlier one, or move {writer} before {reader} in _quarto.yml")))
    return findings


def _sees(facts: Facts, key: str, value, written: str) -> bool:
    """The reader's fact `key` (recorded `value`) depends on the file `written`."""
    kind, _, where = key.partition(" ")
    if kind in ("path", "link"):
        return where == written
    if kind not in ("list", "find") or not order.touches(where, written) or where == written:
        return False
    folder = absolute(facts.root, where)
    entries = facts.entries(folder)
    if entries is None or facts.value(key, value) != value:
        return False                    # not the world the reader saw: nothing to compare
    gone = written.rsplit("/", 1)[-1]
    without = [e for e in entries if e[0] != gone]
    if kind == "list":
        return list_fact(folder, without) != value
    names = value[1] if isinstance(value, list) and len(value) == 2 else []
    return find_fact(folder, names, without) != value


def naming_line(chapter: ParsedChapter, names: set[str]) -> int:
    """The first line of a cell that holds one of `names`, else the first cell's fence."""
    for cell in chapter.cells:
        for offset, line in enumerate(cell.source.split("\n")):
            if any(name in line for name in names):
                return cell.first_code_line + offset
    return chapter.cells[0].fence_line if chapter.cells else 1
