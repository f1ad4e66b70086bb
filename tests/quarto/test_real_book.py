"""The real book with real Quarto, twice: from the handed-over runs and executing.

The pipeline checks a copy of the book, hands the runs to Quarto's freeze and
renders with `quarto render --use-freezer`; render_book fails if Quarto's log
shows it executed anything. The pages must then carry the checked values.
A second copy is rendered by Quarto alone, executing every chapter in its own
kernels (`keep-md`): the Markdown handed over must be the Markdown Quarto's
engine wrote, and every page and figure file the same ("identical by
construction, proven").
"""
from __future__ import annotations

import contextlib
import difflib
import io
import json

import re
import warnings
from html.parser import HTMLParser
from pathlib import Path

import pytest

from bookcheck.model import Kind
from bookcheck.read.output_dir import MANIFEST
from tests.bookkit import BOOK_SOURCES, check, copy_book

from .quartokit import quarto_on_path, quarto_render

pytestmark = pytest.mark.slow

BOOK_FILES = BOOK_SOURCES + ("_quarto-pdf.yml",)
# What Quarto may print that is not fine: none of it, in either render (the
# book's `format: typst` is in the `pdf` profile, which Quarto 1.7 would warn about).
KNOWN_WARNINGS: list[str] = []
COMPLAINT = re.compile(r"\b(WARN|WARNING|ERROR)\b")
# Quarto's own warnings and errors (its log lines start with the level). The
# executing render also relays its kernels' stderr: ipykernel's "[IPKernelApp]
# WARNING | Kernel is running over TCP without encryption" is the kernel's, not
# Quarto's (the pipeline's render starts no kernel).
QUARTO_COMPLAINT = re.compile(r"^\s*(WARN|WARNING|ERROR)\b")
ANSI = re.compile(r"\x1b\[[0-9;]*m")
MARKUP = re.compile(r"[$@*\\]|\[@")
# What the comparisons mask, and only that: the ids Quarto draws at random for
# unlabelled cells (in the Markdown and on the page), and the creation date
# matplotlib writes into every SVG's metadata (the two runs happen at different times).
CELL_ID = re.compile(r"\{#[0-9a-f]{8} \.cell")
HTML_CELL_ID = re.compile(r'id="[0-9a-f]{8}"')
SVG_DATE = re.compile(r"<dc:date>[^<]*</dc:date>")


class _Text(HTMLParser):
    def __init__(self):
        super().__init__()
        self.parts, self.hidden = [], 0

    def handle_starttag(self, tag, attrs):
        self.hidden += tag in ("script", "style")

    def handle_endtag(self, tag):
        self.hidden -= tag in ("script", "style")

    def handle_data(self, data):
        if not self.hidden:
            self.parts.append(data)


def page_text(path: Path) -> str:
    parser = _Text()
    parser.feed(path.read_text(encoding="utf-8"))
    return " ".join(" ".join(parser.parts).replace("\u2019", "'").split())


@pytest.fixture(scope="module")
def quarto_book(quarto_exe, tmp_path_factory):
    return hand_over_book(quarto_exe, tmp_path_factory.mktemp("realbook"))


@pytest.fixture(scope="module")
def executed_book(quarto_exe, tmp_path_factory):
    return execute_book(quarto_exe, tmp_path_factory.mktemp("executed"))


def hand_over_book(exe: Path, parent: Path):
    """`make html`'s Quarto path on a copy of the book under `parent`: (root, checked
    result, index page, what the render printed on stderr)."""
    from bookcheck.render import render_book
    root = copy_book(parent / "book", BOOK_FILES)
    result = check(root)
    assert result.ok, [f"{f.location()}: {f.reason}" for f in result.findings][:10]
    err = io.StringIO()
    with quarto_on_path(exe), contextlib.redirect_stderr(err):
        index = render_book(result, "html")
    return root, result, index, err.getvalue()


def execute_book(exe: Path, parent: Path):
    """Quarto alone on a copy of the book: it executes every chapter (keep-md on).
    The book asks for the built-in look (`verify: quarto-look: true`), so this render
    gets the handoff's `--metadata-file` and the font's licence too (render/quarto_look.py).
    (root, Quarto's log)."""
    from bookcheck.read.project import load_project
    from bookcheck.render import quarto_look
    root = copy_book(parent / "book", BOOK_FILES)
    project = load_project(root)
    assert project.quarto_look
    look = quarto_look.write_metadata_file(project.metadata, root, parent)
    done = quarto_render(exe, root, "-M", "keep-md:true", "--metadata-file", str(look))
    quarto_look.copy_licence(root / "_book")
    return root, done.stdout + done.stderr


def handed_over(root: Path) -> dict[str, str]:
    """chapter -> the Markdown of its freeze entry (what Quarto rendered)."""
    freezer = root / ".quarto" / "_freeze"
    return {p.parent.parent.relative_to(freezer).as_posix() + ".qmd":
            json.loads(p.read_text(encoding="utf-8"))["result"]["markdown"]
            for p in sorted(freezer.rglob("execute-results/html.json"))}


def test_handed_over_markdown_is_what_quartos_engine_writes(quarto_book, executed_book):
    """Each entry's Markdown equals Quarto's kept `*.html.md` of the executing run."""
    handed = handed_over(quarto_book[0])
    from bookcheck.read.book import read_book
    executing = [c.path for c in read_book(quarto_book[0]).parsed.values() if c.execute and (c.cells or c.inlines)]
    assert sorted(handed) == sorted(executing) and handed
    for rel, ours in handed.items():
        kept = executed_book[0] / (rel[:-len(".qmd")] + ".html.md")
        theirs = kept.read_text(encoding="utf-8")
        assert CELL_ID.sub("{#id .cell", ours) == CELL_ID.sub("{#id .cell", theirs), rel


def test_pages_and_figures_are_the_ones_quarto_makes_executing(quarto_book, executed_book,
                                                               quarto_exe, tmp_path):
    """Every file of `_book/` (pages, figures, search index, assets) is the same in
    both renders, but for the masked ids and SVG dates. On a difference both renders
    run once more: one that goes away in another pairing is Quarto's run-to-run
    variation (its search-index race, render/quarto_search.py), warned with its diff."""
    ours, theirs = quarto_book[0] / "_book", executed_book[0] / "_book"
    assert any(f.endswith(".svg") and "figure-html" in f for f in book_files(ours))
    differ = differing_files(theirs, ours)
    if differ:
        first = diff_of(theirs, ours, differ[0])
        again = execute_book(quarto_exe, tmp_path / "executed")[0] / "_book"
        handed_again = hand_over_book(quarto_exe, tmp_path / "handed")[0] / "_book"
        if any(not differing_files(t, o) for t, o in
               [(again, ours), (theirs, handed_again), (again, handed_again)]):
            warnings.warn(f"Quarto renders the book differently from one run to the next; "
                          f"a second render agrees:\n{first}")
            return
    assert differ == [], diff_of(theirs, ours, differ[0])


def book_files(folder: Path) -> list[str]:
    return sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file())


def differing_files(theirs: Path, ours: Path) -> list[str]:
    """The files of two `_book/` folders that differ, as compared (the same files in both,
    but the handed-over render's manifest, which lists exactly its other files)."""
    files = [f for f in book_files(ours) if f != MANIFEST]
    assert json.loads((ours / MANIFEST).read_text(encoding="utf-8"))["files"] == files
    assert files == book_files(theirs)
    return [rel for rel in files if comparable(ours / rel) != comparable(theirs / rel)]


def diff_of(theirs: Path, ours: Path, rel: str) -> str:
    """The first lines of a unified diff of one file as compared (- executing, + handed over)."""
    old, new = (comparable(side / rel).decode("utf-8", "replace").splitlines() for side in (theirs, ours))
    return "\n".join(list(difflib.unified_diff(old, new, rel, rel, lineterm="", n=2))[:60])


def comparable(path: Path) -> bytes:
    data = path.read_bytes()
    if path.suffix == ".svg":
        return SVG_DATE.sub("<dc:date/>", data.decode("utf-8")).encode("utf-8")
    if path.suffix in (".html", ".json"):
        return HTML_CELL_ID.sub('id="cell"', data.decode("utf-8")).encode("utf-8")
    return data


def test_quarto_executes_nothing_and_warns_about_nothing(quarto_book, executed_book):
    root, result, index, stderr = quarto_book
    assert index == root / "_book" / "index.html"
    handed = sorted(p.parent.parent.relative_to(root / ".quarto" / "_freeze").as_posix()
                    for p in (root / ".quarto" / "_freeze").rglob("execute-results/html.json"))
    assert handed == sorted(rel[:-len(".qmd")] for rel, parsed in result.parsed.items()
                            if parsed.cells)
    assert [ln for ln in stderr.splitlines() if ln.startswith("quarto:")] == KNOWN_WARNINGS
    assert [ln for ln in stderr.splitlines() if COMPLAINT.search(ln)] == KNOWN_WARNINGS
    assert [ln for ln in executed_book[1].splitlines()
            if QUARTO_COMPLAINT.search(ANSI.sub("", ln))] == KNOWN_WARNINGS


def test_pages_carry_every_plain_ledger_value(quarto_book):
    """Each value of numbers.lock without Markdown markup (math, citations and
    cross-references render as other text) is on its chapter's page."""
    root = quarto_book[0]
    pages, missing, checked, explorer_points = {}, [], 0, 0
    for line in (root / "numbers.lock").read_text(encoding="utf-8").splitlines():
        if line.startswith("#") or "\t" not in line:
            continue
        key, value = line.split("\t", 1)
        rel = key.split(" · ")[0]
        if " · explorer " in key:       # a grid point is data on the page, not text:
            explorer_points += 1        # Quarto's page must embed the checked grid (below)
            continue
        value = " ".join(value.replace("`", "").split())
        if MARKUP.search(value):
            continue
        page = root / "_book" / (rel[:-len(".qmd")] + ".html")
        if page not in pages:
            pages[page] = page_text(page)
        checked += 1
        if value not in pages[page]:
            missing.append(f"{key}: {value}")
    assert checked and not missing, missing[:10]
    assert explorer_points > 0
    # every grid point of the lock is in the data Quarto's pages embed (key from "explorer ")
    from bookcheck.verify.explorer_data import grid_entries, grids_in
    embedded = {}
    for page in sorted((root / "_book").rglob("*.html")):
        for data in grids_in(page.read_text(encoding="utf-8")):
            embedded.update({k[k.index(" · explorer ") + 3:]: v for k, v in grid_entries("page", data).items()})
    locked = {}
    for line in (root / "numbers.lock").read_text(encoding="utf-8").splitlines():
        key, _, value = line.partition("\t")
        if " · explorer " in key:
            locked[key[key.index(" · explorer ") + 3:]] = value
    assert locked == embedded and len(locked) == explorer_points


def test_quarto_pages_pass_the_audit_and_a_planted_number_fails_it(quarto_book):
    """render_book audited Quarto's pages before the swap (the fixture's render
    would have raised AuditError); a number planted in one of them is found."""
    from bookcheck.verify.audit import audit_rendered
    root, result = quarto_book[0], quarto_book[1]
    assert audit_rendered(result, "html", root / "_book") == []
    page = root / "_book" / "contents" / "failure-at-scale.html"
    text = page.read_text(encoding="utf-8")
    planted = text.replace("</main>", "<p>Planted 7319 nodes.</p></main>", 1)
    assert planted != text
    page.write_text(planted, encoding="utf-8")
    try:
        found = audit_rendered(result, "html", root / "_book")
    finally:
        page.write_text(text, encoding="utf-8")
    assert [(f.kind, "7319" in f.reason) for f in found] == [(Kind.UNACCOUNTED_NUMBER, True)]


@pytest.mark.needs_tool("chromium")
def test_the_explorers_work_on_quartos_pages(quarto_book):
    """Quarto's page runs the explorer from the freeze entry's output: from file://, each
    explorer builds its controls, and moving one shows the grid's values at that point."""
    from playwright.sync_api import sync_playwright

    from tests.reader.test_browser import CHROMIUM, LAUNCH_ARGS
    root = quarto_book[0]
    seen = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=LAUNCH_ARGS)
        page = browser.new_page(viewport={"width": 1400, "height": 900})
        errors = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        for rel in ("contents/failure-at-scale.html", "contents/appendix-foundations.html"):
            page.goto((root / "_book" / rel).as_uri())
            for n in range(page.locator(".bookcheck-explorer").count()):
                explorer = page.locator(".bookcheck-explorer").nth(n)
                data = json.loads(explorer.locator("script.bookcheck-explorer-data").text_content())
                sliders = explorer.locator("input[type=range]")
                assert sliders.count() == len(data["settings"])
                sliders.nth(0).focus()
                page.keyboard.press("End")
                state = [s["default"] for s in data["settings"]]
                state[0] = len(data["settings"][0]["shown"]) - 1
                rows = explorer.locator("tbody tr")
                shown = [rows.nth(len(state) + j).locator("td").nth(1).inner_text().strip()
                         for j in range(len(data["outputs"]))]
                assert shown == data["grid"][",".join(map(str, state))], (rel, data["explorer"])
                seen.append(data["explorer"])
        browser.close()
    assert errors == [] and sorted(seen) == ["cascade", "checkpointing", "stacking"]
