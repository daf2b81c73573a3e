"""Unordered resolution (issue #14): the interpreter, replay with rule choices, ordering rules
(`Precedence`) in every engine, partial-order reduction, and the statuses of an
order-dependence the text settles — on hand-built Systems and the corpus twin."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from checker.engines import bmc
from checker.engines.base import Kind
from checker.engines.order import scan_order
from checker.engines.reach import Reach
from checker.errors import InternalError
from checker.interpret import Interpreter, explore, explore_macro, replay
from checker.interpret.resolve import Independence
from checker.ir import (
    Assign,
    Const,
    Op,
    OrderChoice,
    Precedence,
    Property,
    System,
    Transition,
    V,
    Var,
)
from checker.options import Options
from checker.spec.load import load_ruleset

pytestmark = pytest.mark.unit

CORPUS = Path(__file__).parent / "corpus" / "findings"


def _eq(name: str, value: int) -> Op:
    return Op("eq", (V(name), Const(value)))


def race(*, precedence: tuple[Precedence, ...] = ()) -> System:
    """`go` starts a resolution in which `claim-one` (x := 1) and `claim-two` (x := 2) are
    both enabled and each disables the other: the order decides x. `tally` (y := 1) reads
    and writes nothing the others do."""
    guard = Op("and", (_eq("go", 1), _eq("x", 0)))
    props = (Property("x-two", "x-two", "reachable", "reachable", _eq("x", 2)),
             Property("x-one", "x-one", "reachable", "reachable", _eq("x", 1)))
    return System(
        "race",
        vars=(Var("go", 0, 1, (0,), "int"), Var("x", 0, 2, (0,), "int"),
              Var("y", 0, 1, (0,), "int"), Var("_res", 0, 4, (0,), "res")),
        events=(Transition("go", "go", "event", _eq("go", 0),
                           (Assign("go", Const(1)), Assign("_res", Const(0)))),),
        rules=(Transition("claim-one", "claim-one", "rule", guard, (Assign("x", Const(1)),)),
               Transition("claim-two", "claim-two", "rule", guard, (Assign("x", Const(2)),)),
               Transition("tally", "tally", "rule", _eq("go", 1), (Assign("y", Const(1)),))),
        res_bound=4, properties=props, precedence=precedence)


FIRST_ONE = (Precedence("claim-one", "claim-two", "order-claims"),)


def test_every_rule_that_may_fire_is_a_successor() -> None:
    interp = Interpreter(race())
    (_, s0), = [(label, s) for label, _, s in interp.successors((0, 0, 0, 0))]
    assert [r.id for r in interp.firable(s0)] == ["claim-one", "claim-two", "tally"]
    assert {label for label, _, _ in interp.successors(s0)} == {"claim-one", "claim-two",
                                                               "tally"}


def test_resolutions_enumerate_every_order_and_macro_steps_every_outcome() -> None:
    interp = Interpreter(race())
    res = interp.resolutions((1, 0, 0, 0))
    assert sorted((s[1], s[2]) for s in res.finals) == [(1, 1), (2, 1)]
    assert res.stuck == ()
    outcomes = interp.macro_steps((0, 0, 0, 0), "go", ())
    assert sorted(m.micro[-1][1] for m in outcomes) == [1, 2]
    for m in outcomes:       # each outcome carries one order that reaches it
        assert interp.macro_step((0, 0, 0, 0), "go", (), m.fired).micro == m.micro


def test_run_choices_checks_every_choice() -> None:
    interp = Interpreter(race())
    micro, stuck = interp.run_choices((1, 0, 0, 0), ("claim-two", "tally"))
    assert micro[-1][:3] == (1, 2, 1) and not stuck
    with pytest.raises(InternalError, match="may not fire"):
        interp.run_choices((1, 0, 0, 0), ("claim-two", "claim-one"))  # disabled by now
    with pytest.raises(InternalError, match="not ended"):
        interp.run_choices((1, 0, 0, 0), ("claim-two",))
    micro, _ = interp.run_choices((1, 0, 0, 0), ("claim-two",), complete=True)
    assert micro[-1][:3] == (1, 2, 1)


def test_replay_follows_the_given_choices_and_finds_them_when_absent() -> None:
    system = race()
    start = (0, 0, 0, 0)
    trace = replay(system, start, [("go", ())], fired=[(), ("tally", "claim-two")])
    assert trace.replayed and trace.steps[-1].fired == ("tally", "claim-two")
    assert dict(trace.steps[-1].changed)["x"] == "2"
    with pytest.raises(InternalError):
        replay(system, start, [("go", ())], fired=[(), ("claim-one", "claim-two", "tally")])
    x_two = system.properties[0]
    found = replay(system, start, [("go", ())], x_two, expect="witness")
    assert "claim-two" in found.steps[-1].fired      # the search chose the order that shows it


def test_a_precedence_lets_only_the_first_rule_fire() -> None:
    system = race(precedence=FIRST_ONE)
    interp = Interpreter(system)
    assert [r.id for r in interp.firable((1, 0, 0, 0))] == ["claim-one", "tally"]
    assert sorted(s[1] for s in interp.resolutions((1, 0, 0, 0)).finals) == [1]
    with pytest.raises(InternalError, match="may not fire"):
        replay(system, (0, 0, 0, 0), [("go", ())], fired=[(), ("claim-two", "tally")])


@pytest.mark.parametrize("precedence", [(), FIRST_ONE])
def test_every_engine_respects_precedence(precedence: tuple[Precedence, ...]) -> None:
    """x = 2 is reachable exactly when no ordering rule puts claim-one first: explicit
    search, macro search (with and without reduction), the BDD core and BMC agree."""
    system = race(precedence=precedence)
    x_two = system.properties[0]
    want = not precedence
    assert (explore(system, x_two).verdict == "holds") == want
    assert (explore(system, x_two, reduce=True).verdict == "holds") == want
    for reduce in (False, True):
        assert ("x-two" in explore_macro(system, [x_two], reduce=reduce).hits) == want
    core = Reach(system)
    assert core.complete and (core.check(x_two).status == "reachable") == want
    out = bmc.search(system, x_two, Options(max_depth=6, timeout_ms=600_000))
    assert (out.kind is Kind.FOUND) == want
    if want:
        assert out.trace is not None and out.trace.replayed
        assert "claim-two" in out.trace.steps[-1].fired


def test_partial_order_reduction_skips_orders_of_independent_rules() -> None:
    system = race()
    ind = Independence(system)
    assert ind.dependent("claim-one", "claim-two") and not ind.dependent("claim-one", "tally")
    full = Interpreter(system).resolutions((1, 0, 0, 0))
    reduced = Interpreter(system, reduce=True).resolutions((1, 0, 0, 0))
    assert set(reduced.finals) == set(full.finals)
    assert len(reduced.states) < len(full.states)


def test_a_visible_rule_is_interleaved_in_full() -> None:
    """A rule writing what a property checked at every micro state reads is not reduced
    away unless it is alone (the visibility condition)."""
    system = race()
    reduced = Interpreter(system, reduce=True, visible=frozenset({"y", "x"}))
    assert len(reduced.resolutions((1, 0, 0, 0)).states) == \
        len(Interpreter(system).resolutions((1, 0, 0, 0)).states)


# ------------------------------------------------------------------ what the text settles

STUN = ("end-clears-stun", "stunned-loses-hp")


def _stun(**system_changes: object) -> list[object]:
    ruleset = load_ruleset(CORPUS / "order-dependence.yaml")
    system = dataclasses.replace(ruleset.system, **system_changes)  # type: ignore[arg-type]
    scan = scan_order(dataclasses.replace(ruleset, system=system), Options(timeout_ms=600_000))
    return [f for f in scan.findings if f.kind == "order-dependence" and f.rules == STUN]


def test_the_planted_pair_shows_both_outcomes_with_their_own_traces() -> None:
    (f,) = _stun()
    assert not f.resolved
    assert [label for label, _ in f.outcomes] == ["order 1", "order 2"]
    ends = []
    for _, trace in f.outcomes:
        assert trace.replayed
        ends.append(dict(trace.steps[-1].state)["hp"])
        assert trace.steps[-1].fired[0] in STUN       # the order starts with one of the two
    assert sorted(ends) == [2, 3]


def test_a_precedence_resolves_the_pair_citing_the_ordering_rule() -> None:
    (f,) = _stun(precedence=(Precedence("end-clears-stun", "stunned-loses-hp", "order-end"),))
    assert f.resolved and f.resolved_by == ("order-end",)
    assert "end-clears-stun comes first" in f.message
    assert all(t.replayed for _, t in f.outcomes)


def test_an_order_choice_resolves_the_pair_listing_each_choice() -> None:
    (f,) = _stun(order_choices=(OrderChoice(STUN, "active-orders-end"),))
    assert f.resolved and f.resolved_by == ("active-orders-end",)
    assert "the active player chooses" in f.message
    detail = dict(f.detail)
    assert {detail["if stunned-loses-hp first"], detail["if end-clears-stun first"]} == {
        "Stunned=0, hp=2", "Stunned=0, hp=3"}


def test_ordering_rules_that_do_not_classify_the_pair_leave_it_open() -> None:
    (f,) = _stun(precedence=(Precedence("end-clears-stun", "no-such-rule", "order-other"),))
    assert not f.resolved
    assert "the ordering rule does not say which comes first for these" in f.message
