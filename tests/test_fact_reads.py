"""Reading facts in conditions, `fact(los) == none` (issue #16; notes/eldfall-gaps.md B2:
"A model is Engaged when it ends within the Melee Weapon Reach and LoS of an enemy model",
and LoS is a fact). Expectations written from the semantics (docs/spec-language.md
"Facts"): `fact(x) == v` holds when a fact in force sets x to v and no fact in force that
overrides it sets x otherwise; facts in conflict make both values hold; a model's facts are
its own."""

from __future__ import annotations

import pytest
from strategies import spec_system

from checker.errors import SpecError
from checker.interpret.evaluate import evaluate
from checker.ir import System

pytestmark = pytest.mark.unit

SPEC = """ruleset: t
source: rules.txt
models: [a, b]
states:
  Blinded: {}
  Flying: {}
  Dazzled: {}
facts:
  - {id: blinded-no-los, when: Blinded, set: {los: none}}
  - {id: flying-sees-all, when: Flying, set: {los: all}}
  - {id: dazzled-no-los, when: Dazzled, set: {los: none}, overrides: [flying-sees-all]}
events:
  - {id: b-sees, scope: global, when: "fact(b.los) != none", do: [leave a.Blinded]}
  - {id: b-sees-all, scope: global, when: "all == fact(b.los)", do: [leave a.Blinded]}
  - {id: sees-nothing, when: "fact(los) == none", do: [leave Blinded]}
EXTRA"""



def _enabled(system: System, holding: set[str]) -> set[str]:
    """The events enabled where exactly the States named in `holding` are held."""
    env = {v.name: v.init[0] for v in system.vars}
    env.update({name: 1 for name in holding})
    return {e.id for e in system.events if evaluate(e.guard, env)}


@pytest.mark.parametrize(("holding", "expected"), [
    (set(), {"b-sees"}),                          # no fact sets b's los
    ({"b.Blinded"}, {"sees-nothing@b"}),
    ({"b.Flying"}, {"b-sees", "b-sees-all"}),
    # both in force, neither overrides the other: both values hold (the facts' conflict)
    ({"b.Blinded", "b.Flying"}, {"b-sees-all", "sees-nothing@b"}),
    # Dazzled overrides Flying's 'all': only 'none' holds
    ({"b.Dazzled", "b.Flying"}, {"sees-nothing@b"}),
    # a's facts are a's: b still sees
    ({"a.Blinded"}, {"b-sees", "sees-nothing@a"}),
])
def test_a_fact_read_holds_where_the_facts_in_force_give_the_value(
        holding: set[str], expected: set[str]) -> None:
    assert _enabled(spec_system(SPEC.replace("EXTRA", "")), holding) == expected


@pytest.mark.parametrize(("when", "code", "needle"), [
    ("fact(b.lso) == none", "RP203", "no fact sets the attribute 'lso'"),
    ("fact(b.los) == nnoe", "RP206", "no fact sets 'los' to 'nnoe'"),
    ("fact(b.los) < none", "RP206", "only be compared with == or !="),
    ("fact(b.los)", "RP206", "compare fact(...) with a value"),
    ("fact(b.los) == fact(a.los)", "RP206", "not with another fact"),
    ("fact(los) == none", "RP203", "belongs to a model"),
    ("fact(c.los) == none", "RP203", "unknown model 'c'"),
])
def test_a_bad_fact_read_is_a_located_error(when: str, code: str, needle: str) -> None:
    extra = f"  - {{id: bad, scope: global, when: \"{when}\", do: [leave a.Blinded]}}\n"
    with pytest.raises(SpecError) as info:
        spec_system(SPEC.replace("EXTRA", extra))
    (d,) = info.value.diagnostics
    assert d.code == code and needle in d.message, d
    line = SPEC.count("\n", 0, SPEC.index("EXTRA")) + 1     # the line of the bad event
    assert d.location is not None and d.location.line == line


def test_a_misspelt_value_gets_a_did_you_mean() -> None:
    extra = "  - {id: bad, scope: global, when: \"fact(b.los) == nome\", do: [leave a.Blinded]}\n"
    with pytest.raises(SpecError) as info:
        spec_system(SPEC.replace("EXTRA", extra))
    assert info.value.diagnostics[0].fix == "did you mean 'none'?"


def test_facts_that_read_each_other_in_a_cycle_are_rp210() -> None:
    spec = SPEC.replace("EXTRA", "").replace(
        "when: Flying, set: {los: all}}",
        "when: \"Flying and fact(los) != none\", set: {los: all}}")
    with pytest.raises(SpecError) as info:
        spec_system(spec)
    codes = {d.code for d in info.value.diagnostics}
    assert codes == {"RP210"}, info.value.diagnostics
    assert all("cycle" in d.message for d in info.value.diagnostics)


def test_a_fact_may_read_another_attribute() -> None:
    """Not a cycle: a fact about `cover` that reads the fact `los`."""
    spec = SPEC.replace("EXTRA", "").replace(
        "facts:\n",
        "facts:\n  - {id: unseen-cover, when: \"fact(los) == none\", set: {cover: full}}\n")
    spec += ("  - {id: covered, scope: global, when: \"fact(a.cover) == full\","
             " do: [leave a.Blinded]}\n")
    system = spec_system(spec)
    assert "covered" in _enabled(system, {"a.Blinded"})
    assert "covered" not in _enabled(system, {"a.Flying"})
    assert "covered" not in _enabled(system, {"b.Blinded"})
