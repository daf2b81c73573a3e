"""`load_ruleset(path)`: the spec stages composed (load → schema → validate/lower)."""

from __future__ import annotations

from pathlib import Path

from checker.ir import Ruleset
from checker.spec.lower import lower
from checker.spec.schema import parse_spec
from checker.spec.source import load_spec


def load_ruleset(path: Path, display: str | None = None) -> Ruleset:
    """Load, validate and lower the spec at `path`; raise `SpecError` on bad input."""
    tree = load_spec(path, display)
    return lower(tree, parse_spec(tree))
