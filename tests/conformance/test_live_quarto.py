"""Conformance cases rendered live by real Quarto 1.7.34, against their recording.

Runs whenever real Quarto is there (tests/skip_policy.real_quarto: REAL_QUARTO,
or the build script's output; `.ci/run` builds it). All 24 cases cost about
ten minutes of two loaded cores, so by default only LIVE_DEFAULT runs (one
case per handoff feature: a DataFrame's HTML and its widget scripts, a retina
figure, an include); `QUARTO_CONFORMANCE_LIVE=1` runs every case.

For each case this repeats `render-case.sh` in a temporary folder (the cases'
executing renders two at a time, once per session, nothing cached across runs)
and compares what Quarto keeps (`*.html.md`, sanitised the same way: the
project folder, kernel temp files, random cell ids) and its exit status with
`expected/`. A case that agrees live can be trusted as recorded; a new case is
recorded with `../shared/quarto-conformance/render-case.sh` from the same real run.

Then, for a book case that checks without findings, a second copy (same folder
name: a cell may print it) goes through `make html`'s Quarto path (check,
freeze handoff, `--use-freezer`): every file of its `_book/` must equal the
executing render's (cell ids and SVG dates aside), unless the case's `handoff`
difference is listed in docs/quarto-compat.md. When a file differs, the case is
rendered both ways once more: a difference that goes away in one of the
other pairings (Quarto renders the same case differently from run to run) is
Quarto's, and only warned about with its diff; one that stays fails with it.
"""
from __future__ import annotations

import difflib
import json
import os
import re
import shutil
import subprocess
import sys
import warnings
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from tests.skip_policy import CONFORMANCE as CORPUS
from tests.skip_policy import real_quarto

# real Quarto (real_quarto(), no fixture), whose renders execute the cases in kernels
pytestmark = [pytest.mark.slow, pytest.mark.quarto, pytest.mark.kernel]

CASES = sorted(p.name for p in CORPUS.iterdir() if p.is_dir() and (p / "CASE.md").is_file()) \
    if CORPUS.is_dir() else []
LIVE_DEFAULT = ("04-tbl-cells", "08-include", "15-figure")
LIVE_ALL = bool(os.environ.get("QUARTO_CONFORMANCE_LIVE"))
LIVE = CASES if LIVE_ALL else [c for c in CASES if c in LIVE_DEFAULT]
RENDERS_AT_ONCE = 2
CELL_ID = re.compile(r"\{#[0-9a-f]{8} \.cell")
KERNEL_FILE = re.compile(r"/[^\s:]*/ipykernel_\d+/\d+\.py")
EXIT = re.compile(r"exit status: (\d+)")
# masked on the pages: Quarto's random ids of unlabelled cells (as attributes, and
# as text where a case's Markdown shows through, 22); in SVG figures the creation
# date matplotlib writes (the two runs happen at different times)
HTML_CELL_ID = re.compile(r'id="[0-9a-f]{8}"')
SVG_DATE = re.compile(r"<dc:date>[^<]*</dc:date>")


def sanitised(text: str, work: Path) -> str:
    text = CELL_ID.sub("{#<id> .cell", text.replace(str(work), "<project>"))
    return KERNEL_FILE.sub("<tmp>/ipykernel_<pid>/<n>.py", text)


def quarto_env(exe: Path | None = None) -> dict[str, str]:
    first = [str(exe.parent)] if exe else []
    return dict(os.environ, QUARTO_PYTHON=sys.executable,
                PATH=os.pathsep.join([*first, str(Path(sys.executable).parent), os.environ["PATH"]]))


def copy_case(name: str, parent: Path) -> Path:
    work = parent / name
    shutil.copytree(CORPUS / name, work, ignore=shutil.ignore_patterns("expected", "CASE.md"))
    return work


def render_live(exe: Path, name: str, parent: Path) -> tuple[Path, subprocess.CompletedProcess]:
    work = copy_case(name, parent)
    args = [] if (work / "_quarto.yml").is_file() else ["doc.qmd"]
    done = subprocess.run([str(exe), "render", *args], cwd=work, env=quarto_env(),
                          capture_output=True, text=True, timeout=900)
    return work, done


@pytest.fixture(scope="module")
def live_renders(request, tmp_path_factory):
    """name -> (folder, Quarto's process) for every selected LIVE case (`-k` counts),
    rendered RENDERS_AT_ONCE at a time."""
    names = [item.callspec.params["name"] for item in request.session.items
             if item.module is request.module and hasattr(item, "callspec")]
    names = [n for n in names if n in LIVE]
    if not names:
        pytest.skip("no conformance case to render live")
    exe = real_quarto()
    parent = tmp_path_factory.mktemp("live")
    with ThreadPoolExecutor(max_workers=RENDERS_AT_ONCE) as pool:
        renders = dict(zip(names, pool.map(lambda n: render_live(exe, n, parent), names)))
    return exe, renders


def comparable(path: Path, root: Path) -> bytes:
    data = path.read_bytes()
    if path.suffix == ".svg":
        return SVG_DATE.sub("<dc:date/>", data.decode("utf-8")).encode("utf-8")
    if path.suffix in (".html", ".json"):
        text = HTML_CELL_ID.sub("id", data.decode("utf-8")).replace(str(root), "<p>")
        text = CELL_ID.sub("{#<id> .cell", text)
        return text.encode("utf-8")
    return data


def first_difference(theirs: Path, work: Path, ours: Path, handed: Path, differ: list[str]) -> str:
    """A unified diff of the first differing file, as compared (so a failure on CI says why)."""
    rel = differ[0]
    old = comparable(theirs / rel, work).decode("utf-8", "replace").splitlines()
    new = comparable(ours / rel, handed).decode("utf-8", "replace").splitlines()
    lines = list(difflib.unified_diff(old, new, rel, rel, lineterm="", n=2))
    return "\n".join(lines[:60])


@pytest.mark.parametrize("name", LIVE or ["<none>"])
def test_case_renders_live_as_recorded(name, live_renders, tmp_path):
    exe, renders = live_renders
    case = CORPUS / name
    work, done = renders[name]
    recorded = EXIT.search((case / "expected" / "render.log").read_text(encoding="utf-8"))
    assert done.returncode == int(recorded.group(1)), (done.stdout + done.stderr)[-2000:]
    for kept in sorted((case / "expected").rglob("*.html.md")):
        rel = kept.relative_to(case / "expected")
        live = work / rel
        assert live.is_file(), f"{name}: Quarto kept no {rel}"
        assert sanitised(live.read_text(encoding="utf-8"), work) == \
            sanitised(kept.read_text(encoding="utf-8"), work), f"{name}: {rel} differs"

    if not (case / "_quarto.yml").is_file() or done.returncode != 0:
        return                              # a lone document (no freeze) or a failing case
    from tests.conformance.test_conformance import listed_differences
    handed = hand_over(exe, name, tmp_path / "handed")
    if handed is None:
        return                              # findings: nothing is handed over (by design)
    if (name, "handoff") in listed_differences():
        return
    differ = differing_files(work, handed)
    if differ:                              # both ways once more: a difference that goes
        first = first_difference(work / "_book", work, handed / "_book", handed, differ)
        again, redone = render_live(exe, name, tmp_path / "again")      # away is Quarto's
        assert redone.returncode == done.returncode, (redone.stdout + redone.stderr)[-2000:]
        handed_again = hand_over(exe, name, tmp_path / "handed-again")  # own, not the handoff's
        pairs = [(again, handed), (work, handed_again), (again, handed_again)]
        if any(not differing_files(w, h) for w, h in pairs):
            warnings.warn(f"{name}: Quarto renders the same case differently from one run to "
                          f"the next; a second render agrees:\n{first}")
            return
    assert differ == [], f"{name}: these differ between the executing and the handed-over " \
        f"render (- executing, + handed over):\n{first}"


def hand_over(exe: Path, name: str, parent: Path) -> Path | None:
    """`make html`'s Quarto path for a copy of the case under `parent`: check, hand the
    runs over, `quarto render --use-freezer` (which fails if Quarto executes anything).
    Returns the copy, or None when the check has findings (nothing is handed over)."""
    from bookcheck.render import render_book
    from bookcheck.verify.check import check_book
    handed = copy_case(name, parent)
    result = check_book(handed, update_ledger=True)
    if not result.ok:
        return None
    saved = dict(os.environ)
    os.environ.update(quarto_env(exe))
    try:                                    # the cases' bad values are deliberate: no audit
        render_book(result, "html", audited=False)
    finally:
        os.environ.clear()
        os.environ.update(saved)
    return handed


def differing_files(work: Path, handed: Path) -> list[str]:
    """The files of the executing render's `_book/` (`work`) that differ from the
    handed-over one's (`handed`), as compared; both must list the same files, but the
    handed-over render's manifest (which lists exactly its other files)."""
    from bookcheck.read.output_dir import MANIFEST
    ours, theirs = handed / "_book", work / "_book"
    files = sorted(p.relative_to(theirs).as_posix() for p in theirs.rglob("*") if p.is_file())
    handed_files = sorted(p.relative_to(ours).as_posix() for p in ours.rglob("*")
                          if p.is_file() and p.name != MANIFEST)
    assert json.loads((ours / MANIFEST).read_text(encoding="utf-8"))["files"] == handed_files
    assert files == handed_files
    return [rel for rel in files if comparable(ours / rel, handed) != comparable(theirs / rel, work)]
