"""`make bench` figures for the author's loop and for sharded CI (issue 14).

    prose-only edit          `check` after a sentence is inserted mid-chapter
    code edit (largest)      `check` after a code cell of the largest chapter changes
    preview prose→reload     save to the browser showing the new sentence
    preview code→reload      save of a code change in the largest chapter to the
                             browser showing the value it computes
    4 shards vs 1            cold check of every shard one after another (wall
                             of the slowest, CPU of all), against one cold run

Preview latencies are measured in a real browser (Debian chromium driven by
playwright): the clock starts just before the file is written and stops when
the reloaded page's text holds the new content. Nothing is asserted.
"""
from __future__ import annotations

import queue
import re
import resource
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

from bookcheck import store
from booktools.bench import Checker, Step, _describe, _env, _last_line, run_word

PREVIEW_WAIT_S = 300
LAUNCH_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
               "--disable-component-update", "--disable-sync", "--no-first-run"]


def largest_chapter(root: Path) -> str:
    """The chapter with the most code (characters of its cells)."""
    from bookcheck.read.project import load_project
    from bookcheck.read.qmd import parse_chapter
    docs = load_project(root).documents
    return max(docs, key=lambda rel: sum(len(c.source) for c in parse_chapter(
        rel, (root / rel).read_text(encoding="utf-8")).cells))


def insert_sentence(path: Path, sentence: str) -> None:
    """Append a sentence to the first prose paragraph past the middle of the chapter
    (outside code fences, headings, tables, lists and front matter)."""
    text = path.read_text(encoding="utf-8")
    lines = text.split("\n")
    fence = None
    for i, line in enumerate(lines[:-1]):
        marker = line.lstrip()[:3]
        if marker in ("```", "~~~"):
            fence = None if fence == marker else (fence or marker)
            continue
        if fence or i < len(lines) // 2:
            continue
        prose = line.strip() and not line.lstrip().startswith(("#", "|", "-", "*", ":", "<", "$"))
        if prose and not lines[i + 1].strip():
            lines[i] += " " + sentence
            path.write_text("\n".join(lines), encoding="utf-8")
            return
    path.write_text(text + "\n" + sentence + "\n", encoding="utf-8")


PROBE = "\n\nBench probe: `{python} bench_probe`.\n"


def set_code_probe(path: Path, value: int) -> None:
    """Give the chapter's first code cell the line `bench_probe = value` (a code edit)."""
    text = path.read_text(encoding="utf-8")
    if "bench_probe = " in text:
        text = re.sub(r"bench_probe = \d+", f"bench_probe = {value}", text, count=1)
    else:
        start = text.index("```{python}")
        end = text.index("\n```", start + 1)
        text = text[:end] + f"\nbench_probe = {value}" + text[end:] + PROBE
    path.write_text(text, encoding="utf-8")


def check_step(name: str, checker: Checker, runs: int, prepare, book=None) -> Step:
    """`runs` timed checks, each after `prepare(run)`; with `book`, its peak RSS recorded."""
    step = Step(name)
    for run in range(runs):
        if prepare:
            prepare(run)
        try:
            seconds, done, (rss_kb, child_kb) = checker.run("check")
        except (OSError, subprocess.SubprocessError) as exc:
            step.failed = f"{type(exc).__name__}: {exc}"
            break
        if done.returncode not in (0, 1):     # 1: findings; anything else: it broke
            step.failed = _describe(done)
            break
        step.seconds.append(seconds)
        step.note = _describe(done)
        if book is not None:
            book.peak_rss_kb[name] = max(book.peak_rss_kb.get(name, 0), rss_kb)
            book.child_rss_kb = max(book.child_rss_kb, child_kb)
    return step


def measure_edits(root: Path, runs: int) -> list[Step]:
    """Prose-only edit of the largest chapter; code edit of the largest chapter."""
    chapter = root / largest_chapter(root)
    checker = Checker(root)
    try:
        checker.run("check")            # warm: everything cached before the edits
        prose = check_step("prose-only edit", checker, runs,
                            lambda run: insert_sentence(chapter, f"Bench sentence {run_word(run)}."))
        set_code_probe(chapter, 0)
        checker.run("check")
        code = check_step("code edit (largest chapter)", checker, runs,
                           lambda run: set_code_probe(chapter, run + 1))
    finally:
        checker.close()
    return [prose, code]


class _Preview:
    def __init__(self, root: Path):
        self.proc = subprocess.Popen([sys.executable, "-m", "bookcheck.tools.preview",
                                      "--root", str(root)], cwd=root, env=_env(),
                                     stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        self.lines: queue.Queue = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.proc.stdout:
            self.lines.put(line)

    def url(self) -> str:
        deadline = time.monotonic() + PREVIEW_WAIT_S
        while time.monotonic() < deadline and self.proc.poll() is None:
            try:
                match = re.search(r"preview: (\S+)", self.lines.get(timeout=1))
            except queue.Empty:
                continue
            if match:
                return match.group(1)
        raise RuntimeError("the preview did not start")

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(2)        # SIGINT, as Ctrl-C
            try:
                self.proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self.proc.kill()


def measure_preview(root: Path, runs: int) -> list[Step]:
    """Save-to-reload latency in the browser: prose edit, then code edit, largest chapter."""
    prose, code = Step("preview prose save→reload"), Step("preview code save→reload")
    chromium = shutil.which("chromium")
    if chromium is None:
        prose.failed = code.failed = "Debian chromium is not installed"
        return [prose, code]
    rel = largest_chapter(root)
    chapter = root / rel
    set_code_probe(chapter, 100)
    preview = _Preview(root)
    try:
        from playwright.sync_api import sync_playwright
        url = preview.url()
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=chromium, headless=True, args=LAUNCH_ARGS)
            page = browser.new_page()
            page.goto(url + rel[:-len(".qmd")] + ".html")
            for run in range(runs):
                word = f"Benchpreview{run_word(run)}x"
                started = time.perf_counter()
                insert_sentence(chapter, word + ".")
                page.wait_for_function(f"document.body.innerText.includes('{word}')",
                                       timeout=PREVIEW_WAIT_S * 1000)
                prose.seconds.append(time.perf_counter() - started)
            for run in range(runs):
                started = time.perf_counter()
                set_code_probe(chapter, 101 + run)
                page.wait_for_function(
                    f"document.body.innerText.includes('Bench probe: {101 + run}')",
                    timeout=PREVIEW_WAIT_S * 1000)
                code.seconds.append(time.perf_counter() - started)
            browser.close()
        prose.note = code.note = f"{rel}, measured in chromium"
    except Exception as exc:  # noqa: BLE001 - the benchmark reports and moves on
        failed = f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"[:160]
        prose.failed = prose.failed or (failed if not prose.seconds else "")
        code.failed = failed if not code.seconds else ""
    finally:
        preview.close()
    return [prose, code]


def _cpu_children() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _timed_cpu(cmd: list[str], cwd: Path) -> tuple[float, float, subprocess.CompletedProcess]:
    cpu0, wall0 = _cpu_children(), time.perf_counter()
    done = subprocess.run(cmd, cwd=cwd, env=_env(), capture_output=True, text=True)
    return time.perf_counter() - wall0, _cpu_children() - cpu0, done


def measure_shards(root: Path, count: int = 4) -> list[Step]:
    """One cold unsharded check against `count` cold shards run one after another.

    Steps: `1 shard (cold)`; `slowest of N shards`, with the total CPU of all
    shards and whether the merged findings equal the unsharded ones.
    """
    from bookcheck.run.cache import cache_dir
    from bookcheck.verify.shard import SHARDS
    cache = cache_dir(root)
    base = [sys.executable, "-m", "bookcheck"]
    one, slowest, merge_step = Step("1 shard (cold)"), Step(f"slowest of {count} shards"), \
        Step(f"merge of {count} shards")
    shutil.rmtree(cache, ignore_errors=True)
    wall, cpu, done = _timed_cpu([*base, "check", "--root", str(root)], root)
    if done.returncode not in (0, 1):
        one.failed = _describe(done)
        return [one]
    one.seconds, one.note = [wall], f"CPU {cpu:.1f} s; {_last_line(done.stdout)[:100]}"
    unsharded = [line for line in done.stdout.splitlines() if not line.startswith(("ok:", "FAILED:"))]
    shutil.rmtree(cache, ignore_errors=True)
    walls, cpus, partials = [], [], []
    for index in range(1, count + 1):
        out = store.build_dir(root) / SHARDS / f"bench-{index}-of-{count}.json"
        w, c, d = _timed_cpu([*base, "check", "--root", str(root), "--shard",
                              f"{index}/{count}", "--out", str(out)], root)
        if d.returncode != 0:
            slowest.failed = _describe(d)
            return [one, slowest]
        walls.append(w)
        cpus.append(c)
        partials.append(str(out))
    w, _, d = _timed_cpu([*base, "merge", "--root", str(root), *partials], root)
    merged = [line for line in d.stdout.splitlines() if not line.startswith(("ok:", "FAILED:"))]
    slowest.seconds = [max(walls)]
    slowest.note = (f"shards {' '.join(f'{s:.1f}' for s in walls)} s; total CPU {sum(cpus):.1f} s "
                    f"(1 shard: {cpu:.1f} s); slowest = {100 * max(walls) / wall:.0f} % of 1")
    if d.returncode not in (0, 1):
        merge_step.failed = _describe(d)
        return [one, slowest, merge_step]
    merge_step.seconds = [w]
    merge_step.note = ("findings identical to the unsharded run" if merged == unsharded
                       else "findings DIFFER from the unsharded run") + f"; {_describe(d)}"
    return [one, slowest, merge_step]


def loop_steps(book, runs: int, synthetic: bool, progress=print) -> list[Step]:
    """The real book: edits and preview latency; the synthetic book: 4 shards vs 1."""
    try:
        if synthetic:
            progress(f"[{book.title}] 4 shards vs 1 (cold)")
            return measure_shards(book.root, 4)
        progress(f"[{book.title}] prose-only and code edits")
        steps = measure_edits(book.root, runs)
        progress(f"[{book.title}] preview save→reload in chromium")
        return steps + measure_preview(book.root, runs)
    except Exception as exc:  # noqa: BLE001 - the benchmark reports and moves on
        return [Step("author loop / shards", failed=f"{type(exc).__name__}: {exc}"[:160])]
