"""Facts about one conformance case, read from what Quarto 1.7.34 produced
(`expected/`) and from what this project produces, in comparable form.

Every extractor returns plain data (lists/dicts of strings) so a difference
prints as a readable diff. Nothing here runs Quarto or the checker.
"""
from __future__ import annotations

import html
import re
from pathlib import Path

from bookcheck.model import Kind

CELL_FENCE = re.compile(r"^\s*(`{3,})\s*\{python[^}]*\}\s*$")
CODE_SPAN = re.compile(r"(`+)(.+?)(?<!`)\1(?!`)")
INLINE_MARK = re.compile(r"\{[Pp]ython\}")
NBSP = "\u00a0"
KERNEL_TMP = re.compile(r"/tmp/ipykernel_\d+/\d+\.py")


# -- inline values ----------------------------------------------------------------
def prose_lines(text: str) -> list[tuple[str, str | None]]:
    """(line, next line) for each line outside ```{python} cells that holds `{python}`."""
    lines = text.split("\n")
    found, fence = [], None
    for i, line in enumerate(lines):
        m = CELL_FENCE.match(line)
        if fence is None and m:
            fence = m.group(1)
            continue
        if fence is not None:
            if line.strip() == fence:
                fence = None
            continue
        if INLINE_MARK.search(line):
            nxt = lines[i + 1] if i + 1 < len(lines) else None
            if nxt is not None and CELL_FENCE.match(nxt):
                nxt = None
            found.append((line, nxt))
    return found


def line_pattern(line: str, nxt: str | None) -> re.Pattern:
    """A regex matching `line` in an executed markdown, each code span holding
    `{python}` a capture group (the text that stands there after execution)."""
    end = "$"
    if nxt is not None and "`" in line:
        prefix = nxt.split("`", 1)[0]
        end = r"(?=\n" + re.escape(prefix) + ")" if prefix.strip() else "$"
    spans = [m for m in CODE_SPAN.finditer(line) if INLINE_MARK.search(m.group(2))]
    parts, pos = [], 0
    for i, m in enumerate(spans):
        parts.append(re.escape(line[pos:m.start()]))
        # only the last slot may hold several lines, and only when the next line bounds it
        last_multiline = i == len(spans) - 1 and end != "$"
        parts.append("(.*?)" if last_multiline else "([^\n]*?)")
        pos = m.end()
    parts.append(re.escape(line[pos:]))
    return re.compile("^" + "".join(parts) + end, re.M | re.S)


def inline_texts(markdown: str, lines: list[tuple[str, str | None]]) -> dict[str, list[str] | None]:
    """For each source line: the texts that stand where its code spans were (None: line not found)."""
    out: dict[str, list[str] | None] = {}
    for line, nxt in lines:
        m = line_pattern(line, nxt).search(markdown)
        out[line.strip()] = list(m.groups()) if m else None
    return out


# -- cell outputs -----------------------------------------------------------------
OUTPUT_DIV = re.compile(r"^::: \{\.cell-output([^}]*)\}\n(.*?)\n:::$", re.M | re.S)


def expected_outputs(markdown: str, project: str = "<project>") -> list[tuple[str, str]]:
    """(kind, text) of each `.cell-output` div of a kept .html.md, in order.

    kind: text (stdout, stderr, plain display), markdown, html, image, error.
    `output: asis` outputs have no div and are not listed.
    """
    found = []
    for m in OUTPUT_DIV.finditer(markdown):
        classes, body = m.group(1), m.group(2)
        if "cell-output-error" in classes:
            found.append(("error", ""))
        elif "cell-output-markdown" in classes:
            found.append(("markdown", body.strip()))
        elif body.lstrip().startswith("```{=html}"):
            found.append(("html", _unfence(body)))
        elif body.lstrip().startswith("!["):
            found.append(("image", ""))
        else:
            found.append(("text", _unfence(body)))
    return found


def _unfence(body: str) -> str:
    lines = body.strip().split("\n")
    if lines and lines[0].startswith("```"):
        lines = lines[1:-1] if lines[-1].startswith("```") else lines[1:]
    return "\n".join(lines).strip()


def our_outputs(parsed, run, root: Path) -> list[tuple[str, str]]:
    """The same facts from a ChapterRun (cells with `output: asis` left out)."""
    found = []
    cells = {c.index: c for c in parsed.cells}
    for cell_run in run.cells:
        cell = cells.get(cell_run.index)
        if cell is not None and str(cell.options.get("output", "")).lower() == "asis":
            continue
        for out in cell_run.outputs:
            kind = {"image/png": "image", "image/svg+xml": "image"}.get(out.kind, out.kind)
            text = "" if kind in ("image", "error") else out.data.strip()
            text = text.replace(str(root.resolve()), "<project>").replace(str(root), "<project>")
            text = KERNEL_TMP.sub("<tmp>/ipykernel_<pid>/<n>.py", text)
            found.append((kind, text))
    return found


# -- findings ---------------------------------------------------------------------
def quarto_findings(log: str) -> list[str]:
    """What Quarto reported: errors that stopped it, unresolved refs, missing citations."""
    found = []
    for m in re.finditer(r"Unable to resolve crossref @(\S+)", log):
        found.append(f"unresolved-ref {m.group(1)}")
    for m in re.finditer(r"citation (\S+) not found", log):
        found.append(f"missing-citation {m.group(1)}")
    status = re.search(r"exit status: (\d+)", log)
    if status and status.group(1) != "0":
        errors = re.findall(r"^(\w+(?:Error|Exception)): ", log, re.M)
        found.append(f"error {errors[-1] if errors else '?'}")
    return sorted(found)


def our_findings(findings) -> list[str]:
    """Our findings in Quarto's terms; the other kinds as `kind path`."""
    found = []
    for f in findings:
        if f.kind == Kind.LEDGER:
            continue
        if f.kind == Kind.UNKNOWN_REF:
            found.append("unresolved-ref " + f.reason.split()[0].lstrip("@"))
        elif f.kind == Kind.UNKNOWN_CITATION:
            found.append("missing-citation " + f.reason.split()[0].lstrip("@").rstrip(":"))
        elif f.kind in (Kind.CELL_ERROR, Kind.INLINE_ERROR, Kind.INVARIANT):
            found.append("error " + f.reason.split(":")[0])
        else:
            found.append(f"{f.kind} {f.path}")
    return sorted(set(found))


# -- rendered pages ---------------------------------------------------------------
EXCERPT_HEAD = re.compile(r"^<!-- (?:_book/)?(\S+\.html), lines [^>]*-->$", re.M)
XREF = re.compile(r'<a href="[^"]*" class="quarto-xref">(.*?)</a>', re.S)
UNRESOLVED = re.compile(r'class="quarto-unresolved-ref">(.*?)</span>')
CAPTION = re.compile(r"((?:Table|Figure|Note|Listing)(?:&nbsp;|\u00a0| )[A-Z0-9][\w.]*: [^<\n]+)")
TAG = re.compile(r"\\tag\{([^}]*)\}")
H1_TITLE = re.compile(r'<h1 class="title">(.*?)</h1>', re.S)
SIDEBAR_ENTRY = re.compile(r'<span class="menu-text"><span class="chapter-number">(.*?)</span>&nbsp; <span class="chapter-title">(.*?)</span>')
CITATION = re.compile(r'<span class="citation"[^>]*>(.*?)</span>(?=[^<]*(?:<|$))', re.S)
TITLE = re.compile(r"<title>(.*?)</title>", re.S)


def text_of(fragment: str) -> str:
    """Visible text of an HTML fragment, whitespace collapsed, no-break spaces as spaces."""
    text = html.unescape(re.sub(r"<[^>]+>", "", fragment)).replace(NBSP, " ")
    return " ".join(text.split())


def excerpts(text: str) -> dict[str, str]:
    """page -> the excerpt lines copied from it (concatenated)."""
    pages: dict[str, str] = {}
    heads = list(EXCERPT_HEAD.finditer(text))
    for i, m in enumerate(heads):
        end = heads[i + 1].start() if i + 1 < len(heads) else len(text)
        pages[m.group(1)] = pages.get(m.group(1), "") + text[m.end():end]
    return pages


def quarto_page_facts(fragment: str) -> dict[str, list[str]]:
    """Cross-reference texts, captions, equation numbers, titles, sidebar, citations."""
    facts = {
        "xrefs": [text_of(x) for x in XREF.findall(fragment)],
        "unresolved": [text_of(x) for x in UNRESOLVED.findall(fragment)],
        "captions": [text_of(c) for c in CAPTION.findall(fragment)],
        "equations": TAG.findall(fragment),
        "titles": [text_of(h) for h in H1_TITLE.findall(fragment)],
        "sidebar": [f"{text_of(n)} {text_of(t)}" for n, t in SIDEBAR_ENTRY.findall(fragment)],
        "citations": [text_of(c) for c in CITATION.findall(fragment)],
    }
    return {k: v for k, v in facts.items() if v}


OUR_XREF = re.compile(r'<a href="[^"]*" class="quarto-xref">(.*?)</a>', re.S)
OUR_EQ = re.compile(r'class="eq-number">\((.*?)\)<')
OUR_H1 = re.compile(r"<h1[^>]*>(.*?)</h1>", re.S)
OUR_SIDEBAR = re.compile(r'<li><a href="[^"]*"[^>]*>(?:<span class="toc-number">(.*?)</span> )?([^<]*)</a>')


def our_page_facts(page: str, wanted: dict[str, list[str]]) -> dict[str, list[str]]:
    """The same facts from one of our pages, for the keys Quarto's excerpt has."""
    main = page.split('<main', 1)[-1]
    text = text_of(main)
    facts: dict[str, list[str]] = {}
    for key, values in wanted.items():
        if key == "xrefs":
            facts[key] = [text_of(x) for x in OUR_XREF.findall(main)]
        elif key == "unresolved":
            facts[key] = [v for v in values if v in text]
        elif key == "captions":
            facts[key] = [v for v in values if v in text]
        elif key == "equations":
            facts[key] = OUR_EQ.findall(main)
        elif key == "titles":
            facts[key] = [text_of(h) for h in OUR_H1.findall(main)][:1]
        elif key == "sidebar":
            facts[key] = [f"{n} {html.unescape(t).strip()}" for n, t in OUR_SIDEBAR.findall(page) if n]
        elif key == "citations":
            facts[key] = [v for v in values if v in text]
    return facts


def is_subsequence(needles: list[str], hay: list[str]) -> bool:
    it = iter(hay)
    return all(any(n == h for h in it) for n in needles)
