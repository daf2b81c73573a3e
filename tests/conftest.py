"""Shared pytest hooks: after a run that generated random rulesets, say how many (the
number the reliability notes report) and how each engine fared."""

from __future__ import annotations

import sys
from typing import Any


def pytest_terminal_summary(terminalreporter: Any) -> None:
    module = sys.modules.get("test_differential")
    tally = getattr(module, "TALLY", None)
    if not tally:
        return
    terminalreporter.write_sep("-", "differential testing")
    terminalreporter.write_line(
        f"{tally['rulesets']} generated rulesets, {tally['properties']} properties, each "
        "decided by every engine and compared with explicit search (failures above)")
    engines = sorted(k for k in tally if ":" in k)
    terminalreporter.write_line(", ".join(f"{k} {tally[k]}" for k in engines))
