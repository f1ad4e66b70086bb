"""Conformance: this project's checker and built-in renderer against what
real Quarto 1.7.34 did with each case of `../shared/quarto-conformance/`.

For every case folder: copy its inputs (all but `expected/` and `CASE.md`) to
a temporary directory, run the checker and the built-in HTML renderer there,
and compare facts (tests/conformance/facts.py) with Quarto's kept
`*.html.md`, `render.log` and `excerpt.html`:

  inline-text  the text that stands where each `{python}` span was
  outputs      each cell output (kind and text), chapter by chapter
  findings     errors, unresolved references, missing citations
  xrefs, unresolved, captions, equations, titles, sidebar, citations
               what the rendered pages show (from Quarto's HTML excerpts)
  handoff      the engine Markdown handed to Quarto's freeze (bookcheck.render.engine_md)
               equals Quarto's kept `*.html.md` (cell ids, the project folder and
               kernel temp files aside), for every chapter with Python cells

A fact that differs on purpose is listed, with the reason, in the table of
docs/quarto-compat.md; a listed fact that no longer differs fails too, so the
table stays true. Nothing differs silently.
"""
from __future__ import annotations

import re
import shutil
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from types import SimpleNamespace

import pytest

from tests.conformance import facts
from tests.skip_policy import CONFORMANCE as CORPUS

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[2]
COMPAT = REPO / "docs" / "quarto-compat.md"
CASES = sorted(p.name for p in CORPUS.iterdir() if p.is_dir() and (p / "CASE.md").is_file()) \
    if CORPUS.is_dir() else []
ROW = re.compile(r"^\|\s*(\d\d-[\w-]+)\s*\|\s*`?([\w*-]+)`?\s*\|(.*)\|\s*$")


def listed_differences() -> dict[tuple[str, str], str]:
    """(case, fact) -> reason, from the table in docs/quarto-compat.md."""
    table = {}
    for line in COMPAT.read_text(encoding="utf-8").splitlines():
        m = ROW.match(line)
        if m:
            table[(m.group(1), m.group(2))] = " ".join(m.group(3).split("|")).strip()
    return table


def copy_inputs(case: Path, dest: Path) -> Path:
    root = dest / case.name
    shutil.copytree(case, root, ignore=shutil.ignore_patterns("expected", "CASE.md", "render-case.sh"))
    return root


def run_case(root: Path):
    """check_book + the built-in HTML renderer (in a worker thread: asyncio inside),
    without the rendered-page audit."""
    from bookcheck.verify.check import check_book
    with ThreadPoolExecutor(max_workers=1) as pool:
        result = pool.submit(check_book, root, update_ledger=True).result()
    rendered: dict[str, str] | str = {}
    try:
        from bookcheck.render import render_book
        ready = SimpleNamespace(project=result.project, parsed=result.parsed, runs=result.runs,
                                findings=[], ok=True)
        # the cases hold values the check and the audit refuse on purpose (nan, None,
        # raw TeX): both are bypassed to compare the pages with Quarto's
        index = render_book(ready, "html", use_quarto=False, audited=False)
        out = index.parent
        rendered = {p.relative_to(out).as_posix(): p.read_text(encoding="utf-8")
                    for p in out.rglob("*.html")}
    except Exception as exc:        # noqa: BLE001 (the difference is the fact)
        rendered = f"render failed: {type(exc).__name__}: {exc}"
    return result, rendered


def our_markdown(result, rel: str) -> str | None:
    """The chapter's Markdown both renderers read (the built-in one and Quarto's freeze)."""
    from bookcheck.render.book import assemble
    parsed = result.parsed.get(rel)
    if parsed is None:
        return None
    try:
        return assemble(result.project, parsed, result.runs.get(rel)).markdown
    except Exception as exc:        # noqa: BLE001
        return f"<assembly failed: {exc}>"


CELL_ID = re.compile(r"\{#[0-9a-f]{8} \.cell")
KERNEL_FILE = re.compile(r"/[^\s:]*/ipykernel_\d+/\d+\.py")


def comparable_markdown(text: str, root: Path) -> str:
    """Engine Markdown with what the corpus sanitised (or Quarto drew at random) masked."""
    text = CELL_ID.sub("{#<id> .cell", text).replace(str(root), "<project>")
    return KERNEL_FILE.sub("<tmp>/ipykernel_<pid>/<n>.py", text)


def handoff_difference(result, rel: str, root: Path, kept: str) -> tuple[str, str] | None:
    """(Quarto's line, ours) at the first line where the handed-over Markdown differs."""
    from bookcheck.render.engine_md import engine_markdown
    parsed, run = result.parsed.get(rel), result.runs.get(rel)
    if parsed is None or run is None or not parsed.cells:
        return None
    try:
        ours = comparable_markdown(engine_markdown(parsed, run, root, result.project.figure).markdown, root)
    except Exception as exc:        # noqa: BLE001 (the difference is the fact)
        return ("engine markdown", f"failed: {exc}")
    theirs = comparable_markdown(kept, root)
    if ours == theirs:
        return None
    a, b = theirs.split("\n"), ours.split("\n")
    n = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
    return (f"line {n + 1}: {a[n] if n < len(a) else '<end>'}", b[n] if n < len(b) else "<end>")


def compare(case: Path, root: Path, result, rendered) -> dict[str, tuple]:
    """fact -> (Quarto's, ours) for every fact that differs."""
    diffs: dict[str, tuple] = {}
    expected = {p.relative_to(case / "expected").as_posix()[:-len(".html.md")] + ".qmd": p.read_text("utf-8")
                for p in (case / "expected").rglob("*.html.md")}
    sources = {p.relative_to(case).as_posix(): p.read_text("utf-8")
               for p in case.rglob("*.qmd") if "expected" not in p.relative_to(case).parts}
    listed = set(getattr(result.project, "documents", []))
    for rel, kept in sorted(expected.items()):
        ours = our_markdown(result, rel)
        # inline values: lines of the chapter and of every file it may include
        lines = facts.prose_lines(sources.get(rel, ""))
        for other, text in sources.items():
            if other not in listed and other != rel:
                lines += facts.prose_lines(text)
        theirs_inline = {k: v for k, v in facts.inline_texts(kept, lines).items()}
        ours_inline = facts.inline_texts(ours or "", lines)
        wanted = {k for k, v in theirs_inline.items() if v is not None}
        a = {k: theirs_inline[k] for k in sorted(wanted)}
        b = {k: ours_inline.get(k) for k in sorted(wanted)}
        if a != b:
            diffs.setdefault("inline-text", ({}, {}))
            for k in a:
                if a[k] != b[k]:
                    diffs["inline-text"][0][f"{rel}: {k}"] = a[k]
                    diffs["inline-text"][1][f"{rel}: {k}"] = b[k]
        run = result.runs.get(rel)
        parsed = result.parsed.get(rel)
        ours_out = facts.our_outputs(parsed, run, root) if run and parsed else None
        theirs_out = facts.expected_outputs(kept)
        if ours_out != theirs_out:
            diffs.setdefault("outputs", ({}, {}))
            diffs["outputs"][0][rel] = theirs_out
            diffs["outputs"][1][rel] = ours_out
        handed = handoff_difference(result, rel, root, kept)
        if handed is not None:
            diffs.setdefault("handoff", ({}, {}))
            diffs["handoff"][0][rel], diffs["handoff"][1][rel] = handed
    log = (case / "expected" / "render.log").read_text("utf-8")
    theirs_f = facts.quarto_findings(log)
    ours_f = facts.our_findings(result.findings)
    if theirs_f != ours_f:
        diffs["findings"] = (theirs_f, ours_f)
    if "exit status: 0" not in log:
        return diffs                    # Quarto rendered no chapter page
    pages = facts.excerpts((case / "expected" / "excerpt.html").read_text("utf-8"))
    if isinstance(rendered, str):
        diffs["render"] = ("pages rendered", rendered)
        return diffs
    for page, fragment in sorted(pages.items()):
        wanted = facts.quarto_page_facts(fragment)
        mine = facts.our_page_facts(rendered.get(page, ""), wanted)
        for key, values in wanted.items():
            if not facts.is_subsequence(values, mine.get(key, [])):
                diffs.setdefault(key, ({}, {}))
                diffs[key][0][page] = values
                diffs[key][1][page] = mine.get(key)
    return diffs


@pytest.mark.kernel
@pytest.mark.parametrize("name", CASES or ["<none>"])
def test_case_agrees_with_quarto(name, tmp_path):
    case = CORPUS / name
    root = copy_inputs(case, tmp_path)
    result, rendered = run_case(root)
    diffs = compare(case, root, result, rendered)
    table = listed_differences()
    listed = {fact for (c, fact) in table if c == name}
    if "*" in listed:
        pytest.skip(f"{name}: {table[(name, '*')]} (docs/quarto-compat.md)")
    unlisted = {k: v for k, v in diffs.items() if k not in listed}
    stale = sorted(listed - set(diffs))
    message = []
    for fact, (theirs, ours) in unlisted.items():
        message.append(f"{name} · {fact} differs from Quarto 1.7.34 (not listed in docs/quarto-compat.md)\n"
                       f"  quarto: {theirs!r}\n  ours:   {ours!r}")
    for fact in stale:
        message.append(f"{name} · {fact} is listed in docs/quarto-compat.md but agrees now: remove the row")
    assert not message, "\n".join(message)


def test_every_listed_case_exists():
    """A row of the table names a real case and fact (a typo would excuse nothing)."""
    known_facts = {"inline-text", "outputs", "findings", "render", "xrefs", "unresolved", "captions",
                   "equations", "titles", "sidebar", "citations", "handoff", "*"}
    for (case, fact) in listed_differences():
        assert fact in known_facts, f"docs/quarto-compat.md: unknown fact {fact!r} for {case}"
        if CASES:
            assert case in CASES, f"docs/quarto-compat.md names no such case: {case}"
