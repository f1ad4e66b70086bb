"""Where the external programs live, found without importing their Python packages
(pypandoc's import and its probing of every candidate cost ~60 ms). Shared: the check
runs pandoc's reader (verify/pandoc_lint.py), the renderer its writers (render/pandoc.py)."""
from __future__ import annotations

import functools
import os
from pathlib import Path


def package_dir(name: str) -> Path | None:
    """Where an installed package lives, found without importing it (pypandoc's import
    alone costs more than a whole unchanged render)."""
    from importlib.util import find_spec
    try:
        spec = find_spec(name)
    except (ImportError, ValueError):
        return None
    locations = list(spec.submodule_search_locations or []) if spec else []
    return Path(locations[0]) if locations else None


@functools.lru_cache(maxsize=None)
def pandoc_binary() -> str | None:
    """Path of the pandoc executable: `PYPANDOC_PANDOC` when set (as for pypandoc),
    else the binary pypandoc-binary ships (the version requirements.lock pins);
    else whatever pypandoc finds; None when there is none."""
    chosen = os.environ.get("PYPANDOC_PANDOC")
    if chosen:
        return os.path.expanduser(chosen)
    package = package_dir("pypandoc")
    bundled = package / "files" / "pandoc" if package else None
    if bundled and os.access(bundled, os.X_OK):
        return str(bundled)
    try:
        import pypandoc
        return pypandoc.get_pandoc_path()
    except (ImportError, OSError):
        return None
