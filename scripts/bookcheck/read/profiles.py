"""The configuration Quarto 1.7 reads besides `_quarto.yml`, merged as Quarto merges it.

    _quarto.yml
    + `metadata-files:` listed in it, in order (src/project/project-context.ts)
    + `_quarto-<profile>.yml` for each active profile, the first listed winning
      (src/project/project-profile.ts): profiles are the `profile` argument
      (`--profile`), else `QUARTO_PROFILE` (comma-separated; read here only), else
      `profile: default:`
    + `_quarto.yml.local`

Merging is Quarto's mergeConfigs: mappings merge key by key, a later scalar
replaces an earlier one, lists are concatenated without duplicates (a string
`contents:` is replaced). Bad files become findings, never exceptions.
"""
from __future__ import annotations

import json
import os
from pathlib import Path, PurePosixPath

from bookcheck.model import Finding, Kind

from .yamlio import YAMLError, compose_yaml, yaml_problem

PROFILE_ENV = "QUARTO_PROFILE"
LOCAL_OVERRIDES = ("_quarto.yml.local", "_quarto.yaml.local")   # merged last when present


def merge_configs(base, *others):
    """Quarto's mergeConfigs (lodash mergeWith + its array customizer)."""
    result = base
    for other in others:
        result = _merge(result, other, "")
    return result


def _merge(a, b, key: str):
    if isinstance(a, list) or isinstance(b, list):
        if key == "contents" and isinstance(a, str):
            return b
        if not a:
            return b
        if not b and b != 0:
            return a
        combined, seen = [], set()
        for value in (a if isinstance(a, list) else [a]) + (b if isinstance(b, list) else [b]):
            tag = json.dumps(value, sort_keys=True, default=str)
            if tag not in seen:
                seen.add(tag)
                combined.append(value)
        return combined
    if isinstance(a, dict) and isinstance(b, dict):
        out = dict(a)
        for k, v in b.items():
            out[k] = _merge(a[k], v, k) if k in a else v
        return out
    return a if b is None else b


def active_profiles(config: dict, profile: str | None = None) -> list[str]:
    """`profile` (comma-separated), else QUARTO_PROFILE, else `profile: default:` (a name
    or a list)."""
    named = profile or os.environ.get(PROFILE_ENV, "")
    if not named:
        default = config.get("profile", {}).get("default") \
            if isinstance(config.get("profile"), dict) else None
        named = ",".join(map(str, default)) if isinstance(default, list) else str(default or "")
    return [p.strip() for p in named.split(",") if p.strip()]


def read_mapping(root: Path, rel: str, empty: dict | None = None):
    """(the node tree, the mapping, None) of YAML file `rel`, or (None, None, the Finding);
    an empty file is `empty` (None: not a mapping)."""
    try:
        raw = (Path(root) / rel).read_bytes()
        node, data = compose_yaml(raw.decode("utf-8"))
    except OSError as exc:
        return None, None, Finding(rel, 0, Kind.YAML, f"cannot read {rel}: {exc.strerror}")
    except UnicodeDecodeError as exc:
        return None, None, Finding(rel, raw.count(b"\n", 0, exc.start) + 1, Kind.ENCODING, "not valid UTF-8")
    except YAMLError as exc:
        problem = yaml_problem(exc)
        return None, None, Finding(rel, problem.line or 0, Kind.YAML,
                                   f"malformed YAML: {problem.reason}", col=problem.col)
    data = empty if data is None else data
    if not isinstance(data, dict):
        return None, None, Finding(rel, 1, Kind.YAML, f"{rel} is not a YAML mapping")
    return node, data, None


def _read(root: Path, rel: str) -> tuple[dict | None, Finding | None]:
    return read_mapping(root, rel, empty={})[1:]


def overlay(root: Path, config: dict, profile: str | None = None
            ) -> tuple[dict, list[str], list[str], list[Finding]]:
    """(the merged configuration, the files merged over _quarto.yml, the active
    profiles, findings)."""
    root = Path(root)
    files: list[str] = []
    findings: list[Finding] = []

    def read_layers(rels) -> list[dict]:
        layers = []
        for rel in rels:
            data, problem = _read(root, rel)
            findings.extend([problem] if problem else [])
            if data is not None:
                layers.append(data)
                files.append(rel)
        return layers

    listed = config.get("metadata-files") or []
    merged = merge_configs(config, *read_layers(
        PurePosixPath(str(entry)).as_posix()
        for entry in (listed if isinstance(listed, list) else [listed])))
    active = active_profiles(config, profile)
    profiles = [next((f"_quarto-{name}{ext}" for ext in (".yml", ".yaml")
                      if (root / f"_quarto-{name}{ext}").is_file()), None)
                for name in reversed(active)]
    local = next((name for name in LOCAL_OVERRIDES if (root / name).is_file()), None)
    # Quarto: a profile without a file is fine
    merged = merge_configs(merged, *read_layers(r for r in profiles + [local] if r))
    for key in ("metadata-files", "metadata-file", "profile"):
        merged.pop(key, None)
    return merged, files, active, findings


def directory_metadata(root: Path, rel: str) -> tuple[dict, list[str], list[Finding]]:
    """The `_metadata.yml` files over document `rel` (project-relative), merged as Quarto
    1.7 merges them (src/project/project-shared.ts, directoryMetadataForInputFile: from
    the project's top folder down to the document's, a document at the root reading the
    root's own): (the merged mapping, the files read, findings)."""
    parents = PurePosixPath(rel).parents
    merged, files, findings = {}, [], []
    for folder in [p for p in reversed(parents) if p.parts] or [PurePosixPath()]:
        name = next((f"{folder / n}" for n in ("_metadata.yml", "_metadata.yaml")
                     if (Path(root) / folder / n).is_file()), None)
        data, problem = _read(Path(root), name) if name else (None, None)
        findings += [problem] if problem else []
        merged, files = (merge_configs(merged, data), files + [name]) if data is not None else (merged, files)
    return merged, files, findings
