"""The one YAML loader (front matter, cell options, _quarto.yml).

libyaml when present (option blocks are parsed for every cell of every
chapter); on an error the pure-Python parser runs again, for its more precise
marks (libyaml often points past the end).
"""
from __future__ import annotations

import yaml

YAMLError = yaml.YAMLError
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def load_yaml(text: str):
    """yaml.safe_load of `text`; raises yaml.YAMLError with the best marks available."""
    try:
        return yaml.load(text, Loader=_LOADER)
    except yaml.YAMLError:
        if _LOADER is yaml.SafeLoader:
            raise
        return yaml.safe_load(text)


def compose_yaml(text: str):
    """(node tree with line marks, plain data) of `text`; raises like load_yaml."""
    try:
        return yaml.compose(text, Loader=_LOADER), yaml.load(text, Loader=_LOADER)
    except yaml.YAMLError:
        if _LOADER is yaml.SafeLoader:
            raise
        return yaml.compose(text, Loader=yaml.SafeLoader), yaml.safe_load(text)
