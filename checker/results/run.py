"""A run's results: each checked ruleset with its results and its text coverage."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from checker.ir import Ruleset
from checker.results import RulesetResult
from checker.results.coverage import Coverage

Progress = Callable[[str, str, int, int], None]   # (ruleset, item, done, total)


@dataclass
class CheckedRuleset:
    ruleset: Ruleset
    result: RulesetResult
    coverage: Coverage


@dataclass
class Run:
    checked: list[CheckedRuleset]
