"""Strict reading of numbers.lock: every line is a comment, blank, or one entry.

A ledger that was merged badly must not pass: a conflict marker would
otherwise be skipped and the later of two values silently win. `problems(text)`
returns ``(line, reason)`` for every line that is not ``key<TAB>value``
(comments start with ``#``; blank lines are allowed), every merge-conflict
marker, and every key recorded more than once. Each reason says how to
resolve it. Stdlib only.
"""
from __future__ import annotations

import re

CONFLICT = re.compile(r"^(<{7}|={7}|>{7}|\|{7})(?:\s|$)")
REWRITE = "run `bookcheck numbers` to rewrite numbers.lock from the book"


def problems(text: str, unescape=lambda s: s) -> list[tuple[int, str]]:
    """(1-based line, reason) for every line of `text` that a strict reader refuses."""
    found: list[tuple[int, str]] = []
    first_line: dict[str, int] = {}
    for number, line in enumerate(text.split("\n"), start=1):
        if CONFLICT.match(line) and "\t" not in line:     # an entry always has its tab
            found.append((number, f"merge conflict marker {line[:7]!r}: resolve the conflict "
                                  f"(keep one value per key, delete the markers) or {REWRITE}"))
            continue
        if line.startswith("#") or not line.strip():
            continue
        if "\t" not in line:
            shown = line if len(line) <= 60 else line[:57] + "..."
            found.append((number, f"not a `key<TAB>value` entry: {shown!r}; fix the line or {REWRITE}"))
            continue
        key = unescape(line.split("\t", 1)[0])
        if key == "":
            found.append((number, f"entry with an empty key; delete the line or {REWRITE}"))
            continue
        if key in first_line:
            shown = key if len(key) <= 80 else key[:77] + "..."
            found.append((number, f"key recorded twice (lines {first_line[key]} and {number}): "
                                  f"{shown}; keep one of them or {REWRITE}"))
            continue
        first_line[key] = number
    return found
