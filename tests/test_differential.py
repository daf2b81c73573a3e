"""Differential tests: BMC, 1-induction, Houdini, Spacer and the composed `check_property`
agree with explicit breadth-first search (the oracle) on random small rulesets.

For every property an engine decides: a target FOUND (violation or witness) must be one
explicit search finds too, and its trace has already been replayed by the interpreter
(engines raise `InternalError` otherwise); UNREACHABLE (proved invariant, or an
unreachable witness) must be what explicit search concludes after exploring every
state. BMC's counterexamples are shortest: as long as explicit search's, in steps.

Resolution is unordered (any rule that may fire fires next), and half the rulesets have
rules triggered together (`rulesets(simultaneous=True)`). Partial-order reduction on or off
gives the same verdicts and shortest macro traces; the order scan reports an
order-dependence exactly when brute-force enumeration of every order of every reachable
resolution finds two different visible outcomes.
"""

from __future__ import annotations

import os
import tempfile
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from strategies import load_spec, rulesets, spec_system

from checker.engines import bmc, check_property, induction, spacer, termination
from checker.engines.base import Kind, Outcome, status_of
from checker.engines.lemmas import Samples
from checker.engines.session import Session
from checker.interpret import Interpreter, explore, explore_macro, reachable_states
from checker.ir import Property, System
from checker.options import Options
from checker.results import Status

pytestmark = pytest.mark.differential

OPTIONS = Options(max_depth=15, timeout_ms=20_000, explicit_limit=20_000)
TALLY: Counter[str] = Counter()      # engine:decided / engine:unknown, for the curious



def _initially_stable(system: System) -> bool:
    """Replay starts from a stable initial state (interpret.replay does not resolve the
    initial state first); rulesets with an unstable initial state are skipped."""
    interp = Interpreter(system)
    return all(interp.is_stable(s) for s in interp.initial_states())


def run_engines(system: System, prop: Property, samples: Samples) -> dict[str, Outcome]:
    """Each engine alone, sharing one z3 context (a `Session`) for this property."""
    session = Session(system, prop)
    return {"bmc": bmc.search(system, prop, OPTIONS, session),
            "1-induction": induction.one_induction(system, prop, OPTIONS, session),
            "houdini": induction.houdini(system, prop, OPTIONS, samples, session),
            "spacer": spacer.prove(system, prop, OPTIONS, session),
            "resolution-bound": termination.resolution_bound(system, prop, OPTIONS, session)}


def agree(system: System) -> None:
    TALLY["rulesets"] += 1
    TALLY["properties"] += len(system.properties)
    samples = Samples(system, limit=OPTIONS.explicit_limit, seed=0)

    for prop in system.properties:
        oracle = explore(system, prop, max_states=OPTIONS.explicit_limit)
        assert oracle.verdict != "limit"
        target_reachable = oracle.verdict == ("fails" if prop.mode == "invariant" else "holds")
        for name, out in run_engines(system, prop, samples).items():
            TALLY[f"{name}:{out.kind.value}"] += 1
            if out.kind is Kind.UNKNOWN:
                continue
            assert (out.kind is Kind.FOUND) == target_reachable, (name, prop.id, out)
            if out.kind is Kind.FOUND:
                assert out.trace is not None and out.trace.replayed
            if name == "bmc":
                assert out.steps == shortest_steps(system, prop), prop.id
        result = check_property(system, prop, OPTIONS, samples=samples)
        TALLY[f"check_property:{result.status.value}"] += 1
        if result.status is not Status.UNKNOWN:
            want = status_of(prop, Kind.FOUND if target_reachable else Kind.UNREACHABLE)
            assert result.status is want, (prop.id, result)


def shortest_steps(system: System, prop: Property) -> int:
    """The number of steps (events and micro steps) to the nearest target state."""
    interp = Interpreter(system)
    want = prop.mode == "reachable"
    frontier = sorted(set(interp.initial_states()))
    seen = set(frontier)
    depth = 0
    while frontier:
        for s in frontier:
            if interp.checked_here(prop, s) and interp.holds(prop, s) == want:
                return depth
        nxt = sorted({n for s in frontier for _, _, n in interp.successors(s)} - seen)
        seen.update(nxt)
        frontier = nxt
        depth += 1
    raise AssertionError("no target state")


@settings(max_examples=40, deadline=None, derandomize=True)
@given(st.one_of(rulesets(), rulesets(simultaneous=True)))
def test_engines_agree_with_explicit_search(text: str) -> None:
    system = spec_system(text)
    assume(_initially_stable(system))
    agree(system)


@settings(max_examples=30, deadline=None, derandomize=True)
@given(rulesets(edges=True))
def test_engines_agree_with_explicit_search_on_enters_and_leaves(text: str) -> None:
    """`on: enters S` / `on: leaves S`, S a State or a condition (the `_was` bookkeeping of
    the step's start): the interpreter, the Z3 encoding and the engines on it agree."""
    system = spec_system(text)
    assume(_initially_stable(system))
    agree(system)


LONG_EXAMPLES = int(os.environ.get("RULEPROOF_LONG_EXAMPLES", "10000"))


@pytest.mark.slow
@settings(max_examples=LONG_EXAMPLES, deadline=None, derandomize=True)
@given(rulesets())
def test_engines_agree_with_explicit_search_many(text: str) -> None:
    """The long profile: `pytest -m slow tests/test_differential.py` (10,000 rulesets;
    RULEPROOF_LONG_EXAMPLES=N for another count). Prints the tally at the end."""
    system = spec_system(text)
    assume(_initially_stable(system))
    agree(system)


# ------------------------------------------------------------------ unordered resolution

def visible_outcomes(system: System) -> bool:
    """Brute force: some reachable resolution (from an initial state, or from a stable
    state after an event with its inputs) has two ends, over every order, that differ in a
    variable a player sees (or one never settles)."""
    from checker.engines.decision import visible

    interp = Interpreter(system)
    shown = [interp.index[n] for n in visible(system)]
    states, complete = reachable_states(system, max_states=OPTIONS.explicit_limit)
    assert complete

    def ends(s0: tuple[int, ...]) -> set[tuple[object, ...]]:
        res = interp.resolutions(s0)
        return {(s in res.stuck_set, *(s[i] for i in shown)) for s in (*res.finals,
                                                                          *res.stuck)}

    starts = list(interp.initial_states())
    for s in states:
        if interp.is_stable(s):
            starts += [n for label, _, n in interp.successors(s)]
    return any(len(ends(s0)) > 1 for s0 in set(starts))


@settings(max_examples=40, deadline=None, derandomize=True)
@given(st.one_of(rulesets(), rulesets(simultaneous=True)))
def test_reduction_keeps_every_verdict(text: str) -> None:
    """Partial-order reduction on or off: the same verdicts, and shortest traces of the
    same length in events (macro search) — and BMC's shortest counterexamples, in steps,
    equal the unreduced single-step search's (checked in `agree`)."""
    system = spec_system(text)
    for prop in system.properties:
        full = explore(system, prop, max_states=OPTIONS.explicit_limit)
        reduced = explore(system, prop, max_states=OPTIONS.explicit_limit, reduce=True)
        assert full.verdict == reduced.verdict, prop.id
    a = explore_macro(system, system.properties, reduce=False)
    b = explore_macro(system, system.properties, reduce=True)
    assert a.complete and b.complete
    assert {k: len(v[1]) for k, v in a.hits.items()} == {k: len(v[1]) for k, v in b.hits.items()}


@settings(max_examples=40, deadline=None, derandomize=True)
@given(rulesets(simultaneous=True))
def test_order_dependence_iff_two_orders_end_apart(text: str) -> None:
    """The order scan reports an order-dependence among rules exactly when brute-force
    enumeration of every order of every reachable resolution finds two different visible
    stable outcomes from one pre-state."""
    from checker.engines.order import scan_order
    from checker.spec.load import load_ruleset

    with tempfile.TemporaryDirectory() as folder:
        _ = load_spec(Path(folder), text)
        ruleset = load_ruleset(Path(folder) / "spec.yaml")
    system = ruleset.system
    scan = scan_order(ruleset, OPTIONS)
    assume(not scan.undecided)
    rule_sources = {r.source for r in system.rules}
    reported = any(f.kind == "order-dependence" and set(f.rules) <= rule_sources
                   for f in scan.findings)
    TALLY[f"order-dependence:{reported}"] += 1
    assert reported == visible_outcomes(system)
    for f in scan.findings:
        for _, trace in f.outcomes:
            assert trace.replayed
