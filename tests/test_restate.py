"""Restatements compared (`checker.engines.restate`, issue #15): two statements linked by
`restates:` are reported exactly when they differ in a reachable situation.

The hypothesis test draws two constraints on one decision over two States A and B, where
B can only be gained while A is held and A only lost once B is gone, so the situation "B
without A" is never reached. The oracle enumerates the three reachable situations and
compares the options each statement allows by hand; the scan must report the pair iff
they differ in one of them (a difference planted only in the unreachable situation is
never reported), and its trace must replay to a situation where they differ.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import SOURCE

from checker.engines.restate import scan_restatements
from checker.interpret import evaluate
from checker.ir import Ruleset, allowed_expr
from checker.options import Options
from checker.spec.load import load_ruleset

pytestmark = pytest.mark.unit

OPTIONS = Options(timeout_ms=600_000)   # a safety net: the counted rlimit decides
OPTIONS_LIST = ("run", "attack", "dodge", "nothing")
WHENS = {"true": lambda a, b: True, "A": lambda a, b: a, "B": lambda a, b: b,
         "A and B": lambda a, b: a and b, "not A": lambda a, b: not a,
         "A and not B": lambda a, b: a and not b, "B and not A": lambda a, b: b and not a}
REACHABLE = [(False, False), (True, False), (True, True)]      # never B without A

HEADER = """ruleset: t
source: rules.txt
meta:
  - {id: no-stacking, stacking: none}
states:
  A: {}
  B: {}
events:
  - {id: gain-a, when: not A, do: [enter A]}
  - {id: gain-b, when: A and not B, do: [enter B]}
  - {id: lose-b, when: B, do: [leave B]}
  - {id: lose-a, when: A and not B, do: [leave A]}
"""


def load(text: str) -> Ruleset:
    with tempfile.TemporaryDirectory() as folder:
        (Path(folder) / "rules.txt").write_text(SOURCE, encoding="utf-8")
        path = Path(folder) / "spec.yaml"
        path.write_text(text, encoding="utf-8")
        return load_ruleset(path)


Statement = tuple[str, str, frozenset[str]]      # when, only | forbid, options


def allowed(s: Statement, a: bool, b: bool) -> frozenset[str]:
    when, kind, opts = s
    if not WHENS[when](a, b):
        return frozenset(OPTIONS_LIST)
    return opts if kind == "only" else frozenset(OPTIONS_LIST) - opts


def constraint(ident: str, s: Statement, restates: str = "") -> str:
    when, kind, opts = s
    listed = ", ".join(o for o in OPTIONS_LIST if o in opts)
    link = f", restates: {restates}" if restates else ""
    return f"  - {{id: {ident}, when: \"{when}\", {kind}: {{action: [{listed}]}}{link}}}\n"


statements = st.tuples(st.sampled_from(sorted(WHENS)), st.sampled_from(["only", "forbid"]),
                       st.frozensets(st.sampled_from(OPTIONS_LIST), max_size=4))


@settings(max_examples=40, deadline=None, derandomize=True)
@given(statements, statements)
def test_reported_exactly_when_the_statements_differ_somewhere_reachable(
        first: Statement, second: Statement) -> None:
    text = (HEADER + "decisions:\n  action: [run, attack, dodge, nothing]\nconstraints:\n"
            + constraint("detail", first) + constraint("table", second, "detail"))
    ruleset = load(text)
    differs = [(a, b) for a, b in REACHABLE if allowed(first, a, b) != allowed(second, a, b)]
    scan = scan_restatements(ruleset, OPTIONS)
    assert scan.undecided == []
    assert [f.rules for f in scan.findings] == ([("detail", "table")] if differs else [])
    for f in scan.findings:
        assert f.kind == "inconsistent-restatement" and f.trace is not None
        assert f.trace.replayed
        system = ruleset.system
        final = dict(f.trace.steps[-1].state)
        here = (final["A"] >= 1, final["B"] >= 1)
        assert here in differs
        for o in OPTIONS_LIST:     # the IR's own allowed sets agree with the oracle's
            got = {src: bool(evaluate(allowed_expr([c for c in system.constraints
                                                     if c.source == src], "action", o, None),
                                      final)) for src in ("detail", "table")}
            assert got == {"detail": o in allowed(first, *here),
                           "table": o in allowed(second, *here)}


def test_a_difference_only_where_nothing_reaches_is_not_reported() -> None:
    first: Statement = ("B and not A", "only", frozenset({"dodge"}))
    second: Statement = ("true", "forbid", frozenset())
    text = (HEADER + "decisions:\n  action: [run, attack, dodge, nothing]\nconstraints:\n"
            + constraint("detail", first) + constraint("table", second, "detail"))
    assert scan_restatements(load(text), OPTIONS).findings == []


RULES = HEADER + """  - {id: take-cover, when: not cover, do: ["cover = true"]}
vars:
  cover: {values: ["false", "true"], init: "true"}
rules:
  - {id: detail, on: enters B, do: ["cover = false"]}
  - {id: table, when: B, do: ["cover = false"], restates: detail}
"""


def test_a_level_rule_and_its_edge_restatement_differ() -> None:
    """"becomes B" (an edge) and "while B" (a level) differ once a model that already holds
    B takes cover again: the level rule fires, the edge rule does not."""
    ruleset = load(RULES)
    [f] = scan_restatements(ruleset, OPTIONS).findings
    assert f.rules == ("detail", "table") and f.trace is not None and f.trace.replayed
    assert "'table' applies here and 'detail' does not" in f.message


def test_two_rules_stated_alike_are_not_reported() -> None:
    text = RULES.replace('when: B, do: ["cover = false"], restates', 'on: enters B, '
                         'do: ["cover = false"], restates')
    assert scan_restatements(load(text), OPTIONS).findings == []


def test_facts_and_modifiers_are_compared() -> None:
    text = HEADER + """facts:
  - {id: detail, when: A, set: {los: none}}
  - {id: table, when: A, set: {los: self}, restates: detail}
stats:
  SPD: {base: 4}
modifiers:
  - {id: slow-detail, when: B, stat: SPD, op: halve}
  - {id: slow-table, when: B, stat: SPD, op: halve, restates: slow-detail}
  - {id: fast-detail, when: A, stat: SPD, op: double}
  - {id: fast-table, when: A and B, stat: SPD, op: double, restates: fast-detail}
"""
    found = {f.rules: f for f in scan_restatements(load(text), OPTIONS).findings}
    assert set(found) == {("detail", "table"), ("fast-detail", "fast-table")}
    assert "los = none" in found[("detail", "table")].message
    fast = found[("fast-detail", "fast-table")]
    assert fast.trace is not None
    final = dict(fast.trace.steps[-1].state)
    assert (final["A"], final["B"]) == (1, 0)     # only there does one apply and not the other


def test_every_model_is_compared() -> None:
    text = HEADER.replace("ruleset: t\n", "ruleset: t\nmodels: [x, y]\n").replace(
        "when: not A, do: [enter A]", "when: not x.A, do: [enter x.A]").replace(
        "when: A and not B, do: [enter B]", "when: x.A and not x.B, do: [enter x.B]").replace(
        "when: B, do: [leave B]", "when: x.B, do: [leave x.B]").replace(
        "when: A and not B, do: [leave A]", "when: x.A and not x.B, do: [leave x.A]")
    text = text.replace("  - {id: gain-a", "  - {id: gain-a, scope: global").replace(
        "  - {id: gain-b", "  - {id: gain-b, scope: global").replace(
        "  - {id: lose-b", "  - {id: lose-b, scope: global").replace(
        "  - {id: lose-a", "  - {id: lose-a, scope: global")
    text += ("decisions:\n  action: [run, attack, dodge, nothing]\nconstraints:\n"
             + constraint("detail", ("A", "forbid", frozenset({"run"})))
             + constraint("table", ("A", "only", frozenset({"dodge", "nothing"})), "detail"))
    [f] = scan_restatements(load(text), OPTIONS).findings
    assert f.rules == ("detail", "table") and f.trace is not None and f.trace.replayed
    assert "model 'x'" in f.message and "attack allowed by 'detail' only" in f.message


def test_modifiers_are_compared_by_value_not_by_wording() -> None:
    """"Strike is capped at 1" and the table's "STK = 1" (Eldfall's Crouched) give the same
    Strike wherever nothing takes it below 1, and are not reported; a modifier that lowers
    it (here -2 while B) makes them differ: capped, 2 - 2 = 0 stays 0 (or -1 if the cap comes
    first); set, it is 1 (or -1 if the -2 comes last)."""
    text = HEADER + """stats:
  STK: {base: 2}
modifiers:
  - {id: stk-detail, when: A, stat: STK, op: cap 1}
  - {id: stk-table, when: A, stat: STK, op: set 1, restates: stk-detail}
"""
    assert scan_restatements(load(text), OPTIONS).findings == []
    lowered = text + "  - {id: weakened, when: B, stat: STK, op: add -2}\n"
    [f] = scan_restatements(load(lowered), OPTIONS).findings
    assert f.rules == ("stk-detail", "stk-table") and f.trace is not None and f.trace.replayed
    final = dict(f.trace.steps[-1].state)
    assert (final["A"], final["B"]) == (1, 1)
    assert "by 'stk-detail' it is -1 or 0, by 'stk-table' -1 or 1" in f.message


def test_each_cell_is_compared_with_its_detail_alone() -> None:
    """Eldfall's Crouched row says "STK = 1" in two cells, each its own modifier restating
    the detail's "capped at 1": two links, each compared as the two statements alone (the
    third statement of the same modifier is left out, not a choice on either side)."""
    text = HEADER + """stats:
  STK: {base: 2}
modifiers:
  - {id: stk-detail, when: A, stat: STK, op: cap 1}
  - {id: stk-actions, when: A, stat: STK, op: set 1, restates: stk-detail}
  - {id: stk-table, when: A, stat: STK, op: set 1, restates: stk-detail}
  - {id: weakened, when: B, stat: STK, op: add -2}
"""
    found = {f.rules: f for f in scan_restatements(load(text), OPTIONS).findings}
    assert set(found) == {("stk-actions", "stk-detail"), ("stk-detail", "stk-table")}
    assert "by 'stk-actions' it is -1 or 1, by 'stk-detail' -1 or 0" in found[
        ("stk-actions", "stk-detail")].message
    assert "by 'stk-detail' it is -1 or 0, by 'stk-table' -1 or 1" in found[
        ("stk-detail", "stk-table")].message


OPS = {"halve": lambda v: v // 2, "double": lambda v: 2 * v, "add 1": lambda v: v + 1,
       "add -2": lambda v: v - 2, "set 1": lambda v: 1, "cap 1": lambda v: min(v, 1),
       "floor 3": lambda v: max(v, 3)}
Mod = tuple[str, str]      # when, op


def stat_values(mods: list[Mod], a: bool, b: bool) -> set[int]:
    """The oracle: the stat's values (base 2) with the active ones of `mods`, every order."""
    import itertools
    active = [op for when, op in mods if WHENS[when](a, b)]
    out = set()
    for order in itertools.permutations(active):
        v = 2
        for op in order:
            v = OPS[op](v)
        out.add(v)
    return out


mods = st.tuples(st.sampled_from(sorted(WHENS)), st.sampled_from(sorted(OPS)))


@settings(max_examples=40, deadline=None, derandomize=True)
@given(mods, mods, st.none() | mods)
def test_modifiers_reported_exactly_when_their_values_differ_somewhere_reachable(
        first: Mod, second: Mod, other: Mod | None) -> None:
    rest = [other] if other else []
    lines = [f"  - {{id: detail, when: \"{first[0]}\", stat: STK, op: {first[1]}}}",
             f"  - {{id: table, when: \"{second[0]}\", stat: STK, op: {second[1]}, "
             "restates: detail}"]
    lines += [f"  - {{id: other, when: \"{w}\", stat: STK, op: {op}}}" for w, op in rest]
    text = HEADER + "stats:\n  STK: {base: 2}\nmodifiers:\n" + "\n".join(lines) + "\n"
    differs = [(a, b) for a, b in REACHABLE
               if stat_values([first, *rest], a, b) != stat_values([second, *rest], a, b)]
    scan = scan_restatements(load(text), OPTIONS)
    assert scan.undecided == []
    assert [f.rules for f in scan.findings] == ([("detail", "table")] if differs else [])
    for f in scan.findings:
        assert f.trace is not None and f.trace.replayed
        final = dict(f.trace.steps[-1].state)
        assert (final["A"] >= 1, final["B"] >= 1) in differs
