"""Each conformance case rendered live by real Quarto 1.7.34, against its recording.

Opt-in (23 real renders are minutes of CI time): `QUARTO_CONFORMANCE_LIVE=1`.
Quarto comes from tests/skip_policy.real_quarto. For each case this repeats
`render-case.sh` in a temporary folder and compares what Quarto keeps
(`*.html.md`, sanitised the same way: the project folder, kernel temp files,
random cell ids) and its exit status with `expected/`. A case that agrees
live can be trusted as recorded; a new case is recorded with
`../shared/quarto-conformance/render-case.sh` from the same real run.

Then, for a book case that checks without findings, a second copy goes
through `make html`'s Quarto path (check, freeze handoff, `--use-freezer`):
its chapter pages must equal the executing render's (cell ids aside), unless
the case's `handoff` difference is listed in docs/quarto-compat.md.
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from skip_policy import CONFORMANCE as CORPUS
from skip_policy import real_quarto

CASES = sorted(p.name for p in CORPUS.iterdir() if p.is_dir() and (p / "CASE.md").is_file()) \
    if CORPUS.is_dir() else []
CELL_ID = re.compile(r"\{#[0-9a-f]{8} \.cell")
KERNEL_FILE = re.compile(r"/[^\s:]*/ipykernel_\d+/\d+\.py")
EXIT = re.compile(r"exit status: (\d+)")
HTML_CELL_ID = re.compile(r'id="[0-9a-f]{8}"')


def sanitised(text: str, work: Path) -> str:
    text = CELL_ID.sub("{#<id> .cell", text.replace(str(work), "<project>"))
    return KERNEL_FILE.sub("<tmp>/ipykernel_<pid>/<n>.py", text)


@pytest.mark.skipif(not os.environ.get("QUARTO_CONFORMANCE_LIVE"),
                    reason="opt-in: QUARTO_CONFORMANCE_LIVE=1 renders every case with real Quarto")
@pytest.mark.parametrize("name", CASES or ["<none>"])
def test_case_renders_live_as_recorded(name, tmp_path):
    exe = real_quarto()
    case = CORPUS / name
    work = tmp_path / name
    shutil.copytree(case, work, ignore=shutil.ignore_patterns("expected", "CASE.md"))
    args = [] if (case / "_quarto.yml").is_file() else ["doc.qmd"]
    env = dict(os.environ, QUARTO_PYTHON=sys.executable,
               PATH=os.pathsep.join([str(Path(sys.executable).parent), os.environ["PATH"]]))
    done = subprocess.run([str(exe), "render", *args], cwd=work, env=env, capture_output=True,
                          text=True, timeout=900)
    recorded = EXIT.search((case / "expected" / "render.log").read_text(encoding="utf-8"))
    assert done.returncode == int(recorded.group(1)), (done.stdout + done.stderr)[-2000:]
    for kept in sorted((case / "expected").rglob("*.html.md")):
        rel = kept.relative_to(case / "expected")
        live = work / rel
        assert live.is_file(), f"{name}: Quarto kept no {rel}"
        assert sanitised(live.read_text(encoding="utf-8"), work) == \
            sanitised(kept.read_text(encoding="utf-8"), work), f"{name}: {rel} differs"

    if args or done.returncode != 0:
        return                              # a lone document (no freeze) or a failing case
    from test_conformance import listed_differences
    from scripts.render import render_book
    from scripts.verify.check import check_book
    handed = tmp_path / "handed"
    shutil.copytree(case, handed, ignore=shutil.ignore_patterns("expected", "CASE.md"))
    result = check_book(handed, update_ledger=True)
    if not result.ok:
        return                              # findings: nothing is handed over (by design)
    saved = dict(os.environ)
    os.environ.update(env, PATH=os.pathsep.join([str(exe.parent), env["PATH"]]))
    try:
        render_book(result, "html")         # fails if Quarto executes anything
    finally:
        os.environ.clear()
        os.environ.update(saved)
    if (name, "handoff") in listed_differences():
        return
    for page in sorted((work / "_book").rglob("*.html")):
        rel = page.relative_to(work / "_book")
        ours = (handed / "_book" / rel).read_text(encoding="utf-8").replace(str(handed), "<p>")
        theirs = page.read_text("utf-8").replace(str(work), "<p>")     # a cwd printed by a cell
        assert HTML_CELL_ID.sub("id", ours) == HTML_CELL_ID.sub("id", theirs), \
            f"{name}: {rel} differs between the executing and the handed-over render"
