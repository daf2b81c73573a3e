"""`blocked-effect` (RP421, notes/eldfall-gaps.md B4): a rule would make a model enter a
State in a situation where a prevent says the model cannot. Expectations written from the
semantics: the finding exists exactly when such a situation is reachable (the rule's
condition holds, its `if` holds, the State is not there yet, the prevent's `when` holds);
its trace is replayed and ends in such a situation; `overrides:` on the prevent resolves
it; a prevent the rule never meets gives none."""

from __future__ import annotations

from pathlib import Path

import pytest
from strategies import corpus_spec

from checker.errors import SpecError
from checker.interpret import Interpreter, replay, trace_steps
from checker.interpret.evaluate import evaluate
from checker.ir import Ruleset
from checker.options import Options
from checker.plan.tasks import check_ruleset
from checker.results import Finding, Status

pytestmark = pytest.mark.unit

OPTIONS = Options(timeout_ms=600_000)   # a safety net: the counted rlimit decides

BASE = """meta:
  - {id: no-stacking, stacking: none, cite: "States of the same name cannot stack."}
vars:
  hp: {range: [0, 2], init: 2}
states:
  Engaged: {}
  Flying: {}
events:
  - {id: take-flight, when: not Flying, do: [enter Flying]}
  - {id: land, when: Flying, do: [leave Flying]}
  - {id: wound, when: hp > 0, do: ["hp -= 1"]}
  - {id: end-next-to-enemy}
RULES
prevents:
  - id: flying-not-engaged
    when: Flying
    blocks: [Engaged]
OVERRIDES"""

TRIGGERED = """rules:
  - id: engaged-next-to-enemy
    on: end-next-to-enemy
    do: [enter Engaged]"""


def _check(folder: Path, rules: str, overrides: str = "") -> tuple[Ruleset, list[Finding]]:
    spec = BASE.replace("RULES", rules).replace("OVERRIDES", overrides)
    ruleset = corpus_spec(folder, spec)
    checked = check_ruleset(ruleset, OPTIONS)
    return ruleset, [f for f in checked.result.findings if f.kind == "blocked-effect"]


def _last_state(ruleset: Ruleset, finding: Finding) -> dict[str, int]:
    assert finding.trace is not None and finding.trace.replayed
    start, events = trace_steps(Interpreter(ruleset.system), finding.trace)
    again = replay(ruleset.system, start, events)
    return dict(again.steps[-1].state)


def test_a_triggered_rule_meets_the_prevent(tmp_path: Path) -> None:
    ruleset, found = _check(tmp_path, TRIGGERED)
    (f,) = found
    assert (f.rules, f.states, f.resolved) == (
        ("engaged-next-to-enemy", "flying-not-engaged"), ("Engaged",), False)
    assert "forbids it here" in f.message and "which sentence wins" in f.message
    last = _last_state(ruleset, f)
    # the trace ends where the rule is about to fire on a Flying model that is not Engaged
    assert last["Flying"] == 1 and last["Engaged"] == 0
    assert last["_happened:end-next-to-enemy"] == 1


def test_overrides_on_the_prevent_resolve_it(tmp_path: Path) -> None:
    _, found = _check(tmp_path, TRIGGERED, "    overrides: [engaged-next-to-enemy]\n")
    (f,) = found
    assert f.resolved and f.resolved_by == ("flying-not-engaged",)


def test_a_rule_whose_condition_excludes_the_prevent_gives_none(tmp_path: Path) -> None:
    rules = TRIGGERED + "\n    when: not Flying"
    _, found = _check(tmp_path, rules)
    assert found == []


def test_the_if_of_an_effect_counts(tmp_path: Path) -> None:
    # only a model at 0 HP would become Engaged; Flying at 0 HP is reachable -> found
    rules = TRIGGERED.replace("do: [enter Engaged]", 'do: ["if hp == 0: enter Engaged"]')
    ruleset, (f,) = _check(tmp_path, rules)
    assert _last_state(ruleset, f)["hp"] == 0
    # a Flying model can never be at 0 HP when wounds need the ground: none
    spec_rules = rules
    base = BASE.replace("{id: wound, when: hp > 0,", "{id: wound, when: hp > 0 and not Flying,")
    base = base.replace("{id: take-flight, when: not Flying,",
                        "{id: take-flight, when: not Flying and hp > 0,")
    ruleset = corpus_spec(tmp_path, base.replace("RULES", spec_rules).replace("OVERRIDES", ""),
                          "grounded")
    checked = check_ruleset(ruleset, OPTIONS)
    assert [f for f in checked.result.findings if f.kind == "blocked-effect"] == []
    (p,) = [p for p in checked.result.properties if p.kind == "blocked-effect"]
    assert p.status is Status.PROVED        # never meet


def test_a_rule_without_a_trigger_is_found_although_blocked_it_changes_nothing(
        tmp_path: Path) -> None:
    # the rule's condition holds while Flying at 0 HP; blocked, firing it would change
    # nothing, so it never "fires" — but the sentence clash is there
    rules = """rules:
  - id: down-and-engaged
    when: hp == 0 and not Engaged
    do: [enter Engaged]"""
    ruleset, (f,) = _check(tmp_path, rules)
    last = _last_state(ruleset, f)
    assert (last["hp"], last["Flying"], last["Engaged"]) == (0, 1, 0)


def test_an_already_present_state_is_not_blocked(tmp_path: Path) -> None:
    # Engaged first, then flight: the rule fires again only on a model already Engaged
    # (`when: Engaged`), where entering changes nothing: no clash
    rules = TRIGGERED + "\n    when: Engaged"
    _, found = _check(tmp_path, rules)
    assert found == []


def test_an_unknown_override_is_a_located_error(tmp_path: Path) -> None:
    with pytest.raises(SpecError) as info:
        _check(tmp_path, TRIGGERED, "    overrides: [engaged-next-to-enemies]\n")
    (d,) = info.value.diagnostics
    assert d.code == "RP203" and "engaged-next-to-enemies" in d.message
    assert "engaged-next-to-enemy" in (d.fix or "")


def test_the_property_reads_what_the_rule_reads(tmp_path: Path) -> None:
    """The built-in invariant is false exactly in the micro states where the rule's guard
    holds, the prevent's `when` holds and the State is absent (checked on a few states)."""
    ruleset, _ = _check(tmp_path, TRIGGERED)
    (p,) = [p for p in ruleset.system.properties if p.kind == "blocked-effect"]
    interp = Interpreter(ruleset.system)
    s0 = dict(zip(interp.names, next(iter(interp.initial_states())), strict=True))
    for flying in (0, 1):
        for engaged in (0, 1):
            for happened in (0, 1):
                env = {**s0, "Flying": flying, "Engaged": engaged,
                       "_happened:end-next-to-enemy": happened}
                assert evaluate(p.expr, env) == (not (flying and not engaged and happened))


def test_effects_run_in_order_and_the_prevent_is_read_when_the_enter_runs(
        tmp_path: Path) -> None:
    # "leave Flying, then enter Engaged": the model is no longer Flying when it enters
    # Engaged, so the prevent never blocks it (reading the pre-state would say it does)
    rules = TRIGGERED.replace("do: [enter Engaged]", "do: [leave Flying, enter Engaged]")
    (tmp_path / "leave").mkdir()
    _, found = _check(tmp_path / "leave", rules)
    assert found == []
    # "enter Flying, then enter Engaged": always blocked, also for a model on the ground
    rules = TRIGGERED.replace("do: [enter Engaged]", "do: [enter Flying, enter Engaged]")
    (tmp_path / "enter").mkdir()
    ruleset, (f,) = _check(tmp_path / "enter", rules)
    assert f.trace is not None
    start, event = f.trace.steps                     # the start, then the event alone
    assert dict(start.state)["Flying"] == 0 and event.event == "end-next-to-enemy"
    last = _last_state(ruleset, f)                   # the rule fired: Flying, not Engaged
    assert (last["Flying"], last["Engaged"]) == (1, 0)
