"""requirements.lock pins exactly what the two pyproject.toml files allow, and the venv has
those pins.

A fresh clone installs `-r requirements.txt -c requirements.lock` (Makefile): bookcheck
(scripts/pyproject.toml) and the book (pyproject.toml, its `test` extra for `make test`),
so the lock must name every requirement of either with a version inside its range; `make
lock` regenerates it. The running environment must be the locked one, or the
book was not checked with the versions a fresh machine gets.
"""
from __future__ import annotations

from importlib import metadata
from pathlib import Path

from packaging.markers import Marker
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[2]


def _requirements() -> list[Requirement]:
    """The dependencies of bookcheck and of the book, with the book's test extra."""
    import tomllib
    out = []
    for path in (ROOT / "scripts" / "pyproject.toml", ROOT / "pyproject.toml"):
        project = tomllib.loads(path.read_text(encoding="utf-8"))["project"]
        out += [Requirement(line) for line in project["dependencies"]
                + project.get("optional-dependencies", {}).get("test", [])]
    return out


def _pins() -> dict[str, str]:
    """name -> version of the lock lines whose marker holds for this interpreter."""
    pins: dict[str, str] = {}
    for raw in (ROOT / "requirements.lock").read_text().splitlines():
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        spec, _, marker = line.partition(";")
        name, sep, version = spec.strip().partition("==")
        assert sep, f"requirements.lock: not an exact pin: {raw!r}"
        if marker.strip() and not Marker(marker.strip()).evaluate():
            continue
        key = canonicalize_name(name)
        assert key not in pins, f"requirements.lock pins {name} twice for this Python"
        pins[key] = version.strip()
    return pins


def test_every_requirement_is_pinned_inside_its_range():
    pins = _pins()
    for req in _requirements():
        if req.marker is not None and not req.marker.evaluate():
            continue                    # not for this Python (zizmor: 3.11+)
        key = canonicalize_name(req.name)
        assert key in pins, f"{req.name} is in requirements.txt but not in requirements.lock: run `make lock`"
        assert req.specifier.contains(pins[key], prereleases=True), \
            f"requirements.lock pins {req.name}=={pins[key]}, outside {req.specifier}: run `make lock`"


def test_the_environment_is_the_locked_one():
    pins = _pins()
    wrong = []
    for key, version in sorted(pins.items()):
        try:
            installed = metadata.version(key)
        except metadata.PackageNotFoundError:
            wrong.append(f"{key}: not installed (lock: {version})")
            continue
        if installed != version:
            wrong.append(f"{key}: {installed} installed, lock says {version}")
    assert wrong == [], "the venv is not the locked one (`make venv` reinstalls it):\n" + "\n".join(wrong)
