"""Issue 37: an explorer's grid is audited like every other number.

A small book whose chapter shows an explorer (mlsys.explorers): its grid is in
numbers.lock (a digest and one entry per point), so one moved value anywhere in the
grid fails `check` naming the setting and the output; the page audit compares the
data a page embeds with the checked grid; a claim checked over the grid fails at its
line naming the setting. Checks run in this process (check_book), the render with the
built-in renderer (render_book).
"""
from __future__ import annotations

from pathlib import Path

import pytest
from tests.faults.faultkit import copy_of, line_of, write_book

from bookcheck.model import Kind
from bookcheck.render import render_book
from bookcheck.verify.audit import audit_html_dir
from bookcheck.verify.check import check_book

pytestmark = pytest.mark.slow

CHAPTER_PATH = "contents/one.qmd"
CHAPTER = """\
# One {#sec-one}

```{python}
#| label: one-explorer
from mlsys import Setting, calc_mtbf_cluster, explorer, fmt, hour, node

node_mtbf = 5_000 * hour


def cluster_at(nodes):
    return {"Cluster MTBF": calc_mtbf_cluster(node_mtbf, nodes * node)}


toy = explorer("toy", [Setting("nodes", "Nodes", (10, 100, 1_000), default=100, show="{:,}".format)],
               compute=cluster_at, show={"Cluster MTBF": lambda m: fmt(m, hour, figures=2) + " h"})
CLAIM
toy
```

The explorer shows a cluster's MTBF.
"""


def book(root: Path, chapter: str = CHAPTER, claim: str = "") -> Path:
    return write_book(root, {CHAPTER_PATH: chapter.replace("CLAIM", claim)})


@pytest.fixture(scope="module")
def clean(tmp_path_factory):
    """The book checked (numbers.lock written) and rendered to HTML once."""
    root = book(tmp_path_factory.mktemp("explorer") / "book")
    result = check_book(root, update_ledger=True)
    assert result.ok, result.findings
    render_book(result, "html", use_quarto=False)
    return root, result



def test_the_lock_holds_the_grid_digest_every_point_and_the_default_view(clean):
    lock = (clean[0] / "numbers.lock").read_text(encoding="utf-8")
    base = f"{CHAPTER_PATH} · one-explorer"
    assert f"{base} · explorer toy · Nodes = 1,000\tCluster MTBF = 5.0 h\n" in lock
    assert f"{base} · explorer toy · Nodes = 10\tCluster MTBF = 500 h\n" in lock
    assert f"{base} · explorer toy · grid digest\t" in lock
    assert f"{base} · Cluster MTBF · Value\t50 h\n" in lock        # the default view
    assert f"{base} · Nodes · Value\t100\n" in lock


def test_a_moved_grid_value_fails_check_naming_its_setting_and_output(clean, tmp_path):
    root = copy_of(clean[0], tmp_path)
    path = root / CHAPTER_PATH
    path.write_text(path.read_text(encoding="utf-8").replace(
        'return {"Cluster MTBF": calc_mtbf_cluster(node_mtbf, nodes * node)}',
        'return {"Cluster MTBF": calc_mtbf_cluster(node_mtbf, nodes * node) * (1.5 if nodes == 1_000 else 1)}'),
        encoding="utf-8")
    result = check_book(root)
    assert not result.ok
    ledger = {f.key: (f.old, f.new) for f in result.findings if f.kind == Kind.LEDGER}
    base = f"{CHAPTER_PATH} · one-explorer · explorer toy"
    assert set(ledger) == {f"{base} · Nodes = 1,000", f"{base} · grid digest"}
    assert ledger[f"{base} · Nodes = 1,000"] == ("Cluster MTBF = 5.0 h", "Cluster MTBF = 7.5 h")


@pytest.mark.kernel
def test_a_claim_over_the_grid_fails_at_its_line_naming_the_setting(tmp_path):
    claim = ('toy.check_all(lambda s, out: out["Cluster MTBF"] > 10 * hour,\n'
             '              "every cluster here should run ten hours between failures")')
    root = book(tmp_path / "book", claim=claim)
    result = check_book(root)
    found = [f for f in result.findings if f.kind != Kind.LEDGER]
    assert [(f.path, f.line) for f in found] == [(CHAPTER_PATH, line_of(root / CHAPTER_PATH, "toy.check_all"))]
    assert "fails at 1 of 3 settings of explorer 'toy', first at Nodes = 1,000" in found[0].reason


def _tampered_audit(clean, tmp_path, old: str, new: str):
    root = copy_of(clean[0], tmp_path)
    page = root / "_book" / "contents" / "one.html"
    html = page.read_text(encoding="utf-8")
    assert html.count(old) == 1
    page.write_text(html.replace(old, new), encoding="utf-8")
    _, result = clean
    return [f for f in audit_html_dir(result, root / "_book") if f.kind == Kind.EXPLORER_DATA]


def test_the_audit_passes_the_page_as_rendered(clean, tmp_path):
    assert _tampered_audit(clean, tmp_path, "<title>", "<title>") == []


def test_a_page_whose_grid_differs_from_the_checked_one_fails_the_audit(clean, tmp_path):
    found = _tampered_audit(clean, tmp_path, '"2":["5.0 h"]', '"2":["5.1 h"]')
    assert [(f.path, f.line) for f in found] == [(CHAPTER_PATH, 3)]
    assert "at Nodes = 1,000 it shows Cluster MTBF = 5.1 h, checked 5.0 h" in found[0].reason


def test_a_page_without_the_grid_fails_the_audit(clean, tmp_path):
    found = _tampered_audit(clean, tmp_path, 'class="bookcheck-explorer-data"', 'class="other-data"')
    assert len(found) == 1 and "the page embeds no data for it" in found[0].reason
