"""The layout stays readable: docs/architecture.md lists every module of `checker/` (and
nothing else), and no module grows past about 500 lines. The layer order itself is
checked by `lint-imports` (contracts in pyproject.toml), which `.ci/run` runs."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

pytestmark = pytest.mark.unit

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "checker"
MAX_LINES = 500


def _modules() -> set[str]:
    return {p.relative_to(ROOT).as_posix() for p in PACKAGE.rglob("*.py")
            if "__pycache__" not in p.parts}


def _documented() -> set[str]:
    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    listed = text.split("## Modules", 1)[1]
    return set(re.findall(r"^- `(checker/[\w/]+\.py)` — \S", listed, flags=re.M))


def test_every_module_is_in_the_architecture_page() -> None:
    missing = sorted(_modules() - _documented())
    stale = sorted(_documented() - _modules())
    assert not missing, f"add to docs/architecture.md: {missing}"
    assert not stale, f"no longer in checker/, remove from docs/architecture.md: {stale}"


def test_no_module_over_about_500_lines() -> None:
    big = {m: n for m in _modules()
           if (n := len((ROOT / m).read_text(encoding="utf-8").splitlines())) > MAX_LINES}
    assert not big, f"split these along their sections: {big}"
