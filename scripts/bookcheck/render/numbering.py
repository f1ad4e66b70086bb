"""Book-wide numbering: what every label is called, computed from all chapters.

The collect pass of crossref.lua lists, per chapter and in document order,
its headings and its tbl-/fig-/eq- labels. `number_book` turns those lists
into Quarto 1.10's numbers:

- chapters 1, 2, ... ; appendices A, B, ... ; `index.qmd` (the preface) and
  `.unnumbered` chapters get no number; a chapter with no heading at all is
  numbered too, named by its page ("bare.html"), its labels counted 1, 2, …
  without the chapter number (Quarto 1.7's own numbering of such a page);
- sections 1.1, 1.2.1, A.1 within numbered chapters;
- tables, figures, equations, listings, referenceable callouts (`#nte-`, `#tip-`,
  `#wrn-`, `#imp-`, `#cau-`), theorem-like divs (`#thm-`, `#lem-`, …) and proofs
  (`#prf-`, `#rem-`, `#sol-`), each kind its own count, per chapter: 1.1, 2.3, A.1;
- a reference text: "Chapter 1" / "Appendix A" for a chapter heading, else the kind's
  name (read/crossref_kinds.py) and the number: "Section 1.2", "Table A.1", "Note 1.1".

`number-sections: false` (Quarto 1.7.34, tests/render/test_quarto_markdown.py): for
the project, no chapter or section number anywhere (an appendix's title still reads
"Appendix A — Title"), a section reference reads the heading ("Alpha", "Sub one");
for one chapter, its own page numbers no heading and its section references read
`Ref.plain` ("1 Alpha", "Sub one"), the other pages number it as before. Floats and
equations keep their numbers (Figure 1.1) either way.
"""
from __future__ import annotations

import posixpath
import string
from dataclasses import dataclass, field

from bookcheck.read.crossref_kinds import NAMES as KIND_NAMES   # "fig" -> "Figure"

from .errors import RenderError


@dataclass(frozen=True)
class Ref:
    """What a label resolves to."""
    id: str
    kind: str          # the label's prefix (read/crossref_kinds.py): sec, tbl, …
    number: str        # "1.2", "A.1", "" when unnumbered
    text: str          # "Table 1.2"
    path: str          # chapter source path (project-relative)
    plain: str = ""    # a section's text on a page without section numbers ("Sub one")


@dataclass
class ChapterInfo:
    """One chapter as the renderer sees it."""
    path: str
    appendix: bool
    collected: dict                     # what crossref.lua's collect pass wrote
    number: str | None = None           # "1", "A" or None
    title: str = ""
    headers: list[str | None] = field(default_factory=list)   # display number per heading
    unnumbered: bool = False            # a `- part: file.qmd` page: never numbered
    numbered_page: bool = True          # False: `number-sections: false` in its front matter


def appendix_letter(n: int) -> str:
    """1 -> A, 26 -> Z, 27 -> AA."""
    letters = ""
    while n > 0:
        n, rem = divmod(n - 1, 26)
        letters = string.ascii_uppercase[rem] + letters
    return letters


def _as_list(value) -> list:
    # pandoc.json encodes an empty Lua table as {}.
    return value if isinstance(value, list) else []


def _chapter_number(info: ChapterInfo, counters: dict) -> str | None:
    """Quarto numbers every chapter, one with no heading at all too, except the
    preface, a part page and one whose title heading is `.unnumbered`."""
    headers = _as_list(info.collected.get("headers"))
    first = next((h for h in headers if h.get("level") == 1), None)
    if info.path == "index.qmd" or info.unnumbered or (first is not None and first.get("unnumbered")):
        return None
    if info.appendix:
        counters["appendix"] += 1
        return appendix_letter(counters["appendix"])
    counters["chapter"] += 1
    return str(counters["chapter"])


def _plain(info: ChapterInfo, chap: str | None, text: str, shown: bool, title: str,
           delim: str) -> str:
    """What a section reference reads on a page without section numbers: the chapter's
    title as the sidebar shows it ("1 Alpha", "Appendix A — App"), else the heading."""
    if info.appendix and chap:
        return f"{title} {chap}{delim} {text}"
    return f"{chap}\u00a0{text}" if chap and shown else text


def number_book(chapters: list[ChapterInfo], appendix_title: str = "Appendix",
                number_sections: bool = True, appendix_delim: str = " —") -> dict[str, Ref]:
    """Fill each ChapterInfo's number/title/headers; return every label's Ref.

    `appendix_title`, `appendix_delim`: Quarto's `crossref: appendix-title`
    ("Appendix") and `appendix-delim`; `number_sections`: the project's.
    """
    refs: dict[str, Ref] = {}
    counters = {"chapter": 0, "appendix": 0}

    def define(ref: Ref) -> None:
        if ref.id in refs:
            other = refs[ref.id].path
            raise RenderError(f"label {ref.id} is defined twice ({other} and {ref.path})")
        if not number_sections and ref.kind == "sec":
            ref = Ref(ref.id, ref.kind, ref.number, ref.plain, ref.path, ref.plain)
        refs[ref.id] = ref

    for info in chapters:
        chap = _chapter_number(info, counters)
        info.number = chap if number_sections else None
        # no heading at all: Quarto names the chapter by its page's file name
        info.title = info.collected.get("title") or posixpath.basename(
            posixpath.splitext(info.path)[0] + ".html")
        # and numbers its tables, figures, … without the chapter ("Table 1")
        within = chap if any(int(h.get("level", 1)) == 1
                             for h in _as_list(info.collected.get("headers"))) else None
        section: list[int] = []
        seen_h1 = False
        info.headers = []
        for h in _as_list(info.collected.get("headers")):
            level, hid = int(h.get("level", 1)), h.get("id") or ""
            number, text = None, h.get("text", hid)
            is_title = level == 1 and not seen_h1
            if is_title:
                seen_h1 = True
                number = chap
                if hid.startswith("sec-"):
                    word = appendix_title if info.appendix else "Chapter"
                    define(Ref(hid, "sec", chap or "", f"{word} {chap}" if chap else text, info.path,
                               _plain(info, chap, text, number_sections, appendix_title,
                                      appendix_delim)))
            else:
                if chap and not h.get("unnumbered") and level >= 2:
                    depth = level - 1
                    section = (section + [0] * depth)[:depth]
                    section[-1] += 1
                    number = ".".join([chap] + [str(n) for n in section])
                if hid.startswith("sec-"):
                    define(Ref(hid, "sec", number or "", f"{KIND_NAMES['sec']} {number}" if number else text,
                               info.path, text))
            if not (number_sections and info.numbered_page):   # an appendix keeps "Appendix A —"
                number = chap if is_title and info.appendix else None
            info.headers.append(number)
        per_kind: dict[str, int] = {}
        for label in _as_list(info.collected.get("labels")):
            kind, lid = label["kind"], label["id"]
            per_kind[kind] = per_kind.get(kind, 0) + 1
            k = per_kind[kind]
            number = f"{within}.{k}" if within else str(k)
            define(Ref(lid, kind, number, f"{KIND_NAMES[kind]} {number}", info.path))
    return refs
