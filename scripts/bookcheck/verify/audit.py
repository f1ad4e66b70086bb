"""The audit of the rendered book: every number a reader sees is accounted for.

After a render, the text a reader sees of each page (HTML: bookcheck.verify.audit_html;
PDF: its text layer, bookcheck.verify.audit_pdf) is read back and every number in it
must be a ledger value of that page (`audit_tokens.page_values`, in the page's order
of values), a number the renderer made, or allowed (prose_numbers.ALLOWLIST, code,
math): else an `unaccounted-number`. Every ledger value must appear on its page
(`missing-value`), and text no reader should see is a `leak`. The rules, and the
line each finding names, are docs/audit.md.

Entry points: `audit_html_dir(result, out_dir)`, `audit_pdf(result, pdf)` and
`audit_rendered(result, fmt, out_dir)`, each -> list[Finding]. A page whose text and
values were audited before is not audited again: its findings (none, if it was
clean) are reported again (the store's `audit` cache).
"""
from __future__ import annotations

import posixpath
import re
from collections import Counter
from dataclasses import asdict
from pathlib import Path

from bookcheck import store
from bookcheck.model import Finding, Kind, finding_from_dict
from bookcheck.verify import audit_tokens as tok

CONTEXT = 30
AUDITED: list[str] = []         # every page (or PDF) really audited, not reused by digest


def first_line(parsed) -> int:
    """The line a finding about the whole page names when nothing nearer made it: the
    document's first heading (its title), else its first line; never 0."""
    for number, line in enumerate(parsed.text.splitlines(), start=1):
        if line.startswith("#") and not line.startswith("#|"):
            return number
    return 1


def account(parsed, page: str, text: str, values: list, exempt=(), soft=(),
            soft_numbers=(), glued: bool = False, typed_ok: bool = False,
            default_line: int = 0) -> list[Finding]:
    """Findings for the numbers of one page's reader text against its published values.

    `exempt`/`soft`: (start, end) spans of `text` the renderer made / that are code or
    math; `soft_numbers`: numbers of code and math when the text cannot say where
    those are (a PDF): an unmatched number among them is accounted for, once each;
    `glued`: digits glued to a word may be a value (a PDF's superscripts and table
    cells lose their spacing), matched if they are one, else taken for a name;
    `typed_ok`: a number written in the chapter's source is the author's (a project
    that does not ask for the literal-number check, `verify: literal-numbers`).
    An unaccounted number names the source line writing it, else the line of the value
    the page shows before it, else of the one after it, else `default_line` (default:
    the document's title, `first_line`): never line 0.
    """
    code = tok.Ranges(soft)
    # a "(0.99)" in a formula's TeX is no equation number: the renderer's labels are not in math
    exempt = tok.Ranges(list(exempt) + [(a, b) for a, b in tok.spans([tok.LABEL, tok.EQ_NUMBER], text)
                                        if not tok.inside(a, code)])
    # an allowed number (a year in its context) may still be a value's ("1979 TOPS" in a
    # table, whose neighbour makes it look like a venue's year): matched if one needs it
    soft = tok.Ranges(list(soft) + tok.spans(tok.ALLOWED, text))
    tokens = [(n, s, e, tok.inside(s, soft)) for n, s, e in tok.number_tokens(text)
              if not tok.inside(s, exempt)]
    if glued:
        tokens = sorted(tokens + [(n, s, e, True) for n, s, e in tok.glued_tokens(text)
                                  if not tok.inside(s, exempt)], key=lambda t: t[1])
    expected = [(n, i) for i, v in enumerate(values) for n in v.numbers]
    required = len(expected)
    expected += [(n, i) for i, v in enumerate(values) for n in v.optional]
    firm = [t for t, token in enumerate(tokens) if not token[3]]
    ordered = [j for j, (_, i) in enumerate(expected[:required]) if values[i].ordered]
    page_of = {firm[a]: ordered[b] for a, b in tok.in_order([tokens[t][0] for t in firm],
                                                            [expected[j][0] for j in ordered])}
    # movable numbers out of order (a caption above its table), then values shown as
    # code or math (an md_math value, a number in a code span)
    _bag(tokens, expected, page_of, lambda t, j: not tokens[t][3] and values[expected[j][1]].movable)
    _bag(tokens, expected, page_of, lambda t, j: tokens[t][3])
    _bag(tokens, expected, page_of, lambda t, j: j >= required)
    used = set(page_of.values())
    soft_left = list(soft_numbers)
    written = tok.source_index(parsed)
    next_line, later = [], default_line or first_line(parsed)
    for t in range(len(tokens) - 1, -1, -1):         # the line of the next value shown
        if t in page_of:
            later = values[expected[page_of[t]][1]].line
        next_line.append(later)
    next_line.reverse()
    findings, last_line = [], 0
    for t, (n, start, end, is_soft) in enumerate(tokens):
        if t in page_of:
            last_line = max(last_line, values[expected[page_of[t]][1]].line)
            continue
        if is_soft:
            continue
        if n in soft_left:
            soft_left.remove(n)
            continue
        line = tok.source_line(written, n, last_line)
        if typed_ok and line:
            continue
        line = line or last_line or next_line[t]    # not written: near the values around it
        context = " ".join(text[max(0, start - CONTEXT):end + CONTEXT].split())
        findings.append(parsed.relocate(Finding(
            parsed.path, line, Kind.UNACCOUNTED_NUMBER,
            f"{page} shows {n!r} (“…{context}…”): " + _why(n, values, expected, used))))
    missing = {}
    for j, (n, i) in enumerate(expected[:required]):
        if j not in used:
            missing.setdefault(i, []).append(n)
    for i, numbers in missing.items():
        value = values[i]
        findings.append(parsed.relocate(Finding(
            parsed.path, value.line, Kind.MISSING_VALUE,
            f"{page} does not show {', '.join(repr(n) for n in numbers)} of {value.where}, "
            "which the ledger records for it")))
    return findings


def _why(n: str, values, expected, used) -> str:
    """Why a number is unaccounted, and the way out: a value's text shown where the
    audit did not expect it is not advised to be published from a value."""
    same = [(j, i) for j, (m, i) in enumerate(expected) if m == n]
    if not same:
        return ("not a value the ledger records for this page, not a number the renderer "
                "made, not allowlisted (scripts/bookcheck/verify/prose_numbers.py); publish it from "
                "an inline value or a cell")
    left = [i for j, i in same if j not in used]
    value = values[(left or [same[0][1]])[0]]
    where = f"{value.where} (line {value.line})"
    if not left:
        return (f"the text of {where}, shown more often than the page's values publish it "
                "(each of them is accounted for elsewhere on the page): publish this one "
                "from a value too, or write it in words")
    return (f"the text of {where}, shown out of the order of the page's values (docs/audit.md, "
            "\"What accounts for a number\"), so not taken for it: see the missing-value "
            f"finding at line {value.line}")


def _bag(tokens, expected, page_of: dict, allowed) -> None:
    """Match still unmatched tokens with still unmatched expected numbers, in order,
    where `allowed(token index, expected index)`."""
    used = set(page_of.values())
    spare: dict[str, list[int]] = {}
    for j, (n, _) in enumerate(expected):
        if j not in used:
            spare.setdefault(n, []).append(j)
    for t, token in enumerate(tokens):
        if t in page_of:
            continue
        for j in spare.get(token[0], []):
            if allowed(t, j):
                page_of[t] = j
                spare[token[0]].remove(j)
                break


#: leaks that are also words an author may write (a table cell "None"): as many as the
#: chapter's own prose writes are the author's, only the rest leaked
AUTHORED_WORDS = ("None", "nan")


def _spend(authored: Counter, shown: str) -> bool:
    """True when `shown` is beyond what the author wrote (one written occurrence used up)."""
    authored[shown] -= 1
    return authored[shown] < 0


def leak_findings(parsed, page: str, text: str, raw: str = "",
                  only: str | None = None, run=None, default_line: int = 0) -> list[Finding]:
    """A `leak` finding for each leak in the reader's text (and each citation miss in
    the raw HTML), located at the source line that writes it (`audit_tokens.written_at`:
    a broken formula's raw TeX at that formula's line, not the first line using the macro);
    else at the first cell or inline value of `run` whose output shows it; else at
    `default_line` (default: the document's title): never line 0."""
    authored = Counter(shown for _, shown, *_ in tok.leaks(parsed.authored) if shown in AUTHORED_WORDS)
    # an `echo: fenced` cell shows its fence, ```{python}, as Quarto does
    authored["{python}"] += sum(1 for cell in parsed.cells if cell.resolved.echo == "fenced")
    found = [(what, shown, text, at, pattern) for what, shown, at, pattern in tok.leaks(text)
             if (shown not in AUTHORED_WORDS and shown not in authored or _spend(authored, shown))
             and only in (None, shown)]
    found += [("a citation key no bibliography has", m.group(1) + "?", raw, m.start(),
               re.compile(re.escape(m.group(1)))) for m in tok.CITATION_MISS.finditer(raw)]
    findings, places = [], {}
    for what, shown, where, at, pattern in found:
        if shown.startswith("?"):               # the source writes @label, not ?@label or ?label
            pattern = re.compile("@" + re.escape(shown.lstrip("?@")) + r"(?![\w:-])")
        line = (tok.written_at(parsed, pattern, where, at, places)
                or _shown_by(parsed, run, pattern) or default_line or first_line(parsed))
        findings.append(parsed.relocate(Finding(parsed.path, line, Kind.LEAK,
                                                f"{page} shows {shown!r}: {what}")))
    return findings


def _shown_by(parsed, run, pattern: re.Pattern) -> int:
    """The line of the first cell (its fence) or inline value of `run` whose shown text
    matches `pattern`; 0 when none does."""
    if run is None:
        return 0
    shows = {r.index: r for r in run.cells}
    for cell in parsed.cells:
        result = shows.get(cell.index)
        if result and any(pattern.search(o.data or "") for o in result.outputs
                          if not o.kind.startswith("image/")):
            return cell.fence_line
    texts = {r.index: r.text for r in run.inlines}
    return next((expr.line for expr in parsed.inlines
                 if pattern.search(texts.get(expr.index) or "")), 0)


# ------------------------------------------------------------------ the caches

AUDIT = "audit"         # the store folder of the audit's records


def seconds_record(root: Path, fmt: str) -> Path:
    """Where a render records its audit's seconds (render/__init__.py; `make bench`)."""
    return store.build_dir(root) / AUDIT / f"seconds-{fmt}.txt"


class Seen:
    """The findings of pages audited before, by a digest of what the audit reads (a
    record of the store's `audit` cache, keyed on the audit's code: docs/audit.md,
    "Cost and reuse"): an unchanged page, clean or failing, is not audited again."""

    def __init__(self, root: Path, fmt: str):
        self.store = store.Store(root, AUDIT, ("bookcheck.verify.audit",))
        self.name = f".{fmt}"
        old = self.store.get_json(self.name, {})
        self.old = old if isinstance(old, dict) else {}
        self.new: dict[str, list] = {}

    def digest(self, *parts) -> str:
        return self.store.key(*parts)

    def known(self, digest: str) -> list[Finding] | None:
        """The findings of the page audited under `digest` before; None if it was not."""
        found = self.old.get(digest)
        if not isinstance(found, list):
            return None
        try:
            findings = [finding_from_dict(f) for f in found]
        except (TypeError, ValueError):
            return None
        self.new[digest] = found
        return findings

    def record(self, digest: str, findings: list[Finding]) -> None:
        self.new[digest] = [asdict(f) for f in findings]

    def save(self) -> None:
        self.store.put_json(self.name, self.new)


def _values(result, notes_at_end: bool = True) -> dict[str, list]:
    return {path: tok.page_values(parsed, result.runs.get(path), notes_at_end)
            for path, parsed in result.parsed.items()}


def _documents(result) -> list[str]:
    project = result.project
    return list(project.chapters) + list(project.appendices)


def audit_html_dir(result, out_dir: Path, page_of=None) -> list[Finding]:
    """Audit every chapter's HTML page under `out_dir` (built-in or Quarto output).

    `page_of(path)` gives a chapter's page relative to `out_dir` (default: the
    source path with .html, Quarto's layout). A page that is missing is a finding.
    """
    from bookcheck.verify.audit_chrome import audit_chrome, split_chrome
    from bookcheck.verify.audit_html import reader_text
    from bookcheck.verify.inline_math import formula_leaks
    from bookcheck.verify.explorer_data import page_findings as explorer_findings
    page_of = page_of or (lambda p: posixpath.splitext(p)[0] + ".html")
    book = getattr(result.project, "type", "book") == "book"
    first = _documents(result)[0] if book and _documents(result) else None
    seen = Seen(result.project.root, "html")
    typed_ok = not getattr(result.project, "literal_numbers", False)
    findings: list[Finding] = []
    values = _values(result)
    for path in _documents(result):
        parsed = result.parsed.get(path)
        if parsed is None:
            continue
        page = page_of(path)
        try:
            raw = (Path(out_dir) / page).read_bytes()
        except OSError:
            findings.append(Finding(path, first_line(parsed), Kind.MISSING_PAGE,
                                    f"the render wrote no page {page}"))
            continue
        digest = seen.digest(page, raw, [v.__dict__ for v in values[path]], parsed.text, typed_ok,
                             path == first, parsed.line_map)      # (the chrome; the includes' lines)
        known = seen.known(digest)
        if known is not None:
            findings += known
            continue
        AUDITED.append(page)
        html = raw.decode("utf-8", errors="replace")
        reader = reader_text(split_chrome(html, book_index=path == first)[0])   # audit_chrome.py
        found = account(parsed, page, reader.text, values[path], reader.exempt, reader.soft,
                        typed_ok=typed_ok)
        found += formula_leaks(parsed, page, reader.text, reader.raw_math)
        blank = _blank(reader.text, reader.soft + reader.raw_math)
        run = result.runs.get(path)
        found += explorer_findings(parsed, run, page, html)
        found += leak_findings(parsed, page, blank, html, run=run)
        found += [f for f in leak_findings(parsed, page, reader.text, only="{python}", run=run)
                  if f not in found]
        seen.record(digest, found)
        findings += found
    seen.save()
    return findings + audit_chrome(result, out_dir, page_of)


def _blank(text: str, ranges) -> str:
    chars = list(text)
    for a, b in ranges:
        chars[a:b] = " " * (b - a)
    return "".join(chars)


def audit_pdf(result, pdf: Path) -> list[Finding]:
    """Audit the PDF's text layer, chapter by chapter (its bookmarks say where each starts)."""
    from bookcheck.verify.audit_pdf import (bibliography_years, chapter_texts,
                                          citation_year_spans, soft_numbers)
    raw = Path(pdf).read_bytes()
    values = _values(result, notes_at_end=False)     # a PDF's notes: at the foot of a page
    seen = Seen(result.project.root, "pdf")
    typed_ok = not getattr(result.project, "literal_numbers", False)
    texts_digest = {p: result.parsed[p].text for p in values}
    digest = seen.digest(raw, {p: [v.__dict__ for v in vs] for p, vs in values.items()},
                         texts_digest, typed_ok, _documents(result))
    known = seen.known(digest)
    if known is not None:
        seen.save()
        return known
    findings: list[Finding] = []
    AUDITED.append(Path(pdf).name)
    documents = _documents(result)
    texts, problems = chapter_texts(Path(pdf), documents)
    findings += [Finding(documents[0] if documents else "", 0, Kind.PDF_BOOKMARKS, p) for p in problems]
    name = Path(pdf).name
    years = bibliography_years(result.project)
    for path, (pages, text, exempt) in texts.items():
        parsed = result.parsed.get(path)
        if parsed is None:
            continue
        exempt = exempt + citation_year_spans(text, years)
        where = f"{name} p. {pages}"
        findings += account(parsed, where, text, values[path], exempt,
                            soft_numbers=soft_numbers(parsed), glued=True, typed_ok=typed_ok)
        findings += leak_findings(parsed, where, text, run=result.runs.get(path))
    seen.record(digest, findings)
    seen.save()
    return findings


def audit_rendered(result, fmt: str, out_dir: Path, produced: Path | None = None,
                   page_of=None) -> list[Finding]:
    """The audit of a render in `out_dir`: "html" (every page) or "pdf" (`produced`,
    else the first PDF under `out_dir`)."""
    if fmt == "html":
        return audit_html_dir(result, out_dir, page_of)
    pdf = produced or next(iter(sorted(Path(out_dir).rglob("*.pdf"))), None)
    if pdf is None:
        return [Finding("_quarto.yml", 0, Kind.MISSING_PDF, "the render wrote no PDF")]
    return audit_pdf(result, pdf)
