"""The seed rulesets checked once per test session, shared by the e2e tests that need a
fresh full check of one (tests/test_seed_expectations.py, tests/test_determinism.py): a
fresh Eldfall check takes about 11.5 minutes on two cores, so it is done once.

Each is checked as `ruleproof check spec/<name>.yaml --no-cache --jobs 2` checks it (the
worker pool, the reading variants side by side), and `json_of` renders the JSON report the
command would write: byte-identical to `--json`, which test_determinism relies on."""

from __future__ import annotations

from functools import cache
from pathlib import Path

from checker.options import Options
from checker.results.run import CheckedRuleset
from checker.spec.load import load_ruleset

ROOT = Path(__file__).resolve().parent.parent
OPTIONS = Options(use_cache=False, jobs=2)


@cache
def checked(name: str) -> CheckedRuleset:
    from checker.plan.executors import check_parallel
    ruleset = load_ruleset(ROOT / "spec" / f"{name}.yaml", f"spec/{name}.yaml")
    (done,) = check_parallel([ruleset], OPTIONS)
    return done


def json_of(name: str) -> bytes:
    """The JSON report of `checked(name)`, as `--json` writes it."""
    from checker.report.data import build_report
    from checker.report.json_report import JsonReporter
    from checker.results.run import Run
    return JsonReporter().render(build_report(Run([checked(name)]), OPTIONS)).encode("utf-8")
