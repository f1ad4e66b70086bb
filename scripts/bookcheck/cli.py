"""Command line: `bookcheck check|numbers|html|pdf|merge|pipe-tables|preview`,
and `pre-render|post-render` (Quarto's project scripts: render/hooks.py).

Exit status: 0 when there is no finding, 1 on findings (or a failed render),
2 on usage errors, 130 on Ctrl-C, 143 on SIGTERM.
"""
from __future__ import annotations

import argparse
import os
import signal
import sys
import threading
from pathlib import Path

from bookcheck.read import CONFIG     # (not read.project: an up-to-date `html` imports no YAML)
from bookcheck.read.root import folder_problem

EXIT_OK, EXIT_FINDINGS, EXIT_USAGE, EXIT_INTERRUPTED, EXIT_TERMINATED = 0, 1, 2, 130, 143


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="bookcheck",
                                     description="Check and render the book.")
    sub = parser.add_subparsers(dest="command", required=True)
    helps = {"check": "execute every chapter and report findings",
             "numbers": "check, then rewrite numbers.lock with the current numbers",
             "html": "check, then render the HTML book",
             "pdf": "check, then render the PDF book"}
    for name, text in helps.items():
        p = sub.add_parser(name, help=text)
        p.add_argument("--force", action="store_true", help="ignore the cache")
        p.add_argument("--jobs", type=_positive_int, default=None,
                       help="chapters run in parallel (default: number of cores)")
        p.add_argument("--timeout", type=_positive_float, default=None, metavar="S",
                       help="per-cell timeout in seconds (default: _quarto.yml or 120)")
        p.add_argument("--root", type=Path, default=Path.cwd(), help="project root")
        p.add_argument("--profile", default=None, metavar="NAME[,NAME]",
                       help="Quarto profile(s): _quarto-NAME.yml over _quarto.yml "
                            "(default: QUARTO_PROFILE; `quarto render` is given it too)")
        p.add_argument("--json", action="store_true",
                       help="print findings and the summary as JSON instead of text")
        known = p.add_mutually_exclusive_group()
        known.add_argument("--write-baseline", dest="baseline_mode", action="store_const",
                           const="write", help="record every finding as known in "
                           "findings-baseline.json (review its diff; docs/adopting.md)")
        known.add_argument("--prune-baseline", dest="baseline_mode", action="store_const",
                           const="prune", help="drop the baseline's entries no finding matches")
        if name == "check":
            p.add_argument("--audit", action="store_true",
                           help="execute every chapter and report any the cache would have "
                                "served stale (stale-cache)")
            p.add_argument("--shard", metavar="I/N", default=None,
                           help="check only the I-th of N balanced shards; write a partial result")
            p.add_argument("--out", type=Path, default=None, metavar="PATH",
                           help="with --shard: where to write the partial result "
                                "(default _bookcheck/shards/shard-I-of-N.json)")
    merge = sub.add_parser("merge", help="combine the partial results of `check --shard`")
    merge.add_argument("partials", type=Path, nargs="+", metavar="PARTIAL")
    merge.add_argument("--root", type=Path, default=Path.cwd(), help="project root")
    merge.add_argument("--profile", default=None, metavar="NAME[,NAME]",
                       help="the Quarto profile(s) the shards were checked under "
                            "(default: QUARTO_PROFILE); partials of others are refused")
    sub.add_parser("preview", help="serve the book and rebuild it on every save "
                                   "(options: bookcheck preview -h)")
    for hook in ("pre-render", "post-render"):
        sub.add_parser(hook, help=f"Quarto's `project: {hook}:` script (docs/quarto-compat.md)")
    sub.add_parser("pipe-tables", help="rewrite grid tables holding inline values as pipe "
                                       "tables (options: bookcheck pipe-tables -h)")
    return parser


def _positive_int(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    return value


def _positive_float(text: str) -> float:
    value = float(text)
    if value <= 0:
        raise argparse.ArgumentTypeError("must be positive")
    return value


_TERMINATED = threading.Event()     # a SIGTERM arrived: exit 143, not Ctrl-C's 130


def _on_sigterm(signum, frame):
    """SIGTERM (e.g. CI cancelling a job) is handled as Ctrl-C by whatever handles
    SIGINT now: inside asyncio.run, its runner cancels the main task (the kernels
    are stopped by the task's own cleanup, nothing raises inside a task's step);
    elsewhere Python's default handler raises KeyboardInterrupt."""
    _TERMINATED.set()
    handler = signal.getsignal(signal.SIGINT)
    if callable(handler):
        handler(signal.SIGINT, frame)
    else:
        raise KeyboardInterrupt


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] in (["pre-render"], ["post-render"]):   # run by Quarto (render/hooks.py)
        from bookcheck.render.hooks import main as hook_main
        return hook_main(argv)
    if argv[:1] == ["pipe-tables"]:     # and the grid-table rewriter (--check …)
        from bookcheck.tools.grid_tables import main as pipe_tables
        return pipe_tables(argv[1:])
    if argv[:1] == ["preview"]:     # so does the preview (--port …)
        from bookcheck.tools.preview import main as preview_main
        return int(preview_main(argv[1:]) or 0)
    args = _parser().parse_args(argv)
    from bookcheck.verify.report import use_terminal_encoding
    use_terminal_encoding()         # PYTHONIOENCODING=ascii: plain arrows, no traceback
    try:
        previous = signal.signal(signal.SIGTERM, _on_sigterm)
    except ValueError:              # not the main thread: leave signals alone
        previous = None
    try:
        return _check_and_maybe_render(args)
    except KeyboardInterrupt:              # run_chapters already stopped every kernel
        terminated = _TERMINATED.is_set()
        print("terminated" if terminated else "interrupted", file=sys.stderr)
        return EXIT_TERMINATED if terminated else EXIT_INTERRUPTED
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)


def _check_and_maybe_render(args) -> int:
    problem = folder_problem(args.root)
    if problem:
        print(f"error: --root {args.root}: {problem}", file=sys.stderr)
        return EXIT_USAGE
    if args.command == "pdf":
        args.profile = with_pdf_profile(args.root, args.profile)
    if not (args.root / CONFIG).exists() and not any(Path(args.root).glob("*.qmd")):
        print(f"error: no {CONFIG} in {args.root}", file=sys.stderr)
        return EXIT_USAGE
    if args.command == "merge":
        from bookcheck.verify.shard_cli import run_merge
        return run_merge(args.root, args.partials, profile=args.profile)
    if getattr(args, "shard", None):
        from bookcheck.verify.shard_cli import run_shard
        return run_shard(args.root, args.shard, args.out, args.force, args.jobs, args.timeout,
                         profile=args.profile)
    if args.command == "html":
        return _html(args)
    result = _check(args)
    if not result.ok:
        return EXIT_FINDINGS
    if args.command == "pdf":
        return _render(result, "pdf")
    return EXIT_OK


PDF_PROFILE = "pdf"


def with_pdf_profile(root: Path, profile: str | None) -> str | None:
    """The profiles `pdf` reads (and Quarto renders) the project with: its `pdf` profile
    too, when it has one: `_quarto-pdf.yml` holds this book's `format: typst`, kept out
    of _quarto.yml because Quarto 1.7 warns on every render of a book listing it.
    The profiles already active (`profile`, else QUARTO_PROFILE, else `profile:
    default:`) stay first, so they win over it."""
    if not any((Path(root) / f"_quarto-{PDF_PROFILE}{ext}").is_file() for ext in (".yml", ".yaml")):
        return profile
    from bookcheck.read.profiles import active_profiles
    from bookcheck.read.yamlio import YAMLError, load_yaml
    try:
        config = load_yaml((Path(root) / CONFIG).read_text(encoding="utf-8")) or {}
    except (OSError, UnicodeDecodeError, YAMLError):
        config = {}             # the check reports a bad _quarto.yml itself
    named = active_profiles(config if isinstance(config, dict) else {}, profile)
    return ",".join(named + [PDF_PROFILE] * (PDF_PROFILE not in named))


def _check(args):
    """Check the book and report (text or JSON, GitHub annotations); the BookResult."""
    from bookcheck.verify.check import check_book
    from bookcheck.verify.report import print_json, print_report, summary
    result = check_book(args.root, force=args.force, jobs=args.jobs,
                        update_ledger=args.command == "numbers", timeout_s=args.timeout,
                        audit=getattr(args, "audit", False), profile=args.profile,
                        baseline_mode=args.baseline_mode)
    if args.json:
        print_json(result)
    else:
        print_report(result)
        if os.environ.get("GITHUB_ACTIONS"):       # github.report acts when it is "true"
            from bookcheck.verify import github
            github.report(result, summary(result))
    if args.command == "numbers" and result.ok and result.ledger_compared and not args.json:
        print("numbers.lock updated")
    return result


def _html(args) -> int:
    """`html`: check and render, or nothing at all when nothing changed since the last
    successful `html` (render/uptodate.py says what counts)."""
    from bookcheck.render import uptodate
    options = {"command": "html", "root": str(args.root), "timeout": args.timeout,
               "jobs": args.jobs, "force": args.force, "json": args.json, "profile": args.profile}
    if not uptodate.usable(options) or args.baseline_mode:
        uptodate.forget(args.root)
        result = _check(args)
        return _render(result, "html") if result.ok else EXIT_FINDINGS
    stamp, start = uptodate.begin(args.root, options)
    if stamp is not None:
        print(f"{stamp['summary']} (by the last `html`; nothing has changed since)")
        print(f"html: {stamp['produced']}")
        return EXIT_OK
    result = _check(args)
    if not result.ok:
        return EXIT_FINDINGS
    produced = _render_quietly(result, "html")
    if produced is None:
        return EXIT_FINDINGS
    from bookcheck.verify.report import summary
    uptodate.record(start, result.project.output_dir, summary(result), str(produced),
                    uptodate.outside_inputs(result))
    print(f"html: {produced}")          # after the stamp: a reader gone (`| head`) loses nothing
    return EXIT_OK


def _render(result, fmt: str) -> int:
    produced = _render_quietly(result, fmt)
    if produced is None:
        return EXIT_FINDINGS
    print(f"{fmt}: {produced}")
    return EXIT_OK


def _render_quietly(result, fmt: str) -> Path | None:
    """The main output file of rendering a checked book; None (reason printed) on failure."""
    from bookcheck.render import render_book
    try:
        out = render_book(result, fmt)
    except KeyboardInterrupt:
        raise
    except Exception as exc:            # a render failure is reported, not a crash
        print(f"render failed: {type(exc).__name__}: {exc}", file=sys.stderr)
        return None
    return out


def run() -> None:
    """The `bookcheck` console script: main(), its status as the exit status."""
    try:
        status = main()
        sys.stdout.flush()
    except BrokenPipeError:
        # The reader of stdout went away (`bookcheck html | head -1`): the book is not at
        # fault. Python would report the closed pipe again while flushing stdout at exit,
        # so stdout goes to /dev/null first.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        status = 1
    sys.exit(status)
