"""A page's apply pass without citeproc, when its citations are the ones last rendered.

pandoc's `--citeproc` spends ~0.1 s loading the citation style and locale before
it renders anything (docs/performance.md, item 8). Every HTML apply pass with
citeproc also records each citation's rendered text and the reference list
(`filters/citations.lua`, mode capture), in the render cache under the chapter, its
front matter, the citeproc arguments and the bibliography's bytes; the next apply
pass runs without citeproc and puts them back (mode reuse) after checking that the
page's citations are exactly the recorded ones, in order; otherwise citeproc runs.
The page is byte-identical either way (tests/render/test_citations.py).

Only the HTML pages, only with pandoc's default citation style: a `csl:` style
may turn citations into footnotes, which the record does not hold.
"""
from __future__ import annotations

import re
from pathlib import Path
from typing import Callable

from . import pandoc
from .errors import RenderError
from .incremental import RenderCache

FILTER = pandoc.FILTERS / "citations.lua"
CITEPROC_RUNS: list[str] = []       # chapters whose apply pass ran citeproc (for tests)
FRONT_MATTER = re.compile(r"\A---\n.*?\n(?:---|\.\.\.)\n", re.S)


def reusable(cache: RenderCache | None, citeproc: list[str], target: str) -> bool:
    """Whether an apply pass with these citeproc arguments may reuse a record."""
    return (cache is not None and target == "html" and "--citeproc" in citeproc
            and not any(a.startswith("--csl=") for a in citeproc))


def record_key(chapter_path: str, markdown: str, citeproc: list[str], inputs: list[str]) -> tuple:
    """The cache key parts of a chapter's citation record: everything besides the
    citations themselves that changes how citeproc renders them (`inputs`: the
    bibliography's digests, incremental.files_digest)."""
    front = FRONT_MATTER.match(markdown)
    flags = [a.split("=")[0] if a.startswith("--bibliography=") else a for a in citeproc]
    return ("citations", chapter_path, front.group(0) if front else "", flags, inputs)


def run_reusing(cache: RenderCache, key_parts: tuple, chapter_path: str, record: Path,
                args: list[str], citeproc: list[str], extra: list[str]) -> Callable[[], str]:
    """The apply pass of one page as a function (pandoc `args` up to our filters, then
    `citeproc`'s, then `extra`): with the chapter's citation record, without citeproc;
    else (no record, or that run failed: the citations changed, or anything else,
    which the run with citeproc then meets and reports) with citeproc, recording
    them in `record` and the cache for the next time."""
    others = [a for a in citeproc if a != "--citeproc"]

    def run() -> str:
        stored = cache.get(cache.key(*key_parts))
        if stored is not None:
            record.write_text(stored, encoding="utf-8")
            try:
                return pandoc.run([*args, *_filter("reuse", record), *others, *extra],
                                  what=chapter_path)
            except RenderError:     # the citations changed (or a damaged record): citeproc
                pass
        CITEPROC_RUNS.append(chapter_path)
        page = pandoc.run([*args, "--citeproc", *_filter("capture", record), *others, *extra],
                          what=chapter_path)
        try:
            cache.put(cache.key(*key_parts), record.read_text(encoding="utf-8"))
        except OSError:
            pass                # no record: the next apply pass runs citeproc again
        return page

    return run


def _filter(mode: str, record: Path) -> list[str]:
    return [f"--metadata=cites-mode:{mode}", f"--metadata=cites-file:{record}",
            f"--lua-filter={FILTER}"]
