"""Ordering rules (`ordering:`, issue #14): what they lower to (`Precedence`, `OrderChoice`)
and the dead-ordering-rule scan (`checker.engines.ordering`), on the findings corpus
(`tests/corpus/findings/order-dependence-ordered.yaml`, `dead-ordering-rule[-ok].yaml`) and
small specs over the same rules.txt. Their bad input is in tests/corpus/bad/ordering-*.yaml
(tests/test_bad_input.py)."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from strategies import corpus_spec

from checker.engines import decision, ordering
from checker.errors import SpecError
from checker.ir import OrderChoice, Precedence, Ruleset, enabled, may_fire, neg
from checker.options import Options
from checker.results import Finding
from checker.spec.load import load_ruleset

pytestmark = pytest.mark.corpus

CORPUS = Path(__file__).parent / "corpus" / "findings"
OPTIONS = Options(timeout_ms=600_000)   # a safety net: the counted rlimit decides
REMOVAL_BEFORE_HP = "Effects that remove markers are resolved before effects that cost HP."


def load(name: str) -> Ruleset:
    return load_ruleset(CORPUS / f"{name}.yaml")


def spec(tmp_path: Path, body: str) -> Ruleset:
    return corpus_spec(tmp_path, body)


def summary(found: list[Finding]) -> set[tuple[str, tuple[str, ...], bool]]:
    return {(f.kind, f.rules, f.resolved) for f in found}


# ============================================================================ lowering

def test_the_order_the_text_gives_lowers_to_one_precedence() -> None:
    """rules.txt: "Effects that remove markers are resolved before effects that cost HP." —
    over tags: the removal rule before the HP rule, and nothing else."""
    ruleset = load("order-dependence-ordered")
    system = ruleset.system
    assert system.precedence == (
        Precedence("end-clears-stun", "stunned-loses-hp", "removal-before-hp"),)
    assert system.order_choices == ()
    element = ruleset.elements["removal-before-hp"]
    assert element.section == "ordering" and element.quotes == (REMOVAL_BEFORE_HP,)
    assert any(c.element == "removal-before-hp" and c.quote == REMOVAL_BEFORE_HP
               for c in ruleset.citations)
    # the hand-off: while the removal is due, the HP loss may not fire
    rules = {r.id: r for r in system.rules}
    hp, clear = rules["stunned-loses-hp"], rules["end-clears-stun"]
    assert neg(enabled(system, clear)) in may_fire(system, hp).args  # type: ignore[union-attr]
    assert may_fire(system, clear) == enabled(system, clear)


TWO_MODELS = """
models: [a, b]
phases: [activation, end]
vars:
  hp: {range: [0, 3], init: 3}
states:
  Stunned: {markers: {max: 2}}
  Bleeding: {}
events:
  - {id: shock, do: [add Stunned]}
rules:
  - {id: stunned-loses-hp, on: end-phase, when: Stunned, do: ["hp -= 1"], tags: [hp-cost]}
  - {id: bleeding-loses-hp, on: end-phase, when: Bleeding, do: ["hp -= 1"], tags: [hp-cost]}
  - {id: end-clears-stun, on: end-phase, do: [remove all Stunned], tags: [removal]}
ordering:
"""
CITE = f'cite: "{REMOVAL_BEFORE_HP}"'
CHOICE = 'cite: "The active player decides the order of simultaneous effects."'


def test_an_order_applies_to_the_copies_of_the_same_model(tmp_path: Path) -> None:
    body = TWO_MODELS + ("  - {id: o, first: [end-clears-stun], then: [stunned-loses-hp], "
                         f"{CITE}}}\n")
    assert spec(tmp_path, body).system.precedence == (
        Precedence("end-clears-stun@a", "stunned-loses-hp@a", "o"),
        Precedence("end-clears-stun@b", "stunned-loses-hp@b", "o"))


def test_across_models_orders_every_pair_of_copies(tmp_path: Path) -> None:
    body = TWO_MODELS + ("  - {id: o, first: [end-clears-stun], then: [stunned-loses-hp], "
                         f"across_models: true, {CITE}}}\n")
    got = spec(tmp_path, body).system.precedence
    assert {(p.first, p.then) for p in got} == {
        (f"end-clears-stun@{m}", f"stunned-loses-hp@{n}") for m in "ab" for n in "ab"}
    assert {p.source for p in got} == {"o"}


def test_a_tag_names_every_rule_that_has_it_in_spec_order(tmp_path: Path) -> None:
    body = TWO_MODELS.replace("models: [a, b]\n", "") + (
        f"  - {{id: o, first: {{tags: [removal]}}, then: {{tags: [hp-cost]}}, {CITE}}}\n")
    assert spec(tmp_path, body).system.precedence == (
        Precedence("end-clears-stun", "stunned-loses-hp", "o"),
        Precedence("end-clears-stun", "bleeding-loses-hp", "o"))


def test_rules_and_tags_together_in_one_side(tmp_path: Path) -> None:
    body = TWO_MODELS.replace("models: [a, b]\n", "") + (
        "  - {id: o, first: {rules: [end-clears-stun]}, then: {rules: [bleeding-loses-hp], "
        f"tags: [hp-cost]}}, {CITE}}}\n")
    got = spec(tmp_path, body).system.precedence
    assert [(p.first, p.then) for p in got] == [("end-clears-stun", "stunned-loses-hp"),
                                                ("end-clears-stun", "bleeding-loses-hp")]


def test_the_active_player_chooses_lowers_to_one_choice_per_model(tmp_path: Path) -> None:
    body = TWO_MODELS + f"  - {{id: c, chosen_by: active-player, tags: [hp-cost], {CHOICE}}}\n"
    assert spec(tmp_path, body).system.order_choices == (
        OrderChoice(("stunned-loses-hp@a", "bleeding-loses-hp@a"), "c"),
        OrderChoice(("stunned-loses-hp@b", "bleeding-loses-hp@b"), "c"))
    across = body.replace("tags: [hp-cost],", "tags: [hp-cost], across_models: true,")
    assert spec(tmp_path, across).system.order_choices == (
        OrderChoice(("stunned-loses-hp@a", "bleeding-loses-hp@a", "stunned-loses-hp@b",
                     "bleeding-loses-hp@b"), "c"),)


@pytest.mark.parametrize("entry", [
    "{id: o, first: [end-clears-stun], " + CITE + "}",
    "{id: o, first: [end-clears-stun], then: [], " + CITE + "}",
    "{id: o, first: {rules: []}, then: [end-clears-stun], " + CITE + "}",
    "{id: o, chosen_by: active-player, " + CHOICE + "}",
    "{id: o, rules: [end-clears-stun], " + CHOICE + "}",
    "{id: o, chosen_by: active-player, rules: [end-clears-stun], first: [end-clears-stun], "
    "then: [stunned-loses-hp], " + CHOICE + "}",
], ids=["no-then", "empty-then", "empty-selection", "choice-without-rules",
        "rules-without-chooser", "both-forms"])
def test_an_incomplete_or_mixed_entry_is_one_located_error(tmp_path: Path, entry: str) -> None:
    with pytest.raises(SpecError) as exc:
        spec(tmp_path, TWO_MODELS + f"  - {entry}\n")
    (d,) = exc.value.diagnostics
    assert d.code == "RP201" and d.location is not None
    assert d.location.line == TWO_MODELS.count("\n") + 3


def test_a_longer_cycle_is_named_once(tmp_path: Path) -> None:
    body = """
states: {A: {}, B: {}, C: {}, D: {}}
rules:
  - {id: a, when: A, do: [leave A]}
  - {id: b, when: B, do: [leave B]}
  - {id: c, when: C, do: [leave C]}
  - {id: d, when: D, do: [leave D]}
ordering:
"""
    for i, (x, y) in enumerate([("a", "b"), ("b", "c"), ("c", "d"), ("d", "a")]):
        body += f"  - {{id: o{i}, first: [{x}], then: [{y}], {CITE}}}\n"
    with pytest.raises(SpecError) as exc:
        spec(tmp_path, body)
    (d,) = exc.value.diagnostics
    assert d.code == "RP210"
    assert "a → b → c → d → a" in d.message and "'o3' puts 'd' before 'a'" in d.message


# ============================================================================ dead entries

def test_an_order_between_effects_that_never_meet_is_dead() -> None:
    ruleset = load("dead-ordering-rule")
    scan = ordering.scan_ordering(ruleset, OPTIONS)
    assert scan.undecided == []
    (f,) = scan.findings
    assert (f.kind, f.rules, f.resolved, f.code) == (
        "dead-ordering-rule", ("removal-before-hp",), False, "RP408")
    assert "'activation-clears-stun'" in f.message and "'bleeding-loses-hp'" in f.message
    quotes = dict(f.detail)
    assert REMOVAL_BEFORE_HP in quotes["removal-before-hp"]
    assert "Activation Phase" in quotes["activation-clears-stun"]


@pytest.mark.parametrize("name", ["dead-ordering-rule-ok", "order-dependence-ordered"])
def test_an_order_between_simultaneous_effects_is_live(name: str) -> None:
    scan = ordering.scan_ordering(load(name), OPTIONS)
    assert (scan.findings, scan.undecided) == ([], [])


def test_without_the_core_the_z3_reacher_gives_the_same_answers(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(decision, "shared_core", lambda *a, **k: None)
    for name, expected in (("dead-ordering-rule", {("dead-ordering-rule",
                                                    ("removal-before-hp",), False)}),
                           ("dead-ordering-rule-ok", set())):
        scan = ordering.scan_ordering(load(name), OPTIONS)
        assert summary(scan.findings) == expected and scan.undecided == []


def test_an_undecided_entry_is_kept_not_dropped(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(decision, "shared_core", lambda *a, **k: None)
    monkeypatch.setattr(decision, "_reach", lambda *a, **k: (None, None))
    scan = ordering.scan_ordering(load("dead-ordering-rule"), OPTIONS)
    assert scan.findings == []
    assert [(u.kind, u.rules) for u in scan.undecided] == [
        ("dead-ordering-rule", ("removal-before-hp",))]
    assert "explicit search stopped at" in scan.undecided[0].reason


def test_a_choice_is_dead_when_no_two_of_its_rules_meet(tmp_path: Path) -> None:
    body = """
phases: [activation, end]
vars:
  hp: {range: [0, 3], init: 3}
states:
  Stunned: {markers: {max: 2}}
  Bleeding: {}
events:
  - {id: shock, do: [add Stunned]}
  - {id: wound, do: [enter Bleeding]}
rules:
  - {id: bleeding-loses-hp, on: end-phase, when: Bleeding, do: ["hp -= 1"]}
  - {id: activation-clears-stun, on: activation-phase, do: [remove all Stunned]}
  - {id: end-clears-stun, on: end-phase, do: [remove all Stunned]}
ordering:
  - {id: dead, chosen_by: active-player, rules: [bleeding-loses-hp, activation-clears-stun],
     CHOICE}
  - {id: live, chosen_by: active-player, rules: [bleeding-loses-hp, end-clears-stun], CHOICE}
""".replace("CHOICE", CHOICE)
    found = ordering.find_dead_orderings(spec(tmp_path, body), OPTIONS)
    assert summary(found) == {("dead-ordering-rule", ("dead",), False)}
    assert "no two of rules 'activation-clears-stun', 'bleeding-loses-hp'" in found[0].message


def test_the_pipeline_reports_it_and_every_format_carries_it(tmp_path: Path) -> None:
    from checker.plan.tasks import check_ruleset
    from checker.report.data import build_report
    from checker.report.html import HtmlReporter
    from checker.report.json_report import JsonReporter
    from checker.report.junit import JunitReporter
    from checker.report.sarif import SarifReporter
    from checker.results.run import Run

    checked = check_ruleset(load("dead-ordering-rule"), OPTIONS)
    assert summary(checked.result.findings) == {
        ("dead-ordering-rule", ("removal-before-hp",), False)}
    data = build_report(Run([checked]), OPTIONS, base=CORPUS)
    (finding,) = json.loads(JsonReporter().render(data))["rulesets"][0]["findings"]
    assert (finding["kind"], finding["code"], finding["rules"]) == (
        "dead-ordering-rule", "RP408", ["removal-before-hp"])
    assert finding["citations"][0]["quote"] == REMOVAL_BEFORE_HP
    run = json.loads(SarifReporter().render(data))["runs"][0]
    (result,) = [r for r in run["results"] if r["ruleId"] == "RP408"]
    assert result["level"] == "warning"
    assert "RP408" in {r["id"] for r in run["tool"]["driver"]["rules"]}
    cases = ET.fromstring(JunitReporter().render(data)).iter("testcase")
    assert any("removal-before-hp" in (c.get("name") or "") for c in cases)
    pages = HtmlReporter().render(data)
    assert any("Ordering rules that order nothing" in text for text in pages.values())


def test_a_dead_entry_needs_the_certificate_of_its_never() -> None:
    """The core finds the entry's rules never due together; that counts only with the
    Z3 certificate. Without it (a limit of 1 unit) a complete explicit search still finds
    the entry dead; with the search cut at one state the entry is undecided, not dead."""
    name, dead = "dead-ordering-rule", [("dead-ordering-rule", ("removal-before-hp",), False)]
    assert sorted(summary(ordering.scan_ordering(load(name), OPTIONS).findings)) == dead
    starved = ordering.scan_ordering(load(name), Options(timeout_ms=600_000, cert_rlimit=1))
    assert (sorted(summary(starved.findings)), starved.undecided) == (dead, [])
    blind = ordering.scan_ordering(load(name), Options(timeout_ms=600_000, cert_rlimit=1,
                                                       explicit_limit=1))
    assert blind.findings == []
    assert [(u.kind, u.rules) for u in blind.undecided] == [
        ("dead-ordering-rule", ("removal-before-hp",))]
    assert "certificate was not checked" in blind.undecided[0].reason


# ---------------------------------------------------------------- a rule of one model

ONE_MODEL_RULE = ("  - {id: enemy-bleeds-a, model: b, on: end-phase, when: Bleeding, "
                  "do: [\"a.hp -= 1\"], tags: [hp-cost]}\n")


def test_a_rule_of_one_model_exists_for_that_model_alone(tmp_path: Path) -> None:
    """`model: b`: one copy, whose unqualified names are b's (the rule without it has a
    copy per model, each reading its own model's Bleeding)."""
    body = TWO_MODELS.replace("ordering:\n", "").replace("rules:\n", "rules:\n" + ONE_MODEL_RULE)
    rules = {r.id: r for r in spec(tmp_path, body).system.rules}
    assert [i for i in rules if i.startswith("enemy-bleeds-a")] == ["enemy-bleeds-a@b"]
    r = rules["enemy-bleeds-a@b"]
    assert r.model == "b" and r.on == ("end-phase",)
    assert "b.Bleeding" in repr(r.guard) and "a.Bleeding" not in repr(r.guard)
    assert [e.var for e in r.effects] == ["a.hp", "_fired:enemy-bleeds-a@b"]
    both = {r.id for r in spec(tmp_path, body.replace("model: b, ", "")).system.rules}
    assert {"enemy-bleeds-a@a", "enemy-bleeds-a@b"} <= both


def test_orders_name_only_the_copy_a_rule_of_one_model_has(tmp_path: Path) -> None:
    body = TWO_MODELS.replace("rules:\n", "rules:\n" + ONE_MODEL_RULE) + (
        f"  - {{id: o, first: [end-clears-stun], then: [enemy-bleeds-a], {CITE}}}\n"
        f"  - {{id: c, chosen_by: active-player, tags: [hp-cost], {CHOICE}}}\n")
    system = spec(tmp_path, body).system
    assert system.precedence == (Precedence("end-clears-stun@b", "enemy-bleeds-a@b", "o"),)
    assert system.order_choices == (
        OrderChoice(("stunned-loses-hp@a", "bleeding-loses-hp@a"), "c"),
        OrderChoice(("enemy-bleeds-a@b", "stunned-loses-hp@b", "bleeding-loses-hp@b"), "c"))


@pytest.mark.parametrize("models", ["models: [a, b]\n", ""], ids=["misspelt", "no-models"])
def test_a_rule_of_an_unknown_model_is_one_located_error(tmp_path: Path, models: str) -> None:
    body = TWO_MODELS.replace("models: [a, b]\n", models).replace("ordering:\n", "").replace(
        "rules:\n", "rules:\n" + ONE_MODEL_RULE.replace("model: b", "model: bb"))
    with pytest.raises(SpecError) as exc:
        spec(tmp_path, body)
    codes = [(d.code, d.location.line if d.location else None)
             for d in exc.value.diagnostics if "'bb'" in d.message]
    assert codes == [("RP203", body.split("\n").index(ONE_MODEL_RULE.replace(
        "model: b", "model: bb").rstrip("\n")) + 3)]   # after `ruleset:` and `source:`


def test_a_rule_with_one_models_names_fires_once_per_model_without_model() -> None:
    """The planted `one-model-rule` spec: both copies take `a`'s HP at one End Phase, so a
    Bleeding model goes 3 → 1 and never has 2 HP once the rules have resolved; its twin
    with `model: a` loses 1 at a time. The lint reports the first only."""
    from checker.interpret import Interpreter
    from checker.interpret.search import state_search
    from checker.results.lints import lint_findings

    def hp_values(name: str) -> set[int]:
        ruleset = load(name)
        interp = Interpreter(ruleset.system)
        found = state_search(interp, max_states=10_000)
        assert found.complete
        i = [v.name for v in ruleset.system.vars].index("a.hp")
        return {s[i] for s in found.seen if interp.is_stable(s)}   # (not mid-resolution)

    assert hp_values("one-model-rule") == {0, 1, 3}
    assert hp_values("one-model-rule-ok") == {0, 1, 2, 3}
    assert [f.rules for f in lint_findings(load("one-model-rule"))] == [("bleeding-loses-hp",)]
    assert lint_findings(load("one-model-rule-ok")) == []


def test_an_order_between_rules_of_two_models_without_across_models_is_an_error(
        tmp_path: Path) -> None:
    """`model: b`'s rule after `model: a`'s: no copies of one model in common, so the
    entry would order nothing; with `across_models: true` it orders the one pair."""
    rules = ONE_MODEL_RULE + ONE_MODEL_RULE.replace("enemy-bleeds-a", "a-bleeds").replace(
        "model: b", "model: a")
    body = TWO_MODELS.replace("rules:\n", "rules:\n" + rules) + (
        f"  - {{id: o, first: [a-bleeds], then: [enemy-bleeds-a], {CITE}}}\n")
    with pytest.raises(SpecError) as exc:
        spec(tmp_path, body)
    (d,) = exc.value.diagnostics
    assert d.code == "RP212" and "no copies of the same model" in d.message
    assert d.location is not None and d.location.line == body.count("\n") + 2
    across = body.replace(f"{CITE}}}", f"across_models: true, {CITE}}}")
    assert spec(tmp_path, across).system.precedence == (
        Precedence("a-bleeds@a", "enemy-bleeds-a@b", "o"),)
