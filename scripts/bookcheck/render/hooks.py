"""`bookcheck pre-render|post-render`: the pipeline as Quarto's project scripts.

An author keeps typing `quarto render` (or `quarto preview`); three lines of the
book's `_quarto.yml` run the checker around it (docs/quarto-compat.md, "Quarto's
own commands"):

    project:
      pre-render: bookcheck pre-render
      post-render: bookcheck post-render
    execute:
      freeze: auto

Quarto 1.7 runs each script in the project folder, after it has computed what to
render and before it renders anything (pre), and after every page and the book's
own post-processing (search index, cross-references) are written (post), with
QUARTO_PROJECT_OUTPUT_DIR, QUARTO_PROJECT_RENDER_ALL (a whole-project render),
QUARTO_PROJECT_INPUT_FILES / QUARTO_PROJECT_OUTPUT_FILES (newline-separated,
relative to the project; in a file named by QUARTO_USE_FILE_FOR_PROJECT_*_FILES
when that is set). A script that exits non-zero makes the whole `quarto render`
fail (quarto-cli 1.7.34 src/command/render/project.ts, runScripts).

pre-render: check the book (the report `check` prints) and write the freeze entry of
every executable document (freeze.py), so Quarto publishes the checked runs
instead of executing; exit 1 on a finding (Quarto renders nothing). Under
Quarto's default `freeze: false` a plain `quarto render` never reads the entries,
so a document whose freeze is off is a finding naming `freeze: auto`.
post-render: audit the HTML pages Quarto wrote (bookcheck.verify.audit, and Quarto's
search-index race, quarto_search.py) against the result pre-render checked (kept in
the store: a chapter that cannot be cached is not executed a second time); exit 1
on a finding. Quarto has written
them into its output folder by then: this path makes the render fail, it cannot
keep the previous site (`make html` builds in a staging folder and can).
"""
from __future__ import annotations

import argparse
import copyreg
import os
import pickle
import sys
import types
from pathlib import Path

from bookcheck import store
from bookcheck.model import Finding, Kind
from bookcheck.read import CONFIG

EXIT_OK, EXIT_FINDINGS = 0, 1
NO_FREEZE = ("Quarto's freeze is off for this document, so `quarto render` executes it "
             "again instead of publishing the checked run: add `execute: freeze: auto` "
             f"to {CONFIG}")


def listed(kind: str, env=None) -> list[str] | None:
    """QUARTO_PROJECT_{kind}_FILES (kind INPUT or OUTPUT) as a list of project-relative
    paths; None when Quarto gave none (not run by Quarto)."""
    env = os.environ if env is None else env
    named = env.get(f"QUARTO_USE_FILE_FOR_PROJECT_{kind}_FILES")
    try:
        text = Path(named).read_text(encoding="utf-8") if named else env.get(f"QUARTO_PROJECT_{kind}_FILES")
    except OSError:
        text = None
    return None if text is None else [line for line in text.splitlines() if line.strip()]


def unfrozen(result) -> list[Finding]:
    """The executable documents whose `freeze` is off: Quarto would execute them."""
    from .freeze import needs_entry
    return [Finding(rel, 0, Kind.FREEZE, NO_FREEZE) for rel, parsed in result.parsed.items()
            if needs_entry(parsed) and parsed.freeze is False]


def _proxy(mapping: dict) -> types.MappingProxyType:
    return types.MappingProxyType(mapping)


copyreg.pickle(types.MappingProxyType, lambda m: (_proxy, (dict(m),)))   # cell.options
HOOKS = "hooks"             # the store folder of what pre-render handed over
CHECKED = ".checked"        # the store's record of the result pre-render handed over


def _results(root: Path) -> store.Store:
    return store.Store(root, HOOKS, ("bookcheck.render.hooks",))


def keep(result) -> None:
    """Keep the checked result for post-render."""
    _results(result.project.root).put(CHECKED, pickle.dumps(result))


def kept(root: Path):
    """The result pre-render checked, while every document is as it read it; else None."""
    from .freeze import changed_since_check
    data = _results(root).get(CHECKED)
    try:
        result = pickle.loads(data) if data is not None else None
    except Exception:           # an entry of other code fails its header first; belt and braces
        return None
    if result is None or Path(result.project.root).resolve() != Path(root).resolve():
        return None
    for rel, parsed in result.parsed.items():
        try:
            raw = (Path(root) / rel).read_bytes().decode("utf-8")
        except (OSError, UnicodeDecodeError):
            return None
        if changed_since_check(Path(root), parsed, raw):
            return None
    return result


def _check(root: Path, quiet: bool = False):
    from bookcheck.verify.check import check_book
    from bookcheck.verify.report import print_report
    result = check_book(root)
    if not quiet or not result.ok:
        print_report(result)
    return result


def _print(findings: list[Finding], what: str) -> None:
    print(f"{what} found {len(findings)} problem(s):")
    for f in findings:
        print(f"  {f.location()}: {f.kind}: {f.reason}")


def pre_render(root: Path) -> int:
    """Check, then hand every checked run to Quarto's freezer."""
    from . import freeze
    result = _check(root)
    if not result.ok:
        return EXIT_FINDINGS
    written, problems = freeze.write_entries(result)
    problems = unfrozen(result) + problems
    if problems:
        _print(problems, "pre-render")
        return EXIT_FINDINGS
    keep(result)
    print(f"pre-render: {len(written)} checked run(s) handed to Quarto's freezer")
    return EXIT_OK


def post_render(root: Path, env=None) -> int:
    """Audit the HTML pages this render wrote (every page of the book that is there)."""
    from bookcheck.read.output_dir import write_manifest
    from bookcheck.verify.audit import audit_rendered
    from . import incomplete_pages, output_dir
    env = os.environ if env is None else env
    outputs = listed("OUTPUT", env)
    if outputs is not None and not any(o.endswith(".html") for o in outputs):
        print("post-render: no HTML page rendered, nothing audited (the audit of Quarto's "
              "output reads HTML pages)")
        return EXIT_OK
    result = kept(root) or _check(root, quiet=True)
    if not result.ok:
        return EXIT_FINDINGS
    out = Path(env.get("QUARTO_PROJECT_OUTPUT_DIR") or output_dir(result.project))
    out = out if out.is_absolute() else Path(root) / out
    if out.is_dir():            # Quarto's pages, written by this pipeline's render (read/output_dir.py)
        write_manifest(out)
    findings = audit_rendered(result, "html", out)
    race = incomplete_pages(result, out)
    if race:
        print(f"post-render: Quarto left {', '.join(race)} (Quarto 1.7 indexes pages it is "
              "still rewriting: render/quarto_search.py): render again")
        return EXIT_FINDINGS
    if findings:
        _print(findings, f"post-render: the audit of the pages in {out}")
        return EXIT_FINDINGS
    print(f"post-render: the pages in {out} audited, no finding")
    return EXIT_OK


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="bookcheck",
                                     description="Run as Quarto's project pre-render/post-render script.")
    parser.add_argument("command", choices=("pre-render", "post-render"))
    parser.add_argument("--root", type=Path, default=Path.cwd(),
                        help="project root (default: the current folder, where Quarto runs it)")
    args = parser.parse_args(argv)
    from .quarto import BUILDING
    if os.environ.get(BUILDING):
        print(f"{args.command}: skipped, `bookcheck html` runs this Quarto and checks "
              "and audits the book itself")
        return 0
    if not (args.root / CONFIG).is_file():
        print(f"error: no {CONFIG} in {args.root}", file=sys.stderr)
        return 2
    return (pre_render if args.command == "pre-render" else post_render)(args.root)
