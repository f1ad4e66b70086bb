"""What pandoc's reader says of a chapter, at check time (`make check` names it at its line).

Quarto hands each chapter to pandoc, which prints a `[WARNING]` for a footnote defined
twice or never referenced, a link reference or an id defined twice, a div never closed,
and renders on; the page silently loses the text. Here pandoc (`-f markdown -t json`)
reads the chapter's authored text (`parsed.authored`: front matter, cells and inline
values blanked, every line where it was), and:

* each warning becomes a finding at the line pandoc names, with the way out; a footnote
  never referenced also names the inline values it holds (never shown by pandoc or
  Quarto); a duplicate cross-reference id is left to `duplicate-label` (verify/refs.py);
* a text pandoc cannot read (a malformed YAML block: Quarto stops there too) is a finding;
* a footnote reference `[^x]` pandoc leaves as text (no `[^x]:`) is one;
* each image of pandoc's document whose file does not exist (relative to the chapter,
  `/x.png` to the project, as Quarto resolves it) is a `missing-image` at its line.

pandoc's answer (warnings, image targets) is a store entry per chapter, valid for one
text and pandoc binary, so a cached check runs no pandoc (and the entries do not pile
up with every edit); the image files are looked at every time.
"""
from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path
from urllib.parse import unquote

from bookcheck import store
from bookcheck.binaries import pandoc_binary
from bookcheck.model import Finding, Kind, ParsedChapter
from bookcheck.read.labels import CROSSREF_PREFIXES

LINT = "pandoc-lint"        # the store folder of pandoc's answers, one per chapter
AT = re.compile(r"\bline (\d+),? column (\d+)")
NOTE_UNUSED = re.compile(r"^Note with key '(.*)' defined at .*but not used")
ADVICE = (
    (re.compile(r"^Duplicate note reference '(.*)'"),
     "footnote [^{0}] is defined twice (pandoc and Quarto show the last one): delete or rename one"),
    (re.compile(r"^Duplicate link reference '(.*)'"),
     "link reference {0} is defined twice (pandoc and Quarto use the first): delete or rename one"),
    (re.compile(r"^Duplicate identifier '(.*)'"),
     "id #{0} is given twice in this chapter (both elements get it, links reach the first): "
     "rename one"),
    (re.compile(r"^Div at .*unclosed"),
     "this div is never closed: it swallows the rest of the chapter; close it with `:::`"),
)
SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")
NOTE_START = re.compile(r"^\[\^[^\]\s]+\]:")
NOTE_REF = re.compile(r"\[\^[^\]\s]+\]")


def pandoc_findings(root: Path, parsed: ParsedChapter) -> list[Finding]:
    """pandoc's warnings over the chapter and its missing images, each at its line."""
    if parsed.path.endswith(".ipynb"):
        return []           # its lines are JSON's, not the Markdown pandoc would read
    answer = _read(Path(root), parsed.path, parsed.authored)     # front matter blanked too
    if answer is None:
        return []
    lines = parsed.text.split("\n")
    findings = [f for warning in answer["warnings"] if (f := _finding(parsed, lines, warning))]
    if answer["error"]:
        at = AT.search(answer["error"])
        findings.append(Finding(parsed.path, int(at.group(1)) if at else 0, Kind.PANDOC_WARNING,
                                f"pandoc cannot read this chapter, so Quarto cannot render it: "
                                f"{answer['error'][:300]}", col=int(at.group(2)) if at else None))
    return findings + _targets(Path(root), parsed, answer["images"])


def _read(root: Path, rel: str, text: str) -> dict | None:
    """{"warnings", "images", "error"} of pandoc's reader over chapter `rel`'s `text`
    (cached: one entry per chapter, holding the digest of the text it answers for)."""
    binary = pandoc_binary()
    if binary is None:
        return None
    cache = store.Store(root, LINT, (__name__,), store.stamp(binary))
    key, text_digest = cache.key(rel), store.digest(text)
    answer = cache.get_json(key)
    if answer is None or answer.get("text") != text_digest:
        try:
            proc = subprocess.run([binary, "-f", "markdown", "-t", "json"], input=text,
                                  capture_output=True, text=True, timeout=120)
            document = json.loads(proc.stdout) if proc.returncode == 0 else {}
        except (OSError, subprocess.TimeoutExpired, ValueError):
            return None
        lines = proc.stderr.splitlines()
        answer = {"warnings": [ln[len("[WARNING] "):] for ln in lines if ln.startswith("[WARNING] ")],
                  "images": _images(document.get("blocks", [])),
                  "error": " ".join(ln.strip() for ln in lines if not ln.startswith("[WARNING] "))
                  if proc.returncode else "", "text": text_digest}
        cache.put_json(key, answer)
    return answer


def _images(node) -> list[str]:
    """The target of every Image of a pandoc JSON document, in document order, and
    `[^name]` for every footnote reference pandoc left as text (no such note)."""
    if isinstance(node, list):
        return [target for item in node for target in _images(item)]
    if not isinstance(node, dict):
        return []
    if node.get("t") == "Image":
        return [node["c"][2][0]]
    if node.get("t") == "Str":
        return NOTE_REF.findall(node["c"])
    return _images(node.get("c", []))


def _finding(parsed: ParsedChapter, lines: list[str], warning: str) -> Finding | None:
    at = AT.search(warning)
    line, col = (int(at.group(1)), int(at.group(2))) if at else (0, None)
    detail = lines[line - 1].strip() if 0 < line <= len(lines) else None
    unused = NOTE_UNUSED.match(warning)
    if unused:
        values = [e for e in parsed.inlines if e.line in _note_lines(lines, line)]
        hidden = (f", and its {len(values)} inline value{'s' * (len(values) > 1)} "
                  f"(line{'s' * (len(values) > 1)} {', '.join(str(e.line) for e in values)}) are never shown"
                  if values else "")
        return Finding(parsed.path, line, Kind.PANDOC_WARNING,
                       f"footnote [^{unused.group(1)}] is never referenced: pandoc and Quarto "
                       f"drop it from the page{hidden}; reference it (`[^{unused.group(1)}]`) "
                       "or delete it", col=col, detail=detail)
    for pattern, advice in ADVICE:
        m = pattern.match(warning)
        if m:
            name = m.group(1) if m.groups() else ""
            if advice.startswith("id"):
                if name.split("-", 1)[0] in CROSSREF_PREFIXES:
                    return None         # a label defined twice: duplicate-label says it
                line, col = _given_at(lines, name, line)
                detail = lines[line - 1].strip() if line else None
            return Finding(parsed.path, line, Kind.PANDOC_WARNING, advice.format(name),
                           col=col, detail=detail)
    return Finding(parsed.path, line, Kind.PANDOC_WARNING, f"pandoc warns: {warning}",
                   col=col, detail=detail)


def _given_at(lines: list[str], name: str, before: int) -> tuple[int, int | None]:
    """(line, col) of the last `#name` up to line `before` (pandoc names the line after
    the element that repeats an id)."""
    pattern = re.compile(r"#" + re.escape(name) + r"(?![\w:.-])")
    for number in range(min(before, len(lines)), 0, -1):
        m = pattern.search(lines[number - 1])
        if m:
            return number, m.start() + 1
    return before, None


def _note_lines(lines: list[str], first: int) -> set[int]:
    """The lines (1-based) of the footnote defined at line `first`: its indented
    paragraphs, up to a line that is not indented after a blank one, or the next note."""
    found, blank = {first}, False
    for number in range(first + 1, len(lines) + 1):
        text = lines[number - 1]
        if NOTE_START.match(text) or (blank and text.strip() and not text[:1].isspace()):
            break
        blank = not text.strip()
        found.add(number)
    return found


def _targets(root: Path, parsed: ParsedChapter, targets: list[str]) -> list[Finding]:
    """A finding per image whose file does not exist and per footnote reference pandoc
    left as text, at the line it is written."""
    text, pos, findings = parsed.authored, 0, []
    folder = (root / parsed.path).parent
    for target in targets:
        at = text.find(target, pos)
        pos = at + len(target) if at >= 0 else pos
        line = text.count("\n", 0, at) + 1 if at >= 0 else 0
        col = None if at < 0 else at - text.rfind("\n", 0, at)
        if target.startswith("[^"):
            findings.append(Finding(
                parsed.path, line, Kind.PANDOC_WARNING,
                f"footnote {target} is referenced but never defined: pandoc and Quarto show "
                f"`{target}` as text; define it (`{target}: …`) or remove the reference",
                col=col, detail=parsed.text.split("\n")[line - 1].strip() if line else None))
            continue
        path = unquote(re.split(r"[?#]", target, maxsplit=1)[0])
        if not path or SCHEME.match(path):
            continue
        file = root / path.lstrip("/") if path.startswith("/") else folder / path
        if file.exists():
            continue
        findings.append(Finding(
            parsed.path, line, Kind.MISSING_IMAGE,
            f"image {target} not found ({os.path.relpath(file, root)}"
            "; a path is relative to the chapter's folder, `/…` to the project): "
            "fix the path or add the file", col=col,
            detail=parsed.text.split("\n")[line - 1].strip() if line else None))
    return findings
