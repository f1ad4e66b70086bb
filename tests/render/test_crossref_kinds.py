"""The cross-reference kinds as Quarto 1.7.34 has them, and the Lua filters working from
the one table (bookcheck/read/crossref_kinds.py) that the context hands them.

PROOFS was rendered by real Quarto 1.7.34 (`QUARTO_PYTHON=.venv/bin/python quarto
render`, a book of a preface and a.qmd); QUARTO_PAGE is what its a.html showed:
`sol-`, `rem-` and `prf-` divs are Quarto's proofs, numbered per kind and chapter
("Solution 1.2"), classed `proof solution`, titled "*Solution 1.2* (Named)." in
emphasis (a theorem's title is strong); `alg-` is no kind: the div is plain and
`@alg-x` a citation. `test_real_quarto_still_renders_the_recording` renders it again
where real Quarto is."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from types import SimpleNamespace

import pytest

from bookcheck.read.book import read_book
from bookcheck.read.crossref_kinds import KINDS, for_filters
from bookcheck.render import pandoc, render_book
from bookcheck.render.book import FILTERS, Chapter, new_book, write_context
from bookcheck.read.project import Project
from tests.bookkit import make_book

from .htmlscan import norm, scan

CONFIG = "project:\n  type: book\nbook:\n  title: Q\n  chapters:\n    - index.qmd\n    - a.qmd\n"
PROOFS = """\
# Alpha

::: {#thm-t}
A theorem.
:::

::: {#sol-x}
A solution.
:::

::: {#sol-y}
## Named sol
Second solution.
:::

::: {#rem-x}
A remark.
:::

::: {#prf-x}
A proof.
:::

::: {#alg-x}
An algorithm.
:::

See @thm-t, @sol-x, @sol-y, @rem-x, @prf-x, [-@sol-y] and @alg-x.
"""
IDS = ("thm-t", "sol-x", "sol-y", "rem-x", "prf-x", "alg-x")
QUARTO_PAGE = {
    "divs": [("thm-t", ["theorem"], "Theorem 1.1 A theorem."),
             ("sol-x", ["proof", "solution"], "Solution 1.1. A solution."),
             ("sol-y", ["proof", "solution"], "Solution 1.2 (Named sol). Second solution."),
             ("rem-x", ["proof", "remark"], "Remark 1.1. A remark."),
             ("prf-x", ["proof"], "Proof 1.1. A proof."),
             ("alg-x", [], "An algorithm.")],
    "titles": [("theorem-title", "strong", "Theorem 1.1"), ("proof-title", "em", "Solution 1.1"),
               ("proof-title", "em", "Solution 1.2"), ("proof-title", "em", "Remark 1.1"),
               ("proof-title", "em", "Proof 1.1")],
    "xrefs": ["Theorem 1.1", "Solution 1.1", "Solution 1.2", "Remark 1.1", "Proof 1.1", "1.2"],
    "citations": [("alg-x", "@alg-x")],
}


def page_facts(html: str) -> dict:
    """What QUARTO_PAGE records, read from a page."""
    elements = scan(html)
    titles = [e for e in elements if {"theorem-title", "proof-title"} & set(e.classes)]
    return {
        "divs": [(e.attrs["id"], e.classes, norm(e.children[0].text)) for e in elements
                 if e.tag == "div" and e.attrs.get("id") in IDS],
        "titles": [(e.classes[0], e.children[0].tag, norm(e.children[0].text)) for e in titles],
        "xrefs": [norm(e.text) for e in elements if "quarto-xref" in e.classes],
        "citations": [(e.attrs["data-cites"], norm(e.text)) for e in elements if "citation" in e.classes],
    }


def test_the_checker_reads_the_kinds_as_quarto(tmp_path):
    """`#sol-x` is a label and `@sol-x` a reference; `@alg-x` is a citation."""
    make_book(tmp_path, {"index.qmd": "# Preface {.unnumbered}\n", "a.qmd": PROOFS}, CONFIG)
    chapter = read_book(tmp_path).parsed["a.qmd"]
    assert [label for label, _ in chapter.labels] == ["thm-t", "sol-x", "sol-y", "rem-x", "prf-x"]
    assert [key for key, *_ in chapter.references] == ["thm-t", "sol-x", "sol-y", "rem-x", "prf-x",
                                                       "sol-y"]
    assert [key for key, *_ in chapter.citations] == ["alg-x"]


def test_the_built_in_page_shows_the_kinds_as_quarto(tmp_path):
    make_book(tmp_path, {"index.qmd": "# Preface {.unnumbered}\n", "a.qmd": PROOFS}, CONFIG)
    read = read_book(tmp_path)
    result = SimpleNamespace(project=read.project, parsed=read.parsed, runs={}, findings=[], ok=True)
    render_book(result, "html", use_quarto=False)
    assert page_facts((tmp_path / "_book" / "a.html").read_text(encoding="utf-8")) == QUARTO_PAGE


@pytest.mark.quarto
def test_real_quarto_still_renders_the_recording(tmp_path):
    from tests.skip_policy import real_quarto
    exe = real_quarto()
    make_book(tmp_path, {"index.qmd": "# Preface {.unnumbered}\n", "a.qmd": PROOFS}, CONFIG)
    done = subprocess.run([str(exe), "render"], cwd=tmp_path, capture_output=True, text=True,
                          timeout=600, env={**os.environ, "QUARTO_PYTHON": sys.executable})
    assert done.returncode == 0, done.stderr[-2000:]
    assert page_facts((tmp_path / "_book" / "a.html").read_text(encoding="utf-8")) == QUARTO_PAGE


def test_the_filters_get_exactly_the_table(tmp_path):
    chapter = Chapter("a.qmd", "a.html", False, tmp_path / "a.md")
    book = new_book(Project(root=tmp_path), [chapter], tmp_path)
    for mode in ("collect", "apply"):
        assert json.loads(write_context(book, chapter, mode, "html").read_text())["kinds"] == for_filters()


def filtered(tmp_path, markdown: str, kinds: dict | None, mode: str = "apply", refs=None) -> str:
    """`markdown` through the filters, their context holding `kinds` (None: none)."""
    context = tmp_path / "ctx.json"
    ctx = {"mode": mode, "target": "html", "refs": refs or {}, "out": str(tmp_path / "found.json")}
    context.write_text(json.dumps(ctx if kinds is None else {**ctx, "kinds": kinds}))
    return pandoc.run(["--from=markdown", "--to=html5", f"--metadata=book-context:{context}",
                       "--metadata=book-target:html", *pandoc.filter_args(*FILTERS)], stdin=markdown)


def every_kind() -> str:
    """A label of every kind, defined as Quarto defines it."""
    blocks = []
    for prefix, kind in KINDS.items():
        if kind.group == "section":
            blocks.append(f"# Title\n\n## A section {{#{prefix}-k}}")
        elif kind.group == "equation":
            blocks.append(f"$$x$$ {{#{prefix}-k}}")
        elif kind.group == "callout":
            blocks.append(f"::: {{#{prefix}-k .callout-{kind.env}}}\nBody.\n:::")
        elif kind.group == "float":
            blocks.append(f"::: {{#{prefix}-k}}\nContent.\n\nCaption.\n:::")
        else:
            blocks.append(f"::: {{#{prefix}-k}}\nBody.\n:::")
    return "\n\n".join(blocks) + "\n"


def test_the_filters_list_a_label_of_every_kind(tmp_path):
    """The collect pass lists every kind of the table (a group the filters do not know fails)."""
    filtered(tmp_path, every_kind(), for_filters(), mode="collect")
    found = json.loads((tmp_path / "found.json").read_text())
    assert sorted(label["kind"] for label in found["labels"]) == sorted(set(KINDS) - {"sec"})
    assert "sec-k" in [h["id"] for h in found["headers"]]


def test_a_kind_missing_from_the_context_is_unknown_to_the_filters(tmp_path):
    """The filters know a kind only from the context: without `sol` a `sol-x` div is no
    proof and `@sol-x` a citation; with it, Quarto's."""
    markdown = "::: {#sol-x}\nA solution.\n:::\n\nSee @sol-x.\n"
    refs = {"sol-x": {"kind": "sol", "number": "1.1", "text": "Solution 1.1", "href": "#sol-x",
                      "plain": ""}}
    full = filtered(tmp_path, markdown, for_filters(), refs=refs)
    assert '<div id="sol-x" class="proof solution">' in full and 'href="#sol-x"' in full
    planted = {prefix: kind for prefix, kind in for_filters().items() if prefix != "sol"}
    missing = filtered(tmp_path, markdown, planted, refs=refs)
    assert '<div id="sol-x">' in missing and 'data-cites="sol-x"' in missing
    with pytest.raises(Exception, match="no `kinds`"):
        filtered(tmp_path, markdown, None, refs=refs)
