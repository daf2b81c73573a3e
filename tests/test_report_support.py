"""Test fixtures for the report tests (no tests here): a `Run` built from real rulesets,
with verdicts and traces from the reference interpreter and a few hand-made findings.

The engines are not used: every `PropertyResult` below is made by this fixture from
`checker.interpret.explore` (method "explicit"), and the conflict findings are hand-made, so
the report tests do not depend on the engines' answers.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import pytest

from checker.graph import structural_findings
from checker.interpret import explore, replay
from checker.ir import Property, Ruleset
from checker.results import (
    Finding,
    Method,
    PropertyResult,
    RulesetResult,
    Status,
    StopReason,
    Trace,
)
from checker.results import findings as derived
from checker.results.run import CheckedRuleset, Run
from checker.spec.coverage import coverage
from checker.spec.load import load_ruleset

pytestmark = pytest.mark.unit

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures" / "report"
GOLDEN = ROOT / "tests" / "golden"
ARTIFACTS = ROOT / "tests" / "artifacts"


def load(rel: str) -> Ruleset:
    """Load the spec at `rel` (relative to the repo root), shown as `rel`."""
    return load_ruleset(ROOT / rel, rel)


def explicit_result(ruleset: Ruleset, prop: Property) -> PropertyResult:
    """The verdict of explicit search on `prop`, with its replayed trace."""
    ex = explore(ruleset.system, prop)
    trace: Trace | None = None
    if ex.verdict == "limit":
        return PropertyResult(prop.id, prop.kind, Status.UNKNOWN, Method.EXPLICIT,
                              StopReason.STATE_LIMIT.describe(f"{ex.states} states"),
                              states=prop.states, source=prop.source, text=prop.text)
    reach = prop.mode == "reachable"
    holds = ex.verdict == "holds"
    if ex.path is not None and ex.start is not None:
        trace = replay(ruleset.system, ex.start, ex.path, prop,
                       expect="witness" if reach else "violation")
    status = Status.PROVED if holds else Status.VIOLATED
    return PropertyResult(prop.id, prop.kind, status, Method.EXPLICIT, trace=trace,
                          states=prop.states, source=prop.source, text=prop.text,
                          seconds=0.25)


def checked(ruleset: Ruleset, extra: list[Finding], unknown: dict[str, str]) -> CheckedRuleset:
    props = []
    for p in ruleset.system.properties:
        r = explicit_result(ruleset, p)
        if p.id in unknown:
            r = PropertyResult(p.id, p.kind, Status.UNKNOWN, Method.K_INDUCTION, unknown[p.id],
                               states=p.states, source=p.source, text=p.text, seconds=20.0)
        props.append(r)
    found = structural_findings(ruleset.system, props,
                                derived.from_properties(ruleset, props)) + extra
    found.sort(key=lambda f: (f.kind, f.rules, f.states))
    return CheckedRuleset(ruleset, RulesetResult(ruleset.id, props, found, 1.5),
                          coverage(ruleset))


def witness(ruleset: Ruleset, prop_id: str) -> Trace:
    prop = next(p for p in ruleset.system.properties if p.id == prop_id)
    r = explicit_result(ruleset, prop)
    assert r.trace is not None
    return r.trace


@lru_cache(maxsize=1)
def demo_run() -> Run:
    """Two rulesets: `demo` (violations, conflicts, an unknown) and `eldfall` (the mini
    example from docs/, all derived from the interpreter). Cached: do not mutate."""
    demo = load("tests/fixtures/report/demo.yaml")
    both = witness(demo, "blind-and-shrouded")
    conflicts = [
        Finding("fact-contradiction", ("blinded-no-los", "shrouded-360-los"),
                ("Blinded", "Shrouded"),
                "a model can be Blinded and Shrouded at once; the rules give it 'los = none' "
                "and 'los = all_around'", trace=both),
        Finding("forbidden-obligation", ("blinded-actions", "blinded-no-perceive"),
                ("Blinded",),
                "'blinded-actions' allows only assist_self, dodge or nothing, and "
                "'blinded-no-perceive' forbids melee_attack and perceive: no clash left",
                resolved=True, resolved_by=("blinded-actions",), trace=both),
        Finding("order-dependence", ("crouched-cancels-flying", "incapacitated-crouches"),
                ("Crouched", "Flying"),
                "the outcome depends on which of 'incapacitated-crouches' and "
                "'crouched-cancels-flying' resolves first",
                detail=(("incapacitated-crouches first", "Flying is canceled"),
                        ("crouched-cancels-flying first", "Flying stays"))),
    ]
    mini = load("docs/example-mini.yaml")
    return Run([
        checked(demo, conflicts, {"no-stacking:Bleeding": StopReason.TIMEOUT.describe("20 s")}),
        checked(mini, [], {}),
    ])


@lru_cache(maxsize=1)
def hostile_run() -> Run:
    """A ruleset whose names, title and rulebook text try to inject markup."""
    hostile = load("tests/fixtures/report/hostile.yaml")
    rule = next(iter(e for e in hostile.elements.values() if e.section == "rules"))
    finding = Finding("fact-contradiction", (rule.id, "fact-<i>b</i>"), ("Blinded",),
                      "a model with <script>alert('message')</script> & \"quotes\"",
                      trace=witness(hostile, "state-reachable:Blinded"))
    return Run([checked(hostile, [finding], {})])
