"""Find numbers typed by hand into a chapter's prose.

Every number a reader sees in the book's running text must come from an inline
value (`` `{python} name_str` ``), so that it is computed, checked and recorded
in numbers.lock. This module finds the ones that do not: digits written into
prose, and number words of ten or more ("ten thousand GPUs", "tenfold").

Pure and dependency-free: :func:`find_prose_numbers` takes the chapter text and its
path and returns ``Finding(line, col, text)`` rows (1-based, of the number's first
character), in reading order.

Scanned besides the running text: headings, callout titles (``title="…"`` on a
``:::`` line), the caption and alt-text options of cells (``#| tbl-cap:``, ``fig-cap``, …:
read/cell_options.py's CAPTION_OPTIONS; also a YAML block
or plain scalar continued over several ``#|`` lines), the alt text and title of an
image's attributes (``{fig-alt="…"}``), numbers with a unit or suffix attached (``4x``,
``100ms``, ``5GB``, ``10k``, ``175B``, ``12.5%``), a unit or suffix glued to an inline
value (`` `{python} x`k `` reads "42k" where the ledger records "42": reported as the
value's code and its suffix), and the first number of an ordered list that does not
start at 1 (``9999. item``: the reader sees 9999; the later markers, and a list
starting at 1, are the renderer's numbering).

Not scanned: YAML front matter, the code of fenced blocks and cells, display
math (``$$ … $$``, also across lines), HTML comments, inline code, inline math,
citations and cross-references (``[@key]``, ``@sec-x``), the rest of attributes
(``{#eq-x}``), link targets and HTML tags, the other ordered-list markers, and tokens in
which a digit follows a letter or is followed by one that is not a unit (model
and part names: H100, BF16, p99, 3f). What may stay literal anyway is
:data:`ALLOWLIST`, the one place that lists it.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from bookcheck.read.cell_options import CAPTION_OPTIONS
from bookcheck.verify.years import YEAR, allowed_span

__all__ = ["ALLOWLIST", "Finding", "find_prose_numbers"]


class Finding(NamedTuple):
    line: int
    col: int
    text: str


#: What prose may write literally: (pattern, reason). The only allowlist.
ALLOWLIST: tuple[tuple[str, str], ...] = (
    (YEAR.pattern, "a year, where the text says it is one (a date, a citation, "
                   "\"in 2024\": scripts/bookcheck/verify/years.py); else 2048 is a count"),
    (r"\b\d+(?:st|nd|rd|th)\b", "an ordinal"),
    (r"\bLlama\s+3\b", "the name of a model family"),
    (r"\bN\+1\b", "the name of a redundancy scheme (one unit more than the load needs)"),
    (r"\b(?:Table|Figure|Section|Appendix) [A-Z]\.\d+\b", "a fixed label such as Table A.1"),
)
_ALLOWED = [re.compile(p) for p, _ in ALLOWLIST]

# ----------------------------------------------------------------- masking rules

_FENCE = re.compile(r"^\s*(```+|~~~+)")
_CELL_FENCE = re.compile(r"^\s*(```+|~~~+)\s*\{")
_CAPTION_OPTION = re.compile(r"^(\s*#\|\s*(?:" + "|".join(map(re.escape, CAPTION_OPTIONS)) + r")"
                             r"\s*:)(.*)$")
_OPTION = re.compile(r"^\s*#\|")
_SHOWN_ATTR = re.compile(r"\b(?:fig-alt|alt|title|fig-cap)=\"([^\"]*)\"")
_ATTRIBUTES = re.compile(r"\{[#.][^}]*\}")
_HEADING = re.compile(r"^\s{0,3}#{1,6}\s")
_DIV_FENCE = re.compile(r"^\s*:::")
_LIST_MARKER = re.compile(r"^(\s*)(\d+)([.)])(?=\s|$)")
_BULLET = re.compile(r"^(\s*)[-*+](?=\s|$)")

_MASKS = [re.compile(p) for p in (
    r"`[^`]*`",                                   # inline code, inline values
    r"(?<!\\)\$[^$]+?(?<!\\)\$",                    # inline math
    r"\[[^\]]*@[^\]]*\]",                          # [@key] citations, [see @x, p. 3]
    r"(?<![\w@])@[\w:-]+",                         # @sec-x cross-references, @key
    r"\]\([^)]*\)",                                 # link targets
    r"<[^>\n]*>",                                  # HTML tags
    r"https?://\S+",                               # bare URLs
)]

#: units and suffixes a number may carry attached (4x, 100ms, 5GB, 10k)
UNITS = ("x", "×", "k", "K", "M", "B", "T", "ms", "us", "µs", "ns", "s", "min", "h", "hr",
         "hrs", "d", "KB", "MB", "GB", "TB", "PB", "EB", "KiB", "MiB", "GiB", "TiB", "Kb", "Mb",
         "Gb", "Tb", "Gbps", "Mbps", "Tbps", "GB/s", "TB/s", "MB/s", "W", "kW", "MW", "GW",
         "Hz", "kHz", "MHz", "GHz", "nm", "mm", "cm", "m", "km")
_NUMBER = re.compile(
    r"(?<![\w.^])"                                 # not part of a word or a decimal
    r"\d[\d,]*(?:\.\d+)?"                          # 12  12,500  12.5
    r"(?:\s?%|(?:" + "|".join(re.escape(u) for u in sorted(UNITS, key=len, reverse=True))
    + r")(?![A-Za-z]))?"                           # 12.5 %  175B  16K  4x  100ms  5GB
    r"(?![A-Za-z\d])"                              # H100, 3f, BF16: names, not numbers
)

_WORD_VALUES = {
    "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15,
    "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19, "twenty": 20,
    "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80,
    "ninety": 90, "hundred": 100, "thousand": 1_000, "million": 10**6, "billion": 10**9,
    "trillion": 10**12, "dozen": 12, "tenfold": 10, "hundredfold": 100, "thousandfold": 1_000,
}
_SMALL_WORDS = {"a", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"}
_NUMBER_WORD = re.compile(
    r"\b(?:(?:a|one|two|three|four|five|six|seven|eight|nine)[\s-]+)?"
    r"(?:" + "|".join(sorted(_WORD_VALUES, key=len, reverse=True)) + r")"
    r"(?:[\s-]+(?:" + "|".join(sorted(_WORD_VALUES, key=len, reverse=True)) + r"))*\b",
    re.IGNORECASE)

# A line can hold a finding only if it has a digit or a number word starting at a word
# boundary: masking only turns characters into spaces, so it never creates either.
# Most prose lines have neither and skip the masking (the scan is ~5x faster). The
# word test runs on the lowercased line, each position first tested for an initial.
_DIGIT = re.compile(r"\d")
_WORD_START = re.compile(
    r"\b(?=[" + "".join(sorted({word[0] for word in _WORD_VALUES})) + r"])"
    r"(?:" + "|".join(sorted(_WORD_VALUES, key=len, reverse=True)) + ")")


#: a unit or suffix glued to an inline value (`` `{python} x`k ``): the page reads "42k",
#: the ledger records "42"
_GLUED_SUFFIX = re.compile(r"`\{python\}[^`]*`(?=(%|" + "|".join(
    re.escape(u) for u in sorted(UNITS, key=len, reverse=True)) + r")(?![A-Za-z\d]))")


def _candidate(line: str) -> bool:
    return bool(_DIGIT.search(line) or "{python}" in line or _WORD_START.search(line.lower()))


def _blank(text: str, start: int, end: int) -> str:
    return text[:start] + " " * (end - start) + text[end:]


def _mask_line(line: str) -> str:
    """The line with every excluded span replaced by spaces (columns preserved)."""
    masked = line
    for match in _ATTRIBUTES.finditer(masked):       # {#fig-x fig-alt="…"}: only the alt
        kept = [(m.start(1) + match.start(), m.end(1) + match.start())
                for m in _SHOWN_ATTR.finditer(match.group(0))]
        masked = _blank(masked, match.start(), match.end())
        for a, b in kept:
            masked = masked[:a] + line[a:b] + masked[b:]
    for pattern in _MASKS:
        for match in pattern.finditer(masked):
            masked = _blank(masked, match.start(), match.end())
    for pattern in _ALLOWED:
        for match in pattern.finditer(masked):
            masked = _blank(masked, *allowed_span(match))
    return masked


def _only_shown_attributes(line: str) -> str:
    """A `:::` line with everything blanked but the values of title="…" and alt texts."""
    out = " " * len(line)
    for m in _SHOWN_ATTR.finditer(line):
        out = out[:m.start(1)] + m.group(1) + out[m.end(1):]
    return out


def _blank_spans(line: str, opening: str, closing: str, inside: bool) -> tuple[str, bool]:
    """`line` with every span from `opening` to `closing` blanked (spans may cross
    lines: `inside` says whether one is open at the line's start, and is returned
    for the next line)."""
    out, i = [], 0
    while i < len(line):
        if inside:
            end = line.find(closing, i)
            stop = len(line) if end < 0 else end + len(closing)
            out.append(" " * (stop - i))
            inside = end < 0
            i = stop
            continue
        start = line.find(opening, i)
        if start < 0:
            out.append(line[i:])
            break
        out.append(line[i:start] + " " * len(opening))
        inside, i = True, start + len(opening)
    return "".join(out), inside


class _Lists:
    """Which ordered-list markers a reader sees as typed: pandoc numbers a list from its
    first marker on (`9999.` starts at 9999, the next items count on whatever they
    write), so a list's first number is the author's unless it is 1; the later markers
    and a list starting at 1 are the renderer's numbering."""

    def __init__(self):
        self.open: list[tuple[int, str]] = []      # (indent, delimiter) of open ordered lists
        self.blank_before = True

    def marker(self, line: str) -> tuple[str, bool]:
        """`line` with its list marker blanked unless it starts a list at a number other
        than 1 (then True: the number is shown as typed)."""
        if not line.strip():
            self.blank_before = True
            return line, False
        indent = len(line) - len(line.lstrip())
        ordered, bullet = _LIST_MARKER.match(line), _BULLET.match(line)
        if ordered or bullet:
            self.open = [(i, d) for i, d in self.open if i < indent
                         or (ordered and i == indent and d == ordered.group(3))]
        elif self.blank_before:                 # a paragraph after a blank line ends the
            self.open = [(i, d) for i, d in self.open if i < indent]   # lists it is not in
        self.blank_before = False
        if not ordered:
            return line, False
        starts = (indent, ordered.group(3)) not in self.open
        if starts:
            self.open.append((indent, ordered.group(3)))
        if starts and int(ordered.group(2)) != 1:
            return _blank(line, ordered.start(3), ordered.end(3)), True
        return _blank(line, ordered.start(2), ordered.end(3)), False


def _continues(raw: str, key_indent: int, empty_value: bool) -> bool:
    """Whether the `#|` line `raw` continues the caption option above it (a YAML block
    or plain scalar over several lines: indented deeper than its key; a block sequence,
    `- item`, may stand at the key's own indent)."""
    body = raw.split("#|", 1)[1] if "#|" in raw else ""
    indent = len(body) - len(body.lstrip())
    if not body.strip():
        return True
    return indent > key_indent or (empty_value and indent == key_indent
                                   and body.lstrip().startswith("- "))


def _prose_lines(text: str):
    """(line number, line) of the prose, with block-level exclusions applied."""
    lines = text.splitlines()
    fence = None
    lists = _Lists()
    caption_key: tuple[int, bool] | None = None       # (key indent, empty value) while open
    cell = options = False
    in_front = bool(lines) and lines[0].strip() == "---"
    in_math = in_comment = False
    for number, raw in enumerate(lines, start=1):
        if in_front:
            if number > 1 and raw.strip() in {"---", "..."}:
                in_front = False
            continue
        if fence is not None:
            if raw.strip().startswith(fence) and raw.strip().strip(fence[0]) == "":
                fence = None
                continue
            options = options and bool(_OPTION.match(raw))
            caption = _CAPTION_OPTION.match(raw) if cell and options else None
            if caption:                 # a caption or alt text: what a reader sees
                body = caption.group(1).split("#|", 1)[1]
                value = caption.group(2).strip()
                caption_key = (len(body) - len(body.lstrip()), value in ("", "|", ">")
                               or bool(re.fullmatch(r"[|>][+-]?\d?|[|>]\d?[+-]?", value)))
                yield number, " " * len(caption.group(1)) + caption.group(2)
            elif caption_key and options and _continues(raw, *caption_key):
                yield number, " " * (raw.index("#|") + 2) + raw.split("#|", 1)[1]
            else:
                caption_key = None
            continue
        match = _FENCE.match(raw)
        if match:
            fence = match.group(1)
            cell = options = bool(_CELL_FENCE.match(raw))
            caption_key = None
            continue
        line, in_comment = _blank_spans(raw, "<!--", "-->", in_comment)    # HTML comments
        line, in_math = _blank_spans(line, "$$", "$$", in_math)           # display math
        if _DIV_FENCE.match(line):
            yield number, _only_shown_attributes(line)
            continue
        heading = _HEADING.match(line)
        if heading:
            line = " " * heading.end() + line[heading.end():]
        line, _ = lists.marker(line)
        yield number, line


def find_prose_numbers(text: str, path: str = "<text>") -> list[Finding]:
    """Numbers written literally in the prose of ``text`` (the chapter at ``path``).

    Reports digits (``12``, ``12,500``, ``12.5 %``, ``175B``) and number words of
    value ten or more (``ten thousand``, ``tenfold``); small counts written as
    words (``two replicas``) are prose. ``path`` names the chapter for the
    caller's messages; the result does not depend on it.
    """
    del path  # the rules are the same for every chapter
    findings = []
    for number, line in _prose_lines(text):
        if not _candidate(line):
            continue
        for match in _GLUED_SUFFIX.finditer(line):
            findings.append(Finding(number, match.end() + 1, match.group(0) + match.group(1)))
        masked = _mask_line(line)
        for match in _NUMBER.finditer(masked):
            findings.append(Finding(number, match.start() + 1, match.group(0)))
        for match in _NUMBER_WORD.finditer(masked):
            words = re.split(r"[\s-]+", match.group(0).lower())
            if any(w in _WORD_VALUES for w in words if w not in _SMALL_WORDS):
                findings.append(Finding(number, match.start() + 1, match.group(0)))
    return sorted(findings)
