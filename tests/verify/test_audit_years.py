"""Issue 34 §3: a number from 1900 to 2099 is a year only where the text says so
(scripts/bookcheck/verify/years.py), in the prose check and in the audit of a page's text; in a
PDF's text layer, which marks no citation, a bibliography year closing a parenthesis
is the citation's (audit_pdf.citation_year_spans). Pure."""
from __future__ import annotations

from types import SimpleNamespace

import pytest

from bookcheck.verify.audit_pdf import bibliography_years, citation_year_spans
from bookcheck.verify.years import year_spans


@pytest.mark.parametrize("text, years", [
    ("GPT-4 (2023) reportedly trained", ["2023"]),
    ("His law, proved in 1961, is", ["1961"]),
    ("Coined in 2010 to describe", ["2010"]),
    ("links common in 2024 AI clusters", ["2024"]),
    ("Between 2012 and 2024, the compute", ["2012 and 2024"]),
    ("from 1950 to 2020 on a log scale", ["1950 to 2020"]),
    ("**Gene Amdahl** (1922–2015) was", ["1922–2015"]),
    ("(ISSCC 2014, 45nm process)", ["2014"]),
    ("In its OSDI 2024 evaluation", ["2024"]),
    ("landmark models, 2012--2024. Verified", ["2012--2024"]),
    ("On May 3, 2024 we", ["3, 2024"]),
    ("in the 1990s", ["1990"]),
    ("its 2023 report", ["2023"]),
    ("We trained on 2048 GPUs for 2000 hours with 2048 tokens.", []),
    ("in 2048 tokens, from 2000 hours, by 2048 GPUs, NVIDIA 2048 GPUs", []),
    ("a cluster of 2048 GPUs, in 2000%, in 2048x, in 2048 of them", []),
])
def test_a_year_is_a_year_only_in_its_context(text, years):
    assert [text[a:b] for a, b in year_spans(text)] == years


def test_a_pdf_citation_year_split_from_its_authors_is_the_citations(tmp_path):
    (tmp_path / "refs.bib").write_text("@article{g, title={T}, year = {2024}}\n@book{y, year={1974}}\n")
    project = SimpleNamespace(root=tmp_path, bibliography=["refs.bib", "missing.bib"])
    years = bibliography_years(project)
    assert years == {"2024", "1974"}
    text = "Grattafiori et       LLAMA3_MAX_GPUS\nal. 2024)   16,384\nup to (2048) and (2025)\n"
    assert [text[a:b] for a, b in citation_year_spans(text, years)] == ["2024"]


def test_a_value_that_looks_like_a_year_on_the_page_is_still_the_values():
    """The page shows an inline value 1979 where its neighbours make it read as a year
    ("in 1979.", "OSDI 1979"): it is matched to the value, not missing from the page."""
    from bookcheck.model import ParsedChapter
    from bookcheck.verify.audit import account
    from bookcheck.verify.audit_tokens import Value
    parsed = ParsedChapter(path="one.qmd", text="Measured in `{python} tops`.\n")
    values = [Value(["1979"], 1, "inline `{python} tops`", False)]
    assert account(parsed, "one.html", "Measured in 1979.", values) == []
    assert [f.kind for f in account(parsed, "one.html", "Measured in 1978.", values)] == ["missing-value"]


def test_a_count_beside_an_acronym_is_no_venue_year():
    assert year_spans("989 TFLOPS\n1979 TOPS | 700W") == []
    assert year_spans("OSDI 2024 evaluation") == [(5, 9)]
