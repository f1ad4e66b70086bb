"""Math in a chapter's source, found as pandoc finds it, and the inline values inside it.

`math_spans(parsed)`: every `$…$` and `$$…$$` of the chapter's Markdown (pandoc's
`tex_math_dollars`: an opening `$` not followed by a space, a closing `$` not after a
space nor before a digit, no blank line inside; `\\$` is a dollar; not in code, code
spans or HTML comments), with each inline `{python}` expression standing for its value.

`inline_math(parsed, run)`: an inline value inside math that Quarto would insert
escaped (a `str`: `11,025` -> `11\\,025`, `0.50` -> `0\\.50`; bookcheck.run.inline_values)
breaks the formula: an `inline-math` finding at the expression, naming the way out
that works in Quarto 1.7.34 (docs/quarto-compat.md).

`formula_leaks(parsed, page, text, spans)`: a `leak` for each formula a page shows as
raw TeX (pandoc's `$TeX$` when it cannot convert one), at the line of its formula in
the source (`formula_of`), not at the first line that names one of its macros.
"""
from __future__ import annotations

import bisect
import re
from dataclasses import dataclass

from bookcheck.model import Finding, Kind
from bookcheck.read.labels import HTML_COMMENT
from bookcheck.read.qmd import FENCE_ANY

BACKTICKS = re.compile(r"`+")
COMMAND = re.compile(r"\\[A-Za-z]+(?=\{)")
SPACES = re.compile(r"\s+")
MARKS = re.compile(r"[\\`$]")            # where code, an escape or math may start
MATH_MARKS = re.compile(r"[\\$\s]")     # inside `$…$`: an escape, the end, spacing
FIX = ("return the value as Markdown, which Quarto inserts verbatim: "
       "`{{python}} Markdown({expr})` (from IPython.display import Markdown), or build the "
       "whole formula in the cell (Markdown(f\"$…$\")), or write the value outside the math")


@dataclass(frozen=True)
class Math:
    start: int          # offsets in the chapter's text, delimiters included
    end: int
    display: bool


def _code_blanked(parsed) -> str:
    """The chapter's Markdown as pandoc reads it for math: python cells and other fenced
    blocks and HTML comments blanked, each inline expression a placeholder word."""
    chars = list(parsed.authored or parsed.text)
    for expr in parsed.inlines:
        chars[expr.start:expr.end] = "x" * (expr.end - expr.start)
    text = "".join(chars)
    text = HTML_COMMENT.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), text)
    lines, fence = text.split("\n"), None
    for i, line in enumerate(lines):
        m = FENCE_ANY.match(line)
        if fence is None and m and not (m.group(2)[0] == "`" and "`" in m.group(3)):
            fence = m.group(2)
        elif fence is not None and re.fullmatch(r"\s*" + re.escape(fence[0]) + "{%d,}\\s*" % len(fence), line):
            lines[i], fence = " " * len(line), None
        if fence is not None:
            lines[i] = " " * len(line)
    return "\n".join(lines)


def _code_span_end(text: str, i: int) -> int:
    """Past the code span opening at `i` (or past its backticks when it is never closed)."""
    ticks = BACKTICKS.match(text, i).group(0)
    for m in BACKTICKS.finditer(text, i + len(ticks)):
        if "\n\n" in re.sub(r"\n[ \t]+", "\n", text[i:m.start()]):
            break
        if m.group(0) == ticks:
            return m.end()
    return i + len(ticks)


def _braces_end(text: str, i: int) -> int:
    """Past the balanced `{…}` opening at `i` (a `\\text{…}` may hold `$`)."""
    depth = 0
    for k in range(i, len(text)):
        depth += {"{": 1, "}": -1}.get(text[k], 0)
        if depth == 0:
            return k + 1
    return len(text)


def _inline_end(text: str, i: int) -> int | None:
    """The end of the `$…$` opening at `i`, None when pandoc reads no math there."""
    n, k = len(text), i + 1
    if k >= n or text[k].isspace():
        return None
    while True:
        m = MATH_MARKS.search(text, k)
        if m is None:
            return None
        k, ch = m.start(), m.group(0)
        if ch == "\\":
            k = _braces_end(text, k + 5) if text.startswith("text{", k + 1) else k + 2
        elif ch == "$":
            return None if k + 1 < n and text[k + 1].isdigit() else k + 1
        elif ch.isspace():
            run = SPACES.match(text, k).group(0)
            if "\n\n" in re.sub(r"[ \t]+", "", run) or text[k + len(run):k + len(run) + 1] == "$":
                return None
            k += len(run)


def _display_end(text: str, i: int) -> int | None:
    close = text.find("$$", i + 2)
    if close < 0 or re.search(r"\n[ \t]*\n", text[i:close]):
        return None
    return close + 2


def _raw_tex_end(text: str, i: int) -> int:
    """Past the escape or the raw LaTeX command (`\\index{…}`, its braces) at `i`:
    pandoc reads no math inside either."""
    m = COMMAND.match(text, i)
    if not m:
        return i + 2
    end = m.end()
    while text.startswith("{", end):
        end = _braces_end(text, end)
    return end


def math_spans(parsed) -> list[Math]:
    """Every formula of the chapter's Markdown, in order (pandoc's `$` rules)."""
    text, found, i = _code_blanked(parsed), [], 0
    while True:
        m = MARKS.search(text, i)
        if m is None:
            return found
        i, ch = m.start(), m.group(0)
        if ch == "\\":
            i = _raw_tex_end(text, i)
        elif ch == "`":
            i = _code_span_end(text, i)
        elif ch == "$":
            display = text.startswith("$$", i)
            end = _display_end(text, i) if display else _inline_end(text, i)
            if end is None:
                i += 2 if display else 1
                continue
            found.append(Math(i, end, display))
            i = end


def _escaped(value) -> bool:
    """Whether Quarto's insertion of this inline value would break a formula around it."""
    if value.kind == "text":
        return bool(value.markdown) and value.markdown != value.text
    return value.kind == "markdown" and "$" in value.markdown


def inline_math(parsed, run) -> list[Finding]:
    """An `inline-math` finding for each inline value inside math that Quarto escapes."""
    values = {r.index: r for r in run.inlines} if run is not None else {}
    text = parsed.text
    if not any(_escaped(values[e.index]) and "$" in text[text.rfind("\n\n", 0, e.start) + 1:e.start]
               for e in parsed.inlines if e.index in values):
        return []            # no such value after a `$` in its paragraph: no math to scan
    spans = math_spans(parsed)
    starts = [m.start for m in spans]
    findings = []
    for expr in parsed.inlines:
        inside = spans[bisect.bisect(starts, expr.start) - 1] if starts else None
        if inside is not None and not inside.start < expr.start < inside.end:
            inside = None
        value = values.get(expr.index)
        if inside is None or value is None or not expr.substitute or not _escaped(value):
            continue
        why = (f"Quarto inserts this str escaped as Markdown ({value.markdown!r})"
               if value.kind == "text" else
               f"its Markdown holds `$` ({value.markdown[:40]!r}): a formula inside a formula")
        delimiter = "$$…$$" if inside.display else "$…$"
        findings.append(Finding(
            parsed.path, expr.line, Kind.INLINE_MATH,
            f"inline value inside {delimiter} math: {why}, which breaks the formula; "
            + FIX.format(expr=expr.expr), col=expr.col, detail=f"`{{python}} {expr.expr}`"))
    return findings


def _pattern(source: str, inlines) -> re.Pattern:
    """A formula's source as a pattern of what a page may show of it: each inline
    expression any text, spacing free, an equation number (`\\tag{1.1}`) after it."""
    parts, pos = [], 0
    for start, end in [*inlines, (len(source), len(source))]:
        parts += [r"\s*".join(map(re.escape, source[pos:start].split())), ".*?"]
        pos = end
    body = r"\s*".join(p for p in parts[:-1] if p)
    return re.compile(r"\s*" + body + r"\s*(?:\\tag\{[^}]*\}|\\qquad\([^)]*\))?\s*", re.S)


#: the delimiters a page may show around a formula's TeX
DELIMITERS = re.compile(r"^\s*(?:\$\$?|\\[(\[])(.*?)(?:\$\$?|\\[)\]])\s*$", re.S)


def formula_of(parsed, tex: str) -> tuple[int, bool]:
    """(line, holds an inline value) of the chapter's formula a page shows as `tex`
    (with its delimiters `$`, `\\(`, `\\[` or none); (0, False) when none is."""
    m = DELIMITERS.match(tex)
    shown = m.group(1) if m else tex
    for span in math_spans(parsed):
        cut = 2 if span.display else 1
        start, end = span.start + cut, span.end - cut
        inlines = [(e.start - start, e.end - start) for e in parsed.inlines if start <= e.start < end]
        if _pattern(parsed.text[start:end], inlines).fullmatch(shown):
            return parsed.text.count("\n", 0, span.start) + 1, bool(inlines)
    return 0, False


def formula_leaks(parsed, page: str, text: str, spans) -> list[Finding]:
    """A `leak` for each formula of a page shown as raw TeX, at its source formula's line."""
    findings = []
    for a, b in spans:
        tex = " ".join(text[a:b].split())
        line, valued = formula_of(parsed, tex)
        why = ("an inline value inside it was escaped (`make check`: inline-math)" if valued else
               "TeX the renderer's converter does not support")
        findings.append(parsed.relocate(Finding(
            parsed.path, line, Kind.LEAK,
            f"{page} shows raw TeX “{tex[:80]}”: a formula the renderer could not convert ({why})")))
    return findings
