"""A page's apply pass without citeproc (scripts/bookcheck/render/citations.py): the page is
byte-identical to citeproc's, and citeproc runs again whenever the citations change."""
from __future__ import annotations

import json
import shutil

import pytest

from bookcheck.render import citations, render_book
from bookcheck.render.book import prepare
from bookcheck.render.html import body_job
from bookcheck.render.incremental import RenderCache

from tests.bookkit import checked, copy_fixture, moved

EDGE = """# Edge cases {#sec-edge}

Plain [@young1974], a group [see @young1974, p. 3; @daly2006, chap. 2], in text
@daly2006 says, author suppressed [-@young1974].

A note.[^1] Again [@daly2006].

[^1]: Inside a note [@young1974] and @daly2006.

| a | b |
|---|---|
| x | y |

: A caption citing [@young1974] {#tbl-edge}
"""

OWN_REFS = """# Own reference list {#sec-own}

Cited [@young1974].

::: {#refs}
:::

Text after the list.
"""


def pages_three_ways(result, tmp_path):
    """Each page's body: plain citeproc; recorded (citeproc + capture); reused."""
    for name in ("plain", "cached"):
        (tmp_path / name).mkdir(parents=True)
    plain_book = prepare(result, tmp_path / "plain", cache=None)
    cached_book = prepare(result, tmp_path / "cached", cache=RenderCache(tmp_path / "cache", "html"))
    out = {}
    for plain, cached in zip(plain_book.chapters, cached_book.chapters):
        citations.CITEPROC_RUNS.clear()
        first = body_job(cached_book, cached).run()
        ran_first = list(citations.CITEPROC_RUNS)
        second = body_job(cached_book, cached).run()
        out[plain.path] = (body_job(plain_book, plain).run(), first, second, ran_first,
                           list(citations.CITEPROC_RUNS))
    return out


@pytest.fixture()
def book_with_edge_cases(tmp_path):
    root = copy_fixture("minibook", tmp_path / "src")
    (root / "contents" / "edge.qmd").write_text(EDGE, encoding="utf-8")
    (root / "contents" / "own.qmd").write_text(OWN_REFS, encoding="utf-8")
    config = root / "_quarto.yml"
    config.write_text(config.read_text(encoding="utf-8").replace(
        "    - contents/scaling.qmd\n",
        "    - contents/scaling.qmd\n    - contents/edge.qmd\n    - contents/own.qmd\n"),
        encoding="utf-8")
    bib = root / "references.bib"
    bib.write_text(bib.read_text(encoding="utf-8") + "\n".join([
        "", "@article{young1974, title={A first order approximation to the optimum checkpoint interval},",
        "  author={Young, John W.}, journal={Communications of the ACM}, year={1974}}",
        "@article{daly2006, title={A higher order estimate of the optimum checkpoint interval},",
        "  author={Daly, J. T.}, journal={Future Generation Computer Systems}, year={2006}}", ""]),
        encoding="utf-8")
    return root, checked(root)


@pytest.mark.kernel
@pytest.mark.slow
def test_every_page_is_the_same_with_or_without_citeproc(book_with_edge_cases, tmp_path):
    _, result = book_with_edge_cases
    for path, (plain, recorded, reused, ran_first, ran_second) in pages_three_ways(result, tmp_path).items():
        assert recorded == plain, path
        assert reused == plain, path
        assert ran_first == [path], path                 # no record yet: citeproc ran
        if path == "contents/own.qmd":                   # its own #refs div: citeproc again
            assert ran_second == [path, path]
        else:
            assert ran_second == [path], path            # the record was used
    assert "Daly" in pages_three_ways(result, tmp_path / "again")["contents/edge.qmd"][2]


@pytest.mark.slow
def test_the_real_book_pages_are_the_same_without_citeproc(real_book_result, tmp_path):
    for path, (plain, recorded, reused, _, ran) in pages_three_ways(real_book_result, tmp_path).items():
        assert recorded == plain and reused == plain, path
        assert ran == [path], path


@pytest.mark.kernel
@pytest.mark.slow
def test_a_prose_edit_renders_without_citeproc_and_a_new_citation_with_it(tmp_path):
    root = copy_fixture("minibook", tmp_path / "book")
    render_book(checked(root), "html", use_quarto=False)
    path = root / "contents/scaling.qmd"
    path.write_text(path.read_text(encoding="utf-8") + "\nA closing sentence.\n", encoding="utf-8")
    citations.CITEPROC_RUNS.clear()
    render_book(checked(root), "html", use_quarto=False)
    assert citations.CITEPROC_RUNS == []
    edited = (root / "_book/contents/scaling.html").read_text(encoding="utf-8")
    assert "A closing sentence." in edited
    fresh = copy_fixture("minibook", tmp_path / "fresh")
    shutil.copy2(path, fresh / "contents/scaling.qmd")
    render_book(moved(checked(fresh), fresh), "html", use_quarto=False)
    assert (fresh / "_book/contents/scaling.html").read_text(encoding="utf-8") == edited
    # a citation added: the record no longer matches, citeproc renders the page
    path.write_text(path.read_text(encoding="utf-8") + "\nAs shown before [@dean2013tail].\n",
                    encoding="utf-8")
    citations.CITEPROC_RUNS.clear()
    render_book(checked(root), "html", use_quarto=False)
    assert citations.CITEPROC_RUNS == ["contents/scaling.qmd"]
    page = (root / "_book/contents/scaling.html").read_text(encoding="utf-8")
    assert page.count('data-cites="dean2013tail"') == 2
    # the same citations with another locator: rendered again too
    path.write_text(path.read_text(encoding="utf-8").replace(
        "As shown before [@dean2013tail].", "As shown before [@dean2013tail, p. 77]."), encoding="utf-8")
    citations.CITEPROC_RUNS.clear()
    render_book(checked(root), "html", use_quarto=False)
    assert citations.CITEPROC_RUNS == ["contents/scaling.qmd"]
    assert "77" in (root / "_book/contents/scaling.html").read_text(encoding="utf-8")


@pytest.mark.kernel
def test_a_damaged_record_costs_a_citeproc_run_not_the_page(tmp_path):
    root = copy_fixture("minibook", tmp_path / "book")
    render_book(checked(root), "html", use_quarto=False)
    before = (root / "_book/contents/scaling.html").read_text(encoding="utf-8")
    cache = RenderCache(root, "html")
    damaged = 0
    for entry in list(cache.dir.iterdir()):
        try:
            stored = json.loads(cache.get(entry.name) or "")
        except ValueError:
            continue
        if isinstance(stored, dict) and set(stored) == {"signatures", "rendered", "appended"}:
            cache.put(entry.name, "{not json")          # a citation record, intact in the store
            damaged += 1
    assert damaged == 4
    path = root / "contents/scaling.qmd"
    path.write_text(path.read_text(encoding="utf-8") + "\nA closing sentence.\n", encoding="utf-8")
    citations.CITEPROC_RUNS.clear()
    render_book(checked(root), "html", use_quarto=False)
    assert citations.CITEPROC_RUNS == ["contents/scaling.qmd"]
    after = (root / "_book/contents/scaling.html").read_text(encoding="utf-8")
    assert after.replace("<p>A closing sentence.</p>\n", "") == before
