"""Named conditions, `conditions: {enemy: ...}` (issue #16; notes/bushido-gaps.md B2: the
text says "Enemy" and the spec wrote the Warband comparison out 20 times). Expectations
written from docs/spec-language.md "Named conditions": a named condition means its text,
read as the model the element belongs to (`enemy`), or as the model named (`a.enemy`,
`other.enemy`); it may use other named conditions; an error in it is reported once, at
its declaration; a cycle, a clash with a declared name and a global use without a model are
errors."""

from __future__ import annotations

import contextlib

import pytest
from strategies import spec_system

from checker.errors import SpecError
from checker.interpret.evaluate import evaluate
from checker.ir import System

pytestmark = pytest.mark.unit

HEAD = """ruleset: t
source: rules.txt
models: [a, b]
vars:
  side: {values: [original, switched], init: original}
  allied: {scope: global, values: ["false", "true"], init: ["false", "true"]}
states:
  Prone: {}
"""

NAMED = HEAD + """conditions:
  friendly: "(allied and side == other.side) or (not allied and side != other.side)"
  enemy: not friendly
events:
  - {id: strike, when: enemy and not other.Prone, do: [enter other.Prone]}
  - {id: help, when: "friendly and other.Prone", do: [leave other.Prone]}
  - {id: clash, scope: global, when: a.enemy, do: [enter a.Prone]}
  - {id: watch, scope: global, when: b.friendly and other_is_fine, do: [leave b.Prone]}
inputs:
  other_is_fine: bool
"""

WRITTEN = HEAD + """events:
  - id: strike
    when: >-
      not ((allied and side == other.side) or (not allied and side != other.side))
      and not other.Prone
    do: [enter other.Prone]
  - id: help
    when: "((allied and side == other.side) or (not allied and side != other.side)) and other.Prone"
    do: [leave other.Prone]
  - id: clash
    scope: global
    when: "not ((allied and a.side == b.side) or (not allied and a.side != b.side))"
    do: [enter a.Prone]
  - id: watch
    scope: global
    when: "((allied and b.side == a.side) or (not allied and b.side != a.side)) and other_is_fine"
    do: [leave b.Prone]
inputs:
  other_is_fine: bool
"""


def _envs(system: System) -> list[dict[str, int]]:
    """Every assignment of side, allied, Prone and the input."""
    import itertools
    names = ["a.side", "b.side", "allied", "a.Prone", "b.Prone", "other_is_fine"]
    return [dict(zip(names, values, strict=True))
            for values in itertools.product((0, 1), repeat=len(names))]


def test_a_named_condition_means_its_text_read_as_each_model() -> None:
    named, written = spec_system(NAMED), spec_system(WRITTEN)
    guards = {e.id: e.guard for e in named.events}
    assert set(guards) == {"strike@a", "strike@b", "help@a", "help@b", "clash", "watch"}
    by_hand = {e.id: e.guard for e in written.events}
    for env in _envs(named):
        for ev, guard in guards.items():
            assert evaluate(guard, env) == evaluate(by_hand[ev], env), (ev, env)


@pytest.mark.parametrize(("env", "enabled"), [
    # allied, same side: friends; b is Prone, so a may help b, and no one strikes
    ({"allied": 1, "a.side": 0, "b.side": 0, "b.Prone": 1}, {"help@a"}),
    # allied but a switched Warband: enemies; neither is Prone, so each may strike the other
    ({"allied": 1, "a.side": 1, "b.side": 0}, {"strike@a", "strike@b", "clash"}),
    # not allied, same side: enemies
    ({"allied": 0, "a.side": 0, "b.side": 0}, {"strike@a", "strike@b", "clash"}),
    # not allied, one switched: friends; the global watch needs the input too
    ({"allied": 0, "a.side": 0, "b.side": 1, "other_is_fine": 1}, {"watch"}),
])
def test_what_the_named_conditions_enable(env: dict[str, int], enabled: set[str]) -> None:
    system = spec_system(NAMED)
    full = {v.name: v.init[0] for v in system.vars} | env
    assert {e.id for e in system.events if evaluate(e.guard, full)} == enabled


def _error(text: str) -> tuple[str, str, int]:
    with pytest.raises(SpecError) as info:
        spec_system(text)
    d = info.value.diagnostics[0]
    return d.code, d.message, d.location.line


def test_a_global_use_without_a_model_says_which_to_write() -> None:
    code, message, _ = _error(HEAD + "conditions: {enemy: side != other.side}\n"
                              "events: [{id: e, scope: global, when: enemy, do: []}]\n")
    assert code == "RP203"
    assert "'enemy' reads a model's names" in message


def test_a_cycle_is_an_error_at_the_declarations() -> None:
    text = HEAD + "conditions:\n  enemy: not friendly\n  friendly: not enemy\n"
    with pytest.raises(SpecError) as info:
        spec_system(text)
    found = [(d.code, d.location.line) for d in info.value.diagnostics]
    # reported once, at the first of the two (line 10 of the spec), naming the whole cycle;
    # the second then reads the first as broken and adds no second report of the same cycle
    assert found == [("RP210", 10)]
    assert "enemy → friendly → enemy" in info.value.diagnostics[0].message


def test_an_error_inside_is_reported_once_where_it_is_declared() -> None:
    text = HEAD + ("conditions:\n  enemy: side != other.sidee\n"
                   "events:\n  - {id: e, when: enemy, do: []}\n"
                   "  - {id: f, when: not enemy, do: []}\n")
    with pytest.raises(SpecError) as info:
        spec_system(text)
    assert [(d.code, d.location.line) for d in info.value.diagnostics] == [("RP203", 10)]


@pytest.mark.parametrize(("decl", "code"), [
    ("Prone: side == other.side", "RP204"),              # a State's name
    ("enemy: count(Prone)", "RP206"),                   # a number, not a condition
    ("enemy: side ==", "RP205"),                         # does not parse
])
def test_bad_declarations(decl: str, code: str) -> None:
    assert _error(HEAD + f"conditions:\n  {decl}\n")[0] == code


def test_a_name_expressions_cannot_use_is_a_schema_error() -> None:
    code, message, line = _error(HEAD + "conditions:\n  same warband: side == other.side\n")
    assert line == 10
    assert code == "RP201"
    assert message == "the named condition 'same warband' is not a name an expression can use"


def test_a_keyword_cannot_name_a_condition() -> None:
    from checker.spec import expr as ast
    for word in sorted(ast.KEYWORDS):      # KEYWORDS is what the grammar's NAME excludes
        tree = None
        with contextlib.suppress(ast.ExprSyntaxError):
            tree = ast.parse_expr(word)
        assert not isinstance(tree, ast.Ref), word
    code, message, line = _error(HEAD + "conditions:\n  implies: side == other.side\n")
    assert (code, line) == ("RP204", 10)
    assert "'implies' is a word of the expression language" in message


# ------------------------------------------------------------------ a condition nothing uses

def test_a_condition_nothing_uses_is_an_error() -> None:
    # `enemy` is used by an event and uses `friendly`; `ally` is used by nothing
    text = NAMED.replace("  enemy: not friendly\n",
                         "  enemy: not friendly\n  ally: allied\n")
    with pytest.raises(SpecError) as info:
        spec_system(text)
    found = [(d.code, d.location.line, d.message) for d in info.value.diagnostics]
    assert found == [("RP222", 12, "the named condition 'ally' is never used: no element "
                      "of the spec reads it")]


def test_conditions_used_only_by_each_other_are_unused() -> None:
    text = HEAD + ("conditions:\n  friendly: side == other.side\n  enemy: not friendly\n"
                   "events:\n  - {id: e, when: Prone, do: [leave Prone]}\n")
    with pytest.raises(SpecError) as info:
        spec_system(text)
    assert [(d.code, d.location.line) for d in info.value.diagnostics] == [
        ("RP222", 10), ("RP222", 11)]


def test_a_condition_one_reading_uses_is_used() -> None:
    # only the second reading of the sentence says "an Enemy"
    text = HEAD + """conditions:
  enemy: side != other.side
events:
  - id: strike
    cite: "Generated rules."
    readings:
      - {label: "anyone", when: not other.Prone, do: [enter other.Prone]}
      - {label: "an Enemy", when: enemy and not other.Prone, do: [enter other.Prone]}
"""
    system = spec_system(text)
    assert {e.id for e in system.events} == {"strike@a", "strike@b"}
