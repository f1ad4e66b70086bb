"""Sharded checks: the plan, and merged shards == one unsharded run (N = 1..5)."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

from bookcheck import store
from bookcheck.model import Kind
from booktools import synth_book
from bookcheck.verify import ledger
from bookcheck.verify.check import check_book
from bookcheck.verify import shard as sh
from bookcheck.verify.sharding import check_shard, merge

CHAPTERS = 7        # + index.qmd: 8 documents, small enough for CI


# ------------------------------------------------------------------ the plan

def test_shard_spec_parses_and_rejects():
    assert sh.Shard.parse("2/4") == sh.Shard(2, 4)
    for bad in ("0/3", "4/3", "x/2", "2", "1/2/3", "-1/2"):
        with pytest.raises(sh.ShardError):
            sh.Shard.parse(bad)


def test_plan_is_longest_first_to_least_loaded():
    docs = ["a", "b", "c", "d", "e"]
    costs = {"a": 1, "b": 5, "c": 4, "d": 3, "e": 3}
    # b->0, c->1, d->1? no: loads (5,4) -> d to shard 1 (4<5) -> (5,7); e -> shard 0 -> (8,7); a -> 1
    assert sh.plan(docs, costs, 2) == [["b", "e"], ["a", "c", "d"]]
    assert sh.plan(docs, costs, 1) == [docs]
    assert sh.plan(docs, costs, 7)[5:] == [[], []]


def test_plan_ties_keep_book_order():
    docs = ["x", "y", "z", "w"]
    assert sh.plan(docs, dict.fromkeys(docs, 1.0), 2) == [["x", "z"], ["y", "w"]]


def test_costs_use_recorded_times_and_price_missing_ones_per_byte(tmp_path):
    for name, size in (("a.qmd", 100), ("b.qmd", 300), ("c.qmd", 200)):
        (tmp_path / name).write_text("x" * size)
    docs = ["a.qmd", "b.qmd", "c.qmd"]
    assert sh.chapter_costs(tmp_path, docs, {}) == {"a.qmd": 100, "b.qmd": 300, "c.qmd": 200}
    costs = sh.chapter_costs(tmp_path, docs, {"a.qmd": 4.0, "b.qmd": 2.0})
    assert costs["a.qmd"] == 4.0 and costs["b.qmd"] == 2.0
    assert costs["c.qmd"] == pytest.approx(200 * 6.0 / 400)
    # recorded times win over sizes: the small slow chapter is now the big one
    assert sh.plan(docs, costs, 2) == [["a.qmd"], ["b.qmd", "c.qmd"]]


def test_timings_round_trip_and_tolerate_garbage(tmp_path):
    assert sh.load_timings(tmp_path) == {}
    sh.save_timings(tmp_path, {"a.qmd": 1.5})
    sh.save_timings(tmp_path, {"b.qmd": 2})
    assert sh.load_timings(tmp_path) == {"a.qmd": 1.5, "b.qmd": 2.0}
    (store.Store(tmp_path, sh.SHARDS).dir / sh.TIMINGS).write_text("{not json")
    assert sh.load_timings(tmp_path) == {}


# --------------------------------------------------- merge == unsharded run

@pytest.fixture(scope="module")
def planted(tmp_path_factory):
    """A small synthetic book with a failing check(), an unknown and a cross-shard
    reference, a label defined twice and a moved number in numbers.lock; and the
    result of one unsharded run of it."""
    root = tmp_path_factory.mktemp("shardbook")
    synth_book.write_book(root, CHAPTERS, mlsys="link")
    def append(n: int, text: str) -> None:
        path = root / f"contents/ch{n:02d}.qmd"
        path.write_text(path.read_text(encoding="utf-8") + "\n" + text + "\n", encoding="utf-8")
    append(3, '```{python}\ncheck(node_mtbf_hours > 1e9, "planted: nodes never fail")\n```')
    append(5, "A planted reference to @sec-nowhere.")
    append(6, "The first chapter's table, @tbl-ch1-mtbf, is defined in another shard.")
    append(7, "## The first chapter again {#sec-ch1}")
    append(2, "A planted literal: the cluster had 4096 spare GPUs.")
    with open(root / "_quarto.yml", "a", encoding="utf-8") as config:
        config.write("verify:\n  literal-numbers: true\n  fig-alt: true\n")   # text checks
    append(4, '```{python}\n#| label: fig-ch4-planted\n#| fig-cap: "No alt text"\nx_planted = 1\n```')
    first = check_book(root)
    new = {}
    for rel, parsed in first.parsed.items():
        new.update(ledger.collect(parsed, first.runs[rel]))
    moved = next(k for k in sorted(new) if "ch04" in k.split(ledger.SEP, 1)[0])
    ch03 = next(k for k in sorted(new) if "ch03" in k.split(ledger.SEP, 1)[0])
    lock = dict(new, **{moved: "planted old value", ch03: "ignored: ch03 failed"})
    ledger.write(root / ledger.LOCK_NAME, lock)
    expected = check_book(root)
    return root, expected, moved


def test_the_planted_book_fails_as_intended(planted):
    root, expected, moved = planted
    kinds = sorted({f.kind for f in expected.findings})
    assert kinds == [Kind.DUPLICATE_LABEL, Kind.FIG_ALT, Kind.INVARIANT, Kind.LEDGER,
                     Kind.LITERAL_NUMBER, Kind.UNKNOWN_REF]
    literal = [f for f in expected.findings if f.kind == Kind.LITERAL_NUMBER]
    assert any(f.path == "contents/ch02.qmd" and "4096" in f.reason for f in literal)
    assert len({f.path for f in literal}) > 1        # from several chapters, hence shards
    (ledger_finding,) = [f for f in expected.findings if f.kind == Kind.LEDGER]
    assert ledger_finding.reason.startswith(f"{moved}: planted old value → ")
    (dup,) = [f for f in expected.findings if f.kind == Kind.DUPLICATE_LABEL]
    assert dup.path == "contents/ch07.qmd" and "contents/ch01.qmd" in dup.reason
    assert expected.ledger_skipped == ["contents/ch03.qmd"]


@pytest.mark.parametrize("count", [1, 2, 3, 4, 5])
def test_merged_shards_equal_one_run(planted, tmp_path, count):
    root, expected, _ = planted
    paths = []
    assigned = []
    for index in range(1, count + 1):
        outcome = check_shard(root, sh.Shard(index, count), out=tmp_path / f"s{index}.json")
        paths.append(outcome.path)
        assigned.append(outcome.chapters)
    assert sorted(sum(assigned, [])) == sorted(expected.parsed)
    merged = merge(root, list(reversed(paths)))         # order of the files does not matter
    assert merged.findings == expected.findings
    assert {type(f.kind) for f in merged.findings} == {Kind}     # rebuilt from the JSON
    assert merged.ok is False
    assert merged.ledger_skipped == expected.ledger_skipped
    assert merged.chapters == len(expected.parsed)
    assert merged.invariants == sum(r.invariants for r in expected.runs.values())


def test_cross_shard_pairs_are_split_for_some_n(planted, tmp_path):
    """Guard for the test above: with the size plan the pairs land in different shards."""
    root, expected, _ = planted
    docs = list(expected.parsed)
    split = set()
    for count in (2, 3, 4, 5):
        shards = sh.plan(docs, sh.chapter_costs(root, docs, {}), count)
        where = {rel: n for n, chapters in enumerate(shards) for rel in chapters}
        if where["contents/ch01.qmd"] != where["contents/ch07.qmd"]:
            split.add(("dup", count))
        if where["contents/ch01.qmd"] != where["contents/ch06.qmd"]:
            split.add(("ref", count))
    assert {kind for kind, _ in split} == {"dup", "ref"}


@pytest.mark.slow
def test_a_shard_that_executes_leaves_its_siblings_plan_alone(planted, tmp_path):
    """Shards run one after another on one machine still share one plan: a shard
    does not record chapter times (the merge does, for the next plan)."""
    root, expected, _ = planted
    sh.save_timings(root, {rel: 1.0 + n for n, rel in enumerate(expected.parsed)})
    timings = sh.load_timings(root)
    one = check_shard(root, sh.Shard(1, 2), force=True, out=tmp_path / "1.json")
    assert sh.load_timings(root) == timings
    two = check_shard(root, sh.Shard(2, 2), out=tmp_path / "2.json")
    assert merge(root, [one.path, two.path]).findings == expected.findings
    assert sh.load_timings(root) != timings          # the merge recorded the new times


def test_merge_rejects_incomplete_or_mixed_sets(planted, tmp_path):
    root, _, _ = planted
    one = check_shard(root, sh.Shard(1, 3), out=tmp_path / "a.json").path
    two = check_shard(root, sh.Shard(2, 3), out=tmp_path / "b.json").path
    with pytest.raises(sh.ShardError, match="missing shard 3/3"):
        merge(root, [one, two])
    with pytest.raises(sh.ShardError, match="also in"):
        merge(root, [one, one])
    other = check_shard(root, sh.Shard(1, 2), out=tmp_path / "c.json").path
    with pytest.raises(sh.ShardError, match="another plan"):
        merge(root, [one, other])
    bad = tmp_path / "bad.json"
    bad.write_text("{}")
    with pytest.raises(sh.ShardError, match="bad.json: not a partial result"):
        merge(root, [bad])
    data = json.loads(one.read_text(encoding="utf-8"))      # a kind this checker does not know
    next(iter(data["chapters"].values()))["findings"].append(
        {"path": "x.qmd", "line": 1, "kind": "no-such-kind", "reason": "?"})
    bad.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(sh.ShardError, match="bad.json: 'no-such-kind' is not a valid Kind"):
        sh.read_partial(bad)                            # as the merge reads each partial


def test_command_line_shards_and_merge(planted, tmp_path):
    root, expected, _ = planted
    env_cmd = [sys.executable, "-m", "bookcheck"]
    for index in (1, 2):
        done = subprocess.run([*env_cmd, "check", "--root", str(root), "--shard", f"{index}/2"],
                              capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        assert f"shard {index}/2" in done.stdout
    partials = sorted((store.build_dir(root) / sh.SHARDS).glob("shard-*-of-2.json"))
    assert len(partials) == 2
    json.loads(partials[0].read_text())
    done = subprocess.run([*env_cmd, "merge", "--root", str(root), *map(str, partials)],
                          capture_output=True, text=True)
    assert done.returncode == 1
    assert "contents/ch05.qmd" in done.stdout and "unknown-ref" in done.stdout
    assert "FAILED" in done.stdout.splitlines()[-1]


# ------------------------------------------- what was checked, and stale files

def _other_tree(root, tmp_path):
    """A copy of the planted book whose ch05 prose differs (same size, so same plan)."""
    import shutil
    other = tmp_path / "other-tree"
    shutil.copytree(root, other, symlinks=True)
    path = other / "contents/ch05.qmd"
    text = path.read_text(encoding="utf-8")
    assert "planted reference" in text
    path.write_text(text.replace("planted reference", "Planted reference"), encoding="utf-8")
    return other


def test_partials_of_two_source_trees_never_merge(planted, tmp_path):
    """Each tree fails on its own; half of each must not merge into one verdict."""
    root, _, _ = planted
    other = _other_tree(root, tmp_path)
    mine = check_shard(root, sh.Shard(1, 2), out=tmp_path / "mine-1.json")
    theirs = check_shard(other, sh.Shard(2, 2), out=tmp_path / "theirs-2.json")
    assert json.loads(mine.path.read_text())["plan"] == json.loads(theirs.path.read_text())["plan"]
    with pytest.raises(sh.ShardError, match=r"theirs-2\.json: checked another source tree "
                                            r"\(files that differ: contents/ch05\.qmd\)"):
        merge(root, [mine.path, theirs.path])
    with pytest.raises(sh.ShardError, match=r"different source trees \(files that differ: "
                                            r"contents/ch05\.qmd\)"):
        sh.pick(sh.read_all([mine.path, theirs.path]), {})     # a third tree merges
    # a complete set of one tree is refused by a merge in the other tree
    theirs_1 = check_shard(other, sh.Shard(1, 2), out=tmp_path / "theirs-1.json")
    with pytest.raises(sh.ShardError, match=r"theirs-1\.json: checked another source tree than "
                                            r"this project \(files that differ: "
                                            r"contents/ch05\.qmd\)"):
        merge(root, [theirs_1.path, theirs.path])
    done = subprocess.run([sys.executable, "-m", "bookcheck", "merge", "--root", str(root),
                           str(mine.path), str(theirs.path)], capture_output=True, text=True)
    assert done.returncode == 2, done.stderr
    assert done.stdout == "" and "contents/ch05.qmd" in done.stderr
    assert "Traceback" not in done.stderr


def test_stale_partials_of_another_n_are_set_aside_by_name(planted, tmp_path):
    root, expected, _ = planted
    stale = [check_shard(root, sh.Shard(i, 3), out=tmp_path / f"shard-{i}-of-3.json").path
             for i in (1, 2)]
    fresh = [check_shard(root, sh.Shard(i, 2), out=tmp_path / f"shard-{i}-of-2.json").path
             for i in (1, 2)]
    merged = merge(root, stale + fresh)
    assert merged.findings == expected.findings
    assert merged.set_aside == stale
    done = subprocess.run([sys.executable, "-m", "bookcheck", "merge", "--root", str(root),
                           *map(str, stale + fresh)], capture_output=True, text=True)
    assert done.returncode == 1, done.stderr
    assert done.stderr == (f"note: set aside 2 partials of another plan or source tree "
                           f"(stale; delete them): {stale[0]}, {stale[1]}\n")
    # without a complete set the message names the stale files to delete
    with pytest.raises(sh.ShardError, match=r"shard-1-of-2\.json: come from another plan .* "
                                            r"delete the stale partials"):
        merge(root, [stale[0], fresh[0]])


@pytest.mark.kernel
def test_merged_shards_of_a_website_equal_one_run(tmp_path):
    """A website's per-page references, through the partials (the heading Quarto makes
    a page's title travels with them)."""
    cell = "```{python}\nx = 1\n```\n"
    root = tmp_path / "site"
    root.mkdir()
    (root / "_quarto.yml").write_text("project:\n  type: website\n", encoding="utf-8")
    (root / "index.qmd").write_text("# Home\n\nSee @sec-b and @fig-a.\n", encoding="utf-8")
    (root / "a.qmd").write_text("# A\n\n![Dot](dot.png){#fig-a}\n", encoding="utf-8")
    (root / "dot.png").write_text("png", encoding="utf-8")
    (root / "b.qmd").write_text(f"# B {{#sec-b}}\n\n{cell}\nSee @sec-b.\n", encoding="utf-8")
    expected = check_book(root)
    assert sorted((f.path, f.kind) for f in expected.findings) == [
        ("b.qmd", "website-ref"), ("index.qmd", "website-ref"), ("index.qmd", "website-ref")]
    paths = [check_shard(root, sh.Shard(i, 2), out=tmp_path / f"s{i}.json").path for i in (1, 2)]
    assert merge(root, paths).findings == expected.findings
