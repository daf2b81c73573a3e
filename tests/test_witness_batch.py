"""`Reacher.witness_many` (the batched reachability questions of the conflict and order
scans) against explicit search, condition by condition: on random rulesets
(`strategies.rulesets`) it is asked every property's expression and its negation, a few of
them twice, at stable situations and at every micro state. Each answer must be explicit
search's (`ExplicitIndex`, complete on these systems), and each witness must end in a state
where its condition holds, as the reference interpreter evaluates it. The batches are
answered from the reachability core (`Reacher._from_core`); a second, unbatched Reacher
answers each condition on its own, and the two must agree."""

from __future__ import annotations

import os

import pytest
from hypothesis import example, given, settings
from strategies import rulesets, spec_system

from checker.engines.decision import ExplicitIndex, Reacher
from checker.engines.reach import shared_core
from checker.interpret import replay_trace
from checker.ir import Op
from checker.options import Options
from checker.results.codec import trace_from, trace_to

pytestmark = pytest.mark.differential

EXAMPLES = int(os.environ.get("RULEPROOF_REACH_EXAMPLES", "30"))


@settings(max_examples=EXAMPLES, deadline=None, derandomize=True)
@given(rulesets(edges=True))
def test_batched_witnesses_are_explicit_search_s(text: str) -> None:
    system = spec_system(text)
    exprs = [p.expr for p in system.properties]
    conditions = [*exprs, *(Op("not", (e,)) for e in exprs), *exprs[:2]]
    options = Options()
    assert shared_core(system, options.node_budget) is not None   # the batched path runs
    explicit = ExplicitIndex(system, 200_000)
    for at in ("stable", "all"):
        batched = Reacher(system, options).witness_many(conditions, at)
        single = Reacher(system, options)
        assert len(batched) == len(conditions)
        for cond, w in zip(conditions, batched, strict=True):
            verdict, _, _ = explicit.find(cond, at)
            assert explicit.space.complete and verdict in ("holds", "fails")
            assert w.reachable is (verdict == "holds"), (cond, at)
            assert single.witness(cond, at).reachable is w.reachable, (cond, at)
            if w.reachable:
                assert w.trace is not None and w.state is not None
                assert single.satisfies(w.state, cond, at), (cond, at)


START_FIRES = """ruleset: generated
source: rules.txt
vars:
  x: {range: [0, 2], init: 0}
states:
  S0: {terminal: false}
events:
  - id: e0
    do: ["enter S0"]
rules:
  - id: r0
    when: "not S0"
    do: ["enter S0"]
properties:
  - {id: p0, always: "S0"}
"""


def test_a_trace_whose_start_fires_a_rule_keeps_its_start() -> None:
    """S0 is not there at the start and r0 enters it at once: step 0 of every trace shows
    S0 (after r0), so the start (without S0) is kept beside it, and the trace replays from
    it, also after a round trip through the cache's codec. (Found by the test above:
    confirming a witness replayed r0 from the state after r0 and raised.)"""
    system = spec_system(START_FIRES)
    expr = system.properties[0].expr
    reacher = Reacher(system, Options())
    w = reacher.witness(Op("not", (expr,)), "all")      # S0 missing: only at the start
    assert w.reachable is True and w.trace is not None
    trace = w.trace
    assert trace.steps[0].fired == ("r0",)
    assert dict(trace.start)["S0"] == 0 and dict(trace.steps[0].state)["S0"] == 1
    for t in (trace, trace_from(trace_to(trace))):
        assert t == trace
        assert replay_trace(system, t).steps == trace.steps
    assert reacher.witness(Op("not", (expr,)), "stable").reachable is False


ONE_STATE = """ruleset: generated
source: rules.txt
vars:
  x: {range: [0, 2], init: 0}
inputs:
  roll: [low, high]
states:
  S0: {terminal: false}
events:
  - id: e0
    do: ["leave S0"]
properties:
  - {id: p0, always: "S0"}
"""


@settings(max_examples=max(EXAMPLES // 3, 5), deadline=None, derandomize=True)
@given(rulesets(edges=True))
@example(ONE_STATE)   # found by hypothesis: one state, so the one-state search is complete
def test_an_unchecked_certificate_is_no_answer(text: str) -> None:
    """The core's "unreachable" counts only with its Z3 certificate. With the certificate's
    resource limit at 1 unit none is checked: a complete explicit search still decides
    every condition (as explicit search's answers), and with the explicit search cut at
    one state the conditions the core finds unreachable are undecided, saying why, never
    "unreachable" (the scans then list them as undecided, never as "no finding"), unless
    that one state is the whole reachable set (the search is then complete and decides).
    The reachable ones keep their witnesses: they need no certificate."""
    system = spec_system(text)
    exprs = [p.expr for p in system.properties]
    conditions = [*exprs, *(Op("not", (e,)) for e in exprs)]
    explicit = ExplicitIndex(system, 200_000)
    starved = Options(cert_rlimit=1)
    blind = Options(cert_rlimit=1, explicit_limit=1)
    one_state = ExplicitIndex(system, 1).space.complete
    for at in ("stable", "all"):
        decided = Reacher(system, starved).witness_many(conditions, at)
        undecided = Reacher(system, blind).witness_many(conditions, at)
        for cond, w, u in zip(conditions, decided, undecided, strict=True):
            verdict, _, _ = explicit.find(cond, at)
            assert w.reachable is (verdict == "holds"), (cond, at)
            if verdict == "holds":
                assert u.reachable is True, (cond, at)
            elif one_state:
                assert u.reachable is False, (cond, at)
            else:
                assert u.reachable is None, (cond, at)
                assert "certificate was not checked" in u.reason, u.reason
