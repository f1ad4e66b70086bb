"""`bookcheck check --json`, and a bibliography given as a list."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from bookcheck.model import Kind
from bookcheck.read.project import load_project
from bookcheck.verify.check import check_book

from tests.bookkit import LOCAL_CHECK, write_book

pytestmark = [pytest.mark.slow, pytest.mark.kernel]     # every test runs `bookcheck check --json`

PROJECT = Path(__file__).resolve().parents[2]


def check_json(root: Path) -> tuple[int, dict]:
    done = subprocess.run([sys.executable, "-m", "bookcheck", "check", "--json", "--root", str(root)],
                          cwd=PROJECT, capture_output=True, text=True, timeout=300)
    return done.returncode, json.loads(done.stdout)     # the whole stdout is one JSON value


def test_json_report_on_the_book_is_valid():
    code, report = check_json(PROJECT)
    assert code == 0 and report["ok"] is True and report["findings"] == []
    documents = load_project(PROJECT).documents
    assert report["summary"]["chapters"] == len(documents)
    assert report["summary"]["findings"] == 0 and report["summary"]["ledger_compared"] is True


def test_json_report_names_a_failing_check(tmp_path):
    chapter = f"# One\n\n```{{python}}\n#| label: guard\n{LOCAL_CHECK}\nx = 2\ncheck(x > 3, 'x exceeds three')\n```\n"
    root = write_book(tmp_path / "book", {"one.qmd": chapter})
    code, report = check_json(root)
    assert code == 1
    (finding,) = [f for f in report["findings"] if f["kind"] != "ledger"]
    line = chapter.splitlines().index("check(x > 3, 'x exceeds three')") + 1
    assert (finding["path"], finding["line"], finding["kind"]) == ("one.qmd", line, "invariant")
    assert finding["chapter"] == "one.qmd" and finding["label"] == "guard"
    assert "x exceeds three" in finding["message"]


def test_json_report_gives_ledger_old_and_new(tmp_path):
    text = "# One\n\n```{python}\nx = 7\n```\n\nValue `{python} x * 6`.\n"
    root = write_book(tmp_path / "book", {"one.qmd": text})
    assert check_book(root, update_ledger=True).ok
    (root / "one.qmd").write_text(text.replace("x = 7", "x = 8"))
    code, report = check_json(root)
    assert code == 1
    (finding,) = report["findings"]
    assert finding["kind"] == "ledger" and finding["chapter"] == "one.qmd"
    assert (finding["ledger"]["old"], finding["ledger"]["new"]) == ("42", "48")


def test_citation_found_in_the_second_bibliography(tmp_path):
    root = write_book(tmp_path / "book", {"one.qmd": "# One\n\nAs shown [@only_in_b].\n"},
                      extra="bibliography: [a.bib, b.bib]\n")
    (root / "a.bib").write_text("@book{only_in_a, title={A}, author={Ann}, year={2001}}\n")
    (root / "b.bib").write_text("@book{only_in_b, title={B}, author={Bob}, year={2002}}\n")
    assert load_project(root).bibliography == ["a.bib", "b.bib"]
    result = check_book(root, update_ledger=True)
    assert result.findings == []
    from bookcheck.render import render_book
    page = render_book(result, "html", use_quarto=False).parent / "one.html"
    assert "Bob" in page.read_text(encoding="utf-8")        # cited from b.bib
    (root / "one.qmd").write_text("# One\n\nAs shown [@nowhere].\n")
    (missing,) = check_book(root).findings
    assert missing.kind == Kind.UNKNOWN_CITATION and "a.bib, b.bib" in missing.reason


def test_literal_number_in_prose_is_a_finding_when_the_project_asks(tmp_path):
    text = "# One\n\nSome prose.\nThe run loses 12.5 % of its time.\n"
    root = write_book(tmp_path / "book", {"one.qmd": text},
                      extra="verify:\n  literal-numbers: true\n")
    code, report = check_json(root)
    assert code == 1
    (finding,) = report["findings"]
    assert (finding["path"], finding["line"], finding["column"], finding["kind"]) == \
        ("one.qmd", 4, 15, "literal-number")
    assert "12.5 %" in finding["message"]
    (root / "_quarto.yml").write_text((root / "_quarto.yml").read_text()
                                      .replace("literal-numbers: true", "literal-numbers: false"))
    assert check_json(root)[0] == 0


def test_figure_without_alt_text_is_a_finding_when_the_project_asks(tmp_path):
    text = ("# One\n\n```{python}\n#| label: fig-bare\n#| fig-cap: A bare figure\n"
            "import sys\n```\n")
    root = write_book(tmp_path / "book", {"one.qmd": text}, extra="verify:\n  fig-alt: true\n")
    code, report = check_json(root)
    assert code == 1
    (finding,) = report["findings"]
    assert (finding["path"], finding["line"], finding["kind"]) == ("one.qmd", 4, "fig-alt")
    (root / "one.qmd").write_text(text.replace("#| fig-cap:", "#| fig-alt: Nothing drawn\n#| fig-cap:"))
    assert check_json(root)[0] == 0
