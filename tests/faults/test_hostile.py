"""Hostile and odd input, round three: each case runs the real checker on a small
book and asserts the exit status, the finding's path:line and kind, and that
nothing was half-written (numbers.lock, _book/, cache, temp files, processes)."""
from __future__ import annotations

import pytest

from tests.faults.faultkit import assert_consistent_after_failure, disk_state, edit, line_of

pytestmark = pytest.mark.slow


def chapter(book):
    return book / "contents" / "one.qmd"


def append(path, text: str) -> None:
    path.write_text(path.read_text(encoding="utf-8") + text, encoding="utf-8")


def check_fails(runner, book, kind, *extra):
    before = disk_state(book)
    result = runner.cli(book, "check", *extra)
    assert result.code == 1, result.output
    return before, result, result.only(kind)


# ------------------------------------------------------------ includes

def test_include_of_a_symlink_out_of_the_project_is_refused(good_book, runner, tmp_path):
    secret = tmp_path / "outside.txt"
    secret.write_text("TOP-SECRET-HOSTNAME\n")
    (good_book / "contents" / "parts").mkdir()
    (good_book / "contents" / "parts" / "evil.qmd").symlink_to(secret)
    append(chapter(good_book), "\n{{< include parts/evil.qmd >}}\n")
    before, result, f = check_fails(runner, good_book, "include")
    assert (f.path, f.line, f.col) == ("contents/one.qmd",
                                       line_of(chapter(good_book), "evil.qmd"), 1)
    assert f.reason == f"include escapes the project: parts/evil.qmd (a symlink to {secret})"
    assert "TOP-SECRET" not in result.stdout + result.stderr      # never read
    assert_consistent_after_failure(runner, good_book, before, result)


@pytest.mark.parametrize("quote", ['"', "'"])
def test_include_of_a_quoted_path_with_a_space_is_expanded(good_book, runner, quote):
    included = good_book / "contents" / "a b.qmd"
    included.write_text("Included text.\n\n```{python}\ncheck(cluster > node_mtbf, "
                        "\"planted: inside the included file\")\n```\n", encoding="utf-8")
    append(chapter(good_book), f"\n{{{{< include {quote}a b.qmd{quote} >}}}}\n")
    before, result, f = check_fails(runner, good_book, "invariant")
    assert (f.path, f.line) == ("contents/a b.qmd", 4)
    assert "planted: inside the included file" in f.reason
    assert_consistent_after_failure(runner, good_book, before, result)


def test_malformed_include_is_reported_not_published(good_book, runner):
    append(chapter(good_book), '\n{{< include "a b.qmd >}}\n')
    before, result, f = check_fails(runner, good_book, "include")
    assert (f.path, f.line, f.col) == ("contents/one.qmd",
                                       line_of(chapter(good_book), "a b.qmd"), 1)
    assert f.reason.startswith('malformed include: {{< include "a b.qmd >}}')
    assert_consistent_after_failure(runner, good_book, before, result)


# ------------------------------------------------- Quarto compatibility

BOM = b"\xef\xbb\xbf"


def test_bom_before_front_matter_keeps_the_front_matter(good_book, runner):
    """`execute: enabled: false` behind a BOM is honoured: the raising cell never runs."""
    from tests.faults.faultkit import add_chapter
    add_chapter(good_book, BOM + b"---\ntitle: \"Two\"\nexecute:\n  enabled: false\n---\n\n"
                b"# Two {#sec-two}\n\n```{python}\nraise RuntimeError('planted: ran')\n```\n")
    before = disk_state(good_book)
    result = runner.cli(good_book)
    assert result.code == 0, result.output
    assert result.findings == []
    assert disk_state(good_book) == before


def test_bom_before_malformed_front_matter_is_reported_at_its_line(good_book, runner):
    from tests.faults.faultkit import add_chapter
    add_chapter(good_book, BOM + b"---\ntitle: \"Two\"\nexecute: [unclosed\n---\n\n"
                b"# Two {#sec-two}\n\nSome prose.\n")
    before, result, f = check_fails(runner, good_book, "front-matter")
    assert (f.path, f.line) == ("contents/two.qmd", 3)
    assert f.reason.startswith("malformed YAML front matter")
    assert_consistent_after_failure(runner, good_book, before, result)


def test_chapter_file_names_are_percent_encoded_in_html_links(good_book, runner):
    """`contents/#hash [x].qmd`: every link to its page (sidebar, pager, cross-reference)
    reaches the file, and every relative link of every page resolves."""
    import re
    from urllib.parse import unquote, urlsplit
    from tests.faults.faultkit import add_chapter
    add_chapter(good_book, "# Odd name {#sec-odd}\n\nBack to @sec-one.\n", rel="contents/#hash [x].qmd")
    edit(chapter(good_book), "Sixteen nodes", "See @sec-odd. Sixteen nodes")
    result = runner.cli(good_book, "html")
    assert result.code == 0, result.output
    out = good_book / "_book"
    odd = out / "contents" / "#hash [x].html"
    assert odd.is_file()
    one = (out / "contents" / "one.html").read_text(encoding="utf-8")
    assert 'href="%23hash%20%5Bx%5D.html"' in one                 # sidebar / pager
    assert 'href="%23hash%20%5Bx%5D.html#sec-odd"' in one         # the cross-reference
    checked = 0
    for page in out.rglob("*.html"):
        for href in re.findall(r'href="([^"]+)"', page.read_text(encoding="utf-8")):
            url = urlsplit(href)
            if url.scheme or not url.path or href.startswith("data:"):
                continue
            target = (page.parent / unquote(url.path)).resolve()
            assert target.exists(), f"{page.relative_to(out)}: broken link {href}"
            checked += 1
    assert checked > 10


@pytest.mark.parametrize("where", ["front matter", "project"])
def test_unknown_jupyter_kernel_is_an_error(good_book, runner, where):
    """Quarto stops on `jupyter: nosuchkernel`; the checker must not run python3 instead."""
    one = chapter(good_book)
    if where == "front matter":
        one.write_text("---\ntitle: One\njupyter: nosuchkernel\n---\n\n"
                       + one.read_text(encoding="utf-8"), encoding="utf-8")
        expected = ("contents/one.qmd", 3)
    else:
        with open(good_book / "_quarto.yml", "a", encoding="utf-8") as config:
            config.write("jupyter: nosuchkernel\n")
        expected = ("_quarto.yml", line_of(good_book / "_quarto.yml", "jupyter:"))
    edit(one, "cluster_str = fmt(", "open('RAN', 'w').close()\ncluster_str = fmt(")
    before, result, f = check_fails(runner, good_book, "kernel", "--force")
    assert (f.path, f.line) == expected
    assert f.reason.startswith("no Jupyter kernel named 'nosuchkernel' is installed (installed: ")
    assert f.reason.endswith("): install it or write `jupyter: python3`")
    assert not (good_book / "contents" / "RAN").exists()           # nothing ran
    assert_consistent_after_failure(runner, good_book, before, result)


def test_jupyter_python3_still_runs(good_book, runner):
    one = chapter(good_book)
    one.write_text("---\njupyter: python3\n---\n\n" + one.read_text(encoding="utf-8"),
                   encoding="utf-8")
    result = runner.cli(good_book)
    assert result.code == 0, result.output


# ------------------------------------------------------------ right blame

INNOCENT = """# Innocent {#sec-innocent}

```{python}
import os, time
for _ in range(600):                    # still running when the other chapter strikes
    if os.path.exists("../STRUCK"):
        break
    time.sleep(0.05)
time.sleep(2.5)                         # long enough for a kernel that dies with the server
innocent_str = "fine"
```

The innocent chapter is `{python} innocent_str`.
"""

KILLER = """# Killer {{#sec-killer}}

```{{python}}
import os, signal, subprocess
try:
    {strike}
finally:
    open("../STRUCK", "w").close()
```
"""


@pytest.mark.parametrize("strike", ["os.kill(os.getppid(), signal.SIGKILL)",
                                    "subprocess.run(['kill', '-9', str(os.getppid())])"])
def test_a_chapter_killing_the_fork_server_is_blamed_not_its_neighbour(good_book, runner, strike):
    from tests.faults.faultkit import add_chapter
    add_chapter(good_book, INNOCENT, rel="contents/innocent.qmd")
    killer = add_chapter(good_book, KILLER.format(strike=strike), rel="contents/killer.qmd")
    before = disk_state(good_book)
    result = runner.cli(good_book, "check", "--jobs", "4")
    assert "kernel-died" not in result.kinds(), result.output
    assert not [f for f in result.findings if f.path == "contents/innocent.qmd"], result.output
    assert (good_book / "STRUCK").exists()
    if strike.startswith("os.kill"):            # refused where it is written
        assert result.code == 1, result.output
        f = result.only("cell-error")
        assert (f.path, f.line) == ("contents/killer.qmd", line_of(killer, "os.kill("))
        assert "PermissionError: a chapter may not signal process" in f.reason
    else:                                       # done behind Python's back: nobody else hurt
        assert result.kinds() <= {"ledger"}, result.output
    (good_book / "STRUCK").unlink()
    assert disk_state(good_book) == before
    from tests.faults.faultkit import assert_no_leftovers
    assert_no_leftovers(runner, result.marker)


@pytest.mark.parametrize("target", ["numbers.lock", "_quarto.yml", "contents/one.qmd",
                                    "_quarto.yml.local"])
def test_a_cell_that_rewrites_a_control_file_is_a_finding(good_book, runner, target):
    """The check must not pass while `git diff` shows a control file the run changed (or
    created: a `_quarto.yml.local` is merged over _quarto.yml by the next render)."""
    edit(chapter(good_book), "cluster_str = fmt(",
         f"with open('../{target}', 'a') as _f:\n    _f.write('\\n# planted\\n')\ncluster_str = fmt(")
    existed = (good_book / target).exists()
    written = (good_book / target).read_bytes() if existed else b""
    result = runner.cli(good_book, "check", "--force")
    assert result.code == 1, result.output
    f = result.only("control")
    assert (f.path, f.line) == (target, 0)
    verb = "changed" if existed else "created"
    assert f.reason.startswith(f"{target} was {verb} while the chapters ran: a cell must not "
                               f"write the project's control files")
    assert (good_book / target).read_bytes() == written + b"\n# planted\n"   # never "restored"
    from tests.faults.faultkit import assert_no_leftovers
    assert_no_leftovers(runner, result.marker)


def test_make_numbers_refuses_while_a_cell_rewrites_the_lock(good_book, runner):
    edit(chapter(good_book), "cluster_str = fmt(",
         "with open('../numbers.lock', 'w') as _f:\n    _f.write('')\ncluster_str = fmt(")
    result = runner.cli(good_book, "numbers", "--force")
    assert result.code == 1, result.output
    assert result.only("control").path == "numbers.lock"
    assert (good_book / "numbers.lock").read_bytes() == b""     # the cell's write, not ours


# ------------------------------------------------------ messages, robustness

def move_a_number(book) -> tuple[str, str]:
    """Change the recorded value of `cluster_str` in numbers.lock; (old, real) values."""
    lock = book / "numbers.lock"
    lines = lock.read_text(encoding="utf-8").split("\n")
    (n,) = [i for i, line in enumerate(lines) if line.startswith("contents/one.qmd · cluster_str\t")]
    real = lines[n].split("\t", 1)[1]
    lines[n] = "contents/one.qmd · cluster_str\t999.9"
    lock.write_text("\n".join(lines), encoding="utf-8")
    return "999.9", real


def text_cli(runner, book, *extra, env=None):
    import subprocess
    import uuid
    from tests.faults.faultkit import REPO
    return subprocess.run(runner.argv(book, "check", *extra), cwd=str(REPO),
                          env=runner.env(uuid.uuid4().hex, env), capture_output=True,
                          timeout=240)


@pytest.mark.parametrize("encoding", ["ascii", "latin-1"])
def test_report_prints_what_an_ascii_terminal_can_encode(good_book, runner, encoding):
    old, real = move_a_number(good_book)
    before = disk_state(good_book)
    done = text_cli(runner, good_book, env={"PYTHONIOENCODING": encoding})
    stdout, stderr = done.stdout.decode(encoding), done.stderr.decode(encoding)
    assert done.returncode == 1, stdout + stderr
    assert "Traceback" not in stderr and "UnicodeEncodeError" not in stderr
    dot = "·" if encoding == "latin-1" else "|"          # what the encoding has
    assert (f"1 published number differs from numbers.lock (`bookcheck numbers` accepts it):\n"
            f"  contents/one.qmd {dot} cluster_str: {old} -> {real}\n") in stdout
    assert stdout.splitlines()[-1].startswith("FAILED: 2 chapters checked")
    assert disk_state(good_book) == before
    done = text_cli(runner, good_book, "--json", env={"PYTHONIOENCODING": encoding})
    import json
    report = json.loads(done.stdout.decode("ascii"))
    (f,) = report["findings"]
    assert (f["path"], f["kind"], f["message"]) == ("numbers.lock", "ledger",
                                                    f"contents/one.qmd · cluster_str: {old} → {real}")


def test_numbers_lock_that_is_a_fifo_is_refused_not_waited_on(good_book, runner):
    import os
    lock = good_book / "numbers.lock"
    lock.unlink()
    os.mkfifo(lock)
    result = runner.cli(good_book, timeout=90)         # a hang fails here
    assert result.code == 1, result.output
    f = result.only("ledger")
    assert (f.path, f.line) == ("numbers.lock", 0)
    assert f.reason == ("cannot read numbers.lock (OSError: numbers.lock is not a regular file "
                        "(a FIFO)); fix it or run `bookcheck numbers`")
    assert lock.is_fifo()                               # untouched
    numbers = runner.cli(good_book, "numbers", timeout=120)   # the advertised fix works
    assert numbers.code == 0, numbers.output
    assert lock.is_file() and not lock.is_fifo()


def _lock_lines(book):
    return (book / "numbers.lock").read_text(encoding="utf-8").split("\n")


def _rewrite_lock(book, change):
    lines = _lock_lines(book)
    (n,) = [i for i, line in enumerate(lines) if line.startswith("contents/one.qmd · cluster_str\t")]
    lines[n] = change(lines[n])
    (book / "numbers.lock").write_text("\n".join(lines), encoding="utf-8")
    return n + 1, lines[n].split("\t", 1)[1].strip()


def test_ledger_diff_shows_a_trailing_space(good_book, runner):
    line, value = _rewrite_lock(good_book, lambda text: text + " ")
    before, result, f = check_fails(runner, good_book, "ledger")
    assert (f.path, f.line) == ("numbers.lock", line)
    assert f.reason == f'contents/one.qmd · cluster_str: "{value} " → "{value}"'
    assert_consistent_after_failure(runner, good_book, before, result)


def test_ledger_diff_shows_an_invisible_character_in_a_key(good_book, runner):
    line, value = _rewrite_lock(good_book, lambda text: text.replace("cluster_str", "cluster\u200b_str"))
    before = disk_state(good_book)
    result = runner.cli(good_book)
    assert result.code == 1, result.output
    assert sorted((f.path, f.line, f.kind, f.reason) for f in result.findings) == [
        ("numbers.lock", line, "ledger",
         f'"contents/one.qmd · cluster\\u200b_str": {value} → (removed)')]
    assert result.report["new_values"] == [     # the key as published, counted apart
        {"key": "contents/one.qmd · cluster_str", "chapter": "contents/one.qmd", "value": value}]
    assert_consistent_after_failure(runner, good_book, before, result)


def test_a_byte_order_mark_before_the_first_ledger_entry_is_ignored(good_book, runner):
    entries = [line for line in _lock_lines(good_book) if line and not line.startswith("#")]
    (good_book / "numbers.lock").write_bytes(b"\xef\xbb\xbf" + "\n".join(entries).encode() + b"\n")
    result = runner.cli(good_book)
    assert result.code == 0, result.output


def test_preview_on_a_taken_port_stops_at_once_in_one_line(good_book, runner):
    import socket
    import subprocess
    import uuid
    from tests.faults.faultkit import REPO
    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))
    taken.listen()
    port = taken.getsockname()[1]
    before = disk_state(good_book)
    try:
        done = subprocess.run([*runner.argv(good_book, "preview"), "--port", str(port)],
                              cwd=str(REPO), env=runner.env(uuid.uuid4().hex),
                              capture_output=True, text=True, timeout=120)
    finally:
        taken.close()
    assert done.returncode == 2, done.stdout + done.stderr
    assert done.stdout == ""                    # no build happened first
    assert done.stderr == (f"error: cannot serve on 127.0.0.1:{port}: Address already in use "
                           f"(another preview?); pass another --port, or none for a free one\n")
    assert disk_state(good_book) == before
    assert runner.leftover_temp_files() == []


@pytest.mark.parametrize("n, head", [
    (1, "1 published number differs from numbers.lock (`bookcheck numbers` accepts it):"),
    (2, "2 published numbers differ from numbers.lock (`bookcheck numbers` accepts them):")])
def test_moved_numbers_are_counted_in_good_english(capsys, n, head):
    from bookcheck.model import Finding, Kind
    from bookcheck.tools.preview import announce
    from bookcheck.tools.preview.session import Outcome
    from bookcheck.verify.report import print_findings
    moved = [Finding("numbers.lock", 3 + k, Kind.LEDGER, f"ch.qmd · x{k}: 1 → 2") for k in range(n)]
    import sys
    print_findings(moved, [], sys.stdout)
    announce(Outcome(ok=True, moved=moved))
    out = capsys.readouterr().out.split("\n")
    assert out[0] == head and out[n + 1] == head


# ------------------------------------------------------------ author messages

SECOND = """# Two {#sec-two}

```{python}
from mlsys import GPU_MTTF_HOURS, check, fmt, hour
two_str = fmt(GPU_MTTF_HOURS, precision=0)
```

Two: `{python} two_str`.
"""


def test_unknown_constant_source_is_reported_once_with_the_fix(good_book, runner):
    from tests.faults.faultkit import add_chapter
    add_chapter(good_book, SECOND)
    constants = good_book / "mlsys" / "constants.py"
    append(constants, '\nSMITH_X = _declare("SMITH_X", 1.0, "", "A planted constant.", "smith2027")\n')
    before, result, f = check_fails(runner, good_book, "cell-error")
    assert (f.path, f.line) == ("mlsys/constants.py", line_of(constants, 'SMITH_X = _declare('))
    imported_at = line_of(chapter(good_book), "from mlsys import")
    assert f.reason == (
        "ValueError: SMITH_X: unknown source 'smith2027': add its entry to references.bib and "
        "'smith2027' to CITATION_KEYS in mlsys/constants.py, or write source=\"assumption\" or "
        "\"convention\" (the same error stopped 1 more chapter: contents/two.qmd) "
        f"(raised when contents/one.qmd:{imported_at} imported it)")
    assert result.report["summary"]["ledger_skipped"] == ["contents/one.qmd", "contents/two.qmd"]
    assert_consistent_after_failure(runner, good_book, before, result)


def test_failing_check_shows_the_values_in_its_condition(good_book, runner):
    edit(chapter(good_book), 'check(cluster < node_mtbf, "a cluster fails more often than one node")',
         'check(cluster < node_mtbf, "a cluster fails more often than one node")\n'
         'check(node_mtbf < 5000 * hour and cluster < node_mtbf, "planted: nodes fail")')
    before, result, f = check_fails(runner, good_book, "invariant")
    assert (f.path, f.line) == ("contents/one.qmd", line_of(chapter(good_book), "planted: nodes"))
    assert f.reason == ("planted: nodes fail (`node_mtbf < 5000 * hour and cluster < node_mtbf` "
                        "was `6,250 hour < 5,000 hour and 390.6 hour < 6,250 hour`)")
    assert_consistent_after_failure(runner, good_book, before, result)


def test_misspelt_inline_name_gets_a_suggestion(good_book, runner):
    edit(chapter(good_book), "`{python} cluster_str`", "`{python} clustr_str`")
    before, result, f = check_fails(runner, good_book, "inline-error")
    assert (f.path, f.line) == ("contents/one.qmd", line_of(chapter(good_book), "clustr_str"))
    assert f.reason == ("NameError: name 'clustr_str' is not defined; "
                        "did you mean `cluster_str`? (Quarto stops the whole render at this "
                        "error and writes no page)")
    assert_consistent_after_failure(runner, good_book, before, result)


def test_fmt_unit_on_a_plain_number_names_the_fix(good_book, runner):
    edit(chapter(good_book), "cluster_str = fmt(", "power_str = fmt(3.5, \"kW\")\ncluster_str = fmt(")
    before, result, f = check_fails(runner, good_book, "cell-error")
    assert (f.path, f.line) == ("contents/one.qmd", line_of(chapter(good_book), "power_str"))
    assert f.reason == ("ValueError: unit= applies to Quantities only; this value is a plain "
                        "number (3.5): drop unit= to print it as it is, or attach its unit "
                        "first, e.g. fmt(x * ureg('kW'), 'kW')")
    assert_consistent_after_failure(runner, good_book, before, result)


def test_a_shard_that_rewrites_a_control_file_fails_the_merge(good_book, runner, tmp_path):
    """As on CI: the shard runs on its own checkout, the merge on a clean one."""
    import shutil
    import subprocess
    import uuid
    from tests.faults.faultkit import REPO
    edit(chapter(good_book), "cluster_str = fmt(",
         "with open('../numbers.lock', 'a') as _f:\n    _f.write('# planted\\n')\ncluster_str = fmt(")
    shard_book = tmp_path / "shard-checkout"
    shutil.copytree(good_book, shard_book, symlinks=True)
    partial = tmp_path / "shard-1-of-1.json"

    def run(book, *args):
        return subprocess.run(runner.argv(book, *args), cwd=str(REPO), env=runner.env(uuid.uuid4().hex),
                              capture_output=True, text=True, timeout=240)
    done = run(shard_book, "check", "--shard", "1/1", "--out", str(partial), "--force")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "numbers.lock:0 control: numbers.lock was changed while the chapters ran" in done.stdout
    merged = run(good_book, "merge", str(partial))
    assert merged.returncode == 1, merged.stdout + merged.stderr
    assert "numbers.lock:0 control: numbers.lock was changed while the chapters ran" in merged.stdout
    assert merged.stdout.splitlines()[-1].startswith("FAILED")
    # merged where the shard ran, the changed tree itself is refused
    local = run(shard_book, "merge", str(partial))
    assert local.returncode == 2 and "files that differ: numbers.lock" in local.stderr
