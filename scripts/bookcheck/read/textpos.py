"""Offsets in a text as 1-based (line, column), as findings name them."""
from __future__ import annotations

import bisect
import re


class Lines:
    """Map character offsets of a text to 1-based (line, column)."""

    def __init__(self, text: str):
        self.starts = [0]
        for m in re.finditer("\n", text):
            self.starts.append(m.end())

    def locate(self, offset: int) -> tuple[int, int]:
        index = bisect.bisect_right(self.starts, offset) - 1
        return index + 1, offset - self.starts[index] + 1
