"""Sharded checks: split the chapters over N runners, merge the partial results.

    bookcheck check --shard 2/4        # checks a quarter, writes a partial
    bookcheck merge _bookcheck/shards/*.json   # the verdict of one whole run

What a plan, a partial and a merge are, and what a merge refuses, is the
README's "Sharded checks". Plan: chapters are dealt longest first (`chapter_costs`:
the run times the last check recorded in the store's `shards` folder, else sizes) to
the least loaded shard (ties: the lower shard, then book order), so every shard
computes the same plan.
A partial records the digest of the code that made it (`bookcheck.verify.sharding`
and all it imports) and of every source file it checked
(`Project.source_files()`); a merge refuses partials of other code or of another
tree, and its findings equal those of one unsharded run.
"""
from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path

from bookcheck import store
from bookcheck.model import Finding, ParsedChapter, finding_from_dict

CODE = "bookcheck.verify.sharding"        # what writes a partial: the whole check, by import
SHARDS = "shards"                       # the store folder of partials and timings
TIMINGS = ".timings"


class ShardError(ValueError):
    """A bad shard spec or partial result; the message names the file."""


# ------------------------------------------------------------------ the plan

@dataclass(frozen=True)
class Shard:
    index: int      # 1-based
    count: int

    @classmethod
    def parse(cls, text: str) -> "Shard":
        """`"2/4"` -> Shard(2, 4); raises ShardError on anything else."""
        try:
            index_text, count_text = str(text).split("/")
            shard = cls(int(index_text), int(count_text))
        except ValueError:
            raise ShardError(f"shard must look like i/N (e.g. 2/4), not {text!r}") from None
        if not 1 <= shard.index <= shard.count:
            raise ShardError(f"shard {text}: need 1 <= i <= N")
        return shard

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"


def chapter_costs(root: Path, documents: list[str], timings: dict[str, float]) -> dict[str, float]:
    """Expected cost of each chapter: recorded seconds, else bytes scaled to seconds.

    With no recorded time at all the unit is bytes; chapters missing from a
    partial record are priced at the recorded chapters' seconds per byte.
    """
    sizes = {}
    for rel in documents:
        try:
            sizes[rel] = float((Path(root) / rel).stat().st_size)
        except OSError:
            sizes[rel] = 0.0
    known = {rel: float(timings[rel]) for rel in documents
             if isinstance(timings.get(rel), (int, float)) and timings[rel] >= 0}
    if not known:
        return sizes
    known_bytes = sum(sizes[rel] for rel in known)
    per_byte = sum(known.values()) / known_bytes if known_bytes else 0.0
    return {rel: known.get(rel, sizes[rel] * per_byte) for rel in documents}


def plan(documents: list[str], costs: dict[str, float], count: int) -> list[list[str]]:
    """Longest-processing-time-first assignment of chapters to `count` shards.

    Deterministic: ties in cost keep book order, ties in load go to the lower
    shard. Each shard's chapters are returned in book order.
    """
    order = {rel: n for n, rel in enumerate(documents)}
    loads = [0.0] * count
    shards: list[list[str]] = [[] for _ in range(count)]
    for rel in sorted(documents, key=lambda r: (-costs.get(r, 0.0), order[r])):
        target = min(range(count), key=lambda i: (loads[i], i))
        shards[target].append(rel)
        loads[target] += costs.get(rel, 0.0)
    return [sorted(s, key=order.__getitem__) for s in shards]


def plan_digest(shards: list[list[str]]) -> str:
    return store.digest(shards)[:16]


def source_digests(root: Path, files: list[str]) -> dict[str, str]:
    """sha256 (16 hex digits) of each project-relative regular file (never a FIFO or
    device: it would block); "not a file" otherwise."""
    return {rel: store.file_digest(Path(root) / rel, "not a file")[:16] for rel in files}


def tree_digest(digests: dict[str, str]) -> str:
    """One digest of a source tree (its files' names and contents)."""
    return store.digest(sorted(digests.items()))[:16]


def tree_difference(ours: dict[str, str], theirs: dict[str, str], limit: int = 3) -> str:
    """The first few files that differ between two trees, for a message."""
    names = sorted(k for k in set(ours) | set(theirs) if ours.get(k) != theirs.get(k))
    shown = ", ".join(names[:limit]) + (f" and {len(names) - limit} more" if len(names) > limit else "")
    return shown or "none"


def load_timings(root: Path) -> dict[str, float]:
    """Last recorded run time of each chapter ({} when none is recorded)."""
    data = store.Store(root, SHARDS).get_json(TIMINGS, {})
    return {str(k): float(v) for k, v in data.items()
            if isinstance(v, (int, float))} if isinstance(data, dict) else {}


def save_timings(root: Path, seconds: dict[str, float]) -> None:
    """Record chapter run times for the next plan (best effort: speed, not correctness)."""
    merged = {**load_timings(root), **{k: round(float(v), 4) for k, v in seconds.items()}}
    store.Store(root, SHARDS).put_json(TIMINGS, merged)


# ------------------------------------------------------------- one shard

def default_partial_path(root: Path, shard: Shard) -> Path:
    return store.build_dir(root) / SHARDS / f"shard-{shard.index}-of-{shard.count}.json"


def chapter_record(parsed: ParsedChapter | None, run, findings: list[Finding],
                   entries: dict[str, str], text: list[list[Finding]] = ()) -> dict:
    """What the merge needs of one chapter (JSON-ready).

    findings: from reading and running it; text: the findings of each text check
    (check.text_checks), reported check by check after every chapter's own
    findings, as one unsharded run does.
    """
    if parsed is None:          # unreadable: only its findings
        return {"parsed": False, "findings": [asdict(f) for f in findings], "text": []}
    return {"parsed": True,
            "findings": [asdict(f) for f in findings],
            "text": [[asdict(f) for f in found] for found in text],
            "labels": [list(x) for x in parsed.labels],
            "references": [list(x) for x in parsed.references],
            "citations": [list(x) for x in parsed.citations],
            "title_heading": parsed.title_heading,
            "entries": entries,
            "run_failed": bool(run.findings),
            "seconds": run.seconds, "cached": run.cached, "invariants": run.invariants,
            "cells": len(parsed.cells), "inlines": len(parsed.inlines)}


def partial(shard: Shard, shards: list[list[str]], documents: list[str],
            chapters: dict[str, dict], seconds: float, sources: dict[str, str]) -> dict:
    return {"format": store.code_digest(CODE), "shard": [shard.index, shard.count],
            "plan": plan_digest(shards), "documents": documents,
            "tree": tree_digest(sources), "sources": sources,
            "assigned": shards[shard.index - 1], "chapters": chapters, "seconds": seconds}


def write_partial(path: Path, data: dict) -> Path:
    return store.write_json(Path(path), data)


def read_partial(path: Path) -> dict:
    """A partial result; ShardError naming the file when it is not one."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as exc:
        raise ShardError(f"{path}: cannot read the partial result: {exc.strerror}") from None
    except ValueError as exc:
        raise ShardError(f"{path}: not a partial result (bad JSON: {exc})") from None
    keys = {"format", "shard", "plan", "documents", "assigned", "chapters", "tree", "sources"}
    if not isinstance(data, dict) or "format" not in data:
        raise ShardError(f"{path}: not a partial result of `check --shard`")
    if data["format"] != store.code_digest(CODE):
        raise ShardError(f"{path}: written by another version of the checker: "
                         f"rerun this shard with this checker")
    if not isinstance(data, dict) or not keys <= set(data):
        raise ShardError(f"{path}: not a partial result of `check --shard`")
    if set(data["chapters"]) != set(data["assigned"]):
        raise ShardError(f"{path}: records chapters its shard was not assigned")
    try:
        [record_findings(record) for record in data["chapters"].values()]
    except ValueError as exc:                   # a finding kind this checker does not know
        raise ShardError(f"{path}: {exc}: rerun this shard with this checker") from None
    return data


# ------------------------------------------------------------------ merging

@dataclass
class MergedChapters:
    """The union of the partials, in book order, ready for the book-wide checks."""
    documents: list[str]
    records: dict[str, dict]
    shards: int
    seconds_slowest: float = 0.0
    partials: list[dict] = field(default_factory=list)     # the merged partials' data

    def parsed_stubs(self) -> dict[str, ParsedChapter]:
        """ParsedChapters carrying exactly what cross-reference and citation checks read."""
        return {rel: ParsedChapter(path=rel, text="",
                                   labels=[tuple(x) for x in rec["labels"]],
                                   references=[tuple(x) for x in rec["references"]],
                                   citations=[tuple(x) for x in rec["citations"]],
                                   title_heading=rec.get("title_heading", 0))
                for rel, rec in self.records.items() if rec["parsed"]}


def _complete(group: list[tuple[Path, dict]]) -> bool:
    indices = [data["shard"][0] for _, data in group]
    return sorted(indices) == list(range(1, group[0][1]["shard"][1] + 1))


def _names(group: list[tuple[Path, dict]]) -> str:
    return ", ".join(str(path) for path, _ in group)


def pick(partials: list[tuple[Path, dict]], tree: dict[str, str]
         ) -> tuple[list[tuple[Path, dict]], list[Path]]:
    """The partials to merge and those set aside (stale: another plan or tree).

    The partials are grouped by plan and source tree. Exactly one group may be
    merged: it checked `tree` (the merging project's sources) and is one plan's
    complete set. Other groups are set aside only when such a set exists;
    otherwise a ShardError names what is wrong and which files to delete.
    """
    if not partials:
        raise ShardError("no partial results to merge")
    current = tree_digest(tree)
    groups: dict[tuple, list[tuple[Path, dict]]] = {}
    for path, data in partials:
        key = (data["tree"], data["plan"], data["shard"][1], tuple(data["documents"]))
        groups.setdefault(key, []).append((path, data))
    ours = [g for key, g in groups.items() if key[0] == current]
    complete = [g for g in ours if _complete(g)]
    if len(complete) == 1:
        chosen = complete[0]
        return chosen, [path for path, _ in partials if all(path is not p for p, _ in chosen)]
    if not ours:
        path, data = partials[0]
        others = {key[0] for key in groups}
        if len(others) > 1:
            second = next(d for _, d in partials if d["tree"] != data["tree"])
            raise ShardError(f"the partials checked different source trees (files that differ: "
                             f"{tree_difference(data['sources'], second['sources'])}): "
                             f"rerun every shard on one commit")
        raise ShardError(f"{path}: checked another source tree than this project (files that "
                         f"differ: {tree_difference(tree, data['sources'])}): rerun the shards "
                         f"on this tree, or merge in the tree they checked")
    main = ours[0]
    seen: dict[int, Path] = {}
    for path, data in main:
        index, n = data["shard"]
        if index in seen:
            raise ShardError(f"{path}: shard {index}/{n} is also in {seen[index]}")
        seen[index] = path
    stale = [(p, d) for p, d in partials if all(p is not q for q, _ in main)]
    count = main[0][1]["shard"][1]
    if stale:
        other_tree = [(p, d) for p, d in stale if d["tree"] != current]
        why = (f"checked another source tree (files that differ: "
               f"{tree_difference(tree, other_tree[0][1]['sources'])})" if other_tree else
               "come from another plan (different chapters, times or N)")
        raise ShardError(f"{_names(stale)}: {why} than {_names(main)}, and no plan's set is "
                         f"complete: delete the stale partials, or rerun every shard on one commit")
    missing = sorted(set(range(1, count + 1)) - set(seen))
    raise ShardError(f"missing shard{'s' * (len(missing) > 1)} "
                     f"{', '.join(f'{i}/{count}' for i in missing)}")


def combine(partials: list[tuple[Path, dict]], tree: dict[str, str]
            ) -> tuple[MergedChapters, list[Path]]:
    """The union of one plan's complete set of partials of `tree`, and the paths set aside."""
    chosen, aside = pick(partials, tree)
    count = chosen[0][1]["shard"][1]
    records: dict[str, dict] = {}
    for _, data in chosen:
        records.update(data["chapters"])
    documents = list(chosen[0][1]["documents"])
    absent = [rel for rel in documents if rel not in records]
    if absent:
        raise ShardError(f"no shard checked {', '.join(absent)}")
    slowest = max(float(d.get("seconds", 0.0)) for _, d in chosen)
    return MergedChapters(documents, {rel: records[rel] for rel in documents}, count,
                          slowest, [data for _, data in chosen]), aside


def record_findings(record: dict) -> list[Finding]:
    """A chapter's own findings, then those of its text checks."""
    own = [finding_from_dict(f) for f in record["findings"]]
    return own + [finding_from_dict(f) for found in record["text"] for f in found]


def chapter_findings(merged: MergedChapters) -> list[Finding]:
    """Per-chapter findings in the order of one unsharded run: unreadable chapters'
    first, then each chapter's own, then each text check's for every chapter."""
    recs = list(merged.records.values())
    unreadable = [f for rec in recs if not rec["parsed"] for f in rec["findings"]]
    own = [f for rec in recs if rec["parsed"] for f in rec["findings"]]
    checks = max((len(rec["text"]) for rec in recs), default=0)
    text = [f for k in range(checks) for rec in recs if k < len(rec["text"])
            for f in rec["text"][k]]
    from bookcheck.verify.blame import once_per_book
    return once_per_book([finding_from_dict(f) for f in unreadable + own + text])


def same_profiles(partials: list[tuple[Path, dict]], profiles: list[str]) -> None:
    """ShardError unless every partial was checked under `profiles` (the Quarto profiles
    the merge reads the project with): a profile changes the chapters' options, so
    partials of two profiles are not one run."""
    for path, data in partials:
        theirs = list(data.get("profiles", []))
        if theirs != list(profiles):
            fix = (f"merge with `--profile {','.join(theirs)}`" if theirs else
                   "merge without a profile (QUARTO_PROFILE unset)")
            raise ShardError(f"{path}: checked under {_profiles(theirs)}, this merge reads the "
                             f"project under {_profiles(profiles)}: {fix}, or rerun every "
                             f"shard under one")


def _profiles(names: list[str]) -> str:
    return f"profile {','.join(names)}" if names else "no profile"


def read_all(paths: list[Path]) -> list[tuple[Path, dict]]:
    return [(Path(p), read_partial(Path(p))) for p in paths]


@dataclass
class ShardOutcome:
    """What `check --shard` reports: its partial file and its chapters' own findings."""
    path: Path
    shard: Shard
    chapters: list[str]
    findings: list[Finding] = field(default_factory=list)
    seconds: float = 0.0
