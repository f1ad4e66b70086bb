"""Whether Pagefind's index was written whole.

Pagefind ignores a failed write: on a full disk it exits 0 and leaves 0-byte or
cut files (issue 34: `make html` published them, and the render cache kept the
broken index for every later build). So its output is read back before it is
used or cached:

* no file is empty (Pagefind writes none);
* `pagefind-entry.json` parses, and each language it lists has its meta file
  (`pagefind.<hash>.pf_meta`) and its WebAssembly (`wasm.<lang>.pagefind`);
* every gzip file (the `.pf_*` index, fragment and meta files, the wasm) inflates
  to its end with a good CRC: a cut one does not;
* the disk still has room: after a write that failed for space there is none
  left, which also catches a cut file that is not compressed (the JS and CSS).
"""
from __future__ import annotations

import gzip
import json
import zlib
from pathlib import Path

from .atomic import disk_full

ENTRY = "pagefind-entry.json"
GZIP_MAGIC = b"\x1f\x8b"


def problem(folder: Path) -> str | None:
    """What is wrong with the index in `folder` (a sentence naming the file), or None."""
    folder = Path(folder)
    files = sorted(p for p in folder.rglob("*") if p.is_file())
    for path in files:
        rel = path.relative_to(folder.parent).as_posix()
        data = path.read_bytes()
        if not data:
            return f"{rel} is empty"
        if data[:2] == GZIP_MAGIC:
            try:
                gzip.decompress(data)
            except (EOFError, OSError, zlib.error) as exc:
                return f"{rel} is cut short ({exc})"
    try:
        entry = json.loads((folder / ENTRY).read_text(encoding="utf-8"))
        languages = entry["languages"]
        needed = [f"pagefind.{lang['hash']}.pf_meta" for lang in languages.values()]
        needed += [f"wasm.{lang['wasm']}.pagefind" for lang in languages.values() if lang.get("wasm")]
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
        return f"{folder.name}/{ENTRY} cannot be read ({exc})"
    absent = [name for name in needed if not (folder / name).is_file()]
    if absent:
        return f"{folder.name}/{absent[0]} is missing"
    if disk_full(folder):
        return f"the disk holding {folder.name}/ is full"
    return None

