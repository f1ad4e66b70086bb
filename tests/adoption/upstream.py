"""The upstream textbook excerpt (../shared/upstream-dev, local-only) as a new author has it.

`copy_project(kind, tmp)` copies the `book` or `website` project; `check(root)` runs the
checker on it (`--json`); `fix_real_defects(root, findings)` repairs, on that copy, the
defects the checker reports that are really the excerpt's (references to chapters the
excerpt leaves out, citations without a bibliography, inline values written inside math,
images it did not fetch), the way the findings' messages tell an author to. Nothing here copies the book's text.
"""
from __future__ import annotations

import base64
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

from tests.skip_policy import SHARED, require_path

REPO = Path(__file__).resolve().parents[2]
UPSTREAM = SHARED / "upstream-dev"
TIMEOUT_S = 900


def copy_project(kind: str, tmp: Path) -> Path:
    """A fresh copy of the upstream `book` or `website` project under `tmp`."""
    source = require_path(UPSTREAM / kind, f"the upstream excerpt's {kind}", local_only=True)
    root = tmp / kind
    shutil.copytree(source, root)
    return root


def run(root: Path, command: str, *args: str, env=None) -> subprocess.CompletedProcess:
    """`bookcheck COMMAND --root ROOT ARGS` from this checkout."""
    return subprocess.run([sys.executable, "-m", "bookcheck", command, "--root", str(root), *args],
                          cwd=REPO, capture_output=True, text=True, timeout=TIMEOUT_S, env=env)


def check(root: Path) -> list[dict]:
    """The findings of `check --json` on `root`."""
    done = run(root, "check", "--json")
    return json.loads(done.stdout)["findings"]


def _label_in(message: str) -> str:
    return re.search(r"@([^\s:;,]+)", message).group(1)


# a 1x1 PNG and an empty SVG: what stands in for an image the excerpt did not fetch
PLACEHOLDERS = {".png": base64.b64decode("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lE"
                                         "QVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII="),
                ".svg": b'<svg xmlns="http://www.w3.org/2000/svg" width="1" height="1"/>'}


def fix_real_defects(root: Path, findings: list[dict]) -> None:
    """Repair the excerpt's own defects on the copy at `root`, as the findings say."""
    for f in findings:
        if f["kind"] == "missing-image":        # "image x not found (<path>; …": add the file
            image = root / re.search(r"not found \(([^;]+);", f["message"]).group(1)
            image.parent.mkdir(parents=True, exist_ok=True)
            image.write_bytes(PLACEHOLDERS[image.suffix])
    _edit_at_columns(root, findings)
    missing_labels = {_label_in(f["message"]) for f in findings
                      if f["kind"] in ("unknown-ref", "website-ref")}
    missing_keys = {_label_in(f["message"]) for f in findings if f["kind"] == "unknown-citation"}
    for qmd in sorted(root.rglob("*.qmd")):
        text = qmd.read_text("utf-8")
        fixed = re.sub(r"@([\w-]+)", lambda m: (f"the {m.group(1).split('-', 1)[1]} chapter"
                                                if m.group(1) in missing_labels else m.group(0)),
                       text)
        if fixed != text:
            qmd.write_text(fixed, "utf-8")
    if missing_keys:
        (root / "references.bib").write_text("".join(
            f"@misc{{{key},\n  title = {{Reference {key}}},\n  year = {{2024}}\n}}\n"
            for key in sorted(missing_keys)), "utf-8")
        config = root / "_quarto.yml"
        config.write_text(config.read_text("utf-8") + "\nbibliography: references.bib\n", "utf-8")


MARKDOWN = '__import__("IPython.display", fromlist=["Markdown"]).Markdown'


def _edit_at_columns(root: Path, findings: list[dict]) -> None:
    """The fixes made at a finding's line and column: an inline value inside math
    returned as Markdown (inline-math's advice), a missing backtick added (stray-inline).
    Edits are made right to left so earlier columns stay where the findings say."""
    edits = sorted(((f["path"], f["line"], f["column"], f["kind"]) for f in findings
                    if f["kind"] in ("inline-math", "stray-inline")), reverse=True)
    texts: dict[str, list[str]] = {}
    for path, line, col, kind in edits:
        lines = texts.setdefault(path, (root / path).read_text("utf-8").split("\n"))
        at, text = col - 1, lines[line - 1]
        if kind == "stray-inline":
            assert text.startswith("{python}", at), (path, line, text[at:at + 20])
            lines[line - 1] = text[:at] + "`" + text[at:]
        else:
            assert text.startswith("`{python} ", at), (path, line, text[at:at + 20])
            end = text.index("`", at + 1)
            expr = text[at + len("`{python} "):end]
            lines[line - 1] = f"{text[:at]}`{{python}} {MARKDOWN}({expr})`{text[end + 1:]}"
    for path, lines in texts.items():
        (root / path).write_text("\n".join(lines), "utf-8")
