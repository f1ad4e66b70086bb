"""The audit of the rendered book: every number a reader sees is accounted for.

After a render, the text a reader sees of each page (HTML: scripts.verify.audit_html;
PDF: its text layer, scripts.verify.audit_pdf) is read back and every number in it
must be a ledger value of that page (`audit_tokens.page_values`, in the page's order
of values), a number the renderer made, or allowed (prose_numbers.ALLOWLIST, code,
math): else an `unaccounted-number`. Every ledger value must appear on its page
(`missing-value`), and text no reader should see is a `leak`. The rules, and the
line each finding names, are docs/audit.md.

Entry points: `audit_html_dir(result, out_dir)`, `audit_pdf(result, pdf)` and
`audit_rendered(result, fmt, out_dir)`, each -> list[Finding]. A page whose text and
values were audited clean before is not audited again (the store's `audit` cache).
"""
from __future__ import annotations

import difflib
import posixpath
from collections import Counter
from pathlib import Path

from scripts import store
from scripts.model import Finding, Kind
from scripts.verify import audit_tokens as tok

CONTEXT = 30
AUDITED: list[str] = []         # every page (or PDF) really audited, not reused by digest


def account(parsed, page: str, text: str, values: list, exempt=(), soft=(),
            soft_numbers=(), glued: bool = False, typed_ok: bool = False) -> list[Finding]:
    """Findings for the numbers of one page's reader text against its published values.

    `exempt`/`soft`: (start, end) spans of `text` the renderer made / that are code or
    math; `soft_numbers`: numbers of code and math when the text cannot say where
    those are (a PDF): an unmatched number among them is accounted for, once each;
    `glued`: digits glued to a word may be a value (a PDF's superscripts and table
    cells lose their spacing), matched if they are one, else taken for a name;
    `typed_ok`: a number written in the chapter's source is the author's (a project
    that does not ask for the literal-number check, `verify: literal-numbers`).
    """
    # a "(0.99)" in a formula's TeX is no equation number: the renderer's labels are not in math
    exempt = list(exempt) + [(a, b) for a, b in tok.spans(tok.ALLOWED + [tok.LABEL, tok.EQ_NUMBER], text)
                             if not tok.inside(a, soft)]
    tokens = [(n, s, e, tok.inside(s, soft)) for n, s, e in tok.number_tokens(text)
              if not tok.inside(s, exempt)]
    if glued:
        tokens = sorted(tokens + [(n, s, e, True) for n, s, e in tok.glued_tokens(text)
                                  if not tok.inside(s, exempt)], key=lambda t: t[1])
    expected = [(n, i) for i, v in enumerate(values) for n in v.numbers]
    required = len(expected)
    expected += [(n, i) for i, v in enumerate(values) for n in v.optional]
    firm = [t for t, token in enumerate(tokens) if not token[3]]
    matcher = difflib.SequenceMatcher(None, [tokens[t][0] for t in firm],
                                      [n for n, _ in expected[:required]], autojunk=False)
    page_of = {}                                    # token index -> expected index
    for a, b, size in matcher.get_matching_blocks():
        for k in range(size):
            page_of[firm[a + k]] = b + k
    # movable numbers out of order (a caption above its table), then values shown as
    # code or math (an md_math value, a number in a code span)
    _bag(tokens, expected, page_of, lambda t, j: not tokens[t][3] and values[expected[j][1]].movable)
    _bag(tokens, expected, page_of, lambda t, j: tokens[t][3])
    _bag(tokens, expected, page_of, lambda t, j: j >= required)
    used = set(page_of.values())
    soft_left = list(soft_numbers)
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
        line = tok.source_line(parsed, n, last_line)
        if typed_ok and line:
            continue
        line = line or last_line            # not written anywhere: after the last value
        context = " ".join(text[max(0, start - CONTEXT):end + CONTEXT].split())
        findings.append(parsed.relocate(Finding(
            parsed.path, line, Kind.UNACCOUNTED_NUMBER,
            f"{page} shows {n!r} (“…{context}…”): not a value the ledger records for this page, "
            "not a number the renderer made, not allowlisted (scripts/verify/prose_numbers.py); "
            "publish it from an inline value or a cell")))
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


def leak_findings(parsed, page: str, text: str, raw: str = "") -> list[Finding]:
    """A `leak` finding for each leak in the reader's text (and each citation miss in
    the raw HTML), located at the first source line that writes it, if any."""
    authored = Counter(shown for _, shown in tok.leaks(parsed.authored) if shown in AUTHORED_WORDS)
    # an `echo: fenced` cell shows its fence, ```{python}, as Quarto does
    authored["{python}"] += sum(1 for cell in parsed.cells if cell.options.get("echo") == "fenced")
    found = [(what, shown) for what, shown in tok.leaks(text)
             if shown not in authored or _spend(authored, shown)]
    found += [("a citation key no bibliography has", m.group(1) + "?")
              for m in tok.CITATION_MISS.finditer(raw)]
    findings = []
    for what, shown in found:
        key = shown.rstrip("?").lstrip("?@")
        line = next((i for i, ln in enumerate(parsed.text.splitlines(), start=1) if key in ln), 0)
        findings.append(parsed.relocate(Finding(parsed.path, line, Kind.LEAK,
                                                f"{page} shows {shown!r}: {what}")))
    return findings


# ------------------------------------------------------------------ the caches

class Seen:
    """Digests of pages audited clean, not audited again (a record of the store's
    `audit` cache, keyed on the audit's code: docs/audit.md, "Cost and reuse")."""

    def __init__(self, root: Path, fmt: str):
        self.store = store.Store(root, "audit", ("scripts.verify.audit",))
        self.name = f".{fmt}"
        old = self.store.get_json(self.name, [])
        self.old = set(old) if isinstance(old, list) else set()
        self.new: set[str] = set()

    def digest(self, *parts) -> str:
        return self.store.key(*parts)

    def clean(self, digest: str) -> bool:
        if digest in self.old:
            self.new.add(digest)
            return True
        return False

    def passed(self, digest: str) -> None:
        self.new.add(digest)

    def save(self) -> None:
        self.store.put_json(self.name, sorted(self.new))


def _values(result) -> dict[str, list]:
    return {path: tok.page_values(parsed, result.runs.get(path))
            for path, parsed in result.parsed.items()}


def _documents(result) -> list[str]:
    project = result.project
    return list(project.chapters) + list(project.appendices)


def audit_html_dir(result, out_dir: Path, page_of=None) -> list[Finding]:
    """Audit every chapter's HTML page under `out_dir` (built-in or Quarto output).

    `page_of(path)` gives a chapter's page relative to `out_dir` (default: the
    source path with .html, Quarto's layout). A page that is missing is a finding.
    """
    from scripts.verify.audit_html import reader_text
    from scripts.verify.inline_math import formula_leaks
    page_of = page_of or (lambda p: posixpath.splitext(p)[0] + ".html")
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
            findings.append(Finding(path, 0, Kind.MISSING_PAGE, f"the render wrote no page {page}"))
            continue
        digest = seen.digest(raw, [v.__dict__ for v in values[path]], parsed.text, typed_ok)
        if seen.clean(digest):
            continue
        AUDITED.append(page)
        html = raw.decode("utf-8", errors="replace")
        reader = reader_text(html)
        found = account(parsed, page, reader.text, values[path], reader.exempt, reader.soft,
                        typed_ok=typed_ok)
        found += formula_leaks(parsed, page, reader.text, reader.raw_math)
        blank = _blank(reader.text, reader.soft + reader.raw_math)
        found += leak_findings(parsed, page, blank, html)
        found += [f for f in leak_findings(parsed, page, reader.text) if "{python}" in f.reason
                  and f not in found]
        if found:
            findings += found
        else:
            seen.passed(digest)
    seen.save()
    return findings


def _blank(text: str, ranges) -> str:
    chars = list(text)
    for a, b in ranges:
        chars[a:b] = " " * (b - a)
    return "".join(chars)


def audit_pdf(result, pdf: Path) -> list[Finding]:
    """Audit the PDF's text layer, chapter by chapter (its bookmarks say where each starts)."""
    from scripts.verify.audit_pdf import chapter_texts, soft_numbers
    raw = Path(pdf).read_bytes()
    values = _values(result)
    seen = Seen(result.project.root, "pdf")
    typed_ok = not getattr(result.project, "literal_numbers", False)
    texts_digest = {p: result.parsed[p].text for p in values}
    digest = seen.digest(raw, {p: [v.__dict__ for v in vs] for p, vs in values.items()},
                         texts_digest, typed_ok)
    if seen.clean(digest):
        seen.save()
        return []
    findings: list[Finding] = []
    AUDITED.append(Path(pdf).name)
    documents = _documents(result)
    texts, problems = chapter_texts(Path(pdf), documents)
    findings += [Finding(documents[0] if documents else "", 0, Kind.PDF_BOOKMARKS, p) for p in problems]
    name = Path(pdf).name
    for path, (pages, text, exempt) in texts.items():
        parsed = result.parsed.get(path)
        if parsed is None:
            continue
        where = f"{name} p. {pages}"
        findings += account(parsed, where, text, values[path], exempt,
                            soft_numbers=soft_numbers(parsed), glued=True, typed_ok=typed_ok)
        findings += leak_findings(parsed, where, text)
    if not findings:
        seen.passed(digest)
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
