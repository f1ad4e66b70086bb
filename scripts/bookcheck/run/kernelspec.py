"""The one kernelspec lookup: which `python3` kernel the executor starts.

Searched in Jupyter's data path order (`JUPYTER_PATH`, the user's, then the
environment's and the system's share/jupyter/kernels), as jupyter_client does,
so the cache key names the same kernel the fork server and nbclient launch.
When none is installed the kernel is ipykernel's built-in one for this
interpreter. Imports jupyter_core only (no jupyter_client).

`jupyter:` (front matter, else _quarto.yml) names the kernel as Quarto reads
it: a kernel name, `true` (python3), or `{kernelspec: {name: ...}}`. A name no
installed kernelspec has, or a kernel that is not Python, is an error (Quarto
stops too): `kernel_problem` says so, listing what is installed.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

KERNEL_MODULE = "ipykernel_launcher"
BUILTIN_ARGV = [sys.executable, "-m", KERNEL_MODULE, "-f", "{connection_file}"]


BUILTIN_NAMES = ("python3", "python")


def _folders() -> list[str]:
    try:
        from jupyter_core.paths import jupyter_path
        return jupyter_path("kernels")
    except ImportError:          # jupyter_core missing: only the built-in kernel exists
        return []


def installed_names() -> list[str]:
    """Names of the installed kernelspecs, plus the built-in python3."""
    names = {"python3"}
    for folder in _folders():
        try:
            names.update(p.name for p in Path(folder).iterdir() if (p / "kernel.json").is_file())
        except OSError:
            continue
    return sorted(names)


def requested_name(value) -> str | None:
    """The kernel name a `jupyter:` value asks for (None: the key says nothing usable)."""
    if value is True:
        return "python3"
    if isinstance(value, str) and value.strip():
        return value.strip()
    if isinstance(value, dict):
        spec = value.get("kernelspec")
        name = spec.get("name") if isinstance(spec, dict) else None
        return str(name) if name else "python3"
    return None


def kernel_problem(value) -> str | None:
    """Why the `jupyter:` value cannot run here, or None when it names a Python kernel."""
    name = requested_name(value)
    if name is None or name in BUILTIN_NAMES:
        return None
    for folder in _folders():
        try:
            spec = json.loads((Path(folder) / name / "kernel.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        language = str(spec.get("language", "python")).lower() if isinstance(spec, dict) else ""
        if language == "python":
            return None
        return (f"jupyter kernel {name!r} runs {language}, not Python: this checker runs "
                f"Python chapters only (write `jupyter: python3`)")
    return (f"no Jupyter kernel named {name!r} is installed (installed: "
            f"{', '.join(installed_names())}): install it or write `jupyter: python3`")


def kernel_spec(name: str = "python3") -> dict:
    """{"name", "argv", "source"}: the first readable kernel.json for `name`."""
    for folder in _folders():
        spec_dir = Path(folder) / name
        try:
            argv = json.loads((spec_dir / "kernel.json").read_text(encoding="utf-8"))["argv"]
        except (OSError, ValueError, KeyError, TypeError):
            continue
        return {"name": name, "argv": list(argv), "source": str(spec_dir)}
    return {"name": name, "argv": list(BUILTIN_ARGV), "source": "builtin"}
