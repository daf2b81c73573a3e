"""Stage `validate`/`lower`: names, types, did-you-mean, and what a valid spec lowers to."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from checker.diagnostics import Diagnostic
from checker.errors import SpecError
from checker.ir import Const, Op, Ruleset, V
from checker.spec.load import load_ruleset

pytestmark = pytest.mark.unit

RULES_TXT = """\
States of the same name cannot stack.
Flying State is automatically canceled if the model becomes Crouched.
A Prone model cannot gain Prone Markers.
Speed is halved.
"""

HEAD = """\
ruleset: demo
source: rules.txt
vars:
  hp: {range: [0, 3], init: 3}
  wound_state: {values: [active, downed]}
  alive: {values: ["false", "true"], init: "true"}
  round: {range: [1, 4], scope: global}
inputs:
  toughness_roll: [pass, fail]
  in_reach: bool
states:
  Crouched: {}
  Flying: {}
  Prone: {}
  Stunned: {markers: {max: 4}}
  Bleed: {markers: {values: [1, 2, 3], max: 3}}
"""


def _spec(tmp_path: Path, body: str, head: str = HEAD) -> Path:
    (tmp_path / "rules.txt").write_text(RULES_TXT, "utf-8")
    path = tmp_path / "spec.yaml"
    path.write_text(head + textwrap.dedent(body), "utf-8")
    return path


def load(tmp_path: Path, body: str, head: str = HEAD) -> Ruleset:
    return load_ruleset(_spec(tmp_path, body, head), "spec.yaml")


def errors(tmp_path: Path, body: str, head: str = HEAD) -> list[Diagnostic]:
    with pytest.raises(SpecError) as exc:
        load(tmp_path, body, head)
    return exc.value.diagnostics


def one_error(tmp_path: Path, body: str, head: str = HEAD) -> Diagnostic:
    diags = errors(tmp_path, body, head)
    assert len(diags) == 1, [d.render() for d in diags]
    return diags[0]


def cond(text: str) -> str:
    return f'properties:\n  - id: p\n    always: "{text}"\n'


def effect(text: str) -> str:
    return f'events:\n  - id: e\n    do: ["{text}"]\n'


# ------------------------------------------------------------------------------ types

@pytest.mark.parametrize(("text", "code", "message"), [
    ("hp", "RP206", "'hp' is an int expression; a condition must be true or false"),
    ("wound_state", "RP206", "'wound_state' is a"),
    ("not hp", "RP206", "'not' needs a condition, got an int"),
    ("hp and Crouched", "RP206", "'and' needs a condition, got an int"),
    ("Crouched == 1", "RP206", "'==' needs a number, got a bool"),
    ("Crouched < Flying", "RP206", "'<' needs a number, got a bool"),
    ("hp + Crouched > 0", "RP206", "'+' needs a number, got a bool"),
    ("toughness_roll == 1", "RP206", "'==' needs a number"),
    ("toughness_roll < fail", "RP206", "can only be compared with == or !="),
    ("toughness_roll == wound_state", "RP206", "compares values of different kinds"),
    ("wound_state == dead", "RP206", "'dead' is not one of ['active', 'downed']"),
    ("pass == fail", "RP203", "unknown name 'pass'"),
    ("hp:1 > 0", "RP206", "':1' only follows a valued marker State"),
    ("Bleed:7 > 0", "RP203", "'Bleed' has no marker value 7"),
    ("Bleed:1", "RP206", "'Bleed:1' is an int expression"),
    ("count(hp) > 0", "RP203", "unknown State 'hp'"),
    ("count(1) > 0", "RP206", "count() takes one marker State, e.g. count(Bleed)"),
    ("highest(Stunned) > 0", "RP206", "highest() needs valued markers; 'Stunned' has none"),
    ("min(hp) > 0", "RP206", "min() takes two or more numbers"),
    ("abs(hp, 1) > 0", "RP206", "abs() takes one number"),
    ("any(hp)", "RP206", "any() needs a condition, got an int"),
    ("a.b.c", "RP203", "a.b.c has too many parts"),
    ("other.Crouched", "RP203", "'other.' needs exactly two models"),
    ("x.Crouched", "RP203", "unknown model 'x'"),
])
def test_type_errors(tmp_path: Path, text: str, code: str, message: str) -> None:
    d = one_error(tmp_path, cond(text))
    assert d.code == code and message in d.message, d.render()
    assert (d.location.line, d.location.col) == (HEAD.count("\n") + 3, 13)  # type: ignore[union-attr]


@pytest.mark.parametrize("text", [
    "Crouched == Flying", "Crouched != true", "alive", "alive == true", "in_reach",
    "wound_state == downed", "downed != wound_state", "toughness_roll == pass",
    "count(Bleed) >= 3 and highest(Bleed) == 3", "Bleed:2 >= 1 or Stunned",
    "max(hp, 1, round) - min(hp, 2) * abs(-hp) >= -3", "any(Crouched) implies all(hp > 0)",
    "count(Crouched) <= 1", "round == 1 or hp == 0", "true", "1 == 1",
])
def test_well_typed_conditions(tmp_path: Path, text: str) -> None:
    load(tmp_path, cond(text))


@pytest.mark.parametrize(("text", "code", "message"), [
    ("enter Stunned", "RP206", "'Stunned' is a marker State; use 'add Stunned'"),
    ("enter Bleed", "RP206", "'Bleed' is a marker State"),
    ("remove Crouched", "RP206", "'Crouched' is a flag State; use 'leave Crouched'"),
    ("add Bleed", "RP206", "say which value: 'add Bleed:1'"),
    ("remove Bleed", "RP206", "say which value of 'Bleed', or 'remove all'/'highest'"),
    ("Bleed = 2", "RP206", "say which value of 'Bleed'"),
    ("remove highest Stunned", "RP206", "'remove highest' needs valued markers"),
    ("remove highest Bleed -> wound_state", "RP206", "'-> wound_state' needs a number variable"),
    ("remove highest Bleed -> toughness_roll", "RP206", "needs a number variable"),
    ("remove 2 Stunned -> hp", "RP206", "'->' only follows 'remove highest'"),
    ("toughness_roll = pass", "RP206", "toughness_roll is an input (rolled each step)"),
    ("in_reach = true", "RP206", "in_reach is an input"),
    ("wound_state += 1", "RP206", "wound_state takes one of ['active', 'downed']; use '='"),
    ("wound_state = 1", "RP206", "wound_state takes one of ['active', 'downed']"),
    ("wound_state = dead", "RP206", "'dead' is not one of ['active', 'downed']"),
    ("wound_state = toughness_roll", "RP206", "wound_state takes one of"),
    ("Crouched = 1", "RP206", "'Crouched =' needs a condition, got an int"),
    ("alive = 1", "RP206", "'alive =' needs a condition"),
    ("hp = Crouched", "RP206", "'=' needs a number, got a bool"),
    ("hp = wound_state", "RP206", "'=' needs a number"),
    ("Stunned:1 = 1", "RP203", "'Stunned' has no marker value 1"),
    ("enter Crouchd", "RP203", "unknown State 'Crouchd'"),
    ("emit nothing", "RP203", "unknown event 'nothing'"),
    ("enter other.Crouched", "RP203", "'other.' needs exactly two models"),
])
def test_effect_errors(tmp_path: Path, text: str, code: str, message: str) -> None:
    d = one_error(tmp_path, effect(text))
    assert d.code == code and message in d.message, d.render()


@pytest.mark.parametrize("text", [
    "enter Crouched", "leave Crouched", "leave Bleed", "add Stunned", "add 3 Stunned",
    "add Bleed:2", "remove Stunned", "remove 2 Stunned", "remove all Stunned",
    "remove Bleed:3", "remove all Bleed", "remove highest Bleed", "remove highest Bleed -> hp",
    "hp = 0", "hp += 1", "hp -= highest(Bleed)", "hp = max(hp, 1)", "round = 2",
    "wound_state = downed", "Crouched = true", "Crouched = hp > 1", "alive = false",
    "Stunned = 2", "Bleed:1 = 0",
])
def test_well_typed_effects(tmp_path: Path, text: str) -> None:
    load(tmp_path, effect(text))


def test_all_problems_of_a_spec_are_reported_together(tmp_path: Path) -> None:
    diags = errors(tmp_path, """\
        rules:
          - id: r1
            when: hp
            do: [enter Flyng]
          - id: r2
            on: nope
            do: [leave Flying]
        properties:
          - {id: p, always: "wound_state == dead"}
        """)
    assert sorted(d.code for d in diags) == ["RP203", "RP203", "RP206", "RP206"]
    assert len({d.location for d in diags}) == 4


# ------------------------------------------------------------------------------ did-you-mean

@pytest.mark.parametrize(("body", "fix"), [
    (cond("Crouchd"), "did you mean 'Crouched'?"),
    (cond("count(Stuned) > 0"), "did you mean 'Stunned'?"),
    (cond("hpp > 0"), "did you mean 'hp'?"),
    (cond("HP > 0"), "did you mean 'hp'?"),                        # case-insensitive fallback
    (cond("toughnes_roll == pass"), "did you mean 'toughness_roll'?"),
    (cond("wound_state == downd"), "did you mean 'downed'?"),
    (cond("downd == wound_state"), "did you mean 'downed'?"),
    (effect("wound_state = activ"), "did you mean 'active'?"),
    (effect("emit suffer_wond"), "did you mean 'suffer-wound'?"),
    ("rules:\n  - {id: r, on: sufer-wound, do: [leave Flying]}\n",
     "did you mean 'suffer-wound'?"),
    ("prevents:\n  - {id: p, blocks: [Pron]}\n", "did you mean 'Prone'?"),
    ("properties:\n  - {id: p, terminal: Flyin}\n", "did you mean 'Flying'?"),
    ("decisions: {action: [dodge, nothing]}\nconstraints:\n"
     "  - {id: c, only: {acion: [dodge]}}\n", "did you mean 'action'?"),
    ("decisions: {action: [dodge, nothing]}\nconstraints:\n"
     "  - {id: c, must: {action: nothng}}\n", "did you mean 'nothing'?"),
    ("decisions: {action: [dodge, nothing]}\nconstraints:\n"
     "  - {id: blinded, only: {action: [dodge]}}\n"
     "  - {id: c, must: {action: dodge}, overrides: [blindd]}\n", "did you mean 'blinded'?"),
    ("stats: {speed: {base: 4}}\nmodifiers:\n  - {id: m, stat: sped, op: halve}\n",
     "did you mean 'speed'?"),
])
def test_did_you_mean(tmp_path: Path, body: str, fix: str) -> None:
    events = "events:\n  - id: suffer-wound\n    do: []\n"
    body = body.replace("events:\n", events, 1) if body.startswith("events:") else events + body
    d = one_error(tmp_path, body)
    assert d.code in ("RP203", "RP206")
    assert d.fix == fix, d.render()


def test_no_suggestion_when_nothing_is_close(tmp_path: Path) -> None:
    d = one_error(tmp_path, cond("zebra"))
    assert d.code == "RP203" and d.fix is None


def test_init_label_did_you_mean(tmp_path: Path) -> None:
    head = HEAD.replace("{values: [active, downed]}", "{values: [active, downed], init: actve}")
    d = one_error(tmp_path, "", head)
    assert (d.code, d.fix) == ("RP211", "did you mean 'active'?")


def test_model_did_you_mean(tmp_path: Path) -> None:
    diags = errors(tmp_path, "models: [engager, engaged]\nproperties:\n"
                   "  - {id: p, never: \"engagd.Crouched\"}\n")
    assert {(d.code, d.fix) for d in diags} == {("RP203", "did you mean 'engaged'?")}


# ------------------------------------------------------------------------------ lowering

def test_phases_generate_cyclic_phase_events(tmp_path: Path) -> None:
    system = load(tmp_path, "phases: [strategic, activation, end]\n").system
    phase = system.var("phase")
    assert (phase.labels, phase.init, phase.model) == (("strategic", "activation", "end"),
                                                       (0,), None)
    events = {e.id: e for e in system.events}
    assert events["strategic-phase"].guard == Op("eq", (V("phase"), Const(2)))
    assert events["activation-phase"].guard == Op("eq", (V("phase"), Const(0)))
    assert events["end-phase"].effects[-1].var == "phase"


def test_models_instantiate_per_model(tmp_path: Path) -> None:
    system = load(tmp_path, """\
        models: [a, b]
        events:
          - {id: wound, do: ["hp -= 1"]}
          - {id: storm, scope: global, do: ["round = 2"]}
        rules:
          - {id: crouch, when: "hp == 0 and not other.Crouched", do: [enter Crouched]}
        """).system
    assert {e.id for e in system.events} == {"wound@a", "wound@b", "storm"}
    assert [r.id for r in system.rules] == ["crouch@a", "crouch@b"]
    names = {v.name for v in system.vars}
    assert {"a.hp", "b.hp", "a.Crouched", "b.Bleed:3", "round", "toughness_roll"} <= names
    assert "hp" not in names and "a.round" not in names


def test_meta_stacking_none_blocks_entering_twice(tmp_path: Path) -> None:
    ruleset = load(tmp_path, """\
        meta:
          - {id: no-stacking, stacking: none, cite: "States of the same name cannot stack."}
        events:
          - {id: e, do: [enter Crouched]}
        """)
    [enter] = [a for a in ruleset.system.events[0].effects if a.var == "Crouched"]
    assert isinstance(enter.value, Op) and enter.value.op == "ite"
    ids = {p.id for p in ruleset.system.properties}
    assert {"no-stacking:Crouched", "no-stacking:Flying", "termination"} <= ids


def test_property_kinds_and_builtins(tmp_path: Path) -> None:
    system = load(tmp_path, """\
        rules:
          - {id: r, when: Crouched, do: [leave Flying]}
        properties:
          - {id: capped, always: "hp <= 3"}
          - {id: implication, always: "Crouched implies not Flying"}
          - {id: never-both, never: "Crouched and Flying"}
          - {id: can-crouch, reachable: Crouched}
          - {id: prone-stays, terminal: Prone}
        """).system
    kinds = {p.id: p.kind for p in system.properties}
    assert kinds["capped"] == "cap" and kinds["implication"] == "always"
    assert kinds["vacuity:implication"] == "vacuity"
    assert kinds["never-both"] == "never" and kinds["can-crouch"] == "reachable"
    assert kinds["prone-stays"] == "terminal" and kinds["rule-fires:r"] == "rule-fires"
    assert kinds["state-reachable:Bleed"] == "state-reachable"


def test_repeat_while_adds_a_fired_flag(tmp_path: Path) -> None:
    system = load(tmp_path, """\
        phases: [starting, end]
        rules:
          - id: bleed
            on: end-phase
            when: Bleed
            do: [remove highest Bleed -> hp]
            repeat_while: count(Bleed) >= 3
        """).system
    [rule] = system.rules
    assert rule.on == ("end-phase",)
    assert rule.effects[-1].var == "_fired:bleed"
    assert system.var("_happened:end-phase").kind == "happened"


def test_procedure_steps_are_first_applicable(tmp_path: Path) -> None:
    system = load(tmp_path, """\
        decisions: {action: [melee, run, other]}
        procedures:
          - id: berserk
            when: Crouched
            steps:
              - {id: melee, if: in_reach, must: {action: melee}}
              - {id: run, must: {action: run}}
        """).system
    melee, run = system.constraints
    assert (melee.source, run.source) == ("berserk.melee", "berserk.run")
    assert "in_reach" in repr(run.when) and "not" in repr(run.when)


def test_default_res_bound(tmp_path: Path) -> None:
    rules = "rules:\n" + "".join(f"  - {{id: r{i}, do: [leave Flying]}}\n" for i in range(5))
    assert load(tmp_path, rules).system.res_bound == 12
    assert load(tmp_path, "res_bound: 30\n").system.res_bound == 30
    assert load(tmp_path, "").system.res_bound == 8


# ------------------------------------------------------------------------------ known bugs

def test_add_undeclared_marker_value_is_rp203(tmp_path: Path) -> None:
    d = one_error(tmp_path, effect("add Bleed:5"))
    assert d.code == "RP203"


def test_remove_undeclared_marker_value_is_rp203(tmp_path: Path) -> None:
    d = one_error(tmp_path, effect("remove Bleed:5"))
    assert d.code == "RP203"


@pytest.mark.parametrize("body", [effect("enter Crouched:1"), cond("count(Bleed:7) > 0"),
                                  effect("leave Bleed:7")])
def test_value_suffix_on_a_state_that_has_no_such_value(tmp_path: Path, body: str) -> None:
    d = one_error(tmp_path, body)
    assert d.code in ("RP203", "RP206")


@pytest.mark.parametrize("field", ['do: ["hp -= 1"]', "do: [enter Crouched]",
                                   'when: "hp > 0"', "when: Crouched"])
def test_global_event_must_qualify_per_model_names(tmp_path: Path, field: str) -> None:
    d = one_error(tmp_path, f"models: [a, b]\nevents:\n  - id: storm\n    scope: global\n"
                  f"    {field}\n")
    assert d.code in ("RP203", "RP206")


def test_assigning_an_unknown_name_is_rp203_with_did_you_mean(tmp_path: Path) -> None:
    d = one_error(tmp_path, effect("hpp -= 1"))
    assert (d.code, d.fix) == ("RP203", "did you mean 'hp'?")


def test_per_model_problems_are_reported_once(tmp_path: Path) -> None:
    diags = errors(tmp_path, "models: [a, b]\n" + cond("Crouchd"))
    assert len(diags) == 1


def test_message_says_an_enum(tmp_path: Path) -> None:
    assert "an enum" in one_error(tmp_path, cond("wound_state")).message


def test_input_cite_is_checked(tmp_path: Path) -> None:
    head = HEAD.replace("in_reach: bool",
                        'in_reach: {values: [absent, present], cite: "Not there."}')
    assert one_error(tmp_path, "", head).code == "RP207"


def test_duplicate_step_ids(tmp_path: Path) -> None:
    d = one_error(tmp_path, """\
        decisions: {action: [melee, run]}
        procedures:
          - id: berserk
            steps:
              - {id: step, must: {action: melee}}
              - {id: step, must: {action: run}}
        """)
    assert d.code == "RP204"


def test_fact_overrides_unknown_fact(tmp_path: Path) -> None:
    d = one_error(tmp_path, """\
        facts:
          - {id: f1, when: Crouched, set: {los: none}, overrides: [f3]}
        """)
    assert d.code == "RP203"


def test_typo_in_cite_mapping_is_unknown_field(tmp_path: Path) -> None:
    d = one_error(tmp_path, 'meta:\n  - id: m\n    cite: {quote: "Speed is halved.", '
                  "occurence: 1}\n")
    assert (d.code, d.message) == ("RP202", "unknown field 'occurence' in meta entry 'm': "
                                   "'cite'")


def test_unknown_field_did_you_mean(tmp_path: Path) -> None:
    d = one_error(tmp_path, "titel: demo\n")
    assert (d.code, d.fix) == ("RP202", "did you mean 'title'?")


def test_yaml_value_error_is_one_line(tmp_path: Path) -> None:
    d = one_error(tmp_path, 'title: !!python/name:os.system ""\n')
    assert d.code == "RP104" and "\n" not in d.render()


def test_long_arithmetic_chain_is_not_a_recursion_error(tmp_path: Path) -> None:
    diags = errors(tmp_path, cond("hp > " + "+".join(["hp"] * 600)))
    assert {d.code for d in diags} <= {"RP205", "RP206"}


STATE_INIT_HEAD = """\
ruleset: demo
source: rules.txt
models: [a, b]
states:
  Crouched: {init: true}
  Flying: {init: [0, 1]}
  Prone: {}
  Stunned: {markers: {max: 4}, init: 2}
"""


def test_states_with_an_initial_value(tmp_path: Path) -> None:
    system = load(tmp_path, "", STATE_INIT_HEAD).system
    init = {v.name: v.init for v in system.vars if v.state is not None}
    assert init == {"a.Crouched": (1,), "b.Crouched": (1,), "a.Flying": (0, 1),
                    "b.Flying": (0, 1), "a.Prone": (0,), "b.Prone": (0,),
                    "a.Stunned": (2,), "b.Stunned": (2,)}


@pytest.mark.parametrize(("decl", "message"), [
    ("{init: 3}", "initial value 3 is outside the range [0, 1]"),
    ("{markers: {max: 2}, init: [1, 3]}", "initial value 3 is outside the range [0, 2]"),
    ("{markers: {max: 3, values: [1, 2]}, init: 1}",
     "valued markers 'Held' cannot have an initial value"),
])
def test_bad_state_initial_values(tmp_path: Path, decl: str, message: str) -> None:
    d = one_error(tmp_path, "", STATE_INIT_HEAD + f"  Held: {decl}\n")
    assert (d.code, d.message) == ("RP211", message)


AFTER_BODY = """\
events:
  - {id: knock-down, do: [enter Prone]}
  - {id: stand-up, do: [leave Prone]}
properties:
  - {id: up-after-stand, after: stand-up, never: Prone}
  - {id: crouched-after-knock, after: knock-down, always: Crouched}
"""


def test_after_event_properties(tmp_path: Path) -> None:
    from checker.options import Options
    from checker.plan.check import check
    from checker.results import Status

    system = load(tmp_path, AFTER_BODY).system
    byid = {p.id: p for p in system.properties}
    assert byid["up-after-stand"].expr == Op("implies", (
        Op("eq", (V("_happened:stand-up"), Const(1))), Op("not", (Op("ge", (V("Prone"),
                                                                           Const(1))),))))
    assert "vacuity:up-after-stand" in byid
    run = check([_spec(tmp_path, AFTER_BODY)], Options(use_cache=False, jobs=1))
    status = {p.id: p.status for p in run.checked[0].result.properties}
    # from the events: standing up leaves Prone; knocking down never makes a model Crouched
    assert status["up-after-stand"] is Status.PROVED
    assert status["crouched-after-knock"] is Status.VIOLATED
    assert status["vacuity:up-after-stand"] is Status.PROVED


def test_after_needs_a_known_event_and_always_or_never(tmp_path: Path) -> None:
    d = one_error(tmp_path, "properties:\n  - {id: p, after: stand, never: Prone}\n")
    assert (d.code, d.message) == ("RP203", "unknown event 'stand' in 'after'")
    d = one_error(tmp_path, "events: [{id: e, do: []}]\n"
                  "properties:\n  - {id: p, after: e, reachable: Prone}\n")
    assert d.code == "RP201" and "'after' goes with 'always' or 'never'" in d.message


STAT_HEAD = """\
ruleset: demo
source: rules.txt
states:
  Crouched: {}
  Flying: {}
events:
  - {id: crouch, do: [enter Crouched]}
  - {id: fly, do: [enter Flying]}
stats:
  speed: {base: 5, round: down}
modifiers:
  - {id: crouched-speed, when: Crouched, stat: speed, op: halve}
  - {id: flying-speed, when: Flying, stat: speed, op: double}
"""


def test_stat_in_properties_holds_for_every_order(tmp_path: Path) -> None:
    """Speed 5, halved while Crouched, doubled while Flying: 2 Crouched, 10 Flying, and when
    both apply the text gives no order, so 4 (halve first) or 5 (double first)."""
    from checker.options import Options
    from checker.plan.check import check
    from checker.results import Status

    body = """\
properties:
  - {id: at-least-2, always: "stat(speed) >= 2"}
  - {id: never-4, never: "stat(speed) == 4"}
  - {id: five-when-both, reachable: "stat(speed) == 5 and Crouched and Flying"}
  - {id: eleven, reachable: "stat(speed) == 11"}
"""
    run = check([_spec(tmp_path, body, STAT_HEAD)], Options(use_cache=False, jobs=1))
    status = {p.id: p.status for p in run.checked[0].result.properties}
    assert status["at-least-2"] is Status.PROVED
    assert status["never-4"] is Status.VIOLATED      # one order of the two gives 4
    assert status["five-when-both"] is Status.PROVED  # the other gives 5
    assert status["eleven"] is Status.VIOLATED        # never reachable


@pytest.mark.parametrize(("body", "code", "message"), [
    ("rules:\n  - {id: r, when: \"stat(speed) > 1\", do: [leave Flying]}\n", "RP206",
     "in 'stat(speed) > 1': stat() can be used in properties only (a stat is not a variable: "
     "its value depends on the modifiers that apply)"),
    ("properties:\n  - {id: p, always: \"stat(sped) > 1\"}\n", "RP203",
     "in 'stat(sped) > 1': unknown stat 'sped'"),
])
def test_stat_errors(tmp_path: Path, body: str, code: str, message: str) -> None:
    d = one_error(tmp_path, body, STAT_HEAD)
    assert (d.code, d.message) == (code, message)
