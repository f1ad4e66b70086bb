"""Every kind of read a chapter can make invalidates its cached result (issue 23).

Each case adds chapter two, which decides a published number by one kind of
read; the book's numbers are accepted, then what was read changes, and the
next check must re-execute chapter two (only) and report the moved number.
A run that cannot be observed (a subprocess) is re-executed on every check and
said so once, at the line of the call.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from tests.faults.faultkit import add_chapter, cache_entries, edit, from_cache, ledger_lines, line_of

pytestmark = pytest.mark.slow


def _outside(book: Path) -> Path:
    """A folder beside the book (outside the project root)."""
    folder = book.parent / "outside"
    folder.mkdir(exist_ok=True)
    return folder


def exists_setup(book):
    pass


def exists_change(book):
    (book / "contents" / "big.flag").write_text("")


def size_setup(book):
    (book / "contents" / "blob.bin").write_bytes(b"x" * 16)


def size_change(book):
    (book / "contents" / "blob.bin").write_bytes(b"x" * 32)


def listing_setup(book):
    (book / "contents" / "racks").mkdir()
    for n in range(2):
        (book / "contents" / "racks" / f"r{n}.csv").write_text("")


def listing_change(book):
    for n in (2, 3):
        (book / "contents" / "racks" / f"r{n}.csv").write_text("")


def module_change(book):
    (book / "contents" / "overrides.py").write_text("NODES = 32\n")


def link_setup(book):
    (book / "contents" / "a.json").write_text('{"nodes": 16}')
    (book / "contents" / "b.json").write_text('{"nodes": 32}')
    (book / "contents" / "data.json").symlink_to("a.json")


def link_change(book):
    (book / "contents" / "data.json").unlink()
    (book / "contents" / "data.json").symlink_to("b.json")


def outside_link_setup(book):
    (_outside(book) / "a.json").write_text('{"nodes": 16}')
    (book / "contents" / "data.json").symlink_to(_outside(book) / "a.json")


def outside_change(book):
    (_outside(book) / "a.json").write_text('{"nodes": 32}')


def outside_setup(book):
    (_outside(book) / "a.json").write_text('{"nodes": 16}')


def rw_setup(book):
    (book / "contents" / "state.txt").write_text("16")


def rw_change(book):
    (book / "contents" / "state.txt").write_text("32")


def loose_setup(book):
    (_outside(book) / "extlib.py").write_text("NODES = 16\n")


def loose_change(book):
    (_outside(book) / "extlib.py").write_text("NODES = 32\n")


def preload_setup(book):
    init = book / "mlsys" / "__init__.py"
    init.write_text(init.read_text() + "\nimport os as _os\nBOOK_NODES = int(_os.environ.get('BOOK_NODES', '16'))\n")


CASES = {
    # id: (code deciding `nodes`, setup, change, env before, env after)
    "os.path.exists": ("import os\nnodes = 32 if os.path.exists('big.flag') else 16",
                       exists_setup, exists_change, None, None),
    "a file's size": ("import os\nnodes = os.path.getsize('blob.bin')", size_setup, size_change, None, None),
    "a glob": ("import glob\nnodes = 8 * len(glob.glob('racks/*.csv'))", listing_setup, listing_change,
               None, None),
    "a module not found": ("try:\n    from overrides import NODES as nodes\nexcept ImportError:\n    nodes = 16",
                           exists_setup, module_change, None, None),
    "a re-pointed link": ("import json\nnodes = json.load(open('data.json'))['nodes']",
                          link_setup, link_change, None, None),
    "a link out of the root": ("import json\nnodes = json.load(open('data.json'))['nodes']",
                               outside_link_setup, outside_change, None, None),
    "a file out of the root": ("import json\nnodes = json.load(open('../../outside/a.json'))['nodes']",
                               outside_setup, outside_change, None, None),
    "a file opened r+": ("with open('state.txt', 'r+') as f:\n    nodes = int(f.read())",
                         rw_setup, rw_change, None, None),
    "a loose module out of the root": ("import sys\nsys.path.insert(0, '../../outside')\n"
                                       "from extlib import NODES as nodes",
                                       loose_setup, loose_change, None, None),
    "a variable read at preload": ("from mlsys import BOOK_NODES as nodes", preload_setup, exists_setup,
                                   {"BOOK_NODES": None}, {"BOOK_NODES": "32"}),
    "a variable read by the stdlib": ("import getpass\nnodes = 4 * len(getpass.getuser())", exists_setup,
                                      exists_setup, {"LOGNAME": "abcd"}, {"LOGNAME": "abcdefgh"}),
}


def chapter(code: str) -> str:
    return f"# Two\n\n```{{python}}\n#| label: two-read\n{code}\n```\n\nThe cluster has `{{python}} nodes` nodes.\n"


@pytest.mark.parametrize("case", list(CASES))
def test_a_changed_read_moves_the_number(good_book, runner, case):
    code, setup, change, before, after = CASES[case]
    setup(good_book)
    add_chapter(good_book, chapter(code))
    accepted = runner.cli(good_book, "numbers", env=before)
    assert accepted.code == 0, accepted.output
    again = runner.cli(good_book, env=before)
    assert (again.code, from_cache(again)) == (0, 3), again.output
    change(good_book)
    result = runner.cli(good_book, env=after)
    assert result.code == 1, result.output
    assert ledger_lines(result) == ["contents/two.qmd · nodes: 16 → 32"], result.output
    # what the fork server's preload read is a fact of every chapter (all re-run)
    assert from_cache(result) == (0 if case == "a variable read at preload" else 2), result.output


SUBPROCESS = "import subprocess\nout = subprocess.run(['wc', '-l', 'hosts.txt'], capture_output=True, text=True)\n" \
             "nodes = int(out.stdout.split()[0])"


def test_without_the_interposer_a_subprocess_makes_the_run_opaque_until_its_inputs_are_declared(good_book, runner):
    """Where the interposer cannot be built (here: switched off), Python's hooks cannot
    see a child's reads: the run is re-executed on every check until declared."""
    fallback = {"CHECKER_INTERPOSE": "0"}
    (good_book / "contents" / "hosts.txt").write_text("h\n" * 16)
    two = add_chapter(good_book, chapter(SUBPROCESS))
    accepted = runner.cli(good_book, "numbers", env=fallback)
    assert accepted.code == 0, accepted.output
    for _ in range(2):                  # nothing changed: re-run anyway, said once, at the call
        text = runner.cli(good_book, "check", env=fallback)
        assert (text.code, from_cache(text)) == (0, 2), text.output
    plain = _text_check(runner, good_book, fallback)
    line = line_of(two, "subprocess.run(")
    notes = [n for n in plain.splitlines() if n.startswith("note:")]
    assert notes == [f"note: contents/two.qmd:{line}: re-run on every check (opaque: starts a "
                     "subprocess (wc ['wc', '-l', 'hosts.txt'])); list what it reads under "
                     "`cache-inputs:` to cache it"], plain
    (good_book / "contents" / "hosts.txt").write_text("h\n" * 32)
    moved = runner.cli(good_book, env=fallback)
    assert ledger_lines(moved) == ["contents/two.qmd · nodes: 16 → 32"], moved.output
    # declared: cached, and the declared file still decides
    edit(two, "# Two\n", "---\ncache-inputs: [hosts.txt]\n---\n\n# Two\n")
    (good_book / "contents" / "hosts.txt").write_text("h\n" * 16)
    assert runner.cli(good_book, env=fallback).code == 0
    assert from_cache(runner.cli(good_book, env=fallback)) == 3
    (good_book / "contents" / "hosts.txt").write_text("h\n" * 32)
    moved = runner.cli(good_book, env=fallback)
    assert (ledger_lines(moved), from_cache(moved)) == (["contents/two.qmd · nodes: 16 → 32"], 2), moved.output


def _text_check(runner, book, env=None) -> str:
    import subprocess
    proc = subprocess.run(runner.argv(book, "check"), cwd=Path(__file__).resolve().parents[2],
                          env=runner.env("text", env), capture_output=True, text=True, timeout=240)
    return proc.stdout


def test_an_input_the_run_changes_is_never_stored(good_book, runner):
    """The snapshot is of the first read: an input that differs at the end (here the
    chapter rewrites it; an editor saving mid-run is the same to the observer) is not cached."""
    (good_book / "contents" / "count.txt").write_text("16")
    add_chapter(good_book, chapter("nodes = int(open('count.txt').read())\n"
                                   "_ = open('count.txt', 'a').write('0')"))
    first = runner.cli(good_book)
    second = runner.cli(good_book)
    assert from_cache(first) == 2 and from_cache(second) == 2, second.output
    assert (good_book / "contents" / "count.txt").read_text() == "1600"


def test_the_whole_environment_read_is_reused_across_shell_variables(good_book, runner):
    add_chapter(good_book, chapter("import os\nnodes = 16 * len([k for k in dict(os.environ) "
                                   "if k.startswith('BOOK_')])"))
    fixed = {"FAULTS_RUN_MARKER": "fixed", "BOOK_A": "1"}
    accepted = runner.cli(good_book, "numbers", env={**fixed, "PWD": "/a", "OLDPWD": "/b", "_": "/c",
                                                     "SHLVL": "1"})
    assert accepted.code == 0, accepted.output
    again = runner.cli(good_book, env={**fixed, "PWD": "/x", "OLDPWD": "/y", "_": "/z", "SHLVL": "3"})
    assert (again.code, from_cache(again)) == (0, 3), again.output
    moved = runner.cli(good_book, env={**fixed, "BOOK_B": "2"})
    assert ledger_lines(moved) == ["contents/two.qmd · nodes: 16 → 32"], moved.output


def test_a_malformed_quarto_yml_prunes_nothing(good_book, runner):
    entries = sorted(p.name for p in cache_entries(good_book))
    assert len(entries) == 2            # the index and chapter one
    edit(good_book / "_quarto.yml", "  chapters:\n", "  chapters: [\n")
    broken = runner.cli(good_book)
    assert broken.code != 0, broken.output
    assert sorted(p.name for p in cache_entries(good_book)) == entries
    edit(good_book / "_quarto.yml", "  chapters: [\n", "  chapters:\n")
    assert from_cache(runner.cli(good_book)) == 2


WRITER = "# Two\n\n```{python}\nimport json\nwith open('shared.json', 'w') as f:\n    json.dump({'nodes': 16}, f)\n```\n"
READER = ("# Three\n\n```{python}\nimport json\n" + "\n".join(f"pad{n} = {n}" for n in range(40)) +
          "\nwith open('shared.json') as f:\n    nodes = json.load(f)['nodes']\n```\n\n"
          "The cluster has `{python} nodes` nodes.\n")


def test_a_reader_runs_after_its_writer_and_is_validated_again(good_book, runner):
    """The reader is longer (it would start first) and comes after the writer in book
    order: on a fresh clone it must not fail, and a changed writer moves its number."""
    two = add_chapter(good_book, WRITER)
    edit(good_book / "_quarto.yml", "    - contents/two.qmd", "    - contents/two.qmd\n    - contents/three.qmd")
    (good_book / "contents" / "three.qmd").write_text(READER)
    fresh = runner.cli(good_book, "numbers")
    assert fresh.code == 0, fresh.output
    assert from_cache(runner.cli(good_book)) == 4
    edit(two, "{'nodes': 16}", "{'nodes': 32}")
    moved = runner.cli(good_book)
    assert ledger_lines(moved) == ["contents/three.qmd · nodes: 16 → 32"], moved.output
    assert from_cache(moved) == 2, moved.output
    (good_book / "contents" / "shared.json").unlink()       # a product gone: its writer runs again
    edit(two, "{'nodes': 32}", "{'nodes': 16}")
    restored = runner.cli(good_book)
    assert (restored.code, ledger_lines(restored)) == (0, []), restored.output


def test_the_audit_names_a_chapter_the_cache_would_serve_stale(good_book, runner):
    """TZ is read by the C library, where the observer cannot see it: the cache serves
    the old number, and the audit says so (then repairs the entry)."""
    two = add_chapter(good_book, chapter("import time\nnodes = 16 if time.localtime(0).tm_hour == 0 else 32"))
    accepted = runner.cli(good_book, "numbers", env={"TZ": "UTC0"})
    assert accepted.code == 0, accepted.output
    stale = runner.cli(good_book, env={"TZ": "JST-9"})
    assert (stale.code, from_cache(stale)) == (0, 3), stale.output      # what the audit is for
    audited = runner.cli(good_book, "check", "--audit", env={"TZ": "JST-9"})
    assert audited.code == 1, audited.output
    f = audited.only("stale-cache")
    lines = two.read_text().split("\n")
    inline_line = 1 + next(i for i, line in enumerate(lines) if "{python} nodes" in line)
    assert (f.path, f.line) == ("contents/two.qmd", inline_line)
    assert f.reason.startswith("the cache would have served a stale result: `{python} nodes` "
                               "would show '16', runs to '32'; every input the observer saw is "
                               "unchanged, and a second run gives the same result"), f.reason
    assert ledger_lines(audited) == ["contents/two.qmd · nodes: 16 → 32"], audited.output
    repaired = runner.cli(good_book, "check", "--audit", env={"TZ": "JST-9"})    # entry replaced
    assert (repaired.kinds(), from_cache(repaired)) == ({"ledger"}, 0), repaired.output
