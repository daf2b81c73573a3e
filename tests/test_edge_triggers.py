"""`on: enters C` / `on: leaves C` with C a condition, not only a State (issue #15, item 6:
"becomes" is an edge, "while" a level).

The expectations are written from the semantics: a rule `on: enters hp == 0` fires in the
step in which `hp == 0` starts to hold, and never again while it keeps holding; a level
rule `when: hp == 0` fires whenever its condition holds and firing changes something.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from strategies import load_spec

from checker.errors import SpecError
from checker.interpret import Interpreter, reachable_states
from checker.ir import System

pytestmark = pytest.mark.unit

SPEC = """ruleset: t
source: rules.txt
vars:
  hp: {range: [0, 2], init: 2}
states:
  Incapacitated: {}
events:
  - {id: wound, when: hp > 0, do: ["hp -= 1"]}
  - {id: heal, when: hp < 2, do: ["hp += 1"]}
  - {id: shake-off, when: Incapacitated, do: [leave Incapacitated]}
rules:
  - id: down-at-zero
    TRIGGER
    do: [enter Incapacitated]
"""


def _system(trigger: str, spec: str = SPEC) -> System:
    with tempfile.TemporaryDirectory() as folder:
        return load_spec(Path(folder), spec.replace("TRIGGER", trigger))


def _stable(system: System) -> set[tuple[int, bool]]:
    """(hp, Incapacitated) of every reachable stable state."""
    interp = Interpreter(system)
    states, complete = reachable_states(system)
    assert complete
    hp, inc = interp.index["hp"], interp.index["Incapacitated"]
    return {(s[hp], bool(s[inc])) for s in states if interp.is_stable(s)}


def test_an_edge_on_a_condition_fires_once_when_it_starts_to_hold() -> None:
    seen = _stable(_system("on: enters hp == 0"))
    # reaching 0 makes the model Incapacitated; shaking it off at 0 HP is not undone,
    # since hp == 0 did not *start* to hold in that step; healing keeps the State
    assert (0, True) in seen
    assert (0, False) in seen
    assert (1, True) in seen and (2, True) in seen
    assert (1, False) in seen and (2, False) in seen


def test_the_level_rule_on_the_same_condition_fires_while_it_holds() -> None:
    seen = _stable(_system("when: hp == 0"))
    assert (0, True) in seen
    assert (0, False) not in seen           # re-entered at once after shaking it off


def test_leaves_a_condition() -> None:
    spec = SPEC.replace("[enter Incapacitated]", "[leave Incapacitated]").replace(
        "  - {id: shake-off, when: Incapacitated, do: [leave Incapacitated]}",
        "  - {id: fall, when: not Incapacitated, do: [enter Incapacitated]}")
    seen = _stable(_system("on: leaves hp == 0", spec))
    # the State is lost in the step in which hp leaves 0 (healed from 0), not otherwise
    assert (2, True) in seen and (1, True) in seen and (0, True) in seen
    system = _system("on: leaves hp == 0", spec)
    interp = Interpreter(system)
    hp, inc = interp.index["hp"], interp.index["Incapacitated"]
    states, _ = reachable_states(system)
    healed = 0
    for s in states:
        if interp.is_stable(s) and s[hp] == 0 and s[inc]:
            _, after = interp.after_event(s, "heal", ())
            for end in interp.resolutions(after).finals:
                assert end[hp] == 1 and not end[inc]
                healed += 1
    assert healed


def test_two_rules_on_one_condition_share_its_bookkeeping() -> None:
    spec = SPEC + """  - id: also-at-zero
    on: enters hp == 0
    do: ["hp += 0"]
"""
    system = _system("on: enters hp == 0", spec)
    was = [v.name for v in system.vars if v.kind == "was"]
    assert was == ["_was:(hp == 0)"]


@pytest.mark.parametrize(("trigger", "code"), [
    ("on: enters hp ==", "RP205"),          # not a condition
    ("on: enters hp + 1", "RP206"),         # a number, not true or false
    ("on: enters mana == 0", "RP203"),      # unknown name
])
def test_a_bad_condition_is_a_located_error(trigger: str, code: str) -> None:
    with pytest.raises(SpecError) as info:
        _system(trigger)
    assert any(d.code == code for d in info.value.diagnostics)


# ------------------------------------------------------------------ the trigger-wording lint

POSTURE = """ruleset: t
source: rules.txt
vars:
  posture: {values: [standing, prone], init: standing}
  torch: {values: ["false", "true"], init: "true"}
events:
  - {id: trip, when: posture == standing, do: [posture = prone]}
  - {id: stand, when: posture == prone, do: [posture = standing]}
  - {id: pick-up, when: not torch, do: ["torch = true"]}
rules:
  - id: prone-drops-torch
    cite: "A model that becomes prone drops its torch."
    TRIGGER
    DO
"""


def _lints(trigger: str, do: str = 'do: ["torch = false"]') -> list[str]:
    from checker.results.lints import lint_findings
    from checker.spec.load import load_ruleset

    with tempfile.TemporaryDirectory() as folder:
        (Path(folder) / "rules.txt").write_text(
            "A model that becomes prone drops its torch.\n", encoding="utf-8")
        spec = Path(folder) / "spec.yaml"
        spec.write_text(POSTURE.replace("TRIGGER", trigger).replace("DO", do),
                        encoding="utf-8")
        return [f.message for f in lint_findings(load_ruleset(spec))
                if f.kind == "trigger-wording"]


def test_becoming_a_value_written_as_a_level_is_linted() -> None:
    [message] = _lints("when: posture == prone")
    assert "“becomes”" in message and "write `on: enters posture == prone`" in message


def test_the_edge_on_the_value_is_not_linted() -> None:
    assert _lints("on: enters posture == prone") == []


def test_a_value_the_rule_itself_assigns_is_its_effect_not_its_trigger() -> None:
    # the rule reads `posture` and makes the model prone: "becomes prone" is its effect;
    # the same condition with another effect is linted
    assert _lints("when: posture == standing and not torch", "do: [posture = prone]") == []
    assert len(_lints("when: posture == standing and not torch",
                      'do: ["torch = true"]')) == 1


# ------------------------------------------------------------------ the merged-statements lint

ROLL_TEXT = """Bleeding
At the start of each of its turns, a Bleeding model must perform a Toughness roll.
• Pass: nothing happens.
• Fail: The model suffers 1 Wound.
• It cannot be healed.
"""


def _merged(cites: str, text: str = ROLL_TEXT) -> list[str]:
    """The `merged-statements` warnings of one rule, `bleeding-wound`, citing `cites` (a
    YAML list) from `text`."""
    from checker.results.lints import lint_findings
    from checker.spec.load import load_ruleset

    with tempfile.TemporaryDirectory() as folder:
        (Path(folder) / "rules.txt").write_text(text, encoding="utf-8")
        spec = Path(folder) / "spec.yaml"
        spec.write_text(f"""ruleset: t
source: rules.txt
vars:
  hp: {{range: [0, 2], init: 2}}
states:
  Bleeding: {{}}
events:
  - {{id: turn, when: hp > 0, do: []}}
rules:
  - id: bleeding-wound
    cite: {cites}
    on: turn
    when: Bleeding
    do: ["hp -= 1"]
""", encoding="utf-8")
        return [f.rules[0] for f in lint_findings(load_ruleset(spec))
                if f.kind == "merged-statements"]


def test_a_lead_in_and_one_of_its_bullets_are_one_clause() -> None:
    assert _merged('["a Bleeding model must perform a Toughness roll.", '
                   '"• Fail: The model suffers 1 Wound."]') == []


def test_two_bullets_of_one_list_are_two_statements() -> None:
    assert _merged('["• Fail: The model suffers 1 Wound.", "• It cannot be healed."]') == [
        "bleeding-wound"]
    assert _merged('["a Bleeding model must perform a Toughness roll.", '
                   '"• Fail: The model suffers 1 Wound.", "• It cannot be healed."]') == [
        "bleeding-wound"]


def _merged_rule(text: str, cites: list[str]) -> list[str]:
    return _merged("[" + ", ".join(f'"{c}"' for c in cites) + "]", text)


LOOP = ("During the End Phase remove the highest value Bleed marker.",
        "The model suffers a number of wounds equal to the removed Bleed marker's value.",
        "After this, if the model still has three or more Bleed markers, repeat the process.")


def test_a_rule_whose_sentences_carry_on_in_one_paragraph_is_one_clause() -> None:
    # Bushido's End Phase loop: the trigger, the effect and the repetition are three
    # sentences of one paragraph and one rule (notes/bushido-gaps.md B10)
    text = "Bleeding\n\n" + "\n".join(LOOP) + "\n"
    assert _merged_rule(text, list(LOOP)) == []
    assert _merged_rule(text, [LOOP[0], LOOP[2]]) == []     # the one between carries it on


def test_a_blank_line_or_a_trigger_of_its_own_makes_two_statements() -> None:
    apart = "Bleeding\n\n" + LOOP[0] + "\n\n" + LOOP[1] + "\n"
    assert _merged_rule(apart, [LOOP[0], LOOP[1]]) == ["bleeding-wound"]
    second = "At the start of each turn, a Bleeding model loses 1 HP."
    together = "Bleeding\n\n" + LOOP[0] + "\n" + second + "\n"
    assert _merged_rule(together, [LOOP[0], second]) == ["bleeding-wound"]
