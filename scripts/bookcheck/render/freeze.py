"""Hand the checked runs to Quarto: write Quarto 1.7's freeze entries.

For each executable document of a checked book this writes, in the freezer
Quarto reads for it (`.quarto/_freeze/` under Quarto's default `freeze: false`;
`_freeze/` under `freeze: auto` or `true`), `<dir>/<stem>/execute-results/html.json`
and the figures under `figure-html/`, exactly as Quarto's own `freezeExecuteResult`
does (quarto-cli 1.7.34 src/command/render/freeze.ts: JSON.stringify(…, 2)); the
entry's format and how `--use-freezer` reads it: docs/quarto-compat.md, "Quarto
publishes the checked runs".

An entry is written only from a run without findings; a document Quarto would
execute anyway (no finding-free run, or its source changed after the check) is a
`freeze` finding, never a silent second run. Documents without Python cells and
`execute: enabled: false` ones get no entry: Quarto executes nothing for them.
"""
from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path, PurePosixPath

from bookcheck.files import atomic_write
from bookcheck.model import Finding, Kind
from bookcheck.read.book import source_text

from .engine_md import FIGURES_DIR, engine_markdown, files_dir

FREEZE_DIR = "_freeze"                       # the visible freezer (freeze: auto | true)
HIDDEN_FREEZE_DIR = ".quarto/_freeze"        # Quarto's own, read under freeze: false


def source_hash(raw: str) -> str:
    """Quarto's freezeInputHash: md5 of the file's text with LF line endings."""
    text = raw.replace("\r\n", "\n").replace("\r", "\n")
    return hashlib.md5(text.encode("utf-8")).hexdigest()


def entry_dir(root: Path, rel: str, hidden: bool = False) -> Path:
    """`_freeze/contents/ch/` for `contents/ch.qmd` (asFreezerDir: no `_files`);
    under `.quarto/_freeze/` when `hidden`."""
    path = PurePosixPath(rel)
    return Path(root) / (HIDDEN_FREEZE_DIR if hidden else FREEZE_DIR) / path.parent / path.stem


# What Quarto's engine puts in the page's <head> when any display of the notebook
# offered text/html or application/javascript (quarto-cli 1.7.34
# src/core/jupyter/widgets.ts, includesForJupyterWidgetDependencies: "javascript
# widgets" such as a DataFrame's HTML table); the entry stores the file's text.
WIDGET_HEAD = "\n".join([
    '<script src="https://cdnjs.cloudflare.com/ajax/libs/require.js/2.3.6/require.min.js" '
    'integrity="sha512-c3Nl8+7g4LMSTdrm621y7kf9v3SDPnhxLNhcjFJbKECVnmZHTdo+IRO05sNLTH/D3vA6u1X32ehoLC7WFVdheg==" '
    'crossorigin="anonymous"></script>',
    '<script src="https://cdnjs.cloudflare.com/ajax/libs/jquery/3.5.1/jquery.min.js" '
    'integrity="sha512-bLT0Qm9VnAYZDflyKcBaQ2gg0hSYNQrJ8RilYldYQ1FxQYoCLtUjuuRuZo+fjqhx/qtq/1itJ0C2ejDxltZVFg==" '
    'crossorigin="anonymous" data-relocate-top="true"></script>',
    "<script type=\"application/javascript\">define('jquery', [],function() {return window.jQuery;})</script>",
]) + "\n"


def includes_of(run) -> dict:
    """The entry's `includes`: Quarto's widget scripts when a display offered HTML/JS."""
    scripted = any(o.scripted for cell in run.cells for o in cell.outputs)
    return {"include-in-header": [WIDGET_HEAD]} if scripted else {}


def entry_json(hash_: str, markdown: str, rel: str, includes: dict | None = None) -> str:
    """The entry as Quarto writes it (two-space JSON, non-ASCII kept)."""
    result = {"engine": "jupyter", "markdown": markdown,
              "supporting": [files_dir(rel)], "filters": [], "includes": includes or {}}
    return json.dumps({"hash": hash_, "result": result}, indent=2, ensure_ascii=False)


def needs_entry(parsed) -> bool:
    """Quarto's Jupyter engine runs it: Python cells, execution enabled."""
    return bool(parsed.cells) and parsed.execute


def changed_since_check(root: Path, parsed, raw: str) -> bool:
    """The document's text (includes expanded) is not the one the check read."""
    if parsed.includes or parsed.line_map:   # includes expanded, a notebook as Markdown
        return source_text(root, parsed.path, raw.encode("utf-8"))[0].text != parsed.text
    return raw != parsed.text


def write_entries(result, documents: list[str] | None = None) -> tuple[list[str], list[Finding]]:
    """Write the freeze entry of every executable document of a checked book.

    Returns (the documents handed over, findings: documents Quarto would execute).
    Nothing is written for a document with a finding, but one the book's baseline or a
    suppression accepts (verify/baseline.py: the check passed with it).
    """
    root = Path(result.project.root)
    written: list[str] = []
    findings: list[Finding] = []
    accepted = _accepted(result)
    for rel in documents if documents is not None else list(result.parsed):
        parsed = result.parsed.get(rel)
        run = result.runs.get(rel)
        if parsed is None or not needs_entry(parsed):
            continue
        if run is None or any(f not in accepted for f in [*run.findings, *parsed.findings]):
            findings.append(Finding(rel, 0, Kind.FREEZE, "no finding-free checked run to hand "
                                    "over: Quarto would execute this document"))
            continue
        try:
            # Quarto reads it as Deno.readTextFileSync does, a UTF-8 BOM dropped (its
            # freezeInputHash, src/command/render/freeze.ts), and so did the check
            raw = (root / rel).read_bytes().decode("utf-8").removeprefix("\ufeff")
        except (OSError, UnicodeDecodeError) as exc:
            findings.append(Finding(rel, 0, Kind.FREEZE, f"cannot read the source: {exc}"))
            continue
        if changed_since_check(root, parsed, raw):
            findings.append(Finding(rel, 0, Kind.FREEZE, "changed since it was checked: Quarto "
                                    "would execute it (run `bookcheck check` again)"))
            continue
        md = engine_markdown(parsed, run, root, parsed.figure or result.project.figure)
        target = entry_dir(root, rel, hidden=parsed.freeze is False)
        shutil.rmtree(target / FIGURES_DIR, ignore_errors=True)   # no figure of an older run
        prefix = files_dir(rel) + "/"
        for name, data in sorted(md.files.items()):
            _write(target / (name[len(prefix):] if name.startswith(prefix) else name), data)
        _write(target / "execute-results" / "html.json",
               entry_json(source_hash(raw), md.markdown, rel, includes_of(run)))
        written.append(rel)
    return written, findings


def _accepted(result) -> list[Finding]:
    """The findings the baseline or a suppression accepted (result.verdict)."""
    verdict = getattr(result, "verdict", None)
    return [*verdict.baselined, *(f for f, _ in verdict.suppressed)] if verdict else []


def _write(path: Path, data: bytes | str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(path, data)
