"""The interpreter's generated rule table (`checker.interpret.codegen`) means what the
reference definitions mean: an expression's source evaluates like `evaluate`; `firable` and
`is_stable` agree with `checker.ir.may_fire`/`enabled` evaluated by `evaluate` on random
systems (every state of their small ranges, precedence included), and with the
interpreter's own per-rule closures (`is_enabled`, `may_fire`) on the seeds' states."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from checker.errors import InternalError
from checker.interpret import Interpreter
from checker.interpret.codegen import expr_source
from checker.interpret.evaluate import evaluate
from checker.ir import Assign, Const, LExpr, Op, Precedence, System, Transition, V, Var
from checker.ir import enabled as ir_enabled
from checker.ir import may_fire as ir_may_fire
from checker.spec.load import load_ruleset

pytestmark = pytest.mark.unit

ROOT = Path(__file__).resolve().parent.parent
NAMES = ("a", "b", "c")
BOOL = ("not", "and", "or", "implies", "eq", "ne", "lt", "le", "gt", "ge")
ARITY = {"not": 1, "neg": 1, "implies": 2, "eq": 2, "ne": 2, "lt": 2, "le": 2, "gt": 2,
         "ge": 2, "add": 2, "sub": 2, "mul": 2, "ite": 3}


def _leaf() -> st.SearchStrategy[LExpr]:
    return st.one_of(st.builds(Const, st.integers(-3, 3)), st.builds(Const, st.booleans()),
                     st.builds(V, st.sampled_from(NAMES)))


def _op(children: st.SearchStrategy[LExpr]) -> st.SearchStrategy[LExpr]:
    fixed = st.sampled_from(sorted(ARITY)).flatmap(
        lambda op: st.tuples(*[children] * ARITY[op]).map(lambda args: Op(op, args)))
    variadic = st.tuples(st.sampled_from(["and", "or", "min", "max"]),
                         st.lists(children, min_size=2, max_size=4)).map(
        lambda p: Op(p[0], tuple(p[1])))
    return st.one_of(fixed, variadic)


exprs = st.recursive(_leaf(), _op, max_leaves=12)


@given(exprs, st.tuples(*[st.integers(-2, 2)] * 3))
@settings(max_examples=400, deadline=None)
def test_an_expression_source_evaluates_like_the_reference(e: LExpr,
                                                           values: tuple[int, ...]) -> None:
    env = dict(zip(NAMES, values, strict=True))
    src, is_bool = expr_source(e, lambda name: f"s[{NAMES.index(name)}]")
    got = eval(f"lambda s: {src}")(values)
    want = evaluate(e, env)
    assert got == want, src
    assert bool(got) == bool(want)
    if is_bool:
        assert isinstance(got, bool), src


def _system(rules: list[tuple[LExpr, list[tuple[str, LExpr]]]],
            before: list[tuple[int, int]]) -> System:
    vars_ = (*(Var(n, 0, 2, (0,), "int") for n in NAMES), Var("_res", 0, 4, (0,), "res"))
    ts = tuple(Transition(f"r{k}", f"r{k}", "rule", guard,
                          tuple(Assign(n, v) for n, v in effects))
               for k, (guard, effects) in enumerate(rules))
    prec = tuple(Precedence(f"r{i}", f"r{j}", "test") for i, j in before if i < len(ts)
                 and j < len(ts))
    return System("t", vars_, (), ts, 4, precedence=prec)


# effects stay in range mostly by construction (constants, copies, clamps), sometimes not
values = st.one_of(st.builds(Const, st.integers(0, 2)), st.builds(V, st.sampled_from(NAMES)),
                   exprs.map(lambda e: Op("min", (Op("max", (Op("ite", (e, Const(1),
                                                                          Const(2))),
                                                             Const(0))), Const(2)))),
                   exprs)
rules_st = st.lists(st.tuples(exprs, st.lists(st.tuples(st.sampled_from(NAMES), values),
                                              max_size=3)), min_size=1, max_size=5)


@given(rules_st, st.lists(st.tuples(st.integers(0, 4), st.integers(0, 4)), max_size=4))
@settings(max_examples=300, deadline=None)
def test_firable_and_stable_mean_the_ir_definitions(rules, before) -> None:
    try:
        system = _system(rules, before)
        interp = Interpreter(system)
    except InternalError:
        return   # a constant outside its range: refused when the interpreter is built
    names = [v.name for v in system.vars]
    for combo in itertools.product(range(3), range(3), range(3)):
        state = (*combo, 0)
        env = dict(zip(names, state, strict=True))
        try:
            firable = [r.id for r in interp.firable(state)]
        except InternalError:
            # a computed value outside its range: the per-rule closures refuse it as well
            with pytest.raises(InternalError):
                for r in system.rules:
                    interp.is_enabled(r, state)
            continue
        want = [r.id for r in system.rules if evaluate(ir_may_fire(system, r), env)]
        assert firable == want
        stable = not any(evaluate(ir_enabled(system, r), env) for r in system.rules)
        try:
            assert interp.is_stable(state) == stable
        except InternalError:
            assert not stable   # it stopped at a rule enabled before the one out of range


SEEDS = {"noctvale": "spec/noctvale.yaml",
         "eldfall-partitioned": "tests/fixtures/eldfall-partitioned.yaml",
         "bushido": "spec/bushido.yaml"}


def _states(interp: Interpreter, limit: int) -> list[tuple[int, ...]]:
    """The first `limit` states breadth-first from a few initial states (micro steps and
    events: Bushido alone has 262,144 initial states, all stable)."""
    seen = dict.fromkeys(itertools.islice(interp.initial_states(), 8))
    queue = list(seen)
    for state in queue:
        for _, _, nxt in interp.successors(state):
            if len(seen) >= limit:
                return list(seen)
            if nxt not in seen:
                seen[nxt] = None
                queue.append(nxt)
    return list(seen)


@pytest.mark.parametrize("seed", sorted(SEEDS))
def test_the_table_agrees_with_the_closures_on_the_seeds(seed: str) -> None:
    path = SEEDS[seed]
    system = load_ruleset(ROOT / path, path).system
    interp = Interpreter(system)
    unstable = 0
    for state in _states(interp, 4_000):
        want = [r for r in system.rules if interp.may_fire(r, state)]
        assert interp.firable(state) == want
        stable = not any(interp.is_enabled(r, state) for r in system.rules)
        assert interp.is_stable(state) == stable
        unstable += not stable
    assert unstable > 0, "the states searched include resolutions"


def test_a_guard_nested_past_pythons_compiler_uses_the_closures() -> None:
    """A guard of 300 nested `not`s cannot be generated (Python's compiler stops at about
    200 parentheses): the interpreter falls back to each rule's closures, with the same
    meaning (an even number of `not`s: the guard is `a >= 1`)."""
    deep: LExpr = Op("ge", (V("a"), Const(1)))
    for _ in range(300):
        deep = Op("not", (deep,))
    system = _system([(deep, [("b", Const(1))]), (Op("eq", (V("c"), Const(2))),
                                                   [("c", Const(0))])], [(0, 1)])
    interp = Interpreter(system)
    assert interp._table is None
    assert [r.id for r in interp.firable((1, 0, 2, 0))] == ["r0"]     # r0 ordered first
    assert [r.id for r in interp.firable((0, 0, 2, 0))] == ["r1"]
    assert interp.is_stable((0, 0, 0, 0)) and not interp.is_stable((2, 0, 0, 0))
    assert interp.is_stable((1, 1, 0, 0))                  # r0 would change nothing
