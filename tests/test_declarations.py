"""Declarations tied to events (`declares:`), option attributes and permissions (`may:`).

The property test walks random traces of the reference interpreter over Eldfall (whose
declarations are all tied to events) and the deadlock corpus spec, and checks at every
declaring event taken that no constraint in force forbids what it declares — the
constraints evaluated here directly, not through the lowering's `allowed_expr`.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from strategies import corpus_spec

from checker.engines.conflicts import find_conflicts
from checker.errors import SpecError
from checker.interpret import Interpreter, evaluate
from checker.ir import Ruleset, System, Transition
from checker.options import Options
from checker.spec.load import load_ruleset

pytestmark = pytest.mark.corpus

ROOT = Path(__file__).parent.parent
CORPUS = Path(__file__).parent / "corpus" / "findings"
ELDFALL = load_ruleset(ROOT / "spec" / "eldfall.yaml")
DEADLOCK = load_ruleset(CORPUS / "deadlock.yaml")


def forbidden_here(system: System, event: Transition, env: dict[str, int]) -> list[str]:
    """The constraints in force in `env` that do not permit an option `event` declares."""
    out = []
    for dim, option, model in event.declares:
        for c in system.constraints:
            if c.decision != dim or c.model != model or not evaluate(c.when, env):
                continue
            overridden = any(c.source in o.overrides and o.model == model
                             and evaluate(o.when, env)
                             for o in (*system.constraints, *system.permissions))
            permits = option not in c.options if c.kind == "forbid" else option in c.options
            if not overridden and not permits:
                out.append(f"{c.source} forbids {dim} {option} ({event.id})")
    return out


def walk(system: System, choices: list[int]) -> int:
    """Follow `choices` through the interpreter's event steps; the number of declaring
    events taken. Fails if one was taken that a constraint in force forbids."""
    interp = Interpreter(system)
    events = {e.id: e for e in system.events}
    starts = list(interp.initial_states())
    state = starts[choices[0] % len(starts)]
    taken = 0
    for pick in choices:
        if not interp.is_stable(state):
            break
        steps = list(interp.successors(state))
        if not steps:
            break
        label, inputs, _ = steps[pick % len(steps)]
        event = events[label]
        rolled = dict(interp.env(state))
        for v, value in zip(interp.inputs, inputs, strict=True):
            rolled[v.name] = value
        assert forbidden_here(system, event, rolled) == []
        taken += bool(event.declares)
        outcomes = interp.macro_steps(state, label, inputs)     # one per order's end
        state = outcomes[pick % len(outcomes)].micro[-1]
    return taken


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.integers(min_value=0, max_value=10_000), min_size=1, max_size=30))
def test_a_forbidden_declaration_is_never_taken_in_any_generated_trace(
        choices: list[int]) -> None:
    walk(ELDFALL.system, choices)
    walk(DEADLOCK.system, choices)


def test_the_walks_do_take_declarations() -> None:
    assert walk(DEADLOCK.system, [2, 0, 0, 0]) >= 1          # declare-attack, then States
    assert any(e.declares for e in ELDFALL.system.events)


def test_a_declaring_guard_is_the_written_one_and_the_constraints_permission() -> None:
    (dodge,) = [e for e in ELDFALL.system.events if e.id == "a-dodges"]
    assert dodge.declares == (("activation", "activate", "a"), ("action", "dodge", "a"))
    assert dodge.unrestricted is not None and dodge.guard != dodge.unrestricted
    interp = Interpreter(ELDFALL.system)
    start = dict(interp.env(next(interp.initial_states())))
    dead = {**start, "a.Dead": 1, "phase": 2}
    assert evaluate(dodge.unrestricted, dead) and not evaluate(dodge.guard, dead)


# ============================================================================ small specs

def spec(tmp_path: Path, body: str) -> Ruleset:
    return corpus_spec(tmp_path, body)


ATTRS = """
meta:
  - {id: no-stacking, stacking: none}
states: {Slowed: {}, Cornered: {}}
events:
  - {id: slow, do: [enter Slowed]}
  - {id: corner, do: [enter Cornered]}
  - {id: declare-charge, declares: {action: charge}}
decisions:
  action: [dodge, {charge: {complex: true, moves: true}}, {run: {moves: true}}]
  movement: [idle, {sprint: {complex: true}}]
constraints:
  - {id: slowed-simple, when: Slowed, forbid: {complex: true}}
  - {id: cornered-charge, when: Cornered, must: {action: charge}}
"""


def test_an_attribute_restriction_is_a_restriction_on_every_decision_with_it(
        tmp_path: Path) -> None:
    system = spec(tmp_path, ATTRS).system
    got = {(c.decision, c.kind, c.options) for c in system.constraints
           if c.source == "slowed-simple"}
    assert got == {("action", "forbid", ("charge",)), ("movement", "forbid", ("sprint",))}
    (action,) = [d for d in system.decisions if d.name == "action"]
    assert dict(action.attributes)["run"] == (("moves", "true"),)


def test_an_obligation_meets_a_restriction_phrased_on_attributes(tmp_path: Path) -> None:
    found = {(f.kind, f.rules) for f in find_conflicts(spec(tmp_path, ATTRS),
                                                       Options(timeout_ms=600_000))}
    assert ("forbidden-obligation", ("cornered-charge", "slowed-simple")) in found


def test_a_global_event_of_several_models_must_name_the_model(tmp_path: Path) -> None:
    body = """
models: [a, b]
decisions: {action: [dodge, nothing]}
events:
  - {id: dodge, scope: global, declares: {action: dodge}}
"""
    with pytest.raises(SpecError) as exc:
        spec(tmp_path, body)
    (d,) = exc.value.diagnostics
    assert d.code == "RP203" and d.fix == "write a.action"


def test_a_permission_that_overrides_a_restriction_enables_the_declaration(
        tmp_path: Path) -> None:
    body = """
states: {Hidden: {}}
events:
  - {id: shadows, do: [enter Hidden]}
  - {id: reveal, when: Hidden, declares: {reveal: "yes"}, do: [leave Hidden]}
decisions: {reveal: ["yes", "no"]}
may:
  - {id: may-reveal, when: Hidden, grants: {reveal: "yes"}, overrides: [cannot-reveal]}
constraints:
  - {id: cannot-reveal, when: Hidden, forbid: {reveal: ["yes"]}}
"""
    ruleset = spec(tmp_path, body)
    (reveal,) = [e for e in ruleset.system.events if e.id == "reveal"]
    assert evaluate(reveal.guard, {"Hidden": 1})
    found = {(f.kind, f.resolved, f.resolved_by)
             for f in find_conflicts(ruleset, Options(timeout_ms=600_000))}
    assert found == {("permission-conflict", True, ("may-reveal",))}


CRAWL = """
states: {Downed: {}, Fear: {}, LastChance: {}}
events:
  - {id: downed, do: [enter Downed]}
  - {id: fear, do: [enter Fear]}
  - {id: last-chance, do: [enter LastChance]}
decisions:
  action:
    slots: [first, second]
    options:
      - {crawl_away: {kind: crawl, direction: away}}
      - {crawl_closer: {kind: crawl, direction: closer}}
      - recover
      - nothing
may:
  - {id: downed-may-crawl-or-recover, when: Downed, grants: {action: [{kind: crawl}, recover]}}
constraints:
  - {id: fear-no-closer, when: Fear, forbid: {direction: closer}}
  - {id: only-recover, when: LastChance, only: {action: [recover]}}
"""


def test_a_grant_by_attribute_meets_only_a_prohibition_of_all_its_options(
        tmp_path: Path) -> None:
    """"May use Crawl" is every crawl option: Fear forbidding one way to crawl leaves the
    grant usable (no finding); "only Recover" forbids every crawl (a finding, on each
    slot, reported once per pair)."""
    ruleset = spec(tmp_path, CRAWL)
    (first, _) = ruleset.system.permissions
    assert first.granted() == (("crawl_away", "crawl_closer"), ("recover",))
    found = {(f.kind, f.rules) for f in find_conflicts(ruleset, Options(timeout_ms=600_000))}
    assert found == {("permission-conflict", ("downed-may-crawl-or-recover", "only-recover"))}
    # the same spec granting the options one by one: Fear now meets the grant of crawl_closer
    one_by_one = spec(tmp_path, CRAWL.replace("[{kind: crawl}, recover]",
                                              "[crawl_away, crawl_closer, recover]"))
    found = {(f.kind, f.rules) for f in find_conflicts(one_by_one, Options(timeout_ms=600_000))}
    assert ("permission-conflict", ("downed-may-crawl-or-recover", "fear-no-closer")) in found


def test_a_grant_by_an_attribute_no_option_declares_is_rp216(tmp_path: Path) -> None:
    with pytest.raises(SpecError) as exc:
        spec(tmp_path, CRAWL.replace("{kind: crawl}", "{knd: crawl}"))
    (d,) = exc.value.diagnostics
    assert d.code == "RP216" and "kind" in (d.fix or "")


SLOTS = """
meta:
  - {id: no-stacking, stacking: none}
states: {Slowed: {}, Cornered: {}}
events:
  - {id: slow, do: [enter Slowed]}
  - {id: corner, do: [enter Cornered]}
  - {id: first-charge, declares: {action.first: charge}}
  - {id: second-dodge, declares: {action.second: dodge}}
decisions:
  action:
    slots: [first, second]
    options: [dodge, {charge: {complex: true, moves: true}}]
constraints:
  - {id: slowed-simple, when: Slowed, forbid: {complex: true}}
  - {id: cornered-charges-first, when: Cornered, must: {action.first: charge}}
"""


def test_slots_are_decisions_and_a_restriction_on_the_name_binds_every_slot(
        tmp_path: Path) -> None:
    ruleset = spec(tmp_path, SLOTS)
    system = ruleset.system
    assert [d.name for d in system.decisions] == ["action.first", "action.second"]
    assert {c.decision for c in system.constraints if c.source == "slowed-simple"} == {
        "action.first", "action.second"}
    (charge,) = [e for e in system.events if e.id == "first-charge"]
    assert charge.declares == (("action.first", "charge", None),)
    found = {(f.kind, f.rules) for f in find_conflicts(ruleset, Options(timeout_ms=600_000))}
    assert ("forbidden-obligation", ("cornered-charges-first", "slowed-simple")) in found
