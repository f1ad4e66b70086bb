"""Planted bugs: small, realistic source mutations the test suite must catch.

Each `Plant` rewrites one place of the project (in a temporary copy, never in
the working tree) and names the tests that must then fail. The list starts
with the five bugs of issue 17 that the suite once let through, then adds
more of the same kind. `tests/meta/test_planted_bugs.py` runs them:

- `make test` runs the plants marked `ci=True` (a subset under about a minute);
- `make mutate-tests` runs every plant (`PLANTED_BUGS=all`).

A plant whose text no longer occurs in the source fails loudly ("does not
apply"), so the list cannot rot silently when the code moves: update it.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Plant:
    id: str
    path: str                   # file to mutate, relative to the project root
    promise: str                # what the README or the code promises
    tests: tuple[str, ...]      # pytest node ids / files that must fail
    old: str = ""               # exact text to replace (exactly one occurrence) ...
    new: str = ""
    function: str = ""          # ... or the name of a top-level function to replace whole
    body: str = ""              # its new source (a complete `def`)
    ci: bool = False            # part of the subset `make test` runs

    def apply(self, root: Path) -> None:
        target = root / self.path
        text = target.read_text(encoding="utf-8")
        if self.function:
            text = replace_function(text, self.function, self.body, self.path)
        else:
            count = text.count(self.old)
            if count != 1:
                raise AssertionError(f"plant {self.id} does not apply: {self.old!r} occurs "
                                     f"{count} times in {self.path} (update tests/meta/planted_bugs.py)")
            text = text.replace(self.old, self.new)
        target.write_text(text, encoding="utf-8")


def replace_function(text: str, name: str, body: str, where: str) -> str:
    """`text` with the top-level function `name` replaced by `body` (decorators kept)."""
    tree = ast.parse(text)
    found = [n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
             and n.name == name]
    if len(found) != 1:
        raise AssertionError(f"plant does not apply: no single function {name}() in {where} "
                             "(update tests/meta/planted_bugs.py)")
    node = found[0]
    lines = text.splitlines(keepends=True)
    start, end = node.lineno - 1, node.end_lineno
    return "".join(lines[:start]) + body.rstrip("\n") + "\n" + "".join(lines[end:])


PLAIN_LEDGER_WRITE = '''
def write(path, entries):
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(format_lock(entries))
'''

DALY = 'return Q_(math.sqrt(2.0 * delta * m) * (1.0 + math.sqrt(x) / 3.0 + x / 9.0) - delta, "second")'
YOUNG = 'return Q_(math.sqrt(2.0 * delta * m), "second")'

PLAIN_ATOMIC_WRITE = '''
def atomic_write(path, data, mode=None):
    if isinstance(data, str):
        data = data.encode("utf-8")
    with open(path, "wb") as handle:
        handle.write(data)
'''

PLANTS: list[Plant] = [
    # ---- the five bugs of issue 17
    Plant("ledger-plain-write", "scripts/verify/ledger.py", "numbers.lock is written atomically",
          ("tests/verify/test_atomic_writes.py",), function="write", body=PLAIN_LEDGER_WRITE,
          ci=True),
    Plant("cache-direct-write", "scripts/store.py", "cache entries are written atomically",
          ("tests/verify/test_atomic_writes.py",),
          old="atomic_write(self.path(key), ", new="open(self.path(key), 'wb').write(", ci=True),
    Plant("probability-one-rejected", "mlsys/units.py",
          "formulas accept probabilities in [0, 1], both ends included",
          ("tests/mlsys/test_formulas.py",),
          old="if not 0.0 <= m <= 1.0:", new="if not 0.0 <= m < 1.0:", ci=True),
    Plant("probability-one-rejected-property", "mlsys/units.py",
          "formulas accept probabilities in [0, 1], both ends included (property tests)",
          ("tests/mlsys/test_properties.py",),
          old="if not 0.0 <= m <= 1.0:", new="if not 0.0 <= m < 1.0:"),
    Plant("front-matter-line-plus-one", "scripts/read/qmd.py", "findings at the exact line",
          ("tests/read/test_qmd.py",),
          old="yaml_problem(exc, first_line=2)", new="yaml_problem(exc, first_line=3)", ci=True),
    Plant("daly-is-young", "mlsys/formulas.py", "the Monte Carlo simulation verifies Daly's interval",
          ("tests/mlsys/test_monte_carlo.py",), old=DALY, new=YOUNG),
    Plant("daly-is-young-property", "mlsys/formulas.py", "Daly's interval lies below Young's",
          ("tests/mlsys/test_properties.py::test_daly_approaches_young_as_delta_over_m_vanishes",),
          old=DALY, new=YOUNG, ci=True),
    # ---- more of the same kind
    Plant("shared-atomic-write-is-plain", "scripts/files.py",
          "every stage writes its files atomically (one shared helper)",
          ("tests/verify/test_atomic_writes.py",), function="atomic_write",
          body=PLAIN_ATOMIC_WRITE, ci=True),
    Plant("ledger-diff-first-digit-only", "scripts/verify/ledger.py",
          "any change of a published number is reported",
          ("tests/verify/test_ledger.py",),
          old="if old[key] == new[key]:", new="if old[key][:1] == new[key][:1]:", ci=True),
    Plant("cache-key-ignores-python-sources", "scripts/run/cache.py",
          "editing any file of mlsys/ re-executes the chapters",
          ("tests/run/test_cache.py",),
          old='if not n.endswith((".pyc", ".pyo"))', new='if not n.endswith((".pyc", ".pyo", ".py"))',
          ci=True),
    Plant("inline-column-plus-one", "scripts/read/textpos.py", "inline findings at the exact column",
          ("tests/read/test_qmd.py",),
          old="return index + 1, offset - self.starts[index] + 1",
          new="return index + 1, offset - self.starts[index] + 2", ci=True),
    Plant("stacked-availability-extra-replica", "mlsys/formulas.py",
          "k replicas give 1 - (1 - A)^k",
          ("tests/mlsys/test_formulas.py",),
          old='return float(1.0 - (1.0 - a) ** count(k, "k"))',
          new='return float(1.0 - (1.0 - a) ** (count(k, "k") + 1))', ci=True),
    Plant("skip-policy-ignores-ci", "tests/skip_policy.py",
          "a missing tool or the missing seeds fail under CI",
          ("tests/meta/test_skip_policy.py",),
          old='return bool(os.environ.get("CI"))', new="return False", ci=True),
    Plant("sigterm-reported-as-ctrl-c", "scripts/cli.py", "SIGTERM exits with status 143",
          ("tests/verify/test_cli.py::test_interrupt_exits_and_leaves_no_kernel",),
          old="terminated = _TERMINATED.is_set()", new="terminated = False"),
    Plant("front-matter-line-plus-one-end-to-end", "scripts/read/qmd.py",
          "the checker reports a malformed front matter at its line",
          ("tests/faults/test_bad_project.py::test_malformed_front_matter",
           "tests/run/test_book.py::test_reading_findings_end_to_end"),
          old="yaml_problem(exc, first_line=2)", new="yaml_problem(exc, first_line=3)"),
    # ---- issue 31: messages that lead somewhere
    Plant("yaml-repeated-key-accepted", "scripts/read/yamlio.py",
          "a key set twice in YAML is a finding, as it is for Quarto",
          ("tests/read/test_yaml_hints.py",),
          old="if first is not key_node:", new="if False:"),
    Plant("yaml-indentation-hint-lost", "scripts/read/yamlio.py",
          "an indentation error says how to fix it",
          ("tests/read/test_yaml_hints.py",),
          old='if problem.startswith("expected <block end>"):', new="if False:", ci=True),
    Plant("new-values-pass-the-check", "scripts/verify/check.py",
          "a published value missing from numbers.lock fails the check (CI notices)",
          ("tests/verify/test_new_values.py",),
          old="        return not self.findings\n",
          new="        return not [f for f in self.findings if not ledger.is_new_value(f)]\n", ci=True),
    Plant("included-file-noted-as-unlisted", "scripts/read/project.py",
          "a file a chapter includes is not called an unlisted chapter",
          ("tests/verify/test_unlisted.py",),
          old="known = set(project.documents) | set(project.parts) | included",
          new="known = set(project.documents) | set(project.parts)", ci=True),
    Plant("preview-links-a-stale-pdf", "scripts/tools/preview/pages.py",
          "a page rewritten while previewing never links a PDF older than its sources",
          ("tests/tools/test_preview_pages.py::test_a_page_rewritten_while_previewing_links_only_a_current_pdf",),
          old="pdf = linked_pdf(book, dest, say=False)",
          new="pdf = linked_pdf.__globals__['pdf_name'](book)", ci=True),
    # ---- issue 23: the cache reuses only what was completely observed
    Plant("observer-misses-stats", "scripts/run/observe_side.py",
          "a value decided by os.path.exists or a file's size re-executes its chapter when it changes",
          ("tests/run/test_observed_inputs.py::test_the_observer_records_every_kind_of_touch",),
          old="    os.stat = _wrap_stat(observer, os.stat, follow)\n", new="", ci=True),
    Plant("observer-misses-stats-end-to-end", "scripts/run/observe_side.py",
          "a value decided by os.path.exists or a file's size re-executes its chapter when it changes",
          ("tests/faults/test_stale_reads.py::test_a_changed_read_moves_the_number[os.path.exists]",
           "tests/faults/test_stale_reads.py::test_a_changed_read_moves_the_number[a file's size]"),
          old="    os.stat = _wrap_stat(observer, os.stat, follow)\n", new=""),
    Plant("observer-misses-negative-lookups", "scripts/run/observe_side.py",
          "a module looked for and not found invalidates the entry when it appears",
          ("tests/run/test_observed_inputs.py::test_the_observer_records_every_kind_of_touch",),
          old="    sys.meta_path.insert(0, _Finder)\n", new="", ci=True),
    Plant("observer-misses-negative-lookups-end-to-end", "scripts/run/observe_side.py",
          "a module looked for and not found invalidates the entry when it appears",
          ("tests/faults/test_stale_reads.py::test_a_changed_read_moves_the_number[a module not found]",),
          old="    sys.meta_path.insert(0, _Finder)\n", new=""),
    Plant("opaque-runs-are-cached", "scripts/run/schedule.py",
          "a run that started a subprocess is re-executed on every check",
          ("tests/faults/test_stale_reads.py::test_a_subprocess_makes_the_run_opaque_until_its_inputs_are_declared",),
          old='    return not run.deps.get("opaque") or bool(parsed.cache_inputs)', new="    return True"),
    Plant("inputs-hashed-only-after-the-run", "scripts/run/deps.py",
          "an input that changed while its chapter ran is never stored",
          ("tests/run/test_observed_inputs.py::test_an_input_changed_while_the_run_went_on_is_not_stable",),
          old="if key not in products and now != value and unstable is None:",
          new="if False:", ci=True),
    Plant("inputs-hashed-only-after-the-run-end-to-end", "scripts/run/deps.py",
          "an input that changed while its chapter ran is never stored",
          ("tests/faults/test_stale_reads.py::test_an_input_the_run_changes_is_never_stored",),
          old="if key not in products and now != value and unstable is None:", new="if False:"),
    Plant("malformed-project-prunes-the-cache", "scripts/verify/check.py",
          "a malformed _quarto.yml never prunes the cache",
          ("tests/faults/test_stale_reads.py::test_a_malformed_quarto_yml_prunes_nothing",),
          old="prune=not book.findings)", new="prune=True)"),
    Plant("reader-not-validated-after-its-writer", "scripts/run/schedule.py",
          "a chapter reading what another writes is validated again after its writer ran",
          ("tests/faults/test_stale_reads.py::test_a_reader_runs_after_its_writer_and_is_validated_again",),
          old="for reader in sorted(order.readers_of(written, io) - again):", new="for reader in []:"),
    Plant("observer-resolves-links", "scripts/run/observe_side.py",
          "a re-pointed link re-executes its chapter (the link is recorded, not only its old target)",
          ("tests/faults/test_stale_reads.py::test_a_changed_read_moves_the_number[a re-pointed link]",),
          old="            return os.path.abspath(os.fsdecode(path))",
          new="            return os.path.realpath(os.fsdecode(path))"),
    Plant("observer-ignores-files-outside-the-root", "scripts/run/observe_side.py",
          "files outside the project root are hashed like project files",
          ("tests/faults/test_stale_reads.py::test_a_changed_read_moves_the_number[a file out of the root]",
           "tests/faults/test_stale_reads.py::test_a_changed_read_moves_the_number[a loose module out of the root]"),
          old='        if path in _facts.HARMLESS_DEVICES or _facts.resource_probe(path):',
          new='        if not path.startswith(self.root + os.sep):\n            return None, None\n'
              '        if path in _facts.HARMLESS_DEVICES or _facts.resource_probe(path):'),
    Plant("observer-ignores-read-write-opens", "scripts/run/observe_side.py",
          "a file opened for reading and writing is an input",
          ("tests/faults/test_stale_reads.py::test_a_changed_read_moves_the_number[a file opened r+]",),
          old='                self.note("path", path, product=bool(flags & _TRUNCATING))',
          new='                if not flags & (os.O_WRONLY | os.O_RDWR):\n'
              '                    self.note("path", path)'),
    Plant("preload-not-observed", "scripts/run/forkserver_side.py",
          "what a package preloaded into the fork server read at import is observed",
          ("tests/faults/test_stale_reads.py::test_a_changed_read_moves_the_number[a variable read at preload]",),
          old="            helper.preload(os.getcwd(), [checker])", new="            pass"),
    Plant("observer-misses-listings", "scripts/run/observe_side.py",
          "a file added to a folder the chapter listed (glob) re-executes it",
          ("tests/faults/test_stale_reads.py::test_a_changed_read_moves_the_number[a glob]",),
          old='                    self.note("list", path)', new="                    pass"),
    Plant("observer-sees-only-the-chapters-own-env-reads", "scripts/run/observe_side.py",
          "environment variables read by library code for the chapter are inputs too",
          ("tests/faults/test_stale_reads.py::test_a_changed_read_moves_the_number[a variable read by the stdlib]",),
          old="            if observer.watching():\n                observer.note_env(key)",
          new="            if observer.watching() and \"/lib/python3\" not in sys._getframe(2).f_code.co_filename:\n"
              "                observer.note_env(key)"),
    Plant("freeze-handoff-without-use-freezer", "scripts/render/quarto.py",
          "with Quarto, make html publishes the checked runs: Quarto executes nothing",
          ("tests/quarto/test_handoff.py::test_quarto_runs_the_checked_cell_zero_times",),
          old='        cmd.append("--use-freezer")', new="        pass"),
    Plant("freeze-entry-in-the-visible-freezer", "scripts/render/freeze.py",
          "entries go where Quarto reads them (.quarto/_freeze under its default freeze: false)",
          ("tests/render/test_freeze.py",),
          old="hidden=parsed.freeze is False", new="hidden=False", ci=True),
    Plant("engine-md-drops-execution-count", "scripts/render/engine_md.py",
          "the handed-over Markdown is what Quarto's Jupyter engine writes",
          ("tests/render/test_freeze.py",),
          old="if output.result and execution_count:", new="if False:", ci=True),
    Plant("built-in-markdown-not-the-handed-over-one", "scripts/render/book.py",
          "the built-in renderer reads the Markdown handed to Quarto's freeze",
          ("tests/render/test_one_markdown.py::test_the_built_in_renderer_reads_the_markdown_handed_to_quarto",),
          old="engine_markdown(parsed, run, project.root,", new="engine_markdown(parsed, run, None,",
          ci=True),
    Plant("code-fold-ignored", "scripts/render/filters/cells.lua",
          "the built-in page folds code under code-fold, as Quarto does",
          ("tests/render/test_filters.py::test_cells_fold_and_number_code_as_quarto_does",),
          old='if not fold or fold == "false" then', new="if true then"),
    Plant("pipe-table-alignment-swapped", "scripts/tools/grid_tables.py",
          "make pipe-tables keeps each column's alignment",
          ("tests/tools/test_grid_tables.py",),
          old='else "left" if left else "right" if right else ""',
          new='else "right" if left else "left" if right else ""', ci=True),
    Plant("profiles-last-listed-wins", "scripts/read/profiles.py",
          "of several Quarto profiles the first listed wins",
          ("tests/read/test_project_model.py",),
          old="for name in reversed(active)]",
          new="for name in active]", ci=True),
    # issue 32: options resolved and validated once, in read/
    Plant("option-of-wrong-type-accepted", "scripts/read/options.py",
          "a cell option Quarto's schema refuses (`include: \"false\"`) is a finding at its line",
          ("tests/read/test_options.py",),
          old="if spec is None or accepts(spec, value):", new="if True:", ci=True),
    Plant("options-after-a-blank-line-ignored", "scripts/read/qmd.py",
          "`#|` lines after blank lines at the top of a cell are options, as in Quarto",
          ("tests/read/test_options.py",),
          old="start = next((i for i, line in enumerate(body) if line.strip()), len(body))",
          new="start = 0"),
    Plant("profile-argument-ignored", "scripts/read/profiles.py",
          "the profile is an argument, before QUARTO_PROFILE",
          ("tests/read/test_options.py",),
          old='named = profile or os.environ.get(PROFILE_ENV, "")',
          new='named = os.environ.get(PROFILE_ENV, "")'),
    # issue 22: every digit a reader sees is accounted for
    Plant("render-not-audited", "scripts/render/__init__.py",
          "a number nobody computed on a rendered page fails the render",
          ("tests/faults/test_rendered_audit.py::test_a_number_planted_in_the_rendered_page_fails_the_render",),
          old="                audit(result, fmt, tmp, produced, by_quarto=use_quarto)",
          new="                pass"),
    Plant("audit-reads-the-sidebar", "scripts/verify/audit_html.py",
          "the audit reads the page's text, not the book's navigation",
          ("tests/verify/test_audit_text.py",),
          old='"template", "noscript", "nav",', new='"template", "noscript",', ci=True),
    Plant("generated-markdown-refs-unchecked", "scripts/verify/check.py",
          "a bad citation in a cell's Markdown output is found at the cell's line",
          ("tests/faults/test_rendered_audit.py::test_a_bad_key_in_a_cells_markdown_output_is_found_at_the_cell",),
          old="book_wide(project, generated,", new="book_wide(project, result.parsed,"),
    Plant("units-attached-not-numbers", "scripts/verify/prose_numbers.py",
          "a typed 4x, 100ms, 5GB or 10k is a literal-number finding",
          ("tests/book/test_prose_numbers.py",),
          old='UNITS = ("x", "×", "k",', new='UNITS = ("×",', ci=True),
    # ---- issue 25: hostile input, round three
    Plant("shard-tree-ignored", "scripts/verify/shard.py",
          "partials of two source trees never merge",
          ("tests/verify/test_shard.py::test_partials_of_two_source_trees_never_merge",),
          old='key = (data["tree"], data["plan"]', new='key = (current, data["plan"]'),
    Plant("no-subreaper", "scripts/run/sweep.py",
          "an orphan with an emptied environment does not outlive the run",
          ("tests/faults/test_kernel_hygiene.py::test_nothing_outlives_a_run[env-i]",),
          old="became = not was_subreaper and _prctl(PR_SET_CHILD_SUBREAPER, 1)",
          new="became = False"),
    Plant("include-follows-symlinks-out", "scripts/read/includes.py",
          "an include of a symlink out of the project is refused",
          ("tests/faults/test_hostile.py::test_include_of_a_symlink_out_of_the_project_is_refused",),
          old='path == ".." or not _inside(root, root / path)', new='path == ".."'),
    Plant("bom-kept", "scripts/read/qmd.py", "a BOM before front matter is dropped",
          ("tests/faults/test_hostile.py::test_bom_before_front_matter_keeps_the_front_matter",),
          old='data = data[3:] if data.startswith(b"\\xef\\xbb\\xbf") else data', new=""),
    Plant("page-links-not-encoded", "scripts/render/html.py",
          "links to pages are percent-encoded",
          ("tests/faults/test_hostile.py::test_chapter_file_names_are_percent_encoded_in_html_links",),
          old='return quote(posixpath.relpath(to_path, posixpath.dirname(from_page) or "."))',
          new='return posixpath.relpath(to_path, posixpath.dirname(from_page) or ".")'),
    Plant("control-files-unwatched", "scripts/verify/check.py",
          "a run that changes a control file is a finding",
          ("tests/faults/test_hostile.py::test_a_cell_that_rewrites_a_control_file_is_a_finding",),
          old="    result.findings += changed_controls\n", new=""),
    Plant("kill-the-server-allowed", "scripts/run/kernel_side.py",
          "a chapter that kills the fork server is blamed at its line",
          ("tests/faults/test_hostile.py::test_a_chapter_killing_the_fork_server_is_blamed_not_its_neighbour",),
          old="    sys.addaudithook(hook)\n", new=""),
    # ---- issue 32: one store, keyed on the code that produced each entry
    Plant("chapter-cache-ignores-code", "scripts/run/cache.py",
          "an edit to a checker module runs the chapters again",
          ("tests/run/test_store.py::test_an_edit_to_a_checker_module_invalidates_the_chapter_cache",),
          old='CODE = ("scripts.run",)', new="CODE = ()", ci=True),
    Plant("audit-cache-ignores-code", "scripts/verify/audit.py",
          "a changed or added audit rule audits every page again",
          ("tests/run/test_store.py::test_a_changed_or_added_audit_module_invalidates_the_page_cache",),
          old='store.Store(root, "audit", ("scripts.verify.audit",))', new='store.Store(root, "audit")',
          ci=True),
    Plant("store-trusts-damaged-entries", "scripts/store.py", "a damaged store entry is a miss",
          ("tests/run/test_store.py::test_a_damaged_entry_is_a_miss_and_deleted",),
          old="        if header != self._header(payload):", new="        if not header:",
          ci=True),
    Plant("unit-interval-hand-list", "scripts/tools/mutation/mutants.py",
          "a new formula returning a value in [0, 1] gets the range rule",
          ("tests/tools/test_mutate_units.py::test_a_new_unit_interval_formula_is_covered_by_the_range_rule",),
          old="unit_interval(m.target)))", new='m.target in {"calc_failure_probability"}))'),
    # ---- issue 33: adopting it on a book that has findings (docs/adopting.md)
    Plant("grid-table-findings-one-per-value", "scripts/verify/report.py",
          "the text report says a grid table's inline values in one line, with the fix command",
          ("tests/verify/test_grouped.py",),
          old="    findings = grouped(findings, root)\n", new="", ci=True),
    Plant("pipe-tables-needs-aligned-rows", "scripts/tools/grid_tables.py",
          "pipe-tables cuts a row wider than its border at its own `|`",
          ("tests/tools/test_grid_tables.py",),
          old="        cuts = split_row(line)\n", new="        return None\n", ci=True),
    Plant("baseline-keyed-on-line-numbers", "scripts/verify/baseline.py",
          "a baselined finding stays known when lines are added above it",
          ("tests/verify/test_baseline.py",),
          old='text = "\\0".join([str(finding.kind),',
          new='text = "\\0".join([str(finding.line), str(finding.kind),', ci=True),
    Plant("suppression-without-reason-accepted", "scripts/verify/baseline.py",
          "a suppression without a reason suppresses nothing and is a finding",
          ("tests/verify/test_baseline.py",),
          old="    if not reason.strip():\n", new="    if False:\n", ci=True),
    # ---- issue 33: no audit false alarm on a real book, a fast audit
    Plant("footnote-values-in-place", "scripts/verify/audit_tokens.py",
          "a footnote's values are expected at the end of the page, where pandoc shows them",
          ("tests/verify/test_audit_text.py::test_footnotes_shown_at_the_end_do_not_pull_the_values_after_them",),
          old="return (1, note, offset), True", new="return (0, offset), True"),
    Plant("values-aligned-by-longest-blocks", "scripts/verify/audit_tokens.py",
          "a value repeated among typed numbers is matched in order",
          ("tests/verify/test_audit_text.py::test_a_value_shown_several_times_among_typed_numbers_is_matched_in_order",),
          old="    where: dict[str, list[int]] = {}\n",
          new=("    import difflib\n    m = difflib.SequenceMatcher(None, page, expected, autojunk=False)\n"
               "    return [(a + k, b + k) for a, b, size in m.get_matching_blocks() for k in range(size)]\n")),
    Plant("leak-at-first-line", "scripts/verify/audit_tokens.py",
          "a leak is located where the page shows it",
          ("tests/verify/test_audit_text.py::test_a_leak_is_located_where_the_page_shows_it",),
          old="    shown = pattern.match(text, at)\n",
          new="    return next((i for i, ln in enumerate(parsed.text.splitlines(), 1) if pattern.search(ln)), 0)\n"),
    Plant("value-out-of-order-wrong-advice", "scripts/verify/audit.py",
          "a value's text out of order is not advised to be published from a value",
          ("tests/verify/test_audit_text.py::test_a_value_shown_out_of_order_is_not_advised_to_be_published_from_a_value",),
          old="    same = [(j, i) for j, (m, i) in enumerate(expected) if m == n]\n", new="    same = []\n"),
    Plant("failing-page-audited-again", "scripts/verify/audit.py",
          "an unchanged failing page reports its findings without being audited again",
          ("tests/verify/test_audit_text.py::test_a_failing_page_is_not_audited_again_and_reports_the_same_findings",),
          old="        seen.record(digest, found)\n", new="        if not found:\n            seen.record(digest, found)\n",
          ci=True),
    Plant("pdf-footnote-values-ordered", "scripts/verify/audit_tokens.py",
          "a PDF's footnote, at the foot of a page, does not pull the values after it",
          ("tests/verify/test_audit_text.py::test_a_pdfs_footnote_at_the_foot_of_a_page_does_not_pull_the_values_after_it",),
          old="ordered=notes_at_end or place[0] == 0)))", new="ordered=True)))"),
    Plant("leak-at-first-line-holding-its-text", "scripts/verify/audit.py",
          "an unresolved reference is located at the line referencing it",
          ("tests/verify/test_audit_text.py::test_an_unresolved_reference_is_located_at_the_line_referencing_it",
           "tests/verify/test_audit_text.py::test_a_leak_is_located_where_the_page_shows_it"),
          old="        line = (tok.written_at(parsed, pattern, where, at, places)\n",
          new=("        line = (next((i for i, ln in enumerate(parsed.text.splitlines(), 1)\n"
               "                      if shown.rstrip(\"?\").lstrip(\"?@\") in ln), 0)\n")),
]
