"""The baseline and the suppressions (scripts/bookcheck/verify/baseline.py): known findings are
accepted by path, kind and fingerprint (not by line), new ones stay, gone entries are
listed until pruned, a suppression needs a reason; each stage keeps its own entries."""
from __future__ import annotations

import io
import json

from bookcheck.model import Finding, Kind
from bookcheck.verify.baseline import FILE, judge
from bookcheck.verify.report import verdict_lines

TEXT = "# One\n\nSee @sec-gone here.\n\nAnd @sec-also.\n"


def _ref(line: int, label: str) -> Finding:
    return Finding("ch.qmd", line, Kind.UNKNOWN_REF, f"@{label}: no such label")


def _book(tmp_path, text: str = TEXT):
    (tmp_path / "ch.qmd").write_text(text)
    return tmp_path


def test_a_baselined_finding_stays_known_when_lines_move_above_it(tmp_path):
    root = _book(tmp_path)
    written = judge(root, [_ref(3, "sec-gone"), _ref(5, "sec-also")], mode="write")
    assert (written.active, written.entries, len(written.baselined)) == ([], 2, 2)
    _book(tmp_path, "# One\n\nNew @sec-new.\n\n" + TEXT.split("\n", 2)[2])    # two lines above
    verdict = judge(root, [_ref(3, "sec-new"), _ref(5, "sec-gone"), _ref(7, "sec-also")])
    assert verdict.active == [_ref(3, "sec-new")]
    assert [f.line for f in verdict.baselined] == [5, 7] and verdict.gone == []


def test_an_edited_line_or_message_is_a_new_finding_and_its_entry_is_gone(tmp_path):
    root = _book(tmp_path)
    judge(root, [_ref(3, "sec-gone"), _ref(5, "sec-also")], mode="write")
    _book(tmp_path, TEXT.replace("See @sec-gone here.", "See @sec-gone there."))
    verdict = judge(root, [_ref(3, "sec-gone"), _ref(5, "sec-other")])
    assert verdict.active == [_ref(3, "sec-gone"), _ref(5, "sec-other")]
    assert [(e["line"], e["message"]) for e in verdict.gone] == [
        (3, "@sec-gone: no such label"), (5, "@sec-also: no such label")]
    lines = verdict_lines(verdict, root)
    assert lines[0].startswith(f"baseline {FILE}: 0 known findings not shown (2 entries); "
                               "2 entries gone (fixed, or the line edited): `bookcheck "
                               "check --prune-baseline --root ")
    assert lines[1:] == ["  ch.qmd:3 unknown-ref: @sec-gone: no such label",
                         "  ch.qmd:5 unknown-ref: @sec-also: no such label"]


def test_prune_drops_the_gone_entries_and_accepts_nothing_new(tmp_path):
    root = _book(tmp_path)
    judge(root, [_ref(3, "sec-gone"), _ref(5, "sec-also")], mode="write")
    pruned = judge(root, [_ref(5, "sec-also"), _ref(3, "sec-new")], mode="prune")
    assert pruned.active == [_ref(3, "sec-new")] and pruned.gone == [] and pruned.entries == 1
    kept = json.loads((root / FILE).read_text())["findings"]
    assert [(e["line"], e["kind"]) for e in kept] == [(5, "unknown-ref")]


def test_the_same_finding_twice_needs_two_entries(tmp_path):
    root = _book(tmp_path, "# One\n\nSee @sec-x and @sec-x.\n")
    judge(root, [_ref(3, "sec-x")], mode="write")
    verdict = judge(root, [_ref(3, "sec-x"), _ref(3, "sec-x")])
    assert (len(verdict.baselined), verdict.active) == (1, [_ref(3, "sec-x")])


def test_numbers_lock_differences_are_never_baselined(tmp_path):
    root = _book(tmp_path)
    lock = Finding("numbers.lock", 0, Kind.LEDGER, "numbers.lock is missing")
    judge(root, [lock], mode="write")
    assert judge(root, [lock]).active == [lock]


def test_each_stage_matches_and_rewrites_only_its_own_entries(tmp_path):
    root = _book(tmp_path)
    shown = Finding("ch.qmd", 3, Kind.UNACCOUNTED_NUMBER, "the page shows '7'")
    judge(root, [shown], "html", mode="write")
    judge(root, [_ref(5, "sec-also")], mode="write")          # the check's: html's kept
    assert judge(root, [shown], "html").baselined == [shown]
    assert judge(root, []).gone[0]["kind"] == "unknown-ref"   # the html entry is not the check's
    assert [e["stage"] for e in json.loads((root / FILE).read_text())["findings"]] == [
        "check", "html"]


def test_a_baseline_that_cannot_be_written_is_a_finding(tmp_path, monkeypatch):
    from bookcheck.verify import baseline

    def refuse(path, data):
        raise PermissionError(13, "Permission denied")
    root = _book(tmp_path)
    monkeypatch.setattr(baseline, "atomic_write", refuse)
    verdict = judge(root, [_ref(3, "sec-gone")], mode="write")
    assert [(f.path, f.kind) for f in verdict.active] == [("ch.qmd", Kind.UNKNOWN_REF),
                                                           (FILE, Kind.BASELINE)]
    assert "cannot write" in verdict.active[1].reason and verdict.wrote == ""


def test_an_unreadable_baseline_is_a_finding(tmp_path):
    root = _book(tmp_path)
    (root / FILE).write_text("{not json")
    verdict = judge(root, [_ref(3, "sec-gone")])
    assert [(f.path, f.kind) for f in verdict.active] == [("ch.qmd", Kind.UNKNOWN_REF),
                                                           (FILE, Kind.BASELINE)]


SUPPRESSED = """# One <!-- bookcheck: ignore unknown-ref -- the heading's own -->

<!-- bookcheck: ignore unknown-ref -- the chapter it names is not in this excerpt -->
See @sec-gone here.

And @sec-also. <!-- bookcheck: ignore unknown-ref, leak -- written later -->

<!-- bookcheck: ignore unknown-ref -->
Then @sec-bare.

<!-- bookcheck: ignore unknown-rfe -- a typo -->
"""


def test_a_suppression_with_a_reason_on_the_line_or_the_line_above(tmp_path):
    root = _book(tmp_path, SUPPRESSED)
    verdict = judge(root, [_ref(1, "sec-h"), _ref(2, "sec-blank"), _ref(4, "sec-gone"),
                           _ref(6, "sec-also"), _ref(9, "sec-bare")], paths=["ch.qmd"])
    assert [(f.line, m.line, m.reason) for f, m in verdict.suppressed] == [
        (1, 1, "the heading's own"), (4, 3, "the chapter it names is not in this excerpt"),
        (6, 6, "written later")]
    assert verdict.active[0] == _ref(2, "sec-blank")
    verdict.active.pop(0)
    assert [(f.line, f.kind) for f in verdict.active] == [
        (9, Kind.UNKNOWN_REF), (8, Kind.SUPPRESSION), (11, Kind.SUPPRESSION)]
    assert "without a reason" in verdict.active[1].reason
    assert "no kind unknown-rfe" in verdict.active[2].reason
    assert verdict_lines(verdict)[0] == "3 suppressed in the source:"
    assert verdict_lines(verdict)[2] == ("  ch.qmd:4 unknown-ref: @sec-gone: no such label "
                                         "(suppressed at ch.qmd:3: the chapter it names is not "
                                         "in this excerpt)")


def test_a_suppression_names_the_kinds_it_suppresses(tmp_path):
    root = _book(tmp_path, SUPPRESSED)
    other = Finding("ch.qmd", 4, Kind.CELL_ERROR, "raised")
    assert judge(root, [other]).active[0] == other


def test_the_json_report_lists_what_is_accepted(tmp_path):
    from types import SimpleNamespace
    from bookcheck.verify.report import print_json
    root = _book(tmp_path, SUPPRESSED)
    judge(root, [_ref(9, "sec-bare")], mode="write")
    verdict = judge(root, [_ref(4, "sec-gone"), _ref(9, "sec-bare")], paths=["ch.qmd"])
    result = SimpleNamespace(ok=False, findings=verdict.active, verdict=verdict, runs={},
                             parsed={}, cached_chapters=0, seconds=0.0, ledger_compared=False,
                             ledger_skipped=[], notes=[],
                             project=SimpleNamespace(documents=["ch.qmd"], root=root))
    out = io.StringIO()
    print_json(result, out)
    data = json.loads(out.getvalue())
    assert [f["line"] for f in data["baselined"]] == [9]
    assert data["suppressed"][0]["suppression"] == {
        "path": "ch.qmd", "line": 3, "reason": "the chapter it names is not in this excerpt"}
    assert data["baseline"] == {"file": FILE, "entries": 1, "gone": [], "written": None}


def test_a_suppression_above_a_grid_table_covers_its_values(tmp_path):
    from bookcheck.read.qmd import parse_chapter
    text = ("# T\n\n<!-- bookcheck: ignore grid-table-inline -- converted in the next edition -->\n"
            "+-----+-----+\n| a   | b   |\n+=====+=====+\n| `{python} x` | `{python} y` |\n"
            "+-----+-----+\n\n+-----+\n| c   |\n+=====+\n| `{python} z` |\n+-----+\n")
    root = _book(tmp_path, text)
    found = [f for f in parse_chapter("ch.qmd", text).findings if f.kind == Kind.GRID_TABLE_INLINE]
    verdict = judge(root, found)
    assert [(f.line, f.col) for f, _ in verdict.suppressed] == [(7, 3), (7, 18)]
    assert [(f.line, f.within) for f in verdict.active] == [(13, 10)]    # the other table


def test_a_suppression_neither_the_check_nor_the_audit_used_is_listed(tmp_path):
    from bookcheck.verify.baseline import unused
    from bookcheck.verify.report import unused_lines
    root = _book(tmp_path, SUPPRESSED)
    check = judge(root, [_ref(4, "sec-gone")], paths=["ch.qmd"])
    audit = judge(root, [Finding("ch.qmd", 6, Kind.LEAK, "shows ?@sec-also")], "html")
    assert [m.line for m in unused(check)] == [1, 6]
    assert unused_lines(unused(check, audit)) == [
        "1 suppression matched no finding (remove it):",
        "  ch.qmd:1 unknown-ref: the heading's own"]


def test_the_old_spelling_still_suppresses_and_the_report_notes_it(tmp_path):
    """`mlsys: ignore`, the spelling before `bookcheck: ignore`, works for one more release;
    the report notes each one at its line (not a finding: nothing fails)."""
    from types import SimpleNamespace
    from bookcheck.verify.report import notes
    root = _book(tmp_path, SUPPRESSED.replace("bookcheck: ignore unknown-ref -- the chapter",
                                              "mlsys: ignore unknown-ref -- the chapter")
                 + "<!-- mlsys: ignore -- no kind -->\n")
    verdict = judge(root, [_ref(4, "sec-gone")], paths=["ch.qmd"])
    assert [(f.line, m.line) for f, m in verdict.suppressed] == [(4, 3)]
    assert notes(SimpleNamespace(notes=["a run's note"], verdict=verdict)) == [
        "a run's note", "ch.qmd:3: `mlsys: ignore` is deprecated: write `bookcheck: ignore`"]
    assert verdict.active[-1].reason.startswith("`mlsys: ignore` names no finding kind")
