"""Shared pytest hooks.

* Hypothesis profiles: `ci` (derandomized, no deadline, no example database) is loaded when
  the environment variable CI is set, `dev` otherwise; HYPOTHESIS_PROFILE=<name> picks one.
* Test layers (tests/README.md): every collected test must carry exactly one of the layer
  marks `unit`, `corpus`, `differential`, `e2e`, else collection fails.
* `slow` tests run only under a `-m` expression that names `slow` (so `-m "not e2e"`
  does not bring them back).
* After a run that generated random rulesets, say how many (the number the reliability
  notes report) and how each engine fared.
"""

from __future__ import annotations

import os
import sys
from typing import Any

import pytest
from hypothesis import settings

LAYERS = ("unit", "corpus", "differential", "e2e")

settings.register_profile("dev", deadline=None)
settings.register_profile("ci", derandomize=True, deadline=None, database=None,
                          print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE") or
                      ("ci" if os.environ.get("CI") else "dev"))


@pytest.hookimpl(tryfirst=True)  # before -m deselects anything: every test is checked
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    _check_layers(items)
    _deselect_slow(config, items)


def _check_layers(items: list[pytest.Item]) -> None:
    wrong = []
    for item in items:
        layers = sorted({m.name for m in item.iter_markers() if m.name in LAYERS})
        if len(layers) != 1:
            wrong.append(f"  {item.nodeid}: {', '.join(layers) or 'no layer mark'}")
    if wrong:
        raise pytest.UsageError(
            f"every test needs exactly one layer mark of {', '.join(LAYERS)} (a module-level "
            "`pytestmark = pytest.mark.unit`, or one per test; see tests/README.md):\n"
            + "\n".join(wrong))


def _deselect_slow(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The slow profiles run only when asked for by name: pyproject's addopts say
    `-m 'not slow'`, but a `-m` on the command line replaces that expression, so
    `pytest -m "not e2e"` would otherwise run them. Any -m that mentions `slow` decides."""
    if "slow" in (config.getoption("markexpr") or ""):
        return
    slow = [item for item in items if item.get_closest_marker("slow") is not None]
    if slow:
        config.hook.pytest_deselected(items=slow)
        items[:] = [item for item in items if item.get_closest_marker("slow") is None]


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
