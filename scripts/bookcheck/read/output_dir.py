"""Whether `project: output-dir:` may be replaced whole, and the manifest that says so.

A render builds the book in a staging folder and swaps it in for the output folder,
deleting what was there (render/atomic.py). So an output folder is refused (a finding
at its line in _quarto.yml, before anything runs) when it

* is the project folder, or holds it;
* is outside the project (`../other`: someone else's folder);
* holds a source (a chapter, the bibliography, _quarto.yml) or the checker's caches,
  or lies inside a source folder (`contents/html`: a folder the book is read from);
* already exists and holds files this pipeline did not write.

What the pipeline wrote is listed in the output folder's manifest (MANIFEST, written
by `write_manifest` before every swap, and updated by a preview's page writes and the
post-render hook). The project type's default folder (`_book`, `_site`) is always
taken as output: Quarto too empties it on a full render, and it may hold Quarto's own
pages; any other existing folder must hold only what its manifest lists (with no
manifest, nothing: `docs/` with the author's files in it is someone's).
"""
from __future__ import annotations

import json
import os
from pathlib import Path

from bookcheck import store
from bookcheck.model import Finding, Kind
from bookcheck.read import CONFIG

MANIFEST = ".bookcheck-output.json"     # in the output folder: every file a render wrote
CODE_SUFFIXES = (".qmd", ".ipynb", ".py", ".bib")   # what marks a folder as a source folder
SHOWN = 3                               # foreign files named in the finding


def unsafe(project, line: int, default_name: str) -> list[Finding]:
    """The finding for an output folder a render must not replace (none when it may)."""
    root = Path(project.root).resolve()
    out = (root / project.output_dir).resolve()
    what = _why_not(project, root, out, default_name)
    if what is None:
        return []
    return [Finding(CONFIG, line, Kind.OUTPUT_DIR,
                    f"`output-dir: {project.output_dir}` {what}: a render replaces its output "
                    f"folder whole, so give the book a folder of its own inside the project "
                    f"(Quarto's default for a book is `_book`)")]


def _why_not(project, root: Path, out: Path, default_name: str) -> str | None:
    if out == root:
        return "is the project folder"
    if (root / store.BUILD).resolve() in out.parents:
        return f"is inside the checker's caches ({store.BUILD}/)"
    if out in root.parents:
        return "holds the project folder"
    if root not in out.parents:
        return "is outside the project folder"
    sources = {f"the book's sources ({rel})": root / rel
               for rel in project.documents + project.bibliography + [CONFIG]}
    sources[f"the checker's caches ({store.BUILD}/)"] = root / store.BUILD / "x"
    held = next((name for name, path in sources.items() if out in path.resolve().parents), None)
    if held:
        return f"holds {held}"
    folder = _source_folder_above(root, out)
    if folder:
        return folder
    foreign = foreign_files(out, default=out.name == default_name)
    if foreign:
        more = f" and {len(foreign) - SHOWN} more" if len(foreign) > SHOWN else ""
        return (f"holds files this pipeline did not write ({', '.join(foreign[:SHOWN])}{more}; "
                "move them out first)")
    return None


def _source_folder_above(root: Path, out: Path) -> str | None:
    """'is inside a source folder (…)' when a folder between the root and `out` holds,
    outside `out`, a chapter, notebook, module or bibliography."""
    for folder in reversed(out.parents):
        if folder == root or root not in folder.parents:
            continue
        for here, dirs, names in os.walk(folder):
            dirs[:] = sorted(d for d in dirs if Path(here, d) != out and not d.startswith("."))
            found = sorted(n for n in names if n.endswith(CODE_SUFFIXES))
            if found:
                rel = Path(here, found[0]).relative_to(root).as_posix()
                return f"is inside a source folder ({folder.relative_to(root).as_posix()}/, which holds {rel})"
    return None


def foreign_files(out: Path, default: bool) -> list[str]:
    """Files under `out` (relative, sorted) that no render of this pipeline wrote: not
    in its manifest (with none, every file); none when `default` (the type's default
    folder, which Quarto too empties on a full render: a stale regular file standing
    at that path is replaced whole too). Not a folder elsewhere, or a link: its own name."""
    if not out.exists() and not out.is_symlink():
        return []
    if out.is_symlink():
        return [out.name]
    if default:
        return []
    if not out.is_dir():
        return [out.name]
    written = manifest_files(out)
    present = listing(out)
    return sorted(set(present) - (written or set()))


def listing(folder: Path) -> list[str]:
    """Every file and link under `folder` (relative POSIX paths), but the manifest."""
    found = []
    for here, dirs, names in os.walk(folder):
        base = Path(here).relative_to(folder)
        found += [(base / n).as_posix() for n in names]
        found += [(base / d).as_posix() for d in dirs if Path(here, d).is_symlink()]
    return sorted(f for f in found if f != MANIFEST)


def manifest_files(out: Path) -> set[str] | None:
    """The files the manifest in `out` lists; None without a readable one."""
    try:
        data = json.loads((out / MANIFEST).read_text(encoding="utf-8"))
        return {str(f) for f in data["files"]}
    except (OSError, ValueError, KeyError, TypeError):
        return None


def write_manifest(folder: Path, also: list[str] = ()) -> None:
    """List every file now in `folder` (and `also`, kept from an earlier manifest) as
    written by this pipeline."""
    files = sorted(set(listing(folder)) | set(also))
    store.write_json(Path(folder) / MANIFEST, {"written-by": "bookcheck", "files": files})


def add_to_manifest(folder: Path, files: list[str]) -> None:
    """Record `files` (relative to `folder`) as written, beside what is listed already."""
    write_manifest(folder, sorted((manifest_files(folder) or set()) | set(files)))
