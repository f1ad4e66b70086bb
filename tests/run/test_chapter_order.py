"""Writers before readers (book order) and who must be validated again (bookcheck.run.order)."""
from __future__ import annotations

from bookcheck.run import order


def test_reads_and_writes_of_a_run():
    deps = {"facts": {"path contents/shared.json": "ab", "list contents/racks": "cd",
                      "env HOME": "/root", "find .": ["ef", ["helpers"]], "dist numpy": "numpy 1"},
            "products": ["path contents/out.csv"]}
    assert order.reads_and_writes(deps) == {
        "reads": [".", "contents/racks", "contents/shared.json"], "writes": ["contents/out.csv"]}


def test_a_reader_waits_for_an_earlier_writer_and_only_for_it():
    io = {"a.qmd": {"reads": [], "writes": ["contents/shared.json"]},
          "b.qmd": {"reads": ["contents/shared.json"], "writes": []},
          "c.qmd": {"reads": ["contents"], "writes": []},          # lists the folder
          "d.qmd": {"reads": ["contents/other.json"], "writes": []}}
    assert order.predecessors(["a.qmd", "b.qmd", "c.qmd", "d.qmd"], io) == {
        "a.qmd": set(), "b.qmd": {"a.qmd"}, "c.qmd": {"a.qmd"}, "d.qmd": set()}
    # book order decides: a reader listed first runs first
    assert order.predecessors(["b.qmd", "a.qmd"], io) == {"b.qmd": set(), "a.qmd": {"b.qmd"}}
    assert order.readers_of({"a.qmd": ["contents/shared.json"]}, io) == {"b.qmd", "c.qmd"}
    assert order.readers_of({"b.qmd": []}, io) == set()


def test_a_write_in_the_root_touches_a_listing_of_the_root_only():
    assert order.touches(".", "notes.txt") and not order.touches(".", "contents/x.json")
    assert order.touches("contents", "contents/x.json") and not order.touches("contents", "contents/d/x")
